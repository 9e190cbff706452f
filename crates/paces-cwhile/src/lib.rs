//! The Cwhile language of PACES: parser, static checks, IR, printer, Promela export and
//! diagnostics.
//!
//! Cwhile is the small C-like language PACES repairs programs in (`docs/language.md`
//! describes it and records every choice the frontend makes). This crate turns its text into the
//! [`ir::Program`] that the model checker explores and the repair loop transforms, and back:
//!
//! * [`parse`] / [`parse_bytes`]: text to a checked [`Program`], or [`Diagnostics`] (each a
//!   [`Diagnostic`] with a stable code, a message, a primary [`Span`] and notes), rendered
//!   with source snippets by [`render`], the workspace's one renderer.
//! * [`Program`]: threads, procedures, blocks and statements with their labels and
//!   locations ([`Program::loc`], [`Program::stmt_at`]); per statement its read and write
//!   sets ([`Program::reads`], [`Program::writes`]), the commute relation
//!   ([`Program::commutes`]), weights and section roles; the program's
//!   [`Space`](paces_constraint::Space) ([`Program::space`]) and the program a candidate of
//!   that space describes ([`Program::apply`]).
//! * [`Printer`]: the program as text: canonical, with every label explicit
//!   ([`Printer::print`]), or with only the labels a reader needs ([`Printer::labels`]),
//!   keeping the source's comments ([`Printer::comments`]), or written into the source with
//!   only the changed blocks rewritten ([`Printer::splice`]); [`to_promela`]: a model for
//!   SPIN; [`Program::dump`]: a deterministic description of the IR for snapshot tests.
//!
//! # Example
//! Parse a program, move `B` before `A` (they commute), and print the result.
//! ```
//! use paces_constraint::Candidate;
//!
//! let program = paces_cwhile::parse("var x, y;\nthread t { A: x := 1; B: y := 1; assert(x == 1); }")?;
//! // The unlabelled assertion got the generated label `t.2`.
//! let assert = program.stmt_at(program.loc("t.2").unwrap()).unwrap();
//! assert_eq!(program.reads(assert), &program.writes(program.stmt_at(program.loc("A").unwrap()).unwrap())[..]);
//!
//! let space = program.space();
//! let (a, b, t2) = (program.loc("A").unwrap(), program.loc("B").unwrap(), program.loc("t.2").unwrap());
//! // A and the assertion do not commute (A writes what it reads): only B may move.
//! let candidate = Candidate::new(&space, vec![vec![b, a, t2]], &[])?;
//! let repaired = program.apply(&candidate)?;
//! assert_eq!(
//!     paces_cwhile::Printer::new(&repaired).print(),
//!     "var x = 0, y = 0;\n\nthread t {\n  B: y := 1;\n  A: x := 1;\n  t.2: assert(x == 1);\n}\n"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//! Parsing never panics: every problem of the input, including non-UTF-8 bytes, an
//! unterminated comment, or statements nested deeper than 256 levels, is a [`Diagnostic`]
//! (codes in `docs/language.md`). [`Program::apply`] fails with an [`Error`] when the
//! candidate does not belong to the program's space.

mod apply;
mod ast;
mod diag;
mod dump;
mod error;
mod facts;
pub mod ir;
mod lexer;
mod lower;
mod print;
mod private;
mod program;
mod promela;
mod snippet;
mod splice;
mod syntax;

pub use paces_constraint as constraint;

pub use diag::{render, Diagnostic, Diagnostics, MAX_RENDERED};
pub use error::{Error, ErrorKind};
pub use ir::{Program, Span};
pub use print::{comment_ranges, Printer};
pub use promela::to_promela;

/// Parses and checks a Cwhile program.
///
/// # Errors
/// Every lexical, syntax and static error found, in source order; several independent
/// syntax errors are reported at once where the parser can recover.
pub fn parse(source: &str) -> Result<Program, Diagnostics> {
    if u32::try_from(source.len()).is_err() {
        return Err(Diagnostics::one(Diagnostic::new(
            "E0007",
            "the file is too large (4 GiB or more)",
            Span::default(),
            "",
        )));
    }
    let decls = syntax::parse(source).map_err(|d| Diagnostics::new(d).expect("a failed parse reports an error"))?;
    lower::lower(&decls, source)
}

/// Parses and checks a Cwhile program given as bytes; bytes that are not UTF-8 give the
/// diagnostic `E0001`.
///
/// # Errors
/// As [`parse`].
pub fn parse_bytes(bytes: &[u8]) -> Result<Program, Diagnostics> {
    match std::str::from_utf8(bytes) {
        Ok(source) => parse(source),
        Err(e) => {
            let at = u32::try_from(e.valid_up_to()).unwrap_or(u32::MAX);
            Err(Diagnostics::one(
                Diagnostic::new(
                    "E0001",
                    "the file is not valid UTF-8",
                    Span { start: at, end: at.saturating_add(1) },
                    "invalid byte here",
                )
                .note(format!("the first invalid byte is at offset {at}")),
            ))
        }
    }
}
