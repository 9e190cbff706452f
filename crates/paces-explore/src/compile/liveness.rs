//! Liveness of a thread's variables: at every control point, the locals that can never be
//! read again and the globals it may read before writing them (the checker resets a variable
//! no thread can read again to 0), and whether the point's only next step touches nothing but
//! variables private to the thread, its locals and globals no other thread uses (the checker
//! merges it into the step before).

use super::graph::{StepKind, TCode};
use super::layout::VarRef;
use crate::bits::Bits;

/// Fills in, at every point of every thread, [`Point::dead`](super::graph::Point::dead),
/// [`Point::live_r`](super::graph::Point::live_r) and
/// [`Point::private_next`](super::graph::Point::private_next). The threads' futures must be
/// computed: a global is private to the one thread whose future from its entry touches it.
pub(super) fn analyse(threads: &mut [TCode], n_globals: usize) {
    let used = used_globals(threads);
    for (t, code) in threads.iter_mut().enumerate() {
        let slots = Slots { n_globals, n_locals: code.local_init.len() };
        let private = private_slots(&used, t, slots);
        let live = live_slots(code, slots);
        mark_private_next(code, &private);
        mark_dead(code, &live, slots);
        mark_live_globals(code, &live, slots);
    }
}

/// Numbers a thread's variables for bit sets: the globals, then the thread's local slots.
#[derive(Clone, Copy)]
struct Slots {
    n_globals: usize,
    n_locals: usize,
}

impl Slots {
    fn width(self) -> usize {
        self.n_globals + self.n_locals
    }

    fn index(self, r: VarRef) -> usize {
        match r {
            VarRef::Global(g) => g as usize,
            VarRef::Local(l) => self.n_globals + l as usize,
        }
    }
}

/// Per thread: the globals its steps may read or write.
fn used_globals(threads: &[TCode]) -> Vec<Bits> {
    threads
        .iter()
        .map(|t| {
            let p = &t.points[t.entry as usize];
            let mut b = p.fut_r.clone();
            b.union_with(&p.fut_w);
            b
        })
        .collect()
}

/// The variables private to thread `t`: its local slots, and the globals it uses and no
/// other thread does.
fn private_slots(used: &[Bits], t: usize, slots: Slots) -> Bits {
    let mut private = Bits::new(slots.width());
    for g in 0..slots.n_globals {
        if used[t].contains(g) && used.iter().enumerate().all(|(u, b)| u == t || !b.contains(g)) {
            private.insert(g);
        }
    }
    for l in 0..slots.n_locals {
        private.insert(slots.n_globals + l);
    }
    private
}

/// Per point: the variables that some path from it may read before writing them (backward
/// liveness over the control graph, to a fixpoint). Leaving an atomic region silently
/// continues at the region's exit.
fn live_slots(code: &TCode, slots: Slots) -> Vec<Bits> {
    let n = code.points.len();
    let mut live: Vec<Bits> = vec![Bits::new(slots.width()); n];
    let mut changed = true;
    while changed {
        changed = false;
        for p in (0..n).rev() {
            let mut acc = Bits::new(slots.width());
            for o in &code.points[p].options {
                let st = &code.steps[o.step as usize];
                let mut after = live[st.after as usize].clone();
                if let StepKind::Assign(v, _) = st.kind {
                    let reads_itself = st.reads.contains(&v);
                    if !reads_itself {
                        after.remove(slots.index(v));
                    }
                }
                acc.union_with(&after);
                for &r in &st.reads {
                    acc.insert(slots.index(r));
                }
            }
            if let (Some(reg), Some(_)) = (code.points[p].region, &code.points[p].exit_moves) {
                let exit = code.regions[reg as usize].exit as usize;
                let l = live[exit].clone();
                acc.union_with(&l);
            }
            if live[p].union_with(&acc) {
                changed = true;
            }
        }
    }
    live
}

/// Marks the points whose only next step lies outside atomic blocks, is not an `await`, and
/// touches only private globals.
fn mark_private_next(code: &mut TCode, private: &Bits) {
    let steps = &code.steps;
    for point in code.points.iter_mut() {
        point.private_next = point.options.len() == 1 && point.region.is_none() && {
            let st = &steps[point.options[0].step as usize];
            st.region.is_none()
                && !matches!(st.kind, StepKind::Await(_))
                && st.r.iter().chain(st.w.iter()).all(|g| private.contains(g))
        };
    }
}

/// Records at every point the globals live there.
fn mark_live_globals(code: &mut TCode, live: &[Bits], slots: Slots) {
    for (p, point) in code.points.iter_mut().enumerate() {
        for g in live[p].iter().take_while(|&i| i < slots.n_globals) {
            point.live_r.insert(g);
        }
    }
}

/// Records at every point the local slots that are not live there.
fn mark_dead(code: &mut TCode, live: &[Bits], slots: Slots) {
    for (p, point) in code.points.iter_mut().enumerate() {
        point.dead = (slots.n_globals..slots.width())
            .filter(|&i| !live[p].contains(i))
            .map(|i| (i - slots.n_globals) as u32)
            .collect();
    }
}
