//! A concurrent model in the C dialect read into the Cwhile program the checker explores,
//! statements labelled by their line, and printed back in the dialect.
//!
//! Run with `cargo run -p paces-c --example read_c_model`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let source = "int x, ready;\n\
                  void producer() {\n\
                  \x20 x = 1;\n\
                  \x20 ready = 1;\n\
                  }\n\
                  void consumer() {\n\
                  \x20 assume(ready == 1);\n\
                  \x20 assert(x == 1);\n\
                  }\n\
                  void main() { producer(); consumer(); }\n";
    let program = match paces_c::parse(source) {
        Ok(program) => program,
        Err(diagnostics) => return Err(paces_c::cwhile::render(&diagnostics, "model.c", source, false).into()),
    };
    let names: Vec<&str> = program.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["producer", "consumer"]);
    // Statements are named by the line they start on: the assertion is `8`.
    assert!(program.loc("8").is_some() && program.loc("3").is_some());
    println!("as Cwhile:\n{}", paces_c::cwhile::Printer::new(&program).print());

    // A construct outside the dialect is refused with a diagnostic naming the line.
    let unsupported = "int x;\nvoid t() { x = 1; }\nvoid main() { t(); goto end; end: ; }\n";
    let diagnostics = paces_c::parse(unsupported).unwrap_err();
    let rendered = paces_c::cwhile::render(&diagnostics, "bad.c", unsupported, false);
    println!("{rendered}");
    assert!(rendered.contains("bad.c:3:"), "{rendered}");
    Ok(())
}
