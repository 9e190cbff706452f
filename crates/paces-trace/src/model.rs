//! The trace model: events with scopes, reads-from and written values, built and validated by
//! [`TraceBuilder`].

use std::fmt;

use paces_constraint::{define_id, Atom, BlockId, Loc, Space, ThreadId};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

pub(crate) use crate::scope::{ScopeProblem, ScopeTracker};

define_id!(
    /// An event: a position in a trace.
    EventId,
    "e"
);
define_id!(
    /// A variable. Thread-local variables must have one id per thread (each thread has its
    /// own copy), so that reads-from never crosses threads through a local.
    VarId,
    "v"
);

/// One execution of a block: a loop iteration or a procedure call opens a new instance.
/// Instance numbers are chosen by the trace producer and are unique within one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockInstance {
    /// The block.
    pub block: BlockId,
    /// The instance number.
    pub instance: u32,
}

/// One level of an event's scope: the block instance and the item of that block the event
/// lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScopeEntry {
    /// The block instance.
    pub instance: BlockInstance,
    /// The item of the block that holds the event (the event's own location at the innermost
    /// level, unless the event is a step of a compound item such as a loop's exit test).
    pub item: Loc,
}

/// What kind of step an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// An assignment or `skip`.
    Plain,
    /// An `assume`: a condition that cuts the trace when false (a conditional of the paper).
    Assume,
    /// An `await`: a condition the thread waits for (a conditional of the paper, and a
    /// preemption point).
    Await,
    /// An assertion.
    Assert,
}

impl EventKind {
    /// Whether the step is a conditional of the paper (`assume` or `await`).
    pub fn is_cond(self) -> bool {
        matches!(self, EventKind::Assume | EventKind::Await)
    }
}

/// A variable read by an event and the event it reads from (`None`: the initial state,
/// the paper's bottom).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Read {
    /// The variable.
    pub var: VarId,
    /// The writer read from.
    pub from: Option<EventId>,
}

/// A variable written by an event and the value written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Write {
    /// The variable.
    pub var: VarId,
    /// The value written.
    pub value: i64,
}

/// One step of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The thread that took the step.
    pub thread: ThreadId,
    /// The statement.
    pub loc: Loc,
    /// The chain of (block instance, item) from the thread's top block down to the event.
    pub scope: Vec<ScopeEntry>,
    /// The kind of step.
    pub kind: EventKind,
    /// Whether the step failed (an assertion that did not hold, or a division by zero). A
    /// trace with a failed event is bad.
    pub failed: bool,
    /// Variables read, with their writers.
    pub reads: SmallVec<[Read; 2]>,
    /// Variables written, with their values.
    pub writes: SmallVec<[Write; 1]>,
}

impl Event {
    /// Whether the event writes `var`.
    pub fn writes_var(&self, var: VarId) -> bool {
        self.writes.iter().any(|w| w.var == var)
    }

    /// Whether the event reads `var`.
    pub fn reads_var(&self, var: VarId) -> bool {
        self.reads.iter().any(|r| r.var == var)
    }

    /// The value the event writes to `var`.
    pub fn written_value(&self, var: VarId) -> Option<i64> {
        self.writes.iter().find(|w| w.var == var).map(|w| w.value)
    }

    /// Whether the event is a final check ([`TraceBuilder::final_check`]): its thread is
    /// [`ThreadId::FINAL`].
    pub fn is_final_check(&self) -> bool {
        self.thread == ThreadId::FINAL
    }
}

/// Lifts an intra-thread pair of events (`x` before `y`) to a program constraint: the atom
/// `Order(item_x, item_y)` over the items of the innermost block instance both lie in, when
/// they lie in different items there; `None` when no transformation can change their order
/// (they lie in one item at every level, or in different instances of a block: different
/// loop iterations or calls). This generalises the paper's "same execution of a basic block".
/// Events of different threads give `None` too: the rule is for pairs of one thread.
///
/// # Example
/// ```
/// use paces_constraint::{Atom, BlockId, Loc};
/// use paces_trace::{lift, BlockInstance, Event, EventKind, ScopeEntry, ThreadId};
/// let top = BlockInstance { block: BlockId::from_u32(0), instance: 0 };
/// let ev = |item: u32| Event {
///     thread: ThreadId::from_u32(0),
///     loc: Loc::from_u32(item),
///     scope: vec![ScopeEntry { instance: top, item: Loc::from_u32(item) }],
///     kind: EventKind::Plain,
///     failed: false,
///     reads: Default::default(),
///     writes: Default::default(),
/// };
/// assert_eq!(lift(&ev(1), &ev(2)), Some(Atom::Order(Loc::from_u32(1), Loc::from_u32(2))));
/// ```
pub fn lift(x: &Event, y: &Event) -> Option<Atom> {
    if x.thread != y.thread {
        return None;
    }
    for (sx, sy) in x.scope.iter().zip(&y.scope) {
        if sx.instance != sy.instance {
            return None;
        }
        if sx.item != sy.item {
            return Some(Atom::Order(sx.item, sy.item));
        }
    }
    None
}

/// What was wrong with an event given to a [`TraceBuilder`]; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A read names a writer that is not an earlier event.
    ReadsFromForward,
    /// A read names a writer that does not write the variable.
    ReadsFromNonWriter,
    /// A read names a writer that is not the latest write of the variable before the event.
    ReadsFromStale,
    /// An event has an empty scope.
    EmptyScope,
    /// An event of a thread is out of scope order: a different top block, a block instance
    /// that was already left, an item of an instance that was already left, an item that runs
    /// as one step run again by the next step (with a space), or an event after its thread's
    /// blocked or pending steps.
    ScopeOrder,
    /// More events than fit in 32 bits.
    TooManyEvents,
    /// A thread number the space does not declare (see [`Trace::check_against`]).
    UnknownThread,
    /// A location the space does not have.
    UnknownLoc,
    /// A block the space does not have.
    UnknownBlock,
    /// A scope that does not fit the space: an item that is not an item of its entry's
    /// block, or an innermost item that is neither the event's location nor a compound item
    /// that can hold it.
    ScopeMismatch,
    /// A thread whose top block is not its own: another thread's, a different one from
    /// event to event, or not the block the space declares for it.
    ThreadBlock,
    /// A thread runs two items of one block instance against a pair the space fixes (see
    /// [`Trace::check_against`]).
    FixedOrder,
    /// Two threads read or write a variable declared local ([`TraceBuilder::local`]).
    SharedLocal,
    /// A final check ([`TraceBuilder::final_check`]) out of place: one that writes, a
    /// thread's step after it, or one in a trace that does not end with every thread
    /// finished (blocked or pending steps).
    FinalCheck,
}

/// The error of [`TraceBuilder`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: String) -> Self {
        Error { kind, message }
    }

    /// The kind of error.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// A validated trace: a sequence of events from the initial state, and, for a trace that ends
/// in a deadlock, the steps each blocked thread is waiting to take; optionally the *pending*
/// steps each thread would take next (see [`Trace::pending`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    events: Vec<Event>,
    blocked: Vec<Event>,
    pending: Vec<Event>,
    locals: Vec<VarId>,
    stops_short: bool,
}

impl Trace {
    /// The variables declared local to one thread ([`TraceBuilder::local`]), sorted.
    pub fn locals(&self) -> &[VarId] {
        &self.locals
    }

    /// The events in trace order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// One event.
    ///
    /// # Panics
    /// When the id is not an event of this trace.
    pub fn event(&self, id: EventId) -> &Event {
        &self.events[id.index()]
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the trace has no event.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Event ids in trace order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = EventId> {
        (0..self.events.len() as u32).map(EventId::from_u32)
    }

    /// Whether some event failed.
    pub fn is_bad(&self) -> bool {
        self.events.iter().any(|e| e.failed)
    }

    /// The first failed event.
    pub fn first_failure(&self) -> Option<EventId> {
        self.events.iter().position(|e| e.failed).map(|i| EventId::from_u32(i as u32))
    }

    /// For a trace ending in a deadlock: the step each blocked thread waits to take (a
    /// condition that does not hold), with reads-from as of the end of the trace. Empty
    /// otherwise.
    pub fn blocked(&self) -> &[Event] {
        &self.blocked
    }

    /// Where the blocked steps wait: the items of every block that encloses a blocked step
    /// (the step itself, or the compound statements around it), sorted.
    pub fn blocked_items(&self) -> std::collections::BTreeSet<Loc> {
        self.blocked.iter().flat_map(|step| step.scope.iter().map(|entry| entry.item)).collect()
    }

    /// Steps the trace does not execute but its threads would take next, each thread's in its
    /// program order after its last event (and after its blocked step, if any): a checker
    /// that stops at a failure, or whose threads cannot go on past it, lists them so that a
    /// generalisation sees the writes that the failure must precede (paper Example 4's `C`,
    /// when `C` is never reached). Their reads name no writer; a written value is the one the
    /// step would write when run from the end of the trace, conditions taken as true. Empty
    /// unless the checker adds them.
    pub fn pending(&self) -> &[Event] {
        &self.pending
    }

    /// Whether the trace stops while some thread could still run on, and says nothing (no
    /// blocked or [pending](Trace::pending) steps) of what would come next: its producer
    /// marked it so ([`TraceBuilder::stops_short`]), as a model checker does with a bad trace
    /// it ends at the failure. Generalising such a trace would miss the writes the failure
    /// must precede (they come after it), so `paces_generalize` refuses a bad one; the
    /// producer completes it first (`paces_explore::Counterexample::complete`).
    pub fn stops_short(&self) -> bool {
        self.stops_short
    }

    /// The threads that take a step in the trace, sorted ([`ThreadId::FINAL`] last when the
    /// trace has a final check).
    pub fn threads(&self) -> Vec<ThreadId> {
        let mut t: Vec<ThreadId> = self.events.iter().map(|e| e.thread).collect();
        t.sort_unstable();
        t.dedup();
        t
    }
}

/// Builds a [`Trace`] event by event, validating each.
///
/// # Example
/// ```
/// use paces_constraint::{BlockId, Loc};
/// use paces_trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, TraceBuilder, VarId};
/// let x = VarId::from_u32(0);
/// let mut b = TraceBuilder::new();
/// let top = |t: u32| BlockInstance { block: BlockId::from_u32(t), instance: 0 };
/// let at = |t: u32, l: u32| vec![ScopeEntry { instance: top(t), item: Loc::from_u32(l) }];
/// let w = b.step(ThreadId::from_u32(0), Loc::from_u32(0), at(0, 0)).write(x, 1).push()?;
/// let r = b.step(ThreadId::from_u32(1), Loc::from_u32(1), at(1, 1))
///     .kind(EventKind::Assert).read(x).push()?;
/// let trace = b.finish();
/// assert_eq!(trace.event(r).reads[0].from, Some(w));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct TraceBuilder {
    events: Vec<Event>,
    blocked: Vec<Event>,
    pending: Vec<Event>,
    latest: FxHashMap<VarId, EventId>,
    scopes: ScopeTracker,
    locals: Vec<VarId>,
    /// The space of [`TraceBuilder::for_space`]: the blocks of flat steps, and the names of
    /// threads and locations in errors.
    space: Option<Space>,
    /// Whether a final check was pushed: no thread's step may follow.
    finished: bool,
    /// See [`Trace::stops_short`].
    stops_short: bool,
}

/// One event under construction; see [`TraceBuilder::step`].
pub struct StepBuilder<'a> {
    builder: &'a mut TraceBuilder,
    event: Event,
    /// Reads whose writer is to be resolved to the latest write.
    auto: SmallVec<[usize; 2]>,
}

impl StepBuilder<'_> {
    /// The kind of step. Default: [`EventKind::Plain`].
    pub fn kind(mut self, kind: EventKind) -> Self {
        self.event.kind = kind;
        self
    }

    /// Marks the step as failed. Default: not failed.
    pub fn failed(mut self, failed: bool) -> Self {
        self.event.failed = failed;
        self
    }

    /// Reads `var` from its latest write (or the initial state).
    pub fn read(mut self, var: VarId) -> Self {
        self.auto.push(self.event.reads.len());
        self.event.reads.push(Read { var, from: None });
        self
    }

    /// Reads `var` from an explicit writer, checked when pushed.
    pub fn read_from(mut self, var: VarId, from: Option<EventId>) -> Self {
        self.event.reads.push(Read { var, from });
        self
    }

    /// Writes `value` to `var`.
    pub fn write(mut self, var: VarId, value: i64) -> Self {
        self.event.writes.push(Write { var, value });
        self
    }

    /// Validates the event and appends it to the trace.
    ///
    /// # Errors
    /// See [`ErrorKind`].
    pub fn push(mut self) -> Result<EventId, Error> {
        for &k in &self.auto {
            let var = self.event.reads[k].var;
            self.event.reads[k].from = self.builder.latest.get(&var).copied();
        }
        self.builder.push(self.event)
    }

    /// Validates the event and records it as a blocked step at the end of the trace (a
    /// deadlock): it reads the latest writes but is not part of the sequence.
    ///
    /// # Errors
    /// See [`ErrorKind`].
    pub fn push_blocked(mut self) -> Result<(), Error> {
        if self.event.is_final_check() || self.builder.finished {
            return Err(Error::new(
                ErrorKind::FinalCheck,
                "a trace with a final check ends with every thread finished: no step is blocked".to_owned(),
            ));
        }
        for &k in &self.auto {
            let var = self.event.reads[k].var;
            self.event.reads[k].from = self.builder.latest.get(&var).copied();
        }
        self.builder.validate_reads(&self.event, self.builder.events.len())?;
        self.builder.blocked.push(self.event);
        Ok(())
    }

    /// Records the step as *pending* (see [`Trace::pending`]): a step its thread would take
    /// after the end of the trace. Its reads name no writer, whatever was asked.
    pub fn push_pending(mut self) {
        for read in &mut self.event.reads {
            read.from = None;
        }
        self.builder.pending.push(self.event);
    }
}

impl TraceBuilder {
    /// An empty trace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts the next event: thread, location and scope.
    pub fn step(&mut self, thread: ThreadId, loc: Loc, scope: Vec<ScopeEntry>) -> StepBuilder<'_> {
        StepBuilder {
            builder: self,
            event: Event {
                thread,
                loc,
                scope,
                kind: EventKind::Plain,
                failed: false,
                reads: SmallVec::new(),
                writes: SmallVec::new(),
            },
            auto: SmallVec::new(),
        }
    }

    /// An empty trace whose flat steps ([`TraceBuilder::flat`]) take their scopes from `space`
    /// and whose errors ([`StepBuilder::push`], [`TraceBuilder::push`]) name threads and
    /// locations by the space's labels (it keeps a copy of the space).
    pub fn for_space(space: &Space) -> Self {
        TraceBuilder { space: Some(space.clone()), ..Self::default() }
    }

    /// A thread as this builder's errors name it: by the space's label when it has one.
    fn thread_name(&self, thread: ThreadId) -> String {
        match &self.space {
            Some(space) => crate::names::thread_name(space, thread),
            None if thread == ThreadId::FINAL => "the final check".to_owned(),
            None => format!("thread {}", thread.index()),
        }
    }

    /// A location as this builder's errors name it.
    fn loc_name(&self, loc: Loc) -> String {
        match &self.space {
            Some(space) => crate::names::loc_name(space, loc),
            None => loc.to_string(),
        }
    }

    /// An event as this builder's errors name it: `event 3`, with its location's label when
    /// the builder has a space.
    fn event_name(&self, position: usize, event: &Event) -> String {
        if event.is_final_check() {
            return format!("event {position} (the final check)");
        }
        match &self.space {
            Some(_) => {
                format!("event {position} ({}, at {})", self.thread_name(event.thread), self.loc_name(event.loc))
            }
            None => format!("event {position}"),
        }
    }

    /// [`TraceBuilder::flat_step`] with the space given to [`TraceBuilder::for_space`]: the
    /// next event of a flat thread, its scope the block holding `loc` as an item, instance 0
    /// (an empty scope, which [`StepBuilder::push`] refuses, for a `loc` that is no item of
    /// that space or a builder made with [`TraceBuilder::new`]).
    pub fn flat(&mut self, thread: ThreadId, loc: Loc) -> StepBuilder<'_> {
        let scope = self
            .space
            .as_ref()
            .and_then(|space| space.block_of(loc))
            .map(|block| vec![ScopeEntry { instance: BlockInstance { block, instance: 0 }, item: loc }])
            .unwrap_or_default();
        self.step(thread, loc, scope)
    }

    /// Starts the next event of a flat thread, whose blocks each run once (no loop and no
    /// procedure around the step): its scope is the block holding `loc` as an item, instance
    /// 0. The usual start for a checker of straight-line threads; a `loc` that is no item of
    /// `space` gets an empty scope, which [`StepBuilder::push`] refuses.
    pub fn flat_step(&mut self, space: &Space, thread: ThreadId, loc: Loc) -> StepBuilder<'_> {
        let scope = space
            .block_of(loc)
            .map(|block| vec![ScopeEntry { instance: BlockInstance { block, instance: 0 }, item: loc }])
            .unwrap_or_default();
        self.step(thread, loc, scope)
    }

    /// The latest event that wrote `var`, if any.
    pub fn latest_writer(&self, var: VarId) -> Option<EventId> {
        self.latest.get(&var).copied()
    }

    /// The number of events so far.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether no event was pushed yet.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    fn validate_reads(&self, event: &Event, position: usize) -> Result<(), Error> {
        let from_name = |from: EventId| match self.events.get(from.index()) {
            Some(writer) if self.space.is_some() => self.event_name(from.index(), writer),
            _ => format!("event {}", from.index()),
        };
        let this = self.event_name(position, event);
        for read in &event.reads {
            if let Some(from) = read.from {
                if from.index() >= position {
                    return Err(Error::new(
                        ErrorKind::ReadsFromForward,
                        format!("{this} reads {} from event {}, which is not an earlier event", read.var, from.index()),
                    ));
                }
                if !self.events[from.index()].writes_var(read.var) {
                    return Err(Error::new(
                        ErrorKind::ReadsFromNonWriter,
                        format!("{this} reads {} from {}, which does not write it", read.var, from_name(from)),
                    ));
                }
            }
            if read.from != self.latest.get(&read.var).copied() {
                return Err(Error::new(
                    ErrorKind::ReadsFromStale,
                    format!("{this} reads {} from a write that is not the latest one", read.var),
                ));
            }
        }
        Ok(())
    }

    /// Validates and appends a complete event.
    ///
    /// # Errors
    /// See [`ErrorKind`].
    pub fn push(&mut self, event: Event) -> Result<EventId, Error> {
        let position = self.events.len();
        let id =
            EventId::new(position).ok_or_else(|| Error::new(ErrorKind::TooManyEvents, "too many events".into()))?;
        self.validate_reads(&event, position)?;
        self.check_final(&event, position)?;
        self.check_not_after_next_steps(&event, position)?;
        if !event.is_final_check() {
            self.check_scope(&event, position)?;
        }
        self.finished |= event.is_final_check();
        for w in &event.writes {
            self.latest.insert(w.var, id);
        }
        self.events.push(event);
        Ok(id)
    }

    /// Checks that the event's thread has no blocked or pending step yet: those are the steps
    /// it would take after its last event, so no event of it comes after them.
    fn check_not_after_next_steps(&self, event: &Event, position: usize) -> Result<(), Error> {
        let parts = [("blocked step", &self.blocked), ("pending step", &self.pending)];
        for (what, steps) in parts {
            if let Some(k) = steps.iter().position(|e| e.thread == event.thread) {
                let this = self.event_name(position, event);
                let thread = self.thread_name(event.thread);
                let this = if self.space.is_some() { this } else { format!("{this} of {thread}") };
                let problem = format!(
                    "{this} comes after {what} {k} of {thread}: a blocked or pending step comes after its \
                     thread's last event"
                );
                return Err(Error::new(ErrorKind::ScopeOrder, problem));
            }
        }
        Ok(())
    }

    /// Checks that a final check only reads and that no thread's step follows one.
    fn check_final(&self, event: &Event, position: usize) -> Result<(), Error> {
        let this = self.event_name(position, event);
        if let Some(write) = event.writes.first().filter(|_| event.is_final_check()) {
            let problem = format!("{this} writes {}: a final check only reads the final values", write.var);
            return Err(Error::new(ErrorKind::FinalCheck, problem));
        }
        if self.finished && !event.is_final_check() {
            let this =
                if self.space.is_some() { this } else { format!("{this} of {}", self.thread_name(event.thread)) };
            let problem = format!("{this} comes after a final check: final checks run once every thread has finished");
            return Err(Error::new(ErrorKind::FinalCheck, problem));
        }
        Ok(())
    }

    /// Checks the event's scope against its thread's earlier events and, only when it is
    /// fine, records it: a rejected event leaves the builder as it was.
    fn check_scope(&mut self, event: &Event, position: usize) -> Result<(), Error> {
        let runs_once =
            self.space.as_ref().is_some_and(|space| space.item_info(event.loc).is_some_and(|info| info.atomic));
        self.scopes.step(event, position, runs_once).map_err(|problem| {
            let kind = if problem == ScopeProblem::Empty { ErrorKind::EmptyScope } else { ErrorKind::ScopeOrder };
            let this = self.event_name(position, event);
            let thread = self.thread_name(event.thread);
            let what = match problem {
                ScopeProblem::Empty => return Error::new(kind, format!("{this} has an empty scope")),
                ScopeProblem::TopDiffers => format!("its top block instance differs from the one {thread} runs"),
                ScopeProblem::ReturnsTo { item, at } => format!(
                    "{thread} already ran {} at event {at} and went on to another item of its block: a step \
                     after the thread's last event must come after it in the thread's order",
                    self.loc_name(item)
                ),
                ScopeProblem::Repeats { item, at } => format!(
                    "{thread} already ran {} at event {at} in the same block instance: a step after the \
                     thread's last event must come after it in the thread's order",
                    self.loc_name(item)
                ),
                ScopeProblem::ReEnters { instance } => {
                    let block = match &self.space {
                        Some(space) => crate::names::block_name(space, instance.block),
                        None => format!("block {}", instance.block),
                    };
                    format!("it re-enters instance {} of {block}, which {thread} already left", instance.instance)
                }
            };
            let this = if self.space.is_some() { this } else { format!("{this} of {thread}") };
            Error::new(kind, format!("{this}: {what}"))
        })
    }

    /// Declares `var` a local variable of one thread: [`Trace::check_against`] refuses a trace
    /// in which two threads read or write it (a register shared by mistake). A variable that
    /// is not declared is shared.
    pub fn local(&mut self, var: VarId) -> &mut Self {
        if let Err(at) = self.locals.binary_search(&var) {
            self.locals.insert(at, var);
        }
        self
    }

    /// Marks the trace as stopping while some thread could still run on, with nothing said
    /// of what comes next (see [`Trace::stops_short`]): a checker that ends a bad trace at
    /// its failure says so, and the generalisation then refuses the trace rather than find
    /// no fix in it. Ignored when the trace has blocked or pending steps, which say what
    /// comes next.
    pub fn stops_short(&mut self) -> &mut Self {
        self.stops_short = true;
        self
    }

    /// Finishes the trace.
    pub fn finish(self) -> Trace {
        let stops_short = self.stops_short && self.blocked.is_empty() && self.pending.is_empty();
        Trace { events: self.events, blocked: self.blocked, pending: self.pending, locals: self.locals, stops_short }
    }
}
