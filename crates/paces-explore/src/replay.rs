//! Schedules and replay: a schedule names each step by thread and label; replaying it rebuilds
//! the [`Trace`] (scopes, reads-from, values) through [`TraceBuilder`], so every trace this
//! crate hands out is validated.

use std::fmt;

use paces_cwhile::ir::{Fault, Program, ThreadIdx};
use paces_trace::{BlockInstance, EventKind, ScopeEntry, StepBuilder, ThreadId, Trace, TraceBuilder};
use rustc_hash::FxHashSet;

use crate::compile::{compile, Compiled, Move, Opt, StepInfo, StepKind, TCode, VarRef};
use crate::engine::{Engine, Outcome, Settings, Stand, EXIT};
use crate::error::{Error, ErrorKind, ReplayStop};

/// One step of a [`Schedule`]: the thread that takes it and the label of the step (a
/// statement's label, or a derived step's label such as the `await` of a `lock`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScheduleStep {
    /// The thread.
    pub thread: ThreadIdx,
    /// The label of the step.
    pub label: String,
    /// For a step inside a procedure: the labels of the calls it was reached through,
    /// outermost first (a procedure's statements are one location for every caller, so the
    /// label alone can be ambiguous). Empty: any (and for steps outside procedures).
    pub calls: Vec<String>,
}

impl ScheduleStep {
    /// A step named by thread and label only.
    pub fn new(thread: ThreadIdx, label: impl Into<String>) -> Self {
        ScheduleStep { thread, label: label.into(), calls: Vec::new() }
    }
}

/// A readable, replayable sequence of steps (see [`replay`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Schedule {
    /// The steps in order.
    pub steps: Vec<ScheduleStep>,
}

impl Schedule {
    /// The number of steps.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether there is no step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Shows the schedule with thread names, one step per line (`thread: label`).
    pub fn display<'a>(&'a self, program: &'a Program) -> impl fmt::Display + 'a {
        struct D<'a>(&'a Schedule, &'a Program);
        impl fmt::Display for D<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for s in &self.0.steps {
                    let name = self.1.threads.get(s.thread.index()).map_or("?", |t| t.name.as_str());
                    write!(f, "{name}: {}", s.label)?;
                    if !s.calls.is_empty() {
                        write!(f, " (in {})", s.calls.join(" > "))?;
                    }
                    writeln!(f)?;
                }
                Ok(())
            }
        }
        D(self, program)
    }
}

/// A step identified exactly: thread, step of the compiled thread, and whether it starts a
/// new transition (a thread holding an atomic region leaves it first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct XStep {
    pub thread: usize,
    pub step: u32,
    pub fresh: bool,
}

/// A configuration while replaying: the state and the thread holding an atomic region.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Conf {
    pub(crate) state: Vec<i64>,
    pub(crate) holder: Option<usize>,
}

/// Why `x` cannot be taken in `conf` (None: it can), and the configuration after it.
pub(crate) fn take(e: &Engine<'_>, conf: &Conf, x: XStep) -> Result<(Conf, bool), String> {
    let (mut s, opt) = before(e, conf, x)?;
    match e.apply(&mut s, x.thread, opt) {
        Outcome::Disabled { assume: false } => Err("its await condition does not hold".into()),
        Outcome::Disabled { assume: true } => Err("its assume condition is false: the trace is cut here".into()),
        Outcome::Unwound => Err("the loop bound forbids it".into()),
        Outcome::Done { failed, .. } => {
            let holder = e.in_region(&s, x.thread).then_some(x.thread);
            Ok((Conf { state: s, holder }, failed))
        }
    }
}

/// The operation without a value (a division by zero, a shift out of range) that step
/// `index` of `xs` evaluates when the steps before it are taken from the initial state; `None`
/// when there is none or they cannot be taken.
pub(crate) fn fault_at(e: &Engine<'_>, xs: &[XStep], index: usize) -> Option<Fault> {
    let mut conf = Conf { state: e.initial().to_vec(), holder: None };
    for &x in xs.iter().take(index) {
        conf = take(e, &conf, x).ok()?.0;
    }
    let x = *xs.get(index)?;
    before(e, &conf, x).ok().and_then(|(s, opt)| e.fault(&s, x.thread, opt))
}

/// The state `x` is taken from (a thread holding an atomic region leaves it first) and the
/// option of `x`'s thread that takes it; why that is impossible otherwise.
fn before<'e>(e: &'e Engine<'_>, conf: &Conf, x: XStep) -> Result<(Vec<i64>, &'e Opt), String> {
    let mut s = conf.state.clone();
    let code = &e.c.threads[x.thread];
    if let Some(h) = conf.holder {
        if (h != x.thread || x.fresh) && !e.leave_region(&mut s, h) {
            let reg = e.c.threads[h].points[e.pc(&s, h)].region.unwrap_or(0);
            let label = &e.c.loc_names[e.c.threads[h].regions[reg as usize].loc.index()];
            return Err(format!(
                "thread {} is inside atomic block {label} and cannot leave it here",
                e.c.threads[h].name
            ));
        }
    }
    let pc = e.pc(&s, x.thread);
    let Some(opt) = code.points[pc].options.iter().find(|o| o.step == x.step) else {
        return Err(format!("it is not a next step of the thread (next: {})", next_labels(e, code, pc)));
    };
    Ok((s, opt))
}

fn next_labels(e: &Engine<'_>, code: &TCode, pc: usize) -> String {
    let names: Vec<&str> = code.points[pc]
        .options
        .iter()
        .map(|o| e.c.loc_names[code.steps[o.step as usize].loc.index()].as_str())
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Replays a schedule and rebuilds its trace.
///
/// Steps are matched by thread, label and (when given) the calls they were reached through;
/// when a step is still ambiguous (no calls given for a procedure inlined at two places that
/// the thread could both reach next) every reading is followed and the first that stays a
/// trace wins.
///
/// # Errors
/// [`ErrorKind::NotATrace`] with [`Error::replay_stop`] saying at which step (index, thread,
/// label) the schedule stops being a trace and why; other kinds when the program cannot be
/// compiled.
///
/// # Example
/// ```
/// # use paces_explore::{replay, Schedule, ScheduleStep};
/// # use paces_cwhile::ir::ThreadIdx;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse("var x = 0; thread a { A: x := 1; } thread b { B: assert(x == 0); }")?;
/// let schedule = Schedule { steps: vec![
///     ScheduleStep::new(ThreadIdx::from_u32(0), "A"),
///     ScheduleStep::new(ThreadIdx::from_u32(1), "B"),
/// ] };
/// let trace = replay(&program, &schedule)?;
/// assert!(trace.is_bad());
/// # Ok(()) }
/// ```
pub fn replay(program: &Program, schedule: &Schedule) -> Result<Trace, Error> {
    let c = compile(program)?;
    let e = Engine::new(&c, Settings::default());
    let xs = resolve(&e, schedule)?;
    build_trace(&e, &xs, None, false)
}

/// Resolves labels to exact steps, following every reading of an ambiguous label.
pub(crate) fn resolve(e: &Engine<'_>, schedule: &Schedule) -> Result<Vec<XStep>, Error> {
    const MAX_CONFS: usize = 256;
    let init = Conf { state: e.initial().to_vec(), holder: None };
    // The paths to the configurations share their prefixes: each step taken is a node of
    // `taken` linked to the one before it, so a step costs the same however long the path.
    const START: u32 = u32::MAX;
    let mut taken: Vec<(u32, XStep)> = Vec::new();
    let mut confs: Vec<(Conf, u32)> = vec![(init, START)];
    for (index, st) in schedule.steps.iter().enumerate() {
        let t = st.thread.index();
        let stop = |reason: String| {
            Error::not_a_trace(ReplayStop {
                index,
                thread: e.c.threads.get(t).map_or_else(|| format!("{}", st.thread), |c| c.name.clone()),
                label: st.label.clone(),
                reason,
            })
        };
        let Some(code) = e.c.threads.get(t) else {
            return Err(stop("there is no such thread".into()));
        };
        let mut next: Vec<(Conf, u32)> = Vec::new();
        let mut seen: FxHashSet<Conf> = FxHashSet::default();
        let mut first_reason: Option<String> = None;
        for &(ref conf, path) in &confs {
            let mut matched = false;
            for x in next_steps(e, conf, t) {
                let step = &code.steps[x.step as usize];
                if e.c.loc_names[step.loc.index()] != st.label {
                    continue;
                }
                if !st.calls.is_empty() {
                    let occ = code.points[step.site as usize].occ;
                    let calls = &code.occs[occ as usize].calls;
                    if calls.len() != st.calls.len()
                        || calls.iter().zip(&st.calls).any(|(l, n)| e.c.loc_names[l.index()] != *n)
                    {
                        continue;
                    }
                }
                matched = true;
                match take(e, conf, x) {
                    Ok((c2, _)) => {
                        if next.len() < MAX_CONFS && seen.insert(c2.clone()) {
                            let node = u32::try_from(taken.len())
                                .ok()
                                .filter(|&n| n != START)
                                .ok_or_else(|| stop("the schedule is too long".into()))?;
                            taken.push((path, x));
                            next.push((c2, node));
                        }
                    }
                    Err(r) => {
                        first_reason.get_or_insert(r);
                    }
                }
            }
            if !matched && first_reason.is_none() {
                let mut s = conf.state.clone();
                if let Some(h) = conf.holder.filter(|&h| h != t) {
                    if !e.leave_region(&mut s, h) {
                        let reg = e.c.threads[h].points[e.pc(&conf.state, h)].region.unwrap_or(0);
                        let label = &e.c.loc_names[e.c.threads[h].regions[reg as usize].loc.index()];
                        first_reason = Some(format!(
                            "thread {} is inside atomic block {label} and cannot leave it here",
                            e.c.threads[h].name
                        ));
                        continue;
                    }
                }
                first_reason =
                    Some(format!("it is not a next step of the thread (next: {})", next_labels(e, code, e.pc(&s, t))));
            }
        }
        if next.is_empty() {
            return Err(stop(first_reason.unwrap_or_else(|| "no configuration allows it".into())));
        }
        confs = next;
    }
    let mut path = Vec::new();
    let mut node = confs.first().map_or(START, |&(_, n)| n);
    while let Some(&(before, x)) = taken.get(node as usize) {
        path.push(x);
        node = before;
    }
    path.reverse();
    Ok(path)
}

/// Per-thread scope stacks for building events.
struct Scopes {
    stacks: Vec<Vec<(u32, BlockInstance)>>,
    counters: Vec<u32>,
}

impl Scopes {
    fn new(c: &Compiled) -> Self {
        let stacks =
            c.threads.iter().map(|t| vec![(0u32, BlockInstance { block: t.occs[0].block, instance: 0 })]).collect();
        Scopes { stacks, counters: vec![1; c.threads.len()] }
    }

    fn apply(&mut self, c: &Compiled, t: usize, moves: &[Move]) {
        for m in moves {
            match *m {
                Move::Push(occ) => {
                    let n = self.counters[t];
                    self.counters[t] += 1;
                    let block = c.threads[t].occs[occ as usize].block;
                    self.stacks[t].push((occ, BlockInstance { block, instance: n }));
                }
                Move::Pop => {
                    self.stacks[t].pop();
                }
                Move::LoopEnter(_) | Move::LoopExit(_) => {}
            }
        }
    }

    /// The scope of an event at `site` of thread `t`.
    fn scope(&self, c: &Compiled, t: usize, site: u32) -> Result<Vec<ScopeEntry>, Error> {
        let code = &c.threads[t];
        let stack = &self.stacks[t];
        let site_point = &code.points[site as usize];
        if stack.last().map(|e| e.0) != Some(site_point.occ) {
            return Err(Error::new(ErrorKind::Trace, "scope stack out of step with the control point"));
        }
        let mut scope = Vec::with_capacity(stack.len());
        for (k, &(occ, inst)) in stack.iter().enumerate() {
            let item = if k + 1 < stack.len() {
                let child = &code.occs[stack[k + 1].0 as usize];
                let (_, idx) = child.parent.unwrap_or((0, 0));
                code.points[(code.occs[occ as usize].first_point + idx) as usize].item
            } else {
                site_point.item
            };
            let item = item.ok_or_else(|| Error::new(ErrorKind::Trace, "an event at the end of a block"))?;
            scope.push(ScopeEntry { instance: inst, item });
        }
        Ok(scope)
    }
}

/// How many pending steps a thread gets at most (see [`Trace::pending`]).
const MAX_PENDING: usize = 256;

/// Replays exact steps and builds the validated trace; when `blocked` is given (a deadlock),
/// the blocked awaits of every blocked thread are added at the end; with `pending`, every
/// thread's pending steps.
pub(crate) fn build_trace(
    e: &Engine<'_>,
    xs: &[XStep],
    blocked: Option<&[Stand]>,
    pending: bool,
) -> Result<Trace, Error> {
    let c = e.c;
    let mut conf = Conf { state: e.initial().to_vec(), holder: None };
    let mut scopes = Scopes::new(c);
    let mut b = TraceBuilder::new();
    let terr = |err: paces_trace::Error| Error::new(ErrorKind::Trace, format!("invalid trace: {err}"));
    for (index, &x) in xs.iter().enumerate() {
        let code = &c.threads[x.thread];
        if let Some(h) = conf.holder {
            if h != x.thread || x.fresh {
                let pc = e.pc(&conf.state, h);
                if let Some(m) = &c.threads[h].points[pc].exit_moves {
                    scopes.apply(c, h, m);
                }
            }
        }
        let (next, failed) = take(e, &conf, x).map_err(|reason| {
            Error::not_a_trace(ReplayStop {
                index,
                thread: code.name.clone(),
                label: c.loc_names[code.steps[x.step as usize].loc.index()].clone(),
                reason,
            })
        })?;
        // The moves that led to the step, from the point the thread stood at.
        let mut s = conf.state.clone();
        if let Some(h) = conf.holder {
            if h != x.thread || x.fresh {
                e.leave_region(&mut s, h);
            }
        }
        let pc = e.pc(&s, x.thread);
        let opt = code.points[pc].options.iter().find(|o| o.step == x.step);
        if let Some(o) = opt {
            scopes.apply(c, x.thread, &o.moves);
        }
        let st = &code.steps[x.step as usize];
        let scope = scopes.scope(c, x.thread, st.site)?;
        let sb = b.step(ThreadId::from_u32(x.thread as u32), st.loc, scope).kind(st.event).failed(failed);
        with_effects(e, x.thread, st, &next.state, sb).push().map_err(terr)?;
        scopes.apply(c, x.thread, &st.after_moves);
        conf = next;
    }
    if let Some(stands) = blocked {
        for (t, stand) in stands.iter().enumerate() {
            let Stand::Blocked(opts) = stand else { continue };
            let code = &c.threads[t];
            let pc = e.pc(&conf.state, t);
            for &i in opts {
                let Some(o) = code.points[pc].options.get(i as usize) else { continue };
                let saved = (scopes.stacks[t].clone(), scopes.counters[t]);
                scopes.apply(c, t, &o.moves);
                let st = &code.steps[o.step as usize];
                let scope = scopes.scope(c, t, st.site)?;
                let mut sb = b.step(ThreadId::from_u32(t as u32), st.loc, scope).kind(EventKind::Await);
                let mut reads: Vec<VarRef> = st.reads.clone();
                if st.region.is_some() {
                    // Waiting before an atomic block: the block's whole body decides.
                    for g in o.r.iter().map(|g| VarRef::Global(g as u32)) {
                        if !reads.contains(&g) {
                            reads.push(g);
                        }
                    }
                }
                for r in reads {
                    sb = sb.read(c.layout.var_id(t, r));
                }
                sb.push_blocked().map_err(terr)?;
                scopes.stacks[t] = saved.0;
                scopes.counters[t] = saved.1;
            }
        }
    }
    if pending {
        for t in 0..c.threads.len() {
            push_pending(e, &conf, t, &mut scopes, &mut b)?;
        }
    }
    // A bad trace that ends while its threads could run on says so: generalising it as it is
    // would miss the writes after the failure (`Counterexample::complete` runs it on).
    if !pending && blocked.is_none() && !is_complete(e, &conf) {
        b.stops_short();
    }
    Ok(b.finish())
}

/// Adds the steps thread `t` would take next from `conf` as pending steps: it runs alone,
/// conditions taken as true, as long as its next step is determined (one option, or one
/// whose condition holds: a deterministic `if`), up to [`MAX_PENDING`] steps. A choice
/// (`if (*)`, `while (*)`) or the thread's end stops it.
fn push_pending(e: &Engine<'_>, conf: &Conf, t: usize, scopes: &mut Scopes, b: &mut TraceBuilder) -> Result<(), Error> {
    let c = e.c;
    let code = &c.threads[t];
    let mut s = conf.state.clone();
    if let Some(h) = conf.holder.filter(|&h| h != t) {
        e.leave_region(&mut s, h);
    }
    for _ in 0..MAX_PENDING {
        let pc = e.pc(&s, t);
        let point = &code.points[pc];
        if point.options.is_empty() {
            match &point.exit_moves {
                Some(m) if e.leave_region(&mut s, t) => {
                    scopes.apply(c, t, m);
                    continue;
                }
                _ => break,
            }
        }
        let (opt, after) = if let [only] = point.options.as_slice() {
            let mut next = s.clone();
            match e.apply_forced(&mut next, t, only) {
                Outcome::Done { .. } => (only, next),
                _ => break,
            }
        } else {
            let mut enabled = point.options.iter().filter_map(|o| {
                let mut next = s.clone();
                matches!(e.apply(&mut next, t, o), Outcome::Done { .. }).then_some((o, next))
            });
            match (enabled.next(), enabled.next()) {
                (Some(one), None) => one,
                _ => break,
            }
        };
        scopes.apply(c, t, &opt.moves);
        let st = &code.steps[opt.step as usize];
        let scope = scopes.scope(c, t, st.site)?;
        let sb = b.step(ThreadId::from_u32(t as u32), st.loc, scope).kind(st.event);
        with_effects(e, t, st, &after, sb).push_pending();
        scopes.apply(c, t, &st.after_moves);
        s = after;
    }
    Ok(())
}

/// Adds what step `st` of thread `t` reads, and what it writes as seen in `after`, the state
/// after it.
fn with_effects<'b>(
    e: &Engine<'_>,
    t: usize,
    st: &StepInfo,
    after: &[i64],
    mut sb: StepBuilder<'b>,
) -> StepBuilder<'b> {
    let c = e.c;
    for &r in &st.reads {
        sb = sb.read(c.layout.var_id(t, r));
    }
    if let StepKind::Assign(v, _) = st.kind {
        let value = match v {
            VarRef::Global(g) => after[e.lay.threads + g as usize],
            VarRef::Local(l) => after[e.lay.local_off[t] + l as usize],
        };
        sb = sb.write(c.layout.var_id(t, v), value);
    }
    sb
}

/// The exact steps thread `t` may take next in `conf`: inside the atomic region it holds,
/// or fresh from where it stands (after leaving a region, its own or another thread's; none
/// when another thread holds a region it cannot leave here).
pub(crate) fn next_steps(e: &Engine<'_>, conf: &Conf, t: usize) -> Vec<XStep> {
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

/// Exact step `x` of `c` as a schedule names it: thread, label and the calls it is reached
/// through.
pub(crate) fn schedule_step(c: &Compiled, x: XStep) -> ScheduleStep {
    let code = &c.threads[x.thread];
    let step = &code.steps[x.step as usize];
    let occ = code.points[step.site as usize].occ;
    ScheduleStep {
        thread: ThreadIdx::from_u32(x.thread as u32),
        label: c.loc_names[step.loc.index()].clone(),
        calls: code.occs[occ as usize].calls.iter().map(|l| c.loc_names[l.index()].clone()).collect(),
    }
}

/// The readable schedule of exact steps.
pub(crate) fn to_schedule(c: &Compiled, xs: &[XStep]) -> Schedule {
    Schedule { steps: xs.iter().map(|&x| schedule_step(c, x)).collect() }
}

/// Turns transitions from the initial state into exact steps: for each `(thread, option,
/// internal path)` the entering step and the steps inside the atomic region.
pub(crate) fn transitions_to_steps(e: &Engine<'_>, trans: &[(usize, u16, Vec<u16>)]) -> Vec<XStep> {
    let mut s = e.initial().to_vec();
    let mut xs = Vec::new();
    for (t, opt, internal) in trans {
        let code = &e.c.threads[*t];
        let o = &code.points[e.pc(&s, *t)].options[*opt as usize];
        xs.push(XStep { thread: *t, step: o.step, fresh: true });
        e.apply(&mut s, *t, o);
        // After an exit (or outside any region) the following steps are merged private
        // steps: fresh, so that replay leaves the region first.
        let mut fresh = !e.in_region(&s, *t);
        for &i in internal {
            if i == EXIT {
                e.leave_region(&mut s, *t);
                fresh = true;
                continue;
            }
            let o = &code.points[e.pc(&s, *t)].options[i as usize];
            xs.push(XStep { thread: *t, step: o.step, fresh });
            e.apply(&mut s, *t, o);
            fresh |= !e.in_region(&s, *t);
        }
    }
    xs
}

/// Whether every thread can reach its end without a step in `conf` (the holder, if any,
/// after leaving its region).
pub(crate) fn is_complete(e: &Engine<'_>, conf: &Conf) -> bool {
    let mut s = conf.state.clone();
    if let Some(h) = conf.holder {
        if !e.leave_region(&mut s, h) {
            return false;
        }
    }
    (0..e.lay.threads).all(|t| e.may_stop(&s, t))
}
