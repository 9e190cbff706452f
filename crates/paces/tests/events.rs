//! The observer of a repair (`Repair::on_event`): every iteration as it ends, in order, and
//! the progress of the checks in between.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use paces::{Iteration, Repair, RepairEvent};

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

fn heldin(name: &str) -> paces::cwhile::Program {
    paces::cwhile::parse(paces_heldin::source(name)).unwrap()
}

/// Runs `repair` on `name` with an observer; the report and every event in order.
fn observed(repair: Repair, name: &str) -> (paces::Report, Vec<RepairEvent>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let report = repair.on_event(move |e| sink.lock().unwrap().push(e.clone())).run(&heldin(name)).unwrap();
    let events = events.lock().unwrap().clone();
    (report, events)
}

#[test]
fn every_iteration_is_told_in_order_with_its_record() {
    let (report, events) = observed(Repair::new(), "ex2");
    assert!(report.iterations >= 2, "ex2 takes several iterations: {}", report.iterations);
    let ended: Vec<(usize, Iteration)> = events
        .iter()
        .filter_map(|e| match e {
            RepairEvent::IterationEnded { iteration, record, .. } => Some((*iteration, Iteration::clone(record))),
            _ => None,
        })
        .collect();
    let expected: Vec<(usize, paces::Iteration)> =
        report.history.iter().cloned().enumerate().map(|(i, r)| (i + 1, r)).collect();
    assert_eq!(ended, expected);
}

#[test]
fn progress_comes_with_the_iterations_ended_before_the_check() {
    let checker = paces::explore::Config::new().progress_every(Duration::ZERO);
    // The original's deadlocks kept: usb-serial's are no repair's to remove (docs/evaluation.md).
    let (report, events) = observed(Repair::new().checker(checker).keep_deadlocks(true), "usb-serial");
    let mut ended = 0;
    let mut progress = 0;
    for e in &events {
        match e {
            RepairEvent::Progress { iteration, progress: p, .. } => {
                assert_eq!(*iteration, ended, "a check's progress names the iterations ended before it");
                assert!(p.states > 0);
                progress += 1;
            }
            RepairEvent::IterationEnded { iteration, .. } => {
                assert_eq!(*iteration, ended + 1);
                ended = *iteration;
            }
            other => panic!("an event this test does not know: {other:?}"),
        }
    }
    assert_eq!(ended, report.iterations);
    assert!(progress > 0, "usb-serial's checks span several batches");
}

#[test]
fn an_observer_does_not_change_the_repair() {
    let program = heldin("ex2");
    let plain = Repair::new().run(&program).unwrap();
    let (watched, _) =
        observed(Repair::new().checker(paces::explore::Config::new().progress_every(Duration::ZERO)), "ex2");
    assert_eq!(plain.stop, watched.stop);
    assert_eq!(plain.history, watched.history);
    assert_eq!(words(&plain), words(&watched));
    assert_eq!(plain.states_explored, watched.states_explored);
}

#[test]
fn debug_says_whether_an_observer_is_set() {
    assert!(format!("{:?}", Repair::new()).contains("observer: None"));
    let debug = format!("{:?}", Repair::new().on_event(|_| {}));
    assert!(debug.contains("observer: Some(Observer(set))"), "{debug}");
}
