//! Programs of named statements (one block per thread) and their traces, for the tests.

#![allow(dead_code)] // Reason: each test file uses a different part of this module.

use paces_constraint::{Arena, Atom, BlockId, Candidate, ItemInfo, Loc, NodeId, Space, SpaceBuilder};
use paces_trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId};

/// One statement: its label, kind, the variables it reads and what it writes.
#[derive(Clone, Copy)]
pub struct Stmt {
    pub name: &'static str,
    pub kind: EventKind,
    pub reads: &'static [u32],
    pub writes: &'static [(u32, i64)],
}

pub const fn assign(name: &'static str, reads: &'static [u32], writes: &'static [(u32, i64)]) -> Stmt {
    Stmt { name, kind: EventKind::Plain, reads, writes }
}

pub const fn await_(name: &'static str, reads: &'static [u32]) -> Stmt {
    Stmt { name, kind: EventKind::Await, reads, writes: &[] }
}

pub const fn assert_(name: &'static str, reads: &'static [u32]) -> Stmt {
    Stmt { name, kind: EventKind::Assert, reads, writes: &[] }
}

/// A program: threads of statements, each thread one block of the space. Two statements of a
/// thread keep their order when they do not commute (one writes what the other reads or
/// writes).
pub struct Setup {
    pub threads: Vec<Vec<Stmt>>,
    pub space: Space,
}

impl Setup {
    pub fn new(threads: Vec<Vec<Stmt>>) -> Setup {
        let mut b = SpaceBuilder::new();
        let mut locs = std::collections::HashMap::new();
        for body in &threads {
            let block = b.block(false);
            for s in body {
                let loc = b.loc(s.name).unwrap();
                locs.insert(s.name, loc);
                let info = if s.kind == EventKind::Await { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
                b.item(block, loc, info).unwrap();
            }
        }
        let writes = |s: &Stmt, v: u32| s.writes.iter().any(|w| w.0 == v);
        let clash = |a: &Stmt, b: &Stmt| a.writes.iter().any(|&(v, _)| b.reads.contains(&v) || writes(b, v));
        for body in &threads {
            for (i, a) in body.iter().enumerate() {
                for c in &body[i + 1..] {
                    if clash(a, c) || clash(c, a) {
                        let (la, lc) = (locs[a.name], locs[c.name]);
                        b.fix(la, lc).unwrap();
                    }
                }
            }
        }
        Setup { threads, space: b.build().unwrap() }
    }

    pub fn loc(&self, name: &str) -> Loc {
        self.space.loc(name).unwrap_or_else(|| panic!("no statement {name}"))
    }

    /// The thread and statement of a label.
    pub fn find(&self, name: &str) -> (usize, Stmt) {
        for (t, body) in self.threads.iter().enumerate() {
            if let Some(s) = body.iter().find(|s| s.name == name) {
                return (t, *s);
            }
        }
        panic!("no statement {name}")
    }

    /// The trace running the labels in this order (reads from the latest writers).
    pub fn trace(&self, steps: &[&str]) -> Trace {
        let mut b = TraceBuilder::new();
        for &name in steps {
            let (t, s) = self.find(name);
            let loc = self.loc(name);
            let scope = vec![ScopeEntry {
                instance: BlockInstance { block: BlockId::from_u32(t as u32), instance: 0 },
                item: loc,
            }];
            let mut step = b.step(ThreadId::from_u32(t as u32), loc, scope).kind(s.kind);
            for &v in s.reads {
                step = step.read(VarId::from_u32(v));
            }
            for &(v, value) in s.writes {
                step = step.write(VarId::from_u32(v), value);
            }
            step.push().unwrap();
        }
        b.finish()
    }

    /// The conjunction of `a <= b` atoms given by label pairs.
    pub fn orders(&self, arena: &mut Arena, pairs: &[(&str, &str)]) -> NodeId {
        let atoms: Vec<NodeId> =
            pairs.iter().map(|&(a, b)| arena.atom(self.space.order(self.loc(a), self.loc(b)).unwrap())).collect();
        arena.and(atoms)
    }

    /// A candidate from per-thread label orders, no sections.
    pub fn candidate(&self, orders: &[&[&str]]) -> Candidate {
        let orders = orders.iter().map(|o| o.iter().map(|n| self.loc(n)).collect()).collect();
        Candidate::new(&self.space, orders, &[]).unwrap()
    }

    pub fn candidates(&self) -> Vec<Candidate> {
        Candidate::enumerate(&self.space, 100_000).unwrap()
    }

    /// Whether `phi` and `psi` agree on every candidate of the space.
    #[track_caller]
    pub fn assert_equivalent(&self, arena: &Arena, phi: NodeId, psi: NodeId) {
        for c in self.candidates() {
            assert_eq!(
                arena.eval(phi, &c),
                arena.eval(psi, &c),
                "{} and {} differ on {:?}",
                arena.display(phi, &self.space, 200),
                arena.display(psi, &self.space, 200),
                c
            );
        }
    }

    /// Whether `phi` implies `psi` on every candidate of the space.
    #[track_caller]
    pub fn assert_implies(&self, arena: &Arena, phi: NodeId, psi: NodeId) {
        for c in self.candidates() {
            assert!(
                !arena.eval(phi, &c) || arena.eval(psi, &c),
                "{} does not imply {} on {:?}",
                arena.display(phi, &self.space, 200),
                arena.display(psi, &self.space, 200),
                c
            );
        }
    }

    pub fn order_atom(&self, a: &str, b: &str) -> Atom {
        Atom::Order(self.loc(a), self.loc(b))
    }
}
