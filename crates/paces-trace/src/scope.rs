//! Each thread's place in its blocks, step by step: the scope order that
//! [`TraceBuilder`](crate::TraceBuilder) checks as events come and
//! [`Trace::check_against`](crate::Trace::check_against) replays over a whole trace.

use paces_constraint::Loc;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::{BlockInstance, Event, ScopeEntry, ThreadId};

#[derive(Clone, Default)]
struct ThreadState {
    top: Option<BlockInstance>,
    last_scope: Vec<ScopeEntry>,
    /// For each level of `last_scope`, the position of the step that entered its item.
    since: Vec<usize>,
    /// The location of the thread's last step.
    last_loc: Option<Loc>,
    /// Instances this thread has entered (open or left).
    entered: FxHashSet<BlockInstance>,
    /// Items already left in each open instance, with the position of the step that entered
    /// each.
    done_items: FxHashMap<BlockInstance, FxHashMap<Loc, usize>>,
}

/// Why a step does not continue its thread's scope (see [`ScopeTracker::step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeProblem {
    /// The step has an empty scope.
    Empty,
    /// The step's top block instance differs from the thread's.
    TopDiffers,
    /// The step returns to `item` of `instance`, which the thread entered at step `at` and left.
    ReturnsTo { item: Loc, at: usize },
    /// The step re-enters a block instance that the thread left.
    ReEnters { instance: BlockInstance },
    /// The step is an item that runs as one step (its location is its innermost item) that
    /// the thread's last step, at position `at`, already ran in the same block instance: such
    /// an item runs once per instance.
    Repeats { item: Loc, at: usize },
}

/// Each thread's place in its blocks, step by step: the scope order of [`TraceBuilder`](crate::TraceBuilder),
/// also replayed over a whole trace by [`Trace::check_against`](crate::Trace::check_against) (blocked and pending steps after
/// the events).
#[derive(Clone, Default)]
pub(crate) struct ScopeTracker {
    threads: FxHashMap<ThreadId, ThreadState>,
}

impl ScopeTracker {
    /// Checks that `event`, at `position` in the sequence of steps, continues its thread's
    /// scope and, only when it does, records it: a refused step leaves the tracker as it was.
    /// `runs_once` says that the event's location is an item that runs as one step (the
    /// space's [`ItemInfo::atomic`](paces_constraint::ItemInfo)): such an item runs once per
    /// block instance, so the step of the thread's last step again is refused.
    pub(crate) fn step(&mut self, event: &Event, position: usize, runs_once: bool) -> Result<(), ScopeProblem> {
        let Some(first) = event.scope.first() else {
            return Err(ScopeProblem::Empty);
        };
        let state = self.threads.get(&event.thread);
        if state.and_then(|s| s.top).is_some_and(|top| top != first.instance) {
            return Err(ScopeProblem::TopDiffers);
        }
        let prev: &[ScopeEntry] = state.map_or(&[], |s| &s.last_scope);
        // An item that runs as one step runs once per instance: the same step again, at the
        // same place, is a step the thread already took (a pending step it ran, say). (A
        // compound item's own location may stand for several steps, such as a loop's test.)
        let innermost = event.scope.last().map(|e| e.item);
        if runs_once
            && innermost == Some(event.loc)
            && prev == &event.scope[..]
            && state.is_some_and(|s| s.last_loc == Some(event.loc))
        {
            let at = state.and_then(|s| s.since.last().copied()).unwrap_or(position);
            return Err(ScopeProblem::Repeats { item: event.loc, at });
        }
        // Length of the common prefix (same instance and same item) with the previous event.
        let mut k = 0;
        while k < prev.len() && k < event.scope.len() && prev[k] == event.scope[k] {
            k += 1;
        }
        // The previous event left every instance strictly below level k, and, at level k,
        // the item it stood in (when the instance is the same).
        let same_instance_at_k = k < prev.len() && k < event.scope.len() && prev[k].instance == event.scope[k].instance;
        let first_left = if same_instance_at_k { k + 1 } else { k };
        if same_instance_at_k {
            let entry = event.scope[k];
            let done = state.and_then(|s| s.done_items.get(&entry.instance));
            if let Some(&at) = done.and_then(|d| d.get(&entry.item)) {
                return Err(ScopeProblem::ReturnsTo { item: entry.item, at });
            }
        }
        // Below the level where the event parts from the previous one, every instance must be
        // new: an instance already entered was left (or is above), and one instance cannot
        // stand at two levels.
        let fresh = &event.scope[first_left..];
        for (i, entry) in fresh.iter().enumerate() {
            let seen = state.is_some_and(|s| s.entered.contains(&entry.instance))
                || event.scope[..first_left].iter().any(|e| e.instance == entry.instance)
                || fresh[..i].iter().any(|e| e.instance == entry.instance);
            if seen {
                return Err(ScopeProblem::ReEnters { instance: entry.instance });
            }
        }
        // Everything checked: record the event.
        let left: Vec<ScopeEntry> = prev.get(first_left..).unwrap_or(&[]).to_vec();
        let left_item = same_instance_at_k.then(|| (prev[k], state.map_or(position, |s| s.since[k])));
        let state = self.threads.entry(event.thread).or_default();
        state.top.get_or_insert(first.instance);
        if let Some((entry, at)) = left_item {
            state.done_items.entry(entry.instance).or_default().insert(entry.item, at);
        }
        for entry in &left {
            state.done_items.remove(&entry.instance);
        }
        for entry in fresh {
            state.entered.insert(entry.instance);
        }
        // The levels the event shares with the previous one keep their entering step; the
        // others are entered now.
        state.since.truncate(k);
        state.since.resize(event.scope.len(), position);
        state.last_scope = event.scope.clone();
        state.last_loc = Some(event.loc);
        Ok(())
    }
}
