//! Measures generalising and eliminating synthetic bad traces of 10^2 to 10^4 events (`paces_generalize::eliminate`), and reports their fixes.
//!
//! The traces come from four straight-line threads: most statements touch thread-local
//! variables, about one in six reads or writes one of eight shared variables, one in twenty
//! is an await on a shared variable, and the last statement of thread 0 is a failing
//! assertion on a shared variable. Threads run in random chunks of one to eight statements,
//! thread 0 more often, so the trace runs on past the failure. The space fixes every pair of
//! conflicting statements of a thread. Building the space and the trace is not measured.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use paces_constraint::{Arena, ItemInfo, Loc, Space, SpaceBuilder};
use paces_generalize::{eliminate, EliminateConfig};
use paces_testkit::Rng;
use paces_trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId};

const THREADS: usize = 4;
const SHARED: u32 = 8;
const LOCALS: u32 = 4;

struct Stmt {
    reads: Option<u32>,
    writes: Option<u32>,
    kind: EventKind,
}

/// A synthetic program of about `events` statements, its space, and a bad trace of it.
fn synthetic(events: usize, seed: u64) -> (Space, Trace) {
    let mut rng = Rng(seed);
    let per = (events / THREADS).max(2);
    let mut threads: Vec<Vec<Stmt>> = Vec::new();
    for t in 0..THREADS as u32 {
        let local = |k: u64| SHARED + t * LOCALS + k as u32;
        let mut stmts = Vec::new();
        for i in 0..per {
            let stmt = if t == 0 && i == per - 1 {
                Stmt { reads: Some(0), writes: None, kind: EventKind::Assert }
            } else {
                match rng.below_u64(60) {
                    0..=4 => Stmt {
                        reads: Some(rng.below_u64(u64::from(SHARED)) as u32),
                        writes: None,
                        kind: EventKind::Await,
                    },
                    5..=9 => Stmt {
                        reads: None,
                        writes: Some(rng.below_u64(u64::from(SHARED)) as u32),
                        kind: EventKind::Plain,
                    },
                    10..=14 => Stmt {
                        reads: Some(rng.below_u64(u64::from(SHARED)) as u32),
                        writes: Some(local(rng.below_u64(u64::from(LOCALS)))),
                        kind: EventKind::Plain,
                    },
                    15..=29 => Stmt {
                        reads: Some(local(rng.below_u64(u64::from(LOCALS)))),
                        writes: Some(local(rng.below_u64(u64::from(LOCALS)))),
                        kind: EventKind::Plain,
                    },
                    _ => Stmt {
                        reads: None,
                        writes: Some(local(rng.below_u64(u64::from(LOCALS)))),
                        kind: EventKind::Plain,
                    },
                }
            };
            stmts.push(stmt);
        }
        threads.push(stmts);
    }
    // The space: one block per thread; each statement fixed after the statements it conflicts
    // with directly (the last write of each variable it touches, and, for a write, the reads
    // since); the transitive closure does the rest.
    let mut b = SpaceBuilder::new();
    let mut locs: Vec<Vec<Loc>> = Vec::new();
    for (t, stmts) in threads.iter().enumerate() {
        let block = b.block(false);
        let mut ls = Vec::new();
        let mut last_write: Vec<Option<usize>> = vec![None; (SHARED + THREADS as u32 * LOCALS) as usize];
        let mut reads_since: Vec<Vec<usize>> = vec![Vec::new(); last_write.len()];
        for (i, s) in stmts.iter().enumerate() {
            let loc = b.loc(&format!("t{t}s{i}")).expect("fresh name");
            let info = if s.kind == EventKind::Await { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
            b.item(block, loc, info).expect("fresh item");
            ls.push(loc);
            let mut before: Vec<usize> = Vec::new();
            if let Some(r) = s.reads {
                before.extend(last_write[r as usize]);
            }
            if let Some(w) = s.writes {
                before.extend(last_write[w as usize]);
                before.extend(reads_since[w as usize].iter().copied());
            }
            before.sort_unstable();
            before.dedup();
            for j in before.into_iter().filter(|&j| j != i) {
                b.fix(ls[j], loc).expect("earlier item of the block");
            }
            if let Some(r) = s.reads {
                reads_since[r as usize].push(i);
            }
            if let Some(w) = s.writes {
                last_write[w as usize] = Some(i);
                reads_since[w as usize].clear();
            }
        }
        locs.push(ls);
    }
    let space = b.build().expect("valid space");
    // The trace: random chunks, thread 0 twice as often.
    let mut tb = TraceBuilder::new();
    let mut pc = [0usize; THREADS];
    while pc.iter().zip(&threads).any(|(&p, s)| p < s.len()) {
        let pick = rng.below_u64(THREADS as u64 + 1) as usize;
        let t = if pick >= THREADS { 0 } else { pick };
        let chunk = 1 + rng.below_u64(8) as usize;
        for _ in 0..chunk {
            let p = pc[t];
            let Some(s) = threads[t].get(p) else { break };
            let scope = vec![ScopeEntry {
                instance: BlockInstance { block: paces_constraint::BlockId::from_u32(t as u32), instance: 0 },
                item: locs[t][p],
            }];
            let mut step = tb.step(ThreadId::from_u32(t as u32), locs[t][p], scope).kind(s.kind);
            if let Some(r) = s.reads {
                step = step.read(VarId::from_u32(r));
            }
            if let Some(w) = s.writes {
                step = step.write(VarId::from_u32(w), p as i64);
            }
            step.failed(s.kind == EventKind::Assert).push().expect("valid step");
            pc[t] += 1;
        }
    }
    (space, tb.finish())
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("eliminate");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for events in [100usize, 1_000, 10_000] {
        let (space, trace) = synthetic(events, 0x5eed_0000 + events as u64);
        let config = EliminateConfig::new();
        let mut arena = Arena::new();
        let elim = eliminate(&trace, &space, &mut arena, &config).expect("a bad trace of the space");
        println!(
            "eliminate/{events}: {} events, partial order {} events and {} cross-thread orderings, {} fixes \
             (complete: {}, preemption-free: {}), lightest weight {:?}",
            trace.len(),
            elim.partial_order.len(),
            elim.partial_order.cross_edges().len(),
            elim.fixes.len(),
            elim.complete,
            elim.preemption_free_possible,
            elim.fixes.first().map(|f| f.weight),
        );
        group.throughput(Throughput::Elements(trace.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(events), &trace, |b, trace| {
            b.iter(|| {
                let mut arena = Arena::new();
                black_box(eliminate(trace, &space, &mut arena, &config).expect("bad trace"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
