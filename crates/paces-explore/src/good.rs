//! Good traces for learning (`docs/explore.md`, "Good traces for learning"): complete
//! preemption-free traces, one per reads-from class; for each assertion, good traces that pass
//! it reading from distinct combinations of writers; complete sequential traces.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::{Duration, Instant};

use paces_constraint::Loc;
use paces_cwhile::ir::Program;
use paces_trace::{EventKind, Trace, VarId};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::compile::{compile, StepKind};
use crate::engine::{Engine, Outcome, Settings, EXIT};
use crate::error::Error;
use crate::replay::{build_trace, XStep};

/// Bounds of [`good_traces`]. Every setter consumes and returns the config.
#[derive(Clone, Debug)]
pub struct GoodConfig {
    max_traces: usize,
    per_assertion: usize,
    max_steps: usize,
    max_len: usize,
    unwind: u32,
    preemption_free: bool,
    assertions: bool,
    sequential: bool,
    max_orders: usize,
    stuck: bool,
    max_time: Option<Duration>,
}

impl Default for GoodConfig {
    fn default() -> Self {
        GoodConfig {
            max_traces: 200,
            per_assertion: Self::DEFAULT_PER_ASSERTION,
            max_steps: Self::DEFAULT_MAX_STEPS,
            max_len: 500,
            unwind: 2,
            preemption_free: true,
            assertions: true,
            sequential: true,
            max_orders: 24,
            stuck: true,
            max_time: None,
        }
    }
}

impl GoodConfig {
    /// The default of [`GoodConfig::per_assertion`].
    pub const DEFAULT_PER_ASSERTION: usize = 10;

    /// The default of [`GoodConfig::max_steps`].
    pub const DEFAULT_MAX_STEPS: usize = 200_000;

    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// The most traces returned in all. Default: 200.
    pub fn max_traces(mut self, n: usize) -> Self {
        self.max_traces = n;
        self
    }

    /// For each assertion, the most traces that pass it with distinct combinations of
    /// writers. Default: [`GoodConfig::DEFAULT_PER_ASSERTION`] (10, the original tool's number).
    pub fn per_assertion(mut self, n: usize) -> Self {
        self.per_assertion = n;
        self
    }

    /// The most steps taken by each of the three searches (each is a bounded depth-first
    /// enumeration of paths). Default: [`GoodConfig::DEFAULT_MAX_STEPS`] (200,000).
    pub fn max_steps(mut self, n: usize) -> Self {
        self.max_steps = n;
        self
    }

    /// The longest trace considered. Default: 500.
    pub fn max_len(mut self, n: usize) -> Self {
        self.max_len = n;
        self
    }

    /// The most iterations of each loop per entry while enumerating. Default: 2.
    pub fn unwind(mut self, n: u32) -> Self {
        self.unwind = n;
        self
    }

    /// Include complete preemption-free traces. Default: `true`.
    pub fn preemption_free(mut self, on: bool) -> Self {
        self.preemption_free = on;
        self
    }

    /// Include traces passing each assertion with distinct writers. Default: `true`.
    pub fn assertions(mut self, on: bool) -> Self {
        self.assertions = on;
        self
    }

    /// Include complete sequential traces. Default: `true`.
    pub fn sequential(mut self, on: bool) -> Self {
        self.sequential = on;
        self
    }

    /// The most thread orders tried for sequential traces (in lexicographic order).
    /// Default: 24.
    pub fn max_orders(mut self, n: usize) -> Self {
        self.max_orders = n;
        self
    }

    /// Whether a good path that cannot go on although some thread has not finished (no thread
    /// has a good step left: the threads left wait for good, the loop bound cuts them, or
    /// their next step fails) counts as a trace, as a complete one does. Programs whose
    /// threads serve requests forever, or wait for events that never come, have no complete
    /// traces at all; their good traces are these. The
    /// original tool's bounded model checker produced such bounded traces too. Default: `true`.
    pub fn stuck(mut self, on: bool) -> Self {
        self.stuck = on;
        self
    }

    /// Stop every search once this much time has passed since the call; the traces found so
    /// far are returned (a sample, as with [`GoodConfig::max_steps`]). Default: `None`.
    pub fn max_time(mut self, t: Option<Duration>) -> Self {
        self.max_time = t;
        self
    }
}

/// A bound of [`GoodConfig`] that cut a good-trace search short: with it, more good traces
/// may exist than the search returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum GoodBound {
    /// [`GoodConfig::max_steps`]: a search ran out of steps with paths left to follow (not
    /// reported with [`GoodBound::Time`]: the clock stops a search by taking its steps away).
    Steps,
    /// [`GoodConfig::max_len`]: a path was not followed because it grew too long.
    Length,
    /// [`GoodConfig::max_time`].
    Time,
    /// [`GoodConfig::max_traces`]: the list was full.
    Traces,
}

impl GoodBound {
    /// A stable short name: `steps`, `length`, `time` or `traces`.
    pub fn name(self) -> &'static str {
        match self {
            GoodBound::Steps => "steps",
            GoodBound::Length => "length",
            GoodBound::Time => "time",
            GoodBound::Traces => "traces",
        }
    }
}

impl fmt::Display for GoodBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GoodBound::Steps => "step bound",
            GoodBound::Length => "trace length bound",
            GoodBound::Time => "time bound",
            GoodBound::Traces => "trace count bound",
        })
    }
}

/// What [`search_good_traces`] found: the good traces and the bounds that cut the search
/// short.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct GoodTraces {
    /// The good traces, as [`good_traces`] returns them.
    pub traces: Vec<Trace>,
    /// The bounds that were hit, sorted and without repeats; empty when every search ran to
    /// its end (within the loop bound [`GoodConfig::unwind`] and the thread orders
    /// [`GoodConfig::max_orders`], which are part of what the searches look for).
    pub bounds: Vec<GoodBound>,
}

/// Which interleavings a search follows.
#[derive(Clone, Debug)]
enum Policy {
    /// Any interleaving.
    Any,
    /// Switch threads only when the running thread is at an await (its next step may be one,
    /// or it cannot step) or at its end.
    PreemptionFree,
    /// Threads one after another in this order, each to its end.
    Sequential(Vec<usize>),
}

/// A depth-first enumeration of good paths (no failing step), reporting complete ones.
struct Enumerator<'e, 'c> {
    e: &'e Engine<'c>,
    policy: Policy,
    steps_left: usize,
    max_len: usize,
    /// Report paths that cannot go on, not only complete ones.
    stuck: bool,
    /// The bounds this enumeration hit.
    hit: BTreeSet<GoodBound>,
}

/// One transition of the enumeration: the thread, its exact steps, the state after.
type Move = (usize, Vec<XStep>, Vec<i64>);

impl<'e, 'c> Enumerator<'e, 'c> {
    fn new(e: &'e Engine<'c>, policy: Policy, steps_left: usize, config: &GoodConfig) -> Self {
        Enumerator { e, policy, steps_left, max_len: config.max_len, stuck: config.stuck, hit: BTreeSet::new() }
    }

    /// Transitions allowed from `s` given the running thread (`cur`; for sequential runs the
    /// index into the order).
    fn moves(&self, s: &[i64], cur: Option<usize>) -> Vec<(Move, Option<usize>)> {
        let e = self.e;
        let n = e.lay.threads;
        let allowed: Vec<(usize, Option<usize>)> = match &self.policy {
            Policy::Any => (0..n).map(|t| (t, None)).collect(),
            Policy::PreemptionFree => match cur {
                Some(c) if !self.switch_point(s, c) => vec![(c, Some(c))],
                _ => (0..n).map(|t| (t, Some(t))).collect(),
            },
            Policy::Sequential(order) => {
                let mut v = Vec::new();
                let k = cur.unwrap_or(0);
                for (j, &t) in order.iter().enumerate().skip(k) {
                    v.push((t, Some(j)));
                    if !e.c.threads[t].points[e.pc(s, t)].can_finish {
                        break;
                    }
                }
                v
            }
        };
        let mut out = Vec::new();
        for (t, next_cur) in allowed {
            for tr in self.thread_moves(s, t) {
                out.push((tr, next_cur));
            }
        }
        out
    }

    fn switch_point(&self, s: &[i64], t: usize) -> bool {
        let e = self.e;
        let code = &e.c.threads[t];
        let point = &code.points[e.pc(s, t)];
        point.can_finish
            || point.options.iter().any(|o| matches!(code.steps[o.step as usize].kind, StepKind::Await(_)))
            || self.thread_moves(s, t).is_empty()
    }

    /// Good transitions of thread `t` (a failing step or an atomic block with one is left out).
    fn thread_moves(&self, s: &[i64], t: usize) -> Vec<Move> {
        let e = self.e;
        let code = &e.c.threads[t];
        let mut out = Vec::new();
        for opt in &code.points[e.pc(s, t)].options {
            let mut next = s.to_vec();
            let Outcome::Done { failed: false, .. } = e.apply(&mut next, t, opt) else { continue };
            let first = XStep { thread: t, step: opt.step, fresh: true };
            if !e.in_region(&next, t) {
                out.push((t, vec![first], next));
                continue;
            }
            let m = e.run_macro(t, &next);
            for (exit, path) in m.exits {
                // Replay the internal path: keep it only when no step of it fails.
                let mut st = next.clone();
                let mut xs = vec![first];
                let mut ok = true;
                for &i in &path {
                    if i == EXIT {
                        break;
                    }
                    let o = &code.points[e.pc(&st, t)].options[i as usize];
                    xs.push(XStep { thread: t, step: o.step, fresh: false });
                    if !matches!(e.apply(&mut st, t, o), Outcome::Done { failed: false, .. }) {
                        ok = false;
                        break;
                    }
                }
                if ok {
                    out.push((t, xs, exit.to_vec()));
                }
            }
        }
        out
    }

    fn complete(&self, s: &[i64]) -> bool {
        (0..self.e.lay.threads).all(|t| self.e.may_stop(s, t))
    }

    /// Whether a path that the policy cannot extend ends a trace: it is complete, or (with
    /// `stuck`) it is not empty and no thread has a good step left.
    fn ends(&self, s: &[i64], path_len: usize, next_empty: bool) -> bool {
        self.complete(s)
            || (self.stuck
                && next_empty
                && path_len > 0
                && (0..self.e.lay.threads).all(|t| self.thread_moves(s, t).is_empty()))
    }

    /// Runs the enumeration; `found` gets every complete path and says whether to go on.
    fn run(&mut self, found: &mut dyn FnMut(&[XStep]) -> bool) {
        let init = self.e.initial().to_vec();
        // Frames: state, running thread, its moves, next move, path length before.
        let mut path: Vec<XStep> = Vec::new();
        let first = self.moves(&init, None);
        let mut stack: Vec<Frame> = vec![(first, 0, 0)];
        if self.ends(&init, 0, stack[0].0.is_empty()) && !found(&path) {
            return;
        }
        while let Some(top) = stack.last_mut() {
            if top.1 >= top.0.len() || self.steps_left == 0 {
                if top.1 < top.0.len() {
                    self.hit.insert(GoodBound::Steps);
                }
                let len = top.2;
                stack.pop();
                path.truncate(len);
                continue;
            }
            let ((_, xs, state), cur) = top.0[top.1].clone();
            top.1 += 1;
            let len = path.len();
            if len + xs.len() > self.max_len {
                self.hit.insert(GoodBound::Length);
                continue;
            }
            self.steps_left = self.steps_left.saturating_sub(1);
            if self.e.late(self.steps_left) {
                self.steps_left = 0;
                self.hit.insert(GoodBound::Time);
            }
            path.truncate(len);
            path.extend(xs);
            let next = self.moves(&state, cur);
            if self.ends(&state, path.len(), next.is_empty()) && !found(&path) {
                return;
            }
            stack.push((next, 0, len));
        }
    }
}

/// A depth-first frame: the moves from a state, the next one to try, the path length before.
type Frame = (Vec<(Move, Option<usize>)>, usize, usize);

/// A writer combination read by an assertion: per variable, the writer (thread, location).
type Combo = Vec<(VarId, Option<(u32, Loc)>)>;

/// The identity of an event across traces: thread, location, and how many times the thread
/// took that location before.
type EventKey = (u32, Loc, u32);

#[cfg(debug_assertions)]
fn keys(trace: &Trace) -> Vec<EventKey> {
    let mut count: BTreeMap<(u32, Loc), u32> = BTreeMap::new();
    trace
        .events()
        .iter()
        .map(|e| {
            let c = count.entry((e.thread.as_u32(), e.loc)).or_insert(0);
            *c += 1;
            (e.thread.as_u32(), e.loc, *c - 1)
        })
        .collect()
}

/// A reads-from relation, as a sorted list of (reading event, variable, writing event).
type RfClass = Vec<(EventKey, VarId, Option<EventKey>)>;

/// The reads-from relation of the trace the steps `xs` build (each read from the latest write
/// before it, as [`build_trace`] resolves them), without building the trace.
fn rf_class_of_steps(e: &Engine<'_>, xs: &[XStep]) -> RfClass {
    let layout = &e.c.layout;
    let mut count: FxHashMap<(u32, Loc), u32> = FxHashMap::with_capacity_and_hasher(xs.len(), Default::default());
    let mut latest: FxHashMap<VarId, EventKey> = FxHashMap::with_capacity_and_hasher(xs.len(), Default::default());
    let mut class = Vec::with_capacity(2 * xs.len());
    for x in xs {
        let st = &e.c.threads[x.thread].steps[x.step as usize];
        let thread = x.thread as u32;
        let c = count.entry((thread, st.loc)).or_insert(0);
        let key = (thread, st.loc, *c);
        *c += 1;
        for &r in &st.reads {
            let var = layout.var_id(x.thread, r);
            class.push((key, var, latest.get(&var).copied()));
        }
        if let StepKind::Assign(w, _) = st.kind {
            latest.insert(layout.var_id(x.thread, w), key);
        }
    }
    class.sort_unstable();
    class
}

/// The reads-from relation of a trace, as a sorted list.
#[cfg(debug_assertions)]
fn rf_class(trace: &Trace) -> RfClass {
    let k = keys(trace);
    let mut v: Vec<_> = trace
        .events()
        .iter()
        .enumerate()
        .flat_map(|(i, e)| {
            let k = &k;
            e.reads.iter().map(move |r| (k[i], r.var, r.from.map(|f| k[f.index()])))
        })
        .collect();
    v.sort_unstable();
    v
}

/// Good traces of the program for learning, without duplicates of one reads-from class:
/// 1. complete preemption-free traces (threads switch only where the running thread may
///    wait, cannot step, or is at its end), one per reads-from class;
/// 2. complete sequential traces (threads one after another to their end), for the first
///    [`GoodConfig::max_orders`] thread orders;
/// 3. for each assertion, complete good traces that pass it reading from distinct
///    combinations of writers (writer statements, or the initial state), up to
///    [`GoodConfig::per_assertion`]; traces found by 1 and 2 count, and a bounded
///    enumeration of arbitrary interleavings supplies more.
///
/// Each search is a depth-first enumeration bounded by [`GoodConfig::max_steps`] with loops
/// bounded by [`GoodConfig::unwind`], so on large programs the lists are samples, not
/// complete; the order is deterministic.
///
/// [`search_good_traces`] also says which bounds cut the searches short.
///
/// # Errors
/// When the program cannot be compiled or a trace cannot be built.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse(
///     "var x = 0; thread a { A: x := 1; } thread b { B: await(x == 1); C: assert(x == 1); }",
/// )?;
/// let traces = paces_explore::good_traces(&program, &paces_explore::GoodConfig::new())?;
/// assert!(!traces.is_empty());
/// assert!(traces.iter().all(|t| !t.is_bad()));
/// # Ok(()) }
/// ```
pub fn good_traces(program: &Program, config: &GoodConfig) -> Result<Vec<Trace>, Error> {
    search_good_traces(program, config).map(|found| found.traces)
}

/// The good traces of [`good_traces`] and the [`GoodBound`]s that cut the searches short
/// (when one was hit, the traces are a sample and a program may get none at all).
///
/// # Errors
/// As [`good_traces`].
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use paces_explore::{search_good_traces, GoodBound, GoodConfig};
/// let program = paces_cwhile::parse(
///     "var x = 0; thread a { A: x := 1; B: x := 2; } thread b { C: assert(x >= 0); }",
/// )?;
/// let found = search_good_traces(&program, &GoodConfig::new())?;
/// assert!(found.bounds.is_empty());
/// let short = search_good_traces(&program, &GoodConfig::new().max_len(2))?;
/// assert_eq!(short.bounds, vec![GoodBound::Length]);
/// # Ok(()) }
/// ```
pub fn search_good_traces(program: &Program, config: &GoodConfig) -> Result<GoodTraces, Error> {
    let deadline = config.max_time.and_then(|t| Instant::now().checked_add(t));
    let c = compile(program)?;
    let e = Engine::new(&c, Settings { unwind: Some(config.unwind), deadline, ..Settings::default() });
    let mut out: Vec<Trace> = Vec::new();
    let mut classes: FxHashSet<RfClass> = FxHashSet::default();
    // Classes whose trace brought no new writer combination when `need_combo` asked for one:
    // the combinations kept only grow, so such a class never brings one later either.
    let mut no_combo: FxHashSet<RfClass> = FxHashSet::default();
    let mut combos: BTreeMap<Loc, BTreeSet<Combo>> = BTreeMap::new();
    let mut error: Option<Error> = None;
    let mut bounds: BTreeSet<GoodBound> = BTreeSet::new();
    let mut full = false;
    // Adds a trace when its class is new; `need_combo` keeps only traces that bring a new
    // writer combination for some assertion.
    let mut consider = |xs: &[XStep], need_combo: bool, out: &mut Vec<Trace>| -> bool {
        if out.len() >= config.max_traces {
            full = true;
            return false;
        }
        // Most paths repeat a class already kept: compare before building the trace.
        let class = rf_class_of_steps(&e, xs);
        if classes.contains(&class) || (need_combo && no_combo.contains(&class)) {
            return true;
        }
        let trace = match build_trace(&e, xs, None, false) {
            Ok(t) => t,
            Err(err) => {
                error = Some(err);
                return false;
            }
        };
        #[cfg(debug_assertions)]
        debug_assert_eq!(rf_class(&trace), class);
        let new_combo = add_combos(&trace, &mut combos, config.per_assertion);
        if need_combo && !new_combo {
            no_combo.insert(class);
            return true;
        }
        classes.insert(class);
        out.push(trace);
        true
    };
    if config.preemption_free {
        let mut en = Enumerator::new(&e, Policy::PreemptionFree, config.max_steps, config);
        en.run(&mut |xs| consider(xs, false, &mut out));
        bounds.append(&mut en.hit);
    }
    if config.sequential {
        let n = e.lay.threads;
        let mut order: Vec<usize> = (0..n).collect();
        let mut steps = config.max_steps;
        for _ in 0..config.max_orders {
            let mut en = Enumerator::new(&e, Policy::Sequential(order.clone()), steps, config);
            en.run(&mut |xs| {
                consider(xs, false, &mut out);
                false
            });
            steps = en.steps_left;
            bounds.append(&mut en.hit);
            if !next_permutation(&mut order) {
                break;
            }
        }
    }
    if config.assertions {
        let mut en = Enumerator::new(&e, Policy::Any, config.max_steps, config);
        en.run(&mut |xs| consider(xs, true, &mut out));
        bounds.append(&mut en.hit);
    }
    if let Some(err) = error {
        return Err(err);
    }
    if full {
        bounds.insert(GoodBound::Traces);
    }
    if bounds.contains(&GoodBound::Time) {
        bounds.remove(&GoodBound::Steps);
    }
    Ok(GoodTraces { traces: out, bounds: bounds.into_iter().collect() })
}

/// Adds to `combos` the writer combination each passed assertion of `trace` reads (at most
/// `per_assertion` per assertion); whether one was new.
fn add_combos(trace: &Trace, combos: &mut BTreeMap<Loc, BTreeSet<Combo>>, per_assertion: usize) -> bool {
    let mut new_combo = false;
    for ev in trace.events() {
        if ev.kind != EventKind::Assert || ev.failed {
            continue;
        }
        let combo: Combo = ev
            .reads
            .iter()
            .map(|r| {
                (
                    r.var,
                    r.from.map(|f| {
                        let w = trace.event(f);
                        (w.thread.as_u32(), w.loc)
                    }),
                )
            })
            .collect();
        let set = combos.entry(ev.loc).or_default();
        if set.len() < per_assertion && set.insert(combo) {
            new_combo = true;
        }
    }
    new_combo
}

/// The next permutation in lexicographic order; false after the last.
fn next_permutation(v: &mut [usize]) -> bool {
    if v.len() < 2 {
        return false;
    }
    let mut i = v.len() - 1;
    while i > 0 && v[i - 1] >= v[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = v.len() - 1;
    while v[j] <= v[i - 1] {
        j -= 1;
    }
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}
