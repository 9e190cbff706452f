//! The Cwhile language of PACES: parser, static checks, IR, printer, Promela export and
//! diagnostics.
//!
//! Cwhile is the small C-like language PACES repairs programs in (see
//! `docs/language.md` and the language contract). This crate turns its text into the
//! [`ir::Program`] that the model checker explores and the repair loop transforms:
//!
//! * [`parse`] / [`parse_bytes`]: text to a checked [`Program`], or [`Diagnostics`] (each a
//!   [`Diagnostic`] with a stable code, a message, a primary [`Span`] and notes), rendered
//!   with source snippets by [`render`].
//! * [`Program`]: threads, procedures, blocks and statements with their labels and
//!   locations; per statement its read and write sets ([`Program::reads`],
//!   [`Program::writes`]), the commute relation ([`Program::commutes`]), weights and section
//!   roles, and the program's [`Space`](paces_constraint::Space) ([`Program::space`]).
//!
//! # Example
//! ```
//! let program = paces_cwhile::parse("var x = 0;\nthread t { A: x := 1; assert(x == 1); }")?;
//! let a = program.stmt_at(program.loc("A").unwrap()).unwrap();
//! assert_eq!(program.stmt(a).label, "A");
//! // The unlabelled assertion got the generated label `t.1`.
//! assert!(program.loc("t.1").is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//! Parsing never panics: every problem of the input, including non-UTF-8 bytes, an
//! unterminated comment, or statements nested deeper than 256 levels, is a [`Diagnostic`].

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
mod program;
mod promela;
mod syntax;

pub use diag::{render, Diagnostic, Diagnostics};
pub use error::{Error, ErrorKind};
pub use ir::{Program, Span};
pub use print::print;
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
