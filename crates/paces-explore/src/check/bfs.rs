//! The breadth-first search: by levels, each level expanded in parallel in fixed-size
//! batches merged in order, so results do not depend on the number of worker threads.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use rayon::prelude::*;

use crate::compile::Compiled;
use crate::engine::{Expansion, Found, Stand};
use crate::error::Error;
use crate::progress::{Progress, Ticker};
use crate::replay::transitions_to_steps;
use crate::store::{encode, hash_bytes};

use super::stored::{deadlock_id, fail_label, passed_labels, Parent, Search, Tr};
use super::{Bound, CheckResult, Config, DeadlockId, FailureKinds, LivelockId, Verdict};

/// States expanded per batch; batches are merged in order, so results do not depend on the
/// number of worker threads.
const CHUNK: usize = 2048;

/// A kept successor of an expanded state: the transition, the hash of the encoded state,
/// and where the encoding ends in its piece's bytes (it starts where the one before ends).
#[derive(Clone, Copy)]
struct Succ {
    thread: u16,
    opt: u16,
    exit: u32,
    hash: u64,
    end: u32,
}

/// The expansions of a run of consecutive states, flattened so that a run costs a few
/// allocations, not a few per state.
#[derive(Default)]
struct Piece {
    /// Per state, in order: where its successors end in `succs`.
    ends: Vec<u32>,
    succs: Vec<Succ>,
    /// The successors' encoded states, back to back.
    bytes: Vec<u8>,
    /// The states (by position in the run) that found something or deadlock, in order,
    /// with what they found.
    events: Vec<(usize, Vec<Found>, Option<Vec<Stand>>)>,
    transitions: u64,
    reduced: usize,
    unwound: bool,
    bound: bool,
    /// The `assert` steps passed (thread, step), deduplicated.
    asserts: Vec<(u16, u32)>,
}

impl Piece {
    /// Appends the expansion of the next state of the run, its kept successors encoded and
    /// hashed.
    fn add(&mut self, exp: &mut Expansion) {
        self.transitions += exp.transitions;
        self.reduced += usize::from(exp.reduced);
        self.unwound |= exp.unwound;
        self.bound |= exp.bound;
        for &a in &exp.asserts {
            if !self.asserts.contains(&a) {
                self.asserts.push(a);
            }
        }
        if !exp.found.is_empty() || exp.deadlock.is_some() {
            self.events.push((self.ends.len(), std::mem::take(&mut exp.found), exp.deadlock.take()));
        }
        for tr in &exp.succs {
            let start = self.bytes.len();
            encode(exp.state(tr), &mut self.bytes);
            let hash = hash_bytes(&self.bytes[start..]);
            let end = self.bytes.len() as u32;
            self.succs.push(Succ { thread: tr.thread, opt: tr.opt, exit: tr.exit, hash, end });
        }
        self.ends.push(self.succs.len() as u32);
    }
}

/// States expanded by one task of a batch (a piece), one after the other with the same
/// buffers.
const PIECE: usize = 64;

/// One breadth-first search (see [`check`](crate::check())); `merge_independent` as in [`Settings`](crate::engine::Settings);
/// `earlier`: the states and transitions of an earlier search of the same check, which its
/// progress reports add.
pub(super) fn search(
    c: &Compiled,
    config: &Config,
    merge_independent: bool,
    start: Instant,
    earlier: (usize, u64),
) -> Result<CheckResult, Error> {
    let max_states = config.max_states.max(1);
    let mut search = Search::new(c, config, merge_independent, start);
    let pool = match (config.parallel, config.threads) {
        (true, Some(n)) => rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build().ok(),
        _ => None,
    };
    let mut transitions = 0u64;
    let mut reduced_states = 0usize;
    let mut depth = 0usize;
    let mut unwind_reached = false;
    let mut bound: Option<Bound> = None;
    let mut first_bad: Option<(u32, Tr)> = None;
    let mut deadlocks: BTreeMap<DeadlockId, (u32, Vec<Stand>)> = BTreeMap::new();
    let mut after_failure: BTreeMap<DeadlockId, (u32, Vec<Stand>)> = BTreeMap::new();
    let mut livelocks: BTreeMap<LivelockId, (u32, Tr, usize)> = BTreeMap::new();
    let mut failures: BTreeMap<String, (u32, Tr)> = BTreeMap::new();
    let mut asserts: BTreeSet<(u16, u32)> = BTreeSet::new();
    let mut first_kind: Option<u8> = None;
    let mut ticker = Ticker::new(config.on_progress.as_ref(), config.progress_every, start);
    let (mut lo, mut hi) = (0usize, 1usize);
    'levels: while lo < hi {
        if config.max_depth.is_some_and(|d| depth >= d) {
            bound = Some(Bound::Depth);
            break;
        }
        let mut a = lo;
        while a < hi {
            let b = (a + CHUNK).min(hi);
            let pieces: Vec<Piece> = {
                let s = &search;
                let hi32 = hi as u32;
                let is_old = move |st: &[i64]| s.store.find(st).is_some_and(|j| j < hi32);
                // Kept successors are encoded and hashed here, in parallel; the merge only
                // looks them up.
                let expand = |p: usize| {
                    let from = a + p * PIECE;
                    let mut piece = Piece::default();
                    let mut exp = Expansion::default();
                    let mut state = Vec::new();
                    for i in from..(from + PIECE).min(b) {
                        s.store.get_into(i as u32, &mut state);
                        s.e.expand(&state, config.por, &is_old, &mut exp);
                        piece.add(&mut exp);
                    }
                    piece
                };
                let starts = 0..(b - a).div_ceil(PIECE);
                if config.parallel && b - a >= config.min_parallel_batch {
                    match &pool {
                        Some(p) => p.install(|| starts.into_par_iter().map(expand).collect()),
                        None => starts.into_par_iter().map(expand).collect(),
                    }
                } else {
                    starts.map(expand).collect()
                }
            };
            for (p, piece) in pieces.into_iter().enumerate() {
                transitions += piece.transitions;
                reduced_states += piece.reduced;
                unwind_reached |= piece.unwound;
                asserts.extend(piece.asserts.iter().copied());
                if piece.bound && bound.is_none() {
                    bound = Some(Bound::AtomicStates);
                }
                let mut events = piece.events.into_iter().peekable();
                let (mut succ_from, mut byte_from) = (0usize, 0usize);
                for (k, &succ_end) in piece.ends.iter().enumerate() {
                    let i = (a + p * PIECE + k) as u32;
                    let (found, deadlock): (Vec<Found>, Option<Vec<Stand>>) = match events.next_if(|e| e.0 == k) {
                        Some((_, found, deadlock)) => (found, deadlock),
                        None => (Vec::new(), None),
                    };
                    for f in found {
                        match f {
                            Found::Fail { .. } if !config.find.contains(FailureKinds::BAD) => {}
                            Found::Livelock { .. } if !config.find.contains(FailureKinds::LIVELOCKS) => {}
                            Found::Fail { thread, opt, internal } => {
                                let last = (thread as usize, opt, internal);
                                let label = fail_label(&search.e, &search.store.get(i), &last);
                                if first_bad.is_none() {
                                    first_bad = Some((i, last.clone()));
                                    first_kind.get_or_insert(0);
                                }
                                failures.entry(label).or_insert((i, last));
                            }
                            Found::Livelock { thread, opt, path, cycle_start } => {
                                let t = thread as usize;
                                let code = &search.e.c.threads[t];
                                let o = &code.points[search.e.pc(&search.store.get(i), t)].options[opt as usize];
                                let reg = code.steps[o.step as usize].region.unwrap_or(0);
                                let id = LivelockId {
                                    thread: code.name.clone(),
                                    block: c.loc_names[code.regions[reg as usize].loc.index()].clone(),
                                };
                                first_kind.get_or_insert(2);
                                livelocks.entry(id).or_insert((i, (t, opt, path), cycle_start));
                            }
                        }
                    }
                    if let Some(stands) = deadlock.filter(|_| config.find.contains(FailureKinds::DEADLOCKS)) {
                        let state = search.store.get(i);
                        let id = deadlock_id(&search.e, &state, &stands);
                        first_kind.get_or_insert(1);
                        if search.e.failed_before(&state) {
                            after_failure.entry(id.clone()).or_insert((i, stands.clone()));
                        }
                        deadlocks.entry(id).or_insert((i, stands));
                    }
                    for tr in &piece.succs[succ_from..succ_end as usize] {
                        let (_, new) = search.store.insert_hashed(tr.hash, &piece.bytes[byte_from..tr.end as usize]);
                        if new {
                            search.parents.push(Parent { parent: i, thread: tr.thread, opt: tr.opt, exit: tr.exit });
                        }
                        byte_from = tr.end as usize;
                    }
                    succ_from = succ_end as usize;
                }
            }
            if config.stop_at_first_failure && first_kind.is_some() {
                break 'levels;
            }
            if bound.is_some() {
                break 'levels;
            }
            if search.store.len() > max_states {
                bound = Some(Bound::States);
                break 'levels;
            }
            if search.memory() > config.max_memory {
                bound = Some(Bound::Memory);
                break 'levels;
            }
            if config.max_time.is_some_and(|t| start.elapsed() > t) {
                bound = Some(Bound::Time);
                break 'levels;
            }
            ticker.tick(|| Progress {
                states: earlier.0 + search.store.len(),
                transitions: earlier.1 + transitions,
                depth,
                elapsed: start.elapsed(),
                memory: search.memory(),
            });
            a = b;
        }
        lo = hi;
        hi = search.store.len();
        depth += 1;
    }
    // Witnesses.
    let mut dl = BTreeMap::new();
    for (id, (i, stands)) in &deadlocks {
        dl.insert(id.clone(), search.witness(*i, None, Some(stands))?);
    }
    let mut dl_after = BTreeMap::new();
    for (id, (i, stands)) in &after_failure {
        dl_after.insert(id.clone(), search.witness(*i, None, Some(stands))?);
    }
    let mut ll = BTreeMap::new();
    for (id, (i, last, cycle_start)) in &livelocks {
        let mut w = search.witness(*i, Some(last.clone()), None)?;
        // The entering step comes before the internal path.
        w.cycle_start = Some(transitions_to_steps(&search.e, &search.path_to(*i)).len() + 1 + cycle_start);
        ll.insert(id.clone(), w);
    }
    let mut fl = BTreeMap::new();
    for (label, (i, last)) in &failures {
        fl.insert(label.clone(), search.witness(*i, Some(last.clone()), None)?);
    }
    let verdict = if let Some((i, last)) = &first_bad {
        Verdict::Bad(Box::new(search.witness(*i, Some(last.clone()), None)?))
    } else if let Some((id, w)) = dl.iter().next() {
        Verdict::Deadlock(id.clone(), Box::new(w.clone()))
    } else if let Some((id, w)) = ll.iter().next() {
        Verdict::Livelock(id.clone(), Box::new(w.clone()))
    } else if let Some(what) = bound {
        Verdict::BoundReached { what, states: search.store.len() }
    } else {
        Verdict::Correct
    };
    // With stop at first failure, prefer the kind found first for deadlock vs livelock.
    let verdict = match (first_kind, &verdict) {
        (Some(2), Verdict::Deadlock(..)) if first_bad.is_none() => match ll.iter().next() {
            Some((id, w)) => Verdict::Livelock(id.clone(), Box::new(w.clone())),
            None => verdict,
        },
        _ => verdict,
    };
    Ok(CheckResult {
        verdict,
        states: search.store.len(),
        transitions,
        depth,
        reduced_states,
        time: start.elapsed(),
        unwind: config.unwind,
        unwind_reached,
        bound,
        deadlocks: dl,
        livelocks: ll,
        failures: fl,
        deadlocks_after_failure: dl_after,
        passed_assertions: passed_labels(c, &asserts).collect(),
    })
}
