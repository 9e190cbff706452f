//! Final states of complete sequential traces, and variable names.

use std::collections::BTreeSet;
use std::time::Instant;

use paces_cwhile::ir::{Program, ThreadIdx, VarIdx};
use paces_trace::VarId;
use rustc_hash::FxHashSet;

use crate::check::Config;
use crate::compile::{compile, VarLayout};
use crate::engine::{Engine, Outcome, Settings};
use crate::error::{Error, ErrorKind};

/// The final global states (values of the globals in declaration order) of every complete
/// sequential trace: the threads run one after another, each to its end, in every order of
/// the threads. A thread that cannot reach its end on some path (it blocks, or a false
/// `assume` cuts it) contributes no complete trace on that path. Bad traces count too:
/// the set describes the program's sequential meaning, failing or not.
///
/// The runs of all orders share work: the states after every *set* of finished threads are
/// computed once (2^threads sets). [`Config::max_states`] bounds the states visited,
/// [`Config::max_time`] the time, [`Config::max_memory`] the bytes of the states kept,
/// [`Config::unwind`] bounds loops, [`Config::max_atomic_states`] bounds atomic blocks.
/// A thread that loops forever over ever new states (an unbounded counter) reaches one of
/// them.
///
/// # Errors
/// [`ErrorKind::BoundReached`] when a bound is reached (the set would be incomplete), or when
/// the program has more than 24 threads; otherwise when the program cannot be compiled.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse("var x = 0; thread a { x := x + 1; } thread b { x := x * 2; }")?;
/// let finals = paces_explore::sequential_final_states(&program, &paces_explore::Config::new())?;
/// assert_eq!(finals.into_iter().collect::<Vec<_>>(), vec![vec![1], vec![2]]);
/// # Ok(()) }
/// ```
pub fn sequential_final_states(program: &Program, config: &Config) -> Result<BTreeSet<Vec<i64>>, Error> {
    let c = compile(program)?;
    let e = Engine::new(
        &c,
        Settings {
            unwind: config.unwind,
            max_atomic: config.max_atomic_states,
            deadline: config.max_time.and_then(|t| Instant::now().checked_add(t)),
            ..Settings::default()
        },
    );
    let n = e.lay.threads;
    if n > 24 {
        return Err(Error::new(ErrorKind::BoundReached, "sequential final states: more than 24 threads"));
    }
    let full = (1usize << n) - 1;
    let mut sets: Vec<FxHashSet<Vec<i64>>> = vec![FxHashSet::default(); full + 1];
    sets[0].insert(e.initial().to_vec());
    let mut budget = Budget {
        visited: 0,
        max_states: config.max_states,
        // The states kept: those of the visited sets (each a vector of `width` values).
        state_bytes: e.initial().len() * std::mem::size_of::<i64>() + 32,
        max_memory: config.max_memory,
    };
    let mut masks: Vec<usize> = (0..=full).collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    for mask in masks {
        if mask == full {
            break;
        }
        let states = std::mem::take(&mut sets[mask]);
        for t in (0..n).filter(|t| mask >> t & 1 == 0) {
            for s in &states {
                let finished = run_alone(&e, s, t, &mut budget)?;
                sets[mask | 1 << t].extend(finished);
            }
        }
    }
    let g = e.lay.threads;
    Ok(sets[full].iter().map(|s| s[g..g + e.lay.globals].to_vec()).collect())
}

/// The bounds of [`sequential_final_states`], shared by all its runs.
struct Budget {
    visited: usize,
    max_states: usize,
    state_bytes: usize,
    max_memory: usize,
}

impl Budget {
    /// Counts one more visited state; an error once a bound (or the engine's deadline) is
    /// passed.
    fn visit(&mut self, e: &Engine<'_>) -> Result<(), Error> {
        self.visited += 1;
        let bound = |what: &str| {
            Error::new(
                ErrorKind::BoundReached,
                format!("{what} of the sequential runs (each thread alone, one after another)"),
            )
        };
        if self.visited > self.max_states {
            return Err(bound("state bound"));
        }
        if self.visited.saturating_mul(self.state_bytes) > self.max_memory {
            return Err(bound("memory bound"));
        }
        if e.late(self.visited) {
            return Err(bound("time bound"));
        }
        Ok(())
    }
}

/// Every state where thread `t`, running alone from `s`, stands at its end.
fn run_alone(e: &Engine<'_>, s: &[i64], t: usize, budget: &mut Budget) -> Result<Vec<Vec<i64>>, Error> {
    let code = &e.c.threads[t];
    let mut seen: FxHashSet<Vec<i64>> = FxHashSet::default();
    let mut work = vec![s.to_vec()];
    seen.insert(s.to_vec());
    let mut out = Vec::new();
    while let Some(st) = work.pop() {
        if code.points[e.pc(&st, t)].can_finish {
            out.push(st.clone());
        }
        for opt in &code.points[e.pc(&st, t)].options {
            let mut next = st.clone();
            if let Outcome::Done { .. } = e.apply(&mut next, t, opt) {
                let succs = if e.in_region(&next, t) {
                    let m = e.run_macro(t, &next);
                    if m.bound {
                        return Err(Error::new(ErrorKind::BoundReached, "atomic-block state bound reached"));
                    }
                    m.exits.into_iter().map(|(x, _)| x.to_vec()).collect()
                } else {
                    vec![next]
                };
                for x in succs {
                    if seen.insert(x.clone()) {
                        budget.visit(e)?;
                        work.push(x);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The trace variable ([`VarId`]) of a program variable as seen from a thread: a global
/// keeps its index; every thread has its own copy of its locals and of every procedure's
/// locals, numbered after the globals thread by thread (the thread's own locals in
/// declaration order, then the procedures' in procedure order). `None` when the thread cannot
/// see the variable (another thread's local) or an index is out of range.
///
/// # Example
/// ```
/// # use paces_cwhile::ir::{ThreadIdx, VarIdx};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse("var x; thread a { local r; r := x; } thread b { local r; r := 1; }")?;
/// let x = paces_explore::var_id(&program, ThreadIdx::from_u32(1), VarIdx::from_u32(0)).unwrap();
/// assert_eq!(x.index(), 0);
/// let r_b = paces_explore::var_id(&program, ThreadIdx::from_u32(1), VarIdx::from_u32(2)).unwrap();
/// assert_eq!(paces_explore::var_name(&program, r_b).as_deref(), Some("b.r"));
/// # Ok(()) }
/// ```
pub fn var_id(program: &Program, thread: ThreadIdx, var: VarIdx) -> Option<VarId> {
    let layout = VarLayout::new(program).ok()?;
    if thread.index() >= program.threads.len() {
        return None;
    }
    let r = layout.var_ref(program, thread.index(), var)?;
    Some(layout.var_id(thread.index(), r))
}

/// The name of a trace variable: a global's name, `THREAD.name` for a thread's local,
/// `THREAD.PROC.name` for a thread's copy of a procedure's local.
pub fn var_name(program: &Program, var: VarId) -> Option<String> {
    let layout = VarLayout::new(program).ok()?;
    layout.names.get(var.index()).cloned()
}
