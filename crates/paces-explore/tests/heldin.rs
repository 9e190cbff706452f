//! The held-in benchmarks (`examples/`, read through `paces-heldin`): the failing assertions
//! are exactly those the manifest (`examples/MANIFEST.md`) lists, with and without partial-order
//! reduction, and the answer does not depend on the number of worker threads.

use std::collections::BTreeSet;

use paces_explore::{check, replay, Config, Verdict};

fn heldin(name: &str) -> paces_cwhile::Program {
    paces_cwhile::parse(paces_heldin::source(name)).unwrap()
}

#[test]
fn failing_assertions_match_the_manifest() {
    let expected: &[(&str, &[&str])] = &[
        ("dv1394", &["4", "E"]),
        ("ex-regr", &["16"]),
        ("ex1", &["85"]),
        ("ex2", &["12"]),
        ("ex3", &["30"]),
        ("ex4", &["c1_8", "c2_8"]),
        ("ex5", &["29"]),
        ("iwl3945", &["3"]),
        ("lc-rc", &["P"]),
        ("paper1", &["3"]),
        ("usb-serial", &["471", "519"]),
    ];
    for (name, fails) in expected {
        let p = heldin(name);
        let por = check(&p, &Config::new().stop_at_first_failure(false)).unwrap();
        let got: BTreeSet<&str> = por.failures.keys().map(String::as_str).collect();
        assert_eq!(got, fails.iter().copied().collect(), "{name}");
        assert!(por.bound.is_none(), "{name}");
        if *name != "usb-serial" {
            let full = check(&p, &Config::new().stop_at_first_failure(false).por(false)).unwrap();
            assert_eq!(full.failures.keys().collect::<Vec<_>>(), por.failures.keys().collect::<Vec<_>>(), "{name}");
            assert_eq!(full.deadlocks.keys().collect::<Vec<_>>(), por.deadlocks.keys().collect::<Vec<_>>(), "{name}");
            assert!(por.states <= full.states, "{name}");
        }
        for c in por.failures.values() {
            let t = replay(&p, &c.schedule).unwrap();
            assert!(t.events()[c.failing_step.unwrap()].failed, "{name}");
        }
    }
}

#[test]
fn rtl8169_check_finds_492_first_whatever_the_worker_count() {
    let p = heldin("rtl8169");
    let one = check(&p, &Config::new().threads(Some(1)).min_parallel_batch(1)).unwrap();
    let three = check(&p, &Config::new().threads(Some(3)).min_parallel_batch(1)).unwrap();
    assert_eq!(one.verdict, three.verdict);
    let Verdict::Bad(c) = &one.verdict else { panic!("{one}") };
    assert_eq!(c.schedule.steps[c.failing_step.unwrap()].label, "492");
}
