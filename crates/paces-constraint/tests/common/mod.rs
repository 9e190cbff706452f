//! Helpers shared by the integration tests: small random spaces described independently of
//! the crate, and naive oracles that read a candidate only through its public order lists and
//! section list.

#![allow(dead_code)] // Reason: each test file uses a different subset of the helpers.

use paces_constraint::{Atom, BlockId, Candidate, ItemInfo, Loc, Space, SpaceBuilder, Waits};
pub use paces_testkit::Rng;
use proptest::prelude::*;

/// One block of a space description.
#[derive(Clone, Debug)]
pub struct BlockDesc {
    /// Each item in original order: where it waits, its weight, and whether it already runs
    /// as one step.
    pub items: Vec<(Waits, u32, bool)>,
    /// Whether the block is closed to atomic sections.
    pub closed: bool,
    /// Direct fixed pairs as (earlier, later) indices into `items`.
    pub fixed: Vec<(usize, usize)>,
    /// The items kept out of added sections: bit `i` for item `i`.
    pub kept: u64,
}

impl BlockDesc {
    /// Whether item `i` is kept out of added sections.
    pub fn is_kept(&self, i: usize) -> bool {
        self.kept >> i & 1 == 1
    }
}

/// A space described independently of the crate, so that oracles do not trust its tables.
#[derive(Clone, Debug)]
pub struct SpaceDesc {
    /// The blocks, in id order.
    pub blocks: Vec<BlockDesc>,
    /// Locations that are not items of any block.
    pub extra_locs: usize,
}

/// A space with its description and the location of every item (`locs[block][index]`).
pub struct Built {
    pub desc: SpaceDesc,
    pub space: Space,
    pub locs: Vec<Vec<Loc>>,
}

impl SpaceDesc {
    /// Builds the space: item locations are named `b<block>i<index>`, extra ones `x<k>`.
    pub fn build(&self) -> Built {
        let mut b = SpaceBuilder::new();
        let mut locs = Vec::new();
        for (k, block) in self.blocks.iter().enumerate() {
            let id = b.block(block.closed);
            assert_eq!(id.index(), k);
            let mut ls = Vec::new();
            for (i, &(waits, weight, atomic)) in block.items.iter().enumerate() {
                let loc = b.loc(&format!("b{k}i{i}")).unwrap();
                let info = ItemInfo::new(weight, waits, atomic);
                b.item(id, loc, if block.is_kept(i) { info.never_in_section() } else { info }).unwrap();
                ls.push(loc);
            }
            for &(i, j) in &block.fixed {
                b.fix(ls[i], ls[j]).unwrap();
            }
            locs.push(ls);
        }
        for k in 0..self.extra_locs {
            b.loc(&format!("x{k}")).unwrap();
        }
        Built { desc: self.clone(), space: b.build().unwrap(), locs }
    }
}

fn waits() -> impl Strategy<Value = Waits> {
    prop_oneof![6 => Just(Waits::Never), 2 => Just(Waits::First), 1 => Just(Waits::Inside)]
}

fn block_desc(max_items: usize) -> impl Strategy<Value = BlockDesc> {
    // Mostly blocks with something to reorder; empty and one-item blocks now and then.
    let len = prop_oneof![1 => 0..2usize, 5 => 2..=max_items.max(2)];
    (
        len.prop_flat_map(|n| proptest::collection::vec((waits(), 1u32..4, proptest::bool::weighted(0.5)), n)),
        proptest::bool::weighted(0.2),
        // Mostly no item kept out of sections.
        prop_oneof![3 => Just(0u64), 1 => any::<u64>()],
    )
        .prop_flat_map(|(items, closed, kept)| {
            let n = items.len();
            let pairs: Vec<(usize, usize)> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect();
            let count = pairs.len();
            proptest::collection::vec(proptest::bool::weighted(0.25), count).prop_map(move |mask| BlockDesc {
                items: items.clone(),
                closed,
                fixed: pairs.iter().zip(mask).filter(|(_, m)| *m).map(|(p, _)| *p).collect(),
                kept,
            })
        })
}

/// Random small spaces: up to `max_blocks` blocks of up to `max_items` items each.
pub fn space_desc(max_blocks: usize, max_items: usize) -> impl Strategy<Value = SpaceDesc> {
    (proptest::collection::vec(block_desc(max_items), 1..=max_blocks), 0usize..3)
        .prop_map(|(blocks, extra_locs)| SpaceDesc { blocks, extra_locs })
}

/// Whether a permutation of item indices keeps every direct fixed pair of the block in order.
pub fn respects_fixed(block: &BlockDesc, perm: &[usize]) -> bool {
    let mut at = vec![0; perm.len()];
    for (p, &i) in perm.iter().enumerate() {
        at[i] = p;
    }
    block.fixed.iter().all(|&(i, j)| at[i] < at[j])
}

/// Every permutation of `0..n`, in lexicographic order (by plain recursion; `n` is tiny).
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn go(rest: &mut Vec<usize>, current: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if rest.is_empty() {
            out.push(current.clone());
            return;
        }
        for k in 0..rest.len() {
            let x = rest.remove(k);
            current.push(x);
            go(rest, current, out);
            current.pop();
            rest.insert(k, x);
        }
    }
    let mut out = Vec::new();
    go(&mut (0..n).collect(), &mut Vec::new(), &mut out);
    out
}

/// The runs of a join mask over `n` positions: bit `k` joins positions `k` and `k + 1` into
/// one section. Returns (start, end) of every run of at least two positions.
pub fn runs(n: usize, mask: u64) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for p in 0..n {
        let joined_to_next = p + 1 < n && mask >> p & 1 == 1;
        if !joined_to_next {
            if p > start {
                out.push((start, p));
            }
            start = p + 1;
        }
    }
    out
}

/// Whether item `i` of a block may be an added section alone: an open block, an item not
/// atomic by itself, of weight at least 2, not kept out of sections.
pub fn alone_legal(block: &BlockDesc, i: usize) -> bool {
    let (_, weight, atomic) = block.items[i];
    !block.closed && !atomic && weight >= 2 && !block.is_kept(i)
}

/// Whether a run of at least two items (given as item indices in the new order) may be an
/// added section: a run of an open block (waits may stand anywhere) without an item kept out
/// of sections.
pub fn run_legal(block: &BlockDesc, run: &[usize]) -> bool {
    !block.closed && run.iter().all(|&i| !block.is_kept(i))
}

/// The sections of a join mask and a mask of one-item sections over one order: the runs of
/// the join mask, and each position `p` left alone whose bit `p` of `alone` is set and whose
/// item may be a section alone. As (start, end) positions, sorted.
pub fn sections_of(block: &BlockDesc, perm: &[usize], mask: u64, alone: u64) -> Vec<(usize, usize)> {
    let n = perm.len();
    let mut out = runs(n, mask);
    let in_run = |p: usize| out.iter().any(|&(s, e)| s <= p && p <= e);
    let singles: Vec<(usize, usize)> =
        (0..n).filter(|&p| !in_run(p) && alone >> p & 1 == 1 && alone_legal(block, perm[p])).map(|p| (p, p)).collect();
    out.extend(singles);
    out.sort_unstable();
    out
}

/// Every legal set of sections over one order of a block, as (start, end) positions (brute
/// force over all `2^(n-1)` join masks times all `2^n` one-item masks, duplicates removed).
pub fn legal_section_sets(block: &BlockDesc, perm: &[usize]) -> Vec<Vec<(usize, usize)>> {
    let n = perm.len();
    let masks = if n == 0 { 1u64 } else { 1u64 << (n - 1) };
    let mut out: Vec<Vec<(usize, usize)>> = Vec::new();
    for m in (0..masks).filter(|&m| runs(n, m).iter().all(|&(s, e)| run_legal(block, &perm[s..=e]))) {
        for alone in 0..1u64 << n {
            let set = sections_of(block, perm, m, alone);
            if !out.contains(&set) {
                out.push(set);
            }
        }
    }
    out
}

/// The block of an item and its position in the candidate's new order, read from the
/// candidate's order lists only.
pub fn naive_position(space: &Space, c: &Candidate, loc: Loc) -> Option<(BlockId, usize)> {
    space.blocks().find_map(|b| c.order(b).iter().position(|&l| l == loc).map(|p| (b, p)))
}

/// Whether `[a; a]` holds without a section: not an item, an item of a closed block, one kept
/// out of sections, or one that is atomic by itself or of weight below 2 (read from the item
/// infos given).
fn naive_atomic_alone(space: &Space, a: Loc) -> bool {
    match (space.block_of(a), space.item_info(a)) {
        (Some(block), Some(info)) => space.is_closed(block) || info.no_section || info.atomic || info.weight < 2,
        _ => true,
    }
}

/// The definition of `Atomic(a, b)`: `a` and `b` lie in one added section, from the
/// candidate's section list; `[a; a]` also when `a` runs as one step without a section.
pub fn naive_atomic(space: &Space, c: &Candidate, a: Loc, b: Loc) -> bool {
    if a == b && naive_atomic_alone(space, a) {
        return true;
    }
    c.sections().iter().any(|s| {
        let order = c.order(s.block);
        let (Some(i), Some(j)) = (order.iter().position(|&l| l == s.first), order.iter().position(|&l| l == s.last))
        else {
            return false;
        };
        let run = &order[i..=j];
        run.contains(&a) && run.contains(&b)
    })
}

/// The definition of `Order(a, b)`: `a` before `b` in their block's new order, or both in one
/// section; `a <= a` always; false for two locations that are not items of one block.
pub fn naive_order(space: &Space, c: &Candidate, a: Loc, b: Loc) -> bool {
    if a == b {
        return true;
    }
    match (naive_position(space, c, a), naive_position(space, c, b)) {
        (Some((ba, pa)), Some((bb, pb))) if ba == bb => pa < pb || naive_atomic(space, c, a, b),
        _ => false,
    }
}

/// The definition of an atom on a candidate.
pub fn naive_atom(space: &Space, c: &Candidate, atom: Atom) -> bool {
    match atom {
        Atom::Order(a, b) => naive_order(space, c, a, b),
        Atom::Atomic(a, b) => naive_atomic(space, c, a, b),
    }
}

/// A random candidate built without the crate's enumeration: per block a random linear
/// extension of the direct fixed pairs (Kahn's algorithm with random priorities), then a random
/// join mask and one-item mask whose illegal sections are dropped. Returns the orders (as item
/// indices) too.
pub fn random_candidate(built: &Built, rng: &mut Rng) -> (Candidate, Vec<Vec<usize>>) {
    let mut orders = Vec::new();
    let mut perms = Vec::new();
    let mut sections = Vec::new();
    for (k, block) in built.desc.blocks.iter().enumerate() {
        let n = block.items.len();
        let mut placed = vec![false; n];
        let mut perm = Vec::new();
        while perm.len() < n {
            let ready: Vec<usize> =
                (0..n).filter(|&i| !placed[i] && block.fixed.iter().all(|&(a, b)| b != i || placed[a])).collect();
            let pick = ready[rng.below(ready.len())];
            placed[pick] = true;
            perm.push(pick);
        }
        let (mask, alone) = (rng.next_u64(), rng.next_u64());
        for (s, e) in sections_of(block, &perm, mask, alone) {
            if s == e || run_legal(block, &perm[s..=e]) {
                sections.push((built.locs[k][perm[s]], built.locs[k][perm[e]]));
            }
        }
        orders.push(perm.iter().map(|&i| built.locs[k][i]).collect());
        perms.push(perm);
    }
    let c = Candidate::new(&built.space, orders, &sections).expect("a legal candidate is accepted");
    (c, perms)
}

/// A formula tree, evaluated naively; the reference the arena's simplification must agree with.
#[derive(Clone, Debug)]
pub enum F {
    True,
    False,
    Atom(Atom),
    Not(Box<F>),
    And(Vec<F>),
    Or(Vec<F>),
}

impl F {
    /// The value of the formula on a candidate, by the definitions.
    pub fn eval(&self, space: &Space, c: &Candidate) -> bool {
        match self {
            F::True => true,
            F::False => false,
            F::Atom(a) => naive_atom(space, c, *a),
            F::Not(x) => !x.eval(space, c),
            F::And(xs) => xs.iter().all(|x| x.eval(space, c)),
            F::Or(xs) => xs.iter().any(|x| x.eval(space, c)),
        }
    }

    /// Builds the formula in an arena, children in the given order.
    pub fn build(&self, arena: &mut paces_constraint::Arena) -> paces_constraint::NodeId {
        match self {
            F::True => arena.constant(true),
            F::False => arena.constant(false),
            F::Atom(a) => arena.atom(*a),
            F::Not(x) => {
                let x = x.build(arena);
                arena.not(x)
            }
            F::And(xs) => {
                let ids: Vec<_> = xs.iter().map(|x| x.build(arena)).collect();
                arena.and(ids)
            }
            F::Or(xs) => {
                let ids: Vec<_> = xs.iter().map(|x| x.build(arena)).collect();
                arena.or(ids)
            }
        }
    }

    /// The same formula with the children of every `and`/`or` shuffled.
    pub fn permuted(&self, rng: &mut Rng) -> F {
        match self {
            F::Not(x) => F::Not(Box::new(x.permuted(rng))),
            F::And(xs) | F::Or(xs) => {
                let mut ys: Vec<F> = xs.iter().map(|x| x.permuted(rng)).collect();
                rng.shuffle(&mut ys);
                if matches!(self, F::And(_)) {
                    F::And(ys)
                } else {
                    F::Or(ys)
                }
            }
            leaf => leaf.clone(),
        }
    }
}

/// Random atoms over location indices `0..locs` (items, non-items and ids the space never
/// made), including `a <= a` and `[a; a]`.
pub fn atom(locs: u32) -> impl Strategy<Value = Atom> {
    (0..locs, 0..locs, any::<bool>()).prop_map(|(a, b, order)| {
        let (a, b) = (Loc::from_u32(a), Loc::from_u32(b));
        if order {
            Atom::Order(a, b)
        } else {
            Atom::atomic(a, b)
        }
    })
}

/// Random formula trees over [`atom`]s.
pub fn formula(locs: u32) -> impl Strategy<Value = F> {
    let leaf = prop_oneof![1 => Just(F::True), 1 => Just(F::False), 8 => atom(locs).prop_map(F::Atom)];
    leaf.prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|x| F::Not(Box::new(x))),
            proptest::collection::vec(inner.clone(), 0..5).prop_map(F::And),
            proptest::collection::vec(inner, 0..5).prop_map(F::Or),
        ]
    })
}
