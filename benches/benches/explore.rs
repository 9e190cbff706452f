//! Measures the model checker (`paces-explore`) on held-in programs: the default check (stops at the first failure) and the exhaustive exploration, with and without partial-order reduction.
//!
//! The programs are the held-in benchmarks of `examples/` (through `paces-heldin`). rtl8169's
//! exhaustive exploration takes minutes, so only its default check is measured here; see
//! `docs/evaluation.md`, "The checker against SPIN", for the full table.
//!
//! The `explore-hot` group measures the hot path alone, single-threaded: expanding states and
//! storing their successors, for usb-serial's whole reduced state space and for rtl8169's
//! first 50,000 states.
//!
//! The `explore-hunt` group measures the bug hunt (`Config::hunt_states`, docs/explore.md) on
//! a candidate the rtl8169 repair rejects, whose first failure lies deep: its check up to the
//! first failure, with the hunt and without.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use paces_explore::{check, Config};

fn program(name: &str) -> paces_cwhile::Program {
    paces_cwhile::parse(paces_heldin::source(name)).expect("valid program")
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("explore");
    g.sample_size(10).warm_up_time(Duration::from_millis(200)).measurement_time(Duration::from_secs(2));
    for name in ["paper1", "ex4", "dv1394", "usb-serial", "rtl8169"] {
        let p = program(name);
        g.bench_with_input(BenchmarkId::new("check", name), &p, |b, p| {
            b.iter(|| black_box(check(p, &Config::new()).expect("check")))
        });
        if name == "rtl8169" {
            continue;
        }
        for (label, por) in [("exhaustive-por", true), ("exhaustive-nopor", false)] {
            let config = Config::new().stop_at_first_failure(false).por(por);
            g.bench_with_input(BenchmarkId::new(label, name), &p, |b, p| {
                b.iter(|| black_box(check(p, &config).expect("check")))
            });
        }
    }
    g.finish();
}

/// States of rtl8169 stored by the bounded hot-path run.
const RTL_STATES: usize = 50_000;

fn bench_hot(c: &mut Criterion) {
    let mut g = c.benchmark_group("explore-hot");
    g.sample_size(10).warm_up_time(Duration::from_millis(200)).measurement_time(Duration::from_secs(3));
    let one_thread = Config::new().stop_at_first_failure(false).threads(Some(1));
    for (name, config) in [("usb-serial", one_thread.clone()), ("rtl8169", one_thread.clone().max_states(RTL_STATES))] {
        let p = program(name);
        g.bench_with_input(BenchmarkId::new("expand-store", name), &p, |b, p| {
            b.iter(|| black_box(check(p, &config).expect("check")))
        });
    }
    g.finish();
}

/// A candidate of rtl8169 the repair loop rejects (without the hunt its fifth check: the first
/// failure after about 246,000 states).
fn deep_candidate() -> paces_cwhile::Program {
    use paces_constraint::{Candidate, Transformation};
    let original = program("rtl8169");
    let space = original.space();
    let loc = |label: &str| original.loc(label).expect("a label of rtl8169");
    let swaps: Vec<Transformation> = [("476", "477"), ("604", "605"), ("240", "249")]
        .into_iter()
        .map(|(a, b)| Transformation::Swap { first: loc(a), second: loc(b) })
        .collect();
    let candidate = Candidate::apply(&space, &swaps).expect("the swaps apply");
    original.apply(&candidate).expect("the candidate applies")
}

fn bench_hunt(c: &mut Criterion) {
    let mut g = c.benchmark_group("explore-hunt");
    g.sample_size(10).warm_up_time(Duration::from_millis(200)).measurement_time(Duration::from_secs(5));
    let p = deep_candidate();
    for (label, hunt) in [("hunt", 50_000), ("no-hunt", 0)] {
        let config = Config::new().hunt_states(hunt);
        g.bench_with_input(BenchmarkId::new(label, "rtl8169-candidate"), &p, |b, p| {
            b.iter(|| black_box(check(p, &config).expect("check")))
        });
    }
    g.finish();
}

criterion_group!(benches, bench, bench_hot, bench_hunt);
criterion_main!(benches);
