//! Cwhile text to a checked program, its space of reorderings, a candidate of it applied, and
//! the result printed back; a program with an error gives a rendered diagnostic.
//!
//! Run with `cargo run -p paces-cwhile --example parse_and_reorder`.

use paces_cwhile::constraint::Candidate;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let text = "var x = 0, y = 0;\n\
                thread t { A: x := 1; B: y := 1; }\n\
                thread u { C: await(y == 1); D: assert(x == 1); }\n";
    let program = paces_cwhile::parse(text)?;
    let (a, b) = (program.loc("A").ok_or("A")?, program.loc("B").ok_or("B")?);
    // A and B touch different variables: they commute, so the space lets them swap.
    assert!(program.commutes(program.stmt_at(a).ok_or("A")?, program.stmt_at(b).ok_or("B")?));
    let space = program.space();
    let thread_t = program.threads[0].body;
    let mut orders = Candidate::original(&space).orders().to_vec();
    orders[thread_t.index()] = vec![b, a];
    let swapped = program.apply(&Candidate::new(&space, orders, &[])?)?;
    let printed = paces_cwhile::Printer::new(&swapped).print();
    println!("{printed}");
    assert!(printed.contains("thread t {\n  B: y := 1;\n  A: x := 1;\n}"));

    // Bad input: a diagnostic with a code and a place, rendered with the source line.
    let broken = "var x;\nthread t { A: x := z; }\n";
    let diagnostics = paces_cwhile::parse(broken).unwrap_err();
    let rendered = paces_cwhile::render(&diagnostics, "broken.cw", broken, false);
    println!("{rendered}");
    assert!(rendered.contains("broken.cw:2:"), "{rendered}");
    Ok(())
}
