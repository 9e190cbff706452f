//! The repair loop's hot paths on the largest held-in benchmarks (usb-serial, rtl8169, dv1394):
//! finding and completing the first bad trace, learning from the good traces, eliminating the
//! bad trace, and solving for the next candidate.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use paces_constraint::Arena;
use paces_cwhile::ir::Program;
use paces_explore::{check, complete_counterexample, good_traces, Config, GoodConfig};
use paces_generalize::{eliminate, EliminateConfig};
use paces_solver::{Solver, SolverConfig};
use paces_trace::{learn_good, LearnConfig, Trace};

fn load(name: &str) -> Program {
    paces_cwhile::parse(paces_heldin::source(name)).unwrap_or_else(|d| panic!("{name}: {d}"))
}

fn first_bad(p: &Program) -> Trace {
    let result = check(p, &Config::new()).expect("checks");
    let cex = result.verdict.counterexample().expect("the benchmark has a bug");
    complete_counterexample(p, cex, 200_000).expect("completes").trace
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipeline");
    group.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    for name in ["dv1394", "usb-serial", "rtl8169"] {
        let p = load(name);
        let space = p.space();
        group.bench_function(format!("{name}/first_bad_trace"), |b| b.iter(|| black_box(first_bad(&p))));
        let good = good_traces(&p, &GoodConfig::new()).expect("good traces");
        group.bench_function(format!("{name}/good_traces"), |b| {
            b.iter(|| black_box(good_traces(&p, &GoodConfig::new()).expect("good traces").len()))
        });
        group.bench_function(format!("{name}/learn_good_all"), |b| {
            b.iter(|| {
                let mut arena = Arena::new();
                for t in &good {
                    black_box(learn_good(t, &mut arena, &LearnConfig::new().fallback(false)));
                }
                arena.len()
            })
        });
        let bad = first_bad(&p);
        group.bench_function(format!("{name}/eliminate"), |b| {
            b.iter(|| {
                let mut arena = Arena::new();
                black_box(eliminate(&bad, &space, &mut arena, &EliminateConfig::new()).expect("eliminates").fixes.len())
            })
        });
        let mut arena = Arena::new();
        let mut parts = Vec::new();
        for t in &good {
            parts.push(learn_good(t, &mut arena, &LearnConfig::new().fallback(false)).constraint);
        }
        parts.push(eliminate(&bad, &space, &mut arena, &EliminateConfig::new()).expect("eliminates").constraint);
        group.bench_function(format!("{name}/solve"), |b| {
            b.iter(|| {
                let mut solver = Solver::new(&space, SolverConfig::new()).expect("encodes");
                for (i, &n) in parts.iter().enumerate() {
                    solver.add(&arena, n, &format!("c{i}")).expect("adds");
                }
                black_box(solver.solve().expect("solves").solution().is_some())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
