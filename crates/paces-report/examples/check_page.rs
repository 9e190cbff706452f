//! The HTML page of a check: a program's bad trace drawn as a chart with its partial order,
//! one self-contained page.
//!
//! Run with `cargo run -p paces-report --example check_page > page.html` and open the file.

use paces::explore::{check, Config, Verdict};
use paces_report::TraceChart;
use paces_report::{check_page, Counterexample, Source};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = "var x = 0, y = 0;\n\
                thread t1 { A: x := 1; C: y := 1; }\n\
                thread t2 { 1: await(x == 1); 2: assert(y == 1); }\n";
    let program = paces::cwhile::parse(text)?;
    let result = check(&program, &Config::new())?;
    let Verdict::Bad(cex) = &result.verdict else { return Err("expected a bad trace".into()) };
    let complete = cex.complete(&program, 100_000)?;
    let counterexample = Counterexample {
        title: "assertion 2 fails".to_owned(),
        chart: TraceChart::of_bad_trace(&program, &complete.trace),
    };
    let source = Source { name: "example.cw", language: "Cwhile", text };
    let facts = [("states".to_owned(), result.states.to_string())];
    let page = check_page(&source, "bad trace", &facts, std::slice::from_ref(&counterexample));
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("Counterexample 1: assertion 2 fails"));
    assert!(page.contains("<svg"), "the charts are drawn inline");
    // The same input gives the same page.
    assert_eq!(page, check_page(&source, "bad trace", &facts, &[counterexample]));
    println!("{page}");
    Ok(())
}
