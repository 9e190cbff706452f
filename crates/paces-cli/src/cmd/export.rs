//! `paces export --promela FILE`: translation to other languages.

use super::{fail, load, write_stdout, FileArg, Format, Outcome};

/// Arguments of `paces export`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write Promela for SPIN (see docs/language.md, "Promela export"); the target language is
    /// required.
    #[arg(long)]
    pub promela: bool,
    /// The Cwhile file (`-` reads standard input).
    pub file: FileArg,
}

/// Runs `paces export`.
pub fn run(args: &Args) -> Outcome {
    if !args.promela {
        return fail("export needs a target language: `paces export --promela FILE`");
    }
    let (input, program) = match load(&args.file, Format::Text) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    match paces_cwhile::to_promela(&program, &String::from_utf8_lossy(&input.bytes)) {
        Ok(model) => write_stdout(&model),
        Err(e) => fail(&format!("{}: {e}", input.name)),
    }
}
