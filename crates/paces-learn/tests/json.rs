//! The `serde` feature: spaces, traces, candidates, constraints and proposals as JSON, read
//! back with every check a builder makes, and the example whose checker is another process.

#![cfg(feature = "serde")]

#[path = "support/figure7.rs"]
mod figure7;

use figure7::{space, trace, Result};
use paces_learn::constraint::{Arena, Candidate, Formula, Space};
use paces_learn::trace::Trace;
use paces_learn::{Learner, LearnerConfig, Proposal};
use serde_json::json;

#[test]
fn a_space_reads_back_as_written() -> Result<()> {
    let space = space()?;
    let text = serde_json::to_string(&space)?;
    let back: Space = serde_json::from_str(&text)?;
    assert_eq!(serde_json::to_string(&back)?, text);
    let names: Vec<&str> = back.locs().map(|l| back.name(l)).collect();
    assert_eq!(names, ["A", "B", "C", "1", "2", "3", "n", "p"]);
    assert_eq!(back.threads().map(|(name, _)| name).collect::<Vec<_>>(), ["thread1", "thread2", "thread3"]);
    assert!(back.is_preemption_point(back.loc("1").unwrap()));
    assert_eq!(
        serde_json::to_value(&space)?["blocks"][1]["items"][0],
        json!({ "loc": 3, "weight": 1, "waits": "first", "atomic": true })
    );
    Ok(())
}

/// An item kept out of sections says so (`"no_section": true`); the others leave it out, so
/// the spaces written before it read the same.
#[test]
fn an_item_kept_out_of_sections_reads_back_kept() -> Result<()> {
    use paces_learn::constraint::{ItemInfo, SpaceBuilder};
    let mut b = SpaceBuilder::new();
    let block = b.open_block();
    let start = b.add_item(block, "start", ItemInfo::SIMPLE.never_in_section())?;
    let work = b.add_item(block, "work", ItemInfo::SIMPLE)?;
    let space = b.build()?;
    let value = serde_json::to_value(&space)?;
    assert_eq!(value["blocks"][0]["items"][0]["no_section"], json!(true));
    assert_eq!(value["blocks"][0]["items"][1].get("no_section"), None);
    let back: Space = serde_json::from_value(value)?;
    assert!(!back.may_be_in_section(start));
    assert!(back.may_be_in_section(work));
    let kept =
        json!({ "locations": ["A", "B"], "blocks": [{ "items": [{ "loc": 0 }, { "loc": 1, "no_section": true }] }] });
    let read: Space = serde_json::from_value(kept)?;
    assert_eq!(read.item_info(read.loc("B").unwrap()).map(|i| i.no_section), Some(true));
    Ok(())
}

#[test]
fn a_space_from_json_gets_the_builders_checks() {
    let twice = json!({ "locations": ["A"], "blocks": [{ "items": [{ "loc": 0 }] }, { "items": [{ "loc": 0 }] }] });
    let err = serde_json::from_value::<Space>(twice).unwrap_err().to_string();
    assert!(err.contains("not a valid space") && err.contains("`A` is already an item"), "{err}");
    let backwards =
        json!({ "locations": ["A", "B"], "blocks": [{ "items": [{ "loc": 0 }, { "loc": 1 }], "fixed": [[1, 0]] }] });
    let err = serde_json::from_value::<Space>(backwards).unwrap_err().to_string();
    assert!(err.contains("must follow the original order"), "{err}");
    let unknown = json!({ "locations": [], "blocks": [], "colour": "red" });
    let err = serde_json::from_value::<Space>(unknown).unwrap_err().to_string();
    assert!(err.contains("unknown field `colour`"), "{err}");
    let waits = json!({ "locations": ["A"], "blocks": [{ "items": [{ "loc": 0, "waits": "sometimes" }] }] });
    let err = serde_json::from_value::<Space>(waits).unwrap_err().to_string();
    assert!(err.contains("unknown `waits` value `sometimes`"), "{err}");
}

#[test]
fn a_trace_reads_back_as_written_pending_steps_included() -> Result<()> {
    let space = space()?;
    let bad = trace(&space, "A 1 B 2 3", Some("3"), "C n p")?;
    let value = serde_json::to_value(&bad)?;
    assert_eq!(value["events"][4]["failed"], json!(true));
    assert_eq!(value["events"][1]["reads"], json!([{ "var": 0, "from": 0 }]));
    assert_eq!(value["pending"].as_array().map(Vec::len), Some(3));
    let back: Trace = serde_json::from_value(value)?;
    assert_eq!(back, bad);
    Ok(())
}

#[test]
fn a_trace_from_json_resolves_bare_reads_and_gets_the_builders_checks() -> Result<()> {
    let at = |item: u32, block: u32| json!([{ "block": block, "instance": 0, "item": item }]);
    // A bare variable reads the latest write.
    let text = json!({ "events": [
        { "thread": 0, "loc": 0, "scope": at(0, 0), "writes": [{ "var": 0, "value": 1 }] },
        { "thread": 1, "loc": 3, "scope": at(3, 1), "kind": "await", "reads": [0] },
    ] });
    let trace: Trace = serde_json::from_value(text)?;
    assert_eq!(trace.events()[1].reads[0].from.map(|e| e.index()), Some(0));
    // A read from a later event is refused, naming the event.
    let forward = json!({ "events": [
        { "thread": 1, "loc": 3, "scope": at(3, 1), "kind": "await", "reads": [{ "var": 0, "from": 1 }] },
        { "thread": 0, "loc": 0, "scope": at(0, 0), "writes": [{ "var": 0, "value": 1 }] },
    ] });
    let err = serde_json::from_value::<Trace>(forward).unwrap_err().to_string();
    assert!(err.contains("not a valid trace") && err.contains("event 0 reads v0 from event 1,"), "{err}");
    let kind = json!({ "events": [{ "thread": 0, "loc": 0, "scope": at(0, 0), "kind": "jump" }] });
    let err = serde_json::from_value::<Trace>(kind).unwrap_err().to_string();
    assert!(err.contains("unknown event kind `jump`"), "{err}");
    let empty = json!({ "events": [{ "thread": 0, "loc": 0, "scope": [] }] });
    let err = serde_json::from_value::<Trace>(empty).unwrap_err().to_string();
    assert!(err.contains("empty scope"), "{err}");
    Ok(())
}

#[test]
fn a_constraint_exported_and_imported_holds_on_the_same_candidates() -> Result<()> {
    let space = space()?;
    let mut learner = Learner::new(&space, LearnerConfig::new())?;
    learner.learn_good(&trace(&space, "A B C 1 2 3 n p", None, "")?)?;
    learner.learn_bad(&trace(&space, "A 1 B 2 3", Some("3"), "C n p")?)?;
    let root = learner.constraint();
    let text = serde_json::to_string(&learner.arena().export(root))?;
    let formula: Formula = serde_json::from_str(&text)?;
    let mut arena = Arena::new();
    let imported = arena.import(&formula)?;
    let candidates = Candidate::enumerate(&space, 100_000)?;
    assert!(candidates.len() > 100, "the space is not trivial");
    for c in &candidates {
        assert_eq!(arena.eval(imported, c), learner.arena().eval(root, c), "{}", c.display(&space));
    }
    // A child that does not come before its parent is refused.
    let bad: Formula = serde_json::from_value(json!({ "nodes": [{ "not": 1 }, "true"] }))?;
    let err = Arena::new().import(&bad).unwrap_err().to_string();
    assert!(err.contains("node 0 of the formula names node 1"), "{err}");
    Ok(())
}

#[test]
fn a_proposal_is_written_with_its_answer() -> Result<()> {
    let space = space()?;
    let mut learner = Learner::new(&space, LearnerConfig::new().fallback(false))?;
    learner.learn_good(&trace(&space, "A B C 1 2 3 n p", None, "")?)?;
    learner.learn_bad(&trace(&space, "A 1 B 2 3", Some("3"), "C n p")?)?;
    let proposal = learner.propose()?;
    assert!(matches!(proposal, Proposal::Candidate { .. }));
    let value = serde_json::to_value(&proposal)?;
    assert_eq!(value["answer"], json!("candidate"));
    assert_eq!(value["candidate"]["orders"][0], json!([1, 2, 0]), "thread1: B; C; A");
    assert_eq!(value["cost"], json!({ "atomic_weight": 0, "inversions": 2 }));
    assert_eq!(value["transformations"][0], json!({ "swap": { "first": 0, "second": 1 } }));
    Ok(())
}

/// The example `json_cegis` (built by `cargo test` with the `serde` feature) runs its loop
/// against its checker process and reaches the paper's answer.
#[test]
fn the_json_example_reaches_the_papers_answer() {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
    let example = dir.join("examples").join(format!("json_cegis{}", std::env::consts::EXE_SUFFIX));
    assert!(
        example.exists(),
        "{} is missing: `cargo test -p paces-learn --features serde` builds it",
        example.display()
    );
    let output = std::process::Command::new(&example).output().expect("the example runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}\n{}", String::from_utf8_lossy(&output.stderr));
    let fallback = "round 2: check thread1: A; atomic [B; C] | thread2: 1; 2; 3 | thread3: n; p\nround 2: correct\n";
    assert!(text.contains(fallback), "the fallback's candidate first: {text}");
    assert!(text.contains("answer (correct):\nfound at iteration 3: candidate (cost (atomic 0, inversions 2)), from the original by:\n"), "{text}");
    assert!(text.contains("\nthread1: B; C; A\n"), "{text}");
}

/// A trace's locals are written and read back, and the check at the door still sees them: a
/// local that two threads use is refused after the round trip.
#[test]
fn a_traces_locals_survive_json() -> Result<()> {
    let space = space()?;
    let mut tb = paces_learn::trace::TraceBuilder::for_space(&space);
    let thread = paces_learn::trace::ThreadId::from_u32;
    let (r, t1, t2) = (paces_learn::trace::VarId::from_u32(7), thread(0), thread(1));
    tb.local(r);
    tb.flat(t1, space.loc("A").ok_or("A")?).write(r, 1).push()?;
    tb.flat(t2, space.loc("1").ok_or("1")?).read(r).push()?;
    let trace = tb.finish();
    let text = serde_json::to_string(&trace)?;
    assert!(text.ends_with(r#","locals":[7]}"#), "{text}");
    let back: Trace = serde_json::from_str(&text)?;
    assert_eq!(back, trace);
    let e = Learner::new(&space, LearnerConfig::new())?.learn_good(&back).unwrap_err();
    assert_eq!(e.kind(), &paces_learn::ErrorKind::SharedLocal, "{e}");
    Ok(())
}

#[test]
fn a_final_check_reads_back_as_written() -> Result<()> {
    use paces_learn::trace::{ThreadId, TraceBuilder, VarId};
    let space = space()?;
    let run = trace(&space, "A 1 B 2 3", None, "")?;
    let mut tb = TraceBuilder::new();
    for event in run.events() {
        tb.push(event.clone())?;
    }
    tb.final_check().read(VarId::from_u32(0)).failed(true).push()?;
    let checked = tb.finish();
    let value = serde_json::to_value(&checked)?;
    let last = &value["events"][checked.len() - 1];
    assert_eq!(last["thread"], json!(ThreadId::FINAL.index()));
    assert_eq!(last["kind"], json!("assert"));
    let back: Trace = serde_json::from_value(value)?;
    assert_eq!(back, checked);
    assert!(back.events().last().is_some_and(|e| e.is_final_check()));
    Ok(())
}
