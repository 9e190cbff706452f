//! The elimination graph's tables against their definitions on random bad traces: the forced
//! edges are the same with chains and with bitsets, and the shared reachability rows say
//! what a search over the edges says.

use paces_constraint::{ItemInfo, SpaceBuilder};
use paces_testkit::Rng;
use paces_trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, TraceBuilder, VarId};

use super::forced::Strategy;
use super::graph::{Graph, NONE};
use super::EliminateConfig;
use crate::PartialOrder;

/// What a statement does with its variable.
#[derive(Clone, Copy)]
enum Op {
    Write,
    Assert,
    Await,
}

/// Whether `v` is reachable from `u` over cross-thread orderings and forced edges, and
/// whether over a path holding a cross-thread ordering.
fn search(g: &Graph<'_>, u: usize, v: usize) -> (bool, bool) {
    // States (node, a cross-thread ordering passed).
    let mut seen = vec![[false; 2]; g.n()];
    let mut stack = vec![(u, 0usize)];
    seen[u][0] = true;
    while let Some((a, x)) = stack.pop() {
        let next =
            g.cross_out[a].iter().map(|&b| (b as usize, 1)).chain(g.forced_out[a].iter().map(|&b| (b as usize, x)));
        for (b, bx) in next {
            if !seen[b][bx] {
                seen[b][bx] = true;
                stack.push((b, bx));
            }
        }
    }
    (seen[v][0] || seen[v][1], seen[v][1])
}

#[test]
fn shared_rows_and_chains_match_their_definitions() {
    let mut rng = Rng(0x5eed_1234_abcd);
    let mut checked = 0;
    for _ in 0..400 {
        let threads = 2 + rng.below_u64(2) as usize;
        let vars = 1 + rng.below_u64(3) as u32;
        let mut sb = SpaceBuilder::new();
        let mut program = Vec::new();
        for t in 0..threads {
            let block = sb.block(false);
            let len = 1 + rng.below_u64(8) as usize;
            let mut stmts = Vec::new();
            for i in 0..len {
                let loc = sb.loc(&format!("t{t}s{i}")).unwrap();
                let op = [Op::Write, Op::Write, Op::Assert, Op::Await][rng.below_u64(4) as usize];
                let info = if matches!(op, Op::Await) { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
                sb.item(block, loc, info).unwrap();
                stmts.push((loc, op, VarId::from_u32(rng.below_u64(u64::from(vars)) as u32)));
            }
            for i in 0..len {
                for j in i + 1..len {
                    if rng.below_u64(3) > 0 {
                        sb.fix(stmts[i].0, stmts[j].0).unwrap();
                    }
                }
            }
            program.push((block, stmts));
        }
        let space = sb.build().unwrap();
        // A random interleaving; the last assertion run fails.
        let mut next = vec![0usize; threads];
        let mut order = Vec::new();
        while let Some(t) = {
            let open: Vec<usize> = (0..threads).filter(|&t| next[t] < program[t].1.len()).collect();
            (!open.is_empty()).then(|| open[rng.below_u64(open.len() as u64) as usize])
        } {
            order.push((t, next[t]));
            next[t] += 1;
        }
        let Some(fail) = order.iter().rposition(|&(t, i)| matches!(program[t].1[i].1, Op::Assert)) else { continue };
        let mut tb = TraceBuilder::new();
        for (k, &(t, i)) in order.iter().enumerate() {
            let (block, stmts) = &program[t];
            let (loc, op, var) = stmts[i];
            let scope = vec![ScopeEntry { instance: BlockInstance { block: *block, instance: 0 }, item: loc }];
            let step = tb.step(ThreadId::from_u32(t as u32), loc, scope);
            let step = match op {
                Op::Write => step.write(var, k as i64),
                Op::Assert => step.kind(EventKind::Assert).read(var).failed(k == fail),
                Op::Await => step.kind(EventKind::Await).read(var),
            };
            step.push().unwrap();
        }
        let trace = tb.finish();
        let po = PartialOrder::from_bad_trace(&trace).unwrap();
        let build = |strategy| {
            let mut g = Graph::new(&trace, &space, &po, &EliminateConfig::new());
            let mut budget = g.budget(u64::MAX).unwrap();
            g.compute_forced(strategy, &mut budget).unwrap();
            g.compute_reach(&mut budget).unwrap();
            g
        };
        let (g, bits) = (build(Strategy::Smaller), build(Strategy::Bits));
        assert_eq!(g.forced_out, bits.forced_out);
        assert_eq!(g.forced_out, build(Strategy::Chains).forced_out);
        for u in 0..g.n() {
            for &v in &g.inodes {
                let (plain, crossing) = search(&g, u, v as usize);
                assert_eq!(g.reaches(u as u32, v), plain, "{u} reaches {v}");
                assert_eq!(g.reaches_x(u as u32, v), crossing, "{u} reaches {v} across threads");
                if g.iidx[u] != NONE {
                    assert_eq!(
                        super::graph::bit(&g.coreach, g.words, g.iidx[v as usize] as usize, g.iidx[u] as usize),
                        plain
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} traces had a failing assertion");
}
