//! The CNF encoding of a [`Space`] and of constraint DAGs.
//!
//! # Variables
//! Per block with items `0..n` in original order and every pair `i < j`:
//! * `inv(i, j)`: item `j` comes before item `i` in the new order (the pair is inverted).
//!   A fixed pair is the constant false. Choosing "inverted" rather than "before" as the
//!   variable makes the solvers' default phase (false) the original program.
//! * `sec(i, j)`: items `i` and `j` lie in one added atomic section. Constant false in a
//!   closed block and for an item kept out of sections (`ItemInfo::no_section`); waits may
//!   stand anywhere in a section (it runs all or nothing).
//! * `one(i)`: item `i` lies alone in an added section; only for an item that takes a section
//!   alone (a compound item of weight 2 or more that is not atomic by itself, in an open
//!   block), exclusive with every `sec(i, j)`.
//! * `in(i)`: item `i` lies in a section with others; only implied by `sec`
//!   (`sec(i, j) -> in(i)`), which is all the cost bound needs: the cost minimisation pushes it
//!   down. An item costs its weight through `in(i)` or `one(i)`, never both.
//!
//! # Clauses
//! Per triple of items of a block:
//! * two clauses forbidding the two directed 3-cycles of the order, which makes every
//!   assignment of `inv` a total order (a linear extension of the fixed pairs, since those
//!   are constants);
//! * in an open block, three clauses making `sec` transitive (an equivalence: its classes of
//!   two or more items are the sections) and six making every class contiguous in the new
//!   order: `sec(a, b)` with `m` between `a` and `b` implies `sec(a, m)`.
//!
//! Per pair, `one(i) -> !sec(i, j)`. So every model is exactly one candidate, and every candidate is a model: sections are the
//! classes, and the triple clauses say nothing more than "total order" and "contiguous".
//!
//! Blocks with more items than `SolverConfig::lazy_above` are lazy: no per-triple clause up
//! front, `inv` only for the pairs that may change order, and `sec(i, j)` only once an atom,
//! a triple or an exclusion names it (a pair without one is in no common section, so a
//! model's sections are the runs of neighbours whose `sec` holds). [`Encoder::refine`]
//! checks each model and adds the clauses of the triples it breaks: 3-cycles of the order,
//! and along the way between two items whose `sec` disagrees with the runs. A long block of
//! conflicting statements so takes memory and time per model in proportion to its length.
//!
//! # Constraints
//! Atoms are literals (`Order(a, b)` is `before(a, b) \/ sec(a, b)`, with an auxiliary
//! variable when neither part is constant; `Atomic(a, a)` is true for an item that does not
//! take a section alone, else `one(a) \/ sec(a, j) \/ ...` over the other items `j`). Compound nodes get Tseitin variables, each node
//! once, with only the implication directions their polarity needs (Plaisted-Greenbaum);
//! a node first needed one way and later the other way gets the missing clauses then.
//! Auxiliary variables are signed so that false is the node's value in the original program.

use std::collections::BinaryHeap;
use std::ops::Not;

use paces_constraint::{Arena, Atom, BlockId, Candidate, Loc, Node, NodeId, Space};
use rustc_hash::{FxHashMap, FxHashSet};
use rustsat::instances::{BasicVarManager, ManageVars};
use rustsat::types::{Lit, Var};

use crate::backend::Backend;
use crate::{Error, ErrorKind};

/// An encoded truth value: a constant, or a literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Const(bool),
    Lit(Lit),
}

impl Not for Val {
    type Output = Val;
    fn not(self) -> Val {
        match self {
            Val::Const(b) => Val::Const(!b),
            Val::Lit(l) => Val::Lit(!l),
        }
    }
}

/// The implication directions of a Tseitin variable `t` for node `N`.
const POS: u8 = 1; // t -> N
const NEG: u8 = 2; // N -> t
const BOTH: u8 = POS | NEG;

fn flip(dirs: u8) -> u8 {
    ((dirs & POS) << 1) | ((dirs & NEG) >> 1)
}

#[derive(Clone, Copy, Debug, Default)]
struct Memo {
    val: Option<Val>,
    done: u8,
    /// Whether the node holds in the original program.
    orig: bool,
}

/// The variables of one block.
///
/// An eager block (at most `SolverConfig::lazy_above` items) has every `sec` variable and
/// every per-triple clause from the start. A lazy block has an `inv` variable per pair that
/// may change order, and a `sec` variable only once something needs it (an atom, a cost-free
/// exclusion, or a model that [`Encoder::refine`] corrects): a pair without one is in no
/// common section. So a long block whose items mostly conflict takes memory in proportion to
/// its length.
#[derive(Debug)]
pub(crate) struct BlockEnc {
    pub(crate) items: Vec<Loc>,
    n: usize,
    /// `inv(i, j)` of every pair that may change order, by `(i, j)`, `i < j` (lookups only).
    inv: FxHashMap<(u32, u32), Lit>,
    /// The same pairs in increasing order, for iteration.
    inv_list: Vec<(u32, u32, Lit)>,
    /// `sec(i, j)` by `(i, j)`, `i < j` (lookups only).
    sec: FxHashMap<(u32, u32), Lit>,
    /// The same pairs in creation order, for iteration.
    sec_list: Vec<(u32, u32, Lit)>,
    /// `one(i)`: item `i` alone in a section.
    one: Vec<Val>,
    /// `in(i)`, for the items that have one.
    member: Vec<Option<Lit>>,
    /// Per item: whether a section may hold it (false for all items of a closed block and for
    /// an item kept out of sections); `sec` of a pair with such an item is constant false.
    sectioned: Vec<bool>,
    /// Whether the per-triple clauses are added on demand (see [`Encoder::refine`]).
    lazy: bool,
    /// Lazy blocks: the triples whose clauses are in (all of them, or the order ones only).
    triples: FxHashSet<[u32; 3]>,
    order_triples: FxHashSet<[u32; 3]>,
}

impl BlockEnc {
    /// `i` before `j` in the new order (`i != j`).
    pub(crate) fn before(&self, i: usize, j: usize) -> Val {
        let (lo, hi) = (i.min(j) as u32, i.max(j) as u32);
        let inverted = self.inv.get(&(lo, hi)).map_or(Val::Const(false), |&l| Val::Lit(l));
        if i < j {
            !inverted
        } else {
            inverted
        }
    }

    /// `i` and `j` in one section (`i != j`); false for a pair without a variable.
    pub(crate) fn sec(&self, i: usize, j: usize) -> Val {
        let key = (i.min(j) as u32, i.max(j) as u32);
        self.sec.get(&key).map_or(Val::Const(false), |&l| Val::Lit(l))
    }

    /// Item `i` alone in a section.
    pub(crate) fn one(&self, i: usize) -> Val {
        self.one[i]
    }

    /// The `inv` literals of the pairs that may change order, in increasing order of pairs.
    pub(crate) fn inversions(&self) -> impl Iterator<Item = (usize, usize, Lit)> + '_ {
        self.inv_list.iter().map(|&(i, j, l)| (i as usize, j as usize, l))
    }
}

/// Clause counts of the space encoding, before it is built (an upper bound); a lazy block
/// counts a clause per pair that may change order (its `inv` variables), since its clauses
/// come later.
pub(crate) fn estimate_clauses(space: &Space, lazy_above: usize) -> u64 {
    space
        .blocks()
        .map(|b| {
            let n = space.items(b).len() as u64;
            if n > lazy_above as u64 {
                return space.free_pairs(b).count() as u64;
            }
            let triples = n * n.saturating_sub(1) * n.saturating_sub(2) / 6;
            let pairs = n * n.saturating_sub(1) / 2;
            if space.is_closed(b) {
                2 * triples
            } else {
                11 * triples + 4 * pairs
            }
        })
        .sum()
}

/// Triples of a block (sorted item indices) whose order clauses, and whose clauses of every
/// kind, a model breaks.
type Broken = (Vec<[u32; 3]>, Vec<[u32; 3]>);

/// The encoder: owns the backend, the variables, and the memo of encoded nodes.
pub(crate) struct Encoder {
    pub(crate) backend: Box<dyn Backend>,
    pub(crate) vars: BasicVarManager,
    pub(crate) clauses: u64,
    pub(crate) blocks: Vec<BlockEnc>,
    /// `in(i)` literals with the item weights, for the first cost component.
    pub(crate) weight_lits: Vec<(Lit, usize)>,
    /// Non-constant `inv` literals, for the second cost component.
    pub(crate) inversion_lits: Vec<Lit>,
    /// Atom values, for lookups only (never iterated into the encoding).
    atoms: FxHashMap<Atom, Val>,
    memo: Vec<Memo>,
    /// The original program, for the signs of fresh variables.
    original: Candidate,
    /// Nodes encoded with at least one direction (for statistics).
    pub(crate) encoded_nodes: usize,
    buf: Vec<Lit>,
}

impl Encoder {
    /// Encodes the space: order and section variables and their clauses.
    pub(crate) fn new(space: &Space, backend: Box<dyn Backend>, lazy_above: usize) -> Result<Encoder, Error> {
        let mut enc = Encoder {
            backend,
            vars: BasicVarManager::default(),
            clauses: 0,
            blocks: Vec::with_capacity(space.block_count()),
            weight_lits: Vec::new(),
            inversion_lits: Vec::new(),
            atoms: FxHashMap::default(),
            memo: Vec::new(),
            original: Candidate::original(space),
            encoded_nodes: 0,
            buf: Vec::new(),
        };
        for block in space.blocks() {
            let b = enc.encode_block(space, block, lazy_above)?;
            enc.blocks.push(b);
        }
        Ok(enc)
    }

    pub(crate) fn new_lit(&mut self) -> Lit {
        self.vars.new_var().pos_lit()
    }

    /// A fresh variable standing for a value that is `orig` in the original program, signed
    /// so that the variable is false there: the backends decide false first, so their first
    /// models stay near the original program (total orders, few sections, few inversions),
    /// which saves refinement rounds and optimisation steps.
    fn fresh(&mut self, orig: bool) -> Val {
        let l = self.new_lit();
        Val::Lit(if orig { !l } else { l })
    }

    pub(crate) fn max_var(&self) -> Option<Var> {
        self.vars.max_var()
    }

    /// Adds a clause over values: satisfied clauses are skipped, false constants dropped.
    pub(crate) fn clause(&mut self, vals: &[Val]) -> Result<(), Error> {
        self.buf.clear();
        for v in vals {
            match *v {
                Val::Const(true) => return Ok(()),
                Val::Const(false) => {}
                Val::Lit(l) => self.buf.push(l),
            }
        }
        self.clauses += 1;
        self.backend.add_clause(&self.buf)
    }

    /// Adds a clause of literals.
    pub(crate) fn lits_clause(&mut self, lits: &[Lit]) -> Result<(), Error> {
        self.clauses += 1;
        self.backend.add_clause(lits)
    }

    fn encode_block(&mut self, space: &Space, block: BlockId, lazy_above: usize) -> Result<BlockEnc, Error> {
        let items = space.items(block).to_vec();
        let n = items.len();
        let lazy = n > lazy_above;
        let mut b = BlockEnc {
            items,
            n,
            inv: FxHashMap::default(),
            inv_list: Vec::new(),
            sec: FxHashMap::default(),
            sec_list: Vec::new(),
            one: Vec::new(),
            member: vec![None; n],
            sectioned: space.items(block).iter().map(|&l| space.may_be_in_section(l)).collect(),
            lazy,
            triples: FxHashSet::default(),
            order_triples: FxHashSet::default(),
        };
        if lazy {
            for (i, j) in space.free_pairs(block) {
                let l = self.new_lit();
                b.inv.insert((i as u32, j as u32), l);
                b.inv_list.push((i as u32, j as u32, l));
                self.inversion_lits.push(l);
            }
        } else {
            // Pair by pair, `inv` then `sec`.
            for i in 0..n {
                for j in i + 1..n {
                    if space.may_change_order(b.items[i], b.items[j]) {
                        let l = self.new_lit();
                        b.inv.insert((i as u32, j as u32), l);
                        b.inv_list.push((i as u32, j as u32, l));
                        self.inversion_lits.push(l);
                    }
                    if b.sectioned[i] && b.sectioned[j] {
                        let l = self.new_lit();
                        b.sec.insert((i as u32, j as u32), l);
                        b.sec_list.push((i as u32, j as u32, l));
                    }
                }
            }
        }
        b.one = b
            .items
            .iter()
            .map(|&l| if space.takes_section_alone(l) { Val::Lit(self.new_lit()) } else { Val::Const(false) })
            .collect();
        if !lazy {
            let mut emit = |clause: &[Val]| self.clause(clause);
            for i in 0..n {
                for j in i + 1..n {
                    for k in j + 1..n {
                        triple(&b, &|x, y| b.before(x, y), &|x, y| b.sec(x, y), [i, j, k], &mut emit)?;
                    }
                }
            }
            // An item alone in a section is in no section with others: one(i) -> !sec(i, j).
            for i in (0..n).filter(|&i| b.one(i) != Val::Const(false)) {
                for j in (0..n).filter(|&j| j != i) {
                    self.clause(&[!b.one(i), !b.sec(i, j)])?;
                }
            }
        }
        // in(i) <- sec(i, j), and one(i), for the cost.
        for i in 0..n {
            let weight = space.item_info(b.items[i]).map_or(0, |info| info.weight) as usize;
            if let (Val::Lit(one), true) = (b.one(i), weight > 0) {
                self.weight_lits.push((one, weight));
            }
            if weight == 0 || !b.sectioned[i] || n < 2 {
                continue;
            }
            let member = self.new_lit();
            b.member[i] = Some(member);
            // A lazy block has no `sec` yet: each gets its clauses when it is made (`sec_var`).
            let others = if lazy { 0..0 } else { 0..n };
            for j in others.filter(|&j| j != i) {
                if let Val::Lit(s) = b.sec(i, j) {
                    self.lits_clause(&[!s, member])?;
                }
            }
            self.weight_lits.push((member, weight));
        }
        Ok(b)
    }

    /// The value of `sec(i, j)` of block `block`, made a variable first in a lazy open block
    /// (with its clauses: `one` excludes it, it implies `in` of both items).
    pub(crate) fn sec_var(&mut self, block: usize, i: usize, j: usize) -> Result<Val, Error> {
        let b = &self.blocks[block];
        let existing = b.sec(i, j);
        if existing != Val::Const(false) || !b.sectioned[i] || !b.sectioned[j] || i == j {
            return Ok(existing);
        }
        let key = (i.min(j) as u32, i.max(j) as u32);
        let l = self.new_lit();
        let b = &mut self.blocks[block];
        b.sec.insert(key, l);
        b.sec_list.push((key.0, key.1, l));
        let (ones, members) = ([b.one(i), b.one(j)], [b.member[i], b.member[j]]);
        for one in ones {
            if one != Val::Const(false) {
                self.clause(&[!one, Val::Lit(!l)])?;
            }
        }
        for member in members.into_iter().flatten() {
            self.lits_clause(&[!l, member])?;
        }
        Ok(Val::Lit(l))
    }

    /// Adds every clause of triple `t` (sorted) of lazy block `block`, making its `sec`
    /// variables first; nothing when they are in already.
    fn add_triple(&mut self, block: usize, t: [u32; 3]) -> Result<bool, Error> {
        if !self.blocks[block].triples.insert(t) {
            return Ok(false);
        }
        let [i, j, k] = t.map(|x| x as usize);
        for (x, y) in [(i, j), (j, k), (i, k)] {
            self.sec_var(block, x, y)?;
        }
        let mut clauses: Vec<Vec<Val>> = Vec::new();
        let b = &self.blocks[block];
        triple(b, &|x, y| b.before(x, y), &|x, y| b.sec(x, y), [i, j, k], &mut |clause: &[Val]| {
            clauses.push(clause.to_vec());
            Ok(())
        })?;
        for clause in &clauses {
            self.clause(clause)?;
        }
        Ok(true)
    }

    /// Adds the two order clauses of triple `t` (sorted) of lazy block `block`.
    fn add_order_triple(&mut self, block: usize, t: [u32; 3]) -> Result<bool, Error> {
        let b = &mut self.blocks[block];
        if b.triples.contains(&t) || !b.order_triples.insert(t) {
            return Ok(false);
        }
        let [i, j, k] = t.map(|x| x as usize);
        let (ij, jk, ik) = (b.before(i, j), b.before(j, k), b.before(i, k));
        self.clause(&[!ij, !jk, ik])?;
        self.clause(&[ij, jk, !ik])?;
        Ok(true)
    }

    /// Adds the clauses of lazy blocks that the backend's current model violates; returns how
    /// many triples it added them for (none: the model is a candidate).
    ///
    /// The order first: it is total exactly when the items' numbers of predecessors are
    /// `0..n`, which the inverted pairs alone give; when it is not, the order clauses of every
    /// triple the model breaks (each has an inverted pair). Then the sections: the model's
    /// candidate joins neighbours whose `sec` holds into runs, and every `sec` variable must
    /// say whether its two items lie in one run. Where one does not, the clauses of the
    /// triples `(a, x, y)` along the way from `a` to `c` (`x`, `y` neighbours between them)
    /// decide it: transitivity along the way, contiguity back. Every added clause holds for
    /// every candidate.
    pub(crate) fn refine(&mut self) -> Result<usize, Error> {
        // Read the whole model before adding a clause (which ends the backend's model).
        let mut broken = Vec::new();
        for block in 0..self.blocks.len() {
            if self.blocks[block].lazy {
                broken.push((block, self.violations(block)?));
            }
        }
        let mut added = 0;
        for (block, (order_triples, triples)) in broken {
            let mut progress = false;
            for t in &order_triples {
                progress |= self.add_order_triple(block, *t)?;
            }
            for t in &triples {
                progress |= self.add_triple(block, *t)?;
            }
            if !order_triples.is_empty() || !triples.is_empty() {
                if !progress {
                    return Err(Error::new(ErrorKind::Internal, "a model breaks clauses that are in already"));
                }
                added += order_triples.len() + triples.len();
            }
        }
        Ok(added)
    }

    /// The triples of a lazy block whose clauses the current model breaks: order triples (when
    /// the order is not total), else full triples (see [`Encoder::refine`]); sorted.
    fn violations(&self, block: usize) -> Result<Broken, Error> {
        let b = &self.blocks[block];
        let n = b.n;
        let mut inverted: FxHashSet<(u32, u32)> = FxHashSet::default();
        let mut inverted_list: Vec<(u32, u32)> = Vec::new();
        let mut after: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        // An item's position: its original index, one less per earlier item it now precedes,
        // one more per later item that now precedes it.
        let mut position: Vec<i64> = (0..n as i64).collect();
        for &(i, j, l) in &b.inv_list {
            if self.backend.value(l)? {
                inverted.insert((i, j));
                inverted_list.push((i, j));
                after.entry(i).or_default().push(j);
                position[i as usize] += 1;
                position[j as usize] -= 1;
            }
        }
        let mut order = vec![u32::MAX; n];
        let total = position.iter().enumerate().all(|(i, &p)| {
            let slot = usize::try_from(p).ok().and_then(|p| order.get_mut(p));
            match slot {
                Some(slot) if *slot == u32::MAX => {
                    *slot = i as u32;
                    true
                }
                _ => false,
            }
        });
        if !total {
            let inv = |x: u32, y: u32| inverted.contains(&(x, y));
            let mut found = Vec::new();
            for &(i, k) in &inverted_list {
                // i before j before k, yet k before i.
                found.extend((i + 1..k).filter(|&j| !inv(i, j) && !inv(j, k)).map(|j| [i, j, k]));
            }
            for &(i, j) in &inverted_list {
                // j before i and k before j, yet i before k.
                for &k in after.get(&j).into_iter().flatten() {
                    if !inv(i, k) {
                        found.push([i, j, k]);
                    }
                }
            }
            found.sort_unstable();
            found.dedup();
            return Ok((found, Vec::new()));
        }
        let sec_holds = |x: u32, y: u32| -> Result<bool, Error> {
            match b.sec(x as usize, y as usize) {
                Val::Const(c) => Ok(c),
                Val::Lit(l) => self.backend.value(l),
            }
        };
        let mut run = vec![0usize; n];
        for p in 1..n {
            run[p] = if sec_holds(order[p - 1], order[p])? { run[p - 1] } else { p };
        }
        let mut found = Vec::new();
        for &(i, j, l) in &b.sec_list {
            let (pi, pj) = (position[i as usize] as usize, position[j as usize] as usize);
            if self.backend.value(l)? == (run[pi] == run[pj]) {
                continue;
            }
            let (pa, pc) = (pi.min(pj), pi.max(pj));
            let a = order[pa];
            for p in pa + 1..pc {
                let mut t = [a, order[p], order[p + 1]];
                t.sort_unstable();
                found.push(t);
            }
        }
        found.sort_unstable();
        found.dedup();
        Ok((Vec::new(), found))
    }

    /// The value of an atom (both implication directions encoded).
    fn atom(&mut self, space: &Space, atom: Atom) -> Result<Val, Error> {
        if let Some(v) = self.atoms.get(&atom) {
            return Ok(*v);
        }
        let (a, b) = match atom {
            Atom::Order(a, b) | Atom::Atomic(a, b) => (a, b),
        };
        let val = match (space.item_position(a), space.item_position(b)) {
            (Some((block, i)), _) if a == b && matches!(atom, Atom::Atomic(..)) => self.runs_alone(block, i)?,
            _ if a == b => Val::Const(true),
            (Some((ba, i)), Some((bb, j))) if ba == bb => {
                let s = self.sec_var(ba.index(), i, j)?;
                let enc = &self.blocks[ba.index()];
                match atom {
                    Atom::Atomic(..) => s,
                    Atom::Order(..) => {
                        let before = enc.before(i, j);
                        match (before, s) {
                            (Val::Const(true), _) | (_, Val::Const(true)) => Val::Const(true),
                            (Val::Const(false), x) | (x, Val::Const(false)) => x,
                            (Val::Lit(_), Val::Lit(_)) => {
                                let t = self.fresh(atom.holds(&self.original));
                                self.clause(&[!t, before, s])?;
                                self.clause(&[t, !before])?;
                                self.clause(&[t, !s])?;
                                t
                            }
                        }
                    }
                }
            }
            _ => Val::Const(false),
        };
        self.atoms.insert(atom, val);
        Ok(val)
    }

    /// `Atomic(a, a)` for item `i` of `block`: true when `one(i)` is constant false (the item
    /// runs as one step by itself), else `one(i) \/ sec(i, j) \/ ...` over the other items.
    fn runs_alone(&mut self, block: BlockId, i: usize) -> Result<Val, Error> {
        let one = self.blocks[block.index()].one(i);
        if one == Val::Const(false) {
            return Ok(Val::Const(true));
        }
        let mut parts = vec![one];
        for j in (0..self.blocks[block.index()].n).filter(|&j| j != i) {
            parts.push(self.sec_var(block.index(), i, j)?);
        }
        // The original candidate has no section: the atom is false there.
        let t = self.fresh(false);
        self.gate(t, &parts, false, BOTH)?;
        Ok(t)
    }

    /// Every atom encoded so far with its value, sorted (for checks of decoded models).
    pub(crate) fn atom_values(&self) -> Vec<(Atom, Val)> {
        let mut out: Vec<(Atom, Val)> = self.atoms.iter().map(|(a, v)| (*a, *v)).collect();
        out.sort_unstable_by_key(|(a, _)| *a);
        out
    }

    /// Encodes the constraint at `root` (in the direction "root holds") and returns its value.
    ///
    /// The nodes reachable from `root` that miss a needed direction are collected from the
    /// top down (largest id first: every parent has a larger id than its children, so a node's
    /// needs are complete when it is popped), then encoded from the bottom up.
    pub(crate) fn constraint(&mut self, space: &Space, arena: &Arena, root: NodeId) -> Result<Val, Error> {
        if root.index() >= arena.len() {
            return Err(Error::new(
                ErrorKind::UnknownNode,
                format!("constraint {root} is not a node of the arena (which holds {} nodes)", arena.len()),
            ));
        }
        if self.memo.len() > arena.len() {
            return Err(Error::new(
                ErrorKind::UnknownNode,
                format!(
                    "the arena holds {} nodes, fewer than one passed before ({}): all constraints of a solver must come from one arena",
                    arena.len(),
                    self.memo.len()
                ),
            ));
        }
        self.memo.resize(arena.len(), Memo::default());
        let mut need: FxHashMap<NodeId, u8> = FxHashMap::default();
        let mut heap = BinaryHeap::new();
        let mut order = Vec::new();
        let root_need = POS & !self.memo[root.index()].done;
        if root_need != 0 {
            need.insert(root, root_need);
            heap.push(root);
        }
        while let Some(id) = heap.pop() {
            let nd = need[&id];
            order.push(id);
            let mut push = |child: NodeId, dirs: u8, memo: &[Memo]| {
                let missing = dirs & !memo[child.index()].done;
                if missing != 0 {
                    let e = need.entry(child).or_insert(0);
                    if *e == 0 {
                        heap.push(child);
                    }
                    *e |= missing;
                }
            };
            match arena.node(id) {
                Node::Not(c) => push(*c, flip(nd), &self.memo),
                Node::And(cs) | Node::Or(cs) => {
                    for c in cs.iter() {
                        push(*c, nd, &self.memo);
                    }
                }
                Node::True | Node::False | Node::Atom(_) => {}
            }
        }
        let mut kids: Vec<Val> = Vec::new();
        for &id in order.iter().rev() {
            let nd = need[&id];
            let before = self.memo[id.index()];
            let memo = match arena.node(id) {
                Node::True => Memo { val: Some(Val::Const(true)), done: BOTH, orig: true },
                Node::False => Memo { val: Some(Val::Const(false)), done: BOTH, orig: false },
                Node::Atom(a) => Memo { val: Some(self.atom(space, *a)?), done: BOTH, orig: a.holds(&self.original) },
                Node::Not(c) => {
                    let child = self.memo[c.index()];
                    let v = child.val.ok_or_else(|| unencoded(*c))?;
                    Memo { val: Some(!v), done: before.done | nd, orig: !child.orig }
                }
                node @ (Node::And(cs) | Node::Or(cs)) => {
                    let is_and = matches!(node, Node::And(_));
                    // And: a false child absorbs, true children drop out; Or the other way.
                    let (absorbing, neutral) = (Val::Const(!is_and), Val::Const(is_and));
                    kids.clear();
                    let mut absorbed = false;
                    let orig = if is_and {
                        cs.iter().all(|c| self.memo[c.index()].orig)
                    } else {
                        cs.iter().any(|c| self.memo[c.index()].orig)
                    };
                    for c in cs.iter() {
                        let v = self.memo[c.index()].val.ok_or_else(|| unencoded(*c))?;
                        if v == absorbing {
                            absorbed = true;
                            break;
                        }
                        if v != neutral {
                            kids.push(v);
                        }
                    }
                    if absorbed {
                        Memo { val: Some(absorbing), done: BOTH, orig }
                    } else if kids.is_empty() {
                        Memo { val: Some(neutral), done: BOTH, orig }
                    } else if kids.len() == 1 {
                        Memo { val: Some(kids[0]), done: before.done | nd, orig }
                    } else {
                        let t = match before.val {
                            Some(v) => v,
                            None => self.fresh(orig),
                        };
                        let buffer = std::mem::take(&mut kids);
                        self.gate(t, &buffer, is_and, nd)?;
                        kids = buffer;
                        Memo { val: Some(t), done: before.done | nd, orig }
                    }
                }
            };
            if before.done == 0 {
                self.encoded_nodes += 1;
            }
            self.memo[id.index()] = memo;
        }
        self.memo[root.index()].val.ok_or_else(|| unencoded(root))
    }

    /// The Tseitin clauses of `t <-> and(kids)` (or `or`) in the directions `dirs`.
    fn gate(&mut self, t: Val, kids: &[Val], is_and: bool, dirs: u8) -> Result<(), Error> {
        // For `or`, t <-> or(k) is !t <-> and(!k): the same clauses with everything negated,
        // and the directions swapped.
        let (t, dirs, sign) = if is_and { (t, dirs, false) } else { (!t, flip(dirs), true) };
        let lit = |v: Val| if sign { !v } else { v };
        if dirs & POS != 0 {
            for &k in kids {
                self.clause(&[!t, lit(k)])?;
            }
        }
        if dirs & NEG != 0 {
            let mut long: Vec<Val> = kids.iter().map(|&k| !lit(k)).collect();
            long.push(t);
            self.clause(&long)?;
        }
        Ok(())
    }
}

/// The clauses of one triple `i < j < k` of a block, over any kind of value: the encoding
/// itself (`T = Val`) or a check of a model ([`Modeled`]). Which clauses exist depends on the
/// block's constants only, so both uses see the same clauses.
fn triple<T: Copy + Not<Output = T>>(
    b: &BlockEnc,
    before: &dyn Fn(usize, usize) -> T,
    sec: &dyn Fn(usize, usize) -> T,
    [i, j, k]: [usize; 3],
    emit: &mut dyn FnMut(&[T]) -> Result<(), Error>,
) -> Result<(), Error> {
    // No directed 3-cycle i -> j -> k -> i, nor i -> k -> j -> i.
    let (ij, jk, ik) = (before(i, j), before(j, k), before(i, k));
    emit(&[!ij, !jk, ik])?;
    emit(&[ij, jk, !ik])?;
    let never = |x: usize, y: usize| b.sec(x, y) == Val::Const(false);
    if never(i, j) && never(j, k) && never(i, k) {
        return Ok(());
    }
    let (sij, sjk, sik) = (sec(i, j), sec(j, k), sec(i, k));
    // Transitivity of sec, three rotations.
    emit(&[!sij, !sjk, sik])?;
    emit(&[!sjk, !sik, sij])?;
    emit(&[!sij, !sik, sjk])?;
    // Contiguity: for ends (a, c) and middle m, sec(a, c) and m between them gives sec(a, m).
    for (a, m, c) in [(i, j, k), (j, i, k), (i, k, j)] {
        if never(a, c) {
            continue;
        }
        let (sac, sam) = (sec(a, c), sec(a, m));
        emit(&[!sac, !before(a, m), !before(m, c), sam])?;
        emit(&[!sac, !before(c, m), !before(m, a), sam])?;
    }
    Ok(())
}

fn unencoded(id: NodeId) -> Error {
    Error::new(ErrorKind::Internal, format!("node {id} was needed before it was encoded"))
}
