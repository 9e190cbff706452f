//! The cycle search: the elimination cycles with at most K constraint edges, found
//! cheapest first from their heaviest backward constraint edge, under the bounds of the
//! [`EliminateConfig`].

use std::collections::BinaryHeap;

use paces_constraint::Atom;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::edges::Opt;
use super::graph::{bit, Graph};
use super::EliminateConfig;
use crate::Error;

/// A cycle found by the search: its constraint edges in cycle order, as (tail, head,
/// option), and its weight (the sum of those edges' weights).
#[derive(Clone, Debug)]
pub(super) struct Raw {
    pub(super) edges: SmallVec<[(u32, u32, Opt); 2]>,
    pub(super) weight: u64,
}

/// What the search found: the cheapest cycle of each set of atoms.
pub(super) struct Found {
    /// The cheapest cycle found for each set of atoms (sorted, deduplicated).
    pub(super) cycles: FxHashMap<Vec<Atom>, Raw>,
    /// The keys of `cycles` in the order they were first found.
    pub(super) order: Vec<Vec<Atom>>,
    /// Whether the search ran to its end (no bound cut it short).
    pub(super) complete: bool,
}

/// Finds the elimination cycles of `g` with at most `config`'s K constraint edges, the
/// cheapest for each set of atoms. A cycle heavier than the [`EliminateConfig::max_fixes`]
/// cheapest found so far is not followed, and [`EliminateConfig::max_work`] bounds the steps.
pub(super) fn search(g: &Graph<'_>, config: &EliminateConfig) -> Result<Found, Error> {
    let heads = g.heads();
    let mut search = Search {
        g,
        k: config.max_constraint_edges,
        max_fixes: config.max_fixes,
        max_work: config.max_work,
        best: BinaryHeap::new(),
        heads: &heads,
        work: 0,
        cut: false,
        found: FxHashMap::default(),
        order: Vec::new(),
        cache: FxHashMap::default(),
    };
    search.run()?;
    Ok(Found { cycles: search.found, order: search.order, complete: !search.cut })
}

/// A backward constraint edge with its rank key: cycles are found from their heaviest
/// backward edge, in increasing order of (weight, tail, head, option).
type Rank = (u64, u32, u32, usize);

/// A partial cycle on the search's stack: its constraint edges so far, the head of the last
/// one, whether the segments between them hold a cross-thread ordering, and its weight.
struct Frame {
    edges: SmallVec<[(u32, u32, Opt); 2]>,
    head: u32,
    x: bool,
    weight: u64,
}

/// The state of one cycle search over a graph.
struct Search<'g, 'a> {
    g: &'g Graph<'a>,
    k: usize,
    max_fixes: usize,
    max_work: u64,
    work: u64,
    cut: bool,
    found: FxHashMap<Vec<Atom>, Raw>,
    /// Insertion order of `found`'s keys, for deterministic tie-breaking.
    order: Vec<Vec<Atom>>,
    /// The weights of the cheapest `max_fixes` cycles found (a max-heap).
    best: BinaryHeap<u64>,
    cache: FxHashMap<(u32, u32), SmallVec<[Opt; 2]>>,
    /// Per thread, its heads (events with an outgoing cross-thread ordering).
    heads: &'g [Vec<u32>],
}

impl Search<'_, '_> {
    fn options(&mut self, from: u32, to: u32) -> Result<SmallVec<[Opt; 2]>, Error> {
        if let Some(o) = self.cache.get(&(from, to)) {
            return Ok(o.clone());
        }
        let mut out = SmallVec::new();
        self.g.options(from, to, &mut out)?;
        self.cache.insert((from, to), out.clone());
        Ok(out)
    }

    /// The weight no new cycle may exceed to be among the cheapest `max_fixes`.
    fn bound(&self) -> u64 {
        if self.best.len() >= self.max_fixes {
            self.best.peek().copied().unwrap_or(0)
        } else {
            u64::MAX
        }
    }

    fn record(&mut self, edges: SmallVec<[(u32, u32, Opt); 2]>) {
        let mut atoms: Vec<Atom> = edges.iter().filter_map(|e| e.2.kind.atom()).collect();
        atoms.sort_unstable();
        atoms.dedup();
        let weight = edges.iter().fold(0u64, |s, e| s.saturating_add(e.2.weight));
        match self.found.get_mut(&atoms) {
            Some(old) => {
                if weight < old.weight {
                    *old = Raw { edges, weight };
                }
            }
            None => {
                self.order.push(atoms.clone());
                self.found.insert(atoms, Raw { edges, weight });
                self.best.push(weight);
                if self.best.len() > self.max_fixes {
                    self.best.pop();
                }
            }
        }
    }

    fn tick(&mut self) -> bool {
        self.work += 1;
        if self.work > self.max_work {
            self.cut = true;
        }
        self.cut
    }

    fn run(&mut self) -> Result<(), Error> {
        let (g, heads) = (self.g, self.heads);
        if self.k == 0 || self.max_fixes == 0 {
            return Ok(());
        }
        // Every backward constraint edge, cheapest first.
        let mut firsts: Vec<(Rank, Opt)> = Vec::new();
        let mut opts = SmallVec::new();
        for (nodes, hs) in g.thread_nodes.iter().zip(heads) {
            for &x in nodes {
                if !g.is_tail[x as usize] {
                    continue;
                }
                for &y in hs {
                    if g.tpos[y as usize] >= g.tpos[x as usize] {
                        break;
                    }
                    g.options(x, y, &mut opts)?;
                    for (oi, &o) in opts.iter().enumerate() {
                        firsts.push(((o.weight, x, y, oi), o));
                    }
                }
            }
        }
        firsts.sort_by_key(|f| f.0);
        // The backward edges processed so far that do not close a cycle alone: the only
        // backward edges a cycle may use besides its heaviest.
        let mut lighter: Vec<(Rank, Opt)> = Vec::new();
        for (rank, opt) in firsts {
            if rank.0 > self.bound() {
                // Every cycle left weighs at least this edge: none is among the cheapest.
                self.cut = true;
                return Ok(());
            }
            if self.tick() {
                return Ok(());
            }
            let (_, x, y, _) = rank;
            if g.reaches_x(y, x) {
                self.record(SmallVec::from_slice(&[(x, y, opt)]));
            } else {
                if self.k >= 2 {
                    self.extend((rank, opt), &lighter)?;
                    if self.cut {
                        return Ok(());
                    }
                }
                lighter.push((rank, opt));
            }
        }
        Ok(())
    }

    /// Depth-first extension of the cycle started by the backward edge `first`, its
    /// heaviest: the other backward edges come from `lighter` (ranked below it and not
    /// closing a cycle alone), so each cycle is found once. Kept orders (forward edges) are
    /// tried in order of span while the cycle stays under the bound. The last edge must end
    /// at a head that reaches the first edge's tail.
    fn extend(&mut self, first: (Rank, Opt), lighter: &[(Rank, Opt)]) -> Result<(), Error> {
        let (g, heads) = (self.g, self.heads);
        let ((_, x0, y0, _), first_opt) = first;
        let co = g.iidx[x0 as usize] as usize;
        let closes = |d: u32| bit(&g.coreach, g.words, co, g.iidx[d as usize] as usize);
        // Per thread, the heads that reach x0, in program order.
        let closing: Vec<Vec<u32>> =
            heads.iter().map(|hs| hs.iter().copied().filter(|&d| closes(d)).collect()).collect();
        let mut stack = vec![Frame {
            edges: SmallVec::from_slice(&[(x0, y0, first_opt)]),
            head: y0,
            x: false,
            weight: first_opt.weight,
        }];
        let mut next: Vec<(u32, u32, Opt)> = Vec::new();
        while let Some(f) = stack.pop() {
            let last = f.edges.len() + 1 == self.k;
            next.clear();
            if !self.next_backward(&f, last, lighter, &closes, &mut next)
                || !self.next_kept(&f, if last { &closing } else { heads }, &mut next)?
            {
                return Ok(());
            }
            for &(c, d, o) in &next {
                let weight = f.weight.saturating_add(o.weight);
                if weight > self.bound() || f.edges.iter().any(|e| (e.0, e.1) == (c, d)) {
                    continue;
                }
                let seg_x = f.x || g.reaches_x(f.head, c);
                let mut edges = f.edges.clone();
                edges.push((c, d, o));
                if closes(d) && (seg_x || g.reaches_x(d, x0)) {
                    self.record(edges);
                } else if !last {
                    stack.push(Frame { edges, head: d, x: seg_x, weight });
                }
            }
        }
        Ok(())
    }

    /// Adds to `next` the backward edges of `lighter` (ranked below the first) that may follow
    /// `f`: their tail is reached from `f`'s head and, for the `last` edge, their head closes
    /// the cycle. False when the work bound is reached.
    fn next_backward(
        &mut self,
        f: &Frame,
        last: bool,
        lighter: &[(Rank, Opt)],
        closes: &dyn Fn(u32) -> bool,
        next: &mut Vec<(u32, u32, Opt)>,
    ) -> bool {
        for &((w, c, d, _), o) in lighter {
            if f.weight.saturating_add(w) > self.bound() {
                break;
            }
            if self.tick() {
                return false;
            }
            if self.g.reaches(f.head, c) && (!last || closes(d)) {
                next.push((c, d, o));
            }
        }
        true
    }

    /// Adds to `next` the kept orders that may follow `f`: forward from a tail reached from
    /// `f`'s head to a later head of its thread among `heads` (per thread, in program order),
    /// in order of span. False when the work bound is reached.
    fn next_kept(&mut self, f: &Frame, heads: &[Vec<u32>], next: &mut Vec<(u32, u32, Opt)>) -> Result<bool, Error> {
        let g = self.g;
        let row = g.row(g.reach[f.head as usize]);
        for (word, &bits) in row.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let b = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let c = g.inodes[b];
                if !g.is_tail[c as usize] {
                    continue;
                }
                let list = &heads[g.thread[c as usize] as usize];
                let tc = g.tpos[c as usize];
                let start = list.partition_point(|&d| g.tpos[d as usize] <= tc);
                for &d in &list[start..] {
                    let span = u64::from(g.tpos[d as usize] - tc);
                    if f.weight.saturating_add(span) > self.bound() {
                        break;
                    }
                    if self.tick() {
                        return Ok(false);
                    }
                    for o in self.options(c, d)? {
                        next.push((c, d, o));
                    }
                }
            }
        }
        Ok(true)
    }
}
