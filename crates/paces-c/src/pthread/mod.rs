//! pthread C as SV-COMP writes it (`docs/c-frontend.md`, "pthread C"): a preprocessor
//! ([`Preprocessor`]), then the C parser, then a lowering into the Cwhile IR in which every
//! thread `pthread_create` starts is a static Cwhile thread and every read and write of a
//! shared variable is a step of its own.
//!
//! # Example
//! ```
//! let source = "#include <pthread.h>\nint x;\nvoid *t(void *a) { x = 1; return 0; }\n\
//!     int main() { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0);\n\
//!     if (x != 1) reach_error(); return 0; }\n";
//! let read = paces_c::pthread::parse(source, &paces_c::pthread::Options::default())?;
//! assert_eq!(read.program.threads.len(), 2); // main and the thread it creates
//! assert!(read.bounds.is_empty()); // no bound: a "correct" verdict is exact
//! # Ok::<(), paces_cwhile::Diagnostics>(())
//! ```

mod alloc;
mod args;
mod argv;
mod assign;
mod atomic_exit;
mod call;
mod common;
mod container;
mod decl;
mod diag;
mod expr;
mod fields;
mod fn_pointers;
mod goto;
mod goto_out;
mod indexed_rounds;
mod local_mutex;
mod loops;
mod lower;
mod members;
mod mutexattr;
mod nested_creates;
mod options;
mod pointers;
mod pointsto;
mod pre;
mod ptrflow;
mod semaphore;
mod shapes;
mod spelling;
mod stale;
mod stmt;
mod struct_arrays;
mod structs;
mod switch;
mod sync_builtins;
mod thread;
mod tls;
mod types;
mod value_calls;

pub use options::Options;
pub use pre::Preprocessor;
pub use stale::stale_checks;

use diag::error;
use paces_cwhile::{Diagnostic, Diagnostics, Program, Span};

/// A pthread C file read into a program.
#[derive(Clone, Debug)]
pub struct Reading {
    /// The checked program.
    pub program: Program,
    /// The bounds the model puts on the program, each a sentence naming it (such as
    /// "nondeterministic values in 0..1"); empty when the model is exact, so that "no error
    /// found" means correct.
    pub bounds: Vec<String>,
    /// Which preprocessor ran: `"cpp"` (the system's) or `"own"`.
    pub preprocessor: &'static str,
}

/// Reads a pthread C program.
///
/// # Errors
/// The first construct that cannot be read, as [`Diagnostics`] whose spans point into
/// `source`: the construct, its line and its column.
pub fn parse(source: &str, options: &Options) -> Result<Reading, Diagnostics> {
    read_source(source, options).map_err(|d| crate::tight(&d, source))
}

/// [`parse`], with spans as the parser gives them.
fn read_source(source: &str, options: &Options) -> Result<Reading, Diagnostics> {
    let one = |d: Diagnostic| Diagnostics::new(vec![d]).expect("one diagnostic");
    if u32::try_from(source.len()).is_err() {
        return Err(one(error("C0007", "the file is too large (4 GiB or more)", Span::default(), "")));
    }
    let (prepared, which) = pre::prepare(source, options.preprocessor, options.include_dir.as_deref()).map_err(one)?;
    let (mut unit, thread_locals) = parse_c(&prepared, source).map_err(one)?;
    members::name_members(&mut unit);
    let (program, bounds) = lower::lower(&unit, source, &prepared, options, thread_locals).map_err(one)?;
    Ok(Reading { program, bounds, preprocessor: which })
}

/// Reads a pthread C program given as bytes; bytes that are not UTF-8 are an error.
///
/// # Errors
/// As [`parse`].
pub fn parse_bytes(bytes: &[u8], options: &Options) -> Result<Reading, Diagnostics> {
    match std::str::from_utf8(bytes) {
        Ok(source) => parse(source, options),
        Err(e) => {
            let at = u32::try_from(e.valid_up_to()).unwrap_or(u32::MAX);
            let d = error("C0001", "the file is not valid UTF-8", Span { start: at, end: at.saturating_add(1) }, "");
            Err(Diagnostics::new(vec![d]).expect("one diagnostic"))
        }
    }
}

/// Writes a program into the pthread C source of the program it was made from
/// ([`Printer::splice`]). pthread C has no canonical printer of its own: a program that
/// cannot be written into its source is printed as Cwhile ([`paces_cwhile::Printer`]).
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct Printer<'a> {
    program: &'a Program,
    /// How the source was read; `None`: with default [`Options`].
    options: Option<&'a Options>,
}

impl<'a> Printer<'a> {
    /// A printer of `program`, for a source read with default [`Options`].
    pub fn new(program: &'a Program) -> Self {
        Printer { program, options: None }
    }

    /// For a source [`parse`] read with `options` (the text written is read back with them).
    pub fn options(self, options: &'a Options) -> Self {
        Printer { options: Some(options), ..self }
    }

    /// Writes the program, made from `original` by [`Program::apply`], as the pthread C
    /// source `source` that [`parse`] read `original` from: the blocks whose items changed
    /// order or gained an atomic section rewritten, an added section as
    /// `__VERIFIER_atomic_begin();` and `__VERIFIER_atomic_end();` lines, every other byte
    /// kept (as [`crate::Printer::splice`] does for the paper's dialect, whose rules apply).
    /// SV-COMP's rules forbid nesting these calls, so an added section holds no other.
    /// `None` when the layout does not allow it or the text does not read back as the
    /// program.
    #[must_use]
    pub fn splice(&self, source: &str, original: &Program) -> Option<String> {
        let default = Options::default();
        let options = self.options.unwrap_or(&default);
        let read = |text: &str| parse(text, options).ok().map(|r| r.program);
        let dialect = crate::splice::Dialect {
            parse: &read,
            begin: "__VERIFIER_atomic_begin();",
            end: "__VERIFIER_atomic_end();",
            flat: true,
        };
        crate::splice::splice(source, original, self.program, &dialect)
    }
}

/// Whether a C source reads as pthread C rather than the paper's tool's dialect: it includes
/// a header, or names a `pthread_` function, `reach_error` or a `__VERIFIER_` function other
/// than `__VERIFIER_assume` (which the paper's dialect reads too).
pub fn looks_like_pthread(source: &str) -> bool {
    source.lines().any(|l| l.trim_start().starts_with("#include"))
        || [
            "pthread_",
            "reach_error",
            "__VERIFIER_error",
            "__VERIFIER_assert",
            "__VERIFIER_nondet_",
            "__VERIFIER_atomic_",
        ]
        .iter()
        .any(|w| source.contains(w))
}

/// Runs the C parser on the prepared text; a syntax error points into the source. Also the
/// offsets of the text's `__thread` keywords (GCC's spelling of `_Thread_local`, which the
/// parser does not know), each given to the parser as `static` and two spaces.
fn parse_c(prepared: &pre::Prepared, source: &str) -> Result<(lang_c::ast::TranslationUnit, Vec<usize>), Diagnostic> {
    let text = spelling::without_dollars(&prepared.text).map_err(|(at, name)| {
        let at = prepared.original(at, source);
        error(
            "C0410",
            format!("`{name}` with `$` for `_` is another identifier of the program"),
            Span { start: at, end: at.saturating_add(1) },
            "not read",
        )
    })?;
    let (text, thread_locals) = spelling::without_thread_keyword(text);
    crate::parse_prepared(text, |offset| prepared.original(offset, source)).map(|unit| (unit, thread_locals))
}
