//! Candidate programs: one program of a [`Space`], and the transformations that lead to it.

use std::fmt;

use crate::{BlockId, Error, ErrorKind, Loc, Space, Waits};

const NONE: u32 = u32::MAX;

/// One block's order with one legal set of sections over it.
type BlockOption = (Vec<Loc>, Vec<(Loc, Loc)>);

/// An added atomic section: the items from `first` to `last` (inclusive) in the candidate's
/// new order of `block`; `first == last` for a section holding one compound item alone.
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Section {
    /// The block holding the section.
    pub block: BlockId,
    /// The first item of the section in the new order.
    pub first: Loc,
    /// The last item of the section in the new order.
    pub last: Loc,
}

/// One step from the original program towards a candidate (the paper's theta).
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "snake_case"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Transformation {
    /// Swap two adjacent items: `first` immediately precedes `second` before the step and
    /// immediately follows it afterwards (the paper's `first <-> second`).
    Swap {
        /// The item that stood first.
        first: Loc,
        /// The item that stood second.
        second: Loc,
    },
    /// Add the atomic section `[first; last]` over consecutive items of one block (`first ==
    /// last` for one compound item alone).
    Atomic {
        /// The first item of the section.
        first: Loc,
        /// The last item of the section.
        last: Loc,
    },
}

impl Transformation {
    /// Displays the transformation with the space's location names: `swap A <-> B`,
    /// `atomic [A; B]`.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayTransformation { t: self, space, candidate: None }
    }

    /// Displays the transformation as a step towards `candidate`: like
    /// [`Transformation::display`], but an atomic section lists every item inside it in the
    /// candidate's order, `atomic [A; B; C]`, so that the items between its ends are seen.
    pub fn display_in<'a>(&'a self, space: &'a Space, candidate: &'a Candidate) -> impl fmt::Display + 'a {
        DisplayTransformation { t: self, space, candidate: Some(candidate) }
    }
}

struct DisplayTransformation<'a> {
    t: &'a Transformation,
    space: &'a Space,
    candidate: Option<&'a Candidate>,
}

impl fmt::Display for DisplayTransformation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self.t {
            Transformation::Swap { first, second } => {
                write!(f, "swap {} <-> {}", self.space.name(first), self.space.name(second))
            }
            Transformation::Atomic { first, last } => {
                let inside = self.candidate.and_then(|c| c.section_of(first).map(|s| c.section_items(s)));
                match inside {
                    Some(items) if !items.is_empty() => write_section(f, self.space, items),
                    _ => write!(f, "atomic [{}; {}]", self.space.name(first), self.space.name(last)),
                }
            }
        }
    }
}

/// One item moved to another place of its block: what a reviewer reads where the adjacent
/// swaps of [`Candidate::transformations`] would list one swap per item it passes.
/// [`Candidate::moves`] gives the fewest that take the original order to a candidate's.
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// The item that moves.
    pub item: Loc,
    /// The item it is placed right below, in the order reached when the move is made (and in
    /// the candidate's order); `None` when it moves to the top of its block.
    pub below: Option<Loc>,
    /// When it moves to the top of its block, the item it is placed above (its successor in
    /// the candidate's order); `None` otherwise.
    pub above: Option<Loc>,
}

impl Move {
    /// Displays the move with the space's location names: `move A below B`, or `move A above
    /// B` for a move to the top of a block.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayMove { m: self, space }
    }
}

struct DisplayMove<'a> {
    m: &'a Move,
    space: &'a Space,
}

impl fmt::Display for DisplayMove<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |l: Loc| self.space.name(l);
        match (self.m.below, self.m.above) {
            (Some(b), _) => write!(f, "move {} below {}", name(self.m.item), name(b)),
            (None, Some(a)) => write!(f, "move {} above {}", name(self.m.item), name(a)),
            (None, None) => write!(f, "move {} to the top", name(self.m.item)),
        }
    }
}

/// The positions (into `seq`) of a longest strictly increasing subsequence of `seq`; of all
/// such, the one that takes the earliest positions (so an item swapped with its neighbour moves
/// below it, rather than the neighbour above it).
fn longest_increasing(seq: &[usize]) -> Vec<usize> {
    // from[i]: the length of a longest increasing subsequence starting at i, by patience
    // sorting from the right (`tails[k]`: the largest first value of such a run of length k + 1,
    // negated so that the tails increase).
    let mut from = vec![0; seq.len()];
    let mut tails: Vec<i128> = Vec::new();
    for (i, &v) in seq.iter().enumerate().rev() {
        let neg = -(v as i128);
        let k = tails.partition_point(|&t| t < neg);
        from[i] = k + 1;
        if k == tails.len() {
            tails.push(neg);
        } else {
            tails[k] = neg;
        }
    }
    let mut need = tails.len();
    let mut out = Vec::with_capacity(need);
    for (i, &v) in seq.iter().enumerate() {
        if need > 0 && from[i] == need && out.last().is_none_or(|&p: &usize| seq[p] < v) {
            out.push(i);
            need -= 1;
        }
    }
    out
}

/// `atomic [A; B; C]`: every item of a section; `atomic [A; A]` for one item alone.
fn write_section(f: &mut fmt::Formatter<'_>, space: &Space, items: &[Loc]) -> fmt::Result {
    f.write_str("atomic [")?;
    match items {
        [one] => write_items(f, space, &[*one, *one])?,
        _ => write_items(f, space, items)?,
    }
    f.write_str("]")
}

/// `A; B; C`.
fn write_items(f: &mut fmt::Formatter<'_>, space: &Space, items: &[Loc]) -> fmt::Result {
    for (i, &loc) in items.iter().enumerate() {
        if i > 0 {
            f.write_str("; ")?;
        }
        f.write_str(space.name(loc))?;
    }
    Ok(())
}

/// The cost of a candidate, compared lexicographically: first the simple statements inside
/// added atomic sections, then the item pairs inverted against the original order.
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cost {
    /// Simple statements inside added atomic sections (a compound item counts all it holds).
    pub atomic_weight: u64,
    /// Item pairs whose order is inverted against the original program.
    pub inversions: u64,
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "(atomic {}, inversions {})", self.atomic_weight, self.inversions)
    }
}

/// One program of a [`Space`]: a new order for every block (a linear extension of its fixed
/// pairs) and a set of added atomic sections (runs of consecutive items of the new order in an
/// open block: two or more items of any kind but those [kept out of
/// sections](crate::ItemInfo::no_section), or one item that
/// [takes a section alone](crate::ItemInfo::takes_section_alone)).
///
/// A candidate belongs to the space it was made from; using it with another space gives
/// meaningless answers (never a panic).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Candidate {
    orders: Vec<Vec<Loc>>,
    sections: Vec<Section>,
    /// Per location: position in its block's new order, or NONE.
    pos: Vec<u32>,
    /// Per location: index of its block, or NONE.
    block_of: Vec<u32>,
    /// Per location: index into `sections`, or NONE.
    section_of: Vec<u32>,
    /// Per location: whether it is an item that takes a section alone, so that `[a; a]` holds
    /// only inside a section.
    alone: Vec<bool>,
}

impl Candidate {
    /// The original program: original orders, no atomic section.
    pub fn original(space: &Space) -> Candidate {
        let orders = space.blocks().map(|b| space.items(b).to_vec()).collect();
        Candidate::assemble(space, orders, Vec::new())
    }

    /// A candidate from new block orders (one list per block, in block id order) and sections
    /// given as (first, last) items in the new order.
    ///
    /// # Errors
    /// A list that is not a permutation of its block's items, a fixed pair out of order, or an
    /// illegal section (overlapping, out of order, in a closed block, holding an item kept out
    /// of sections, or holding one item that is already atomic by itself).
    pub fn new(space: &Space, orders: Vec<Vec<Loc>>, sections: &[(Loc, Loc)]) -> Result<Candidate, Error> {
        if orders.len() != space.block_count() {
            return Err(Error::new(
                ErrorKind::NotAPermutation,
                format!("expected {} block orders, got {}", space.block_count(), orders.len()),
            ));
        }
        for (block, order) in space.blocks().zip(&orders) {
            check_order(space, block, order)?;
        }
        let draft = Candidate::assemble(space, orders, Vec::new());
        let mut secs = Vec::with_capacity(sections.len());
        for &(first, last) in sections {
            let block = space.common_block(first, last)?;
            secs.push(Section { block, first, last });
        }
        secs.sort_by_key(|s| (s.block, draft.pos[s.first.index()]));
        for (k, s) in secs.iter().enumerate() {
            let (i, j) = (draft.pos[s.first.index()] as usize, draft.pos[s.last.index()] as usize);
            if j < i {
                return Err(Error::new(
                    ErrorKind::BadSection,
                    format!(
                        "atomic section [{}; {}] names its items out of order",
                        space.name(s.first),
                        space.name(s.last)
                    ),
                ));
            }
            if k > 0 && secs[k - 1].block == s.block && draft.pos[secs[k - 1].last.index()] as usize >= i {
                return Err(Error::new(ErrorKind::BadSection, "atomic sections overlap"));
            }
            check_section(space, s.block, &draft.orders[s.block.index()][i..=j])?;
        }
        Ok(Candidate::assemble(space, draft.orders, secs))
    }

    /// Builds the lookup tables; `orders` and `sections` are already validated against `space`.
    fn assemble(space: &Space, orders: Vec<Vec<Loc>>, sections: Vec<Section>) -> Candidate {
        let mut pos = vec![NONE; space.loc_count()];
        let mut block_of = vec![NONE; space.loc_count()];
        for (b, order) in orders.iter().enumerate() {
            for (p, loc) in order.iter().enumerate() {
                pos[loc.index()] = p as u32;
                block_of[loc.index()] = b as u32;
            }
        }
        let mut section_of = vec![NONE; space.loc_count()];
        for (k, s) in sections.iter().enumerate() {
            let order = &orders[s.block.index()];
            for loc in &order[pos[s.first.index()] as usize..=pos[s.last.index()] as usize] {
                section_of[loc.index()] = k as u32;
            }
        }
        let alone = space.locs().map(|l| space.takes_section_alone(l)).collect();
        Candidate { orders, sections, pos, block_of, section_of, alone }
    }

    /// Displays the candidate with the space's names, one line per block that has items:
    /// the block (its thread's name when the space declares a thread running it, `block N`
    /// otherwise), then its items in the new order, each added section written with every
    /// item inside it: `thread1: B; C; A` and `thread2: 1; atomic [2; 3]`.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayCandidate { candidate: self, space }
    }

    /// Every block's new order, in block id order.
    pub fn orders(&self) -> &[Vec<Loc>] {
        &self.orders
    }

    /// The new order of a block (empty for an unknown block).
    pub fn order(&self, block: BlockId) -> &[Loc] {
        self.orders.get(block.index()).map_or(&[], Vec::as_slice)
    }

    /// The added atomic sections, by block and position.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The position of an item in its block's new order.
    pub fn position(&self, loc: Loc) -> Option<usize> {
        self.pos.get(loc.index()).filter(|&&p| p != NONE).map(|&p| p as usize)
    }

    /// The added atomic section holding an item, if any.
    pub fn section_of(&self, loc: Loc) -> Option<&Section> {
        self.section_of.get(loc.index()).filter(|&&s| s != NONE).map(|&s| &self.sections[s as usize])
    }

    /// Whether `a` and `b` lie in one added atomic section (for `a == b`: whether `a` lies in
    /// some added section). See [`Candidate::holds_atomic`] for the atom.
    #[inline]
    pub fn in_one_section(&self, a: Loc, b: Loc) -> bool {
        match (self.section_of.get(a.index()), self.section_of.get(b.index())) {
            (Some(&x), Some(&y)) => x != NONE && x == y,
            _ => false,
        }
    }

    /// Whether the atom `Atomic(a, b)` holds: `a` and `b` lie in one added atomic section;
    /// for `a == b`, `a` runs as one step (it is atomic by itself, or not an item that takes a
    /// section alone, or it lies in an added section).
    #[inline]
    pub fn holds_atomic(&self, a: Loc, b: Loc) -> bool {
        if a == b && !self.alone.get(a.index()).copied().unwrap_or(false) {
            return true;
        }
        self.in_one_section(a, b)
    }

    /// Whether `a` comes before `b` in the new order of their block, or both lie in one
    /// atomic section (`Order(a, b)`). `Order(a, a)` holds for every `a`; for two different
    /// locations that are not items of one block the answer is `false` (atoms are validated
    /// against the space by [`Space::order`]).
    #[inline]
    pub fn holds_order(&self, a: Loc, b: Loc) -> bool {
        if a == b {
            return true;
        }
        let same_block = match (self.block_of.get(a.index()), self.block_of.get(b.index())) {
            (Some(&x), Some(&y)) => x != NONE && x == y,
            _ => false,
        };
        same_block && (self.pos[a.index()] < self.pos[b.index()] || self.in_one_section(a, b))
    }

    /// Whether the candidate is the original program.
    pub fn is_original(&self, space: &Space) -> bool {
        self.sections.is_empty() && space.blocks().all(|b| space.items(b) == self.order(b))
    }

    /// The cost of this candidate: the weights of the items inside its sections, and the item
    /// pairs it inverts against the original order.
    pub fn cost(&self, space: &Space) -> Cost {
        let mut cost = Cost::default();
        for s in &self.sections {
            for loc in self.section_items(s) {
                cost.atomic_weight += u64::from(space.item_info(*loc).map_or(1, |i| i.weight));
            }
        }
        for block in space.blocks() {
            // Pairs in the original order whose positions are inverted (no position first).
            let keys: Vec<usize> = space.items(block).iter().map(|&l| self.position(l).map_or(0, |p| p + 1)).collect();
            let bound = keys.iter().max().map_or(0, |&k| k + 1);
            cost.inversions += crate::inversions::count(&keys, bound);
        }
        cost
    }

    /// The items of a section of this candidate, in the new order (empty for a section of
    /// another candidate that does not fit this one).
    pub fn section_items(&self, section: &Section) -> &[Loc] {
        match (self.position(section.first), self.position(section.last)) {
            (Some(i), Some(j)) if i <= j => self.order(section.block).get(i..=j).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Whether an added section acts across a preemption point: it holds a wait anywhere but
    /// as its very first step (an item that waits after its first step, or a waiting item
    /// that is not the section's first).
    pub fn waits_inside_section(&self, space: &Space) -> bool {
        self.sections.iter().any(|section| self.section_waits_inside(section, space))
    }

    /// Whether one section of this candidate holds a wait anywhere but as its very first
    /// step (see [`Candidate::waits_inside_section`]): running all or nothing, it may then
    /// wait for a later step while its first step could run.
    pub fn section_waits_inside(&self, section: &Section, space: &Space) -> bool {
        self.section_items(section).iter().enumerate().any(|(k, &l)| match space.item_info(l).map(|i| i.waits) {
            Some(Waits::Inside) => true,
            Some(Waits::First) => k > 0,
            _ => false,
        })
    }

    /// The transformations that take the original program to this candidate: adjacent swaps
    /// (bubbling each block into its new order), then the atomic sections. Applying them in
    /// order with [`Candidate::apply`] gives this candidate back.
    pub fn transformations(&self, space: &Space) -> Vec<Transformation> {
        let mut out = Vec::new();
        for block in space.blocks() {
            let mut current: Vec<Loc> = space.items(block).to_vec();
            let target = self.order(block);
            // Selection by adjacent swaps: bring each target item to its place from the right.
            for (p, want) in target.iter().enumerate() {
                // `get` only fails for a candidate of another space; it then gets no more swaps.
                let Some(rest) = current.get(p..) else { break };
                let mut at = rest.iter().position(|l| l == want).map_or(p, |k| k + p);
                while at > p {
                    out.push(Transformation::Swap { first: current[at - 1], second: current[at] });
                    current.swap(at - 1, at);
                    at -= 1;
                }
            }
        }
        out.extend(self.sections.iter().map(|s| Transformation::Atomic { first: s.first, last: s.last }));
        out
    }

    /// The reorderings of this candidate as the fewest moves of single items, block by block:
    /// the items of a longest run of each block that keeps its original relative order stay,
    /// every other item moves once (no fewer moves can reach the order, since an item that
    /// never moves keeps its relative order with every other such item). The moves are listed
    /// in the candidate's order, each placing its item right below its predecessor in the
    /// candidate's order (or at the top of the block); made one after the other from the
    /// original order ([`Candidate::apply_moves`]), they give this candidate's orders.
    pub fn moves(&self, space: &Space) -> Vec<Move> {
        let mut out = Vec::new();
        for block in space.blocks() {
            let target = self.order(block);
            let rank: Vec<usize> =
                target.iter().map(|&l| space.item_position(l).map_or(usize::MAX, |(_, k)| k)).collect();
            let stay = longest_increasing(&rank);
            let mut stays = vec![false; target.len()];
            for i in stay {
                stays[i] = true;
            }
            for (i, &item) in target.iter().enumerate() {
                if stays[i] {
                    continue;
                }
                let below = i.checked_sub(1).map(|j| target[j]);
                let above = if below.is_none() { target.get(i + 1).copied() } else { None };
                out.push(Move { item, below, above });
            }
        }
        out
    }

    /// The block orders reached from the original program by making `moves` one after the
    /// other: each takes its item out and puts it right below [`Move::below`] (or at the top
    /// of the block). Moves of items that are not in the space are skipped.
    ///
    /// # Errors
    /// [`ErrorKind::NotInOneBlock`] when a move's item and the item it goes below are not
    /// items of one block.
    pub fn apply_moves(space: &Space, moves: &[Move]) -> Result<Vec<Vec<Loc>>, Error> {
        let mut orders: Vec<Vec<Loc>> = space.blocks().map(|b| space.items(b).to_vec()).collect();
        for m in moves {
            let Some(block) = space.block_of(m.item) else { continue };
            let order = &mut orders[block.index()];
            if let Some(b) = m.below {
                if space.block_of(b) != Some(block) || b == m.item {
                    return Err(Error::new(
                        ErrorKind::NotInOneBlock,
                        format!("`{}` and `{}` are not two items of one block", space.name(m.item), space.name(b)),
                    ));
                }
            }
            order.retain(|&l| l != m.item);
            let at = m.below.and_then(|b| order.iter().position(|&l| l == b)).map_or(0, |p| p + 1);
            order.insert(at, m.item);
        }
        Ok(orders)
    }

    /// Applies transformations in order, starting from the original program.
    ///
    /// A section covers the items from `first` to `last` in the order at the end, so a swap
    /// that moves an item of an already added section would silently change what the section
    /// holds; such a swap is rejected. [`Candidate::transformations`] never produces one.
    ///
    /// # Errors
    /// [`ErrorKind::BadTransformation`] when a swap names items that are not adjacent in that
    /// order, that must keep their order, or that lie in an added section;
    /// [`ErrorKind::NotInOneBlock`] when the two locations of a step are not items of one
    /// block; section errors as for [`Candidate::new`].
    pub fn apply(space: &Space, steps: &[Transformation]) -> Result<Candidate, Error> {
        let mut orders: Vec<Vec<Loc>> = space.blocks().map(|b| space.items(b).to_vec()).collect();
        let mut sections: Vec<(Loc, Loc)> = Vec::new();
        for step in steps {
            match *step {
                Transformation::Swap { first, second } => {
                    let block = space.common_block(first, second)?;
                    let order = &orders[block.index()];
                    let bad = |why: &str| {
                        Error::new(
                            ErrorKind::BadTransformation,
                            format!("cannot swap `{}` and `{}`: {why}", space.name(first), space.name(second)),
                        )
                    };
                    let i = order
                        .iter()
                        .position(|&l| l == first)
                        .filter(|&i| order.get(i + 1) == Some(&second))
                        .ok_or_else(|| bad("they are not adjacent in this order"))?;
                    if space.is_fixed(first, second) {
                        return Err(bad("they must keep their order"));
                    }
                    let in_section = sections.iter().any(|&(f, l)| {
                        let at = |x: Loc| order.iter().position(|&y| y == x);
                        match (at(f), at(l)) {
                            (Some(p), Some(q)) => (p..=q).contains(&i) || (p..=q).contains(&(i + 1)),
                            _ => false,
                        }
                    });
                    if in_section {
                        return Err(bad("an added atomic section holds one of them"));
                    }
                    orders[block.index()].swap(i, i + 1);
                }
                Transformation::Atomic { first, last } => sections.push((first, last)),
            }
        }
        Candidate::new(space, orders, &sections)
    }

    /// Every candidate of a small space, each once, in a deterministic order that starts with
    /// the original program; for tests and brute-force oracles (the count grows exponentially:
    /// per block, the linear extensions of its fixed pairs times the legal section sets of
    /// each, multiplied over the blocks).
    ///
    /// # Errors
    /// [`ErrorKind::TooMany`] when there are more than `limit` candidates.
    pub fn enumerate(space: &Space, limit: usize) -> Result<Vec<Candidate>, Error> {
        let too_many = || Error::new(ErrorKind::TooMany, format!("more than {limit} candidates"));
        // Per block: every (order, sections) pair. Counting the section sets of an order before
        // building them keeps a large block from filling memory before the limit is noticed.
        let mut per_block: Vec<Vec<BlockOption>> = Vec::new();
        let mut total = 1usize;
        for block in space.blocks() {
            let mut options = Vec::new();
            for order in linear_extensions(space, block, limit).ok_or_else(too_many)? {
                let count = section_set_count(space, block, &order);
                if options.len().saturating_add(count) > limit {
                    return Err(too_many());
                }
                for secs in section_sets(space, block, &order) {
                    options.push((order.clone(), secs));
                }
            }
            total = total.checked_mul(options.len()).filter(|&t| t <= limit).ok_or_else(too_many)?;
            per_block.push(options);
        }
        let mut out = Vec::new();
        let mut idx = vec![0usize; per_block.len()];
        loop {
            let orders = per_block.iter().zip(&idx).map(|(o, &i)| o[i].0.clone()).collect();
            let secs: Vec<(Loc, Loc)> = per_block.iter().zip(&idx).flat_map(|(o, &i)| o[i].1.iter().copied()).collect();
            out.push(Candidate::new(space, orders, &secs)?);
            // Odometer increment.
            let mut k = per_block.len();
            loop {
                if k == 0 {
                    return Ok(out);
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < per_block[k].len() {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
}

fn check_order(space: &Space, block: BlockId, order: &[Loc]) -> Result<(), Error> {
    let items = space.items(block);
    let mut seen = vec![false; items.len()];
    let mut idx = Vec::with_capacity(order.len());
    for &loc in order {
        match space.item_position(loc) {
            Some((b, i)) if b == block && !seen[i] => {
                seen[i] = true;
                idx.push(i);
            }
            _ => {
                return Err(Error::new(
                    ErrorKind::NotAPermutation,
                    format!("the order of block {block} is not a permutation of its items (at `{}`)", space.name(loc)),
                ))
            }
        }
    }
    if idx.len() != items.len() {
        return Err(Error::new(ErrorKind::NotAPermutation, format!("the order of block {block} misses items")));
    }
    // The direct fixed pairs suffice: an order that keeps each of them keeps their closure.
    let mut position = vec![0usize; items.len()];
    for (p, &i) in idx.iter().enumerate() {
        position[i] = p;
    }
    match space.fixed_idx(block).iter().find(|&&(i, j)| position[i as usize] > position[j as usize]) {
        Some(&(i, j)) => Err(Error::new(
            ErrorKind::FixedPairViolated,
            format!("`{}` must stay before `{}`", space.name(items[i as usize]), space.name(items[j as usize])),
        )),
        None => Ok(()),
    }
}

fn check_section(space: &Space, block: BlockId, run: &[Loc]) -> Result<(), Error> {
    if space.is_closed(block) {
        return Err(Error::new(
            ErrorKind::BlockClosed,
            format!("block {block} is inside an atomic block and takes no atomic section"),
        ));
    }
    if let Some(&kept) = run.iter().find(|&&l| !space.may_be_in_section(l)) {
        return Err(Error::new(
            ErrorKind::BadSection,
            format!("`{}` is kept out of atomic sections", space.name(kept)),
        ));
    }
    match run {
        [one] if !space.takes_section_alone(*one) => Err(Error::new(
            ErrorKind::BadSection,
            format!("`{}` already runs as one step and takes no atomic section alone", space.name(*one)),
        )),
        _ => Ok(()),
    }
}

/// Whether a run of items (in new order) may form an atomic section.
pub(crate) fn section_allowed(space: &Space, block: BlockId, run: &[Loc]) -> bool {
    !run.is_empty() && check_section(space, block, run).is_ok()
}

/// All linear extensions of a block's fixed pairs, or `None` past `limit`.
fn linear_extensions(space: &Space, block: BlockId, limit: usize) -> Option<Vec<Vec<Loc>>> {
    let items = space.items(block);
    let n = items.len();
    let mut out = Vec::new();
    let mut current: Vec<usize> = Vec::with_capacity(n);
    let mut used = vec![false; n];
    // Explicit stack of "next candidate index to try" per depth.
    let mut next = vec![0usize; n + 1];
    loop {
        let depth = current.len();
        if depth == n {
            out.push(current.iter().map(|&i| items[i]).collect());
            if out.len() > limit {
                return None;
            }
        }
        let start = next[depth];
        let choice =
            (start..n).find(|&i| !used[i] && (0..n).all(|j| used[j] || j == i || !space.must_precede_idx(block, j, i)));
        match choice {
            Some(i) if depth < n => {
                next[depth] = i + 1;
                used[i] = true;
                current.push(i);
                next[depth + 1] = 0;
            }
            _ => {
                // Backtrack.
                let Some(i) = current.pop() else { return Some(out) };
                used[i] = false;
            }
        }
    }
}

/// The positions `end` such that `order[p..=end]` may form an atomic section: `p` itself when
/// the item takes a section alone, and every later position in an open block up to the first
/// item kept out of sections.
fn section_ends(space: &Space, block: BlockId, order: &[Loc], p: usize) -> impl Iterator<Item = usize> {
    let alone = section_allowed(space, block, &order[p..=p]);
    let longer = if space.may_be_in_section(order[p]) {
        order[p + 1..].iter().position(|&l| !space.may_be_in_section(l)).map_or(order.len(), |k| p + 1 + k)
    } else {
        p + 1
    };
    (alone.then_some(p)).into_iter().chain(p + 1..longer)
}

/// The number of legal sets of atomic sections over one order of a block (saturating).
fn section_set_count(space: &Space, block: BlockId, order: &[Loc]) -> usize {
    let n = order.len();
    // counts[p] = the number of section sets over positions p.. (built from the right).
    let mut counts = vec![0usize; n + 1];
    counts[n] = 1;
    for p in (0..n).rev() {
        let mut here = counts[p + 1];
        for end in section_ends(space, block, order, p) {
            here = here.saturating_add(counts[end + 1]);
        }
        counts[p] = here;
    }
    counts[0]
}

/// All legal sets of atomic sections over one order of a block.
fn section_sets(space: &Space, block: BlockId, order: &[Loc]) -> Vec<Vec<(Loc, Loc)>> {
    let n = order.len();
    // sets[p] = all section sets over positions p.. (built from the right).
    let mut sets: Vec<Vec<Vec<(Loc, Loc)>>> = vec![Vec::new(); n + 1];
    sets[n].push(Vec::new());
    for p in (0..n).rev() {
        let mut here = sets[p + 1].clone();
        for end in section_ends(space, block, order, p) {
            for rest in &sets[end + 1] {
                let mut s = vec![(order[p], order[end])];
                s.extend_from_slice(rest);
                here.push(s);
            }
        }
        sets[p] = here;
    }
    std::mem::take(&mut sets[0])
}

struct DisplayCandidate<'a> {
    candidate: &'a Candidate,
    space: &'a Space,
}

impl fmt::Display for DisplayCandidate<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (candidate, space) = (self.candidate, self.space);
        let mut first_line = true;
        for block in space.blocks() {
            let order = candidate.order(block);
            if order.is_empty() {
                continue;
            }
            if !first_line {
                f.write_str("\n")?;
            }
            first_line = false;
            match space.threads().find(|&(_, b)| b == block) {
                Some((name, _)) => write!(f, "{name}: ")?,
                None => write!(f, "block {}: ", block.index())?,
            }
            write_order(f, candidate, space, order)?;
        }
        Ok(())
    }
}

/// A block's new order, its sections written with every item inside: `1; atomic [2; 3]`.
fn write_order(f: &mut fmt::Formatter<'_>, candidate: &Candidate, space: &Space, order: &[Loc]) -> fmt::Result {
    let mut i = 0;
    while i < order.len() {
        if i > 0 {
            f.write_str("; ")?;
        }
        match candidate.section_of(order[i]) {
            Some(section) => {
                let items = candidate.section_items(section);
                write_section(f, space, items)?;
                i += items.len().max(1);
            }
            None => {
                write_items(f, space, &order[i..=i])?;
                i += 1;
            }
        }
    }
    Ok(())
}
