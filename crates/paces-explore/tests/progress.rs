//! The progress hook (`Config::on_progress`): what a running check reports, and when.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use paces_explore::{check, Config, Progress};

fn heldin(name: &str) -> paces_cwhile::Program {
    paces_cwhile::parse(paces_heldin::source(name)).unwrap()
}

/// A configuration whose progress reports are collected into the returned list.
fn recording(config: Config) -> (Config, Arc<Mutex<Vec<Progress>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let config = config.on_progress(move |p| sink.lock().unwrap().push(*p));
    (config, seen)
}

#[test]
fn a_check_over_many_batches_reports_growing_progress() {
    let program = heldin("usb-serial");
    // One search (merging from the first state), and the default: a bounded search without
    // merging, a bounded one without the reduction, then one with both (usb-serial needs all).
    for unmerged in [0, Config::DEFAULT_UNMERGED_STATES] {
        let unreduced = if unmerged == 0 { 0 } else { Config::DEFAULT_UNREDUCED_STATES };
        let config = Config::new()
            .stop_at_first_failure(false)
            .unmerged_states(unmerged)
            .unreduced_states(unreduced)
            .progress_every(Duration::ZERO);
        let (config, seen) = recording(config);
        let result = check(&program, &config).unwrap();
        let seen = seen.lock().unwrap();
        assert!(seen.len() >= 2, "one report per batch, and the check spans several: {}", seen.len());
        for pair in seen.windows(2) {
            assert!(pair[0].states <= pair[1].states, "{pair:?}");
            assert!(pair[0].transitions <= pair[1].transitions, "{pair:?}");
            assert!(pair[0].elapsed <= pair[1].elapsed, "{pair:?}");
            if unmerged == 0 {
                assert!(pair[0].depth <= pair[1].depth, "{pair:?}");
            }
        }
        let last = seen.last().unwrap();
        assert!(last.states <= result.states && last.states > 1, "{last:?} of {}", result.states);
        assert!(last.transitions <= result.transitions);
        assert!(last.memory > 0);
        if unmerged > 0 {
            let before = unmerged + unreduced;
            assert!(last.states > before, "the last search's reports count the earlier ones' states: {last:?}");
        }
    }
}

#[test]
fn a_check_shorter_than_the_interval_reports_nothing() {
    let (config, seen) = recording(Config::new().progress_every(Duration::from_secs(3600)));
    let result = check(&heldin("paper1"), &config).unwrap();
    assert!(result.states > 1);
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn progress_does_not_change_the_answer() {
    let program = heldin("ex4");
    let plain = check(&program, &Config::new().stop_at_first_failure(false)).unwrap();
    let (config, _) = recording(Config::new().stop_at_first_failure(false).progress_every(Duration::ZERO));
    let watched = check(&program, &config).unwrap();
    assert_eq!(plain.verdict, watched.verdict);
    assert_eq!(plain.states, watched.states);
    assert_eq!(plain.failures.keys().collect::<Vec<_>>(), watched.failures.keys().collect::<Vec<_>>());
}

#[test]
fn clones_share_the_callback_and_debug_says_it_is_set() {
    let (config, seen) = recording(Config::new().progress_every(Duration::ZERO));
    let copy = config.clone();
    check(&heldin("paper1"), &copy).unwrap();
    assert!(!seen.lock().unwrap().is_empty());
    let debug = format!("{config:?}");
    assert!(debug.contains("on_progress: Some(ProgressCallback(set))"), "{debug}");
    assert!(format!("{:?}", Config::new()).contains("on_progress: None"));
}

#[test]
fn the_bug_hunt_reports_progress_and_its_states_count() {
    // No assertion can fail, so the hunt stores its whole budget before the breadth-first
    // search runs.
    let program = paces_cwhile::parse(
        "var x = 0, y = 0;
         thread a { while (*) { A: x := (x + y + 1) % 97; } }
         thread b { while (*) { B: y := (y + x) % 89; } }
         thread c { while (*) { C: assert(x < 97); } }",
    )
    .unwrap();
    let hunt = 5_000;
    let config = Config::new().unmerged_states(0).unreduced_states(0).hunt_states(hunt).progress_every(Duration::ZERO);
    let (config, seen) = recording(config);
    let result = check(&program, &config).unwrap();
    assert_eq!(result.verdict.name(), "correct");
    let plain = check(&program, &Config::new().unmerged_states(0).unreduced_states(0)).unwrap();
    assert_eq!(result.states, plain.states + hunt, "the hunt's states count in the result's");
    let seen = seen.lock().unwrap();
    let in_hunt = seen.iter().filter(|p| p.states <= hunt).count();
    assert!(in_hunt >= 2, "the hunt reports as it goes: {seen:?}");
    for pair in seen.windows(2) {
        assert!(pair[0].states <= pair[1].states, "{pair:?}");
    }
}
