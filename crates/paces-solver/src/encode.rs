//! The CNF encoding of a [`Space`] and of constraint DAGs.
//!
//! # Variables
//! Per block with items `0..n` in original order and every pair `i < j`:
//! * `inv(i, j)`: item `j` comes before item `i` in the new order (the pair is inverted).
//!   A fixed pair is the constant false. Choosing "inverted" rather than "before" as the
//!   variable makes the solvers' default phase (false) the original program.
//! * `sec(i, j)`: items `i` and `j` lie in one added atomic section. Constant false in a
//!   closed block, for an item holding an await that is not its first step, for two awaits
//!   (only one of them could open the section) and for an await that must stay after the
//!   other item (it could not be first).
//! * `in(i)`: item `i` lies in some section; only implied by `sec` (`sec(i, j) -> in(i)`),
//!   which is all the cost bound needs: the cost minimisation pushes it down.
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
//! Per pair, an await `i` may only open its section: `sec(i, j) -> before(i, j)`.
//! So every model is exactly one candidate, and every candidate is a model: sections are the
//! classes, and the triple clauses say nothing more than "total order" and "contiguous".
//!
//! # Constraints
//! Atoms are literals (`Order(a, b)` is `before(a, b) \/ sec(a, b)`, with an auxiliary
//! variable when neither part is constant). Compound nodes get Tseitin variables, each node
//! once, with only the implication directions their polarity needs (Plaisted-Greenbaum);
//! a node first needed one way and later the other way gets the missing clauses then.

use std::collections::BinaryHeap;
use std::ops::Not;

use paces_constraint::{Arena, Atom, BlockId, Loc, Node, NodeId, SectionRole, Space};
use rustc_hash::FxHashMap;
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
}

/// The variables of one block.
#[derive(Debug)]
pub(crate) struct BlockEnc {
    pub(crate) items: Vec<Loc>,
    n: usize,
    /// `inv(i, j)` at `i * n + j` for `i < j`.
    inv: Vec<Val>,
    /// `sec(i, j)` at `i * n + j` for `i < j`.
    sec: Vec<Val>,
}

impl BlockEnc {
    /// `i` before `j` in the new order (`i != j`).
    pub(crate) fn before(&self, i: usize, j: usize) -> Val {
        if i < j {
            !self.inv[i * self.n + j]
        } else {
            self.inv[j * self.n + i]
        }
    }

    /// `i` and `j` in one section (`i != j`).
    pub(crate) fn sec(&self, i: usize, j: usize) -> Val {
        self.sec[i.min(j) * self.n + i.max(j)]
    }

    /// Every pair `(i, j)`, `i < j`, with its `inv` and `sec` values.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (usize, usize, Val, Val)> + '_ {
        let n = self.n;
        (0..n).flat_map(move |i| (i + 1..n).map(move |j| (i, j, self.inv[i * n + j], self.sec[i * n + j])))
    }
}

/// Clause counts of the space encoding, before it is built (an upper bound).
pub(crate) fn estimate_clauses(space: &Space) -> u64 {
    space
        .blocks()
        .map(|b| {
            let n = space.items(b).len() as u64;
            let triples = n * n.saturating_sub(1) * n.saturating_sub(2) / 6;
            let pairs = n * n.saturating_sub(1) / 2;
            if space.is_closed(b) {
                2 * triples
            } else {
                11 * triples + 3 * pairs
            }
        })
        .sum()
}

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
    /// Nodes encoded with at least one direction (for statistics).
    pub(crate) encoded_nodes: usize,
    buf: Vec<Lit>,
}

impl Encoder {
    /// Encodes the space: order and section variables and their clauses.
    pub(crate) fn new(space: &Space, backend: Box<dyn Backend>) -> Result<Encoder, Error> {
        let mut enc = Encoder {
            backend,
            vars: BasicVarManager::default(),
            clauses: 0,
            blocks: Vec::with_capacity(space.block_count()),
            weight_lits: Vec::new(),
            inversion_lits: Vec::new(),
            atoms: FxHashMap::default(),
            memo: Vec::new(),
            encoded_nodes: 0,
            buf: Vec::new(),
        };
        for block in space.blocks() {
            let b = enc.encode_block(space, block)?;
            enc.blocks.push(b);
        }
        Ok(enc)
    }

    pub(crate) fn new_lit(&mut self) -> Lit {
        self.vars.new_var().pos_lit()
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

    fn encode_block(&mut self, space: &Space, block: BlockId) -> Result<BlockEnc, Error> {
        let items = space.items(block).to_vec();
        let n = items.len();
        let open = !space.is_closed(block);
        let roles: Vec<SectionRole> =
            items.iter().map(|&l| space.item_info(l).map_or(SectionRole::Excluded, |info| info.role)).collect();
        let role = |i: usize| roles[i];
        let mut inv = vec![Val::Const(false); n * n];
        let mut sec = vec![Val::Const(false); n * n];
        for i in 0..n {
            for j in i + 1..n {
                if space.may_change_order(items[i], items[j]) {
                    let l = self.new_lit();
                    inv[i * n + j] = Val::Lit(l);
                    self.inversion_lits.push(l);
                }
                let possible = open
                    && match (role(i), role(j)) {
                        (SectionRole::Excluded, _) | (_, SectionRole::Excluded) => false,
                        (SectionRole::Opener, SectionRole::Opener) => false,
                        // The await j must open the section but must stay after i.
                        (_, SectionRole::Opener) => !space.is_fixed(items[i], items[j]),
                        _ => true,
                    };
                if possible {
                    sec[i * n + j] = Val::Lit(self.new_lit());
                }
            }
        }
        let b = BlockEnc { items, n, inv, sec };
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    self.triple(&b, i, j, k)?;
                }
            }
        }
        // An await opens its section: sec(i, j) -> before(i, j).
        for i in 0..n {
            if role(i) == SectionRole::Opener {
                for j in (0..n).filter(|&j| j != i) {
                    self.clause(&[!b.sec(i, j), b.before(i, j)])?;
                }
            }
        }
        // in(i) <- sec(i, j), for the cost.
        for i in 0..n {
            let weight = space.item_info(b.items[i]).map_or(0, |info| info.weight) as usize;
            let secs: Vec<Val> =
                (0..n).filter(|&j| j != i).map(|j| b.sec(i, j)).filter(|v| *v != Val::Const(false)).collect();
            if weight == 0 || secs.is_empty() {
                continue;
            }
            let member = self.new_lit();
            for s in secs {
                self.clause(&[!s, Val::Lit(member)])?;
            }
            self.weight_lits.push((member, weight));
        }
        Ok(b)
    }

    fn triple(&mut self, b: &BlockEnc, i: usize, j: usize, k: usize) -> Result<(), Error> {
        // No directed 3-cycle i -> j -> k -> i, nor i -> k -> j -> i.
        let (ij, jk, ik) = (b.before(i, j), b.before(j, k), b.before(i, k));
        self.clause(&[!ij, !jk, ik])?;
        self.clause(&[ij, jk, !ik])?;
        let (sij, sjk, sik) = (b.sec(i, j), b.sec(j, k), b.sec(i, k));
        if sij == Val::Const(false) && sjk == Val::Const(false) && sik == Val::Const(false) {
            return Ok(());
        }
        // Transitivity of sec, three rotations.
        self.clause(&[!sij, !sjk, sik])?;
        self.clause(&[!sjk, !sik, sij])?;
        self.clause(&[!sij, !sik, sjk])?;
        // Contiguity: for ends (a, c) and middle m, sec(a, c) and m between them gives sec(a, m).
        for (a, m, c) in [(i, j, k), (j, i, k), (i, k, j)] {
            let sac = b.sec(a, c);
            if sac == Val::Const(false) {
                continue;
            }
            let sam = b.sec(a, m);
            self.clause(&[!sac, !b.before(a, m), !b.before(m, c), sam])?;
            self.clause(&[!sac, !b.before(c, m), !b.before(m, a), sam])?;
        }
        Ok(())
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
            _ if a == b => Val::Const(true),
            (Some((ba, i)), Some((bb, j))) if ba == bb => {
                let enc = &self.blocks[ba.index()];
                let s = enc.sec(i, j);
                match atom {
                    Atom::Atomic(..) => s,
                    Atom::Order(..) => {
                        let before = enc.before(i, j);
                        match (before, s) {
                            (Val::Const(true), _) | (_, Val::Const(true)) => Val::Const(true),
                            (Val::Const(false), x) | (x, Val::Const(false)) => x,
                            (Val::Lit(_), Val::Lit(_)) => {
                                let t = Val::Lit(self.new_lit());
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
                Node::True => Memo { val: Some(Val::Const(true)), done: BOTH },
                Node::False => Memo { val: Some(Val::Const(false)), done: BOTH },
                Node::Atom(a) => Memo { val: Some(self.atom(space, *a)?), done: BOTH },
                Node::Not(c) => {
                    let v = self.memo[c.index()].val.ok_or_else(|| unencoded(*c))?;
                    Memo { val: Some(!v), done: before.done | nd }
                }
                node @ (Node::And(cs) | Node::Or(cs)) => {
                    let is_and = matches!(node, Node::And(_));
                    // And: a false child absorbs, true children drop out; Or the other way.
                    let (absorbing, neutral) = (Val::Const(!is_and), Val::Const(is_and));
                    kids.clear();
                    let mut absorbed = false;
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
                        Memo { val: Some(absorbing), done: BOTH }
                    } else if kids.is_empty() {
                        Memo { val: Some(neutral), done: BOTH }
                    } else if kids.len() == 1 {
                        Memo { val: Some(kids[0]), done: before.done | nd }
                    } else {
                        let t = match before.val {
                            Some(v) => v,
                            None => Val::Lit(self.new_lit()),
                        };
                        let kids = std::mem::take(&mut kids);
                        self.gate(t, &kids, is_and, nd)?;
                        let memo = Memo { val: Some(t), done: before.done | nd };
                        let mut kids = kids;
                        kids.clear();
                        memo
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

fn unencoded(id: NodeId) -> Error {
    Error::new(ErrorKind::Internal, format!("node {id} was needed before it was encoded"))
}
