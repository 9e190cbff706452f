//! From a program to the fixes of its bug: check it, complete the bad trace past its failure,
//! and hand it to the generalisation (`paces-generalize`), in two steps and in the one call
//! that does both (`Counterexample::eliminate`). The check's own trace stops at the failure
//! and is refused; the completed one gives the fix.
//!
//! Run with `cargo run -p paces-explore --example check_to_fixes`.

use paces_explore::constraint::Arena;
use paces_explore::generalize::{eliminate, EliminateConfig, ErrorKind};
use paces_explore::{check, Config, Verdict};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The paper's Example 4.
    let program = paces_explore::cwhile::parse(
        "var x = 0, y = 0, z = 0;
         thread t1 { A: x := 1; B: z := 1; C: y := 1; }
         thread t2 { 1: await(x == 1); 2: assert(y == 1); }",
    )?;
    let result = check(&program, &Config::new())?;
    let Verdict::Bad(cex) = &result.verdict else { return Err("expected a bad trace".into()) };
    println!("bad trace: {}", cex.schedule.display(&program));
    let space = program.space();
    let mut arena = Arena::new();

    // As checked, the trace ends at the failing `2`: `C`, which `2` must precede, never ran.
    assert!(cex.trace.stops_short());
    let refused = eliminate(&cex.trace, &space, &mut arena, &EliminateConfig::new()).unwrap_err();
    assert_eq!(refused.kind(), &ErrorKind::StopsShort);

    // Completed, it runs on to the end of both threads and has its fixes.
    let complete = cex.complete(&program, 100_000)?;
    assert!(!complete.trace.stops_short() && complete.trace.len() > cex.trace.len());
    let elimination = eliminate(&complete.trace, &space, &mut arena, &EliminateConfig::new())?;
    // The same in one call: `Counterexample::eliminate` completes and generalises.
    let same = cex.eliminate(&program, &space, &mut arena, &EliminateConfig::new())?;
    assert_eq!(same.fixes, elimination.fixes);
    for fix in &elimination.fixes {
        println!("fix: {}", fix.display(&space));
    }
    // Move `C` ahead of `A` (the await and the assertion keep their order in Cwhile anyway).
    let best = elimination.fixes.first().ok_or("a fix")?;
    assert_eq!(best.display(&space).to_string(), format!("C <= A (weight {})", best.weight));
    Ok(())
}
