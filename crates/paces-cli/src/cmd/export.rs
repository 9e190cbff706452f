//! `paces export --promela FILE` and `paces export --c FILE`: translation to other languages.

use super::{fail, load, write_stdout, FileArg, Format, Outcome};

/// Arguments of `paces export`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write Promela for SPIN (see docs/language.md, "Promela export"); the target language is
    /// required.
    #[arg(long, conflicts_with = "c")]
    pub promela: bool,
    /// Write the program in the C dialect of the paper's tool (see docs/c-frontend.md).
    #[arg(long)]
    pub c: bool,
    /// The program: Cwhile, C or pthread C (see --lang); `-` reads standard input.
    pub file: FileArg,
}

/// Runs `paces export`.
pub fn run(args: &Args, lang: Option<super::Lang>) -> Outcome {
    if !args.promela && !args.c {
        return fail("export needs a target language: `paces export --promela FILE` or `paces export --c FILE`");
    }
    let (input, program) = match load(&args.file, lang, Format::Text) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    if args.c {
        return match paces_c::Printer::new(&program).print() {
            Ok(printed) => write_stdout(&printed.text),
            Err(e) => fail(&format!("{}: {e}", input.name)),
        };
    }
    match paces_cwhile::to_promela(&program, &String::from_utf8_lossy(&input.bytes)) {
        Ok(model) => write_stdout(&model),
        Err(e) => fail(&format!("{}: {e}", input.name)),
    }
}
