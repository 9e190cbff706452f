//! What the searches share: the states stored with how each was first reached, and the
//! witnesses built from them (a failure's label, a deadlock's identity, the passed
//! assertions' labels).

use std::collections::BTreeSet;
use std::time::Instant;

use paces_cwhile::ir::Fault;

use crate::compile::Compiled;
use crate::engine::{Engine, Settings, Stand, EXIT};
use crate::error::Error;
use crate::replay::{build_trace, fault_at, to_schedule, transitions_to_steps};
use crate::store::Store;

use super::{Config, Counterexample, DeadlockId, ThreadStand};

/// The most reduced expansions in a row on a path before the state the row started from is
/// expanded fully (docs/explore.md, "Fairness in depth").
pub(super) const FAIR_RUN: u16 = 256;

/// A transition: thread, option, internal path of an atomic block.
pub(super) type Tr = (usize, u16, Vec<u16>);

/// How a stored state was first reached: from state `parent` by option `opt` of `thread`
/// (for a macro transition, its exit `exit`).
#[derive(Clone, Copy)]
pub(crate) struct Parent {
    pub parent: u32,
    pub thread: u16,
    pub opt: u16,
    pub exit: u32,
}

/// The states stored by a search, with how each was first reached.
pub(crate) struct Search<'c> {
    pub e: Engine<'c>,
    pub store: Store,
    pub parents: Vec<Parent>,
}

impl<'c> Search<'c> {
    /// A search of `c` under `config` (`merge_independent` as in [`Settings`]; the deadline
    /// counted from `start`) that has stored the initial state.
    pub(crate) fn new(c: &'c Compiled, config: &Config, merge_independent: bool, start: Instant) -> Self {
        let e = Engine::new(
            c,
            Settings {
                unwind: config.unwind,
                max_atomic: config.max_atomic_states,
                reset_dead: true,
                merge: true,
                merge_independent,
                deadline: config.max_time.and_then(|t| start.checked_add(t)),
                failure_flag: config.deadlocks_after_failure,
                outcomes: config.outcomes,
            },
        );
        let mut search = Search { store: Store::new(e.lay.stride), parents: Vec::new(), e };
        let mut init = search.e.initial().to_vec();
        search.e.canon(&mut init);
        search.store.insert(&init);
        search.parents.push(Parent { parent: 0, thread: 0, opt: 0, exit: 0 });
        search
    }

    /// Bytes the stored states and their parent links take (what [`Config::max_memory`](super::Config::max_memory)
    /// bounds).
    pub(crate) fn memory(&self) -> usize {
        self.store.bytes() + self.parents.capacity() * 12
    }

    /// Transitions from the initial state to state `i`, with internal paths.
    pub(crate) fn path_to(&self, mut i: u32) -> Vec<(usize, u16, Vec<u16>)> {
        let mut rev = Vec::new();
        while i != 0 {
            let p = self.parents[i as usize];
            rev.push((p.parent, p.thread, p.opt, p.exit));
            i = p.parent;
        }
        rev.reverse();
        let mut out = Vec::new();
        for (parent, t, opt, exit) in rev {
            let s = self.store.get(parent);
            let t = t as usize;
            let code = &self.e.c.threads[t];
            let o = &code.points[self.e.pc(&s, t)].options[opt as usize];
            let mut next = s.to_vec();
            self.e.apply(&mut next, t, o);
            let internal = if self.e.in_region(&next, t) {
                let m = self.e.run_macro(t, &next);
                match m.exits.into_iter().nth(exit as usize) {
                    Some((mut state, mut path)) => {
                        self.e.merge_after(&mut state, t, &mut path, &mut Vec::new());
                        path
                    }
                    None => Vec::new(),
                }
            } else {
                let mut path = Vec::new();
                self.e.merge_after(&mut next, t, &mut path, &mut Vec::new());
                path
            };
            out.push((t, opt, internal));
        }
        out
    }

    /// The globals' values in stored state `i`.
    pub(crate) fn globals(&self, i: u32) -> Vec<i64> {
        let g = self.e.lay.threads;
        self.store.get(i)[g..g + self.e.lay.globals].to_vec()
    }

    pub(crate) fn witness(
        &self,
        state: u32,
        last: Option<(usize, u16, Vec<u16>)>,
        blocked: Option<&[Stand]>,
    ) -> Result<Counterexample, Error> {
        let mut trans = self.path_to(state);
        if let Some(l) = last {
            trans.push(l);
        }
        let xs = transitions_to_steps(&self.e, &trans);
        let trace = build_trace(&self.e, &xs, blocked, false)?;
        let failing_step = trace.first_failure().map(|e| e.index());
        let fault = failing_step.and_then(|i| fault_at(&self.e, &xs, i));
        Ok(Counterexample {
            schedule: to_schedule(self.e.c, &xs),
            trace,
            failing_step,
            division_by_zero: fault == Some(Fault::DivisionByZero),
            shift_out_of_range: fault == Some(Fault::ShiftAmount),
            cycle_start: None,
        })
    }
}

/// The labels of the `assert` steps `asserts` (thread, step).
pub(super) fn passed_labels<'a>(
    c: &'a Compiled,
    asserts: &'a BTreeSet<(u16, u32)>,
) -> impl Iterator<Item = String> + 'a {
    asserts.iter().map(|&(t, step)| c.loc_names[c.threads[t as usize].steps[step as usize].loc.index()].clone())
}

pub(super) fn fail_label(e: &Engine<'_>, s: &[i64], last: &(usize, u16, Vec<u16>)) -> String {
    let xs = {
        let (t, opt, internal) = last;
        let code = &e.c.threads[*t];
        let mut st = s.to_vec();
        let o = &code.points[e.pc(&st, *t)].options[*opt as usize];
        let mut step = o.step;
        e.apply(&mut st, *t, o);
        for &i in internal {
            if i == EXIT {
                e.leave_region(&mut st, *t);
                continue;
            }
            let o = &code.points[e.pc(&st, *t)].options[i as usize];
            step = o.step;
            e.apply(&mut st, *t, o);
        }
        code.steps[step as usize].loc
    };
    e.c.loc_names[xs.index()].clone()
}

pub(super) fn deadlock_id(e: &Engine<'_>, s: &[i64], stands: &[Stand]) -> DeadlockId {
    let threads = stands
        .iter()
        .enumerate()
        .map(|(t, st)| {
            let code = &e.c.threads[t];
            let stand = match st {
                Stand::Blocked(opts) => {
                    let pc = e.pc(s, t);
                    let mut labels: Vec<String> = Vec::new();
                    for &i in opts {
                        let step = &code.steps[code.points[pc].options[i as usize].step as usize];
                        // A step that enters an atomic region waits for the whole region.
                        let loc = step.region.map_or(step.loc, |r| code.regions[r as usize].wait_loc);
                        let label = &e.c.loc_names[loc.index()];
                        if !labels.contains(label) {
                            labels.push(label.clone());
                        }
                    }
                    ThreadStand::Blocked(labels)
                }
                Stand::Done | Stand::Cut => ThreadStand::Done,
            };
            (code.name.clone(), stand)
        })
        .collect();
    DeadlockId { threads }
}
