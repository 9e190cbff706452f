//! `paces check FILE`: the model checker's verdict and a readable trace.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use paces::cwhile::Program;
use paces::explore::{check, CheckResult, Config, Verdict};

use super::progress::{progress_text, StatusLine};
use super::{fail_in, write_stdout, FileArg, Format, Input, Lang, Outcome};

/// Arguments of `paces check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program: Cwhile, C or pthread C (see --lang); `-` reads standard input.
    pub file: FileArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Explore every state and list every failing assertion, deadlock and atomic livelock,
    /// each with a shortest witness trace.
    #[arg(long)]
    pub all: bool,
    /// With --all, also list the program's outcomes: the values of the globals where every
    /// thread is at its end or idle at a loop it may leave (a repair adds none).
    #[arg(long, requires = "all")]
    pub outcomes: bool,
    /// Write the verdict as one self-contained HTML page to this file, each counterexample
    /// drawn one column per thread with its partial order.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Write nothing on stderr but errors (`check` writes only its progress line there, and
    /// only when stderr is a terminal).
    #[arg(short, long)]
    pub quiet: bool,
    /// Bounds and switches of the checker.
    #[command(flatten)]
    pub bounds: CheckerArgs,
}

/// The default of `--max-memory`: the checker's default in MiB.
const MIB_DEFAULT_MAX_MEMORY: u64 = (Config::DEFAULT_MAX_MEMORY >> 20) as u64;

/// Checker flags shared by `check`, `repair` and `traces`.
#[derive(Debug, clap::Args)]
pub struct CheckerArgs {
    /// Stop after storing this many states (a clear "bound reached", never a hang).
    #[arg(long, default_value_t = Config::DEFAULT_MAX_STATES, allow_negative_numbers = true)]
    pub max_states: usize,
    /// Stop after this many seconds, counted from the command's start (reading the program
    /// included) and covering all its work (reported as "time limit" or a time bound).
    #[arg(long, alias = "max-time", allow_negative_numbers = true)]
    pub time_limit: Option<f64>,
    /// Stop the checker when its stored states take this many MiB (a clear "memory bound").
    #[arg(long, default_value_t = MIB_DEFAULT_MAX_MEMORY, allow_negative_numbers = true)]
    pub max_memory: u64,
    /// Turn partial-order reduction off.
    #[arg(long)]
    pub no_por: bool,
    /// Unwind every loop at most N times per entry (like CBMC's --unwind); reported in the
    /// verdict. Default: exact.
    #[arg(long, allow_negative_numbers = true)]
    pub unwind: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// The values a pthread C `__VERIFIER_nondet_*()` stands for, `LO..HI` (both included);
    /// a "correct" that depends on them is reported as bounded (exit 3).
    #[arg(long, value_name = "LO..HI", value_parser = nondet_range)]
    pub nondet_range: Option<(i64, i64)>,
    /// The rounds a pthread C loop that creates threads runs when it has no constant bound
    /// (`while (1) { pthread_create(...); }`); a path on which it would run once more is cut,
    /// and a "correct" is reported as bounded (exit 3). Default: 2.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub thread_rounds: Option<usize>,
}

/// Reads `LO..HI` with `LO <= HI` and at most 1024 values.
fn nondet_range(s: &str) -> Result<(i64, i64), String> {
    let (lo, hi) = s.split_once("..").ok_or("expected LO..HI, such as 0..3")?;
    let lo: i64 = lo.trim().parse().map_err(|_| format!("`{lo}` is not an integer"))?;
    let hi: i64 = hi.trim().parse().map_err(|_| format!("`{hi}` is not an integer"))?;
    if lo > hi || hi.abs_diff(lo) >= 1024 {
        return Err("the range must be LO..HI with LO <= HI and at most 1024 values".to_owned());
    }
    Ok((lo, hi))
}

impl CheckerArgs {
    /// Reads and parses `file` and builds the checker configuration; failures are reported on
    /// stderr (and as JSON on stdout in `format` JSON).
    pub fn load(
        &self,
        file: &std::path::Path,
        lang: Option<Lang>,
        format: Format,
    ) -> Result<(Input, Program, Config), Outcome> {
        self.load_bounded(file, lang, format).map(|(i, p, c, _)| (i, p, c))
    }

    /// As [`CheckerArgs::load`]; also the bounds the frontend put on the program (pthread C's
    /// range of nondeterministic values), each a sentence.
    pub fn load_bounded(
        &self,
        file: &std::path::Path,
        lang: Option<Lang>,
        format: Format,
    ) -> Result<(Input, Program, Config, Vec<String>), Outcome> {
        let started = Instant::now();
        let input =
            super::read_input(file, lang).map_err(|message| fail_in(format, &file.display().to_string(), &message))?;
        let options = self.pthread_options(file);
        let (program, bounds) = super::parse_bounded(&input, format, &options)?;
        let config = self.config(started).map_err(|message| fail_in(format, &input.name, message))?;
        Ok((input, program, config, bounds))
    }

    /// How these flags read `file` as pthread C: the nondet range, the rounds of loops that
    /// create threads, and the file's directory for `#include "name"`.
    pub fn pthread_options(&self, file: &std::path::Path) -> paces_c::pthread::Options {
        let mut options = paces_c::pthread::Options::default();
        if let Some(range) = self.nondet_range {
            options.nondet = range;
        }
        if let Some(k) = self.thread_rounds {
            options.thread_rounds = k;
        }
        if file != std::path::Path::new("-") {
            options.include_dir = file.parent().map(std::path::Path::to_path_buf);
        }
        options
    }

    /// The checker configuration these flags describe for a command that started at
    /// `started`, or what is wrong with them.
    pub fn config(&self, started: Instant) -> Result<Config, &'static str> {
        if self.max_memory == 0 {
            return Err("--max-memory takes a positive number of MiB");
        }
        let bytes = usize::try_from(self.max_memory.saturating_mul(1 << 20)).unwrap_or(usize::MAX);
        let mut c = Config::new()
            .max_states(self.max_states)
            .max_memory(bytes)
            .por(!self.no_por)
            .unwind(self.unwind)
            .threads(self.threads);
        if let Some(left) = self.time_left(started)? {
            c = c.max_time(Some(left));
        }
        Ok(c)
    }

    /// The time `--time-limit` leaves after what has passed since `started` (at least a
    /// millisecond); `None` without a limit; an error for a limit that is no positive number.
    pub fn time_left(&self, started: Instant) -> Result<Option<Duration>, &'static str> {
        match self.time_limit {
            None => Ok(None),
            Some(s) if s.is_finite() && s > 0.0 => {
                Ok(Some(Duration::from_secs_f64(s).saturating_sub(started.elapsed()).max(Duration::from_millis(1))))
            }
            Some(_) => Err("--time-limit takes a positive number of seconds"),
        }
    }
}

/// Checks `program`, with a progress line on stderr while it runs when `status` is wanted and
/// stderr is a terminal (cleared before the answer is printed).
fn check_with_status(
    program: &Program,
    config: Config,
    name: &str,
    status: bool,
) -> Result<CheckResult, paces::explore::Error> {
    let Some(line) = StatusLine::on_terminal(status) else { return check(program, &config) };
    let (drawer, name) = (line.clone(), name.to_owned());
    let config = config.on_progress(move |p| drawer.draw(&format!("paces: {name}: {}", progress_text(p))));
    let result = check(program, &config);
    line.clear();
    result
}

/// Runs `paces check` (with `--all`, lists everything found): exit 0 when correct, 1 when a
/// failure, deadlock or atomic livelock is reachable, 2 on bad input, 3 when a bound was reached first or "correct" holds only within
/// the loop bound that some path hit (`--unwind`).
pub fn run(args: &Args, lang: Option<Lang>) -> Outcome {
    let (input, program, config, bounds) = match args.bounds.load_bounded(&args.file, lang, args.format) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    if let Some(Err(message)) = args.report.as_deref().map(super::html::check_writable) {
        return fail_in(args.format, &input.name, &message);
    }
    let config = config.stop_at_first_failure(!args.all).outcomes(args.outcomes);
    let result = match check_with_status(&program, config, &input.name, !args.quiet) {
        Ok(r) => r,
        Err(e) => return fail_in(args.format, &input.name, &format!("{}: {e}", input.name)),
    };
    if let Some(path) = &args.report {
        if let Err(message) = super::html::write_check(path, &input, &program, &result) {
            return fail_in(args.format, &input.name, &message);
        }
    }
    let outcome = match &result.verdict {
        Verdict::Correct if result.unwind_reached || !bounds.is_empty() => Outcome::Inconclusive,
        Verdict::Correct => Outcome::Success,
        Verdict::BoundReached { .. } => Outcome::Inconclusive,
        _ => Outcome::No,
    };
    let text = match (args.format, args.all) {
        (Format::Sarif, all) => {
            let source_text = String::from_utf8_lossy(&input.bytes);
            let source = super::html::source(&input, &source_text);
            paces_report::sarif::check_log(&source, &program, &result, all)
        }
        (Format::Text, true) => paces_report::check::all_text(&input.name, &program, &result, args.outcomes),
        (Format::Json, true) => paces_report::check::all_json(&input.name, &program, &result, args.outcomes),
        (Format::Text, false) => paces_report::check::check_text(&input.name, &program, &result, &bounds),
        (Format::Json, false) => paces_report::check::check_json(&input.name, &program, &result, &bounds),
    };
    match write_stdout(&text) {
        Outcome::Success => outcome,
        other => other,
    }
}
