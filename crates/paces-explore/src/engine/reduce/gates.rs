//! Gated futures: what a thread can still touch while the variables its waits depend on are
//! frozen.
//!
//! A *gate* of a thread is an `await` outside atomic blocks, or the first step of an atomic
//! block, whose condition reads a single global `v` and nothing else (`lock(l)` and `down(s)`
//! start with one). When, at a state, every gate of thread `u` on `v` is false and no thread
//! that may move writes `v`, thread `u` can never get past those gates: what it may still do
//! is its *gated future*, the steps reachable from its control point without crossing them.
//! The partial-order reduction (`Engine::reduce`) compares steps with gated futures instead of
//! whole futures; the argument is in docs/explore.md.

use std::sync::OnceLock;

use crate::bits::Bits;
use crate::compile::{Code, StepKind, TCode, VarRef};

/// The most gate variables per thread the reduction looks at (a thread's futures are cached
/// for every subset of them at every point); further gates count as open, which is sound.
const MAX_GATE_VARS: usize = 5;

/// The globals a thread's steps may read and write.
type Future = (Bits, Bits);

/// One thread's gates and its cached gated futures.
#[derive(Debug)]
pub(crate) struct Gates {
    /// The gate variables (global indices below 64), at most [`MAX_GATE_VARS`].
    vars: Vec<u32>,
    /// Per step: the index in `vars` of its variable, when it is a gate.
    gate_of: Vec<Option<u8>>,
    /// The distinct conditions of the gates, each with the index of its variable.
    guards: Vec<(usize, u32)>,
    /// `vars` as a mask over globals.
    all: u64,
    /// Per subset of `vars` (a bit mask over their indices), filled when first asked: the
    /// gated future of every point.
    cache: Vec<OnceLock<Vec<Future>>>,
    n_globals: usize,
}

impl Gates {
    /// The gates of a compiled thread.
    pub(crate) fn new(code: &TCode, n_globals: usize) -> Self {
        let mut vars: Vec<u32> = Vec::new();
        let mut gate_of = vec![None; code.steps.len()];
        let mut guards: Vec<(usize, u32)> = Vec::new();
        for point in code.points.iter().filter(|p| p.region.is_none()) {
            for opt in &point.options {
                let Some(v) = gate_var(code, opt.step) else { continue };
                let i = match vars.iter().position(|&x| x == v) {
                    Some(i) => i,
                    None if vars.len() < MAX_GATE_VARS => {
                        vars.push(v);
                        vars.len() - 1
                    }
                    None => continue,
                };
                gate_of[opt.step as usize] = Some(i as u8);
                let same = |&(j, st): &(usize, u32)| j == i && guard(code, st) == guard(code, opt.step);
                if !guards.iter().any(same) {
                    guards.push((i, opt.step));
                }
            }
        }
        let cache = (0..1 << vars.len()).map(|_| OnceLock::new()).collect();
        let all = vars.iter().fold(0, |m, &v| m | 1 << v);
        Gates { vars, gate_of, guards, all, cache, n_globals }
    }

    /// The gate variables (as a mask over globals) all of whose gates are false in a state
    /// with these globals and the thread's `locals`.
    pub(crate) fn closed(&self, code: &TCode, globals: &[i64], locals: &[i64]) -> u64 {
        let mut open = 0u64;
        for &(i, st) in &self.guards {
            if open >> i & 1 == 1 {
                continue;
            }
            if let Some(c) = guard(code, st) {
                if c.eval(globals, locals, &mut None) != 0 {
                    open |= 1 << i;
                }
            }
        }
        self.vars.iter().enumerate().filter(|&(i, _)| open >> i & 1 == 0).fold(0, |m, (_, &v)| m | 1 << v)
    }

    /// Every gate variable of the thread, as a mask over globals.
    pub(crate) fn all(&self) -> u64 {
        self.all
    }

    /// The globals the thread may read and write from point `pc` without crossing a gate on a
    /// variable of `frozen` (a mask over globals); the whole future when nothing is frozen.
    pub(crate) fn future<'a>(&'a self, code: &'a TCode, pc: usize, frozen: u64) -> (&'a Bits, &'a Bits) {
        let mut local = 0;
        if frozen & self.all != 0 {
            for (i, &v) in self.vars.iter().enumerate() {
                local |= usize::from(frozen >> v & 1 == 1) << i;
            }
        }
        if local == 0 {
            let point = &code.points[pc];
            return (&point.fut_r, &point.fut_w);
        }
        let (r, w) = &self.cache[local].get_or_init(|| self.compute(code, local))[pc];
        (r, w)
    }

    /// The gated futures of every point for the gates in `local`: a fixpoint over the points
    /// outside atomic blocks, an atomic block entered counting with everything it may touch
    /// and going on after it (a point inside a block keeps its whole future).
    fn compute(&self, code: &TCode, local: usize) -> Vec<Future> {
        let mut futures: Vec<Future> = code
            .points
            .iter()
            .map(|p| match p.region {
                Some(_) => (p.fut_r.clone(), p.fut_w.clone()),
                None => (Bits::new(self.n_globals), Bits::new(self.n_globals)),
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for (p, point) in code.points.iter().enumerate().rev().filter(|(_, p)| p.region.is_none()) {
                let (mut r, mut w) = futures[p].clone();
                for opt in &point.options {
                    if self.gate_of[opt.step as usize].is_some_and(|i| local >> i & 1 == 1) {
                        continue;
                    }
                    r.union_with(&opt.r);
                    w.union_with(&opt.w);
                    let step = &code.steps[opt.step as usize];
                    let next = match step.region {
                        Some(reg) => code.regions[reg as usize].exit,
                        None => step.after,
                    } as usize;
                    r.union_with(&futures[next].0);
                    w.union_with(&futures[next].1);
                }
                let f = &mut futures[p];
                if f.0.union_with(&r) | f.1.union_with(&w) {
                    changed = true;
                }
            }
        }
        futures
    }
}

/// The condition of an `await` step.
fn guard(code: &TCode, step: u32) -> Option<&Code> {
    match &code.steps[step as usize].kind {
        StepKind::Await(c) => Some(c),
        _ => None,
    }
}

/// The global a step's gate depends on: the step is an `await` reading a single global (of
/// index below 64) and nothing else.
fn gate_var(code: &TCode, step: u32) -> Option<u32> {
    let step = &code.steps[step as usize];
    match (&step.kind, step.reads.as_slice()) {
        (StepKind::Await(_), [VarRef::Global(v)]) if *v < 64 => Some(*v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::compile;

    /// With no gate closed, the gated future of every point is its whole future.
    #[test]
    fn ungated_future_is_the_whole_future() {
        for name in paces_heldin::NAMES {
            let program = paces_cwhile::parse(paces_heldin::source(name)).unwrap();
            let c = compile(&program).unwrap();
            for code in &c.threads {
                let gates = Gates::new(code, c.global_init.len());
                let futures = gates.compute(code, 0);
                for (pc, point) in code.points.iter().enumerate() {
                    let whole = (point.fut_r.clone(), point.fut_w.clone());
                    assert_eq!(futures[pc], whole, "{name}: {} at point {pc}", code.name);
                }
            }
        }
    }

    /// A thread that must take a lock another thread holds touches nothing behind it.
    #[test]
    fn a_held_lock_gates_what_lies_behind_it() {
        let src = "var l = 0, x = 0, y = 0;
            thread a { A: y := 1; B: lock(l); C: x := 1; D: unlock(l); }
            thread b { E: lock(l); F: assert(x == 0); G: unlock(l); }";
        let c = compile(&paces_cwhile::parse(src).unwrap()).unwrap();
        let a = &c.threads[0];
        let gates = Gates::new(a, c.global_init.len());
        let (l, x, y) = (0, 1, 2);
        assert_eq!(gates.all(), 1 << l);
        // While l is held (l == 1) the gate is closed; while it is free, open.
        assert_eq!(gates.closed(a, &[1, 0, 0], &[]), 1 << l);
        assert_eq!(gates.closed(a, &[0, 0, 0], &[]), 0);
        let entry = a.entry as usize;
        let (r, w) = gates.future(a, entry, 1 << l);
        assert!(w.contains(y) && !w.contains(x) && !w.contains(l) && !r.contains(l));
        let (_, w) = gates.future(a, entry, 0);
        assert!(w.contains(x) && w.contains(l));
    }
}
