//! DOT output: snapshots of Example 4's partial order and its fix.

mod support;

use expect_test::expect;
use paces_constraint::Arena;
use paces_generalize::{eliminate, EliminateConfig, PartialOrder};
use support::{program, Setup};

#[test]
fn example4_dot() {
    let text: [&[&str]; 2] = [&["A: x := 1", "B: z := 1", "C: y := 1"], &["1: await(x == 1)", "2: assert(y == 1)"]];
    // Threads are named as the space declares them; one it does not declare keeps its id.
    let s = Setup::named(program(&text), &["writer"]);
    let trace = s.trace_named(&["A", "B", "1", "2", "C"], &[]);
    let label = |e: paces_trace::EventId| s.space.name(trace.event(e).loc).to_owned();
    let po = PartialOrder::from_bad_trace(&trace).unwrap();
    expect![[r#"
        digraph partial_order {
          rankdir=TB;
          node [shape=box];
          subgraph cluster_0 {
            label="writer";
            e0 [label="A", tooltip="Plain"];
            e1 [label="B", tooltip="Plain"];
            e4 [label="C", tooltip="Plain"];
            e0 -> e1;
            e1 -> e4;
          }
          subgraph cluster_1 {
            label="t1";
            e2 [label="1", tooltip="Await"];
            e3 [label="2", penwidth=2, tooltip="Assert"];
            e2 -> e3;
          }
          e0 -> e2 [color=blue];
          e3 -> e4 [color=blue];
        }
    "#]]
    .assert_eq(&po.to_dot(&trace, &s.space, &label));
    let s = Setup::named(program(&text), &["writer", "reader"]);
    let mut arena = Arena::new();
    let elim = eliminate(&trace, &s.space, &mut arena, &EliminateConfig::new()).unwrap();
    expect![[r#"
        digraph partial_order {
          rankdir=TB;
          node [shape=box];
          subgraph cluster_0 {
            label="writer";
            e0 [label="A", color=red, tooltip="Plain"];
            e1 [label="B", tooltip="Plain"];
            e4 [label="C", color=red, tooltip="Plain"];
            e0 -> e1;
            e1 -> e4;
          }
          subgraph cluster_1 {
            label="reader";
            e2 [label="1", color=red, tooltip="Await"];
            e3 [label="2", penwidth=2, color=red, tooltip="Assert"];
            e2 -> e3;
          }
          e0 -> e2 [color=blue];
          e3 -> e4 [color=blue];
          e4 -> e0 [color=red, style=dashed, penwidth=2, constraint=false, label="C <= A"];
          e0 -> e2 [color=red, penwidth=2];
          e2 -> e3 [color=red, style=dashed, penwidth=2, constraint=false, label="1 <= 2"];
          e3 -> e4 [color=red, penwidth=2];
        }
    "#]]
    .assert_eq(&elim.fix_dot(0, &trace, &s.space, &label).unwrap());
    assert!(elim.fix_dot(elim.fixes.len(), &trace, &s.space, &label).is_none());
}
