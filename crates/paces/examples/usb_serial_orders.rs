//! Brute force behind docs/evaluation.md's usb-serial row: every order of the statements that
//! `usb_serial_disconnect` runs after its three checks (the developers' fix reorders exactly
//! these), checked in full against the acceptance rule (no assertion failure, no deadlock or
//! atomic livelock the original cannot reach; the model has no complete sequential run, so the
//! final-state rule holds vacuously). A deadlock is admitted when the original reaches the same
//! one (every thread at the same place) or a deadlock of the same blocked threads after an
//! assertion failed; the count with the first rule alone is printed too.
//!
//! ```text
//! cargo run --release -p paces --example usb_serial_orders [-- --tty-lock-first]
//! ```
//!
//! `--tty-lock-first` also moves `tty_thread`'s `547: lock_tty()` above `545: serial_install()`
//! (bad-only's extra change in the paper's tool). About 5 minutes on 2 cores.

use std::collections::BTreeSet;

use paces::explore::{check, Config, FailureKinds};

/// The statements, in the original order; 194 must stay before 195 (both write the module
/// reference count), every other pair is independent.
const TAIL: [(&str, &str); 7] = [
    ("187", "    187: cancel_work_sync();\n"),
    ("188", "    188: port_work_initialized := 0;\n"),
    ("190", "    190: await(port_write_in_progress == 0);\n"),
    ("191", "    191: port_tty_installed := 0;\n"),
    ("194", "    194: drv_module_ref_cnt := drv_module_ref_cnt - 1;\n"),
    ("195", "    195: usb_serial_put();\n"),
    ("199", "    199: unlock_tty();\n"),
];

fn orders(prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if prefix.len() == TAIL.len() {
        out.push(prefix.clone());
        return;
    }
    for i in 0..TAIL.len() {
        // 195 only after 194.
        if !prefix.contains(&i) && (i != 5 || prefix.contains(&4)) {
            prefix.push(i);
            orders(prefix, out);
            prefix.pop();
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tty_first = std::env::args().any(|a| a == "--tty-lock-first");
    let source = paces_heldin::source("usb-serial");
    let tail: String = TAIL.iter().map(|s| s.1).collect();
    if !source.contains(&tail) {
        return Err("examples/usb-serial.cw does not hold the disconnect block this example expects".into());
    }
    let config = Config::new().stop_at_first_failure(false).find(FailureKinds::ALL);
    let original = check(&paces::cwhile::parse(source)?, &config.clone().deadlocks_after_failure(true))?;
    let known: BTreeSet<_> = original.deadlocks.keys().cloned().collect();
    let after_failure: BTreeSet<_> = original.deadlocks_after_failure.keys().map(|d| d.blocked_threads()).collect();
    println!(
        "original: {} deadlocks, failing assertions {:?}",
        known.len(),
        original.failures.keys().collect::<Vec<_>>()
    );
    let mut all = Vec::new();
    orders(&mut Vec::new(), &mut all);
    let (mut clean, mut accepted, mut same_place) = (0, 0, 0);
    for order in &all {
        let block: String = order.iter().map(|&i| TAIL[i].1).collect();
        let mut text = source.replace(&tail, &block);
        if tty_first {
            text = text.replace(
                "  545: serial_install();\n  547: lock_tty();\n",
                "  547: lock_tty();\n  545: serial_install();\n",
            );
        }
        let result = check(&paces::cwhile::parse(&text)?, &config)?;
        if !result.failures.is_empty() || result.bound.is_some() {
            continue;
        }
        clean += 1;
        let by_place: Vec<_> = result.deadlocks.keys().filter(|d| !known.contains(*d)).collect();
        let new: Vec<_> = by_place.iter().filter(|d| !after_failure.contains(&d.blocked_threads())).collect();
        let names: Vec<&str> = order.iter().map(|&i| TAIL[i].0).collect();
        let new_livelock = result.livelocks.keys().any(|l| !original.livelocks.contains_key(l));
        if new_livelock {
            continue;
        }
        if by_place.is_empty() {
            same_place += 1;
        }
        if new.is_empty() {
            accepted += 1;
            println!(
                "accepted: 178; 183; 184; 185; {} ({} deadlocks admitted after a failure)",
                names.join("; "),
                by_place.len()
            );
        }
    }
    println!(
        "{} orders: {clean} without an assertion failure, {accepted} accepted, {same_place} of them with the same-place rule alone",
        all.len()
    );
    Ok(())
}
