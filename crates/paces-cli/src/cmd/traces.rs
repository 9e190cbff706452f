//! `paces traces FILE`: the good traces mixed mode learns from, and the first bad trace.

use paces::explore::{check, search_good_traces, GoodConfig};

use super::check::CheckerArgs;
use super::{fail_in, write_stdout, FileArg, Format, Outcome};

/// Output formats of `paces traces` (no SARIF: its traces are no findings).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TracesFormat {
    /// Text for people.
    Text,
    /// JSON for tools (see docs/json.md).
    Json,
}

impl From<TracesFormat> for Format {
    fn from(f: TracesFormat) -> Format {
        match f {
            TracesFormat::Text => Format::Text,
            TracesFormat::Json => Format::Json,
        }
    }
}

/// Arguments of `paces traces`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program: Cwhile, C or pthread C (see --lang); `-` reads standard input.
    pub file: FileArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: TracesFormat,
    /// Good traces per assertion (distinct writer combinations).
    #[arg(long, allow_negative_numbers = true, default_value_t = paces::explore::GoodConfig::DEFAULT_PER_ASSERTION)]
    pub per_assertion: usize,
    /// The most steps each of the good-trace search's three enumerations takes (raise it when
    /// the summary says the search stopped at its step bound).
    #[arg(long, allow_negative_numbers = true, default_value_t = paces::explore::GoodConfig::DEFAULT_MAX_STEPS)]
    pub good_steps: usize,
    /// Bounds and switches of the checker (for the bad trace).
    #[command(flatten)]
    pub bounds: CheckerArgs,
}

/// Runs `paces traces`: exit 0 when the traces are listed (whatever the verdict), 2 on bad
/// input or usage.
pub fn run(args: &Args, lang: Option<super::Lang>) -> Outcome {
    let started = std::time::Instant::now();
    let (input, program, config) = match args.bounds.load(&args.file, lang, args.format.into()) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    // Validated by the load: a limit is a positive number here.
    let left = args.bounds.time_left(started).unwrap_or_default();
    let found = match search_good_traces(
        &program,
        &GoodConfig::new().per_assertion(args.per_assertion).max_steps(args.good_steps).max_time(left),
    ) {
        Ok(g) => g,
        Err(e) => return fail_in(args.format.into(), &input.name, &format!("{}: {e}", input.name)),
    };
    let good = &found.traces;
    // The check has what the good-trace search left of the time limit.
    let config = config.max_time(args.bounds.time_left(started).unwrap_or_default());
    let result = match check(&program, &config) {
        Ok(r) => r,
        Err(e) => return fail_in(args.format.into(), &input.name, &format!("{}: {e}", input.name)),
    };
    let text = match args.format {
        TracesFormat::Text => paces_report::check::traces_text(&program, good, &found.bounds, &result),
        TracesFormat::Json => paces_report::check::traces_json(&input.name, &program, good, &found.bounds, &result),
    };
    write_stdout(&text)
}
