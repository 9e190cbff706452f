//! `paces fmt FILE`: canonical printing.

use super::{load, write_stdout, FileArg, Outcome};

/// Arguments of `paces fmt`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Cwhile file (`-` reads standard input).
    pub file: FileArg,
    /// Print nothing; exit with 1 when the file is not in canonical form.
    #[arg(long)]
    pub check: bool,
}

/// Runs `paces fmt`.
pub fn run(args: &Args) -> Outcome {
    let (input, program) = match load(&args.file) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    let canonical = paces_cwhile::print(&program);
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
