//! The trace elimination graph over the events of a partial order: its nodes, its
//! no-constraint edges (cross-thread orderings and forced program order) and the reachability
//! over them as bitsets, with the memory those tables take.

use paces_constraint::{Atom, Loc, Space};
use paces_trace::{lift, Event, EventId, Trace};
use smallvec::SmallVec;

use crate::partial_order::node_event;
use crate::{Error, ErrorKind, PartialOrder};

/// No node: the index of an event that is not interesting, or no predecessor.
pub(super) const NONE: u32 = u32::MAX;

/// The elimination graph over the nodes of a partial order, with reachability over its
/// no-constraint edges.
pub(super) struct Graph<'a> {
    pub(super) space: &'a Space,
    pub(super) ids: Vec<EventId>,
    pub(super) ev: Vec<&'a Event>,
    pub(super) thread: Vec<u32>,
    pub(super) tpos: Vec<u32>,
    pub(super) thread_nodes: Vec<Vec<u32>>,
    pub(super) blocked: Vec<bool>,
    /// Pending steps (not run: they only stand after the reads they must follow).
    pub(super) pending: Vec<bool>,
    pub(super) cross_out: Vec<SmallVec<[u32; 2]>>,
    /// Every cross-thread ordering into a node, context ones too (the preemption-free
    /// decision replays the whole partial order).
    pub(super) all_cross_in: Vec<SmallVec<[u32; 2]>>,
    pub(super) forced_out: Vec<SmallVec<[u32; 2]>>,
    /// Index of a node among the interesting nodes (endpoints of cross edges, blocked
    /// steps), or NONE.
    pub(super) iidx: Vec<u32>,
    pub(super) inodes: Vec<u32>,
    /// Incoming cross edge, or a blocked step: may start a constraint edge.
    pub(super) is_tail: Vec<bool>,
    /// Outgoing cross edge: may end a constraint edge.
    pub(super) is_head: Vec<bool>,
    pub(super) words: usize,
    /// Row u: interesting nodes reachable from u over no-constraint edges (reflexive).
    pub(super) reach: Vec<u64>,
    /// Row u: the same, over paths holding a cross-thread ordering.
    pub(super) reachx: Vec<u64>,
    /// Row i (an interesting node): the interesting nodes that reach it (the transpose of
    /// `reach` on interesting nodes).
    pub(super) coreach: Vec<u64>,
    /// The weight factor R of reorders.
    pub(super) r: u64,
    /// The weight factor A of atomic sections.
    pub(super) a: u64,
    /// Whether some linearisation of the partial order is preemption-free.
    pub(super) preemption_free: bool,
}

/// Bit `col` of row `row` of a bitset table of `words` words per row.
#[inline]
pub(super) fn bit(bits: &[u64], words: usize, row: usize, col: usize) -> bool {
    bits[row * words + col / 64] >> (col % 64) & 1 == 1
}

fn mismatch(space: &Space, a: Loc, b: Loc) -> Error {
    Error::new(
        ErrorKind::SpaceMismatch,
        format!(
            "the trace orders `{}` and `{}`, which are not items of one block of the space",
            space.name(a),
            space.name(b)
        ),
    )
}

impl<'a> Graph<'a> {
    /// The graph of `po` with the weights for cycles of at most `k` constraint edges; its
    /// reachability tables are empty until [`Graph::compute_reach`].
    pub(super) fn new(trace: &'a Trace, space: &'a Space, po: &PartialOrder, k: usize) -> Graph<'a> {
        let ids = po.events().to_vec();
        let n = ids.len();
        let ev: Vec<&Event> = ids.iter().map(|id| node_event(trace, id.index())).collect();
        let mut thread_ids: Vec<_> = ev.iter().map(|e| e.thread).collect();
        thread_ids.sort_unstable();
        thread_ids.dedup();
        let mut thread = vec![0u32; n];
        let mut tpos = vec![0u32; n];
        let mut thread_nodes = vec![Vec::new(); thread_ids.len()];
        for (i, e) in ev.iter().enumerate() {
            let t = thread_ids.binary_search(&e.thread).unwrap_or(0);
            thread[i] = t as u32;
            tpos[i] = thread_nodes[t].len() as u32;
            thread_nodes[t].push(i as u32);
        }
        let blocked: Vec<bool> = ids.iter().map(|id| po.is_blocked_step(*id)).collect();
        let pending: Vec<bool> = ids.iter().map(|id| po.is_pending_step(*id)).collect();
        let mut cross_out = vec![SmallVec::new(); n];
        let mut has_cross_in = vec![false; n];
        let mut all_cross_in = vec![SmallVec::new(); n];
        for &(a, b) in po.cross_edges() {
            let (Some(ia), Some(ib)) = (po.node_index(a), po.node_index(b)) else { continue };
            all_cross_in[ib].push(ia as u32);
            // Orderings with a context event only say how an overwrite was reached.
            if !po.is_context_edge(a, b) {
                cross_out[ia].push(ib as u32);
                has_cross_in[ib] = true;
            }
        }
        let is_tail: Vec<bool> = (0..n).map(|i| blocked[i] || has_cross_in[i]).collect();
        let is_head: Vec<bool> = (0..n).map(|i| !cross_out[i].is_empty()).collect();
        let mut iidx = vec![NONE; n];
        let mut inodes = Vec::new();
        for i in 0..n {
            if is_tail[i] || is_head[i] {
                iidx[i] = inodes.len() as u32;
                inodes.push(i as u32);
            }
        }
        let words = inodes.len().div_ceil(64).max(1);
        let (r, a) = weight_factors(n as u64, k as u64);
        Graph {
            space,
            ids,
            ev,
            thread,
            tpos,
            thread_nodes,
            blocked,
            pending,
            cross_out,
            all_cross_in,
            forced_out: vec![SmallVec::new(); n],
            iidx,
            inodes,
            is_tail,
            is_head,
            words,
            reach: Vec::new(),
            reachx: Vec::new(),
            coreach: Vec::new(),
            r,
            a,
            preemption_free: false,
        }
    }

    pub(super) fn n(&self) -> usize {
        self.ids.len()
    }

    /// The bytes of the reachability tables: two rows of `words` words per node (`reach`,
    /// `reachx`), one per interesting node (`coreach`), and one bitset of forced successors
    /// per thread, quadratic in the thread's length.
    pub(super) fn table_bytes(&self) -> u64 {
        let n = self.n() as u64;
        let words = self.words as u64;
        let thread_bits: u64 =
            self.thread_nodes.iter().map(|ns| (ns.len() as u64) * (ns.len() as u64).div_ceil(64).max(1)).sum();
        8u64.saturating_mul(words.saturating_mul(2 * n + self.inodes.len() as u64).saturating_add(thread_bits))
    }

    /// Refuses a graph whose tables would take more than `max_memory` bytes.
    pub(super) fn check_memory(&self, max_memory: u64) -> Result<(), Error> {
        let bytes = self.table_bytes();
        if bytes <= max_memory {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::TooLarge,
            format!(
                "the elimination graph of {} events ({} at cross-thread orderings) needs {bytes} bytes of tables, \
                 more than the limit of {max_memory}",
                self.n(),
                self.inodes.len(),
            ),
        ))
    }

    /// The lifted items of `u` before `v` (one thread), checked against the space.
    pub(super) fn lifted(&self, u: u32, v: u32) -> Result<Option<(Loc, Loc)>, Error> {
        match lift(self.ev[u as usize], self.ev[v as usize]) {
            Some(Atom::Order(a, b)) => {
                self.space.common_block(a, b).map_err(|_| mismatch(self.space, a, b))?;
                Ok(Some((a, b)))
            }
            _ => Ok(None),
        }
    }

    /// Whether every candidate keeps `u` before `v` (one thread, `u` earlier).
    fn forced(&self, u: u32, v: u32) -> Result<bool, Error> {
        if self.blocked[v as usize] {
            return Ok(true);
        }
        Ok(match self.lifted(u, v)? {
            None => true,
            Some((a, b)) => !self.space.may_change_order(a, b),
        })
    }

    /// Reachability rows (`reach`, `reachx`, `coreach`) and the forced program-order edges (a
    /// transitive reduction of the forced pairs of each thread, found with one bitset of
    /// forced successors per event).
    pub(super) fn compute_reach(&mut self) -> Result<(), Error> {
        let n = self.n();
        let w = self.words;
        self.reach = vec![0u64; n * w];
        self.reachx = vec![0u64; n * w];
        let blocked_bits: Vec<usize> = (0..n).filter(|&i| self.blocked[i]).map(|i| self.iidx[i] as usize).collect();
        let mut forced_rows: Vec<Vec<u64>> = self
            .thread_nodes
            .iter()
            .map(|nodes| {
                let tw = nodes.len().div_ceil(64).max(1);
                vec![0u64; nodes.len() * tw]
            })
            .collect();
        for u in (0..n).rev() {
            if self.blocked[u] {
                for &b in &blocked_bits {
                    self.reach[u * w + b / 64] |= 1 << (b % 64);
                }
                continue;
            }
            if self.iidx[u] != NONE {
                let b = self.iidx[u] as usize;
                self.reach[u * w + b / 64] |= 1 << (b % 64);
            }
            for k in 0..self.cross_out[u].len() {
                let v = self.cross_out[u][k] as usize;
                for j in 0..w {
                    let bits = self.reach[v * w + j];
                    self.reach[u * w + j] |= bits;
                    self.reachx[u * w + j] |= bits;
                }
            }
            let t = self.thread[u] as usize;
            let p = self.tpos[u] as usize;
            let len = self.thread_nodes[t].len();
            let tw = len.div_ceil(64).max(1);
            for q in p + 1..len {
                let rows = &forced_rows[t];
                if rows[p * tw + q / 64] >> (q % 64) & 1 == 1 {
                    continue;
                }
                let v = self.thread_nodes[t][q];
                if !self.forced(u as u32, v)? {
                    continue;
                }
                let rows = &mut forced_rows[t];
                rows[p * tw + q / 64] |= 1 << (q % 64);
                let (lo, hi) = rows.split_at_mut(q * tw);
                for (d, s) in lo[p * tw..p * tw + tw].iter_mut().zip(&hi[..tw]) {
                    *d |= *s;
                }
                self.forced_out[u].push(v);
                let v = v as usize;
                for j in 0..w {
                    let bits = self.reach[v * w + j];
                    self.reach[u * w + j] |= bits;
                    let bits = self.reachx[v * w + j];
                    self.reachx[u * w + j] |= bits;
                }
            }
        }
        self.compute_coreach();
        Ok(())
    }

    /// The transpose of `reach` on the interesting nodes.
    fn compute_coreach(&mut self) {
        let w = self.words;
        let m = self.inodes.len();
        self.coreach = vec![0u64; m * w];
        for (i, &u) in self.inodes.iter().enumerate() {
            let row = u as usize * w;
            for word in 0..w {
                let mut bits = self.reach[row + word];
                while bits != 0 {
                    let j = word * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    self.coreach[j * w + i / 64] |= 1 << (i % 64);
                }
            }
        }
    }

    /// Whether `to` (an interesting node) is reachable from `from` over no-constraint edges.
    pub(super) fn reaches(&self, from: u32, to: u32) -> bool {
        bit(&self.reach, self.words, from as usize, self.iidx[to as usize] as usize)
    }

    /// The same over a path holding a cross-thread ordering.
    pub(super) fn reaches_x(&self, from: u32, to: u32) -> bool {
        bit(&self.reachx, self.words, from as usize, self.iidx[to as usize] as usize)
    }

    /// Per thread, its heads (events with an outgoing cross-thread ordering), in program
    /// order.
    pub(super) fn heads(&self) -> Vec<Vec<u32>> {
        self.thread_nodes.iter().map(|ns| ns.iter().copied().filter(|&v| self.is_head[v as usize]).collect()).collect()
    }
}

/// The weight factors R (of reorders) and A (of atomic sections) for a graph of `n` nodes and
/// cycles of at most `k` constraint edges.
///
/// R exceeds the weight of any path of no-constraint edges of K + 1 segments (each at most
/// 2n), and A exceeds R * n^2, so an atomic section is chosen only where no reordering works.
fn weight_factors(n: u64, k: u64) -> (u64, u64) {
    let r = n.saturating_mul(2).saturating_mul(k.saturating_add(1)).saturating_add(1);
    let a = r.saturating_mul(n.saturating_mul(n)).saturating_add(1);
    (r, a)
}
