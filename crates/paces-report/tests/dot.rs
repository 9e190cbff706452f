//! The DOT graphs and the diff of a repair, drawn from the traces the report keeps.

use paces::Repair;
use paces_report::{dot_files, TraceChart};

fn program(name: &str) -> paces::cwhile::Program {
    paces::cwhile::parse(paces_heldin::source(name)).unwrap_or_else(|d| panic!("{name}: {d}"))
}

#[test]
fn dot_graphs_are_drawn_when_traces_are_recorded() {
    let report = Repair::new().record_traces(true).run(&program("paper1")).unwrap();
    let dots = dot_files(&report);
    assert!(dots.iter().any(|(n, d)| n.starts_with("good-") && d.starts_with("digraph")));
    assert!(dots.iter().any(|(n, d)| n.ends_with("-order.dot") && d.contains("digraph")));
    assert!(dots.iter().any(|(n, _)| n.contains("-fix-")));
    // Nodes are named by their statement's label and text.
    assert!(dots.iter().any(|(_, d)| d.contains("A  x := 1")), "{dots:?}");
    // Without recording, the same run keeps no trace: nothing to draw.
    let plain = Repair::new().run(&program("paper1")).unwrap();
    assert!(dot_files(&plain).is_empty());
    assert_eq!(plain.transformations, report.transformations);
}

/// A deadlock's partial order numbers its blocked steps after the executed events: the DOT
/// graphs name them by their statements, and the iteration's chart draws them, failing
/// (usb-serial's candidates deadlock).
#[test]
fn dot_graphs_and_charts_show_the_blocked_steps_of_a_deadlock() {
    let report = Repair::new().record_traces(true).run(&program("usb-serial")).unwrap();
    let deadlocks: Vec<_> = report.history.iter().filter(|it| it.kind() == paces::IterationKind::Deadlock).collect();
    assert!(!deadlocks.is_empty(), "{:?}", report.history);
    for it in deadlocks {
        let learned = it.learned.as_ref().expect("a generalised trace is kept");
        let chart = TraceChart::of_elimination(&report.original, &learned.trace, &learned.elimination, &report.space);
        assert!(!chart.failing.is_empty());
        assert!(chart.failing.iter().all(|&i| chart.steps[i].blocked), "{chart:?}");
    }
    // Every node of a partial order or a fix is named by its statement: none by a bare id.
    for (name, dot) in dot_files(&report).iter().filter(|(name, _)| name.starts_with("bad-")) {
        assert!(!dot.contains("label=\"e"), "{name}: {dot}");
    }
}

#[test]
fn the_diff_shows_the_moved_lines() {
    let report = Repair::new().run(&program("paper1")).unwrap();
    let diff = paces_report::text::diff(&report);
    assert!(diff.contains("-  A: x := 1;") && diff.contains("+  A: x := 1;"), "{diff}");
}
