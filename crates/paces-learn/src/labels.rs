//! The client's own labels on a space's locations and threads.

use paces_constraint::{BlockId, Candidate, Loc};
use paces_trace::ThreadId;

/// A side table from a space's locations and threads to the client's own values (its
/// statements, its thread handles), so that a candidate reads back as the client's statements
/// without maps of the client's own. Messages, candidates and fixes are shown with the space's
/// names (the strings given to `SpaceBuilder::loc` and `SpaceBuilder::thread`); this table is
/// for the client's code.
///
/// # Example
/// ```
/// use paces_learn::constraint::{Candidate, ItemInfo, SpaceBuilder};
/// use paces_learn::Labels;
///
/// // The client's statements: (thread, index) pairs.
/// let mut b = SpaceBuilder::new();
/// let mut labels = Labels::<(usize, usize)>::new();
/// let block = b.open_block();
/// for (i, name) in ["A", "B", "C"].iter().enumerate() {
///     let loc = b.add_item(block, name, ItemInfo::SIMPLE)?;
///     labels.set_loc(loc, (0, i));
/// }
/// let space = b.build()?;
/// let [a, bb, c] = ["A", "B", "C"].map(|n| space.loc(n).unwrap());
/// let candidate = Candidate::new(&space, vec![vec![c, a, bb]], &[(a, bb)])?;
/// assert_eq!(labels.units(&candidate, block), [vec![&(0, 2)], vec![&(0, 0), &(0, 1)]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Labels<L, T = L> {
    locs: Vec<Option<L>>,
    threads: Vec<Option<T>>,
}

impl<L, T> Default for Labels<L, T> {
    fn default() -> Self {
        Labels { locs: Vec::new(), threads: Vec::new() }
    }
}

/// Puts `value` at `index`, growing `table` with empty places.
fn put<V>(table: &mut Vec<Option<V>>, index: usize, value: V) {
    if table.len() <= index {
        table.resize_with(index + 1, || None);
    }
    table[index] = Some(value);
}

impl<L, T> Labels<L, T> {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Labels a location (a later label replaces an earlier one).
    pub fn set_loc(&mut self, loc: Loc, label: L) -> &mut Self {
        put(&mut self.locs, loc.index(), label);
        self
    }

    /// Labels a thread (a later label replaces an earlier one).
    pub fn set_thread(&mut self, thread: ThreadId, label: T) -> &mut Self {
        put(&mut self.threads, thread.index(), label);
        self
    }

    /// A location's label.
    pub fn loc(&self, loc: Loc) -> Option<&L> {
        self.locs.get(loc.index()).and_then(Option::as_ref)
    }

    /// A thread's label.
    pub fn thread(&self, thread: ThreadId) -> Option<&T> {
        self.threads.get(thread.index()).and_then(Option::as_ref)
    }

    /// The first location labelled `label`.
    pub fn find_loc(&self, label: &L) -> Option<Loc>
    where
        L: PartialEq,
    {
        let index = self.locs.iter().position(|l| l.as_ref() == Some(label))?;
        Some(Loc::from_u32(u32::try_from(index).ok()?))
    }

    /// The first thread labelled `label`.
    pub fn find_thread(&self, label: &T) -> Option<ThreadId>
    where
        T: PartialEq,
    {
        let index = self.threads.iter().position(|t| t.as_ref() == Some(label))?;
        Some(ThreadId::from_u32(u32::try_from(index).ok()?))
    }

    /// A block of `candidate` as labels, in the candidate's order, cut into the units that
    /// run as one step: an atomic section is one unit, every other item a unit of its own. An
    /// item with no label is left out (a unit of unlabelled items only is left out whole).
    pub fn units(&self, candidate: &Candidate, block: BlockId) -> Vec<Vec<&L>> {
        let order = candidate.order(block);
        let mut units: Vec<Vec<&L>> = Vec::new();
        for (i, &loc) in order.iter().enumerate() {
            if i == 0 || !candidate.in_one_section(order[i - 1], loc) {
                units.push(Vec::new());
            }
            if let Some(label) = self.loc(loc) {
                units.last_mut().expect("a unit was pushed").push(label);
            }
        }
        units.retain(|unit| !unit.is_empty());
        units
    }
}
