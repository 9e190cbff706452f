//! `paces check FILE`: the model checker's verdict and a readable trace.

use std::time::Duration;

use paces::cwhile::Program;
use paces::explore::{check, render_columns, Config, Verdict};

use super::{fail, load, write_stdout, FileArg, Format, Input, Outcome};

/// Arguments of `paces check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Cwhile file (`-` reads standard input).
    pub file: FileArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Bounds and switches of the checker.
    #[command(flatten)]
    pub bounds: CheckerArgs,
}

/// Checker flags shared by `check`, `repair` and `traces`.
#[derive(Debug, clap::Args)]
pub struct CheckerArgs {
    /// Stop after storing this many states (a clear "bound reached", never a hang).
    #[arg(long, default_value_t = Config::DEFAULT_MAX_STATES)]
    pub max_states: usize,
    /// Stop the checker after this many seconds.
    #[arg(long)]
    pub max_time: Option<f64>,
    /// Turn partial-order reduction off.
    #[arg(long)]
    pub no_por: bool,
    /// Unwind every loop at most N times per entry (like CBMC's --unwind); reported in the
    /// verdict. Default: exact.
    #[arg(long)]
    pub unwind: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

impl CheckerArgs {
    /// Reads and parses `file` and builds the checker configuration; failures are reported on
    /// stderr.
    pub fn load(&self, file: &std::path::Path) -> Result<(Input, Program, Config), Outcome> {
        let (input, program) = load(file)?;
        Ok((input, program, self.config()?))
    }

    /// The checker configuration these flags describe.
    pub fn config(&self) -> Result<Config, Outcome> {
        let mut c =
            Config::new().max_states(self.max_states).por(!self.no_por).unwind(self.unwind).threads(self.threads);
        if let Some(s) = self.max_time {
            if !(s.is_finite() && s > 0.0) {
                return Err(fail("--max-time takes a positive number of seconds"));
            }
            c = c.max_time(Some(Duration::from_secs_f64(s)));
        }
        Ok(c)
    }
}

/// Runs `paces check`: exit 0 when correct, 1 when a failure, deadlock or atomic livelock is
/// reachable, 2 on bad input, 3 when a bound was reached first.
pub fn run(args: &Args) -> Outcome {
    let (input, program, config) = match args.bounds.load(&args.file) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    let result = match check(&program, &config) {
        Ok(r) => r,
        Err(e) => return fail(&format!("{}: {e}", input.name)),
    };
    let outcome = match &result.verdict {
        Verdict::Correct => Outcome::Success,
        Verdict::BoundReached { .. } => Outcome::Inconclusive,
        _ => Outcome::No,
    };
    let cex = result.verdict.counterexample();
    let text = match args.format {
        Format::Text => {
            let mut s = format!("{}: {result}\n", input.name);
            if let Some(unwind) = result.unwind {
                s.push_str(&format!("note: loops unwound at most {unwind} times per entry (not an exact verdict)\n"));
            }
            if let Some(c) = cex {
                s.push('\n');
                s.push_str(&render_columns(&program, (&c.schedule).into(), c.failing_step));
            }
            s.push_str(&format!(
                "\n{} states, {} transitions, {:.3} s\n",
                result.states,
                result.transitions,
                result.time.as_secs_f64()
            ));
            s
        }
        Format::Json => {
            let v = serde_json::json!({
                "schema": "paces-check/1",
                "file": input.name,
                "verdict": result.verdict.name(),
                "message": result.to_string(),
                "trace": cex.map(|c| super::schedule_json(&c.schedule, c.failing_step)),
                "deadlock": match &result.verdict { Verdict::Deadlock(id, _) => Some(id.to_string()), _ => None },
                "livelock": match &result.verdict { Verdict::Livelock(id, _) => Some(id.to_string()), _ => None },
                "states": result.states,
                "transitions": result.transitions,
                "unwind": result.unwind,
                "time_ms": result.time.as_secs_f64() * 1000.0,
            });
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
        }
    };
    match write_stdout(&text) {
        Outcome::Success => outcome,
        other => other,
    }
}
