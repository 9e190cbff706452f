//! How trace errors name the space's threads, locations and blocks.

use paces_constraint::{BlockId, Loc, Space};

use crate::ThreadId;

/// A location as a message shows it: its name in backquotes, or its number when the space
/// does not have it.
pub(crate) fn loc_name(space: &Space, loc: Loc) -> String {
    if loc.index() < space.loc_count() {
        format!("`{}`", space.name(loc))
    } else {
        format!("location {}", loc.index())
    }
}

/// A thread as a message shows it: its declared name, or its number.
pub(crate) fn thread_name(space: &Space, thread: ThreadId) -> String {
    if thread == ThreadId::FINAL {
        return "the final check".to_owned();
    }
    match space.thread(thread) {
        Some((name, _)) => format!("thread `{name}`"),
        None => format!("thread {}", thread.index()),
    }
}

/// A block as a message shows it: its number and its first items.
pub(crate) fn block_name(space: &Space, block: BlockId) -> String {
    let items = space.items(block);
    let mut names: Vec<String> = items.iter().take(3).map(|&l| format!("`{}`", space.name(l))).collect();
    if items.len() > 3 {
        names.push("...".to_owned());
    }
    format!("block {} ({})", block.index(), names.join(", "))
}
