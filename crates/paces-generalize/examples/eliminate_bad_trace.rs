//! From a bad trace to its fixes: the paper's Example 4, a trace `A B 1 2 C` whose assertion
//! at `2` fails because `C` runs after it. The fixes are the cycles of the trace elimination
//! graph; the cheapest moves `C` ahead of `A`.
//!
//! Run with `cargo run -p paces-generalize --example eliminate_bad_trace`.

use paces_generalize::constraint::{Arena, Atom, ItemInfo, SpaceBuilder};
use paces_generalize::trace::{EventKind, TraceBuilder, VarId};
use paces_generalize::{eliminate, EliminateConfig, ErrorKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `t1 { A: x := 1; B: z := 1; C: y := 1 } || t2 { 1: await(x == 1); 2: assert(y == 1) }`
    let mut sb = SpaceBuilder::new();
    let (b1, b2) = (sb.block(false), sb.block(false));
    let [a, b, c] = ["A", "B", "C"].map(|n| sb.add_item(b1, n, ItemInfo::SIMPLE));
    let (a, b, c) = (a?, b?, c?);
    let one = sb.add_item(b2, "1", ItemInfo::AWAIT)?;
    let two = sb.add_item(b2, "2", ItemInfo::SIMPLE)?;
    let (t1, t2) = (sb.thread("t1", b1)?, sb.thread("t2", b2)?);
    let space = sb.build()?;

    let (x, y, z) = (VarId::from_u32(0), VarId::from_u32(1), VarId::from_u32(2));
    let bad = |stops_short: bool| -> Result<_, paces_generalize::trace::Error> {
        let mut tb = TraceBuilder::for_space(&space);
        tb.flat(t1, a).write(x, 1).push()?;
        tb.flat(t1, b).write(z, 1).push()?;
        tb.flat(t2, one).kind(EventKind::Await).read(x).push()?;
        tb.flat(t2, two).kind(EventKind::Assert).read(y).failed(true).push()?;
        if stops_short {
            // A checker that stopped at the failure: `C` never ran, and the trace says so.
            tb.stops_short();
        } else {
            tb.flat(t1, c).write(y, 1).push()?;
        }
        Ok(tb.finish())
    };

    let mut arena = Arena::new();
    let trace = bad(false)?;
    let elimination = eliminate(&trace, &space, &mut arena, &EliminateConfig::new())?;
    let best = &elimination.fixes[0];
    println!("{} fixes, the lightest: {}", elimination.fixes.len(), best.display(&space));
    assert_eq!(best.atoms, [Atom::Order(c, a), Atom::Order(one, two)]);
    assert!(elimination.fixes.iter().all(|f| f.weight >= best.weight));
    // Every fix holds in the error-eliminating constraint, their disjunction.
    assert_ne!(elimination.constraint, arena.constant(false));

    // The partial order the failure needs, for Graphviz, threads named by the space.
    let dot = elimination.partial_order.to_dot(&trace, &space, &|e| space.name(trace.event(e).loc).to_owned());
    assert!(dot.contains("label=\"t1\"") && dot.contains("label=\"t2\""));

    // The trace cut at its failure would lose the fix: it is refused, not answered with none.
    let error = eliminate(&bad(true)?, &space, &mut arena, &EliminateConfig::new()).unwrap_err();
    assert_eq!(error.kind(), &ErrorKind::StopsShort);
    println!("cut at the failure: {error}");
    Ok(())
}
