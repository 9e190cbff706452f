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
    if likely_witnesses(trace, &xs).any(|order| replays_bad(&e, trace, &xs, &order)) {
        return Ok(Some(true));
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

/// The likely witnesses of a free transformation into a bad trace, as orders of the steps `xs`
/// of `trace` (indices), each checked by one linear replay:
/// - for every assertion `r` reading from a write `w` of another thread, the trace with `w`
///   and the rest of its thread delayed until just after `r` (the assertion sees the value
///   before the write);
/// - for every read `r` in the assertions' data cone (the steps whose values an assertion
///   reads, through reads-from, back to the start) reading from a write `w` of another
///   thread, the trace with `r` and the steps of its thread between `w` and `r` moved to just
///   before `w` (the read sees the value before the write: a lost update, a torn pair).
///
/// The assertions' delays first, in trace order, then the advances, the latest read first;
/// one order per pair of a read and its writer.
fn likely_witnesses<'t>(trace: &'t Trace, xs: &'t [XStep]) -> impl Iterator<Item = Vec<usize>> + 't {
    let events = trace.events();
    let thread = |i: usize| xs[i].thread;
    // Every cross-thread read (reader, writer), in trace order.
    let cross = move |r: usize| {
        events[r]
            .reads
            .iter()
            .filter_map(|read| read.from.map(|f| f.index()))
            .filter(move |&w| w < r && thread(w) != thread(r))
    };
    let delays = (0..events.len())
        .filter(|&r| events[r].kind == paces_trace::EventKind::Assert)
        .flat_map(move |r| cross(r).map(move |w| (r, w)))
        .map(move |(r, w)| {
            let delayed = |i: usize| thread(i) == thread(w) && i >= w && i < r;
            (0..=r).filter(|&i| !delayed(i)).chain((w..=r).filter(|&i| delayed(i))).chain(r + 1..xs.len()).collect()
        });
    let cone = data_cone(trace);
    let advances =
        (0..events.len()).rev().filter(move |&r| cone[r]).flat_map(move |r| cross(r).map(move |w| (r, w))).map(
            move |(r, w)| {
                let advanced = |i: usize| thread(i) == thread(r) && i >= w && i <= r;
                (0..w).chain((w..=r).filter(|&i| advanced(i))).chain((w..xs.len()).filter(|&i| !advanced(i))).collect()
            },
        );
    delays.chain(advances)
}

/// Per event of `trace`: whether an assertion reads, directly or through the writes it reads
/// from, what the event writes (or it is the assertion).
fn data_cone(trace: &Trace) -> Vec<bool> {
    let events = trace.events();
    let mut cone = vec![false; events.len()];
    let mut work: Vec<usize> =
        (0..events.len()).filter(|&i| events[i].kind == paces_trace::EventKind::Assert).collect();
    while let Some(i) = work.pop() {
        if std::mem::replace(&mut cone[i], true) {
            continue;
        }
        work.extend(events[i].reads.iter().filter_map(|r| r.from.map(|f| f.index())));
    }
    cone
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{good_traces, GoodConfig};

    /// Workers that add one to a counter, and a checker that waits for them all: a good trace
    /// turns bad when a worker's read moves before the other's write (a lost update). The
    /// checker's wait pins every worker's last write, so no delay of a write past the
    /// assertion will do; the advanced read is found by one replay, within a budget of 1.
    #[test]
    fn a_lost_update_is_found_by_advancing_a_read() {
        let mut src = String::from("var total = 0, done = 0;");
        for i in 0..4 {
            src.push_str(&format!("thread w{i} {{ local t; t := total; total := t + 1; done := done + 1; }}"));
        }
        src.push_str("thread c { await(done == 4); assert(total == 4); }");
        let program = paces_cwhile::parse(&src).unwrap();
        let good = good_traces(&program, &GoodConfig::new()).unwrap();
        let trace = good.iter().find(|t| !t.is_bad()).expect("a good trace");
        let xs_len = trace.len();
        assert!(xs_len > 12, "{xs_len} steps");
        assert_eq!(freely_bad(&program, trace, 1).unwrap(), Some(true));
    }

    /// Threads that write different variables never turn bad: no witness, and the search of
    /// their interleavings says so.
    #[test]
    fn independent_threads_are_not_freely_bad() {
        let src = "var x = 0, y = 0; thread a { x := 1; } thread b { y := 1; } \
                   thread c { await(x == 1 && y == 1); assert(x + y == 2); }";
        let program = paces_cwhile::parse(src).unwrap();
        let good = good_traces(&program, &GoodConfig::new()).unwrap();
        let trace = good.iter().find(|t| !t.is_bad()).expect("a good trace");
        assert_eq!(freely_bad(&program, trace, 1_000).unwrap(), Some(false));
    }
}
