//! Expanding a state: every option of every thread, the atomic regions they enter, where
//! each thread stands when none can step, and (with the reduction) the successors kept.

use super::atomic::{ChainEnd, Noted};
use super::{Engine, Expansion, Found, MacroOut, Outcome, StandAt, Trans};

/// The step that entered an atomic region: whether it failed, and the step when it is an
/// `assert` that passed.
#[derive(Clone, Copy)]
struct Entry {
    failed: bool,
    assert: Option<u32>,
}

impl Engine<'_> {
    /// Expands a state into `exp` (cleared first): every transition, what they find, and
    /// (when `por`) the reduced set of successors. `is_old` says whether a successor state was
    /// visited at an earlier or the current level (the cycle proviso). States expanded are canonical (see [`Engine::canon`]), as every state the
    /// expansion produces is.
    pub(crate) fn expand(&self, s: &[i64], por: bool, is_old: &dyn Fn(&[i64]) -> bool, exp: &mut Expansion) {
        debug_assert!(self.is_canonical(s), "an expanded state is canonical");
        self.expand_all(s, exp);
        if por && !exp.succs.is_empty() {
            self.reduce(s, exp, is_old);
        }
        if self.merge_independent {
            self.merge_kept(exp, 0..exp.succs.len());
        }
    }

    /// Whether thread `t` stands in `s` where it may stop: where it can reach its end without
    /// a step ([`Point::can_finish`](crate::compile::graph::Point::can_finish)), or at its
    /// start gate with no option open (it has not been created, and may never be).
    pub(crate) fn may_stop(&self, s: &[i64], t: usize) -> bool {
        self.c.threads[t].points[self.pc(s, t)].can_finish || self.unstarted(s, t)
    }

    /// Whether thread `t` stands in `s` at its start gate with no option open: a created
    /// thread whose create has not run.
    pub(crate) fn unstarted(&self, s: &[i64], t: usize) -> bool {
        let point = &self.c.threads[t].points[self.pc(s, t)];
        let mut next = Vec::with_capacity(s.len());
        point.start_gate
            && point.options.iter().all(|opt| {
                next.clear();
                next.extend_from_slice(s);
                matches!(self.apply(&mut next, t, opt), Outcome::Disabled { .. })
            })
    }

    fn expand_all(&self, s: &[i64], exp: &mut Expansion) {
        exp.clear();
        exp.origin.clear();
        if self.merge_independent {
            self.closed_gates(s, &mut exp.closed);
            exp.origin.extend_from_slice(s);
        }
        for t in 0..self.lay.threads {
            let begin = exp.succs.len();
            let stand = self.expand_thread(s, t, exp);
            exp.ranges.push(begin..exp.succs.len());
            exp.stands.push(stand);
        }
        exp.outcome = self.outcomes && exp.stands.iter().all(|s| matches!(s, StandAt::Done));
        // A thread may stop where it can finish (a `while (*)` it may leave, an `if (*)` with
        // an empty branch): a deadlock is a state where, with those threads stopped, no thread
        // can step, not every thread is done and none is cut.
        let stopped = |t: usize| exp.ranges[t].is_empty() || matches!(exp.stands[t], StandAt::Done);
        if (0..self.lay.threads).all(stopped) {
            let all_done = exp.stands.iter().all(|s| matches!(s, StandAt::Done));
            let any_cut = exp.stands.iter().any(|s| matches!(s, StandAt::Cut));
            if !all_done && !any_cut {
                exp.deadlock = Some(exp.stands());
            }
        }
    }

    /// Takes every option of thread `t` in `s` into `exp`; where the thread stands should no
    /// thread be able to step.
    fn expand_thread(&self, s: &[i64], t: usize, exp: &mut Expansion) -> StandAt {
        let code = &self.c.threads[t];
        let point = &code.points[self.pc(s, t)];
        exp.enabled.push_thread(point.options.len());
        let mut cut = false;
        let mut stepped = false;
        let blocked_start = exp.blocked.len();
        // The atomic regions the options enter, each as one unit: its blocking options and
        // whether some option of it is cut.
        let mut regions = std::mem::take(&mut exp.regions);
        regions.clear();
        let mut next = std::mem::take(&mut exp.next);
        for (i, opt) in point.options.iter().enumerate() {
            next.clear();
            next.extend_from_slice(s);
            // The region the option's step enters, looked up only when needed.
            let region = || code.steps[opt.step as usize].region;
            match self.apply(&mut next, t, opt) {
                // Outside atomic blocks a false `assume` cuts; inside one it waits, as a false
                // `await` does (the block is all or nothing).
                Outcome::Disabled { assume: true } if region().is_none() => cut = true,
                Outcome::Disabled { .. } => regions.wait(region(), i as u16, &mut exp.blocked),
                Outcome::Unwound => {
                    regions.cut(region(), &mut cut);
                    exp.unwound = true;
                }
                Outcome::Done { failed, passed } => {
                    stepped = true;
                    exp.transitions += 1;
                    if self.in_region(&next, t) {
                        // No path gets through: the thread waits before the block when some
                        // path stopped at a false `await` or `assume`, and is cut otherwise.
                        let entry = Entry { failed, assert: passed.then_some(opt.step) };
                        match self.enter_region(t, i, entry, &mut next, exp) {
                            Some(true) => regions.wait(region(), i as u16, &mut exp.blocked),
                            Some(false) => regions.cut(region(), &mut cut),
                            None => {}
                        }
                    } else {
                        if failed {
                            exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal: Vec::new() });
                        }
                        if passed {
                            exp.asserts.push((t as u16, opt.step));
                        }
                        let mut path = std::mem::take(&mut exp.path);
                        path.clear();
                        self.push_succ(t, i, 0, &mut next, &mut path, exp);
                        exp.path = path;
                    }
                }
            }
        }
        regions.settle(&mut exp.blocked, blocked_start, &mut cut);
        exp.regions = regions;
        exp.next = next;
        // A thread that cannot step is blocked when some option waits, even where another is
        // cut: the choice is made with the first step of the branch taken, so a branch that
        // cannot start (a loop's exit into a false `assume`) leaves the other branches' waits.
        // It is cut only when every option is.
        if point.can_finish {
            StandAt::Done
        } else if point.start_gate && !stepped && !cut {
            // A thread not created yet may never be: it stands as one at its end does, and
            // waits for nothing.
            exp.blocked.truncate(blocked_start);
            StandAt::Done
        } else if cut && exp.blocked.len() == blocked_start {
            StandAt::Cut
        } else {
            StandAt::Blocked { start: blocked_start, end: exp.blocked.len() }
        }
    }

    /// Runs the atomic region that option `i` of thread `t` entered (`next` is the state
    /// after the entering step, which failed when `failed`), recording its successors and
    /// what it finds in `exp`, as [`Engine::run_macro`] finds them. When no path gets
    /// through: whether some path stopped at a false `await` or `assume`.
    fn enter_region(&self, t: usize, i: usize, entry: Entry, next: &mut Vec<i64>, exp: &mut Expansion) -> Option<bool> {
        let failed = entry.failed;
        let mut work = std::mem::take(&mut exp.work);
        let mut path = std::mem::take(&mut exp.path);
        path.clear();
        let mut noted = Noted::default();
        let end = self.run_chain(t, next, &mut work, &mut path, &mut noted);
        exp.work = work;
        let stopped = match end {
            ChainEnd::Left => {
                // One way out: the entering step's failure and the chain's count.
                if failed {
                    exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal: Vec::new() });
                }
                for internal in noted.fails {
                    exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal });
                }
                exp.asserts.extend(entry.assert.map(|step| (t as u16, step)));
                exp.asserts.extend(noted.asserts.iter().map(|&step| (t as u16, step)));
                self.push_succ(t, i, 0, next, &mut path, exp);
                None
            }
            ChainEnd::Disabled => Some(true),
            ChainEnd::Unwound => {
                exp.unwound = true;
                Some(false)
            }
            ChainEnd::Branch => {
                let m = self.search_after(t, next.clone(), &path, noted);
                self.record_macro(t, i, entry, m, exp)
            }
        };
        exp.path = path;
        stopped
    }

    /// Records in `exp` what the run `m` of the atomic region that option `i` of thread `t`
    /// entered found, and its successors. When no path gets through: whether some path
    /// stopped at a false `await` or `assume`.
    fn record_macro(&self, t: usize, i: usize, entry: Entry, m: MacroOut, exp: &mut Expansion) -> Option<bool> {
        let failed = entry.failed;
        exp.bound |= m.bound;
        exp.unwound |= m.unwound;
        // The entering step's failure counts when the region can be left.
        if failed && !m.exits.is_empty() {
            exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal: Vec::new() });
        }
        for internal in m.fails {
            exp.found.push(Found::Fail { thread: t as u16, opt: i as u16, internal });
        }
        if !m.exits.is_empty() {
            exp.asserts.extend(entry.assert.map(|step| (t as u16, step)));
            exp.asserts.extend(m.asserts.iter().map(|&step| (t as u16, step)));
        }
        if let Some((path, cycle_start)) = m.livelock {
            exp.found.push(Found::Livelock { thread: t as u16, opt: i as u16, path, cycle_start });
        }
        let stopped = m.exits.is_empty().then_some(m.waited);
        for (k, (mut state, mut path)) in m.exits.into_iter().enumerate() {
            self.push_succ(t, i, k as u32, &mut state, &mut path, exp);
        }
        stopped
    }

    /// Records the successor `state` that option `opt` of thread `t` (exit `exit` of its
    /// region) leads to, after merging the private steps that follow it (their failures
    /// found, their options appended to `path`) and resetting dead variables: enables the
    /// option and keeps the state.
    fn push_succ(&self, t: usize, opt: usize, exit: u32, state: &mut [i64], path: &mut Vec<u16>, exp: &mut Expansion) {
        for f in self.merge_private(state, t, path, &mut exp.asserts) {
            let internal = path[..=f].to_vec();
            exp.found.push(Found::Fail { thread: t as u16, opt: opt as u16, internal });
        }
        self.canon_thread(state, t);
        exp.enabled.enable_last(opt);
        let start = exp.states.len();
        exp.states.extend_from_slice(state);
        let end = exp.states.len();
        let path_start = exp.paths.len();
        if self.merge_independent {
            exp.paths.extend_from_slice(path);
        }
        exp.succs.push(Trans {
            thread: t as u16,
            opt: opt as u16,
            exit,
            start: start as u32,
            end: end as u32,
            path: (path_start as u32, exp.paths.len() as u32),
            merged: !self.merge_independent,
        });
    }
}
