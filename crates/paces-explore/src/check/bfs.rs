//! The breadth-first search: by levels, each level expanded in parallel in fixed-size
//! batches merged in order, so results do not depend on the number of worker threads.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use rayon::prelude::*;

use crate::compile::Compiled;
use crate::engine::Engine;
use crate::engine::{Expansion, Found, Stand};
use crate::error::Error;
use crate::progress::{Progress, Ticker};
use crate::replay::{to_schedule, transitions_to_steps};
use crate::store::{encode, hash_bytes};

use super::distinct::{distinct_failures, MORE_LOOKED_AT};
use super::result::{Answer, Effort, Findings};
use super::stored::{deadlock_id, fail_label, passed_labels, Parent, Search, Tr, FAIR_RUN};
use super::{Bound, Config, Counterexample, DeadlockId, FailureKinds, LivelockId, Verdict};

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

/// The row of reduced expansions a stored state was first reached by: the state it started
/// from (`origin`) and how many it holds (`len`). When a row grows to [`FAIR_RUN`], its origin
/// is expanded again, fully, so that no thread waits more than that many steps for its turn:
/// a thread that can run forever without repeating a state cannot starve the others (see
/// docs/explore.md, "Fairness in depth").
#[derive(Clone, Copy)]
struct Run {
    origin: u32,
    len: u16,
    /// Whether this state has been expanded again fully as the origin of a row.
    widened: bool,
}

/// One expansion in a piece: the state expanded, where its successors end in the piece's
/// `succs`, whether it was reduced, and whether it is the full expansion of a row's origin.
#[derive(Clone, Copy)]
struct Expanded {
    from: u32,
    succ_end: u32,
    reduced: bool,
    widened: bool,
}

/// The expansions of a run of consecutive states, flattened so that a run costs a few
/// allocations, not a few per state.
#[derive(Default)]
struct Piece {
    /// The expansions, in order.
    ends: Vec<Expanded>,
    succs: Vec<Succ>,
    /// The successors' encoded states, back to back.
    bytes: Vec<u8>,
    /// The expansions (by position in `ends`) that found something or deadlock, in order,
    /// with what they found.
    events: Vec<(usize, Vec<Found>, Option<Vec<Stand>>)>,
    transitions: u64,
    reduced: usize,
    unwound: bool,
    bound: bool,
    /// The `assert` steps passed (thread, step), deduplicated.
    asserts: Vec<(u16, u32)>,
    /// The stored states expanded that are outcome states (with `Config::outcomes`).
    outcomes: Vec<u32>,
}

impl Piece {
    /// Appends the expansion of stored state `from`, its kept successors encoded and hashed.
    fn add(&mut self, from: u32, exp: &mut Expansion) {
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
        if exp.outcome {
            self.outcomes.push(from);
        }
        self.push_succs(exp);
        self.ends.push(Expanded { from, succ_end: self.succs.len() as u32, reduced: exp.reduced, widened: false });
    }

    /// Appends the full expansion of stored state `from`, the origin of a row of reduced
    /// expansions: its successors and the failures and livelocks on its transitions (those
    /// the reduced expansion left out ran on, merged, only here; a deadlock there was noted
    /// when the state was first expanded).
    fn add_widened(&mut self, from: u32, exp: &mut Expansion) {
        self.transitions += exp.transitions;
        if !exp.found.is_empty() {
            self.events.push((self.ends.len(), std::mem::take(&mut exp.found), None));
        }
        self.push_succs(exp);
        self.ends.push(Expanded { from, succ_end: self.succs.len() as u32, reduced: false, widened: true });
    }

    fn push_succs(&mut self, exp: &Expansion) {
        for tr in &exp.succs {
            let start = self.bytes.len();
            encode(exp.state(tr), &mut self.bytes);
            let hash = hash_bytes(&self.bytes[start..]);
            let end = self.bytes.len() as u32;
            self.succs.push(Succ { thread: tr.thread, opt: tr.opt, exit: tr.exit, hash, end });
        }
    }
}

/// States expanded by one task of a batch (a piece), one after the other with the same
/// buffers.
const PIECE: usize = 64;

/// The kind of failure a search met first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bad,
    Deadlock,
    Livelock,
}

/// What a search found, by the stored state it was found at, before the witnesses are built.
#[derive(Default)]
struct Finds {
    /// The kind of failure met first (a search that stops at the first failure stops there).
    first: Option<Kind>,
    /// The first failing transition, from the state it leaves.
    first_bad: Option<(u32, Tr)>,
    deadlocks: BTreeMap<DeadlockId, (u32, Vec<Stand>)>,
    after_failure: BTreeMap<DeadlockId, (u32, Vec<Stand>)>,
    /// Per livelock: the state, the transition into the cycle and where the cycle starts in
    /// its internal path.
    livelocks: BTreeMap<LivelockId, (u32, Tr, usize)>,
    failures: BTreeMap<String, (u32, Tr)>,
    /// Further failing states per assertion, for [`Config::failures_per_assertion`].
    more_failures: BTreeMap<String, Vec<(u32, Tr)>>,
    asserts: BTreeSet<(u16, u32)>,
    /// The outcomes (the globals' values) seen.
    outcomes: BTreeSet<Vec<i64>>,
    /// With `Config::outcome_runs`: the first state of each outcome seen.
    outcome_states: BTreeMap<Vec<i64>, u32>,
}

/// A breadth-first search under way: the states stored, what it found and what it did.
struct Bfs<'c, 'a> {
    search: Search<'c>,
    /// Per stored state: the row of reduced expansions it was first reached by.
    runs: Vec<Run>,
    config: &'a Config,
    finds: Finds,
    effort: Effort,
    /// Whether the search merges the steps a thread would take alone.
    merging: bool,
    /// The states stored when the level under expansion began.
    level_start: usize,
}

/// One breadth-first search (see [`check`](crate::check())); `merge_independent` as in
/// [`Settings`](crate::engine::Settings); `earlier`: the states and transitions of an earlier
/// search of the same check, which its progress reports add.
pub(super) fn search(
    c: &Compiled,
    config: &Config,
    merge_independent: bool,
    start: Instant,
    earlier: (usize, u64),
) -> Result<Answer, Error> {
    let search = Search::new(c, config, merge_independent, start);
    let runs = vec![Run { origin: 0, len: 0, widened: false }];
    let mut bfs = Bfs {
        search,
        runs,
        config,
        finds: Finds::default(),
        effort: Effort::default(),
        merging: merge_independent,
        level_start: 1,
    };
    bfs.run(start, earlier);
    bfs.finish()
}

impl Bfs<'_, '_> {
    /// Explores level by level until the space is exhausted, a bound is reached, or (when the
    /// config says so) something is found.
    fn run(&mut self, start: Instant, earlier: (usize, u64)) {
        let config = self.config;
        let pool = match (config.parallel, config.threads) {
            (true, Some(n)) => rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build().ok(),
            _ => None,
        };
        let mut ticker = Ticker::new(config.on_progress.as_ref(), config.progress_every, start);
        let (mut lo, mut hi) = (0usize, 1usize);
        while lo < hi {
            if config.max_depth.is_some_and(|d| self.effort.depth >= d) {
                self.effort.bound = Some(Bound::Depth);
                return;
            }
            self.level_start = hi;
            let mut a = lo;
            while a < hi {
                let b = (a + CHUNK).min(hi);
                let pieces = self.expand_batch(a, b, hi, pool.as_ref());
                for piece in pieces {
                    self.absorb(piece);
                }
                if self.stops(start) {
                    return;
                }
                ticker.tick(|| Progress {
                    states: earlier.0 + self.search.store.len(),
                    transitions: earlier.1 + self.effort.transitions,
                    depth: self.effort.depth,
                    elapsed: start.elapsed(),
                    memory: self.memory(),
                });
                a = b;
            }
            lo = hi;
            hi = self.search.store.len();
            self.effort.depth += 1;
        }
    }

    /// Expands the stored states `a..b` of the level that ends at `hi`, in pieces (in
    /// parallel when the batch is large enough), their kept successors encoded and hashed.
    fn expand_batch(&self, a: usize, b: usize, hi: usize, pool: Option<&rayon::ThreadPool>) -> Vec<Piece> {
        let (s, runs) = (&self.search, &self.runs);
        let config = self.config;
        let hi32 = hi as u32;
        let is_old = move |st: &[i64]| s.store.find(st).is_some_and(|j| j < hi32);
        // Kept successors are encoded and hashed here, in parallel; the merge only looks
        // them up.
        let expand = |p: usize| {
            let from = a + p * PIECE;
            let mut piece = Piece::default();
            let mut exp = Expansion::default();
            let mut state = Vec::new();
            for i in from..(from + PIECE).min(b) {
                s.store.get_into(i as u32, &mut state);
                s.e.expand(&state, config.por, &is_old, &mut exp);
                piece.add(i as u32, &mut exp);
                let run = runs[i];
                if config.por && run.len >= FAIR_RUN && !runs[run.origin as usize].widened {
                    s.store.get_into(run.origin, &mut state);
                    s.e.expand(&state, false, &is_old, &mut exp);
                    piece.add_widened(run.origin, &mut exp);
                }
            }
            piece
        };
        let starts = 0..(b - a).div_ceil(PIECE);
        if config.parallel && b - a >= config.min_parallel_batch {
            match pool {
                Some(p) => p.install(|| starts.into_par_iter().map(expand).collect()),
                None => starts.into_par_iter().map(expand).collect(),
            }
        } else {
            starts.map(expand).collect()
        }
    }

    /// Takes in the expansions of a piece: what they found and did, and their successors
    /// (stored when new, with their parent and row).
    fn absorb(&mut self, piece: Piece) {
        self.effort.transitions += piece.transitions;
        self.effort.reduced_states += piece.reduced;
        self.effort.unwind_reached |= piece.unwound;
        self.finds.asserts.extend(piece.asserts.iter().copied());
        for &i in &piece.outcomes {
            let globals = self.search.globals(i);
            let runs = &mut self.finds.outcome_states;
            if self.config.outcome_runs && runs.len() < Config::MAX_OUTCOME_RUNS && !runs.contains_key(&globals) {
                runs.insert(globals.clone(), i);
            }
            self.finds.outcomes.insert(globals);
        }
        if piece.bound && self.effort.bound.is_none() {
            self.effort.bound = Some(Bound::AtomicStates);
        }
        let mut events = piece.events.into_iter().peekable();
        let (mut succ_from, mut byte_from) = (0usize, 0usize);
        for (k, x) in piece.ends.iter().enumerate() {
            let i = x.from;
            if let Some((_, found, deadlock)) = events.next_if(|e| e.0 == k) {
                self.note(i, found, deadlock);
            }
            let run = self.runs[i as usize];
            self.runs[i as usize].widened |= x.widened;
            // The row a successor continues: none after a full expansion; a new one from `i`
            // when the row to `i` is as long as allowed (its origin is expanded fully).
            let row = match (x.reduced, run.len >= FAIR_RUN) {
                (false, _) => None,
                (true, true) => Some((i, 1)),
                (true, false) => Some((run.origin, run.len + 1)),
            };
            for tr in &piece.succs[succ_from..x.succ_end as usize] {
                let (j, new) = self.search.store.insert_hashed(tr.hash, &piece.bytes[byte_from..tr.end as usize]);
                if new {
                    self.search.parents.push(Parent { parent: i, thread: tr.thread, opt: tr.opt, exit: tr.exit });
                    let (origin, len) = row.unwrap_or((j, 0));
                    self.runs.push(Run { origin, len, widened: false });
                } else if let Some((origin, len)) = row {
                    // A state reached again by a longer row takes that row: the threads it
                    // kept waiting wait no less for another way to the state.
                    let r = &mut self.runs[j as usize];
                    if len > r.len {
                        (r.origin, r.len) = (origin, len);
                    }
                }
                byte_from = tr.end as usize;
            }
            succ_from = x.succ_end as usize;
        }
    }

    /// Records what the expansion of stored state `i` found: failing steps, livelocks and a
    /// deadlock, each the kinds the config looks for.
    fn note(&mut self, i: u32, found: Vec<Found>, deadlock: Option<Vec<Stand>>) {
        let (e, finds, find) = (&self.search.e, &mut self.finds, self.config.find);
        for f in found {
            match f {
                Found::Fail { .. } if !find.contains(FailureKinds::BAD) => {}
                Found::Livelock { .. } if !find.contains(FailureKinds::LIVELOCKS) => {}
                Found::Fail { thread, opt, internal } => {
                    let last = (thread as usize, opt, internal);
                    let label = fail_label(e, &self.search.store.get(i), &last);
                    if finds.first_bad.is_none() {
                        finds.first_bad = Some((i, last.clone()));
                        finds.first.get_or_insert(Kind::Bad);
                        if self.merging && finds.first == Some(Kind::Bad) {
                            self.effort.clean = self.level_start;
                        }
                    }
                    let more = MORE_LOOKED_AT * (self.config.failures_per_assertion - 1);
                    match finds.failures.entry(label) {
                        Entry::Vacant(v) => {
                            v.insert((i, last));
                        }
                        Entry::Occupied(o) if more > 0 => {
                            let list = finds.more_failures.entry(o.key().clone()).or_default();
                            if list.len() < more {
                                list.push((i, last));
                            }
                        }
                        Entry::Occupied(_) => {}
                    }
                }
                Found::Livelock { thread, opt, path, cycle_start } => {
                    let id = livelock_id(e, &self.search.store.get(i), thread as usize, opt);
                    finds.first.get_or_insert(Kind::Livelock);
                    finds.livelocks.entry(id).or_insert((i, (thread as usize, opt, path), cycle_start));
                }
            }
        }
        if let Some(stands) = deadlock.filter(|_| find.contains(FailureKinds::DEADLOCKS)) {
            let state = self.search.store.get(i);
            let id = deadlock_id(e, &state, &stands);
            if self.config.deadlock_ends(&id, |x| finds.deadlocks.contains_key(x)) {
                finds.first.get_or_insert(Kind::Deadlock);
            }
            if e.failed_before(&state) {
                finds.after_failure.entry(id.clone()).or_insert((i, stands.clone()));
            }
            finds.deadlocks.entry(id).or_insert((i, stands));
        }
    }

    /// Bytes the stored states, their parent links and their rows take.
    fn memory(&self) -> usize {
        self.search.memory() + self.runs.capacity() * std::mem::size_of::<Run>()
    }

    /// Whether the search stops after a batch: at the first failure when the config says
    /// so, or at a bound (recorded).
    fn stops(&mut self, start: Instant) -> bool {
        let config = self.config;
        if config.stop_at_first_failure && self.finds.first.is_some() {
            return true;
        }
        if self.effort.bound.is_some() {
            return true;
        }
        if config.wanted_outcomes.as_ref().is_some_and(|w| w.is_subset(&self.finds.outcomes)) {
            return true;
        }
        let bound = if self.search.store.len() > config.max_states.max(1) {
            Bound::States
        } else if self.memory() > config.max_memory {
            Bound::Memory
        } else if config.max_time.is_some_and(|t| start.elapsed() > t) {
            Bound::Time
        } else {
            return false;
        };
        self.effort.bound = Some(bound);
        true
    }

    /// Builds a witness for everything found and the verdict.
    fn finish(self) -> Result<Answer, Error> {
        let Bfs { search, finds, mut effort, config, .. } = self;
        let mut found = Findings::default();
        for (id, (i, stands)) in &finds.deadlocks {
            found.deadlocks.insert(id.clone(), search.witness(*i, None, Some(stands))?);
        }
        for (id, (i, stands)) in &finds.after_failure {
            found.deadlocks_after_failure.insert(id.clone(), search.witness(*i, None, Some(stands))?);
        }
        for (id, (i, last, cycle_start)) in &finds.livelocks {
            let mut w = search.witness(*i, Some(last.clone()), None)?;
            // The entering step comes before the internal path.
            w.cycle_start = Some(transitions_to_steps(&search.e, &search.path_to(*i)).len() + 1 + cycle_start);
            found.livelocks.insert(id.clone(), w);
        }
        for (label, (i, last)) in &finds.failures {
            let first = search.witness(*i, Some(last.clone()), None)?;
            let states = finds.more_failures.get(label).map_or(&[][..], Vec::as_slice);
            let more = distinct_failures(&first, states, config.failures_per_assertion - 1, |(i, last)| {
                search.witness(*i, Some(last.clone()), None)
            })?;
            if !more.is_empty() {
                found.more_failures.insert(label.clone(), more);
            }
            found.failures.insert(label.clone(), first);
        }
        found.passed_assertions = passed_labels(search.e.c, &finds.asserts).collect();
        found.outcomes = finds.outcomes;
        for (outcome, i) in finds.outcome_states {
            let xs = transitions_to_steps(&search.e, &search.path_to(i));
            found.outcome_runs.insert(outcome, to_schedule(search.e.c, &xs));
        }
        let bad = match &finds.first_bad {
            Some((i, last)) => Some(search.witness(*i, Some(last.clone()), None)?),
            None => None,
        };
        effort.states = search.store.len();
        let verdict = verdict(bad, finds.first, &found, config, effort.bound, effort.states);
        Ok(Answer { verdict, found, effort })
    }
}

/// The verdict of a search: its first bad trace, else a deadlock that ends it
/// (`Config::deadlock_ends`, given every deadlock found) or a livelock (the livelock when the
/// search met one first), else the bound reached after `states` states, else correct.
fn verdict(
    bad: Option<Counterexample>,
    first: Option<Kind>,
    found: &Findings,
    config: &Config,
    bound: Option<Bound>,
    states: usize,
) -> Verdict {
    if let Some(w) = bad {
        return Verdict::Bad(Box::new(w));
    }
    let found_before = |x: &DeadlockId| found.deadlocks.contains_key(x);
    let deadlock = found
        .deadlocks
        .iter()
        .find(|(id, _)| config.deadlock_ends(id, found_before))
        .map(|(id, w)| Verdict::Deadlock(id.clone(), Box::new(w.clone())));
    let livelock = found.livelocks.iter().next().map(|(id, w)| Verdict::Livelock(id.clone(), Box::new(w.clone())));
    let kinds = if first == Some(Kind::Livelock) { [livelock, deadlock] } else { [deadlock, livelock] };
    match (kinds.into_iter().flatten().next(), bound) {
        (Some(v), _) => v,
        (None, Some(what)) => Verdict::BoundReached { what, states },
        (None, None) => Verdict::Correct,
    }
}

/// The identity of the livelock found by option `opt` of thread `t` in state `s`: the thread
/// and the atomic block the option enters.
fn livelock_id(e: &Engine<'_>, s: &[i64], t: usize, opt: u16) -> LivelockId {
    let code = &e.c.threads[t];
    let o = &code.points[e.pc(s, t)].options[opt as usize];
    let reg = code.steps[o.step as usize].region.unwrap_or(0);
    LivelockId { thread: code.name.clone(), block: e.c.loc_names[code.regions[reg as usize].loc.index()].clone() }
}
