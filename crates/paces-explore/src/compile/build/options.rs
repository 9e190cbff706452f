//! What a thread may do next from each control point of its graph: the steps reachable by
//! silent moves (its *options*), whether it can finish or leave its atomic region without a
//! step, and the globals the steps reachable from there may read and write (its *future*).

use std::collections::VecDeque;

use super::ThreadBuilder;
use crate::compile::graph::{Move, Opt};
use crate::error::{Error, ErrorKind};

impl ThreadBuilder<'_> {
    /// For every point: the options, whether the thread can finish, and for points in an
    /// atomic region whether the region can be left silently.
    pub(super) fn closures(&mut self) -> Result<(), Error> {
        self.region_sets();
        let top_end = self.occs[0].first_point + self.occs[0].len;
        let mut stamp = vec![u32::MAX; self.points.len()];
        for p in 0..self.points.len() {
            self.point_closure(p, top_end, &mut stamp)?;
        }
        Ok(())
    }

    /// The globals every atomic region's steps read and write.
    fn region_sets(&mut self) {
        for s in &self.steps {
            if let Some(r) = s.region {
                let reg = &mut self.regions[r as usize];
                reg.r.union_with(&s.r);
                reg.w.union_with(&s.w);
            }
        }
    }

    /// The options of point `p`, whether the thread can finish from it, and how it leaves its
    /// region silently: a breadth-first search over the silent edges that stays inside the
    /// point's region. From a point outside regions, a path that enters a user `atomic`
    /// block and reaches its end without a step stops there with the block's pass step (see
    /// [`Region::pass`](crate::compile::graph::Region::pass)). `stamp[q] == p` marks the
    /// points this search has queued.
    fn point_closure(&mut self, p: usize, top_end: u32, stamp: &mut [u32]) -> Result<(), Error> {
        let region = self.points[p].region;
        let mut options: Vec<Opt> = Vec::new();
        let mut can_finish = false;
        let mut exit_moves = None;
        let mut queue: VecDeque<(u32, Vec<Move>)> = VecDeque::new();
        queue.push_back((p as u32, Vec::new()));
        stamp[p] = p as u32;
        while let Some((q, moves)) = queue.pop_front() {
            if q == top_end {
                can_finish = true;
            }
            for &st in &self.steps_at[q as usize] {
                self.add_option(&mut options, st, &moves);
            }
            for (target, emoves) in &self.silent[q as usize] {
                let mut m = moves.clone();
                m.extend(emoves.iter().copied());
                let inside = self.points[q as usize].region;
                if self.points[*target as usize].region != inside {
                    if region.is_some() {
                        if exit_moves.is_none() {
                            exit_moves = Some(m);
                        }
                        continue;
                    }
                    // A path through a whole block without a step: the block's one step.
                    if let Some(st) = inside.and_then(|r| self.regions[r as usize].pass) {
                        self.add_option(&mut options, st, &m);
                        continue;
                    }
                }
                if stamp[*target as usize] != p as u32 {
                    stamp[*target as usize] = p as u32;
                    queue.push_back((*target, m));
                }
            }
        }
        if options.len() >= usize::from(u16::MAX) {
            return Err(self.err(ErrorKind::TooLarge, "a control point with more than 65,534 next steps"));
        }
        let point = &mut self.points[p];
        point.options = options;
        point.can_finish = can_finish && region.is_none();
        point.exit_moves = exit_moves;
        Ok(())
    }

    /// Adds step `st`, reached by `moves`, to `options` unless it is there already.
    fn add_option(&self, options: &mut Vec<Opt>, st: u32, moves: &[Move]) {
        if options.iter().any(|o| o.step == st) {
            return;
        }
        let step = &self.steps[st as usize];
        let (r, w) = match step.region {
            Some(reg) => (self.regions[reg as usize].r.clone(), self.regions[reg as usize].w.clone()),
            None => (step.r.clone(), step.w.clone()),
        };
        let has_loop_moves = moves.iter().any(|m| matches!(m, Move::LoopEnter(_) | Move::LoopExit(_)));
        options.push(Opt { step: st, moves: moves.to_vec(), has_loop_moves, r, w });
    }

    /// Globals read and written by steps reachable from each point (a fixpoint).
    pub(super) fn futures(&mut self) {
        let n = self.points.len();
        let mut changed = true;
        while changed {
            changed = false;
            for p in (0..n).rev() {
                let mut r = self.points[p].fut_r.clone();
                let mut w = self.points[p].fut_w.clone();
                for o in &self.points[p].options {
                    let step = &self.steps[o.step as usize];
                    r.union_with(&step.r);
                    w.union_with(&step.w);
                    let after = &self.points[step.after as usize];
                    r.union_with(&after.fut_r);
                    w.union_with(&after.fut_w);
                }
                if let (Some(reg), Some(_)) = (self.points[p].region, &self.points[p].exit_moves) {
                    let exit = &self.points[self.regions[reg as usize].exit as usize];
                    r.union_with(&exit.fut_r);
                    w.union_with(&exit.fut_w);
                }
                let point = &mut self.points[p];
                if point.fut_r.union_with(&r) | point.fut_w.union_with(&w) {
                    changed = true;
                }
            }
        }
    }
}
