//! Final states of complete sequential traces, and variable names.

use std::collections::hash_map::Entry;
use std::collections::BTreeSet;
use std::time::Instant;

use paces_cwhile::ir::{Program, StmtKind, ThreadIdx, VarIdx};
use paces_trace::VarId;
use rustc_hash::{FxHashMap, FxHashSet};

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
/// computed once (2^threads sets), with the locals of the finished threads forgotten (no
/// other thread reads them), so that orders that leave the same globals share a state. [`Config::max_states`] bounds the states visited,
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
    let e = engine(&c, config);
    let (n, mut budget) = (e.lay.threads, Budget::new(&e, config));
    let full = (1usize << n) - 1;
    let mut sets = sequential_sets(&e, &mut budget, n, |_: &(), _| ())?;
    Ok(std::mem::take(&mut sets[full]).into_keys().map(|s| s[n..n + e.lay.globals].to_vec()).collect())
}

/// A deadlock of a program that no reordering or atomic section can remove: the threads of
/// `before` run one after another, each alone to its end, and then `thread`, alone, cannot
/// reach its end: it waits at `at` for good ([`sequential_deadlock`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequentialDeadlock {
    /// The threads that ran to their end first, in their order.
    pub before: Vec<String>,
    /// The thread that then waits for good.
    pub thread: String,
    /// The label of the step it waits at (of an atomic block, the block's).
    pub at: String,
}

/// A deadlock of `program` that every program of its space keeps, if one is found: the
/// other threads run one after another, each alone to its end, and then a thread that holds
/// no `while` loop and no `assume` (through its calls too) cannot reach its end alone.
///
/// Why every program of the space keeps it: a reorder swaps statements that commute (neither
/// writes what the other reads or writes), so a thread alone ends in the same states from
/// the same state, on every path, whatever its order; an added atomic section runs all or
/// nothing, which alone changes nothing either. So in every program of the space the other
/// threads reach the same state by the same sequential run, and from there the last thread,
/// alone, cannot reach its end. Without loops it cannot run for ever, and without `assume`
/// no path of it is cut, whatever order its statements take: it stops at a wait (or at an
/// atomic section that cannot run) while every other thread is done, which is a deadlock.
///
/// `None` when the program has no such deadlock (it may have others, which need the threads
/// to interleave), or when `config` bounds loops ([`Config::unwind`]).
///
/// # Errors
/// [`ErrorKind::BoundReached`] when a bound of `config` is reached first (as for
/// [`sequential_final_states`]); otherwise when the program cannot be compiled.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse("var m = 0; thread a { lock(m); } thread b { w: lock(m); unlock(m); }")?;
/// let found = paces_explore::sequential_deadlock(&program, &paces_explore::Config::new())?.unwrap();
/// assert_eq!((found.before, found.thread, found.at), (vec!["a".to_owned()], "b".to_owned(), "w".to_owned()));
/// # Ok(()) }
/// ```
pub fn sequential_deadlock(program: &Program, config: &Config) -> Result<Option<SequentialDeadlock>, Error> {
    let last: Vec<usize> = (0..program.threads.len()).filter(|&t| waits_or_ends(program, t)).collect();
    if config.unwind.is_some() || last.is_empty() {
        return Ok(None);
    }
    let c = compile(program)?;
    let e = engine(&c, config);
    let (n, mut budget) = (e.lay.threads, Budget::new(&e, config));
    let full = (1usize << n) - 1;
    let then = |order: &Vec<usize>, t: usize| -> Vec<usize> { order.iter().copied().chain([t]).collect() };
    let sets = sequential_sets(&e, &mut budget, n - 1, then)?;
    let name = |t: usize| program.threads[t].name.clone();
    for t in last {
        let mut runs: Vec<(&Vec<usize>, &Vec<i64>)> = sets[full ^ 1 << t].iter().map(|(s, o)| (o, s)).collect();
        runs.sort();
        for (order, s) in runs {
            if let Some(at) = waits_alone(&e, s, t, &mut budget)? {
                let before = order.iter().map(|&u| name(u)).collect();
                return Ok(Some(SequentialDeadlock { before, thread: name(t), at }));
            }
        }
    }
    Ok(None)
}

/// Whether thread `t` runs no `while` loop and no `assume` statement, through its calls: alone
/// it then either reaches its end or stops at a wait.
fn waits_or_ends(program: &Program, t: usize) -> bool {
    let mut blocks = vec![program.threads[t].body];
    let mut procs_seen = BTreeSet::new();
    while let Some(b) = blocks.pop() {
        for &s in &program.blocks[b.index()].items {
            let kind = &program.stmts[s.index()].kind;
            match kind {
                StmtKind::While { .. } | StmtKind::Assume(_) => return false,
                StmtKind::Call(q) if procs_seen.insert(*q) => blocks.push(program.procs[q.index()].body),
                _ => blocks.extend(kind.blocks()),
            }
        }
    }
    true
}

/// Where thread `t`, alone from `s`, waits for good: the label of the first wait found on a
/// path, when no path reaches its end; `None` when one does.
fn waits_alone(e: &Engine<'_>, s: &[i64], t: usize, budget: &mut Budget) -> Result<Option<String>, Error> {
    // A thread whose create never ran is not waiting: it was never started.
    if e.unstarted(s, t) {
        return Ok(None);
    }
    if !run_alone(e, s, t, budget)?.is_empty() {
        return Ok(None);
    }
    // No path ends: follow the first step that can be taken until none can.
    let code = &e.c.threads[t];
    let mut st = s.to_vec();
    loop {
        let point = &code.points[e.pc(&st, t)];
        let next = point.options.iter().find_map(|opt| {
            let mut next = st.clone();
            if !matches!(e.apply(&mut next, t, opt), Outcome::Done { .. }) {
                return None;
            }
            if !e.in_region(&next, t) {
                return Some(next);
            }
            e.run_macro(t, &next).exits.into_iter().next().map(|(x, _)| x.to_vec())
        });
        match next {
            Some(next) => st = next,
            None => {
                let at = point.options.first().map(|o| &code.steps[o.step as usize]);
                // A step that enters an atomic region waits for the whole region.
                let loc = at.map(|step| step.region.map_or(step.loc, |r| code.regions[r as usize].wait_loc));
                return Ok(Some(loc.map_or_else(String::new, |l| e.c.loc_names[l.index()].clone())));
            }
        }
    }
}

/// The engine of the sequential runs, with the bounds of `config`.
fn engine<'c>(c: &'c crate::compile::Compiled, config: &Config) -> Engine<'c> {
    Engine::new(
        c,
        Settings {
            unwind: config.unwind,
            max_atomic: config.max_atomic_states,
            deadline: config.max_time.and_then(|t| Instant::now().checked_add(t)),
            ..Settings::default()
        },
    )
}

/// The states after every set of finished threads (a bit mask of the threads), each with a
/// value `V` computed along the way (`then(v, t)`: thread `t` ran to its end after the run
/// that `v` describes; the first run found is kept), for the sets of at most `layers`
/// threads. The states of a set with fewer threads are dropped once its successors are
/// computed; those of the sets of `layers` threads stay.
fn sequential_sets<V: Clone + Default>(
    e: &Engine<'_>,
    budget: &mut Budget,
    layers: usize,
    then: impl Fn(&V, usize) -> V,
) -> Result<Vec<FxHashMap<Vec<i64>, V>>, Error> {
    let n = e.lay.threads;
    if n > 24 {
        return Err(Error::new(ErrorKind::BoundReached, "sequential final states: more than 24 threads"));
    }
    let full = (1usize << n) - 1;
    let mut sets: Vec<FxHashMap<Vec<i64>, V>> = vec![FxHashMap::default(); full + 1];
    sets[0].insert(e.initial().to_vec(), V::default());
    let mut masks: Vec<usize> = (0..=full).filter(|m| (m.count_ones() as usize) < layers).collect();
    masks.sort_by_key(|m| (m.count_ones(), *m));
    for mask in masks {
        let states = std::mem::take(&mut sets[mask]);
        for t in (0..n).filter(|t| mask >> t & 1 == 0) {
            for (s, v) in &states {
                for mut finished in run_alone(e, s, t, budget)? {
                    forget_own(e, &mut finished, t);
                    if let Entry::Vacant(slot) = sets[mask | 1 << t].entry(finished) {
                        slot.insert(then(v, t));
                        budget.keep(1)?;
                    }
                }
            }
        }
        budget.release(states.len());
    }
    Ok(sets)
}

/// Thread `t`'s own part of `s` (its locals and loop counts) set to 0, once it has run to its
/// end: no other thread reads it and it runs no more, so the runs after it and the globals
/// they end with are the same; the orders that differ only there share one state.
fn forget_own(e: &Engine<'_>, s: &mut [i64], t: usize) {
    let lay = &e.lay;
    s[lay.local_off[t]..lay.local_off[t] + lay.local_len[t]].fill(0);
    if lay.unwind.is_some() {
        let loops = e.c.threads[t].n_loops as usize;
        s[lay.loop_off[t]..lay.loop_off[t] + loops].fill(0);
    }
}

/// The bounds of [`sequential_final_states`], shared by all its runs.
struct Budget {
    visited: usize,
    /// The states kept now: those of the sets not yet dropped, and those a run alone has
    /// seen so far.
    kept: usize,
    max_states: usize,
    state_bytes: usize,
    max_memory: usize,
}

impl Budget {
    /// A budget of `config`'s bounds for the runs of `e`.
    fn new(e: &Engine<'_>, config: &Config) -> Budget {
        Budget {
            visited: 0,
            kept: 0,
            max_states: config.max_states,
            // The states kept: those of the visited sets (each a vector of `width` values).
            state_bytes: e.initial().len() * std::mem::size_of::<i64>() + 32,
            max_memory: config.max_memory,
        }
    }

    /// Counts one more visited state, kept while its run goes on; an error once a bound (or
    /// the engine's deadline) is passed.
    fn visit(&mut self, e: &Engine<'_>) -> Result<(), Error> {
        self.visited += 1;
        if self.visited > self.max_states {
            return Err(bound("state bound"));
        }
        if e.late(self.visited) {
            return Err(bound("time bound"));
        }
        self.keep(1)
    }

    /// Counts `n` more states kept; an error once they pass the memory bound.
    fn keep(&mut self, n: usize) -> Result<(), Error> {
        self.kept += n;
        if self.kept.saturating_mul(self.state_bytes) > self.max_memory {
            return Err(bound("memory bound"));
        }
        Ok(())
    }

    /// Counts `n` states no longer kept.
    fn release(&mut self, n: usize) {
        self.kept = self.kept.saturating_sub(n);
    }
}

/// The error of a bound reached by the sequential runs.
fn bound(what: &str) -> Error {
    Error::new(ErrorKind::BoundReached, format!("{what} of the sequential runs (each thread alone, one after another)"))
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
    // The start state was not counted as visited.
    budget.release(seen.len() - 1);
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
