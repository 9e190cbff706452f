//! The space of programs reachable by the allowed transformations.

use rustc_hash::FxHashMap;

use crate::{BlockId, Error, ErrorKind, Loc, ThreadId};

/// Where an item waits: whether it is a preemption point, and whether its first step is its
/// only wait.
///
/// An added atomic section runs all or nothing, so it may hold items of every kind; what this
/// says is whether a transformation acts across a preemption point (a swap with a preemption
/// point, or a section holding one anywhere but first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Waits {
    /// The item holds no wait: it is no preemption point.
    Never,
    /// The item's only wait is its very first step (an `await`, `lock` or `down`).
    First,
    /// The item holds a wait that is not its first step.
    Inside,
}

/// What the space knows of one item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ItemInfo {
    /// The number of simple statements the item holds (1 for a simple statement; a compound
    /// item counts everything in it, through calls). This is what an atomic section around
    /// the item costs.
    pub weight: u32,
    /// Where the item waits.
    pub waits: Waits,
    /// Whether the item already runs as one step (a simple statement, `lock`, `down`, a user
    /// `atomic` block, a `noreorder` of one step): it never needs a section of its own.
    pub atomic: bool,
    /// Whether the item is kept out of added atomic sections: no section holds it, alone or
    /// with others (a frontend marks so the items that start or join threads, where a section
    /// would run threads one after the other). False unless set with
    /// [`ItemInfo::never_in_section`].
    pub no_section: bool,
}

impl ItemInfo {
    /// A simple statement that is not a wait: weight 1, no wait, already atomic.
    pub const SIMPLE: ItemInfo = ItemInfo { weight: 1, waits: Waits::Never, atomic: true, no_section: false };
    /// A simple `await`: weight 1, waits first, already atomic.
    pub const AWAIT: ItemInfo = ItemInfo { weight: 1, waits: Waits::First, atomic: true, no_section: false };

    /// A compound item of `weight` simple statements that waits as `waits` and is not atomic
    /// by itself (so a section may hold it alone when `weight` is at least 2).
    pub const fn compound(weight: u32, waits: Waits) -> ItemInfo {
        ItemInfo { weight, waits, atomic: false, no_section: false }
    }

    /// Any item: its weight, where it waits, and whether it already runs as one step.
    pub const fn new(weight: u32, waits: Waits, atomic: bool) -> ItemInfo {
        ItemInfo { weight, waits, atomic, no_section: false }
    }

    /// The same item kept out of added atomic sections ([`ItemInfo::no_section`]).
    pub const fn never_in_section(self) -> ItemInfo {
        ItemInfo { no_section: true, ..self }
    }

    /// Whether the item is a preemption point (a wait, or an item holding one).
    pub fn is_preemption_point(&self) -> bool {
        self.waits != Waits::Never
    }

    /// Whether an atomic section may hold the item alone: it is not atomic by itself, holds
    /// at least two simple statements and is not kept out of sections. Every other item
    /// satisfies `[a; a]` trivially.
    pub fn takes_section_alone(&self) -> bool {
        !self.atomic && self.weight >= 2 && !self.no_section
    }
}

#[derive(Clone, Debug)]
struct BlockData {
    items: Vec<Loc>,
    info: Vec<ItemInfo>,
    closed: bool,
    /// Direct fixed pairs as (earlier, later) item indices, sorted, without duplicates.
    fixed: Vec<(u32, u32)>,
    /// Which pairs the transitive closure of `fixed` orders.
    closure: Closure,
}

/// The transitive closure of a block's fixed pairs, in whichever form is smaller: the pairs
/// it leaves free (a long block whose items mostly conflict has few), or a bit matrix (a
/// block whose items mostly commute).
#[derive(Clone, Debug)]
enum Closure {
    /// The items after item `i` that it need not precede are `free[start[i]..start[i + 1]]`,
    /// sorted.
    Free { start: Vec<u32>, free: Vec<u32> },
    /// Bit `j` of row `i` is set when item `i` must precede item `j`; rows of `words` words.
    Bits { bits: Vec<u64>, words: usize },
}

impl BlockData {
    fn must_precede(&self, i: usize, j: usize) -> bool {
        match &self.closure {
            Closure::Free { start, free } => {
                i < j && free[start[i] as usize..start[i + 1] as usize].binary_search(&(j as u32)).is_err()
            }
            Closure::Bits { bits, words } => bits[i * words + j / 64] >> (j % 64) & 1 == 1,
        }
    }
}

impl Closure {
    /// The closure of `fixed` (sorted direct pairs) over `n` items.
    fn new(n: usize, fixed: &[(u32, u32)]) -> Closure {
        let mut succ: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(i, j) in fixed {
            succ[i as usize].push(j);
        }
        // A list entry takes 32 bits, a matrix cell one: lists while they stay smaller.
        let budget = (n * n / 32).min(u32::MAX as usize);
        Closure::free_lists(&succ, budget).unwrap_or_else(|| Closure::bits(&succ))
    }

    /// The free lists, or `None` when they would hold more than `budget` entries.
    ///
    /// From the last item back: an item with no direct successor is free with everything
    /// after it; otherwise it is free with a later item `e` exactly when, for each direct
    /// successor `j`, `e` comes before `j` or is free with `j` (else `e` is reached through
    /// `j`).
    fn free_lists(succ: &[Vec<u32>], budget: usize) -> Option<Closure> {
        let n = succ.len();
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut total = 0usize;
        for i in (0..n).rev() {
            let list = match succ[i].split_first() {
                None => (i as u32 + 1..n as u32).collect(),
                Some((&first, rest)) => {
                    let mut list: Vec<u32> = (i as u32 + 1..first).collect();
                    list.extend_from_slice(&lists[first as usize]);
                    for &j in rest {
                        let free_of_j = &lists[j as usize];
                        list.retain(|&e| e < j || free_of_j.binary_search(&e).is_ok());
                    }
                    list
                }
            };
            total += list.len();
            if total > budget {
                return None;
            }
            lists[i] = list;
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut free = Vec::with_capacity(total);
        start.push(0);
        for list in lists {
            free.extend_from_slice(&list);
            start.push(free.len() as u32);
        }
        Some(Closure::Free { start, free })
    }

    /// The bit matrix: rows from the last item back, row(i) = union over direct successors
    /// `j` of {j} and row(j).
    fn bits(succ: &[Vec<u32>]) -> Closure {
        let n = succ.len();
        let words = n.div_ceil(64).max(1);
        let mut bits = vec![0u64; n * words];
        for i in (0..n).rev() {
            for &j in &succ[i] {
                let j = j as usize;
                bits[i * words + j / 64] |= 1 << (j % 64);
                for w in 0..words {
                    let row = bits[j * words + w];
                    bits[i * words + w] |= row;
                }
            }
        }
        Closure::Bits { bits, words }
    }
}

/// A block under construction: items, their infos, closed, direct fixed pairs.
type DraftBlock = (Vec<Loc>, Vec<ItemInfo>, bool, Vec<(u32, u32)>);

/// Builds a [`Space`]; every method validates its input.
///
/// # Example
/// ```
/// use paces_constraint::{ItemInfo, SpaceBuilder};
/// let mut b = SpaceBuilder::new();
/// let block = b.block(false);
/// let x = b.loc("A")?;
/// let y = b.loc("B")?;
/// b.item(block, x, ItemInfo::SIMPLE)?;
/// b.item(block, y, ItemInfo::SIMPLE)?;
/// b.fix(x, y)?; // A and B do not commute
/// let space = b.build()?;
/// assert!(space.is_fixed(x, y));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SpaceBuilder {
    names: Vec<String>,
    by_name: FxHashMap<String, Loc>,
    loc_item: Vec<Option<(BlockId, u32)>>,
    blocks: Vec<DraftBlock>,
    threads: Vec<(String, BlockId)>,
}

impl SpaceBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a location under a unique name.
    ///
    /// # Errors
    /// [`ErrorKind::DuplicateLoc`] when the name is taken.
    pub fn loc(&mut self, name: &str) -> Result<Loc, Error> {
        if self.by_name.contains_key(name) {
            return Err(Error::new(ErrorKind::DuplicateLoc, format!("location `{name}` is defined twice")));
        }
        let loc = Loc::new(self.names.len()).ok_or_else(|| Error::new(ErrorKind::TooMany, "too many locations"))?;
        self.names.push(name.to_owned());
        self.by_name.insert(name.to_owned(), loc);
        self.loc_item.push(None);
        Ok(loc)
    }

    /// Adds a new empty block; `closed` blocks never receive atomic sections (the body of a
    /// user-written `atomic`). Blocks are numbered from 0 in the order they are added.
    /// [`SpaceBuilder::open_block`] and [`SpaceBuilder::closed_block`] say which by name.
    ///
    /// # Panics
    /// When the builder already holds 2^32 blocks (memory runs out long before).
    pub fn block(&mut self, closed: bool) -> BlockId {
        let id = BlockId::new(self.blocks.len()).expect("fewer than 2^32 blocks");
        self.blocks.push((Vec::new(), Vec::new(), closed, Vec::new()));
        id
    }

    /// Adds a new empty block that may receive atomic sections (a thread's body, a loop's
    /// body): [`SpaceBuilder::block`]`(false)`.
    ///
    /// # Panics
    /// As [`SpaceBuilder::block`].
    pub fn open_block(&mut self) -> BlockId {
        self.block(false)
    }

    /// Adds a new empty block that never receives atomic sections (the body of a
    /// user-written `atomic`): [`SpaceBuilder::block`]`(true)`.
    ///
    /// # Panics
    /// As [`SpaceBuilder::block`].
    pub fn closed_block(&mut self) -> BlockId {
        self.block(true)
    }

    /// Registers a location under `name` and appends it as the next item of `block`, in one
    /// call ([`SpaceBuilder::loc`] then [`SpaceBuilder::item`]). An unknown block is refused
    /// before the name is taken.
    ///
    /// # Errors
    /// As [`SpaceBuilder::loc`] and [`SpaceBuilder::item`].
    pub fn add_item(&mut self, block: BlockId, name: &str, info: ItemInfo) -> Result<Loc, Error> {
        if block.index() >= self.blocks.len() {
            return Err(Error::new(ErrorKind::UnknownBlock, format!("unknown block {block}")));
        }
        let loc = self.loc(name)?;
        self.item(block, loc, info)?;
        Ok(loc)
    }

    /// Declares the next thread (numbered from 0 in the order declared) under a name, running
    /// `block` as its top block. Optional: a space with declared threads lets a trace be
    /// checked for thread numbers and top blocks, and names its threads in messages.
    ///
    /// # Errors
    /// [`ErrorKind::UnknownBlock`], or [`ErrorKind::DuplicateItem`] when another thread
    /// already runs `block`.
    pub fn thread(&mut self, name: &str, block: BlockId) -> Result<ThreadId, Error> {
        if block.index() >= self.blocks.len() {
            return Err(Error::new(ErrorKind::UnknownBlock, format!("unknown block {block}")));
        }
        if let Some((other, _)) = self.threads.iter().find(|(_, b)| *b == block) {
            let message = format!("threads `{other}` and `{name}` run one block");
            return Err(Error::new(ErrorKind::DuplicateItem, message));
        }
        let id = ThreadId::new(self.threads.len())
            .filter(|&id| id != ThreadId::FINAL)
            .ok_or_else(|| Error::new(ErrorKind::TooMany, "too many threads"))?;
        self.threads.push((name.to_owned(), block));
        Ok(id)
    }

    /// Appends `loc` as the next item of `block`, in original order.
    ///
    /// # Errors
    /// Unknown block or location, or a location that already is an item.
    pub fn item(&mut self, block: BlockId, loc: Loc, info: ItemInfo) -> Result<(), Error> {
        let name = self.name(loc)?.to_owned();
        let data = self
            .blocks
            .get_mut(block.index())
            .ok_or_else(|| Error::new(ErrorKind::UnknownBlock, format!("unknown block {block}")))?;
        if self.loc_item[loc.index()].is_some() {
            return Err(Error::new(ErrorKind::DuplicateItem, format!("`{name}` is already an item of a block")));
        }
        let index = u32::try_from(data.0.len()).map_err(|_| Error::new(ErrorKind::TooMany, "block too large"))?;
        data.0.push(loc);
        data.1.push(info);
        self.loc_item[loc.index()] = Some((block, index));
        Ok(())
    }

    /// Records that item `earlier` must stay before item `later` (they do not commute, or a
    /// `noreorder` holds them). `earlier` must come first in the original order.
    ///
    /// # Errors
    /// [`ErrorKind::NotInOneBlock`] or [`ErrorKind::BadFixedPair`].
    pub fn fix(&mut self, earlier: Loc, later: Loc) -> Result<(), Error> {
        let (b1, i) = self.item_of(earlier)?;
        let (b2, j) = self.item_of(later)?;
        if b1 != b2 {
            return Err(Error::new(
                ErrorKind::NotInOneBlock,
                format!(
                    "`{}` and `{}` are not items of one block",
                    self.names[earlier.index()],
                    self.names[later.index()]
                ),
            ));
        }
        if i >= j {
            return Err(Error::new(
                ErrorKind::BadFixedPair,
                format!(
                    "fixed pair `{}` before `{}` must follow the original order",
                    self.names[earlier.index()],
                    self.names[later.index()]
                ),
            ));
        }
        self.blocks[b1.index()].3.push((i, j));
        Ok(())
    }

    fn name(&self, loc: Loc) -> Result<&str, Error> {
        self.names
            .get(loc.index())
            .map(String::as_str)
            .ok_or_else(|| Error::new(ErrorKind::UnknownLoc, format!("unknown location {loc}")))
    }

    fn item_of(&self, loc: Loc) -> Result<(BlockId, u32), Error> {
        let name = self.name(loc)?;
        self.loc_item[loc.index()]
            .ok_or_else(|| Error::new(ErrorKind::NotInOneBlock, format!("`{name}` is not an item of a block")))
    }

    /// Finishes the space (computes which pairs the fixed pairs leave free to change order).
    ///
    /// # Errors
    /// None today; the `Result` keeps room for checks without an API break.
    pub fn build(self) -> Result<Space, Error> {
        let blocks = self
            .blocks
            .into_iter()
            .map(|(items, info, closed, mut fixed)| {
                fixed.sort_unstable();
                fixed.dedup();
                let closure = Closure::new(items.len(), &fixed);
                BlockData { items, info, closed, fixed, closure }
            })
            .collect();
        Ok(Space { names: self.names, by_name: self.by_name, loc_item: self.loc_item, blocks, threads: self.threads })
    }
}

/// Every program reachable from the original by the allowed transformations: for each block
/// its items in original order, the pairs that keep their order, what it knows of each item
/// ([`ItemInfo`]: weight, waits, already atomic, kept out of sections), and whether the block
/// is closed to atomic sections.
///
/// Built with [`SpaceBuilder`]. Locations that are not items (steps inside a sugar, say) may
/// be registered too, so that traces can name them.
#[derive(Clone, Debug)]
pub struct Space {
    names: Vec<String>,
    by_name: FxHashMap<String, Loc>,
    loc_item: Vec<Option<(BlockId, u32)>>,
    blocks: Vec<BlockData>,
    threads: Vec<(String, BlockId)>,
}

impl Space {
    /// The number of locations.
    pub fn loc_count(&self) -> usize {
        self.names.len()
    }

    /// The name of a location (`?` for a location of another space).
    pub fn name(&self, loc: Loc) -> &str {
        self.names.get(loc.index()).map_or("?", String::as_str)
    }

    /// The location with this name.
    pub fn loc(&self, name: &str) -> Option<Loc> {
        self.by_name.get(name).copied()
    }

    /// All locations, in id order.
    pub fn locs(&self) -> impl ExactSizeIterator<Item = Loc> + '_ {
        (0..self.names.len()).map(|i| Loc::from_u32(i as u32))
    }

    /// The number of blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// All blocks, in id order.
    pub fn blocks(&self) -> impl ExactSizeIterator<Item = BlockId> + '_ {
        (0..self.blocks.len()).map(|i| BlockId::from_u32(i as u32))
    }

    /// The threads declared with [`SpaceBuilder::thread`], in order: each one's name and top
    /// block. Empty when the space declares none.
    pub fn threads(&self) -> impl ExactSizeIterator<Item = (&str, BlockId)> + '_ {
        self.threads.iter().map(|(name, block)| (name.as_str(), *block))
    }

    /// The name and top block of a thread, when declared.
    pub fn thread(&self, thread: ThreadId) -> Option<(&str, BlockId)> {
        self.threads.get(thread.index()).map(|(name, block)| (name.as_str(), *block))
    }

    /// The items of a block in original order (empty for an unknown block).
    pub fn items(&self, block: BlockId) -> &[Loc] {
        self.blocks.get(block.index()).map_or(&[], |b| &b.items)
    }

    /// The direct fixed pairs of a block, as (earlier, later) locations.
    pub fn fixed_pairs(&self, block: BlockId) -> impl Iterator<Item = (Loc, Loc)> + '_ {
        let data = self.blocks.get(block.index());
        data.into_iter().flat_map(|b| b.fixed.iter().map(|&(i, j)| (b.items[i as usize], b.items[j as usize])))
    }

    /// Whether a block is closed to atomic sections.
    pub fn is_closed(&self, block: BlockId) -> bool {
        self.blocks.get(block.index()).is_some_and(|b| b.closed)
    }

    /// The block of an item and its index in the original order.
    pub fn item_position(&self, loc: Loc) -> Option<(BlockId, usize)> {
        self.loc_item.get(loc.index()).copied().flatten().map(|(b, i)| (b, i as usize))
    }

    /// The block an item belongs to.
    pub fn block_of(&self, loc: Loc) -> Option<BlockId> {
        self.item_position(loc).map(|(b, _)| b)
    }

    /// What the space knows of an item.
    pub fn item_info(&self, loc: Loc) -> Option<ItemInfo> {
        let (b, i) = self.item_position(loc)?;
        Some(self.blocks[b.index()].info[i])
    }

    /// Whether an item is a preemption point (an await, or an item holding one).
    pub fn is_preemption_point(&self, loc: Loc) -> bool {
        self.item_info(loc).is_some_and(|i| i.is_preemption_point())
    }

    /// Whether an atomic section may hold the item alone: an item of an open block that
    /// [`ItemInfo::takes_section_alone`].
    pub fn takes_section_alone(&self, loc: Loc) -> bool {
        self.block_of(loc).is_some_and(|b| !self.is_closed(b))
            && self.item_info(loc).is_some_and(|i| i.takes_section_alone())
    }

    /// Whether an added atomic section may hold the item (with others, or alone when it
    /// [takes a section alone](Space::takes_section_alone)): an item of an open block that is
    /// not [kept out of sections](ItemInfo::no_section).
    pub fn may_be_in_section(&self, loc: Loc) -> bool {
        self.block_of(loc).is_some_and(|b| !self.is_closed(b)) && self.item_info(loc).is_some_and(|i| !i.no_section)
    }

    /// Whether `a` must precede `b` in every candidate (directly or transitively fixed).
    pub fn is_fixed(&self, a: Loc, b: Loc) -> bool {
        match (self.item_position(a), self.item_position(b)) {
            (Some((ba, i)), Some((bb, j))) if ba == bb => self.blocks[ba.index()].must_precede(i, j),
            _ => false,
        }
    }

    /// Whether two items of one block may appear in either order in some candidate.
    pub fn may_change_order(&self, a: Loc, b: Loc) -> bool {
        match (self.item_position(a), self.item_position(b)) {
            (Some((ba, i)), Some((bb, j))) if ba == bb && i != j => {
                let d = &self.blocks[ba.index()];
                !d.must_precede(i, j) && !d.must_precede(j, i)
            }
            _ => false,
        }
    }

    /// The direct fixed pairs of a block as (earlier, later) item indices, sorted.
    pub(crate) fn fixed_idx(&self, block: BlockId) -> &[(u32, u32)] {
        self.blocks.get(block.index()).map_or(&[], |b| &b.fixed)
    }

    /// The pairs of a block's items that may change order, as original indices `(i, j)` with
    /// `i < j`, in increasing order of `i`, then `j`. It takes time in proportion to their
    /// number for a block whose items mostly conflict.
    pub fn free_pairs(&self, block: BlockId) -> impl Iterator<Item = (usize, usize)> + '_ {
        let data = self.blocks.get(block.index());
        let n = data.map_or(0, |b| b.items.len());
        (0..n).flat_map(move |i| {
            let data = data.expect("n is 0 for an unknown block");
            let listed: Box<dyn Iterator<Item = usize>> = match &data.closure {
                Closure::Free { start, free } => {
                    Box::new(free[start[i] as usize..start[i + 1] as usize].iter().map(|&j| j as usize))
                }
                Closure::Bits { .. } => Box::new((i + 1..n).filter(move |&j| !data.must_precede(i, j))),
            };
            listed.map(move |j| (i, j))
        })
    }

    /// Index-level view used by [`Candidate`](crate::Candidate) and the solver.
    pub(crate) fn must_precede_idx(&self, block: BlockId, i: usize, j: usize) -> bool {
        self.blocks[block.index()].must_precede(i, j)
    }

    /// The block both items belong to.
    ///
    /// # Errors
    /// [`ErrorKind::NotInOneBlock`] when they are not items of one block.
    pub fn common_block(&self, a: Loc, b: Loc) -> Result<BlockId, Error> {
        match (self.item_position(a), self.item_position(b)) {
            (Some((ba, _)), Some((bb, _))) if ba == bb => Ok(ba),
            _ => Err(Error::new(
                ErrorKind::NotInOneBlock,
                format!("`{}` and `{}` are not items of one block", self.name(a), self.name(b)),
            )),
        }
    }

    /// The atom `Order(a, b)`, checked against this space.
    ///
    /// # Errors
    /// [`ErrorKind::NotInOneBlock`] when `a` and `b` are not items of one block.
    pub fn order(&self, a: Loc, b: Loc) -> Result<crate::Atom, Error> {
        self.common_block(a, b).map(|_| crate::Atom::Order(a, b))
    }

    /// The atom `Atomic(a, b)`, checked against this space.
    ///
    /// # Errors
    /// [`ErrorKind::NotInOneBlock`] when `a` and `b` are not items of one block.
    pub fn atomic(&self, a: Loc, b: Loc) -> Result<crate::Atom, Error> {
        self.common_block(a, b).map(|_| crate::Atom::atomic(a, b))
    }
}
