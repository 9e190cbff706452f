//! The trace elimination graph over the events of a partial order: its nodes, its
//! no-constraint edges (cross-thread orderings and forced program order) and the reachability
//! over them as bitsets, with the memory those tables take.
//!
//! Reachability is kept towards the interesting events only (the ends of cross-thread
//! orderings and the blocked steps), and a row is stored once for all the events that share
//! it: an event that is not interesting and has one forced successor (most events of a long
//! thread) reaches what its successor reaches, so it takes no row of its own. The tables then
//! grow with the interesting events and the events where paths branch, not with the trace
//! times the interesting events.

use paces_constraint::{Atom, Loc, Space};
use paces_trace::{lift, Event, EventId, Trace};
use smallvec::SmallVec;

use super::forced::{self, Strategy};
use super::EliminateConfig;
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
    /// The reachability rows, `words` words each; row 0 is empty. Rows are shared between
    /// events that reach the same interesting events.
    pub(super) rows: Vec<u64>,
    /// Per node, its row of `rows`: the interesting nodes reachable from it over
    /// no-constraint edges (reflexive).
    pub(super) reach: Vec<u32>,
    /// Per node, its row of `rows`: the same, over paths holding a cross-thread ordering.
    pub(super) reachx: Vec<u32>,
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
    /// The graph of `po` with the weights for cycles of at most K constraint edges, without
    /// the orderings off the failure's data flow unless `config` says; its reachability tables
    /// are empty until [`Graph::compute_reach`].
    pub(super) fn new(trace: &'a Trace, space: &'a Space, po: &PartialOrder, config: &EliminateConfig) -> Graph<'a> {
        let k = config.max_constraint_edges;
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
            // Orderings with a context event only say how an overwrite was reached; those off
            // the data flow decide nothing the failure reads.
            let unused = po.is_context_edge(a, b) || (config.data_flow && po.is_off_flow(a, b));
            if !unused {
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
            rows: Vec::new(),
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

    /// The bytes the tables take at least: a reachability row and a transposed row of
    /// `words` words per interesting node, and two row numbers per node. Rows of events where
    /// paths branch and the forced-order table of each thread come on top, counted as they
    /// are made ([`Budget`]).
    pub(super) fn table_bytes(&self) -> u64 {
        let m = self.inodes.len() as u64;
        let rows = (self.words as u64).saturating_mul(8).saturating_mul(m.saturating_mul(2).saturating_add(1));
        rows.saturating_add(8u64.saturating_mul(self.n() as u64))
    }

    /// A budget of `max_memory` bytes with the least tables taken: refuses a graph whose
    /// tables take more.
    pub(super) fn budget(&self, max_memory: u64) -> Result<Budget, Error> {
        let mut budget = Budget { limit: max_memory, used: 0, events: self.n(), interesting: self.inodes.len() };
        budget.take(self.table_bytes())?;
        Ok(budget)
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

    /// The forced program-order edges: per thread, the transitive reduction of its forced
    /// pairs (see the `forced` module), each thread's table taken from `budget` while it is
    /// built.
    pub(super) fn compute_forced(&mut self, strategy: Strategy, budget: &mut Budget) -> Result<(), Error> {
        for t in 0..self.thread_nodes.len() {
            let nodes = &self.thread_nodes[t];
            let skip = |p: usize| self.blocked[nodes[p] as usize];
            let mut is_forced = |p: usize, q: usize| self.forced(nodes[p], nodes[q]);
            let thread = forced::Thread { len: nodes.len(), skip: &skip, forced: &mut is_forced };
            let mut taken = 0;
            let succ = forced::reduce(thread, strategy, &mut |bytes| {
                taken += bytes;
                budget.take(bytes)
            });
            budget.give(taken);
            let succ = succ?;
            let nodes = self.thread_nodes[t].clone();
            for (p, out) in succ.into_iter().enumerate() {
                self.forced_out[nodes[p] as usize] = out.into_iter().map(|q| nodes[q as usize]).collect();
            }
        }
        Ok(())
    }

    /// Reachability rows (`reach`, `reachx`, `coreach`) over the cross-thread orderings and
    /// the forced edges ([`Graph::compute_forced`] first), each new row taken from `budget`.
    pub(super) fn compute_reach(&mut self, budget: &mut Budget) -> Result<(), Error> {
        let n = self.n();
        let w = self.words;
        self.rows = vec![0u64; w];
        self.reach = vec![0; n];
        self.reachx = vec![0; n];
        let mut blocked_row = None;
        let mut bits = vec![0u64; w];
        let mut bits_x = vec![0u64; w];
        let mut near: SmallVec<[u32; 8]> = SmallVec::new();
        for u in (0..n).rev() {
            if self.blocked[u] {
                let row = match blocked_row {
                    Some(row) => row,
                    None => {
                        bits.fill(0);
                        for b in (0..n).filter(|&i| self.blocked[i]).map(|i| self.iidx[i] as usize) {
                            bits[b / 64] |= 1 << (b % 64);
                        }
                        let row = self.intern(&bits, &[], budget)?;
                        blocked_row = Some(row);
                        row
                    }
                };
                self.reach[u] = row;
                continue;
            }
            if self.iidx[u] == NONE && self.cross_out[u].is_empty() && self.forced_out[u].len() <= 1 {
                // What the one successor reaches (nothing without one).
                if let Some(&v) = self.forced_out[u].first() {
                    self.reach[u] = self.reach[v as usize];
                    self.reachx[u] = self.reachx[v as usize];
                }
                continue;
            }
            bits.fill(0);
            bits_x.fill(0);
            near.clear();
            if self.iidx[u] != NONE {
                let b = self.iidx[u] as usize;
                bits[b / 64] |= 1 << (b % 64);
            }
            for &v in &self.cross_out[u] {
                let row = self.reach[v as usize];
                or_row(&mut bits, &self.rows, row);
                or_row(&mut bits_x, &self.rows, row);
                near.push(row);
            }
            for &v in &self.forced_out[u] {
                let (row, row_x) = (self.reach[v as usize], self.reachx[v as usize]);
                or_row(&mut bits, &self.rows, row);
                or_row(&mut bits_x, &self.rows, row_x);
                near.extend([row, row_x]);
            }
            self.reach[u] = self.intern(&bits, &near, budget)?;
            self.reachx[u] = self.intern(&bits_x, &near, budget)?;
        }
        self.compute_coreach();
        Ok(())
    }

    /// The row holding `bits`: row 0 when they are empty, one of the rows `near` when it
    /// holds the same bits, else a new row.
    fn intern(&mut self, bits: &[u64], near: &[u32], budget: &mut Budget) -> Result<u32, Error> {
        let w = self.words;
        if bits.iter().all(|&b| b == 0) {
            return Ok(0);
        }
        if let Some(&row) = near.iter().find(|&&r| self.row(r) == bits) {
            return Ok(row);
        }
        budget.take(8 * w as u64)?;
        let row = (self.rows.len() / w) as u32;
        self.rows.extend_from_slice(bits);
        Ok(row)
    }

    /// Row `r` of `rows`.
    pub(super) fn row(&self, r: u32) -> &[u64] {
        let at = r as usize * self.words;
        &self.rows[at..at + self.words]
    }

    /// The transpose of `reach` on the interesting nodes.
    fn compute_coreach(&mut self) {
        let w = self.words;
        let m = self.inodes.len();
        self.coreach = vec![0u64; m * w];
        for (i, &u) in self.inodes.iter().enumerate() {
            let row = self.reach[u as usize] as usize * w;
            for word in 0..w {
                let mut bits = self.rows[row + word];
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
        bit(&self.rows, self.words, self.reach[from as usize] as usize, self.iidx[to as usize] as usize)
    }

    /// The same over a path holding a cross-thread ordering.
    pub(super) fn reaches_x(&self, from: u32, to: u32) -> bool {
        bit(&self.rows, self.words, self.reachx[from as usize] as usize, self.iidx[to as usize] as usize)
    }

    /// Per thread, its heads (events with an outgoing cross-thread ordering), in program
    /// order.
    pub(super) fn heads(&self) -> Vec<Vec<u32>> {
        self.thread_nodes.iter().map(|ns| ns.iter().copied().filter(|&v| self.is_head[v as usize]).collect()).collect()
    }
}

/// Ors row `row` of `rows` into `bits`.
fn or_row(bits: &mut [u64], rows: &[u64], row: u32) {
    let w = bits.len();
    let at = row as usize * w;
    for (d, s) in bits.iter_mut().zip(&rows[at..at + w]) {
        *d |= *s;
    }
}

/// The bytes the elimination graph's tables may still take ([`EliminateConfig::max_memory`](super::EliminateConfig::max_memory)).
pub(super) struct Budget {
    limit: u64,
    used: u64,
    events: usize,
    interesting: usize,
}

impl Budget {
    /// Takes `bytes`, or refuses them past the limit.
    pub(super) fn take(&mut self, bytes: u64) -> Result<(), Error> {
        let used = self.used.saturating_add(bytes);
        if used > self.limit {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!(
                    "the elimination graph of {} events ({} at cross-thread orderings) needs at least {used} bytes \
                     of tables, more than the limit of {}",
                    self.events, self.interesting, self.limit
                ),
            ));
        }
        self.used = used;
        Ok(())
    }

    /// Gives back `bytes` taken before (a table that is freed).
    pub(super) fn give(&mut self, bytes: u64) {
        self.used = self.used.saturating_sub(bytes);
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
