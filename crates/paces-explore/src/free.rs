//! Free transformations of a trace: does a good trace already turn bad by scheduling alone?
//!
//! The paper's regression (section 2, condition (b)) only counts a good trace `pi` that does
//! *not* freely transform into a bad trace of the original program: when the scheduler alone
//! can already make it bad, no transformation introduces a regression with respect to it.
//! [`freely_bad`] decides this by searching the interleavings of `pi`'s own steps (each thread
//! keeps its order) in which every `assume`/`await` reads from the same writers as in `pi`.

use paces_cwhile::ir::Program;
use paces_trace::{Trace, VarId};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::compile::compile;
use crate::engine::{Engine, Settings};
use crate::error::Error;
use crate::replay::{resolve, take, Conf, Schedule, ScheduleStep, XStep};

/// Whether `trace` (a trace of `program`) freely transforms into a bad trace: some
/// interleaving of the same steps, each thread in its own order, every condition (`assume`,
/// `await`) reading from the same writers as in `trace`, is a trace of `program` with a
/// failing step. `None` when the search of at most `budget` configurations ends without an
/// answer.
///
/// # Errors
/// When the program cannot be compiled or the trace is not a trace of it.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse("var x = 0; thread a { A: x := 1; } thread b { B: assert(x == 1); }")?;
/// let good = paces_explore::good_traces(&program, &paces_explore::GoodConfig::new())?;
/// let ab = good.iter().find(|t| !t.is_bad()).unwrap();
/// // Scheduling B before A makes it bad: an unprotected read.
/// assert_eq!(paces_explore::freely_bad(&program, ab, 10_000)?, Some(true));
/// # Ok(()) }
/// ```
pub fn freely_bad(program: &Program, trace: &Trace, budget: usize) -> Result<Option<bool>, Error> {
    let c = compile(program)?;
    let e = Engine::new(&c, Settings::default());
    let schedule = Schedule {
        steps: trace
            .events()
            .iter()
            .map(|ev| ScheduleStep {
                thread: paces_cwhile::ir::ThreadIdx::from_u32(ev.thread.as_u32()),
                label: program.loc_names.get(ev.loc.index()).cloned().unwrap_or_default(),
                calls: Vec::new(),
            })
            .collect(),
    };
    let xs = resolve(&e, &schedule)?;
    if xs.len() != trace.len() {
        return Ok(None);
    }
    let n = c.threads.len();
    // Per thread: its steps with their event index in `trace`.
    let mut queues: Vec<Vec<(XStep, usize)>> = vec![Vec::new(); n];
    for (i, &x) in xs.iter().enumerate() {
        queues[x.thread].push((x, i));
    }
    // First the likely witnesses, each one linear replay: for every assertion `r` reading
    // from a write `w` of another thread, the trace with `w` and the rest of its thread
    // delayed until just after `r`.
    for (ri, ev) in trace.events().iter().enumerate() {
        if ev.kind != paces_trace::EventKind::Assert {
            continue;
        }
        for read in &ev.reads {
            let Some(w) = read.from.map(|f| f.index()) else { continue };
            let wt = xs[w].thread;
            if wt == xs[ri].thread {
                continue;
            }
            let delayed = |i: usize| xs[i].thread == wt && i >= w && i < ri;
            let order: Vec<usize> = (0..=ri)
                .filter(|&i| !delayed(i))
                .chain((w..=ri).filter(|&i| delayed(i)))
                .chain(ri + 1..xs.len())
                .collect();
            if replays_bad(&e, trace, &xs, &order) {
                return Ok(Some(true));
            }
        }
    }
    type Key = (Vec<usize>, Conf, Vec<(VarId, usize)>, bool);
    let start = Conf { state: e.initial().to_vec(), holder: None };
    let mut seen: FxHashSet<Key> = FxHashSet::default();
    // Frames: positions, configuration, writers so far, whether a failure inside an atomic
    // block waits for the block's end.
    type Frame = (Vec<usize>, Conf, FxHashMap<VarId, usize>, bool);
    let mut stack: Vec<Frame> = vec![(vec![0; n], start, FxHashMap::default(), false)];
    let mut left = budget;
    while let Some((pos, conf, writers, pending)) = stack.pop() {
        for t in 0..n {
            let Some(&(x, i)) = queues[t].get(pos[t]) else { continue };
            let ev = trace.event(paces_trace::EventId::from_u32(i as u32));
            if ev.kind.is_cond() && ev.reads.iter().any(|r| writers.get(&r.var).copied() != r.from.map(|f| f.index())) {
                continue;
            }
            let Ok((next, failed)) = take(&e, &conf, x) else { continue };
            let (bad, pending) = failure_after(&conf, x, &next, failed, pending);
            if bad {
                return Ok(Some(true));
            }
            let mut w = writers.clone();
            for wr in &ev.writes {
                w.insert(wr.var, i);
            }
            let mut p = pos.clone();
            p[t] += 1;
            let mut key_w: Vec<(VarId, usize)> = w.iter().map(|(&v, &k)| (v, k)).collect();
            key_w.sort_unstable();
            if !seen.insert((p.clone(), next.clone(), key_w, pending)) {
                continue;
            }
            if left == 0 {
                return Ok(None);
            }
            left -= 1;
            stack.push((p, next, w, pending));
        }
    }
    Ok(Some(false))
}

/// Whether taking the steps `xs` in the order `order` (indices into `xs` and the trace) is a
/// trace of the program in which every condition reads from its writers in `trace`, with a
/// failing step.
fn replays_bad(e: &Engine<'_>, trace: &Trace, xs: &[XStep], order: &[usize]) -> bool {
    let mut conf = Conf { state: e.initial().to_vec(), holder: None };
    let mut writers: FxHashMap<VarId, usize> = FxHashMap::default();
    let mut pending = false;
    for &i in order {
        let ev = trace.event(paces_trace::EventId::from_u32(i as u32));
        if ev.kind.is_cond() && ev.reads.iter().any(|r| writers.get(&r.var).copied() != r.from.map(|f| f.index())) {
            return false;
        }
        let Ok((next, failed)) = take(e, &conf, xs[i]) else { return false };
        let (bad, now) = failure_after(&conf, xs[i], &next, failed, pending);
        if bad {
            return true;
        }
        pending = now;
        for wr in &ev.writes {
            writers.insert(wr.var, i);
        }
        conf = next;
    }
    false
}

/// Whether a failure is settled after step `x` took `conf` to `next` (`failed`: the step
/// failed; `pending`: a failure inside the atomic block held in `conf` waits for the block's
/// end), and whether one still waits. A failure inside an atomic block counts only once its
/// thread leaves the block: a path through the block that stops inside it is not taken.
fn failure_after(conf: &Conf, x: XStep, next: &Conf, failed: bool, pending: bool) -> (bool, bool) {
    let left_block = pending && (conf.holder != Some(x.thread) || x.fresh);
    if left_block {
        return (true, false);
    }
    let waits = pending || failed;
    (waits && next.holder.is_none(), waits && next.holder.is_some())
}
