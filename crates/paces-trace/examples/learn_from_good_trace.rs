//! A checker's good trace, built event by event, and the constraint that keeps it: every
//! candidate satisfying it still has a trace like this one, with the same reads-from.
//!
//! Run with `cargo run -p paces-trace --example learn_from_good_trace`.

use paces_trace::constraint::{Arena, Candidate, ItemInfo, SpaceBuilder};
use paces_trace::{learn_good, EventKind, LearnConfig, ThreadId, TraceBuilder, TraceGraph, VarId};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // `writer { 1: x := 1; 2: flag := 1 } || reader { A: await(flag == 1); B: assert(x == 1) }`
    let mut b = SpaceBuilder::new();
    let (writer, reader) = (b.block(false), b.block(false));
    let one = b.add_item(writer, "1", ItemInfo::SIMPLE)?;
    let two = b.add_item(writer, "2", ItemInfo::SIMPLE)?;
    let wait = b.add_item(reader, "A", ItemInfo::AWAIT)?;
    let check = b.add_item(reader, "B", ItemInfo::SIMPLE)?;
    let t_writer: ThreadId = b.thread("writer", writer)?;
    let t_reader = b.thread("reader", reader)?;
    let space = b.build()?;

    // The good trace 1 2 A B; `flat` steps take their scope from the space.
    let (x, flag) = (VarId::from_u32(0), VarId::from_u32(1));
    let mut tb = TraceBuilder::for_space(&space);
    tb.flat(t_writer, one).write(x, 1).push()?;
    tb.flat(t_writer, two).write(flag, 1).push()?;
    tb.flat(t_reader, wait).kind(EventKind::Await).read(flag).push()?;
    let assertion = tb.flat(t_reader, check).kind(EventKind::Assert).read(x).push()?;
    let trace = tb.finish();
    trace.check_against(&space)?;
    assert_eq!(trace.event(assertion).reads[0].from.map(|e| e.index()), Some(0), "B reads x from 1");

    let mut arena = Arena::new();
    let learned = learn_good(&trace, &mut arena, &LearnConfig::new());
    let text = arena.display(learned.constraint, &space, 80).to_string();
    println!("keeps the trace: {text}");
    assert_eq!(text, "1 <= 2 /\\ A <= B");
    // Swapping the writer's statements would let B read x before 1 writes it.
    let swapped = Candidate::new(&space, vec![vec![two, one], vec![wait, check]], &[])?;
    assert!(!arena.eval(learned.constraint, &swapped));

    // The trace-analysis graph behind it, drawn for Graphviz with the space's thread names.
    let names: Vec<&str> = space.threads().map(|(name, _)| name).collect();
    let dot = TraceGraph::new(&trace).to_dot(&trace, &names, &|e| space.name(trace.event(e).loc).to_owned());
    assert!(dot.contains("label=\"thread writer\"") && dot.contains("label=\"thread reader\""), "{dot}");
    Ok(())
}
