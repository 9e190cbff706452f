//! The preemption-free decision: whether some linearisation of the partial order switches
//! threads only at preemption points (before an await, or at a thread's end or blocked
//! step). When none does, fixes that act across preemption points are left out.

use paces_trace::{EventKind, Trace};
use rustc_hash::FxHashSet;

use super::graph::Graph;

impl Graph<'_> {
    /// Whether some linearisation of the partial order switches threads only where the
    /// thread left next runs an await (or has finished, or is blocked). Depth-first search
    /// over the per-thread progress at switch points, with a budget of executed events.
    pub(super) fn preemption_free(&self, trace: &Trace, budget: u64) -> bool {
        let threads = self.thread_nodes.len();
        let exec_len: Vec<usize> =
            self.thread_nodes.iter().map(|ns| ns.iter().filter(|&&v| self.executes(v)).count()).collect();
        let total: usize = exec_len.iter().sum();
        let after: Vec<bool> = (0..threads).map(|t| self.may_leave_when_done(trace, t)).collect();
        let switchable = |t: usize, p: usize| -> bool {
            if p < exec_len[t] {
                self.ev[self.thread_nodes[t][p] as usize].kind == EventKind::Await
            } else {
                after[t]
            }
        };
        let mut spent = 0u64;
        let mut seen: FxHashSet<Vec<u32>> = FxHashSet::default();
        let start = vec![0u32; threads];
        seen.insert(start.clone());
        let mut stack = vec![start];
        while let Some(state) = stack.pop() {
            for t in 0..threads {
                let mut s = state.clone();
                let mut done: usize = s.iter().map(|&x| x as usize).sum();
                loop {
                    let p = s[t] as usize;
                    if p >= exec_len[t] || !self.enabled(self.thread_nodes[t][p], &s) {
                        break;
                    }
                    s[t] += 1;
                    done += 1;
                    spent += 1;
                    if done == total {
                        return true;
                    }
                    if spent > budget {
                        return false;
                    }
                    if switchable(t, s[t] as usize) && seen.insert(s.clone()) {
                        stack.push(s.clone());
                    }
                }
            }
        }
        total == 0
    }

    /// Whether node `v` is an executed event (not a blocked or pending step).
    fn executes(&self, v: u32) -> bool {
        !self.blocked[v as usize] && !self.pending[v as usize]
    }

    /// Whether thread `t`, once it ran all its executed events, may be left: its next step in
    /// the trace is an await, or it has none (finished or blocked).
    fn may_leave_when_done(&self, trace: &Trace, t: usize) -> bool {
        let ns = &self.thread_nodes[t];
        let Some(&last) = ns.iter().rev().find(|&&v| self.executes(v)) else { return true };
        let last_id = self.ids[last as usize].index();
        let thread = self.ev[last as usize].thread;
        // Its next step: a later event, or else its first pending step.
        let later = trace.events()[last_id + 1..].iter().find(|e| e.thread == thread);
        match later.or_else(|| trace.pending().iter().find(|e| e.thread == thread)) {
            Some(e) => e.kind == EventKind::Await,
            None => true,
        }
    }

    /// Whether node `v` may run once every thread `u` ran its first `state[u]` executed
    /// events: every cross-thread ordering into it comes from an executed event already run.
    fn enabled(&self, v: u32, state: &[u32]) -> bool {
        self.all_cross_in[v as usize].iter().all(|&w| {
            let w = w as usize;
            self.executes(w as u32) && self.tpos[w] < state[self.thread[w] as usize]
        })
    }
}
