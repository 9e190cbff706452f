//! `paces fmt FILE`: canonical printing, comments kept.

use super::{load, write_stdout, FileArg, Format, Lang, Outcome};

/// Arguments of `paces fmt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program: Cwhile, C or pthread C (see --lang); `-` reads standard input.
    pub file: FileArg,
    /// Print no program: exit with 0 when the file is in canonical form, with 1 (and a note on
    /// stderr) when it is not.
    #[arg(long)]
    pub check: bool,
}

/// Runs `paces fmt`.
pub fn run(args: &Args, lang: Option<Lang>) -> Outcome {
    let (input, program) = match load(&args.file, lang, Format::Text) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    // A Cwhile file keeps its comments; a C model is printed as canonical Cwhile (its comments
    // are C text).
    let canonical = match (input.lang, std::str::from_utf8(&input.bytes)) {
        (Lang::Cwhile, Ok(source)) => paces_cwhile::Printer::new(&program).comments(source).print(),
        _ => paces_cwhile::Printer::new(&program).print(),
    };
    if args.check {
        if input.bytes == canonical.as_bytes() {
            Outcome::Success
        } else {
            eprintln!("paces: {}: not in canonical form (`paces fmt {}` prints it)", input.name, args.file.display());
            Outcome::No
        }
    } else {
        write_stdout(&canonical)
    }
}
