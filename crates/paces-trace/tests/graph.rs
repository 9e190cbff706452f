//! The trace-analysis graph of the paper's Example 3: edges of each kind, interfere (also out
//! of bottom), covers and their witnesses, and the DOT rendering.

mod common;

use common::{assert_, assign, await_, Setup};
use expect_test::expect;
use paces_trace::{EventId, TraceEdgeKind, TraceGraph, TraceNode};

const X: u32 = 0;
const Y: u32 = 1;
const Z: u32 = 2;

/// Example 3 with a second write of y (`2b: y := 2`) and an assertion `D: assert(z == 0)` that
/// reads the initial state, so that every edge kind and interfere out of bottom show up.
fn setup() -> Setup {
    Setup::new(vec![
        vec![assign("1", &[], &[(X, 1)]), assign("2", &[], &[(Y, 1)]), assign("2b", &[], &[(Y, 2)])],
        vec![await_("A", &[Y]), assert_("B", &[X]), assign("C", &[], &[(Z, 1)])],
        vec![assert_("D", &[Z]), await_("3", &[Z]), assign("4", &[], &[(X, 0)])],
    ])
}

const STEPS: [&str; 9] = ["1", "2", "A", "2b", "D", "B", "C", "3", "4"];

fn ev(i: u32) -> TraceNode {
    TraceNode::Event(EventId::from_u32(i))
}

#[test]
fn edges_interfere_and_covers() {
    let s = setup();
    let trace = s.trace(&STEPS);
    let g = TraceGraph::new(&trace);
    assert_eq!(g.node_count(), 10);
    // Events: 0:1 1:2 2:A 3:2b 4:D 5:B 6:C 7:3 8:4.
    let intra: Vec<_> = g.edges(TraceEdgeKind::IntraThreadOrder).collect();
    assert_eq!(
        intra,
        [
            (TraceNode::Bottom, ev(0)),
            (TraceNode::Bottom, ev(2)),
            (TraceNode::Bottom, ev(4)),
            (ev(0), ev(1)),
            (ev(1), ev(3)),
            (ev(2), ev(5)),
            (ev(4), ev(7)),
            (ev(5), ev(6)),
            (ev(7), ev(8))
        ]
    );
    assert_eq!(g.edges(TraceEdgeKind::DFConds).collect::<Vec<_>>(), [(ev(1), ev(2)), (ev(6), ev(7))]);
    assert_eq!(g.edges(TraceEdgeKind::DFAsserts).collect::<Vec<_>>(), [(TraceNode::Bottom, ev(4)), (ev(0), ev(5))]);
    // y: 1 then 2; x: 1 then 0.
    assert_eq!(g.edges(TraceEdgeKind::NonFreeOrder).collect::<Vec<_>>(), [(ev(0), ev(8)), (ev(1), ev(3))]);
    // interfere(1 -> B): the later write 4 of x; interfere(bottom -> D): the later write C of z.
    assert_eq!(g.interfere(ev(0), ev(5)), [(ev(5), ev(8))]);
    assert_eq!(g.interfere(TraceNode::Bottom, ev(4)), [(ev(4), ev(6))]);
    assert!(g.interfere(ev(0), TraceNode::Bottom).is_empty());
    assert!(g.interfere(ev(0), ev(99)).is_empty() && g.interfere(ev(99), ev(5)).is_empty(), "not in the graph");
    assert_eq!(g.edges_to_cover(), [(TraceNode::Bottom, ev(4)), (ev(0), ev(5)), (ev(4), ev(6)), (ev(5), ev(8))]);
    // Covers: 1 -> 2 -> A -> B; B -> C -> 3 -> 4; D -> C has none (thread 3 never reaches
    // thread 2 before C).
    assert_eq!(g.cover_witness(ev(0), ev(5)), Some(vec![ev(0), ev(1), ev(2), ev(5)]));
    assert_eq!(g.cover_witness(ev(5), ev(8)), Some(vec![ev(5), ev(6), ev(7), ev(8)]));
    assert!(!g.is_covered(ev(4), ev(6)));
    assert_eq!(g.cover_witness(ev(4), ev(6)), None);
    assert!(g.is_covered(TraceNode::Bottom, ev(8)));
    assert_eq!(g.cover_witness(ev(3), ev(3)), Some(vec![ev(3)]));
    assert!(!g.is_covered(ev(5), ev(0)), "edges only go forward");
    // A non-free order edge in a cover: 1 -> 4 (x := 1 before x := 0).
    assert_eq!(g.cover_witness(ev(0), ev(8)), Some(vec![ev(0), ev(8)]));
    assert!(!g.is_covered(ev(0), ev(20)), "out of range");
}

#[test]
fn dot_rendering() {
    let s = setup();
    let trace = s.trace(&STEPS);
    let g = TraceGraph::new(&trace);
    let label = |e: EventId| s.space.name(trace.event(e).loc).to_owned();
    let dot = g.to_dot(&trace, &[], &label);
    assert_eq!(dot, g.to_dot(&trace, &[], &label), "deterministic");
    expect![[r#"
        digraph trace {
          rankdir=TB;
          newrank=true;
          node [shape=box, fontname="monospace"];
          n0 [label="⊥", shape=circle];
          subgraph cluster_0 {
            label="thread t0";
            color=gray;
            n1 [label="e0: 1"];
            n2 [label="e1: 2"];
            n4 [label="e3: 2b"];
          }
          subgraph cluster_1 {
            label="thread t1";
            color=gray;
            n3 [label="e2: A"];
            n6 [label="e5: B"];
            n7 [label="e6: C"];
          }
          subgraph cluster_2 {
            label="thread t2";
            color=gray;
            n5 [label="e4: D"];
            n8 [label="e7: 3"];
            n9 [label="e8: 4"];
          }
          n0 -> n1 [color=black, weight=10];
          n0 -> n3 [color=black, weight=10];
          n0 -> n5 [color=black, weight=10];
          n1 -> n2 [color=black, weight=10];
          n2 -> n4 [color=black, weight=10];
          n3 -> n6 [color=black, weight=10];
          n5 -> n8 [color=black, weight=10];
          n6 -> n7 [color=black, weight=10];
          n8 -> n9 [color=black, weight=10];
          n2 -> n3 [style=dashed, color=blue];
          n7 -> n8 [style=dashed, color=blue];
          n0 -> n5 [penwidth=3, color=red];
          n1 -> n6 [penwidth=3, color=red];
          n1 -> n9 [style=dotted, color=darkgreen, constraint=false];
          n2 -> n4 [style=dotted, color=darkgreen, constraint=false];
          n5 -> n7 [style=dashed, color=orange, label="interfere", constraint=false];
          n6 -> n9 [style=dashed, color=orange, label="interfere", constraint=false];
        }
    "#]]
    .assert_eq(&dot);
    // Labels are escaped.
    let quoted = g.to_dot(&trace, &[], &|_| "say \"hi\"\\".to_owned());
    assert!(quoted.contains(r#"[label="e0: say \"hi\"\\"]"#));
}
