//! `paces export --promela FILE`: translation to other languages.

use super::{load, write_stdout, FileArg, Outcome};

/// Arguments of `paces export`.
#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("format").required(true))]
pub struct Args {
    /// Write Promela for SPIN (see docs/language.md, "Promela export").
    #[arg(long, group = "format")]
    pub promela: bool,
    /// The Cwhile file (`-` reads standard input).
    pub file: FileArg,
}

/// Runs `paces export`.
pub fn run(args: &Args) -> Outcome {
    let (_, program) = match load(&args.file) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    // `promela` is the only format so far; clap requires one of the group.
    debug_assert!(args.promela);
    write_stdout(&paces_cwhile::to_promela(&program))
}
