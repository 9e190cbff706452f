//! A trace checked against a space: every thread, location, block and scope entry the trace
//! names must be the space's, so that what is learned from it speaks of the space's items.

use std::collections::{BTreeMap, BTreeSet};

use paces_constraint::{BlockId, Loc, Space};

use crate::model::{ScopeProblem, ScopeTracker};
use crate::names::{block_name, loc_name, thread_name};
use crate::{BlockInstance, Error, ErrorKind, Event, ThreadId, Trace, VarId};

impl Trace {
    /// Checks the trace against `space`: its events, blocked steps and pending steps.
    ///
    /// Every location is one of the space's; every scope entry names a block of the space and
    /// an item of that block; an event whose location is an item has it as its innermost
    /// item (a location that is no item, such as a step inside a compound item, may stand
    /// under any item); one thread runs one top block throughout, no other thread runs it,
    /// and when the space declares threads ([`paces_constraint::SpaceBuilder::thread`]) the
    /// thread is declared and its top block is the declared one.
    ///
    /// Program order too: no thread runs two items of one block instance against a pair the
    /// space fixes ([`Space::is_fixed`]); the blocked and pending steps continue their
    /// thread's steps in scope order after its last event (a pending step of an item the
    /// thread already ran is refused, the very step of its last event too); a thread's
    /// blocked steps after its first are alternatives (a thread at a choice waits on each
    /// branch), each checked as continuing the thread's events; a variable declared local
    /// ([`TraceBuilder::local`](crate::TraceBuilder::local)) is read and written by one
    /// thread only. Reads from earlier events that write the variable are the
    /// [`TraceBuilder`](crate::TraceBuilder)'s own check, which every trace passed.
    ///
    /// # Errors
    /// The first misfit, as a [`Error`] whose message names the step (`event 3`,
    /// `pending step 0`), its thread and its label with the space's names.
    pub fn check_against(&self, space: &Space) -> Result<(), Error> {
        let mut tops = Tops::default();
        let mut order = Order::default();
        let mut scopes = ScopeTracker::default();
        let mut locals = Locals::new(self.locals());
        let steps = [("event", self.events()), ("blocked step", self.blocked()), ("pending step", self.pending())];
        let mut position = 0;
        let finished = self.final_checks().next().is_some();
        // A thread waiting at a choice waits on every branch: its blocked steps are
        // alternatives, each continuing the thread's events (not the blocked step before it).
        let mut after_events: Option<(Order, ScopeTracker)> = None;
        let mut blocked_threads = BTreeSet::new();
        for (what, events) in steps {
            for (index, event) in events.iter().enumerate() {
                let at = Place { what, index, event, space };
                if finished && what != "event" {
                    let problem = "the trace has a final check, which runs once every thread has finished: no \
                                   step is blocked or pending";
                    return Err(at.error(ErrorKind::FinalCheck, problem.to_owned()));
                }
                if event.is_final_check() {
                    // No scope and no location of the space; it may read any thread's
                    // locals. The builder placed it after every thread's step and kept it
                    // from writing.
                    (order.position, locals.position, position) =
                        (order.position + 1, locals.position + 1, position + 1);
                    continue;
                }
                check_loc(&at)?;
                check_scope(&at)?;
                tops.check(&at)?;
                let base = (what == "blocked step")
                    .then(|| &*after_events.get_or_insert_with(|| (order.clone(), scopes.clone())));
                match base {
                    Some((base_order, base_scopes)) if !blocked_threads.insert(event.thread) => {
                        let (mut alt_order, mut alt_scopes) = (base_order.clone(), base_scopes.clone());
                        alt_order.position = position;
                        self.check_order(&at, position, &mut alt_order, &mut alt_scopes)?;
                        order.position += 1;
                    }
                    _ => self.check_order(&at, position, &mut order, &mut scopes)?,
                }
                locals.check(&at, self)?;
                position += 1;
            }
        }
        Ok(())
    }

    /// The step at `at` (at `position` among all steps) continues its thread's scopes and
    /// runs no item against a pair the space fixes.
    fn check_order(
        &self,
        at: &Place<'_>,
        position: usize,
        order: &mut Order,
        scopes: &mut ScopeTracker,
    ) -> Result<(), Error> {
        let event = at.event;
        // The events passed this check in the builder: replayed, they place each thread for
        // its blocked and pending steps.
        let runs_once = at.space.item_info(event.loc).is_some_and(|info| info.atomic);
        scopes.step(event, position, runs_once).map_err(|problem| scope_error(at, problem, self))?;
        order.check(at, self)
    }
}

/// The step at `position` in the sequence of events, blocked steps and pending steps, as a
/// message names it (`event 3`), and with its label when `labelled` (`event 3 (at `A1`)`).
fn step_name(trace: &Trace, space: &Space, position: usize, labelled: bool) -> String {
    let parts = [("event", trace.events()), ("blocked step", trace.blocked()), ("pending step", trace.pending())];
    let mut index = position;
    for (what, events) in parts {
        match events.get(index) {
            Some(event) if labelled => return format!("{what} {index} (at {})", loc_name(space, event.loc)),
            Some(_) => return format!("{what} {index}"),
            None => index -= events.len(),
        }
    }
    format!("step {position}")
}

fn scope_error(at: &Place<'_>, problem: ScopeProblem, trace: &Trace) -> Error {
    let space = at.space;
    let thread = thread_name(space, at.event.thread);
    let problem = match problem {
        ScopeProblem::Empty => return at.error(ErrorKind::EmptyScope, "its scope is empty".to_owned()),
        ScopeProblem::TopDiffers => format!("its top block instance differs from the one {thread} runs"),
        ScopeProblem::ReturnsTo { item, at: entered } => format!(
            "{thread} already ran {} at {} and went on to another item of its block: a step after the \
             thread's last event must come after it in the thread's order",
            loc_name(space, item),
            step_name(trace, space, entered, false)
        ),
        ScopeProblem::Repeats { item, at: entered } => format!(
            "{thread} already ran {} at {} in the same block instance: a step after the thread's last event \
             must come after it in the thread's order",
            loc_name(space, item),
            step_name(trace, space, entered, false)
        ),
        ScopeProblem::ReEnters { instance } => format!(
            "it re-enters instance {} of {}, which {thread} already left",
            instance.instance,
            block_name(space, instance.block)
        ),
    };
    at.error(ErrorKind::ScopeOrder, problem)
}

/// The items each thread ran in each block instance, in the order it entered them, with the
/// position of the step that entered each: a new item must not be fixed before an earlier one.
#[derive(Clone, Default)]
struct Order {
    items: BTreeMap<(ThreadId, BlockInstance), Ran>,
    position: usize,
}

/// The items a thread ran in one block instance, with the position of the step that entered
/// each, and the largest original index among them: a space fixes an item only before items
/// after it in the original order, so an item past that index is fixed before none of them
/// (a thread that runs its block in the original order is checked without a scan).
#[derive(Clone, Default)]
struct Ran {
    list: Vec<(Loc, usize)>,
    last_index: Option<usize>,
}

impl Order {
    fn check(&mut self, at: &Place<'_>, trace: &Trace) -> Result<(), Error> {
        let (space, event) = (at.space, at.event);
        let position = self.position;
        self.position += 1;
        for entry in &event.scope {
            let ran = self.items.entry((event.thread, entry.instance)).or_default();
            if ran.list.last().is_some_and(|&(item, _)| item == entry.item) {
                continue;
            }
            let index = space.item_position(entry.item).map(|(_, i)| i);
            let may_be_fixed = index.is_some() && ran.last_index >= index;
            let found = if may_be_fixed {
                ran.list.iter().find(|&&(earlier, _)| space.is_fixed(entry.item, earlier))
            } else {
                None
            };
            if let Some(&(earlier, when)) = found {
                let (item, earlier) = (loc_name(space, entry.item), loc_name(space, earlier));
                let problem = format!(
                    "{} runs {item} after {earlier} (at {}), but the space fixes {item} before {earlier}",
                    thread_name(space, event.thread),
                    step_name(trace, space, when, false)
                );
                return Err(at.error(ErrorKind::FixedOrder, problem));
            }
            ran.list.push((entry.item, position));
            ran.last_index = ran.last_index.max(index);
        }
        Ok(())
    }
}

/// The thread that first read or wrote each variable declared local, with that step.
struct Locals<'a> {
    locals: &'a [VarId],
    owner: BTreeMap<VarId, (ThreadId, usize)>,
    position: usize,
}

impl<'a> Locals<'a> {
    fn new(locals: &'a [VarId]) -> Self {
        Locals { locals, owner: BTreeMap::new(), position: 0 }
    }

    fn check(&mut self, at: &Place<'_>, trace: &Trace) -> Result<(), Error> {
        let (space, event) = (at.space, at.event);
        let position = self.position;
        self.position += 1;
        if self.locals.is_empty() {
            return Ok(());
        }
        let reads = event.reads.iter().map(|r| ("reads", r.var));
        let writes = event.writes.iter().map(|w| ("writes", w.var));
        for (verb, var) in reads.chain(writes) {
            if self.locals.binary_search(&var).is_err() {
                continue;
            }
            let &mut (owner, first) = self.owner.entry(var).or_insert((event.thread, position));
            if owner != event.thread {
                let problem = format!(
                    "it {verb} {var}, a local variable of {} (first used at {}): a local belongs to one thread",
                    thread_name(space, owner),
                    step_name(trace, space, first, true)
                );
                return Err(at.error(ErrorKind::SharedLocal, problem));
            }
        }
        Ok(())
    }
}

/// One step of a trace, for messages.
struct Place<'a> {
    what: &'static str,
    index: usize,
    event: &'a Event,
    space: &'a Space,
}

impl Place<'_> {
    fn error(&self, kind: ErrorKind, problem: String) -> Error {
        let (space, event) = (self.space, self.event);
        let thread = thread_name(space, event.thread);
        if event.is_final_check() {
            return Error::new(kind, format!("{} {} ({thread}): {problem}", self.what, self.index));
        }
        let label = loc_name(space, event.loc);
        Error::new(kind, format!("{} {} ({thread}, at {label}): {problem}", self.what, self.index))
    }
}

fn check_loc(at: &Place<'_>) -> Result<(), Error> {
    if at.event.loc.index() >= at.space.loc_count() {
        let count = at.space.loc_count();
        return Err(at.error(ErrorKind::UnknownLoc, format!("the space has {count} locations only")));
    }
    Ok(())
}

fn check_scope(at: &Place<'_>) -> Result<(), Error> {
    let (space, event) = (at.space, at.event);
    let Some(innermost) = event.scope.last() else {
        return Err(at.error(ErrorKind::EmptyScope, "its scope is empty".to_owned()));
    };
    for (level, entry) in event.scope.iter().enumerate() {
        let block = entry.instance.block;
        if block.index() >= space.block_count() {
            let count = space.block_count();
            let problem =
                format!("its scope (level {level}) names block {}, but the space has {count} blocks", block.index());
            return Err(at.error(ErrorKind::UnknownBlock, problem));
        }
        if space.block_of(entry.item) != Some(block) {
            let (item, named) = (loc_name(space, entry.item), block_name(space, block));
            let problem = format!("its scope (level {level}) puts {item} in {named}, which does not hold it");
            return Err(at.error(ErrorKind::ScopeMismatch, problem));
        }
    }
    if space.block_of(event.loc).is_some() && innermost.item != event.loc {
        let item = loc_name(space, innermost.item);
        let problem = format!("its innermost scope item is {item}, not its own location, which is an item");
        return Err(at.error(ErrorKind::ScopeMismatch, problem));
    }
    Ok(())
}

/// The top block of each thread seen so far, and the thread of each such block.
#[derive(Default)]
struct Tops {
    block_of: BTreeMap<ThreadId, BlockId>,
    thread_of: BTreeMap<BlockId, ThreadId>,
}

impl Tops {
    fn check(&mut self, at: &Place<'_>) -> Result<(), Error> {
        let (space, event) = (at.space, at.event);
        let top = event.scope[0].instance.block;
        let declared = space.threads().len();
        if declared > 0 {
            match space.thread(event.thread) {
                None => {
                    let problem = format!("the space declares {declared} threads, numbered from 0");
                    return Err(at.error(ErrorKind::UnknownThread, problem));
                }
                Some((_, block)) if block != top => {
                    let problem =
                        format!("it runs {}, not its thread's {}", block_name(space, top), block_name(space, block));
                    return Err(at.error(ErrorKind::ThreadBlock, problem));
                }
                Some(_) => {}
            }
        }
        if let Some(&block) = self.block_of.get(&event.thread) {
            if block != top {
                let problem =
                    format!("it runs {}, but its thread runs {}", block_name(space, top), block_name(space, block));
                return Err(at.error(ErrorKind::ThreadBlock, problem));
            }
        }
        if let Some(&other) = self.thread_of.get(&top) {
            if other != event.thread {
                let problem = format!("it runs {}, which {} runs", block_name(space, top), thread_name(space, other));
                return Err(at.error(ErrorKind::ThreadBlock, problem));
            }
        }
        self.block_of.insert(event.thread, top);
        self.thread_of.insert(top, event.thread);
        Ok(())
    }
}
