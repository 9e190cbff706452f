//! An `assert` keeps its place, through the binary: a repair never moves the check above the
//! wait or the write it was written after, and a program whose only cheap "repairs" did so
//! ends in "no repair" with its reason.

mod common;

use serde_json::Value;

use common::{paces, repaired_json, text};

fn scratch(name: &str, contents: &str) -> String {
    common::scratch("asserts", name, contents)
}

/// Two withdrawals race; the audit waits for both, then checks the balance.
const BANK: &str = "var balance = 100, d1 = 0, d2 = 0, go = 0;\n\
thread t1 { g1: await(go == 1); w1: if (balance >= 80) { balance := balance - 80; } f1: d1 := 1; }\n\
thread t2 { g2: await(go == 1); w2: if (balance >= 80) { balance := balance - 80; } f2: d2 := 1; }\n\
thread audit { a0: go := 1; a1: await(d1 == 1 && d2 == 1); a2: assert(balance >= 0); }\n";

/// No honest repair: the check can only pass by running before `x := 2`.
const VACUOUS: &str = "var started = 0, go = 0, x = 0;\n\
thread a { a1: await(started == 1); a2: go := 1; a3: x := 2; }\n\
thread b { b0: started := 1; b1: await(go == 1); b2: assert(x <= 1); }\n";

/// The new order of the block that holds `label`, from the JSON report's candidate.
fn block_of(doc: &Value, label: &str) -> Vec<String> {
    let blocks = doc["candidate"]["blocks"].as_array().expect("a candidate");
    let block = blocks.iter().find(|b| b.as_array().unwrap().iter().any(|l| l == label)).expect("the block");
    block.as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_owned()).collect()
}

#[test]
fn the_audit_checks_after_both_withdrawals_in_every_repair() {
    let file = scratch("bank.cw", BANK);
    for extra in [&[][..], &["--exhaustive"][..]] {
        let doc = repaired_json(&file, extra);
        let audit = block_of(&doc, "a2");
        assert_eq!(audit.last().map(String::as_str), Some("a2"), "{extra:?}: the check stays last: {audit:?}");
        // The repaired program checks correct.
        let repaired = scratch("bank-repaired.cw", doc["repaired_program"].as_str().unwrap());
        let check = paces(&["check", &repaired]);
        assert_eq!(check.status.code(), Some(0), "{extra:?}: {}", text(&check.stdout));
    }
}

#[test]
fn a_check_that_only_a_move_could_pass_has_no_repair() {
    let file = scratch("vacuous.cw", VACUOUS);
    let out = paces(&["repair", &file]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no repair in this space: no candidate program satisfies these constraints"), "{stderr}");
    assert!(out.stdout.is_empty(), "no program is printed: {}", text(&out.stdout));
    // The move of b2 above b1 that "repaired" it is outside the space. The exhaustive search,
    // which judges every candidate, accepts one that keeps b2 after b0 and b1 (b0 after b1
    // and in one section with b2, with `go := 1` above a1): the contract allows it.
    let out = paces(&["repair", "--exhaustive", "--format", "json", &file]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let b = block_of(&doc, "b2");
    assert_eq!(b.last().map(String::as_str), Some("b2"), "{b:?}");
}

#[test]
fn an_assertd_lets_its_neighbours_move() {
    let file = scratch("vacuous-d.cw", &VACUOUS.replace("assert(", "assertd("));
    let out = paces(&["repair", "--format", "json", &file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let b = block_of(&doc, "b2");
    let (b1, b2) = (b.iter().position(|l| l == "b1").unwrap(), b.iter().position(|l| l == "b2").unwrap());
    assert!(b2 < b1, "the assertd moved above b1: {b:?}");
    assert!(doc["repaired_program"].as_str().unwrap().contains("b2: assertd(x <= 1);"));
}
