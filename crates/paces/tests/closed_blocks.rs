//! A block a frontend closed to atomic sections (the C frontends close the `noreorder` of one
//! C statement): the elimination offers the section around the item that holds the block,
//! never one inside it.

use paces::explore::{check, Config};
use paces::{Mode, Repair};
use paces_cwhile::ir::StmtKind;
use paces_cwhile::Program;

/// The transformations of a report in words (`swap A <-> B`, `atomic [A; B]`).
fn words(report: &paces::Report) -> Vec<String> {
    report.transformations.iter().map(|t| t.display(&report.space).to_string()).collect()
}

/// The loop `w` adds 1 to `x` four times; `t2` must see `x` before or after all of them.
/// The `noreorder` `g` stands for one C statement `for (k = 0; k < 2; k++) { ... }`.
const SOURCE: &str = "var x = 0;
thread t1 {
  local k = 0;
  g: noreorder {
    i: k := 0;
    w: while (k < 2) {
      a: atomic { x := x + 1; }
      b: atomic { x := x + 1; }
      k := k + 1;
    }
  }
}
thread t2 { r: assert(x == 0 || x == 4); }
";

/// `source` with the body of every `noreorder` closed to sections, as the C frontends close
/// the `noreorder` of one C statement.
fn closed(source: &str) -> Program {
    let mut parts = paces_cwhile::parse(source).unwrap().into_parts();
    let bodies: Vec<usize> = parts
        .stmts
        .iter()
        .filter_map(|s| match s.kind {
            StmtKind::NoReorder(b) => Some(b.index()),
            _ => None,
        })
        .collect();
    for b in bodies {
        parts.blocks[b].in_atomic = true;
    }
    Program::new(parts)
}

#[test]
fn a_closed_block_is_repaired_by_a_section_around_its_item() {
    let p = closed(SOURCE);
    assert!(!check(&p, &Config::new()).unwrap().failures.is_empty(), "the original must fail");
    let report = Repair::new().mode(Mode::Mixed).run(&p).unwrap();
    let repaired = report.repaired.as_ref().unwrap_or_else(|| panic!("not repaired: {}", report.stop));
    assert!(check(repaired, &Config::new()).unwrap().failures.is_empty());
    // Only a section around the whole loop holds the four writes: not `[w; w]`, inside the
    // closed block, nor one in the loop's body, which holds one iteration's writes.
    assert_eq!(words(&report), ["atomic [g; g]"]);
}
