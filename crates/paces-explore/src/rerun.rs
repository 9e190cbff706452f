//! Carrying a run of one program over to another with the same statements in a different
//! order ([`Rerun`]): the repair loop's cheap answer to "does the original reach this
//! outcome too?", asked before a full exploration of the original.
//!
//! The run found is a real run of the target program: every step is taken by the engine
//! from the state the steps before it left, so its final state is one the target reaches,
//! whatever the choice of steps. The choice only decides whether one is found: each thread
//! takes its steps in the target's own order, and a step waits until every step of another
//! thread that comes before it in the given run and touches a variable it touches (one of
//! them writing) has been taken. When the target orders a thread's independent steps
//! differently from the given run, that keeps every read reading the same write, so the run
//! ends with the same values; when it cannot (the conflicts and the target's order form a
//! cycle), no run is found and the caller explores.

use paces_cwhile::ir::Program;
use paces_trace::{Trace, VarId};

use crate::compile::{compile, Compiled};
use crate::engine::{Engine, Settings};
use crate::error::Error;
use crate::replay::{build_trace, is_complete, next_steps, resolve, schedule_step, take, Conf, XStep};
use crate::{Schedule, ScheduleStep};

/// Carries runs of one program over to another with the same threads, statements, labels and
/// variables, some statements in another order or in atomic sections: both compiled once,
/// for every run carried.
pub struct Rerun {
    /// The program runs are carried to.
    target: Compiled,
    /// The program the runs are of.
    source: Compiled,
}

/// One step of the given run, as the target matches it.
struct Step {
    /// Its thread, label and the labels of the calls it was reached through.
    name: ScheduleStep,
    /// Steps of other threads that come before it and conflict with it, not yet taken.
    waits: usize,
    /// Steps of other threads that come after it and conflict with it.
    then: Vec<usize>,
    taken: bool,
}

impl Rerun {
    /// Carries runs of `other` over to `program`.
    ///
    /// # Errors
    ///
    /// When either program cannot be compiled.
    pub fn new(program: &Program, other: &Program) -> Result<Self, Error> {
        Ok(Rerun { target: compile(program)?, source: compile(other)? })
    }

    /// A run of the target program to the end of every thread, with no failing step, built
    /// from `schedule`, a complete run of the other program: the globals' values at its end
    /// (in declaration order), or `None` when the steps of `schedule`, taken in the target's
    /// order with their conflicts kept, do not make such a run. The values are those of a run
    /// of the target, so an outcome of it whatever `schedule` was; they are usually the ones
    /// `schedule` ends with in the other program.
    ///
    /// # Errors
    ///
    /// When `schedule` is not a run of the other program.
    pub fn run(&self, schedule: &Schedule) -> Result<Option<Vec<i64>>, Error> {
        let eo = Engine::new(&self.source, Settings::default());
        let xs = resolve(&eo, schedule)?;
        let trace = build_trace(&eo, &xs, None, false)?;
        let mut steps = steps_of(&self.source, &xs, &trace);
        let e = Engine::new(&self.target, Settings::default());
        let mut conf = Conf { state: e.initial().to_vec(), holder: None };
        while steps.iter().any(|s| !s.taken) {
            match next_step(&e, &conf, &steps, false).or_else(|| next_step(&e, &conf, &steps, true)) {
                Some((k, next)) => {
                    steps[k].taken = true;
                    for j in std::mem::take(&mut steps[k].then) {
                        steps[j].waits -= 1;
                    }
                    conf = next;
                }
                None => return Ok(None),
            }
        }
        if !is_complete(&e, &conf) {
            return Ok(None);
        }
        let g = e.lay.threads;
        Ok(Some(conf.state[g..g + e.lay.globals].to_vec()))
    }
}

/// The steps of the run `xs` of `c`, with `trace` (its events, one per step) telling what
/// each reads and writes.
fn steps_of(c: &Compiled, xs: &[XStep], trace: &Trace) -> Vec<Step> {
    let mut steps: Vec<Step> =
        xs.iter().map(|&x| Step { name: schedule_step(c, x), waits: 0, then: Vec::new(), taken: false }).collect();
    let access = |k: usize| -> (Vec<VarId>, Vec<VarId>) {
        let ev = &trace.events()[k];
        (ev.reads.iter().map(|r| r.var).collect(), ev.writes.iter().map(|w| w.var).collect())
    };
    let accesses: Vec<_> = (0..steps.len().min(trace.events().len())).map(access).collect();
    for (j, (rj, wj)) in accesses.iter().enumerate() {
        for (i, (ri, wi)) in accesses.iter().enumerate().take(j) {
            let conflict = wi.iter().any(|v| rj.contains(v) || wj.contains(v)) || wj.iter().any(|v| ri.contains(v));
            if conflict && steps[i].name.thread != steps[j].name.thread {
                steps[i].then.push(j);
                steps[j].waits += 1;
            }
        }
    }
    steps
}

/// The step to take next from `conf` and the configuration after it: of the threads in the
/// order of their first step not taken, the first whose next step in `e`'s program is its
/// first step not taken (or, with `skip`, its first such step of that name), waits for
/// nothing and can be taken without failing. Steps in the run's own order come first: on the
/// run's own program they always make the run again.
fn next_step(e: &Engine<'_>, conf: &Conf, steps: &[Step], skip: bool) -> Option<(usize, Conf)> {
    let mut threads: Vec<usize> = Vec::new();
    for s in steps.iter().filter(|s| !s.taken) {
        let t = s.name.thread.index();
        if !threads.contains(&t) {
            threads.push(t);
        }
    }
    for t in threads {
        for x in next_steps(e, conf, t) {
            let name = schedule_step(e.c, x);
            let mut open = steps.iter().enumerate().filter(|(_, s)| !s.taken && s.name.thread == name.thread);
            let found =
                if skip { open.find(|(_, s)| s.name == name) } else { open.next().filter(|(_, s)| s.name == name) };
            let Some((k, _)) = found else { continue };
            if steps[k].waits > 0 {
                continue;
            }
            if let Ok((next, false)) = take(e, conf, x) {
                return Some((k, next));
            }
        }
    }
    None
}
