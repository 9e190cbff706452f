//! The bug hunt: a depth-first search for a failing assertion, bounded in states, run before
//! the breadth-first search of a check that stops at the first failure
//! ([`Config::hunt_states`]; docs/explore.md, "The bug hunt").
//!
//! A breadth-first search finds a shortest counterexample, but only after storing every
//! state closer to the start: for a failure deep in the state space that is most of it. Depth
//! first, the same failure is often met after a small part. The run found is then long (the
//! hunt lets every thread wander), so it is cut down to the steps the failure depends on: the
//! failing step, every step before it of the same thread, the write each kept step reads, and
//! whole transitions (an atomic block is kept or dropped as a unit), closed under these rules.
//! Every other step can be dropped: a kept step reads the same writes as before (a write
//! between a kept writer and its reader would have been read instead), so every thread takes
//! the same steps with the same values, and the failing step fails again. The cut run is
//! replayed to check this; if it were not bad, the uncut run is kept.
//!
//! A thread may still make rounds the failure needs only because its later steps come after
//! them: a loop's round that ends where it began (the thread at the same control point, with
//! the same locals and loop counts, outside atomic blocks) and whose writes no step outside it
//! reads. Such a round is dropped, the longest first, and the run cut again, until none is
//! left: every other step reads the same writes as before, and the thread goes on from the
//! same state of its own, so again every step does what it did and the failure recurs.
//!
//! What the hunt finds is a real failure (its run is replayed step by step); what it misses
//! the breadth-first search after it finds, so a check's verdict does not depend on the hunt.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use paces_cwhile::ir::Fault;
use paces_trace::Trace;

use super::distinct::Distinct;
use super::stored::{deadlock_id, fail_label, Parent, Search, FAIR_RUN};
use super::{Config, Counterexample, FailureKinds};
use crate::compile::Compiled;
use crate::engine::{Engine, Expansion, Found, Stand};
use crate::error::Error;
use crate::progress::{Progress, Ticker};
use crate::replay::{build_trace, fault_at, take, to_schedule, transitions_to_steps, Conf, XStep};
use crate::store::encode;
use crate::DeadlockId;

/// What a hunt found and what it did.
#[derive(Default)]
pub(crate) struct Hunt {
    /// The failing assertions' labels with a counterexample each, the first found first;
    /// with [`Config::failures_per_assertion`] above 1, up to that many per label, distinct in
    /// their failures' data flows.
    pub found: Vec<(String, Counterexample)>,
    pub states: usize,
    pub transitions: u64,
    /// The `assert` steps some transition passed (thread, step).
    pub asserts: BTreeSet<(u16, u32)>,
    pub unwound: bool,
    /// The outcomes met (with [`Config::outcomes`]).
    pub outcomes: BTreeSet<Vec<i64>>,
    /// The deadlocks met, each with a witness (with [`Config::wanted_deadlocks`] and
    /// deadlocks alone looked for).
    pub deadlocks: BTreeMap<DeadlockId, Counterexample>,
    /// Whether the hunt met every outcome or every deadlock the check wants (and stopped
    /// there).
    pub met_wanted: bool,
}

/// States stored between two looks at the clock.
const CLOCK_EVERY: usize = 1024;

/// The most rounds dropped from one hunted run (each search for one is quadratic in the
/// run's length; the longest go first).
const MAX_ROUNDS_DROPPED: usize = 64;

/// Searches depth first, with the reduction and merging on, for a failing assertion (or the
/// outcomes or deadlocks the check wants, [`Met`]), storing at most `config.hunt_states`
/// states (and stopping at `config.max_time` from `start` or when its states take
/// `config.max_memory`); `earlier`: the states and transitions of the check's searches
/// before it, which its progress reports add.
pub(crate) fn hunt(c: &Compiled, config: &Config, start: Instant, earlier: (usize, u64)) -> Result<Hunt, Error> {
    // The reduction and merging are on and the failure flag off: the only checks that hunt.
    let mut search = Search::new(c, config, true, start);
    let budget = config.hunt_states.min(config.max_states).max(1);
    let mut hunt = Hunt { states: 1, ..Hunt::default() };
    let failures = config.find.contains(FailureKinds::BAD);
    let mut met = Met::default();
    // States to expand, with their depth and the reduced expansions in a row on the way.
    let mut stack = vec![(0u32, 0usize, 0u16)];
    let mut ticker = Ticker::new(config.on_progress.as_ref(), config.progress_every, start);
    let mut exp = Expansion::default();
    let mut state = Vec::new();
    let mut bytes = Vec::new();
    let mut next_clock = CLOCK_EVERY;
    let mut distinct = Distinct::new(config.failures_per_assertion);
    while let Some((i, depth, row)) = stack.pop() {
        search.store.get_into(i, &mut state);
        // After a row of reduced expansions as long as allowed, the state is expanded fully
        // and the other threads go first: the hunt never follows one thread forever.
        let reduce = row < FAIR_RUN;
        {
            // Every stored state counts as old: the reduction then keeps more (what it keeps
            // only decides how soon the hunt finds something, not whether that is real).
            let store = &search.store;
            let is_old = |s: &[i64]| store.find(s).is_some();
            search.e.expand(&state, reduce, &is_old, &mut exp);
        }
        hunt.transitions += exp.transitions;
        hunt.unwound |= exp.unwound;
        hunt.asserts.extend(exp.asserts.iter().copied());
        if met.note(&search.e, config, i, &state, &mut exp) {
            hunt.met_wanted = true;
            break;
        }
        let fail = exp.found.iter().filter(|_| failures).find_map(|f| match f {
            Found::Fail { thread, opt, internal } => Some((*thread as usize, *opt, internal.clone())),
            Found::Livelock { .. } => None,
        });
        if let Some(last) = fail {
            let label = fail_label(&search.e, &state, &last);
            if distinct.looks_at(&label) {
                let mut trans = search.path_to(i);
                trans.push(last.clone());
                let xs = transitions_to_steps(&search.e, &trans);
                let cex = match cut_to_cause(&search.e, &xs) {
                    Some(cex) => cex,
                    None => search.witness(i, Some(last), None)?,
                };
                if distinct.is_new(&label, &cex) {
                    hunt.found.push((label, cex));
                }
            }
            if distinct.enough() {
                break;
            }
        }
        // The successors of the thread that reached this state come last (a depth-first run
        // then switches threads wherever it can, as a race needs); otherwise the first
        // successor is taken first.
        let row = if exp.reduced { row + 1 } else { 0 };
        let last = (i != 0).then(|| search.parents[i as usize].thread);
        let own = exp.succs.iter().rev().filter(|tr| Some(tr.thread) == last);
        for tr in own.chain(exp.succs.iter().rev().filter(|tr| Some(tr.thread) != last)) {
            if search.store.len() >= budget {
                break;
            }
            bytes.clear();
            encode(exp.state(tr), &mut bytes);
            let (j, new) = search.store.insert_encoded(&bytes);
            if new {
                search.parents.push(Parent { parent: i, thread: tr.thread, opt: tr.opt, exit: tr.exit });
                stack.push((j, depth + 1, row));
            }
        }
        hunt.states = search.store.len();
        if hunt.states >= budget {
            break;
        }
        if hunt.states >= next_clock {
            next_clock += CLOCK_EVERY;
            let memory = search.memory();
            if config.max_time.is_some_and(|t| start.elapsed() > t) || memory > config.max_memory {
                break;
            }
            ticker.tick(|| Progress {
                states: earlier.0 + hunt.states,
                transitions: earlier.1 + hunt.transitions,
                depth,
                elapsed: start.elapsed(),
                memory,
            });
        }
    }
    hunt.outcomes = met.outcomes;
    for (id, (i, stands)) in met.deadlocks {
        hunt.deadlocks.insert(id, search.witness(i, None, Some(&stands))?);
    }
    Ok(hunt)
}

/// The outcomes and deadlocks a hunt met: the outcomes with [`Config::outcomes`], the
/// deadlocks (each with the state where it was met and where the threads stand) with
/// [`Config::wanted_deadlocks`] and deadlocks alone looked for.
#[derive(Default)]
struct Met {
    outcomes: BTreeSet<Vec<i64>>,
    deadlocks: BTreeMap<DeadlockId, (u32, Vec<Stand>)>,
}

impl Met {
    /// Notes what the expansion `exp` of stored state `i`, `state`, met; true once every
    /// outcome or every deadlock `config` wants was met.
    fn note(&mut self, e: &Engine<'_>, config: &Config, i: u32, state: &[i64], exp: &mut Expansion) -> bool {
        if exp.outcome {
            let g = e.lay.threads;
            self.outcomes.insert(state[g..g + e.lay.globals].to_vec());
            if config.wanted_outcomes.as_ref().is_some_and(|w| w.is_subset(&self.outcomes)) {
                return true;
            }
        }
        if let Some((wanted, stands)) = config.wanted_deadlocks_alone().zip(exp.deadlock.take()) {
            self.deadlocks.entry(deadlock_id(e, state, &stands)).or_insert((i, stands));
            return wanted.iter().all(|id| self.deadlocks.contains_key(id));
        }
        false
    }
}

/// The bad run `xs` (its last step fails) cut down to the steps the failure depends on, then
/// rid of the rounds a thread makes without effect (see the module's documentation), as a
/// counterexample; `None` when the cut run does not replay to a failure.
pub(crate) fn cut_to_cause(e: &Engine<'_>, xs: &[XStep]) -> Option<Counterexample> {
    let mut cut = cone(e, xs)?;
    for _ in 0..MAX_ROUNDS_DROPPED {
        let Some(shorter) = without_idle_round(e, &cut.0, &cut.1) else { break };
        match cone(e, &shorter) {
            Some(c) => cut = c,
            None => break,
        }
    }
    let (kept, trace) = cut;
    let failing_step = kept.len() - 1;
    let fault = fault_at(e, &kept, failing_step);
    Some(Counterexample {
        schedule: to_schedule(e.c, &kept),
        division_by_zero: fault == Some(Fault::DivisionByZero),
        shift_out_of_range: fault == Some(Fault::ShiftAmount),
        failing_step: Some(failing_step),
        trace,
        cycle_start: None,
    })
}

/// The steps of the bad run `xs` its first failure depends on, ending with the failing step,
/// and their trace; `None` when they do not replay to a failure at their end.
fn cone(e: &Engine<'_>, xs: &[XStep]) -> Option<(Vec<XStep>, Trace)> {
    let trace = build_trace(e, xs, None, false).ok()?;
    let failing = trace.first_failure()?.index();
    let events = trace.events();
    // The transition each step belongs to: a fresh step starts one.
    let mut first_of = vec![0usize; xs.len()];
    for k in 1..xs.len() {
        let x = xs[k];
        first_of[k] = if x.fresh || xs[k - 1].thread != x.thread { k } else { first_of[k - 1] };
    }
    let mut keep = vec![false; failing + 1];
    let mut work = vec![failing];
    while let Some(k) = work.pop() {
        if keep[k] {
            continue;
        }
        keep[k] = true;
        // The whole transition: back to its first step, on to its last (up to the failure).
        work.push(first_of[k]);
        if k < failing && first_of[k + 1] == first_of[k] {
            work.push(k + 1);
        }
        if let Some(before) = (0..k).rev().find(|&p| xs[p].thread == xs[k].thread) {
            work.push(before);
        }
        work.extend(events[k].reads.iter().filter_map(|r| r.from).map(|w| w.index()).filter(|&w| w < k));
    }
    let kept: Vec<XStep> = xs[..=failing].iter().zip(&keep).filter(|(_, &k)| k).map(|(x, _)| *x).collect();
    let trace = build_trace(e, &kept, None, false).ok()?;
    (trace.first_failure()?.index() + 1 == kept.len()).then_some((kept, trace))
}

/// The bad run `xs` (its last step fails) without the longest round of one thread that
/// leaves the thread where it started (the same control point, locals and loop counts, outside
/// any atomic block) and whose writes no step outside it reads; `None` when there is none.
/// `trace` is the trace of `xs`.
fn without_idle_round(e: &Engine<'_>, xs: &[XStep], trace: &Trace) -> Option<Vec<XStep>> {
    let events = trace.events();
    // Per step: the thread's own part of the state before it, when the step starts a
    // transition outside atomic blocks (a round may start or end there).
    let lay = &e.lay;
    let mut conf = Conf { state: e.initial().to_vec(), holder: None };
    let mut own: Vec<Option<Vec<i64>>> = Vec::with_capacity(xs.len());
    for &x in xs {
        let t = x.thread;
        let outside = conf.holder.is_none() && !e.in_region(&conf.state, t);
        own.push(outside.then(|| {
            let s = &conf.state;
            let mut key = vec![s[t]];
            key.extend_from_slice(&s[lay.local_off[t]..lay.local_off[t] + lay.local_len[t]]);
            if lay.unwind.is_some() {
                let loops = e.c.threads[t].n_loops as usize;
                key.extend_from_slice(&s[lay.loop_off[t]..lay.loop_off[t] + loops]);
            }
            key
        }));
        conf = take(e, &conf, x).ok()?.0;
    }
    // Per step: the steps that read what it writes.
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); xs.len()];
    for (k, ev) in events.iter().enumerate() {
        for w in ev.reads.iter().filter_map(|r| r.from) {
            readers[w.index()].push(k);
        }
    }
    let mut best: Option<(usize, usize, usize)> = None; // (steps dropped, from, to)
    for t in 0..lay.threads {
        let mine: Vec<usize> = (0..xs.len()).filter(|&k| xs[k].thread == t).collect();
        for (ai, &a) in mine.iter().enumerate() {
            let Some(key) = &own[a] else { continue };
            for (bi, &b) in mine.iter().enumerate().skip(ai + 1).rev() {
                let dropped = bi - ai;
                if best.is_some_and(|(n, _, _)| n >= dropped) {
                    break;
                }
                if own[b].as_ref() != Some(key) {
                    continue;
                }
                // Every step of the round is read only inside the round (by its own thread,
                // before `b`: the round's steps are the thread's between `a` and `b`).
                let read_outside =
                    mine[ai..bi].iter().any(|&k| readers[k].iter().any(|&r| r >= b || xs[r].thread != t));
                if !read_outside {
                    best = Some((dropped, a, b));
                }
            }
        }
    }
    let (_, a, b) = best?;
    let t = xs[a].thread;
    Some(xs.iter().enumerate().filter(|&(k, x)| !(x.thread == t && k >= a && k < b)).map(|(_, x)| *x).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;
    use crate::compile::compile;
    use crate::engine::Settings;
    use crate::replay::resolve;
    use crate::{Schedule, ScheduleStep};
    use paces_cwhile::ir::ThreadIdx;

    /// The labels of a counterexample's steps.
    fn labels(cex: &Counterexample) -> Vec<&str> {
        cex.schedule.steps.iter().map(|s| s.label.as_str()).collect()
    }

    /// `cut_to_cause` applied to the run `steps` (thread index, label) of `src`.
    fn cut(src: &str, steps: &[(u32, &str)]) -> Option<Counterexample> {
        let c = compile(&paces_cwhile::parse(src).unwrap()).unwrap();
        let e = Engine::new(&c, Settings::default());
        let schedule =
            Schedule { steps: steps.iter().map(|&(t, l)| ScheduleStep::new(ThreadIdx::from_u32(t), l)).collect() };
        let xs = resolve(&e, &schedule).unwrap();
        cut_to_cause(&e, &xs)
    }

    #[test]
    fn steps_the_failure_does_not_depend_on_are_dropped() {
        let src = "var x = 0, z = 0, y = 0;
            thread noise { N1: z := 1; N2: y := z; }
            thread a { A0: z := 2; A: x := 1; }
            thread b { B: assert(x == 0); }";
        let cex = cut(src, &[(0, "N1"), (1, "A0"), (0, "N2"), (1, "A"), (2, "B")]).unwrap();
        // N1 and N2 go; A0 stays (it comes before A in its thread), though A does not read it.
        assert_eq!(labels(&cex), ["A0", "A", "B"]);
        assert_eq!(cex.failing_step, Some(2));
        assert!(cex.trace.is_bad());
    }

    #[test]
    fn the_writes_a_kept_step_reads_are_kept_with_their_threads_past() {
        let src = "var x = 0, y = 0, w = 0;
            thread a { A1: w := 1; A2: y := 1; }
            thread b { B1: await(y == 1); B2: x := 1; }
            thread c { C0: w := 5; C: assert(x == 0); }";
        let cex = cut(src, &[(2, "C0"), (0, "A1"), (0, "A2"), (1, "B1"), (1, "B2"), (2, "C")]).unwrap();
        assert_eq!(labels(&cex), ["C0", "A1", "A2", "B1", "B2", "C"]);
        let cex = cut(src, &[(0, "A1"), (0, "A2"), (1, "B1"), (2, "C0"), (1, "B2"), (2, "C")]).unwrap();
        assert_eq!(labels(&cex), ["A1", "A2", "B1", "C0", "B2", "C"]);
    }

    #[test]
    fn an_atomic_block_is_kept_whole() {
        // Only the block's first step is needed; its second stays with it, so no other
        // thread steps inside the block.
        let src = "var x = 0, w = 0, v = 0;
            thread a { S: atomic { A1: x := 1; A2: w := 1; } A3: v := 1; }
            thread b { B: assert(x == 0); }";
        let cex = cut(src, &[(0, "A1"), (0, "A2"), (0, "A3"), (1, "B")]).unwrap();
        assert_eq!(labels(&cex), ["A1", "A2", "B"]);
    }

    #[test]
    fn a_round_that_leaves_its_thread_where_it_was_and_feeds_nothing_is_dropped() {
        let src = "var x = 0, n = 0;
            thread a { while (*) { I1: n := 1; I2: n := 0; } A: x := 1; }
            thread b { C: await(n == 1); B: assert(x == 0); }";
        let run = [(0, "I1"), (1, "C"), (0, "I2"), (0, "I1"), (0, "I2"), (0, "A"), (1, "B")];
        // The first round stays: `C` reads its `n := 1`. The second goes: nothing reads its
        // writes, and it ends where it began, at the loop's head.
        let cex = cut(src, &run).unwrap();
        assert_eq!(labels(&cex), ["I1", "C", "I2", "A", "B"]);
        assert!(cex.trace.is_bad());
    }

    #[test]
    fn a_round_whose_write_is_read_later_stays() {
        // The second round's `n := 2` is what `C` waits for.
        let src = "var x = 0, n = 0;
            thread a { while (*) { I1: n := n + 1; } A: x := 1; }
            thread b { C: await(n == 2); B: assert(x == 0); }";
        let cex = cut(src, &[(0, "I1"), (0, "I1"), (1, "C"), (0, "A"), (1, "B")]).unwrap();
        assert_eq!(labels(&cex), ["I1", "I1", "C", "A", "B"]);
    }

    #[test]
    fn a_hunted_failure_is_cut_and_counted() {
        // Depth first, the hunt takes thread `idle`'s loop before the failing pair; the
        // cut leaves the two steps the failure needs.
        let src = "var x = 0, n = 0, m = 0;
            thread idle { while (*) { I1: n := n + 1; I2: await(n < 4); I3: m := n; } }
            thread a { A: x := 1; }
            thread b { B: assert(x == 0); }";
        let program = paces_cwhile::parse(src).unwrap();
        let config = Config::new().unmerged_states(0).unreduced_states(0).hunt_states(1_000);
        let r = check(&program, &config).unwrap();
        let crate::Verdict::Bad(cex) = &r.verdict else { panic!("{:?}", r.verdict) };
        assert_eq!(labels(cex), ["A", "B"]);
        assert_eq!(r.failures.keys().collect::<Vec<_>>(), ["B"]);
        assert!(r.states > 2, "the hunt's states count: {}", r.states);
        // Without the hunt, the same failure, by the shortest run.
        let plain = check(&program, &Config::new().unmerged_states(0).unreduced_states(0)).unwrap();
        assert_eq!(plain.failures.keys().collect::<Vec<_>>(), ["B"]);
    }

    /// A thread that can run for long without repeating a state does not hold the hunt: after
    /// a row of its steps the state is expanded fully and the others go first.
    #[test]
    fn the_hunt_does_not_follow_one_thread_forever() {
        let src = "var x = 0, y = 0;
            thread ticker { while (x < 100000) { x := x + 1; } }
            thread a { A: y := 1; }
            thread b { B: assert(y == 0); }";
        let c = compile(&paces_cwhile::parse(src).unwrap()).unwrap();
        let h = hunt(&c, &Config::new().hunt_states(5_000), Instant::now(), (0, 0)).unwrap();
        let Some((label, cex)) = h.found.first() else { panic!("nothing found in {} states", h.states) };
        assert_eq!(label, "B");
        assert_eq!(labels(cex), ["A", "B"]);
        assert!(h.states < 4 * usize::from(FAIR_RUN), "{} states", h.states);
    }
}
