//! The constraint algebra: atoms over locations and a hash-consed arena of formulas.

use std::fmt::{self, Write as _};

use std::hash::BuildHasher as _;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use smallvec::SmallVec;

use crate::{Candidate, Loc, NodeId, Space};

/// Sub-formulas with more children than this are kept as one child when a parent of the same
/// connective is built, instead of being spliced in: splicing large disjunctions into every
/// parent would copy them again and again and lose the sharing that keeps LearnGoodUnder
/// polynomial.
pub const FLATTEN_LIMIT: usize = 16;

/// An atomic program constraint.
///
/// Both atoms speak of two items of one block. [`Space::order`] and [`Space::atomic`] check
/// that and return [`ErrorKind::NotInOneBlock`](crate::ErrorKind::NotInOneBlock) otherwise;
/// an unchecked atom over two different locations that are not items of one block never
/// holds (it is `false` on every candidate). `a <= a` always holds, and the [`Arena`] turns it
/// into `true`. `[a; a]` says that `a` runs as one step: it holds trivially for an item that is
/// atomic by itself (and for a location that is no item), and for a compound item that
/// [takes a section alone](crate::ItemInfo::takes_section_alone) exactly when an added section
/// holds it (alone or with others).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    /// `a <= b`: `a` comes before `b` in their block's new order, or both lie in one atomic
    /// section.
    Order(Loc, Loc),
    /// `[a; b]`: `a` and `b` lie in one atomic section (`[a; a]`: `a` runs as one step).
    /// Symmetric; stored with the smaller location first (use [`Atom::atomic`]).
    Atomic(Loc, Loc),
}

impl Atom {
    /// The atom `Atomic(a, b)` in its normal form (smaller location first).
    pub fn atomic(a: Loc, b: Loc) -> Atom {
        Atom::Atomic(a.min(b), a.max(b))
    }

    /// Whether the atom holds in a candidate. `Order(a, a)` holds, `Atomic(a, a)` as said on
    /// [`Atom`]; atoms
    /// over locations that are not items of one block do not (validate atoms with
    /// [`Space::order`] and [`Space::atomic`]).
    #[inline]
    pub fn holds(&self, candidate: &Candidate) -> bool {
        match *self {
            Atom::Order(a, b) => candidate.holds_order(a, b),
            Atom::Atomic(a, b) => candidate.holds_atomic(a, b),
        }
    }

    /// Displays the atom in the paper's notation (`A <= B`, `[A; B]`) with the space's names.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayAtom { atom: *self, names: space }
    }
}

struct DisplayAtom<'a> {
    atom: Atom,
    names: &'a Space,
}

impl fmt::Display for DisplayAtom<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.atom {
            Atom::Order(a, b) => write!(f, "{} <= {}", self.names.name(a), self.names.name(b)),
            Atom::Atomic(a, b) => write!(f, "[{}; {}]", self.names.name(a), self.names.name(b)),
        }
    }
}

/// One node of an [`Arena`]. Children always have smaller ids than their parent.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// The constant true.
    True,
    /// The constant false.
    False,
    /// An atom.
    Atom(Atom),
    /// Negation.
    Not(NodeId),
    /// Conjunction of at least two children, sorted by id, without duplicates.
    And(Box<[NodeId]>),
    /// Disjunction of at least two children, sorted by id, without duplicates.
    Or(Box<[NodeId]>),
}

/// Size statistics of a constraint (see [`Arena::stats`]).
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Distinct nodes reachable from the root (shared nodes counted once).
    pub nodes: usize,
    /// Distinct atoms among them.
    pub atoms: usize,
    /// Longest path from the root to a leaf, in edges.
    pub depth: usize,
}

/// A hash-consed store of constraints: one node per distinct sub-formula, simplified on
/// construction: constants (`x /\ true = x`, `x /\ false = false`, `!true = false`, ...),
/// duplicates (`x /\ x = x`), double negation, flattening of small children of the same
/// connective (`(x /\ y) /\ z = x /\ y /\ z`, up to [`FLATTEN_LIMIT`] children), and a child
/// next to its negation (`x /\ !x = false`, `x \/ !x = true`, also when `x` was flattened).
/// Children are kept sorted by id, so the order in which they are given does not matter.
///
/// Every operation is iterative: arenas of millions of nodes and deep formulas never
/// overflow the stack. A [`NodeId`] means something only in the arena that returned it;
/// handing an arena an id it never returned panics like an out-of-range slice index (and an
/// arena panics when it would exceed 2^32 nodes).
///
/// # Example
/// ```
/// use paces_constraint::{Arena, Atom, Loc};
/// let (a, b) = (Loc::from_u32(0), Loc::from_u32(1));
/// let mut arena = Arena::new();
/// let x = arena.atom(Atom::Order(a, b));
/// let y = arena.atom(Atom::atomic(a, b));
/// let left = arena.and([x, y]);
/// let right = arena.and([y, x]);
/// assert_eq!(left, right); // the same node, whatever the order
/// let nx = arena.not(x);
/// assert_eq!(arena.and([x, nx]), arena.constant(false));
/// ```
#[derive(Clone, Debug)]
pub struct Arena {
    nodes: Vec<Node>,
    /// Every node id with its 32-bit hash (see [`table_hash`]): each node is stored once, in
    /// `nodes`, looked up by a borrowed key without building a node first, and growing the
    /// table never has to visit the nodes again.
    table: HashTable<(NodeId, u32)>,
}

/// A node seen by reference, for hashing and comparing without allocating.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Const(bool),
    Atom(Atom),
    Not(NodeId),
    And(&'a [NodeId]),
    Or(&'a [NodeId]),
}

impl Node {
    fn key(&self) -> Key<'_> {
        match self {
            Node::True => Key::Const(true),
            Node::False => Key::Const(false),
            Node::Atom(a) => Key::Atom(*a),
            Node::Not(c) => Key::Not(*c),
            Node::And(cs) => Key::And(cs),
            Node::Or(cs) => Key::Or(cs),
        }
    }
}

/// The 32-bit hash of a key.
fn hash_key(key: &Key<'_>) -> u32 {
    (FxBuildHasher.hash_one(key) >> 32) as u32
}

/// The 64-bit hash the table works with, spread from the stored 32 bits (an odd multiplier
/// carries every bit into the high bits the table uses for its tags).
fn table_hash(hash: u32) -> u64 {
    u64::from(hash).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

const TRUE: NodeId = NodeId::from_u32(0);
const FALSE: NodeId = NodeId::from_u32(1);

impl Arena {
    /// An arena holding only the constants.
    pub fn new() -> Self {
        let mut arena = Arena { nodes: Vec::new(), table: HashTable::new() };
        arena.intern(Node::True);
        arena.intern(Node::False);
        arena
    }

    /// The node with this key, if the arena holds it, and the key's hash.
    fn find(&self, key: Key<'_>) -> (Option<NodeId>, u32) {
        let hash = hash_key(&key);
        let found = self
            .table
            .find(table_hash(hash), |&(id, h)| h == hash && self.nodes[id.index()].key() == key)
            .map(|&(id, _)| id);
        (found, hash)
    }

    /// Stores a node the arena does not hold yet, under the hash of its key.
    fn insert_new(&mut self, hash: u32, node: Node) -> NodeId {
        let id = NodeId::new(self.nodes.len()).expect("arena holds fewer than 2^32 nodes");
        self.nodes.push(node);
        self.table.insert_unique(table_hash(hash), (id, hash), |&(_, h)| table_hash(h));
        id
    }

    fn intern(&mut self, node: Node) -> NodeId {
        match self.find(node.key()) {
            (Some(id), _) => id,
            (None, hash) => self.insert_new(hash, node),
        }
    }

    /// The number of nodes in the arena (the two constants included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the arena holds only the constants.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 2
    }

    /// The node behind an id.
    ///
    /// # Panics
    /// When the id is not from this arena.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// The constant `value`: the formula `true` (every candidate satisfies it) or `false`
    /// (none does). Both are in every arena; this does not add a node.
    pub fn constant(&self, value: bool) -> NodeId {
        if value {
            TRUE
        } else {
            FALSE
        }
    }

    /// An atom. `Order(a, a)` is true; `Atomic(a, a)` stays an atom (whether it holds depends
    /// on the item, see [`Atom`]).
    pub fn atom(&mut self, atom: Atom) -> NodeId {
        match atom {
            Atom::Order(a, b) if a == b => TRUE,
            Atom::Atomic(a, b) => self.intern(Node::Atom(Atom::atomic(a, b))),
            Atom::Order(..) => self.intern(Node::Atom(atom)),
        }
    }

    /// The atom `Order(a, b)`.
    pub fn order(&mut self, a: Loc, b: Loc) -> NodeId {
        self.atom(Atom::Order(a, b))
    }

    /// The atom `Atomic(a, b)`.
    pub fn atomic(&mut self, a: Loc, b: Loc) -> NodeId {
        self.atom(Atom::atomic(a, b))
    }

    /// Negation.
    pub fn not(&mut self, x: NodeId) -> NodeId {
        match self.nodes[x.index()] {
            Node::True => FALSE,
            Node::False => TRUE,
            Node::Not(y) => y,
            _ => self.intern(Node::Not(x)),
        }
    }

    /// Conjunction of any number of constraints (true for none).
    pub fn and(&mut self, children: impl IntoIterator<Item = NodeId>) -> NodeId {
        self.nary(children, true)
    }

    /// Disjunction of any number of constraints (false for none).
    pub fn or(&mut self, children: impl IntoIterator<Item = NodeId>) -> NodeId {
        self.nary(children, false)
    }

    fn nary(&mut self, children: impl IntoIterator<Item = NodeId>, is_and: bool) -> NodeId {
        // For `and`, true is neutral and false absorbs; for `or` the other way round.
        let (neutral, absorbing) = if is_and { (TRUE, FALSE) } else { (FALSE, TRUE) };
        // Most connectives are small: their children are gathered without a heap allocation,
        // so a node the arena already holds costs none.
        let mut kids: SmallVec<[NodeId; 8]> = SmallVec::new();
        for c in children {
            if c == neutral {
                continue;
            }
            if c == absorbing {
                return absorbing;
            }
            match &self.nodes[c.index()] {
                Node::And(inner) if is_and && inner.len() <= FLATTEN_LIMIT => kids.extend_from_slice(inner),
                Node::Or(inner) if !is_and && inner.len() <= FLATTEN_LIMIT => kids.extend_from_slice(inner),
                _ => kids.push(c),
            }
        }
        kids.sort_unstable();
        kids.dedup();
        // x together with !x. A child x of the same connective may have been spliced in, so
        // `!x` also meets its complement when every child of x is among the children.
        for &k in &kids {
            if let Node::Not(y) = self.nodes[k.index()] {
                let complement = kids.binary_search(&y).is_ok()
                    || match &self.nodes[y.index()] {
                        Node::And(inner) if is_and => inner.iter().all(|c| kids.binary_search(c).is_ok()),
                        Node::Or(inner) if !is_and => inner.iter().all(|c| kids.binary_search(c).is_ok()),
                        _ => false,
                    };
                if complement {
                    return absorbing;
                }
            }
        }
        match kids.len() {
            0 => neutral,
            1 => kids[0],
            _ => {
                // Look the children up borrowed: only a new node pays for its allocation.
                let (found, hash) = self.find(if is_and { Key::And(&kids) } else { Key::Or(&kids) });
                if let Some(id) = found {
                    return id;
                }
                let kids: Box<[NodeId]> = Box::from(kids.as_slice());
                self.insert_new(hash, if is_and { Node::And(kids) } else { Node::Or(kids) })
            }
        }
    }

    /// Marks the nodes reachable from `root`; returns the marks indexed by node id.
    ///
    /// Children have smaller ids than their parents, so one descending pass over the ids marks
    /// everything: sequential, no stack, and a node is marked before it is visited.
    pub(crate) fn reachable(&self, root: NodeId) -> Vec<bool> {
        let mut seen = vec![false; root.index() + 1];
        seen[root.index()] = true;
        for i in (0..=root.index()).rev() {
            if !seen[i] {
                continue;
            }
            match &self.nodes[i] {
                Node::Not(c) => seen[c.index()] = true,
                Node::And(cs) | Node::Or(cs) => cs.iter().for_each(|c| seen[c.index()] = true),
                Node::True | Node::False | Node::Atom(_) => {}
            }
        }
        seen
    }

    /// `candidate |= root`: whether the candidate satisfies the constraint.
    ///
    /// Runs without recursion in two sequential passes over the ids up to `root` (children
    /// have smaller ids): one down to mark what `root` reaches, one up to evaluate what was
    /// marked, each shared node once.
    pub fn eval(&self, root: NodeId, candidate: &Candidate) -> bool {
        let seen = self.reachable(root);
        let mut value = vec![false; root.index() + 1];
        for (i, _) in seen.iter().enumerate().filter(|(_, s)| **s) {
            value[i] = match &self.nodes[i] {
                Node::True => true,
                Node::False => false,
                Node::Atom(a) => a.holds(candidate),
                Node::Not(c) => !value[c.index()],
                Node::And(cs) => cs.iter().all(|c| value[c.index()]),
                Node::Or(cs) => cs.iter().any(|c| value[c.index()]),
            };
        }
        value[root.index()]
    }

    /// Size statistics of the constraint at `root`.
    pub fn stats(&self, root: NodeId) -> Stats {
        let seen = self.reachable(root);
        let mut depth = vec![0usize; root.index() + 1];
        let mut stats = Stats::default();
        for (i, _) in seen.iter().enumerate().filter(|(_, s)| **s) {
            stats.nodes += 1;
            depth[i] = match &self.nodes[i] {
                Node::Atom(_) => {
                    stats.atoms += 1;
                    0
                }
                Node::True | Node::False => 0,
                Node::Not(c) => depth[c.index()] + 1,
                Node::And(cs) | Node::Or(cs) => cs.iter().map(|c| depth[c.index()]).max().unwrap_or(0) + 1,
            };
        }
        stats.depth = depth[root.index()];
        stats
    }

    /// The distinct atoms a constraint mentions, sorted.
    pub fn atoms(&self, root: NodeId) -> Vec<Atom> {
        let seen = self.reachable(root);
        let mut out: Vec<Atom> = seen
            .iter()
            .enumerate()
            .filter(|(_, s)| **s)
            .filter_map(|(i, _)| match self.nodes[i] {
                Node::Atom(a) => Some(a),
                _ => None,
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// Displays a constraint in the paper's notation (`C <= A /\ [B; C]`, `\/`, `!`) with the
    /// space's names. Shared sub-formulas are printed at every use, so the text may be
    /// exponentially longer than the arena; it is cut after `max_chars` bytes (at a character
    /// boundary) and then ends in `...`. Pass `usize::MAX` for the whole text.
    pub fn display<'a>(&'a self, root: NodeId, space: &'a Space, max_chars: usize) -> impl fmt::Display + 'a {
        DisplayConstraint { arena: self, root, space, max_chars }
    }

    /// The text of [`Arena::display`] with an explicit naming function, for callers without a
    /// [`Space`]. Iterative: formulas millions of levels deep print without recursion.
    pub fn to_text(&self, root: NodeId, name: &dyn Fn(Loc) -> String, max_chars: usize) -> String {
        enum Frame {
            Node(NodeId, u8),
            Text(&'static str),
        }
        // Precedence: 0 top, 1 inside or, 2 inside and, 3 inside not.
        let mut out = String::new();
        let mut stack = vec![Frame::Node(root, 0)];
        while let Some(frame) = stack.pop() {
            if out.len() > max_chars {
                break;
            }
            match frame {
                Frame::Text(t) => out.push_str(t),
                Frame::Node(id, prec) => match &self.nodes[id.index()] {
                    Node::True => out.push_str("true"),
                    Node::False => out.push_str("false"),
                    Node::Atom(Atom::Order(a, b)) => {
                        let _ = write!(out, "{} <= {}", name(*a), name(*b));
                    }
                    Node::Atom(Atom::Atomic(a, b)) => {
                        let _ = write!(out, "[{}; {}]", name(*a), name(*b));
                    }
                    Node::Not(c) => {
                        out.push('!');
                        stack.push(Frame::Node(*c, 3));
                    }
                    Node::And(cs) | Node::Or(cs) => {
                        let is_and = matches!(self.nodes[id.index()], Node::And(_));
                        let my = if is_and { 2 } else { 1 };
                        let paren = prec >= my;
                        if paren {
                            out.push('(');
                            stack.push(Frame::Text(")"));
                        }
                        for (k, c) in cs.iter().enumerate().rev() {
                            stack.push(Frame::Node(*c, my));
                            if k > 0 {
                                stack.push(Frame::Text(if is_and { " /\\ " } else { " \\/ " }));
                            }
                        }
                    }
                },
            }
        }
        if out.len() > max_chars {
            // Cut at a character boundary: names may hold any characters.
            let mut cut = max_chars;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push_str("...");
        }
        out
    }
}

struct DisplayConstraint<'a> {
    arena: &'a Arena,
    root: NodeId,
    space: &'a Space,
    max_chars: usize,
}

impl fmt::Display for DisplayConstraint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.arena.to_text(self.root, &|l| self.space.name(l).to_owned(), self.max_chars);
        f.write_str(&text)
    }
}
