//! A tool with a toy language and a model checker of its own (`toy.rs`, which knows nothing
//! of PACES) repairs two bugs with `paces-learn`'s driver; `glue.rs` is all the code between
//! them. Prints each answer.

mod glue;
mod toy;

/// Message passing: the flag is raised before the data is written.
const MESSAGE_PASSING: &str = "
    thread T1
    f: flag := 1
    d: data := 42
    thread T2
    w: await flag == 1
    a: assert data == 42
";

/// A lost update: two threads increment x through a register.
const LOST_UPDATE: &str = "
    thread T1
    r1: r := x
    s1: x := r + 1
    thread T2
    r2: r := x
    s2: x := r + 1
    finally x == 2
";

fn main() -> glue::Result<()> {
    for (name, text) in [("message passing", MESSAGE_PASSING), ("lost update", LOST_UPDATE)] {
        let (space, report) = glue::repair(&toy::parse(text))?;
        if report.best.is_none() {
            return Err(format!("{name}: no answer ({})", report.stop).into());
        }
        println!("{name}: {}", report.display(&space));
    }
    Ok(())
}
