//! `paces fmt FILE`: canonical printing of Cwhile, comments and written labels kept; a C
//! file is read and printed as written.

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
    // A Cwhile file keeps its comments and is labelled where its author labelled it (and where
    // reading the text back needs a label); a C file stays C: once it reads, it is printed as
    // written (its layout is its author's, and C is never turned into Cwhile here).
    let canonical = match (input.lang, std::str::from_utf8(&input.bytes)) {
        (Lang::Cwhile, Ok(source)) => paces_cwhile::Printer::new(&program).labels(&[]).comments(source).print(),
        (_, Ok(source)) => source.to_owned(),
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
