//! Subcommands, one module each, and what they share: reading input, reporting
//! diagnostics, writing output.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use paces_cwhile::Program;

pub mod check;
pub mod export;
pub mod fmt;
pub mod html;
pub mod progress;
pub mod repair;
pub mod traces;

/// How a subcommand ended.
#[derive(Debug)]
pub enum Outcome {
    /// Done (exit code 0).
    Success,
    /// The answer is "no" (exit code 1), e.g. a file that is not canonical under `--check`.
    No,
    /// Bad input or usage; the reason was already written to stderr (exit code 2).
    Failure,
    /// No exact answer (exit code 3): a bound of the checker was reached first, or the answer
    /// holds only within the `--unwind` loop bound.
    Inconclusive,
}

impl Outcome {
    /// The process exit code.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Outcome::Success => ExitCode::SUCCESS,
            Outcome::No => ExitCode::from(1),
            Outcome::Failure => ExitCode::from(2),
            Outcome::Inconclusive => ExitCode::from(3),
        }
    }
}

/// An input file: `-` means standard input.
#[derive(Debug)]
pub struct Input {
    /// The name shown in messages (`<stdin>` for standard input).
    pub name: String,
    /// The raw bytes.
    pub bytes: Vec<u8>,
    /// Its language: the one `--lang` chose, else guessed from the name and the text
    /// ([`read_input`]).
    pub lang: Lang,
    /// Whether `--lang` was absent and the text was taken for C or pthread C by its first word
    /// (the name has no `.c` or `.cw` ending; a Cwhile guess rests on a Cwhile keyword): a
    /// parse error then says how to choose the language.
    pub guessed: bool,
}

/// Reads a file, or standard input for `-`, in the language `lang` (`None`: by the file's
/// name ending, `.c` C or pthread C, `.cw` Cwhile, else by the text); why it cannot be read
/// otherwise.
pub fn read_input(path: &Path, lang: Option<Lang>) -> Result<Input, String> {
    let (name, bytes) = if path == Path::new("-") {
        let mut bytes = Vec::new();
        match std::io::stdin().lock().read_to_end(&mut bytes) {
            Ok(_) => ("<stdin>".to_owned(), bytes),
            Err(e) => return Err(format!("cannot read standard input: {e}")),
        }
    } else {
        match std::fs::read(path) {
            Ok(bytes) => (path.display().to_string(), bytes),
            Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
        }
    };
    let by_text = lang.is_none() && !name.ends_with(".c") && !name.ends_with(".cw");
    let lang = lang.unwrap_or_else(|| guess_lang(&name, &bytes));
    let guessed = by_text && lang != Lang::Cwhile;
    Ok(Input { name, bytes, lang, guessed })
}

/// Reads and parses a file (`-`: standard input) in the language `lang` (`None`: by the
/// file's name); failures are reported on stderr, and with [`Format::Json`] also as a
/// `paces-error/1` document on stdout.
pub fn load(path: &Path, lang: Option<Lang>, format: Format) -> Result<(Input, Program), Outcome> {
    let input = read_input(path, lang).map_err(|message| fail_in(format, &path.display().to_string(), &message))?;
    let program = parse(&input, format)?;
    Ok((input, program))
}

/// An input language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// The C dialect of the paper's tool (docs/c-frontend.md).
    C,
    /// Cwhile (docs/language.md).
    Cwhile,
    /// pthread C as SV-COMP writes it (docs/c-frontend.md, "pthread C").
    Pthread,
}

/// The language of an input that `--lang` does not name: for a name ending in `.c`, pthread C
/// when the text looks like it ([`paces_c::pthread::looks_like_pthread`]) and the paper's
/// dialect otherwise; Cwhile for a name ending in `.cw`; for any other name (standard input
/// among them) the language the text starts like ([`text_lang`]).
fn guess_lang(name: &str, bytes: &[u8]) -> Lang {
    let text = String::from_utf8_lossy(bytes);
    let c_family = || if paces_c::pthread::looks_like_pthread(&text) { Lang::Pthread } else { Lang::C };
    if name.ends_with(".cw") || (!name.ends_with(".c") && text_lang(&text) == Lang::Cwhile) {
        Lang::Cwhile
    } else {
        c_family()
    }
}

/// The language a text starts like, by its first word after comments and blank space:
/// Cwhile when it is `var`, `thread` or `proc` (the words a Cwhile program's declarations
/// start with), or when there is no word at all; [`Lang::C`] for a `#` directive or any
/// other word (`int`, `void`, `static` ...: a C declaration).
fn text_lang(text: &str) -> Lang {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    if rest.starts_with('#') {
        return Lang::C;
    }
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    match word.as_str() {
        "" | "var" | "thread" | "proc" => Lang::Cwhile,
        _ => Lang::C,
    }
}

/// Parses an input; on errors, renders them with source snippets on stderr (and with
/// [`Format::Json`] lists them in a `paces-error/1` document on stdout, with
/// [`Format::Sarif`] in a SARIF log).
pub fn parse(input: &Input, format: Format) -> Result<Program, Outcome> {
    parse_bounded(input, format, &paces_c::pthread::Options::default()).map(|(p, _)| p)
}

/// As [`parse`], pthread C read with `options`; also the bounds the frontend put on the
/// program (each a sentence; empty for an exact model).
pub fn parse_bounded(
    input: &Input,
    format: Format,
    options: &paces_c::pthread::Options,
) -> Result<(Program, Vec<String>), Outcome> {
    let read = match input.lang {
        Lang::C => paces_c::parse_bytes(&input.bytes)
            .map(|p| (p, std::str::from_utf8(&input.bytes).map(paces_c::bounds).unwrap_or_default())),
        Lang::Cwhile => paces_cwhile::parse_bytes(&input.bytes).map(|p| (p, Vec::new())),
        Lang::Pthread => {
            // `#include "name"` finds `name` next to the file.
            let mut options = options.clone();
            if options.include_dir.is_none() && input.name != "<stdin>" {
                options.include_dir = Path::new(&input.name).parent().map(Path::to_path_buf);
            }
            paces_c::pthread::parse_bytes(&input.bytes, &options).map(|r| (r.program, r.bounds))
        }
    };
    read.map_err(|diags| {
        let source = String::from_utf8_lossy(&input.bytes);
        if format == Format::Sarif {
            let errors: Vec<(String, Option<(usize, usize)>)> =
                diags.iter().map(|d| (format!("{}: {}", d.code, d.message), Some(d.line_col(&source)))).collect();
            let _ = write_stdout(&paces_report::sarif::error_log(&input.name, &errors));
        }
        if format == Format::Json {
            let errors = diags
                .iter()
                .map(|d| {
                    let (line, column) = d.line_col(&source);
                    serde_json::json!({"code": d.code, "message": d.message, "line": line, "column": column})
                })
                .collect();
            let _ = write_stdout(&error_json(&input.name, errors));
        }
        let text = paces_cwhile::render(&diags, &input.name, &source, use_color());
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let n = diags.len();
        let _ = writeln!(err, "paces: {}: {n} error{}", input.name, if n == 1 { "" } else { "s" });
        if input.guessed {
            let _ = writeln!(err, "paces: note: {}", guessed_note(input.lang));
        }
        Outcome::Failure
    })
}

/// What a parse error of an input whose language was guessed adds: the language it was read
/// as and the flag that chooses another.
fn guessed_note(lang: Lang) -> String {
    let (read_as, others) = match lang {
        Lang::Cwhile => ("Cwhile", "add --lang c or --lang pthread if it is C"),
        Lang::C => ("C (the paper's dialect)", "add --lang cwhile or --lang pthread if it is not"),
        Lang::Pthread => ("pthread C", "add --lang c or --lang cwhile if it is not"),
    };
    format!("the input was read as {read_as}, guessed from its text (its name has no .c or .cw ending): {others}")
}

/// Whether to colour stderr: only on a terminal, and never when `NO_COLOR` is set to a
/// non-empty value (<https://no-color.org>).
pub fn use_color() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color && std::io::stderr().is_terminal()
}

/// Writes a one-line error to stderr and returns [`Outcome::Failure`].
pub fn fail(message: &str) -> Outcome {
    let _ = writeln!(std::io::stderr().lock(), "paces: error: {message}");
    Outcome::Failure
}

/// As [`fail`]; with [`Format::Json`] the error also goes to stdout as a `paces-error/1`
/// document about `file`, with [`Format::Sarif`] as a SARIF log of an unsuccessful run.
pub fn fail_in(format: Format, file: &str, message: &str) -> Outcome {
    if format == Format::Json {
        let error = serde_json::json!({"code": null, "message": message, "line": null, "column": null});
        let _ = write_stdout(&error_json(file, vec![error]));
    }
    if format == Format::Sarif {
        let _ = write_stdout(&paces_report::sarif::error_log(file, &[(message.to_owned(), None)]));
    }
    fail(message)
}

/// Whether a command line asks for JSON (`--format json` or `--format=json`), read without
/// the argument parser (for the command lines it rejects).
pub fn json_requested(args: impl IntoIterator<Item = std::ffi::OsString>) -> bool {
    let mut previous_was_format = false;
    for arg in args {
        if arg == "--" {
            return false;
        }
        if (previous_was_format && arg == "json") || arg == "--format=json" {
            return true;
        }
        previous_was_format = arg == "--format";
    }
    false
}

/// Prints the `paces-error/1` document of a command line the argument parser rejects: no file
/// (`file` is empty), one error whose message is the parser's first paragraph (`rendered` up
/// to its first empty line, on one line, without the `error: ` prefix), or `kind` when that
/// is empty.
pub fn usage_error_json(kind: &str, rendered: &str) {
    let paragraph: Vec<&str> = rendered.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    let joined = paragraph.join(" ");
    let message = joined.strip_prefix("error: ").unwrap_or(&joined);
    let message = if message.is_empty() { kind } else { message };
    let error = serde_json::json!({"code": null, "message": message, "line": null, "column": null});
    let _ = write_stdout(&error_json("", vec![error]));
}

/// The `paces-error/1` document (docs/json.md): the input's name and its errors.
fn error_json(file: &str, errors: Vec<serde_json::Value>) -> String {
    let v = serde_json::json!({"schema": "paces-error/1", "file": file, "errors": errors});
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}

/// Writes text to stdout; a closed pipe (`paces fmt f | head`) is not an error.
pub fn write_stdout(text: &str) -> Outcome {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Outcome::Success,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Outcome::Success,
        Err(e) => fail(&format!("cannot write to standard output: {e}")),
    }
}

/// The path argument every file-reading subcommand takes.
pub type FileArg = PathBuf;

/// Output formats of `check` and `repair`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text for people.
    Text,
    /// JSON for tools (see docs/json.md).
    Json,
    /// SARIF 2.1.0 for code-review tools (see docs/sarif.md).
    Sarif,
}
