//! What a trace shows of each step of a program read from C (either dialect): the statement of
//! the source it belongs to, its line and its text ([`Parts::source_steps`]). A step the
//! frontend adds belongs to the statement it was added for: the temporaries and the
//! wrap-around of `hits = hits + 1` to that assignment, a lock's wait and set to its
//! `pthread_mutex_lock(&m)`, a loop's counter and guards to its `for (...)` or `while (...)`
//! header. The places of steps that belong to no statement of theirs (a created thread's
//! start, its end) are given by the dialect's lowering.

use std::collections::BTreeMap;

use paces_cwhile::ir::{Cond, Parts, SourceStep, Stmt, StmtKind};
use paces_cwhile::Span;

/// The keywords whose statement shows its header only: the keyword and its parenthesised
/// condition (`for (i = 0; i < 2; i++)`), never its body.
const HEADED: [&str; 4] = ["for", "while", "if", "switch"];

/// The source step of every step of `parts` read from `source`: each statement's own label and
/// each derived step's (`8.wait`, `7.body`). A step is placed by `places` (by its own label,
/// else its statement's), else by its statement's span, else by the nearest enclosing
/// statement with one. A step placed nowhere in `source` gets none. A step of a copy of an
/// unrolled loop's body has its copy from `copies` (by its own label, else its statement's).
pub(crate) fn source_steps(
    parts: &Parts,
    source: &str,
    places: &BTreeMap<String, Span>,
    copies: &BTreeMap<String, String>,
) -> BTreeMap<String, SourceStep> {
    let line_starts: Vec<usize> = std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let mut out = BTreeMap::new();
    for stmt in &parts.stmts {
        let mut own = places.get(&stmt.label).copied().or_else(|| span_of(parts, stmt));
        // A compound statement's own label is no step (its guards are): it keeps its Cwhile
        // head ([`paces_cwhile::Program::step_text`]). An atomic section's is (the section run
        // at once): it shows the statement that opens it, past the `{` of a bare block
        // (`{ atomicBegin(); ... }`).
        if matches!(stmt.kind, StmtKind::Atomic(_)) {
            own = own.map(|span| past_brace(source, span));
        }
        let compound = matches!(stmt.kind, StmtKind::If { .. } | StmtKind::While { .. } | StmtKind::NoReorder(_));
        for label in std::iter::once(&stmt.label).filter(|_| !compound).chain(derived(stmt)) {
            let Some(span) = places.get(label).copied().or(own) else { continue };
            let Some((start, end, text)) = shown(source, span) else { continue };
            let line = line_starts.partition_point(|&s| s <= start);
            let step = SourceStep {
                line: u32::try_from(line).unwrap_or(u32::MAX),
                start: u32::try_from(start).unwrap_or(u32::MAX),
                end: u32::try_from(end).unwrap_or(u32::MAX),
                text,
                copy: copies.get(label).or_else(|| copies.get(&stmt.label)).cloned(),
            };
            out.insert(label.clone(), step);
        }
    }
    out
}

/// The names traces show threads by, from each thread's name and the name it has in the
/// source's terms: a name a thread before it took gets ` #2`, ` #3`, ... (a function
/// started twice by one handle in a loop's rounds).
pub(crate) fn thread_names(names: impl Iterator<Item = (String, String)>) -> BTreeMap<String, String> {
    let mut taken = std::collections::BTreeSet::new();
    let mut out = BTreeMap::new();
    for (name, shown) in names {
        let mut unique = shown.clone();
        let mut k = 1;
        while !taken.insert(unique.clone()) {
            k += 1;
            unique = format!("{shown} #{k}");
        }
        out.insert(name, unique);
    }
    out
}

/// The labels of the steps a statement's sugar adds: an `if`'s or loop's guards, a lock's or
/// semaphore's wait and set.
fn derived(stmt: &Stmt) -> Vec<&String> {
    match &stmt.kind {
        StmtKind::If { cond: Cond::Expr { then_guard, else_guard, .. }, .. }
        | StmtKind::While { cond: Cond::Expr { then_guard, else_guard, .. }, .. } => {
            vec![&then_guard.label, &else_guard.label]
        }
        StmtKind::Lock { wait, set, .. } | StmtKind::Down { wait, set, .. } => vec![&wait.label, &set.label],
        _ => Vec::new(),
    }
}

/// `span` starting past the blanks and `{`s that open it.
fn past_brace(source: &str, span: Span) -> Span {
    let text = source.get(span.start as usize..span.end as usize).unwrap_or_default();
    let rest = text.trim_start_matches(|c: char| c.is_whitespace() || c == '{');
    let skipped = u32::try_from(text.len() - rest.len()).unwrap_or(0);
    Span { start: span.start + skipped, ..span }
}

/// The span of `stmt`, or of the nearest statement around it that has one.
fn span_of(parts: &Parts, stmt: &Stmt) -> Option<Span> {
    let mut at = stmt;
    for _ in 0..=parts.stmts.len() {
        if at.span.start < at.span.end {
            return Some(at.span);
        }
        let parent = parts.blocks.get(at.block.index())?.parent?;
        at = parts.stmts.get(parent.index())?;
    }
    None
}

/// Where the statement at `span` is shown from and to, and its text: a `for`, `while`, `if`
/// or `switch` by its keyword and condition, a `do` by its `while (c)`, any other statement
/// by its first line up to its `;` (with ` ...` when it goes on past the line); white space
/// runs are one space. The span's start is the statement's, but not always its end: on a line
/// a macro expanded, the end is where the expansion's text would end, so the text is read from
/// the source up to the `;` (or the `{` of a function's header) itself. `None` for a span
/// outside `source` or of white space only.
fn shown(source: &str, span: Span) -> Option<(usize, usize, String)> {
    let (from, to) = (span.start as usize, span.end as usize);
    let text = source.get(from..to)?;
    let start = statement_start(source, from + (text.len() - text.trim_start().len()));
    let text = source.get(start..to.max(start))?.trim_end();
    if text.is_empty() {
        return None;
    }
    let word: String = text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if word == "do" {
        if let Some(at) = text.rfind("while") {
            return header(source, start + at);
        }
    }
    if HEADED.contains(&word.as_str()) {
        if let Some(h) = header(source, start) {
            return Some(h);
        }
    }
    let rest = source.get(start..)?;
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let mut depth = 0usize;
    let mut end = None;
    for (i, c) in line.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ';' | '{' if depth == 0 && i > 0 => {
                end = Some((i, false));
                break;
            }
            _ => {}
        }
    }
    let (end, more) = end.unwrap_or((line.len(), line.len() < text.len()));
    let first = line[..end].trim_end();
    let shown = squeeze(first);
    Some((start, start + first.len(), if more { format!("{shown} ...") } else { shown }))
}

/// Where the statement whose step starts at `at` starts in the source: `at` itself when a
/// statement may begin there (after a line's indentation, a `;`, a brace, the `)` of a
/// condition, a label's `:`, a `,`, `else` or `do`); else the step is one of a macro's
/// expansion, placed inside the macro's call, and the statement is the line's, from its
/// first non-blank character (`access(global);`).
fn statement_start(source: &str, at: usize) -> usize {
    let before = source.get(..at).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let prefix = before[line_start..].trim_end_matches([' ', '\t']);
    let boundary = prefix.is_empty()
        || prefix.ends_with([';', '{', '}', ')', ':', ',', '?'])
        || ["else", "do"].iter().any(|w| {
            prefix.strip_suffix(w).is_some_and(|p| !p.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
        });
    // A step placed at a `;` is one of the statement before it (a macro's expansion ends there).
    if boundary && !source.get(at..).is_some_and(|rest| rest.starts_with(';')) {
        return at;
    }
    let line = &source[line_start..];
    line_start + (line.len() - line.trim_start_matches([' ', '\t']).len())
}

/// The header that starts at `start`: a keyword and its parenthesised part.
fn header(source: &str, start: usize) -> Option<(usize, usize, String)> {
    let text = source.get(start..)?;
    let open = text.find('(')?;
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let end = open + i + 1;
                    return Some((start, start + end, squeeze(&text[..end])));
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` with every run of white space one space.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(source: &str, what: &str) -> Option<String> {
        let start = source.find(what).unwrap() as u32;
        shown(source, Span { start, end: start + what.len() as u32 }).map(|s| s.2)
    }

    #[test]
    fn headers_and_first_lines() {
        let source = "for (i = 0;\n     i < 2; i++) {\n  x = (a +\n b);\n}\ndo { y++; } while (y < 3);\n";
        assert_eq!(
            at(source, "for (i = 0;\n     i < 2; i++) {\n  x = (a +\n b);\n}").as_deref(),
            Some("for (i = 0; i < 2; i++)")
        );
        assert_eq!(at(source, "x = (a +\n b);").as_deref(), Some("x = (a + ..."));
        assert_eq!(at(source, "do { y++; } while (y < 3);").as_deref(), Some("while (y < 3)"));
        assert_eq!(at(source, "y++;").as_deref(), Some("y++"));
        assert_eq!(at(source, "\n").as_deref(), None);
        // A span that ends short (a macro expanded on its line) still shows the statement.
        let source = "  ready = READY; other();\nvoid *f(void *a) {\n";
        let start = source.find('r').unwrap() as u32;
        assert_eq!(shown(source, Span { start, end: start + 9 }).map(|s| s.2).as_deref(), Some("ready = READY"));
        let start = source.find("void").unwrap() as u32;
        assert_eq!(shown(source, Span { start, end: start + 17 }).map(|s| s.2).as_deref(), Some("void *f(void *a)"));
    }

    /// A step a macro's expansion places inside the macro's call shows the call's line; a
    /// step where a statement may begin stays where it is.
    #[test]
    fn steps_inside_a_macro_call_start_at_the_line() {
        let source = "void f() {\n  access(global);\n  x = 1; y = 2;\n  if (c) z = 3; else w = 4;\n}\n";
        let at = |s: &str| source.find(s).unwrap();
        assert_eq!(statement_start(source, at("bal)")), at("access"));
        assert_eq!(statement_start(source, at("(global")), at("access"));
        assert_eq!(statement_start(source, at(");") + 1), at("access"));
        for own in ["x = 1", "y = 2", "z = 3", "w = 4", "access"] {
            assert_eq!(statement_start(source, at(own)), at(own), "{own}");
        }
    }
}
