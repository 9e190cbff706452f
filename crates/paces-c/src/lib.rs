//! The C frontend of PACES: reads concurrent models written in a small C dialect (the one the
//! paper's tool read: threads as functions called from `main`, `assume`, `assert`,
//! `atomicBegin()`/`atomicEnd()`, `lock`, ...) into the same [`Program`] the Cwhile frontend
//! builds, and prints a Cwhile program in that dialect.
//!
//! Statements are labelled by the source line they start on (`12`, then `12.2` for a second
//! statement on that line), so traces and repairs name them the way the paper's tool did.
//! `docs/c-frontend.md` describes the dialect, its meaning in Cwhile, and why the parser is
//! the `lang-c` crate.
//!
//! # Printing
//! Each C dialect has its printer type: [`Printer`] for the paper's dialect, whose
//! [`Printer::print`] writes a program as C and whose [`Printer::splice`] writes a repaired
//! program into the C source it was read from, and [`pthread::Printer`] for pthread C, which
//! only splices, for a source read with the [`pthread::Options`] it is given. They are two
//! types rather than one with a dialect setting because the two dialects offer different
//! things: pthread C has no canonical printer and the paper's dialect no reading options, so
//! a single type would carry a method and a setting that mean nothing for one of them; with
//! two, each offers only what its dialect can do and the compiler refuses the rest.
//!
//! # Example
//! ```
//! let program = paces_c::parse(
//!     "int x;\nvoid t1() {\n  x = 1;\n  assert(x == 1);\n}\nvoid t2() { x = 2; }\nvoid main() { t1(); t2(); }\n",
//! )?;
//! assert_eq!(program.threads.len(), 2);
//! assert!(program.loc("4").is_some()); // the assertion, by its line
//! # Ok::<(), paces_cwhile::Diagnostics>(())
//! ```
//!
//! # Errors
//! Reading never panics: everything outside the dialect is a [`Diagnostic`]
//! with a `C0xxx` code and a span in the C source (rendered by [`paces_cwhile::render`] like
//! every other diagnostic); problems the Cwhile checks find (an unknown variable, recursion)
//! keep their `E0xxx` codes and point into the C source too.

mod flat;
mod lower;
mod model;
mod prepass;
mod print;
pub mod pthread;
mod read;
mod shown;
mod splice;

pub use paces_constraint as constraint;
pub use paces_cwhile as cwhile;

pub use print::{Error, Printed, Printer};

use paces_cwhile::{Diagnostic, Diagnostics, Program, Span};

/// Reads a C model into a checked program.
///
/// # Errors
/// The first problem found, as [`Diagnostics`] whose spans point into `source`.
pub fn parse(source: &str) -> Result<Program, Diagnostics> {
    read_source(source).map_err(|d| tight(&d, source))
}

/// [`parse`], with spans as the parser gives them.
fn read_source(source: &str) -> Result<Program, Diagnostics> {
    let one = |d: Diagnostic| Diagnostics::new(vec![d]).expect("one diagnostic");
    if u32::try_from(source.len()).is_err() {
        return Err(one(read::error("C0007", "the file is too large (4 GiB or more)", Span::default(), "")));
    }
    let prepared = prepass::prepare(source).map_err(one)?;
    let unit = parse_c(&prepared).map_err(one)?;
    let model = read::Reader::new(source, &prepared).read(&unit).map_err(one)?;
    lower::lower(model, source)
}

/// Ends every primary span of `diagnostics` at the last byte of `source` it covers that is not
/// white space. The C parser's expression nodes end after the blanks that follow them (in
/// `y + 1`, `y` spans `y `), so their carets would run past the text they point at. A span
/// of white space only is kept as it is.
pub(crate) fn tight(diagnostics: &Diagnostics, source: &str) -> Diagnostics {
    let bytes = source.as_bytes();
    let list = diagnostics
        .iter()
        .map(|d| {
            let mut d = d.clone();
            let start = d.primary.start as usize;
            let mut end = (d.primary.end as usize).min(bytes.len());
            while end > start + 1 && bytes[end - 1].is_ascii_whitespace() {
                end -= 1;
            }
            if start < end && !bytes[start..end].iter().all(u8::is_ascii_whitespace) {
                d.primary.end = u32::try_from(end).unwrap_or(d.primary.end);
            }
            d
        })
        .collect();
    Diagnostics::new(list).unwrap_or_else(|| diagnostics.clone())
}

/// The bounds the dialect's reading puts on a C model, each a sentence: "nondeterministic
/// values in 0..1" when it calls `nondet_int()` or reads `nondet` as a value (not as a choice),
/// which stand for those two values only. A "correct" verdict of a model with a bound holds
/// only within it. Empty for a model the parser does not read (whose errors [`parse`]
/// reports).
pub fn bounds(source: &str) -> Vec<String> {
    let Ok(prepared) = prepass::prepare(source) else { return Vec::new() };
    let Ok(unit) = parse_c(&prepared) else { return Vec::new() };
    let mut calls = NondetCalls(false);
    lang_c::visit::Visit::visit_translation_unit(&mut calls, &unit);
    let drawn = read::Reader::new(source, &prepared)
        .read(&unit)
        .is_ok_and(|m| m.functions.iter().any(|f| f.locals.iter().any(|(n, _)| n == read::NONDET)));
    if calls.0 || drawn {
        vec!["nondeterministic values in 0..1".to_owned()]
    } else {
        Vec::new()
    }
}

/// Whether a tree calls `nondet_int()`.
struct NondetCalls(bool);

impl<'ast> lang_c::visit::Visit<'ast> for NondetCalls {
    fn visit_call_expression(&mut self, c: &'ast lang_c::ast::CallExpression, span: &'ast lang_c::span::Span) {
        if let lang_c::ast::Expression::Identifier(id) = &c.callee.node {
            self.0 |= id.node.name == "nondet_int";
        }
        lang_c::visit::visit_call_expression(self, c, span);
    }
}

/// Reads a C model given as bytes; bytes that are not UTF-8 are an error.
///
/// # Errors
/// As [`parse`].
pub fn parse_bytes(bytes: &[u8]) -> Result<Program, Diagnostics> {
    match std::str::from_utf8(bytes) {
        Ok(source) => parse(source),
        Err(e) => {
            let at = u32::try_from(e.valid_up_to()).unwrap_or(u32::MAX);
            let d = read::error(
                "C0001",
                "the file is not valid UTF-8",
                Span { start: at, end: at.saturating_add(1) },
                "invalid byte here",
            );
            Err(Diagnostics::new(vec![d]).expect("one diagnostic"))
        }
    }
}

/// Runs the C parser on the prepared text; a syntax error points into the source.
fn parse_c(prepared: &prepass::Prepared) -> Result<lang_c::ast::TranslationUnit, Diagnostic> {
    parse_prepared(prepared.text.clone(), |offset| prepared.original(offset))
}

/// The most `+` and `-` characters in a row (touching) handed to the parser: at the start of
/// a statement it tries each way of reading them as `++`, `--`, `+` and `-`, so its time
/// grows exponentially with the run (half a second for 32, years for 128).
const MAX_SIGNS: usize = 16;

/// The offset of the first `+` or `-` in `text` that follows [`MAX_SIGNS`] touching ones,
/// outside string and character literals.
fn long_sign_run(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let (mut run, mut i) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            quote @ (b'"' | b'\'') => {
                run = 0;
                i += 1;
                while i < b.len() && b[i] != quote && b[i] != b'\n' {
                    i += usize::from(b[i] == b'\\') + 1;
                }
            }
            b'+' | b'-' => {
                run += 1;
                if run > MAX_SIGNS {
                    return Some(i);
                }
            }
            _ => run = 0,
        }
        i += 1;
    }
    None
}

/// Where a statement that misses its `;` ends, for a syntax error at byte `offset` of the
/// prepared `text`: the end of the text before `offset` without the blank space in between,
/// when that space holds a line break (a `;` missing at a line's end); `None` otherwise.
fn statement_end(text: &str, offset: usize) -> Option<usize> {
    let before = text.get(..offset)?;
    let end = before.trim_end().len();
    (end > 0 && before[end..].contains('\n')).then_some(end)
}

/// C's keywords.
pub(crate) const KEYWORDS: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float",
    "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
];

/// A type name the parser does not know, with its offset, where it stopped at `offset` in
/// `text`: the identifier there when an identifier or a `*` follows it on its line (`uint8_t
/// small;` without `stdint.h`, at the top level), or the identifier that alone comes before it
/// on its line (`sem_t s;` in a function, where the parser reads `sem_t` as an expression).
fn unknown_type(text: &str, offset: usize) -> Option<(&str, usize)> {
    if let Some(name) = unknown_type_at(text, offset) {
        return Some((name, offset));
    }
    let line = text.get(..offset)?.rsplit('\n').next()?;
    let ident = line.trim_end_matches([' ', '\t']);
    let word = ident.trim_start_matches([' ', '\t']);
    let start = offset - line.len() + (ident.len() - word.len());
    (ident.len() < line.len() && unknown_type_at(text, start) == Some(word)).then_some((word, start))
}

/// The identifier at `offset` in `text` when an identifier or a `*` follows it on its line,
/// unless it is a keyword.
fn unknown_type_at(text: &str, offset: usize) -> Option<&str> {
    let rest = text.get(offset..)?;
    let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    let name = &rest[..len];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) || KEYWORDS.contains(&name) {
        return None;
    }
    let after = rest[len..].trim_start_matches([' ', '\t']);
    after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '*').then_some(name)
}

/// Runs the C parser on preprocessed `text`; a syntax error is placed in the source at
/// `original(offset in text)`. Both C frontends parse through it.
pub(crate) fn parse_prepared(
    text: String,
    original: impl Fn(usize) -> u32,
) -> Result<lang_c::ast::TranslationUnit, Diagnostic> {
    if let Some(i) = long_sign_run(&text) {
        let at = original(i);
        let message = format!("more than {MAX_SIGNS} `+` or `-` signs in a row (with no space between)");
        return Err(read::error("C0006", message, Span { start: at, end: at.saturating_add(1) }, "too many here"));
    }
    let config = lang_c::driver::Config { flavor: lang_c::driver::Flavor::GnuC11, ..lang_c::driver::Config::default() };
    // The parser is third-party code: a panic inside it is reported as an error, never passed on.
    let result = std::panic::catch_unwind(move || {
        let parsed = lang_c::driver::parse_preprocessed(&config, text.clone());
        (parsed, text)
    });
    match result {
        Ok((Ok(parse), _)) => Ok(parse.unit),
        Ok((Err(e), text)) => {
            let mut expected: Vec<&str> = e.expected.iter().copied().collect();
            expected.sort_unstable();
            if let Some((name, start)) = unknown_type(&text, e.offset) {
                let at = original(start);
                let span = Span { start: at, end: at.saturating_add(name.len() as u32) };
                let mut d =
                    read::error("C0005", format!("`{name}` is not a type the reader knows"), span, "not a type");
                d.notes.push(
                    "the reader knows C's own types, the program's typedefs and the types of pthread.h, \
                     stdbool.h and stdint.h (when included)"
                        .to_owned(),
                );
                return Err(d);
            }
            if let Some(end) = expected.contains(&";").then(|| statement_end(&text, e.offset)).flatten() {
                let at = original(end);
                let mut d = read::error("C0005", "expected `;`", Span { start: at, end: at }, "`;` expected here");
                if expected.len() > 1 {
                    d.notes.push(format!("expected one of: {}", expected.join(" ")));
                }
                return Err(d);
            }
            let at = original(e.offset);
            let mut d =
                read::error("C0005", "syntax error", Span { start: at, end: at.saturating_add(1) }, "unexpected here");
            if !expected.is_empty() {
                d.notes.push(format!("expected one of: {}", expected.join(" ")));
            }
            Err(d)
        }
        Err(_) => Err(read::error("C0008", "the C parser failed on this input", Span::default(), "")),
    }
}

#[cfg(test)]
mod tests {
    use super::{long_sign_run, unknown_type};

    #[test]
    fn a_run_of_signs_counts_outside_literals_only() {
        let run = "-".repeat(40);
        assert_eq!(long_sign_run(&format!("x = 1;\n{run}")), Some(7 + 16));
        assert_eq!(long_sign_run(&format!("s = \"{run}\"; c = '-';")), None);
        assert_eq!(long_sign_run(&format!("s = \"\\\"{run}\"; x = 1 {} 1;", "- ".repeat(40))), None);
        assert_eq!(long_sign_run(&"-".repeat(16)), None);
        assert_eq!(long_sign_run(&"+-".repeat(9)), Some(16));
    }

    #[test]
    fn an_unknown_type_name_is_found_where_the_parser_stops() {
        // At the top level the parser stops at the type; in a function, at what follows it.
        let top = "int x;\nuint8_t small = 1;\n";
        assert_eq!(unknown_type(top, 7), Some(("uint8_t", 7)));
        let inner = "int main(void) {\n  sem_t s;\n}\n";
        assert_eq!(unknown_type(inner, inner.find("s;").unwrap()), Some(("sem_t", 19)));
        let pointer = "  lock_t *l;\n";
        assert_eq!(unknown_type(pointer, 2), Some(("lock_t", 2)));
        // Not a type: a keyword before the stop, an operator after the name, a number.
        let ret = "  return x y;\n";
        assert_eq!(unknown_type(ret, ret.find("y;").unwrap()), None);
        assert_eq!(unknown_type("  x = 2;\n", 2), None);
        assert_eq!(unknown_type("  1 x;\n", 2), None);
        assert_eq!(unknown_type("  static int x;\n", 2), None);
    }
}
