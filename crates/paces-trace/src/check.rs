//! A trace checked against a space: every thread, location, block and scope entry the trace
//! names must be the space's, so that what is learned from it speaks of the space's items.

use std::collections::BTreeMap;

use paces_constraint::{BlockId, Loc, Space};

use crate::{Event, ThreadId, Trace, TraceError, TraceErrorKind};

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
    /// # Errors
    /// The first misfit, as a [`TraceError`] whose message names the step (`event 3`,
    /// `pending step 0`), its thread and its label with the space's names.
    pub fn check_against(&self, space: &Space) -> Result<(), TraceError> {
        let mut tops = Tops::default();
        let steps = [("event", self.events()), ("blocked step", self.blocked()), ("pending step", self.pending())];
        for (what, events) in steps {
            for (index, event) in events.iter().enumerate() {
                let at = Place { what, index, event, space };
                check_loc(&at)?;
                check_scope(&at)?;
                tops.check(&at)?;
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
    fn error(&self, kind: TraceErrorKind, problem: String) -> TraceError {
        let (space, event) = (self.space, self.event);
        let thread = thread_name(space, event.thread);
        let label = loc_name(space, event.loc);
        TraceError::new(kind, format!("{} {} ({thread}, at {label}): {problem}", self.what, self.index))
    }
}

/// A location as a message shows it: its name in backquotes, or its number when the space
/// does not have it.
fn loc_name(space: &Space, loc: Loc) -> String {
    if loc.index() < space.loc_count() {
        format!("`{}`", space.name(loc))
    } else {
        format!("location {}", loc.index())
    }
}

/// A thread as a message shows it: its declared name, or its number.
fn thread_name(space: &Space, thread: ThreadId) -> String {
    match space.thread(thread.index()) {
        Some((name, _)) => format!("thread `{name}`"),
        None => format!("thread {}", thread.index()),
    }
}

/// A block as a message shows it: its number and its first items.
fn block_name(space: &Space, block: BlockId) -> String {
    let items = space.items(block);
    let mut names: Vec<String> = items.iter().take(3).map(|&l| format!("`{}`", space.name(l))).collect();
    if items.len() > 3 {
        names.push("...".to_owned());
    }
    format!("block {} ({})", block.index(), names.join(", "))
}

fn check_loc(at: &Place<'_>) -> Result<(), TraceError> {
    if at.event.loc.index() >= at.space.loc_count() {
        let count = at.space.loc_count();
        return Err(at.error(TraceErrorKind::UnknownLoc, format!("the space has {count} locations only")));
    }
    Ok(())
}

fn check_scope(at: &Place<'_>) -> Result<(), TraceError> {
    let (space, event) = (at.space, at.event);
    let Some(innermost) = event.scope.last() else {
        return Err(at.error(TraceErrorKind::EmptyScope, "its scope is empty".to_owned()));
    };
    for (level, entry) in event.scope.iter().enumerate() {
        let block = entry.instance.block;
        if block.index() >= space.block_count() {
            let count = space.block_count();
            let problem =
                format!("its scope (level {level}) names block {}, but the space has {count} blocks", block.index());
            return Err(at.error(TraceErrorKind::UnknownBlock, problem));
        }
        if space.block_of(entry.item) != Some(block) {
            let (item, named) = (loc_name(space, entry.item), block_name(space, block));
            let problem = format!("its scope (level {level}) puts {item} in {named}, which does not hold it");
            return Err(at.error(TraceErrorKind::ScopeMismatch, problem));
        }
    }
    if space.block_of(event.loc).is_some() && innermost.item != event.loc {
        let item = loc_name(space, innermost.item);
        let problem = format!("its innermost scope item is {item}, not its own location, which is an item");
        return Err(at.error(TraceErrorKind::ScopeMismatch, problem));
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
    fn check(&mut self, at: &Place<'_>) -> Result<(), TraceError> {
        let (space, event) = (at.space, at.event);
        let top = event.scope[0].instance.block;
        let declared = space.threads().len();
        if declared > 0 {
            match space.thread(event.thread.index()) {
                None => {
                    let problem = format!("the space declares {declared} threads, numbered from 0");
                    return Err(at.error(TraceErrorKind::UnknownThread, problem));
                }
                Some((_, block)) if block != top => {
                    let problem =
                        format!("it runs {}, not its thread's {}", block_name(space, top), block_name(space, block));
                    return Err(at.error(TraceErrorKind::ThreadBlock, problem));
                }
                Some(_) => {}
            }
        }
        if let Some(&block) = self.block_of.get(&event.thread) {
            if block != top {
                let problem =
                    format!("it runs {}, but its thread runs {}", block_name(space, top), block_name(space, block));
                return Err(at.error(TraceErrorKind::ThreadBlock, problem));
            }
        }
        if let Some(&other) = self.thread_of.get(&top) {
            if other != event.thread {
                let problem = format!("it runs {}, which {} runs", block_name(space, top), thread_name(space, other));
                return Err(at.error(TraceErrorKind::ThreadBlock, problem));
            }
        }
        self.block_of.insert(event.thread, top);
        self.thread_of.insert(top, event.thread);
        Ok(())
    }
}
