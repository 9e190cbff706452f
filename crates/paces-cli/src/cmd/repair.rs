//! `paces repair FILE`: the repair loop; the repaired program on stdout, a summary on stderr.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use paces::{Mode, Repair, RepairEvent, Report};

use super::check::CheckerArgs;
use super::progress::{print_line, progress_text, StatusLine};
use super::{count, fail_in, ms, write_stdout, FileArg, Format, Outcome};

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
    /// Output format: text (the program on stdout, the summary on stderr) or json (one JSON
    /// document on stdout, see docs/json.md).
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
    /// shortest one. 0: no hunt (every bad trace a shortest one).
    #[arg(long, default_value_t = Repair::DEFAULT_HUNT_STATES)]
    pub hunt_states: usize,
    /// The most bad traces one check gives the loop to learn from before it proposes again: a
    /// failing assertion's and, found by a second search of at most 50,000 states (no more than the first check's), those of
    /// other failing assertions (one each). 1: the first failure's alone.
    #[arg(long, default_value_t = Repair::DEFAULT_COUNTEREXAMPLES)]
    pub counterexamples: usize,
    /// Bounds and switches of the checker.
    #[command(flatten)]
    pub bounds: CheckerArgs,
}

/// The repair written as the input's source with only the changed blocks rewritten, comments
/// and layout kept, when repaired or already correct (the source itself then):
/// [`paces::cwhile::print_preserving`] for a Cwhile input, [`paces_c::print_preserving`] for a
/// C input. `None` otherwise, or when the source's layout does not allow it: the canonical
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
        super::Lang::Cwhile => paces::cwhile::print_preserving(source, program, repaired, &report.named_labels()),
        super::Lang::C => paces_c::print_preserving(source, program, repaired),
        super::Lang::Pthread => paces_c::pthread::print_preserving_with(source, program, repaired, options),
    }
}

/// The summary's note when a C model's repair is printed as Cwhile.
const C_AS_CWHILE: &str = "  note: the repair cannot be written into this C source (see docs/c-frontend.md, \"The repaired program\"): the repaired program is printed as Cwhile, with the source's comments\n";

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
    let threads: Vec<String> = program.threads.iter().map(|t| t.name.clone()).collect();
    let repair = repair.on_event(observer(&input.name, threads, status.clone(), verbose));
    let outcome = if args.exhaustive { repair.optimum(&program) } else { repair.run(&program) };
    if let Some(line) = &status {
        line.clear();
    }
    let mut report = match outcome {
        Ok(r) => r,
        Err(e) => return fail_in(args.format, &input.name, &format!("{}: {e}", input.name)),
    };
    if let Some(dir) = &args.dot {
        if let Err(e) = write_dots(dir, &report) {
            return fail_in(args.format, &input.name, &format!("cannot write DOT files to `{}`: {e}", dir.display()));
        }
    }
    // A repair that keeps deadlocks of the original is printed, but a bug remains (exit 1)
    // unless --keep-deadlocks asked for that.
    let success = !report.bug_remains();
    let kept = preserved(&input, &program, &report, &args.bounds.pthread_options(&args.file));
    let in_source_text = kept.is_some();
    // A C model whose repair cannot be written into its source is printed as Cwhile: the
    // summary says so.
    let layout_lost = kept.is_none()
        && report.repaired_text.is_some()
        && matches!(report.stop, paces::StopReason::Repaired | paces::StopReason::AlreadyCorrect);
    let as_cwhile = layout_lost && input.lang == super::Lang::C;
    match (kept, &report.repaired, std::str::from_utf8(&input.bytes)) {
        (Some(text), _, _) => report.repaired_text = Some(text),
        // The fallback keeps every comment of the source, as `paces fmt` does.
        (None, Some(repaired), Ok(source)) if layout_lost => {
            report.repaired_text =
                Some(paces::cwhile::print_named_with_comments(repaired, source, &report.named_labels()));
        }
        _ => {}
    }
    if let Some(path) = &args.report {
        if let Err(message) = super::html::write_repair(path, &input, &report, in_source_text) {
            return fail_in(args.format, &input.name, &message);
        }
    }
    let times = Times::of(&report, read, started.elapsed());
    let layout = Layout { lost: layout_lost, as_cwhile };
    let written = emit(args, &input, &program, (&report, &times), layout, success, &bounds);
    match written {
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
        .dot(args.dot.is_some() || args.report.is_some())
        .exhaustive_limit(args.exhaustive_limit)
        .hunt_states(args.hunt_states)
        .counterexamples(args.counterexamples)
}

/// How the repaired program's text relates to the source's layout.
#[derive(Clone, Copy)]
struct Layout {
    /// The source's layout could not be kept: the program is printed canonically.
    lost: bool,
    /// A C model printed as Cwhile.
    as_cwhile: bool,
}

/// Where a repair command's time went, part by part: reading the program, the parts of the
/// run ([`paces::TimeSplit`]), then printing (building the report's texts and the repaired
/// program); the parts sum to the total.
pub struct Times {
    /// From the command's start to the printing of its answer.
    pub total: Duration,
    /// Each part: its key in JSON, its name in the summary, its time.
    pub parts: Vec<(&'static str, &'static str, Duration)>,
}

impl Times {
    /// The parts of a command that read its program in `read` and reached its answer after
    /// `elapsed`, whose run `report` tells.
    pub fn of(report: &Report, read: Duration, elapsed: Duration) -> Times {
        let t = &report.time;
        let total = elapsed.max(read + t.total);
        let parts = vec![
            ("read", "reading", read),
            ("explore", "checking", t.explore),
            ("good", "good-trace search", t.good),
            ("complete", "completing bad traces", t.complete),
            ("learn", "learning", t.learn),
            ("solve", "solving", t.solve),
            ("apply", "building candidates", t.apply),
            ("list", "listing candidates", t.list),
            ("print", "printing", total.saturating_sub(read + t.total)),
            ("other", "other", t.other()),
        ];
        Times { total, parts }
    }
}

/// Writes the repaired program (to `--output` or stdout) and the summary or JSON report of the
/// run and its `times`; the outcome of the writing (`success` and the model's `bounds` shape
/// the summary's notes).
fn emit(
    args: &Args,
    input: &super::Input,
    program: &paces::cwhile::Program,
    (report, times): (&Report, &Times),
    layout: Layout,
    success: bool,
    bounds: &[String],
) -> Outcome {
    let written = match (&report.repaired_text, &args.output) {
        (Some(text), Some(path)) => match std::fs::write(path, text) {
            Ok(()) => Outcome::Success,
            Err(e) => fail_in(args.format, &input.name, &format!("cannot write `{}`: {e}", path.display())),
        },
        _ => Outcome::Success,
    };
    match (written, args.format) {
        (Outcome::Success, Format::Json) => {
            let mut doc = report_json(&input.name, program, report, times);
            doc["layout_kept"] = serde_json::Value::Bool(!layout.lost);
            write_stdout(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()))
        }
        (Outcome::Success, Format::Text) => {
            if !args.quiet {
                let mut text = summary(&input.name, report, times, args.verbose);
                if layout.as_cwhile {
                    text.push_str(C_AS_CWHILE);
                } else if layout.lost {
                    text.push_str(CANONICAL);
                }
                if success {
                    for b in bounds {
                        text.push_str(&format!("  note: this holds only within a bound of the model: {b} (exit 3)\n"));
                    }
                }
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
            match (&report.repaired_text, &args.output) {
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
    status: Option<Arc<StatusLine>>,
    verbose: bool,
) -> impl Fn(&RepairEvent) + Send + Sync + 'static {
    let name = name.to_owned();
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
            let mut text = format!("paces: {name}: {}", iteration_text(*iteration, record));
            if !record.schedule.is_empty() {
                let steps: Vec<(usize, &str)> =
                    record.threads.iter().copied().zip(record.schedule.iter().map(String::as_str)).collect();
                text.push('\n');
                text.push_str(super::chart::chart(&threads, &steps, record.failing, "    ").trim_end());
            }
            print_line(status.as_deref(), &text);
        }
        _ => {}
    }
}

/// One iteration in words: `iteration 1: bad trace: `3` fails (5 steps), and `4` fails; 2
/// fixes; next: swap A <-> B` (the further failures only when the check found some; the steps themselves are drawn as a chart, see [`super::chart::chart`]).
pub fn iteration_text(number: usize, it: &paces::Iteration) -> String {
    let more = if it.more.is_empty() { String::new() } else { format!(", and {}", it.more.join(", ")) };
    format!(
        "iteration {number}: {} trace: {} ({}){more}; {}; next: {}",
        it.kind,
        it.problem,
        super::count(it.schedule.len() as u64, "step"),
        if it.fixes == 1 { "1 fix".to_owned() } else { format!("{} fixes", it.fixes) },
        if it.proposal.is_empty() { "the original program".to_owned() } else { it.proposal.join(", ") }
    )
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

/// Says which bounds cut the good-trace search short; `None` when none did.
pub fn good_bounds_note(bounds: &[paces::explore::GoodBound]) -> Option<String> {
    if bounds.is_empty() {
        return None;
    }
    let names: Vec<String> = bounds
        .iter()
        .map(|b| match b {
            paces::explore::GoodBound::Steps => format!("{b} (--good-steps raises it)"),
            paces::explore::GoodBound::Time => format!("{b} (--time-limit)"),
            _ => b.to_string(),
        })
        .collect();
    Some(format!("the good-trace search stopped at its {}: the good traces are a sample", names.join(", ")))
}

fn write_dots(dir: &std::path::Path, report: &Report) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in &report.dots {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// The text summary written to stderr (with `verbose`, also the diff; the iterations are
/// written as they end, not here); its last line tells the `times`.
pub fn summary(name: &str, report: &Report, times: &Times, verbose: bool) -> String {
    let how = match report.exhaustive {
        Some(_) => "exhaustive search".to_owned(),
        None => format!("{} mode", report.mode),
    };
    let mut s = format!("paces: {name}: {} ({how})\n", report.stop);
    if report.unwind_reached {
        s.push_str("  note: the loop bound (--unwind) cut some path: this holds only within that bound (exit 3)\n");
    }
    if !report.change_text.is_empty() {
        s.push_str("  changes:\n");
        for t in &report.change_text {
            s.push_str(&format!("    {t}\n"));
        }
    }
    s.push_str(&format!(
        "  iterations: {}, good traces: {}{}, bad traces: {}{}, constraint: {} nodes ({} atoms)\n",
        report.iterations,
        report.good_traces,
        match report.relaxed_good_traces {
            0 => String::new(),
            n => format!(" ({n} relaxed to their covered edges)"),
        },
        report.bad_traces,
        {
            let notes: Vec<String> = [
                (report.deepened_bad_traces, "searched again with a larger K"),
                (report.dropped_constraints, "dropped"),
            ]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect();
            if notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", notes.join(", "))
            }
        },
        report.constraint.nodes,
        report.constraint.atoms
    ));
    if let Some(note) = good_bounds_note(&report.good_search_bounds) {
        s.push_str(&format!("  warning: {note}\n"));
    }
    s.push_str(&deadlock_lines(report));
    if let Some(a) = &report.acceptance {
        let outcomes = match a.outcomes {
            Some(n) => format!("{} ({}, each the original's)", a.no_new_outcome, count(n as u64, "outcome")),
            None => format!("{} (no reorder)", a.no_new_outcome),
        };
        s.push_str(&format!(
            "  accepted: no assertion failure: {}, no new deadlock: {}, no new livelock: {}, same sequential final \
             states: {}, passing assertions still reached: {}, no new outcome: {outcomes}\n",
            a.no_assertion_failure,
            a.no_new_deadlock,
            a.no_new_livelock,
            a.same_sequential_states,
            a.assertions_reached,
        ));
        for d in &a.deadlocks {
            s.push_str(&format!("    deadlock admitted: {} ({})\n", d.deadlock, deadlock_rule_text(d.rule)));
        }
    }
    s.push_str(&fate_lines(report));
    if let Some(line) = exhaustive_line(report) {
        s.push_str(&line);
    }
    if let (Some(o), Some(c)) = (&report.optimality, &report.candidate) {
        let verdict = if o.is_proved() { "optimal in the space" } else { "cheapest found" };
        s.push_str(&format!("  cost {}: {verdict} ({})\n", c.cost(&report.space), o.why()));
    }
    // The parts that show as 0.001 s or more (each left out is under half a millisecond).
    let parts: Vec<String> = times
        .parts
        .iter()
        .filter(|(_, _, d)| *d >= Duration::from_micros(500))
        .map(|(_, what, d)| format!("{what} {:.3} s", d.as_secs_f64()))
        .collect();
    s.push_str(&format!(
        "  states explored: {}; time {:.3} s ({})\n",
        report.states_explored,
        times.total.as_secs_f64(),
        if parts.is_empty() { "each part under a millisecond".to_owned() } else { parts.join(", ") }
    ));
    if verbose && !report.diff.is_empty() {
        s.push_str("  diff:\n");
        for line in report.diff.lines() {
            s.push_str(&format!("    {line}\n"));
        }
    }
    s
}

/// The summary's lines on the original's deadlocks: whether they are kept, and which they are.
fn deadlock_lines(report: &Report) -> String {
    let mut s = String::new();
    if report.keep_deadlocks {
        s.push_str("  --keep-deadlocks: the original's deadlocks are kept, only new ones refused\n");
    }
    if let Some(deadlocks) = report.original_deadlocks.as_ref().filter(|d| !d.is_empty()) {
        s.push_str(if report.keep_deadlocks {
            "  the original program deadlocks (a repair may keep these, never add one):\n"
        } else {
            "  the original program deadlocks (removed where the space can, else kept; --keep-deadlocks keeps them):\n"
        });
        for d in deadlocks {
            s.push_str(&format!("    {d}\n"));
        }
    }
    s
}

/// The summary's lines on what became of the original's deadlocks in the program the run
/// ends with: each kept one with its reason, then the removed ones known.
fn fate_lines(report: &Report) -> String {
    let mut s = String::new();
    for d in &report.deadlock_fates {
        s.push_str(&format!("  {} deadlock of the original: {}\n", d.fate.name(), d.deadlock));
        if let paces::Fate::Kept(why) = &d.fate {
            s.push_str(&format!("    {why}\n"));
        }
    }
    if !report.keep_deadlocks && report.kept_deadlocks().next().is_some() {
        s.push_str("  a bug remains: the program still deadlocks where the original does (exit 1)\n");
    }
    s
}

/// What the exhaustive search did, as a summary line; `None` for a run of the loop.
fn exhaustive_line(report: &Report) -> Option<String> {
    let e = report.exhaustive?;
    let cost = match (&report.candidate, &report.stop) {
        (Some(c), paces::StopReason::Repaired) => format!(", cost {}", c.cost(&report.space)),
        _ => String::new(),
    };
    let verdict = if e.proved_optimal { "; proved optimal in the space" } else { "" };
    Some(format!("  exhaustive: {} of {} candidates checked{cost}{verdict}\n", e.checked, e.space_size))
}

/// Why a kept deadlock is no regression, in words.
fn deadlock_rule_text(rule: paces::DeadlockRule) -> &'static str {
    match rule {
        paces::DeadlockRule::SamePlace => "the original reaches it",
        paces::DeadlockRule::SameThreadsAfterFailure => {
            "the original deadlocks with the same threads blocked after an assertion failed"
        }
        _ => "admitted",
    }
}

/// What became of each deadlock of the original, as `deadlock_fates` of the JSON report.
fn fates_json(report: &Report) -> Vec<serde_json::Value> {
    let why = |fate: &paces::Fate| match fate {
        paces::Fate::Kept(why) => Some(why.to_string()),
        _ => None,
    };
    report
        .deadlock_fates
        .iter()
        .map(|d| {
            serde_json::json!({"deadlock": d.deadlock, "fate": d.fate.name(), "reason": d.fate.reason(), "why": why(&d.fate)})
        })
        .collect()
}

/// The JSON document of `paces repair --format json` (schema `paces-repair/1`, docs/json.md)
/// of a run that took `times`.
pub fn report_json(name: &str, program: &paces::cwhile::Program, report: &Report, times: &Times) -> serde_json::Value {
    let space = &report.space;
    let candidate = report.candidate.as_ref().map(|c| {
        let blocks: Vec<Vec<&str>> = space
            .blocks()
            .filter(|b| space.items(*b).len() > 1)
            .map(|b| c.order(b).iter().map(|l| space.name(*l)).collect())
            .collect();
        let sections: Vec<serde_json::Value> = c
            .sections()
            .iter()
            .map(|s| {
                let order = c.order(s.block);
                let (i, j) = (c.position(s.first).unwrap_or(0), c.position(s.last).unwrap_or(0));
                let items: Vec<&str> = order.get(i..=j).unwrap_or(&[]).iter().map(|l| space.name(*l)).collect();
                serde_json::json!({"first": space.name(s.first), "last": space.name(s.last), "items": items})
            })
            .collect();
        serde_json::json!({"blocks": blocks, "sections": sections})
    });
    let history: Vec<serde_json::Value> = report
        .history
        .iter()
        .map(|it| {
            serde_json::json!({
                "kind": it.kind.name(), "problem": it.problem, "schedule": it.schedule,
                "fixes": it.fixes, "more": it.more, "proposal": it.proposal,
            })
        })
        .collect();
    let explanation = match &report.stop {
        paces::StopReason::NoRepair { explanation } => Some(explanation.clone()),
        _ => None,
    };
    serde_json::json!({
        "schema": "paces-repair/1",
        "file": name,
        "mode": report.mode.to_string(),
        "stop_reason": report.stop.name(),
        "message": report.stop.to_string(),
        "explanation": explanation,
        "program": {
            "lines": report.original_text.lines().filter(|l| !l.trim().is_empty()).count(),
            "threads": program.threads.len(),
            "statements": program.stmts.len(),
        },
        "iterations": report.iterations,
        "good_traces": report.good_traces,
        "good_search_bounds": report.good_search_bounds.iter().map(|b| b.name()).collect::<Vec<_>>(),
        "relaxed_good_traces": report.relaxed_good_traces,
        "deepened_bad_traces": report.deepened_bad_traces,
        "dropped_constraints": report.dropped_constraints,
        "bad_traces": report.bad_traces,
        "transformations": report.transformation_text,
        "changes": report.change_text,
        "candidate": candidate,
        "repaired_program": report.repaired_text,
        "diff": report.diff,
        "acceptance": report.acceptance.as_ref().map(|a| serde_json::json!({
            "no_assertion_failure": a.no_assertion_failure,
            "no_new_deadlock": a.no_new_deadlock,
            "no_new_livelock": a.no_new_livelock,
            "same_sequential_states": a.same_sequential_states,
            "assertions_reached": a.assertions_reached,
            "no_new_outcome": a.no_new_outcome,
            "outcomes": a.outcomes,
            "deadlocks": a.deadlocks.iter().map(|d| serde_json::json!({
                "deadlock": d.deadlock,
                "rule": d.rule.name(),
            })).collect::<Vec<_>>(),
            "livelocks": a.livelocks,
        })),
        "original_deadlocks": report.original_deadlocks.as_deref().unwrap_or_default(),
        "keep_deadlocks": report.keep_deadlocks,
        "deadlock_fates": fates_json(report),
        "bug_remains": report.bug_remains(),
        "constraint": {"nodes": report.constraint.nodes, "atoms": report.constraint.atoms, "depth": report.constraint.depth},
        "states_explored": report.states_explored,
        "original_states": report.original_states,
        "unwind_reached": report.unwind_reached,
        "time_ms": std::iter::once(("total", times.total))
            .chain(times.parts.iter().map(|(key, _, d)| (*key, *d)))
            .map(|(key, d)| (key.to_owned(), serde_json::json!(ms(d))))
            .collect::<serde_json::Map<_, _>>(),
        "history": history,
        "cost": report.candidate.as_ref().map(|c| {
            let cost = c.cost(space);
            serde_json::json!({"atomic_weight": cost.atomic_weight, "inversions": cost.inversions})
        }),
        "exhaustive": report.exhaustive.map(|e| serde_json::json!({
            "space_size": e.space_size, "checked": e.checked, "proved_optimal": e.proved_optimal,
        })),
        "optimality": report.optimality.as_ref().map(|o| serde_json::json!({
            "proved": o.is_proved(), "why": o.why(),
        })),
    })
}
