//! Steps carried along with a transition: a thread's private steps, and (with the reduction)
//! the steps it would take alone; the argument is in docs/explore.md.

use smallvec::SmallVec;

use crate::bits::Bits;
use crate::compile::StepKind;

use super::{Engine, Expansion, Found, Outcome};

impl Engine<'_> {
    /// Takes, right after a transition of thread `t`, the steps that follow it when they are
    /// the thread's only next step, touch only its private variables (locals and globals no
    /// other thread uses) and can be taken (when [`Settings::merge`]): they commute with
    /// every other thread's steps and leave no choice, so the states between them need not
    /// be stored. Appends an option index (0) per step to `path` and the `assert` steps
    /// passed to `asserts`; returns the indices in `path` of the failing ones. A run that
    /// passes a point where `t` can finish ends where it can finish (see [`StopMark`]).
    pub(crate) fn merge_private(
        &self,
        s: &mut [i64],
        t: usize,
        path: &mut Vec<u16>,
        asserts: &mut Vec<(u16, u32)>,
    ) -> Vec<usize> {
        let mut fails = Vec::new();
        let mut mark = None;
        self.merge_private_marked(s, t, path, asserts, &mut fails, &mut mark);
        self.end_where_it_can_stop(s, t, path, asserts, &mut fails, mark);
        fails
    }

    /// The private steps of [`Engine::merge_private`], noting in `mark` the last point passed
    /// where `t` can finish; failing steps' indices in `path` go to `fails`.
    fn merge_private_marked(
        &self,
        s: &mut [i64],
        t: usize,
        path: &mut Vec<u16>,
        asserts: &mut Vec<(u16, u32)>,
        fails: &mut Vec<usize>,
        mark: &mut Option<StopMark>,
    ) {
        if !self.merge {
            return;
        }
        let code = &self.c.threads[t];
        // The points passed where `t` can finish: a run that comes back to one goes round a
        // loop `t` may leave for its end (`while (*)` over private variables, whose counter
        // need never repeat), and ends there; the state stored there is expanded again.
        let mut finish_points: SmallVec<[usize; 4]> = SmallVec::new();
        for _ in 0..10_000 {
            let pc = self.pc(s, t);
            let p = &code.points[pc];
            if p.can_finish {
                if finish_points.contains(&pc) {
                    break;
                }
                finish_points.push(pc);
                *mark = Some(StopMark::new(s, path, asserts, fails));
                if self.outcomes {
                    // Each point where `t` may stop can be an outcome state: stored.
                    break;
                }
            }
            if !p.private_next {
                break;
            }
            let before: SmallVec<[i64; 64]> = SmallVec::from_slice(s);
            match self.apply(s, t, &p.options[0]) {
                Outcome::Done { failed, passed } => {
                    if failed {
                        fails.push(path.len());
                    }
                    if passed {
                        asserts.push((t as u16, p.options[0].step));
                    }
                    path.push(0);
                }
                _ => {
                    s.copy_from_slice(&before);
                    break;
                }
            }
        }
    }

    /// Ends a merged run of thread `t` where `t` can finish when it passed such a point
    /// (`mark`, the last one): back there unless it can finish where it stands.
    fn end_where_it_can_stop(
        &self,
        s: &mut [i64],
        t: usize,
        path: &mut Vec<u16>,
        asserts: &mut Vec<(u16, u32)>,
        fails: &mut Vec<usize>,
        mark: Option<StopMark>,
    ) {
        if let Some(m) = mark {
            if !self.c.threads[t].points[self.pc(s, t)].can_finish {
                m.restore(s, path, asserts, fails);
            }
        }
    }

    /// Takes, right after a transition of thread `t`, the steps [`Engine::merge_private`]
    /// takes, and (when [`Settings::merge_independent`]) every further step that `t` would
    /// take alone in the reduced search: `t` has exactly one enabled option, it enters no
    /// atomic block, and `{t}` is a persistent set (its enabled step conflicts with no other
    /// thread's gated future, and no other thread's gated future writes what its disabled
    /// options read). The reduction would keep only that step, so the state before it need
    /// not be stored; the argument is in docs/explore.md. Returns the indices in `path` of
    /// the failing steps.
    pub(crate) fn merge_after(
        &self,
        s: &mut [i64],
        t: usize,
        path: &mut Vec<u16>,
        asserts: &mut Vec<(u16, u32)>,
    ) -> Vec<usize> {
        let mut fails = self.merge_private(s, t, path, asserts);
        fails.extend(self.merge_independent_steps(s, t, path, asserts, None));
        fails
    }

    /// The second part of [`Engine::merge_after`], after the private steps: `origin` is the
    /// expanded state and its closed gates (see [`Engine::closed_gates`]), when known.
    fn merge_independent_steps(
        &self,
        s: &mut [i64],
        t: usize,
        path: &mut Vec<u16>,
        asserts: &mut Vec<(u16, u32)>,
        origin: Option<(&[i64], &[u64])>,
    ) -> Vec<usize> {
        let mut fails = Vec::new();
        if !self.merge_independent {
            return fails;
        }
        let code = &self.c.threads[t];
        // The last point passed where `t` can finish, and the other threads' gate variables:
        // past such a point a merged step writes none of them (it could open a gate another
        // thread waits at for good once `t` stops there).
        let mut mark: Option<StopMark> = None;
        let others_gates = self.others_gates(t);
        // What the other threads' whole futures read and write: the other threads do not
        // move along the merged steps. A step that conflicts with none of them is merged
        // without looking at gates.
        let mut whole: Option<(Bits, Bits)> = None;
        // The same for their gated futures, with `{t}` as the set: no merged step writes
        // what they read, so they stay as they are until a merged step writes a gate variable.
        let mut gated: Option<(Bits, Bits)> = None;
        let mut taken: SmallVec<[i64; 64]> = SmallVec::new();
        // The points passed: a thread going round a loop stops where it came back (the
        // reduction's cycle proviso then looks at the state stored there).
        let mut seen: SmallVec<[usize; 16]> = SmallVec::new();
        loop {
            let pc = self.pc(s, t);
            let point = &code.points[pc];
            if point.can_finish {
                mark = Some(StopMark::new(s, path, asserts, &fails));
                if self.outcomes {
                    break;
                }
            }
            if point.region.is_some() || point.options.is_empty() || seen.contains(&pc) {
                break;
            }
            seen.push(pc);
            let Some(Sole { opt: i, failed, passed, waits_on }) = self.sole_step(s, t, pc, &mut taken) else { break };
            let opt = &point.options[i];
            let conflicts = |(fut_r, fut_w): &(Bits, Bits)| {
                opt.w.intersects(fut_r)
                    || opt.w.intersects(fut_w)
                    || opt.r.intersects(fut_w)
                    || waits_on.as_ref().is_some_and(|w| w.intersects(fut_w))
            };
            if conflicts(whole.get_or_insert_with(|| self.others_whole_futures(s, t)))
                && conflicts(gated.get_or_insert_with(|| {
                    let mut closed = Vec::new();
                    match origin {
                        Some((o, c)) if self.same_gate_values(o, s) => closed.extend_from_slice(c),
                        _ => self.closed_gates(s, &mut closed),
                    }
                    self.others_futures(s, t, &closed)
                }))
            {
                break;
            }
            if mark.is_some() && opt.w.low_word() & others_gates != 0 {
                break;
            }
            s.copy_from_slice(&taken);
            // A write to a gate variable may open a gate (gated futures leave the gate's own
            // read out): the gated futures are computed again at the next step.
            if opt.w.low_word() & self.gates().1 != 0 {
                gated = None;
            }
            if failed {
                fails.push(path.len());
            }
            if passed {
                asserts.push((t as u16, opt.step));
            }
            path.push(i as u16);
            self.merge_private_marked(s, t, path, asserts, &mut fails, &mut mark);
        }
        self.end_where_it_can_stop(s, t, path, asserts, &mut fails, mark);
        fails
    }

    /// The gate variables of every thread but `t` (see `Gates::all`).
    fn others_gates(&self, t: usize) -> u64 {
        let gates = &self.gates().0;
        (0..self.lay.threads).filter(|&u| u != t).fold(0, |m, u| m | gates[u].all())
    }

    /// The step thread `t` would take alone at its control point `pc` in `s`: it has exactly
    /// one enabled option, which enters no atomic block, and no choice between two options
    /// without a condition (`if (*)`, `while (*)`). The state after it goes to `taken`.
    fn sole_step(&self, s: &[i64], t: usize, pc: usize, taken: &mut SmallVec<[i64; 64]>) -> Option<Sole> {
        let code = &self.c.threads[t];
        let point = &code.points[pc];
        let unconditional = point
            .options
            .iter()
            .filter(|o| {
                let step = &code.steps[o.step as usize];
                step.region.is_none() && !matches!(step.kind, StepKind::Assume(_) | StepKind::Await(_))
            })
            .count();
        if unconditional > 1 {
            return None;
        }
        let mut next: SmallVec<[i64; 64]> = SmallVec::new();
        let mut enabled: Option<(usize, bool, bool)> = None;
        let mut waits_on: Option<Bits> = None;
        for (i, opt) in point.options.iter().enumerate() {
            next.clear();
            next.extend_from_slice(s);
            match self.apply(&mut next, t, opt) {
                Outcome::Done { failed, passed } if enabled.is_none() && !self.in_region(&next, t) => {
                    enabled = Some((i, failed, passed));
                    std::mem::swap(taken, &mut next);
                }
                Outcome::Disabled { .. } => {
                    waits_on.get_or_insert_with(|| Bits::new(self.lay.globals)).union_with(&opt.r);
                }
                _ => return None,
            }
        }
        let (opt, failed, passed) = enabled?;
        Some(Sole { opt, failed, passed, waits_on })
    }

    /// The union of the whole futures of every thread but `t` in `s`.
    fn others_whole_futures(&self, s: &[i64], t: usize) -> (Bits, Bits) {
        let (mut r, mut w) = (Bits::new(self.lay.globals), Bits::new(self.lay.globals));
        for (u, code) in self.c.threads.iter().enumerate().filter(|&(u, _)| u != t) {
            let point = &code.points[self.pc(s, u)];
            r.union_with(&point.fut_r);
            w.union_with(&point.fut_w);
        }
        (r, w)
    }

    /// Whether every gate variable holds the same value in `a` and `b` (so every thread's
    /// closed gates are the same: a gate's condition reads its variable and nothing else).
    fn same_gate_values(&self, a: &[i64], b: &[i64]) -> bool {
        let g = self.lay.threads;
        let mut all = self.gates().1;
        while all != 0 {
            let v = all.trailing_zeros() as usize;
            if a[g + v] != b[g + v] {
                return false;
            }
            all &= all - 1;
        }
        true
    }

    /// Merges into each successor in `succs` (indices into `exp.succs`) the steps its thread
    /// would take alone (see [`Engine::merge_after`]), once: only the successors the
    /// reduction looks at are merged, and a merged successor's state is what the search
    /// stores.
    pub(super) fn merge_kept(&self, exp: &mut Expansion, succs: impl Iterator<Item = usize>) {
        let mut state: SmallVec<[i64; 64]> = SmallVec::new();
        let mut path = std::mem::take(&mut exp.path);
        for i in succs {
            let tr = exp.succs[i];
            if tr.merged {
                continue;
            }
            let t = tr.thread as usize;
            state.clear();
            state.extend_from_slice(exp.state(&tr));
            path.clear();
            path.extend_from_slice(&exp.paths[tr.path.0 as usize..tr.path.1 as usize]);
            let origin = Some((&exp.origin[..], &exp.closed[..]));
            for f in self.merge_independent_steps(&mut state, t, &mut path, &mut exp.asserts, origin) {
                let internal = path[..=f].to_vec();
                exp.found.push(Found::Fail { thread: tr.thread, opt: tr.opt, internal });
            }
            self.canon_thread(&mut state, t);
            exp.states[tr.start as usize..tr.end as usize].copy_from_slice(&state);
            exp.succs[i].merged = true;
        }
        exp.path = path;
    }
}

/// The step a thread would take alone (see `Engine::sole_step`): its option, whether it
/// failed, whether it is an `assert` that passed, and what the thread's disabled options read.
struct Sole {
    opt: usize,
    failed: bool,
    passed: bool,
    waits_on: Option<Bits>,
}

/// Where a merged run passed a point at which its thread can finish: the state and the
/// lengths of the run's path, `assert` steps and failures there. A thread may stop where it
/// can finish, so a deadlock may show at such a point; a run that passes one ends at a point
/// where the thread can finish (the last one passed, unless it can finish where it ends), so
/// that the state stored stands for the one passed (docs/explore.md, "Merging the steps a
/// thread would take alone").
struct StopMark {
    state: SmallVec<[i64; 64]>,
    path: usize,
    asserts: usize,
    fails: usize,
}

impl StopMark {
    fn new(s: &[i64], path: &[u16], asserts: &[(u16, u32)], fails: &[usize]) -> Self {
        StopMark { state: SmallVec::from_slice(s), path: path.len(), asserts: asserts.len(), fails: fails.len() }
    }

    /// Takes the run back to the mark.
    fn restore(self, s: &mut [i64], path: &mut Vec<u16>, asserts: &mut Vec<(u16, u32)>, fails: &mut Vec<usize>) {
        s.copy_from_slice(&self.state);
        path.truncate(self.path);
        asserts.truncate(self.asserts);
        fails.truncate(self.fails);
    }
}
