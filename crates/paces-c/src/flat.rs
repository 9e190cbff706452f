//! Atomic sections without nesting, for dialects whose rules forbid a section inside another
//! (SV-COMP: "nesting or interleaving of those function calls is not allowed"): an atomic block
//! inside an atomic block runs as part of the outer one (Cwhile runs a whole `atomic` block as
//! one step, inner blocks included), so dropping the inner block's begin and end changes
//! nothing the program does.

use paces_cwhile::ir::{Parts, StmtId, StmtKind};
use paces_cwhile::Program;

/// `text` without the inner sections' lines: every line that is exactly `begin` (trimmed)
/// inside a section that is open, and the line of its matching `end`. `None` when that cannot
/// be done by whole lines: inside an open section, a line that names the begin or end call
/// besides exactly one of them (a call sharing a line with code); or an `end` line where no
/// section is open. Outside sections such lines (the `extern` declarations) are left alone.
pub(crate) fn flatten_text(text: &str, begin: &str, end: &str) -> Option<String> {
    let (bn, en) = (begin.trim_end_matches("();"), end.trim_end_matches("();"));
    // For each open section: whether its begin line was dropped.
    let mut open: Vec<bool> = Vec::new();
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t == begin {
            let inner = !open.is_empty();
            open.push(inner);
            if inner {
                continue;
            }
        } else if t == end {
            if open.pop()? {
                continue;
            }
        } else if !open.is_empty() && (line.contains(bn) || line.contains(en)) {
            return None;
        }
        out.push_str(line);
    }
    Some(out)
}

/// `program` with every `atomic` block that stands inside another `atomic` block replaced by
/// its items (the same program: the outer block runs them all as one step).
pub(crate) fn flatten_program(program: &Program) -> Program {
    let mut parts = program.clone().into_parts();
    let inside: Vec<bool> = (0..parts.blocks.len()).map(|b| inside_atomic(&parts, b)).collect();
    let mut moves = Vec::new();
    for (b, block) in parts.blocks.iter().enumerate() {
        if inside[b] && block.items.iter().any(|&s| is_atomic(&parts, s)) {
            let mut items = Vec::new();
            expand(&parts, &block.items, &mut items);
            moves.push((b, items));
        }
    }
    for (b, items) in moves {
        for &s in &items {
            if let Some(st) = parts.stmts.get_mut(s.index()) {
                st.block = paces_constraint::BlockId::from_u32(b as u32);
            }
        }
        parts.blocks[b].items = items;
    }
    Program::new(parts)
}

fn is_atomic(parts: &Parts, s: StmtId) -> bool {
    parts.stmts.get(s.index()).is_some_and(|st| matches!(st.kind, StmtKind::Atomic(_)))
}

/// Adds `items` to `out`, each `atomic` one replaced by its own items (expanded the same way).
fn expand(parts: &Parts, items: &[StmtId], out: &mut Vec<StmtId>) {
    for &s in items {
        match parts.stmts.get(s.index()).map(|st| &st.kind) {
            Some(StmtKind::Atomic(inner)) => {
                if let Some(block) = parts.blocks.get(inner.index()) {
                    expand(parts, &block.items, out);
                }
            }
            _ => out.push(s),
        }
    }
}

/// Whether `program` has an `atomic` block inside another.
pub(crate) fn has_nested(program: &Program) -> bool {
    (0..program.blocks.len())
        .any(|b| inside_atomic(program, b) && program.blocks[b].items.iter().any(|&s| is_atomic(program, s)))
}

/// Whether block `b` lies inside an `atomic` block (at any depth).
fn inside_atomic(parts: &Parts, b: usize) -> bool {
    let mut cur = b;
    // Each step goes to an enclosing block; a program's blocks nest without cycles, and the
    // bound keeps a malformed one from looping.
    for _ in 0..=parts.blocks.len() {
        let Some(parent) = parts.blocks.get(cur).and_then(|blk| blk.parent) else { return false };
        let Some(st) = parts.stmts.get(parent.index()) else { return false };
        if matches!(st.kind, StmtKind::Atomic(_)) {
            return true;
        }
        cur = st.block.index();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: &str = "__VERIFIER_atomic_begin();";
    const E: &str = "__VERIFIER_atomic_end();";

    #[test]
    fn inner_sections_lose_their_lines() {
        let text = format!("{B}\nfor (;;) {{\n  {B}\n  x = 1;\n  {E}\n}}\n{E}\n{B}\ny = 1;\n{E}\n");
        let want = format!("{B}\nfor (;;) {{\n  x = 1;\n}}\n{E}\n{B}\ny = 1;\n{E}\n");
        assert_eq!(flatten_text(&text, B, E).as_deref(), Some(want.as_str()));
    }

    #[test]
    fn a_call_sharing_a_line_inside_a_section_gives_up() {
        let text = format!("{B}\n  {B} x = 1; {E}\n{E}\n");
        assert_eq!(flatten_text(&text, B, E), None);
        let unbalanced = format!("{E}\n");
        assert_eq!(flatten_text(&unbalanced, B, E), None);
        let declared = format!("extern void {B}\n{B}\nx = 1;\n{E}\n");
        assert_eq!(flatten_text(&declared, B, E).as_deref(), Some(declared.as_str()));
    }

    #[test]
    fn nested_atomic_blocks_become_one() {
        let nested =
            paces_cwhile::parse("var x = 0;\nthread t { atomic { x := 1; atomic { x := 2; } x := 3; } }").unwrap();
        let flat = paces_cwhile::parse("var x = 0;\nthread t { atomic { x := 1; x := 2; x := 3; } }").unwrap();
        let strip = |p: &Program| {
            let mut parts = p.clone().into_parts();
            for s in &mut parts.stmts {
                "_".clone_into(&mut s.label);
            }
            paces_cwhile::Printer::new(&Program::new(parts)).print()
        };
        assert_eq!(strip(&flatten_program(&nested)), strip(&flat));
    }
}
