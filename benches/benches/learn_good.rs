//! Measures LearnGoodUnder (`paces_trace::learn_good`, full and simplified) on synthetic good traces of 10^2 to 10^5 events, and reports arena nodes and the log-log growth exponent.
//!
//! The traces come from four threads, each running a loop (one block instance per iteration)
//! whose body is fixed once per thread: the loop test (an assume on the thread's counter), a
//! critical section under one of two locks (an acquire, an await that takes the lock, then two
//! to five statements reading guarded shared data into locals, writing constants or locals to
//! it, and asserting on it, then the release), one to three local computations and the
//! counter's increment. Threads run in random chunks of one to eight statements; a thread
//! waits while another holds its lock, so the traces are good and their assertions' data flow
//! is covered through the locks. Building the trace is not measured; each sample learns into a
//! fresh arena. Both variants run with the fallback on (the default) and, in the summary, also
//! without it.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use paces_constraint::{Arena, BlockId, Loc};
use paces_testkit::Rng;
use paces_trace::{
    learn_good, BlockInstance, EventKind, LearnConfig, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId, Variant,
};

const THREADS: u32 = 4;
/// Shared data variables, guarded by the two locks (variables `d` with `d % 2 == k` by lock
/// `k`).
const SHARED: u32 = 8;
const LOCKS: u32 = 2;
const LOCALS: u32 = 4;
const SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];

/// A statement of a loop body.
#[derive(Clone, Copy)]
enum Stmt {
    /// `atomic { await(lock == 0); lock := 1 }`, one event.
    Acquire(u32),
    /// `lock := 0`.
    Release(u32),
    /// `dst := src` (or a computation on `src`): reads one variable, writes another.
    Compute { src: u32, dst: u32 },
    /// `dst := c`.
    Set(u32),
    /// `assert(var == ..)`.
    Check(u32),
    /// `assume(var ..)`: the loop test on the thread's counter.
    Test(u32),
}

/// Variable ids: data `0..SHARED`, locks next, then per thread its locals and counter.
fn lock_var(k: u32) -> u32 {
    SHARED + k
}

fn local_var(t: u32, k: u32) -> u32 {
    SHARED + LOCKS + t * (LOCALS + 1) + k
}

/// The loop body of one thread: a critical section under one lock (reads of guarded data
/// into locals, writes of constants and of locals, assertions on guarded data), then a few
/// local computations, then the counter's increment.
fn body(t: u32, rng: &mut Rng) -> Vec<Stmt> {
    let k = rng.below_u64(u64::from(LOCKS)) as u32;
    let guarded = |rng: &mut Rng| k + LOCKS * rng.below_u64(u64::from(SHARED / LOCKS)) as u32;
    let local = |rng: &mut Rng| local_var(t, rng.below_u64(u64::from(LOCALS)) as u32);
    let mut out = vec![Stmt::Acquire(k)];
    for _ in 0..2 + rng.below_u64(4) {
        out.push(match rng.below_u64(20) {
            0..=7 => Stmt::Compute { src: guarded(rng), dst: local(rng) },
            8..=11 => Stmt::Set(guarded(rng)),
            12..=14 => Stmt::Compute { src: local(rng), dst: guarded(rng) },
            _ => Stmt::Check(guarded(rng)),
        });
    }
    out.push(Stmt::Release(k));
    for _ in 0..1 + rng.below_u64(3) {
        out.push(match rng.below_u64(2) {
            0 => Stmt::Compute { src: local(rng), dst: local(rng) },
            _ => Stmt::Set(local(rng)),
        });
    }
    let counter = local_var(t, LOCALS);
    out.push(Stmt::Compute { src: counter, dst: counter });
    out
}

/// A synthetic good trace of `events` events: threads take turns in random chunks of one to
/// eight statements, and a thread waits while another holds the lock it needs.
fn synthetic(bodies: &[Vec<Stmt>], events: usize, seed: u64) -> Trace {
    let mut rng = Rng(seed);
    let mut holder: Vec<Option<u32>> = vec![None; LOCKS as usize];
    // Per thread: iteration number and position in the iteration (0: the loop test).
    let mut at = vec![(0u32, 0usize); THREADS as usize];
    let mut b = TraceBuilder::new();
    while b.len() < events {
        let t = rng.below_u64(u64::from(THREADS)) as u32;
        for _ in 0..1 + rng.below_u64(8) {
            let (iteration, pos) = at[t as usize];
            let body = &bodies[t as usize];
            let stmt = if pos == 0 { Stmt::Test(local_var(t, LOCALS)) } else { body[pos - 1] };
            if b.len() >= events || matches!(stmt, Stmt::Acquire(k) if holder[k as usize].is_some()) {
                break;
            }
            let top = BlockInstance { block: BlockId::from_u32(2 * t), instance: 0 };
            let base = t * 16;
            let loop_item = Loc::from_u32(base);
            let mut scope = vec![ScopeEntry { instance: top, item: loop_item }];
            if pos > 0 {
                let instance = BlockInstance { block: BlockId::from_u32(2 * t + 1), instance: iteration };
                scope.push(ScopeEntry { instance, item: Loc::from_u32(base + pos as u32) });
            }
            let loc = scope.last().map_or(loop_item, |s| s.item);
            let step = b.step(ThreadId::from_u32(t), loc, scope);
            let var = VarId::from_u32;
            let value = rng.below_u64(4) as i64;
            let step = match stmt {
                Stmt::Acquire(k) => {
                    holder[k as usize] = Some(t);
                    step.kind(EventKind::Await).read(var(lock_var(k))).write(var(lock_var(k)), 1)
                }
                Stmt::Release(k) => {
                    holder[k as usize] = None;
                    step.write(var(lock_var(k)), 0)
                }
                Stmt::Compute { src, dst } => step.read(var(src)).write(var(dst), value),
                Stmt::Set(dst) => step.write(var(dst), value),
                Stmt::Check(v) => step.kind(EventKind::Assert).read(var(v)),
                Stmt::Test(v) => step.kind(EventKind::Assume).read(var(v)),
            };
            step.push().expect("synthetic traces are valid");
            at[t as usize] = if pos == body.len() { (iteration + 1, 0) } else { (iteration, pos + 1) };
        }
    }
    b.finish()
}

fn bench(c: &mut Criterion) {
    // One program for every size (each thread's body holds at least one assertion); the
    // schedule differs.
    let mut rng = Rng(0x1ea7_900d);
    let bodies: Vec<Vec<Stmt>> = (0..THREADS)
        .map(|t| loop {
            let b = body(t, &mut rng);
            if b.iter().any(|s| matches!(s, Stmt::Check(_))) {
                break b;
            }
        })
        .collect();
    let traces: Vec<(usize, Trace)> = SIZES.iter().map(|&n| (n, synthetic(&bodies, n, n as u64))).collect();
    let variants = [("full", Variant::Full), ("simplified", Variant::Simplified)];
    let mut group = c.benchmark_group("learn_good");
    group.sample_size(10).warm_up_time(Duration::from_millis(200)).measurement_time(Duration::from_secs(2));
    for (n, trace) in &traces {
        if *n > 10_000 {
            continue; // measured once below: a sample takes too long for criterion's rounds
        }
        group.throughput(Throughput::Elements(*n as u64));
        for (name, variant) in variants {
            let config = LearnConfig::new().variant(variant);
            group.bench_with_input(BenchmarkId::new(name, n), trace, |b, trace| {
                b.iter(|| {
                    let mut arena = Arena::new();
                    black_box(learn_good(trace, &mut arena, &config).constraint)
                })
            });
        }
    }
    group.finish();

    // The summary: median of a few runs per size, arena nodes, and the log-log fit of time
    // against events.
    let summaries = [
        ("full", LearnConfig::new()),
        ("full, no fallback", LearnConfig::new().fallback(false)),
        ("simplified", LearnConfig::new().variant(Variant::Simplified)),
    ];
    for (name, config) in summaries {
        let simplified = name == "simplified";
        let mut points = Vec::new();
        println!("learn_good {name}: events, median time, arena nodes, constraint nodes, edges covered, fallback");
        for (n, trace) in &traces {
            if simplified && *n > 10_000 {
                // One breadth-first search per source over the whole span: about a minute here.
                println!("  {n:>7} skipped (one search per source: quadratic, about a minute)");
                continue;
            }
            let runs = if *n > 10_000 { 1 } else { 7 };
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..runs {
                let mut arena = Arena::new();
                let start = Instant::now();
                let learned = learn_good(trace, &mut arena, &config);
                times.push(start.elapsed());
                last = Some((learned, arena.len(), arena.stats(learned.constraint).nodes));
            }
            times.sort();
            let median = times[runs / 2];
            let (learned, nodes, size) = last.expect("at least one run");
            println!(
                "  {n:>7} {:>10.3} ms {nodes:>9} {size:>9} {:>8} {}",
                median.as_secs_f64() * 1e3,
                learned.edges,
                learned.fallback_used
            );
            points.push(((*n as f64).ln(), median.as_secs_f64().ln(), (nodes as f64).ln()));
        }
        let slope = |pick: fn(&(f64, f64, f64)) -> f64| {
            // Least squares over the sizes measured.
            let k = points.len() as f64;
            let mx = points.iter().map(|p| p.0).sum::<f64>() / k;
            let my = points.iter().map(pick).sum::<f64>() / k;
            let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (pick(p) - my)).sum();
            let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
            sxy / sxx
        };
        println!("  log-log exponent: time {:.2}, arena nodes {:.2}", slope(|p| p.1), slope(|p| p.2));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
