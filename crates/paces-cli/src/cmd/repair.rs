//! `paces repair FILE`: the repair loop; the repaired program on stdout, a summary on stderr.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use paces::{Mode, Repair, RepairEvent, Report};
use paces_report::json::{Printed, RepairDocument};
use paces_report::text::{self, Times};

use super::check::CheckerArgs;
use super::progress::{print_line, progress_text, StatusLine};
use super::{fail, fail_in, write_stdout, FileArg, Format, Outcome};

/// Which loop to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// PACES: learn from good traces too (default).
    Mixed,
    /// The CEGIS baseline: counterexamples only.
    BadOnly,
}

/// Which LearnGoodUnder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LearnArg {
    /// The paper's Algorithm 1 (recursive data flow, non-free orders, all covers).
    Full,
    /// The original tool's: direct reads-from, no non-free orders, one cover.
    Simplified,
}

/// Arguments of `paces repair`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The program: Cwhile, C or pthread C (see --lang); `-` reads standard input.
    pub file: FileArg,
    /// Write the repaired program to this file (in every format; with text the program then
    /// leaves stdout). Checked for writing before the repair starts.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// mixed (PACES) or bad-only (CEGIS).
    #[arg(long, value_enum, default_value = "mixed")]
    pub mode: ModeArg,
    /// Output format: text (the program on stdout, the summary on stderr), json (one JSON
    /// document on stdout, see docs/json.md) or sarif (a SARIF 2.1.0 log on stdout: what the
    /// original fails, the repair as fixes; see docs/sarif.md).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write every trace graph, partial order and fix cycle as DOT files into this folder.
    #[arg(long)]
    pub dot: Option<PathBuf>,
    /// Write the repair as one self-contained HTML page to this file: the diff, each iteration
    /// with its traces drawn one column per thread, the graphs of each bad trace, the acceptance.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
    /// Write nothing on stderr but errors: no summary, no progress line.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print each iteration on stderr as it ends (before the summary), and the diff.
    #[arg(short, long)]
    pub verbose: bool,
    /// The most bad-trace rounds.
    #[arg(long, allow_negative_numbers = true, default_value_t = Repair::DEFAULT_MAX_ITERATIONS)]
    pub max_iterations: usize,
    /// The most constraint edges per elimination cycle (K).
    #[arg(short = 'k', long, allow_negative_numbers = true, default_value_t = paces::LearnerConfig::DEFAULT_MAX_CONSTRAINT_EDGES)]
    pub max_constraint_edges: usize,
    /// How far K grows for a bad trace whose fixes conflict with the other constraints.
    #[arg(long, allow_negative_numbers = true, default_value_t = paces::LearnerConfig::DEFAULT_DEEPEN_TO)]
    pub deepen_to: usize,
    /// Which LearnGoodUnder to use.
    #[arg(long, value_enum, default_value = "full")]
    pub learn: LearnArg,
    /// Turn LearnGoodUnder's fallback off (as the original tool did).
    #[arg(long)]
    pub no_fallback: bool,
    /// Keep constraints stronger than what is known when they conflict with the others: a good
    /// trace's fallback (by default relaxed to the trace's covered edges), a bad trace's fixes
    /// (by default searched again with a larger K) and a new deadlock's guess (by default
    /// dropped); the checker judges every candidate either way.
    #[arg(long)]
    pub no_relax: bool,
    /// The most MiB the tables of one bad trace's elimination graph may take; a bad trace
    /// past it stops the run with "bound reached".
    #[arg(long, value_name = "MIB", default_value_t = paces::LearnerConfig::DEFAULT_MAX_ELIMINATION_MEMORY >> 20)]
    pub max_elimination_memory: u64,
    /// Stop at the loop's first repair: no optimisation phase looking for a cheaper one (the
    /// summary's "cost" line then says nothing of optimality).
    #[arg(long)]
    pub no_optimise: bool,
    /// Keep the original program's deadlocks (the paper's behaviour): a repair may keep them and
    /// is refused only for a new one. Without it the assertions are repaired first with the
    /// original's deadlocks kept, then each deadlock the repair still reaches is removed where
    /// a program of the space removes it and kept (listed with the reason) where none does; a
    /// repair that keeps some exits 1.
    #[arg(long)]
    pub keep_deadlocks: bool,
    /// Good traces per assertion (distinct writer combinations).
    #[arg(long, allow_negative_numbers = true, default_value_t = paces::explore::GoodConfig::DEFAULT_PER_ASSERTION)]
    pub per_assertion: usize,
    /// The most steps each of the good-trace search's three enumerations takes (raise it when
    /// the summary says the search stopped at its step bound).
    #[arg(long, allow_negative_numbers = true, default_value_t = paces::explore::GoodConfig::DEFAULT_MAX_STEPS)]
    pub good_steps: usize,
    /// Find a cheapest repair by brute force instead of the loop: every candidate of the space
    /// in cost order, each judged by the checker as the loop judges its candidates. Refuses a
    /// space with more candidates than --exhaustive-limit.
    #[arg(long)]
    pub exhaustive: bool,
    /// The most candidates a space may have for --exhaustive.
    #[arg(long, requires = "exhaustive", default_value_t = Repair::DEFAULT_EXHAUSTIVE_LIMIT)]
    pub exhaustive_limit: usize,
    /// States the depth-first bug hunt may store in each check (of the original or a candidate)
    /// whose failure the first breadth-first search misses; its bad trace is then cut to the failure's causes, not a
    /// shortest one; the optimisation phase's checks hunt for at least as many states as the repair's own checks
    /// stored. 0: no hunt (every bad trace a shortest one).
    #[arg(long, default_value_t = Repair::DEFAULT_HUNT_STATES)]
    pub hunt_states: usize,
    /// The most bad traces one check gives the loop to learn from before it proposes again: a
    /// failing assertion's and, found by a second search of at most 50,000 states (no more than the first check's), those of
    /// other failing assertions (one each). 1: the first failure's alone.
    #[arg(long, default_value_t = Repair::DEFAULT_COUNTEREXAMPLES)]
    pub counterexamples: usize,
    /// Do not learn, per check, from the first failing assertion failing through other threads
    /// (the same race between other workers, which the bug hunt searches for by default): a
    /// race between workers that differ then takes an iteration per pair of them
    /// (docs/loop.md, "Several counterexamples").
    #[arg(long)]
    pub no_other_threads: bool,
    /// Bounds and switches of the checker.
    #[command(flatten)]
    pub bounds: CheckerArgs,
}

/// The repair written as the input's source with only the changed blocks rewritten, comments
/// and layout kept, when repaired or already correct (the source itself then):
/// [`paces::cwhile::Printer::splice`] for a Cwhile input, [`paces_c::Printer::splice`] for a
/// C input, [`paces_c::pthread::Printer::splice`] for pthread C. `None` otherwise, or when the source's layout does not allow it: the canonical
/// Cwhile text is printed then.
fn preserved(
    input: &super::Input,
    program: &paces::cwhile::Program,
    report: &Report,
    options: &paces_c::pthread::Options,
) -> Option<String> {
    if !matches!(report.stop, paces::StopReason::Repaired | paces::StopReason::AlreadyCorrect) {
        return None;
    }
    let source = std::str::from_utf8(&input.bytes).ok()?;
    let repaired = report.repaired.as_ref()?;
    match input.lang {
        super::Lang::Cwhile => {
            paces::cwhile::Printer::new(repaired).labels(&report.named_labels()).splice(source, program)
        }
        super::Lang::C => paces_c::Printer::new(repaired).splice(source, program),
        super::Lang::Pthread => paces_c::pthread::Printer::new(repaired).options(options).splice(source, program),
    }
}

/// What a run says (even with `--quiet`) when a C file's repair cannot be written in its C.
const NOT_IN_C: &str = "  error: the repair cannot be written into this C source (see docs/c-frontend.md, \"The repaired program\"): no program is written (exit 1); the changes above say what to change by hand\n";

/// The summary's note when a Cwhile program's repair is printed in canonical layout.
const CANONICAL: &str = "  note: the source's layout cannot take the repair (a changed block has two statements on one line): the repaired program is printed in canonical layout, with the source's comments\n";

/// Runs `paces repair`: exit 0 when repaired or already correct, 1 when no repair was found
/// or the repair keeps deadlocks of the original without --keep-deadlocks (a bug remains), 2 on bad input or usage, 3 when repaired or already correct only within
/// the `--unwind` loop bound that some path hit or a bound of the frontend's model (the range
/// of nondeterministic values).
pub fn run(args: &Args, lang: Option<super::Lang>) -> Outcome {
    // The time limit counts from here: reading a long program is part of the run.
    let started = std::time::Instant::now();
    let (input, program, checker, bounds) = match args.bounds.load_bounded(&args.file, lang, args.format) {
        Ok(loaded) => loaded,
        Err(o) => return o,
    };
    let read = started.elapsed();
    let time_limit = match args.bounds.time_left(started) {
        Ok(left) => left,
        Err(message) => return fail_in(args.format, &input.name, message),
    };
    if let Err(message) = check_destinations(args) {
        return fail_in(args.format, &input.name, &message);
    }
    let mut repair = configure(args, checker, time_limit);
    if input.lang == super::Lang::Pthread {
        // A repair that makes a check read what no thread has written yet is no repair.
        repair = repair.refuse_when(paces_c::pthread::stale_checks);
    }
    let status = StatusLine::on_terminal(!args.quiet);
    if let Some(line) = &status {
        line.draw(&format!("paces: repairing {} ...", input.name));
    }
    let verbose = args.verbose && args.format == Format::Text;
    let threads: Vec<String> =
        (0..program.threads.len()).filter_map(|t| program.thread_name(t)).map(str::to_owned).collect();
    let repair = repair.on_event(observer(&input.name, threads, &program, status.clone(), verbose));
    let outcome = if args.exhaustive { repair.optimum(&program) } else { repair.run(&program) };
    if let Some(line) = &status {
        line.clear();
    }
    let report = match outcome {
        Ok(r) => r,
        Err(e) => return fail_in(args.format, &input.name, &format!("{}: {e}", input.name)),
    };
    if let Some(dir) = &args.dot {
        if let Err(e) = write_dots(dir, &paces_report::dot_files(&report)) {
            return fail_in(args.format, &input.name, &format!("cannot write DOT files to `{}`: {e}", dir.display()));
        }
    }
    // A repair that keeps deadlocks of the original is printed, but a bug remains (exit 1)
    // unless --keep-deadlocks asked for that.
    let success = !report.bug_remains();
    let kept = preserved(&input, &program, &report, &args.bounds.pthread_options(&args.file));
    let in_source_text = kept.is_some();
    // A C file whose repair cannot be written into its source gets no program (C stays C:
    // never Cwhile in a `.c` file); the run says so and exits 1.
    let layout_lost = kept.is_none()
        && report.repaired.is_some()
        && matches!(report.stop, paces::StopReason::Repaired | paces::StopReason::AlreadyCorrect);
    let not_c = layout_lost && matches!(input.lang, super::Lang::C | super::Lang::Pthread);
    let printed = match (kept, &report.repaired, std::str::from_utf8(&input.bytes)) {
        (Some(text), _, _) => Some(text),
        _ if not_c => None,
        // The fallback keeps every comment of the source, as `paces fmt` does.
        (None, Some(repaired), Ok(source)) if layout_lost => {
            Some(paces::cwhile::Printer::new(repaired).labels(&report.named_labels()).comments(source).print())
        }
        // Printed only when needed: a long program takes a while.
        _ => report.repaired_text(),
    };
    if let Some(path) = &args.report {
        if let Err(message) = super::html::write_repair(path, &input, &report, printed.as_deref(), in_source_text) {
            return fail_in(args.format, &input.name, &message);
        }
    }
    // SARIF lists what the original fails: every bug, from a check of its own.
    let original = match args.format {
        Format::Sarif => match check_original(args, &program, started) {
            Ok(result) => Some(result),
            Err(message) => return fail_in(args.format, &input.name, &message),
        },
        _ => None,
    };
    let times = Times::of(&report, read, started.elapsed());
    let layout = Layout { lost: layout_lost, not_c };
    let done = Done { report: &report, printed: printed.as_deref(), times: &times, original };
    let written = emit(args, &input, &program, &done, layout, success, &bounds);
    match written {
        Outcome::Success if not_c => Outcome::No,
        Outcome::Success if success && (report.unwind_reached || !bounds.is_empty()) => Outcome::Inconclusive,
        Outcome::Success if success => Outcome::Success,
        Outcome::Success => Outcome::No,
        other => other,
    }
}

/// The repair loop `args` ask for, with the model checker's `checker` and the `time_limit` left.
fn configure(args: &Args, checker: paces::explore::Config, time_limit: Option<Duration>) -> Repair {
    Repair::new()
        .mode(match args.mode {
            ModeArg::Mixed => Mode::Mixed,
            ModeArg::BadOnly => Mode::BadOnly,
        })
        .checker(checker)
        .time_limit(time_limit)
        .max_iterations(args.max_iterations)
        .max_constraint_edges(args.max_constraint_edges)
        .deepen_to(args.deepen_to)
        .variant(match args.learn {
            LearnArg::Full => paces::trace::Variant::Full,
            LearnArg::Simplified => paces::trace::Variant::Simplified,
        })
        .fallback(!args.no_fallback)
        .relax_on_conflict(!args.no_relax)
        .max_elimination_memory(args.max_elimination_memory.saturating_mul(1 << 20))
        .optimise(!args.no_optimise)
        .keep_deadlocks(args.keep_deadlocks)
        .good_traces(paces::explore::GoodConfig::new().per_assertion(args.per_assertion).max_steps(args.good_steps))
        .record_traces(args.dot.is_some() || args.report.is_some())
        .exhaustive_limit(args.exhaustive_limit)
        .hunt_states(args.hunt_states)
        .counterexamples(args.counterexamples)
        .other_threads(!args.no_other_threads)
}

/// A check of `program` as the flags of `args` configure the checker, with what is left of
/// the time limit since `started`, that goes on past the first bug: every failing assertion,
/// deadlock and atomic livelock of the original, for the SARIF log. The error in words.
fn check_original(
    args: &Args,
    program: &paces::cwhile::Program,
    started: std::time::Instant,
) -> Result<paces::explore::CheckResult, String> {
    let config = args.bounds.config(started)?.stop_at_first_failure(false);
    paces::explore::check(program, &config).map_err(|e| format!("{}: {e}", args.file.display()))
}

/// What a run of the loop gives to write out.
struct Done<'a> {
    /// The loop's report.
    report: &'a Report,
    /// The repaired program as printed (`None`: there is none).
    printed: Option<&'a str>,
    /// The run's times.
    times: &'a Times,
    /// With `--format sarif`: a check of the original that lists every bug.
    original: Option<paces::explore::CheckResult>,
}

/// How the repaired program's text relates to the source's layout.
#[derive(Clone, Copy)]
struct Layout {
    /// The source's layout could not be kept: the program is printed canonically.
    lost: bool,
    /// A C file whose repair C cannot hold: no program is written.
    not_c: bool,
}

/// Writes the repaired program (to `--output` or stdout) and the summary, JSON report or SARIF
/// log of the run `done`; the outcome of the writing (`success` and the model's `bounds` shape
/// the summary's notes).
fn emit(
    args: &Args,
    input: &super::Input,
    program: &paces::cwhile::Program,
    done: &Done<'_>,
    layout: Layout,
    success: bool,
    bounds: &[String],
) -> Outcome {
    let (report, printed, times) = (done.report, done.printed, done.times);
    let written = match (printed, &args.output) {
        (Some(text), Some(path)) => match std::fs::write(path, text) {
            Ok(()) => Outcome::Success,
            Err(e) => fail_in(args.format, &input.name, &format!("cannot write `{}`: {e}", path.display())),
        },
        _ => Outcome::Success,
    };
    match (written, args.format) {
        (Outcome::Success, Format::Json) => {
            let printed = Printed { file: &input.name, program: printed, layout_kept: !layout.lost };
            write_stdout(&RepairDocument::new(program, report, times, printed).to_json())
        }
        (Outcome::Success, Format::Sarif) => {
            let Some(check) = &done.original else { return fail("no check of the original for the SARIF log") };
            let text = String::from_utf8_lossy(&input.bytes);
            // A C file whose repair C cannot hold gets no fix (nothing is written).
            let fix = printed.filter(|_| !layout.not_c);
            write_stdout(&paces_report::sarif::repair_log(&super::html::source(input, &text), check, report, fix))
        }
        (Outcome::Success, Format::Text) => {
            if args.quiet && layout.not_c {
                let _ = std::io::stderr().lock().write_all(format!("paces: {}:\n{NOT_IN_C}", input.name).as_bytes());
            }
            if !args.quiet {
                // The diff is of the input's own text where the layout is kept (C stays C).
                let source = String::from_utf8_lossy(&input.bytes);
                let own = printed.filter(|_| !layout.lost && !layout.not_c);
                let mut text = text::summary(&input.name, report, times, args.verbose && own.is_none());
                if let (true, Some(printed)) = (args.verbose, own) {
                    text.push_str(&text::diff_lines(&text::source_diff(report, &source, printed)));
                }
                if layout.not_c {
                    text.push_str(NOT_IN_C);
                } else if layout.lost {
                    text.push_str(CANONICAL);
                }
                if success && !layout.not_c {
                    for b in bounds {
                        text.push_str(&format!("  note: this holds only within a bound of the model: {b} (exit 3)\n"));
                    }
                }
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
            match (printed, &args.output) {
                (Some(text), None) => write_stdout(text),
                _ => Outcome::Success,
            }
        }
        (other, _) => other,
    }
}

/// What the repair tells as it runs: each check's progress on the status line (when there is
/// one), and with `verbose` each iteration on stderr when the iteration ends (its line, then its
/// trace as a chart whose columns are the program's `threads`).
fn observer(
    name: &str,
    threads: Vec<String>,
    program: &paces::cwhile::Program,
    status: Option<Arc<StatusLine>>,
    verbose: bool,
) -> impl Fn(&RepairEvent) + Send + Sync + 'static {
    let name = name.to_owned();
    let space = program.space();
    let program = program.clone();
    move |event| match event {
        RepairEvent::Progress { iteration, progress, .. } => {
            if let Some(line) = &status {
                let stage = match iteration {
                    0 => "the original".to_owned(),
                    n => format!("iteration {n}"),
                };
                line.draw(&format!("paces: {name}: {stage}: {}", progress_text(progress)));
            }
        }
        RepairEvent::IterationEnded { iteration, record, .. } if verbose => {
            let text =
                format!("paces: {name}: {}", text::iteration_text(*iteration, record, &program, &space, &threads));
            print_line(status.as_deref(), &text);
        }
        _ => {}
    }
}

/// Checks, before the repair starts, that `-o` names a file that can be written (an existing
/// file is opened without truncating it; a new one is created and removed again) and creates
/// the `--dot` folder.
fn check_destinations(args: &Args) -> Result<(), String> {
    for path in args.output.iter().chain(&args.report) {
        super::html::check_writable(path)?;
    }
    if let Some(dir) = &args.dot {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot write DOT files to `{}`: {e}", dir.display()))?;
    }
    Ok(())
}

/// Writes the DOT `files` (name, text) into `dir`.
fn write_dots(dir: &std::path::Path, files: &[(String, String)]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in files {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}
