//! Carrying a run of one program over to another with the same statements in a different
//! order ([`rerun`]): the repair loop's cheap answer to "does the original reach this
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
use crate::replay::{build_trace, is_complete, resolve, take, Conf, XStep};
use crate::Schedule;

/// One step of the given run, as the target matches it.
struct Step {
    thread: usize,
    /// The label and the labels of the calls it was reached through.
    name: (String, Vec<String>),
    /// Steps of other threads that come before it and conflict with it, not yet taken.
    waits: usize,
    /// Steps of other threads that come after it and conflict with it.
    then: Vec<usize>,
    taken: bool,
}

/// A run of `program` to the end of every thread, with no failing step, built from
/// `schedule`, a complete run of `other` (a program with the same threads, statements,
/// labels and variables, some statements in another order or in atomic sections): the
/// globals' values at its end (in declaration order), or `None` when the steps of
/// `schedule`, taken in `program`'s order with their conflicts kept, do not make such a run.
/// The values are those of a run of `program`, so an outcome of `program` whatever
/// `schedule` was; they are usually the ones `schedule` ends with in `other`.
///
/// # Errors
///
/// When either program cannot be compiled, or `schedule` is not a run of `other`.
pub fn rerun(program: &Program, other: &Program, schedule: &Schedule) -> Result<Option<Vec<i64>>, Error> {
    let (co, c) = (compile(other)?, compile(program)?);
    let eo = Engine::new(&co, Settings::default());
    let xs = resolve(&eo, schedule)?;
    let trace = build_trace(&eo, &xs, None, false)?;
    let mut steps = steps_of(&co, &xs, &trace);
    let e = Engine::new(&c, Settings::default());
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

/// The steps of the run `xs` of `c`, with `trace` (its events, one per step) telling what
/// each reads and writes.
fn steps_of(c: &Compiled, xs: &[XStep], trace: &Trace) -> Vec<Step> {
    let mut steps: Vec<Step> = xs
        .iter()
        .map(|&x| Step { thread: x.thread, name: name_of(c, x), waits: 0, then: Vec::new(), taken: false })
        .collect();
    let access = |k: usize| -> (Vec<VarId>, Vec<VarId>) {
        let ev = &trace.events()[k];
        (ev.reads.iter().map(|r| r.var).collect(), ev.writes.iter().map(|w| w.var).collect())
    };
    let accesses: Vec<_> = (0..steps.len().min(trace.events().len())).map(access).collect();
    for (j, (rj, wj)) in accesses.iter().enumerate() {
        for (i, (ri, wi)) in accesses.iter().enumerate().take(j) {
            let conflict = wi.iter().any(|v| rj.contains(v) || wj.contains(v)) || wj.iter().any(|v| ri.contains(v));
            if conflict && steps[i].thread != steps[j].thread {
                steps[i].then.push(j);
                steps[j].waits += 1;
            }
        }
    }
    steps
}

/// The label of exact step `x` of `c` and the labels of the calls it is reached through.
fn name_of(c: &Compiled, x: XStep) -> (String, Vec<String>) {
    let code = &c.threads[x.thread];
    let step = &code.steps[x.step as usize];
    let occ = code.points[step.site as usize].occ;
    let calls = code.occs[occ as usize].calls.iter().map(|l| c.loc_names[l.index()].clone()).collect();
    (c.loc_names[step.loc.index()].clone(), calls)
}

/// The step to take next from `conf` and the configuration after it: of the threads in the
/// order of their first step not taken, the first whose next step in `e`'s program matches
/// its first step not taken (or, with `skip`, its first such step of that name), waits for
/// nothing and can be taken without failing. Steps in the run's own order come first: on the
/// run's own program they always make the run again.
fn next_step(e: &Engine<'_>, conf: &Conf, steps: &[Step], skip: bool) -> Option<(usize, Conf)> {
    let mut threads: Vec<usize> = Vec::new();
    for s in steps.iter().filter(|s| !s.taken) {
        if !threads.contains(&s.thread) {
            threads.push(s.thread);
        }
    }
    for t in threads {
        for x in options(e, conf, t) {
            let name = name_of(e.c, x);
            let Some(k) = steps.iter().position(|s| !s.taken && s.thread == t && (s.name == name || !skip)) else {
                continue;
            };
            if steps[k].name != name {
                continue;
            }
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

/// The exact steps thread `t` may take next in `conf`: inside the atomic region it holds,
/// or fresh from where it stands (after leaving a region, its own or another's).
fn options(e: &Engine<'_>, conf: &Conf, t: usize) -> Vec<XStep> {
    let Some(code) = e.c.threads.get(t) else { return Vec::new() };
    let mut out = Vec::new();
    let mut s = conf.state.clone();
    if conf.holder == Some(t) {
        let pc = e.pc(&s, t);
        out.extend(code.points[pc].options.iter().map(|o| XStep { thread: t, step: o.step, fresh: false }));
    }
    if let Some(h) = conf.holder {
        if !e.leave_region(&mut s, h) {
            return out;
        }
    }
    let pc = e.pc(&s, t);
    out.extend(code.points[pc].options.iter().map(|o| XStep { thread: t, step: o.step, fresh: true }));
    out
}
