//! A constraint on its own, outside any arena: for storing, sending and reading back.

use crate::{Arena, Error, ErrorKind, Node, NodeId};

/// One constraint as a self-contained list of nodes, children before parents, the root last:
/// what [`Arena::export`] gives and [`Arena::import`] reads back into any arena. Node ids in
/// it are positions in [`Formula::nodes`], not ids of the arena it came from. With the
/// `serde` feature it is serialised as `{"nodes": [...]}`, each node `"true"`, `"false"`,
/// `{"atom": {"order": [a, b]}}`, `{"atom": {"atomic": [a, b]}}`, `{"not": i}`,
/// `{"and": [i, ...]}` or `{"or": [i, ...]}`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Formula {
    /// The nodes, each child before its parents; the root is the last.
    pub nodes: Vec<Node>,
}

impl Formula {
    /// A formula from its nodes (children before parents, the root last); checked when
    /// imported.
    pub fn new(nodes: Vec<Node>) -> Formula {
        Formula { nodes }
    }
}

impl Arena {
    /// The constraint at `root` on its own: the nodes it reaches, renumbered from 0 in id
    /// order (so children stay before parents), the root last.
    pub fn export(&self, root: NodeId) -> Formula {
        let seen = self.reachable(root);
        let mut renumber = vec![NodeId::from_u32(0); seen.len()];
        let mut nodes = Vec::new();
        for (i, _) in seen.iter().enumerate().filter(|(_, s)| **s) {
            let map = |c: &NodeId| renumber[c.index()];
            let node = match self.node(NodeId::from_u32(i as u32)) {
                Node::Not(c) => Node::Not(map(c)),
                Node::And(cs) => Node::And(cs.iter().map(map).collect()),
                Node::Or(cs) => Node::Or(cs.iter().map(map).collect()),
                other => other.clone(),
            };
            renumber[i] = NodeId::from_u32(nodes.len() as u32);
            nodes.push(node);
        }
        Formula { nodes }
    }

    /// Reads a [`Formula`] into this arena (simplified and hash-consed like every constraint
    /// built here) and returns its root. The atoms are not checked against a space: check
    /// them with [`Space::order`](crate::Space::order) and
    /// [`Space::atomic`](crate::Space::atomic) when the formula comes from elsewhere.
    ///
    /// # Errors
    /// [`ErrorKind::BadFormula`] when a node names a child that is not an earlier node, or
    /// the formula holds no node.
    pub fn import(&mut self, formula: &Formula) -> Result<NodeId, Error> {
        let mut ids: Vec<NodeId> = Vec::with_capacity(formula.nodes.len());
        for (i, node) in formula.nodes.iter().enumerate() {
            let child = |c: &NodeId| {
                ids.get(c.index()).copied().ok_or_else(|| {
                    let message =
                        format!("node {i} of the formula names node {}, which does not come before it", c.index());
                    Error::new(ErrorKind::BadFormula, message)
                })
            };
            let id = match node {
                Node::True => self.constant(true),
                Node::False => self.constant(false),
                Node::Atom(atom) => self.atom(*atom),
                Node::Not(c) => {
                    let c = child(c)?;
                    self.not(c)
                }
                Node::And(cs) => {
                    let cs = cs.iter().map(child).collect::<Result<Vec<_>, _>>()?;
                    self.and(cs)
                }
                Node::Or(cs) => {
                    let cs = cs.iter().map(child).collect::<Result<Vec<_>, _>>()?;
                    self.or(cs)
                }
            };
            ids.push(id);
        }
        ids.last().copied().ok_or_else(|| Error::new(ErrorKind::BadFormula, "the formula holds no node"))
    }
}
