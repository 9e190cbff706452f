//! The `paces` command line: repairs, model-checks, formats and exports Cwhile programs, and
//! shows the traces the repair loop learns from.
//!
//! Each subcommand lives in its own module under `cmd/` and returns a [`cmd::Outcome`];
//! this file only parses arguments, dispatches and turns the outcome into an exit code:
//! 0 success, 1 a negative answer (a bug remains, or `fmt --check` on a file that is not
//! canonical), 2 bad input or usage, 3 no exact answer (`check` reached a bound first, or
//! "correct" or "repaired" holds only within a loop bound that some path hit).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// The allocator: glibc's spends most of reading a large C file in consolidating its free
/// lists, which made reading grow faster than the input (docs/evaluation.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Regression-free repair of concurrent programs.
#[derive(Debug, Parser)]
#[command(
    name = "paces",
    version,
    about,
    propagate_version = true,
    disable_help_subcommand = true,
    after_help = "Examples:\n  paces repair examples/paper1.cw             repair, program on stdout, summary on stderr\n  paces repair prog.cw -o fixed.cw --verbose  write the repair to a file, print each iteration as it ends\n  paces repair prog.cw --mode bad-only --format json\n  paces check prog.cw                         verdict and a trace, one column per thread\n  paces check --all prog.cw                   every failure, deadlock and livelock, with traces\n  paces traces prog.cw                        the traces the loop learns from\n  paces fmt --check prog.cw                   exit 1 when not in canonical form\n  paces export --promela prog.cw > prog.pml\n\nExit codes: 0 success (repaired, correct, canonical; traces listed), 1 a bug remains or\nthe answer is no (repair, check, fmt --check), 2 bad input or usage, 3 no exact answer:\ncheck reached a bound first, or correct (check) or repaired (repair) only within the\n--unwind bound. See docs/user-guide.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The input language (default: C or pthread C for a name ending in `.c`, Cwhile for `.cw`,
    /// else, standard input too, by the text's first word: `var`, `thread`, `proc` Cwhile).
    #[arg(long, global = true, value_enum)]
    lang: Option<cmd::Lang>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a program as canonical Cwhile (every label explicit).
    Fmt(cmd::fmt::Args),
    /// Translate a program to Promela or C.
    Export(cmd::export::Args),
    /// Model-check a program: the verdict and a readable trace.
    Check(cmd::check::Args),
    /// Repair a program: reorder statements and add atomic sections until no assertion fails.
    Repair(Box<cmd::repair::Args>),
    /// Show the good traces mixed mode learns from, and the first bad trace.
    Traces(cmd::traces::Args),
    /// Print this message or the help of the given subcommand.
    Help {
        /// The subcommand to explain.
        command: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let outcome = match cli.command {
        Command::Fmt(args) => cmd::fmt::run(&args, cli.lang),
        Command::Export(args) => cmd::export::run(&args, cli.lang),
        Command::Check(args) => cmd::check::run(&args, cli.lang),
        Command::Repair(args) => cmd::repair::run(&args, cli.lang),
        Command::Traces(args) => cmd::traces::run(&args, cli.lang),
        Command::Help { command } => help(command.as_deref()),
    };
    outcome.exit_code()
}

/// Reports a command line the parser rejects (or `--help`/`--version`, which it prints and exits
/// 0 for): the parser's text on stderr, and with `--format json` on the command line also a
/// `paces-error/1` document on stdout; exit 2.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    if cmd::json_requested(std::env::args_os().skip(1)) {
        cmd::usage_error_json(&e.kind().to_string(), &e.to_string());
    }
    let _ = e.print();
    cmd::Outcome::Failure.exit_code()
}

/// `paces help [COMMAND]`: the long help of the program or of one subcommand (a subcommand of
/// its own rather than clap's built-in one, so that `paces help --help` works like every other
/// `--help`).
fn help(command: Option<&str>) -> cmd::Outcome {
    use clap::CommandFactory;
    if let Some(name) = command {
        if Cli::command().find_subcommand(name).is_none() {
            eprintln!("paces: no subcommand `{name}` (see `paces --help`)");
            return cmd::Outcome::Failure;
        }
    }
    let args = std::iter::once("paces").chain(command).chain(std::iter::once("--help"));
    match Cli::try_parse_from(args) {
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => match e.print() {
            Ok(()) => cmd::Outcome::Success,
            Err(_) => cmd::Outcome::Failure,
        },
        _ => cmd::Outcome::Failure,
    }
}
