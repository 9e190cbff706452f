//! `cargo xtask scale --threads`: the repair loop on program families of 2..8 threads
//! (`paces_testkit::families`), one member at a time: iterations, states, time and peak memory
//! of the repair, and the time of one exhaustive check of the repaired program, as a table, a
//! JSON file and an SVG plot (`growth_svg`).
//!
//! Each member runs in a child `paces` process, as `cargo xtask table` and `cargo xtask scale`
//! run theirs: the peak resident set `wait4` reports is then the member's own (in-process, it
//! would be the most of every member so far), and a watchdog ends a run that overstays its
//! limit. Linux only, like `cargo xtask scale`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use paces_testkit::families::Family;
use serde_json::Value;

/// The check time under which the done-when of the growth measurement asks for a repair.
pub(crate) const CHECK_BUDGET_SECONDS: f64 = 10.0;

/// How many times one exhaustive check of the repaired program a repair may take.
pub(crate) const CHECK_FACTOR: f64 = 5.0;

/// The most threads `--grow` goes to (the sequential final states, 2^threads sets of them,
/// are computed for up to 24 threads, a family's check thread included).
pub(crate) const GROW_CAP: usize = 22;

/// The time limit of each repair and check with `--grow`, unless `--time-limit` says: room for
/// a repair of [`CHECK_FACTOR`] times a check of [`CHECK_BUDGET_SECONDS`], and some.
pub(crate) const GROW_TIME_LIMIT: f64 = CHECK_FACTOR * CHECK_BUDGET_SECONDS + 10.0;

/// What `cargo xtask scale --threads` measures.
pub(crate) struct Options {
    /// The fewest threads.
    pub(crate) min: usize,
    /// The most threads, unless `grow`.
    pub(crate) max: usize,
    /// Past `max` while the repaired program's check takes under [`CHECK_BUDGET_SECONDS`].
    pub(crate) grow: bool,
    /// One family, or all when `None`.
    pub(crate) family: Option<Family>,
    /// `--time-limit` of each repair and `--max-time` of each check, in seconds.
    pub(crate) time_limit: f64,
    /// The JSON file; the SVG plot goes beside it with the extension `svg`.
    pub(crate) out: PathBuf,
}

/// One `paces repair --format json` run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RepairRun {
    /// `stop_reason` as the JSON spells it, or what ended a run that printed none.
    pub(crate) stop: String,
    pub(crate) iterations: u64,
    pub(crate) bad_traces: u64,
    pub(crate) good_traces: u64,
    /// States stored by the checker, summed over every check of the run.
    pub(crate) states: u64,
    pub(crate) constraint_nodes: u64,
    /// `(atomic weight, inversions)` of the accepted candidate.
    pub(crate) cost: Option<(u64, u64)>,
    /// The repair as a reviewer reads it (`move A below B`, `atomic [A; B]`).
    pub(crate) changes: Vec<String>,
    /// Wall time seen from outside, in seconds.
    pub(crate) seconds: f64,
    pub(crate) peak_mib: f64,
    /// The repaired program, for a repair.
    pub(crate) repaired: Option<String>,
}

/// One `paces check --format json` run of the repaired program: the loop's repair, or the
/// family's hand repair where the loop found none.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CheckRun {
    /// Whether the program checked is the hand repair.
    pub(crate) hand: bool,
    pub(crate) verdict: String,
    pub(crate) states: u64,
    pub(crate) seconds: f64,
}

/// One member of a family, measured: the repair, and the check of a repaired program.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Member {
    pub(crate) family: Family,
    pub(crate) n: usize,
    pub(crate) repair: RepairRun,
    pub(crate) check: CheckRun,
}

/// Builds the release binary, measures every member, prints the table and writes the JSON and
/// the SVG.
pub(crate) fn scale_threads(options: &Options) -> Result<(), String> {
    if options.min < Family::MIN_THREADS || options.min > options.max {
        return Err(format!("--min and --max need {} <= MIN <= MAX", Family::MIN_THREADS));
    }
    let binary = crate::table::build_paces()?;
    let dir = std::env::temp_dir().join(format!("paces-scale-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let families: Vec<Family> = match options.family {
        Some(f) => vec![f],
        None => Family::ALL.to_vec(),
    };
    let start = Instant::now();
    let members = measure_families(&binary, &dir, &families, options);
    let _ = std::fs::remove_dir_all(&dir);
    let members = members?;
    let total = start.elapsed().as_secs_f64();
    let mut md = table(&members, options.time_limit);
    let _ = writeln!(md, "\nWhole run: {total:.0} s.\n\n{}", summary(&members));
    println!("{md}");
    let json = serde_json::json!({
        "time_limit": options.time_limit,
        "members": members.iter().map(member_json).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    std::fs::write(&options.out, text + "\n").map_err(|e| format!("cannot write {}: {e}", options.out.display()))?;
    let svg = options.out.with_extension("svg");
    std::fs::write(&svg, growth_svg(&members, options.time_limit))
        .map_err(|e| format!("cannot write {}: {e}", svg.display()))?;
    eprintln!("xtask: wrote {} and {}", options.out.display(), svg.display());
    Ok(())
}

/// Every member of `families` from `options.min` threads to `options.max`, and with
/// `options.grow` on past it while the last member's repaired program is checked correct in
/// under [`CHECK_BUDGET_SECONDS`] (up to [`GROW_CAP`] threads): the family's largest member so
/// checked is then measured, and the first one past it.
fn measure_families(binary: &Path, dir: &Path, families: &[Family], options: &Options) -> Result<Vec<Member>, String> {
    let mut members = Vec::new();
    for &family in families {
        let mut n = options.min;
        loop {
            let member = measure(binary, dir, family, n, options.time_limit)?;
            let next = goes_on(options, &member);
            members.push(member);
            if !next {
                break;
            }
            n += 1;
        }
    }
    Ok(members)
}

/// Whether the member after `member` is measured: up to `options.max` threads, and with
/// `options.grow` while `member`'s repaired program is checked correct in under
/// [`CHECK_BUDGET_SECONDS`], up to [`GROW_CAP`] threads.
fn goes_on(options: &Options, member: &Member) -> bool {
    let small = member.check.verdict == "correct" && member.check.seconds < CHECK_BUDGET_SECONDS;
    member.n < options.max || (options.grow && small && member.n < GROW_CAP)
}

/// Repairs the member of `family` with `n` threads and checks the repaired program once: the
/// loop's, or the family's hand repair where the loop found none.
fn measure(binary: &Path, dir: &Path, family: Family, n: usize, time_limit: f64) -> Result<Member, String> {
    let file = dir.join(format!("{}-{n}.cw", family.name()));
    std::fs::write(&file, family.program(n)).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let limit = time_limit.to_string();
    eprintln!("xtask: paces repair --time-limit {limit} {}-{n}.cw", family.name());
    let args = ["repair", "--format", "json", "--quiet", "--time-limit", &limit];
    let run = run_child(binary, &args, &file, time_limit)?;
    let repair = repair_run(&run)?;
    let (text, hand) = match &repair.repaired {
        Some(text) if repair.stop == "repaired" => (text.clone(), false),
        _ => (family.repaired_program(n), true),
    };
    let repaired = dir.join(format!("{}-{n}-repaired.cw", family.name()));
    std::fs::write(&repaired, text).map_err(|e| format!("cannot write {}: {e}", repaired.display()))?;
    let args = ["check", "--format", "json", "--quiet", "--max-time", &limit];
    let check = check_run(&run_child(binary, &args, &repaired, time_limit)?, hand)?;
    Ok(Member { family, n, repair, check })
}

/// A finished child: its stdout, wall time, peak memory and status.
pub(crate) struct ChildRun {
    pub(crate) stdout: Vec<u8>,
    pub(crate) seconds: f64,
    pub(crate) peak_mib: f64,
    pub(crate) status: i32,
}

/// Runs `binary ARGS FILE`, killed when it runs three times `time_limit` (and some).
fn run_child(binary: &Path, args: &[&str], file: &Path, time_limit: f64) -> Result<ChildRun, String> {
    let start = Instant::now();
    let mut child = Command::new(binary)
        .args(args)
        .arg(file)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let stdout = crate::scale::drain(child.stdout.take().ok_or("the child has no stdout")?);
    let watchdog = Duration::from_secs_f64(3.0 * (time_limit + crate::scale::GRACE_SECONDS));
    let (status, peak_kib) = crate::scale::wait_killing_after(&mut child, watchdog)?;
    let seconds = start.elapsed().as_secs_f64();
    let stdout = stdout.join().unwrap_or_default();
    Ok(ChildRun { stdout, seconds, peak_mib: peak_kib as f64 / 1024.0, status })
}

/// The JSON document a child printed, or why there is none (killed by the watchdog, crashed):
/// a row of the table says so rather than the run ending.
fn document(run: &ChildRun) -> Result<Value, String> {
    serde_json::from_slice::<Value>(&run.stdout)
        .map_err(|_| format!("no JSON: {}", crate::scale::describe_status(run.status)))
}

fn number(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// The measured repair from the child's `paces-repair/1` document.
pub(crate) fn repair_run(run: &ChildRun) -> Result<RepairRun, String> {
    let json = match document(run) {
        Ok(json) => json,
        Err(stop) => {
            return Ok(RepairRun {
                stop,
                iterations: 0,
                bad_traces: 0,
                good_traces: 0,
                states: 0,
                constraint_nodes: 0,
                cost: None,
                changes: Vec::new(),
                seconds: run.seconds,
                peak_mib: run.peak_mib,
                repaired: None,
            })
        }
    };
    if json["schema"] != "paces-repair/1" {
        return Err(format!("not a repair document: {json}"));
    }
    let cost = json["cost"].as_object().map(|c| (number(&c["atomic_weight"]), number(&c["inversions"])));
    let changes = json["changes"]
        .as_array()
        .map(|cs| cs.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    Ok(RepairRun {
        stop: json["stop_reason"].as_str().unwrap_or("no stop reason").to_owned(),
        iterations: number(&json["iterations"]),
        bad_traces: number(&json["bad_traces"]),
        good_traces: number(&json["good_traces"]),
        states: number(&json["states_explored"]),
        constraint_nodes: number(&json["constraint"]["nodes"]),
        cost,
        changes,
        seconds: run.seconds,
        peak_mib: run.peak_mib,
        repaired: json["repaired_program"].as_str().map(str::to_owned),
    })
}

/// The measured check from the child's `paces-check/2` document.
pub(crate) fn check_run(run: &ChildRun, hand: bool) -> Result<CheckRun, String> {
    let json = match document(run) {
        Ok(json) => json,
        Err(verdict) => return Ok(CheckRun { hand, verdict, states: 0, seconds: run.seconds }),
    };
    if json["schema"] != "paces-check/2" {
        return Err(format!("not a check document: {json}"));
    }
    let verdict = json["verdict"].as_str().unwrap_or("no verdict").to_owned();
    Ok(CheckRun { hand, verdict, states: number(&json["states"]), seconds: run.seconds })
}

/// The stop reason as the table prints it: `repaired`, or the limit in words.
fn stop_words(stop: &str, time_limit: f64) -> String {
    match stop {
        "iteration-limit" => "**iteration limit**".to_owned(),
        "time-limit" => format!("**time limit ({time_limit} s)**"),
        "repaired" | "already-correct" => stop.to_owned(),
        other => format!("**{other}**"),
    }
}

/// The members as a markdown table.
pub(crate) fn table(members: &[Member], time_limit: f64) -> String {
    let mut md = format!(
        "`paces repair --format json --time-limit {time_limit}` per member, then `paces check --max-time \
         {time_limit}` of the repaired program (the family's hand repair where the loop found none); wall times seen from outside, peak memory of the repair from \
         `wait4`.\n\n"
    );
    md.push_str(
        "| family | N | stop | iterations | bad / good traces | states | constraint nodes | cost (atomic, inversions) | repair time | peak memory | check of the repair | repair / check |\n",
    );
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for m in members {
        let r = &m.repair;
        let cost = r.cost.map_or("-".to_owned(), |(a, i)| format!("({a}, {i})"));
        let c = &m.check;
        let verdict = if c.verdict == "correct" { String::new() } else { format!(", **{}**", c.verdict) };
        let hand = if c.hand { " (hand repair)" } else { "" };
        let check = format!("{} states, {:.3} s{verdict}{hand}", c.states, c.seconds);
        let ratio = if c.hand { "-".to_owned() } else { format!("{:.1}x", r.seconds / c.seconds) };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} / {} | {} | {} | {} | {:.3} s | {:.0} MiB | {} | {} |",
            m.family.name(),
            m.n,
            stop_words(&r.stop, time_limit),
            r.iterations,
            r.bad_traces,
            r.good_traces,
            r.states,
            r.constraint_nodes,
            cost,
            r.seconds,
            r.peak_mib,
            check,
            ratio,
        );
    }
    md
}

/// Per family, the done-when of the measurement: its largest member whose repaired program one
/// exhaustive check covers in under [`CHECK_BUDGET_SECONDS`], and whether its repair took at
/// most [`CHECK_FACTOR`] times that check; and how iterations grow from the smallest to the
/// largest repaired member.
pub(crate) fn summary(members: &[Member]) -> String {
    let mut out = String::new();
    let mut families: Vec<Family> = members.iter().map(|m| m.family).collect();
    families.dedup();
    for family in families {
        let of: Vec<&Member> = members.iter().filter(|m| m.family == family).collect();
        let largest = of.iter().rev().find(|m| m.check.verdict == "correct" && m.check.seconds < CHECK_BUDGET_SECONDS);
        let verdict = match largest {
            Some(m) if m.repair.stop != "repaired" => format!(
                "largest member whose repaired program is checked in under {CHECK_BUDGET_SECONDS} s: N = {} (hand \
                 repair, {:.3} s), **not repaired**: {} after {} iterations and {:.3} s",
                m.n, m.check.seconds, m.repair.stop, m.repair.iterations, m.repair.seconds
            ),
            Some(m) => {
                let (r, c) = (&m.repair, &m.check);
                let within = r.seconds <= CHECK_FACTOR * c.seconds;
                format!(
                    "largest member whose repaired program is checked in under {CHECK_BUDGET_SECONDS} s: N = {}, repaired in {} iterations and \
                     {:.3} s, {} {CHECK_FACTOR} x its check ({:.3} s)",
                    m.n,
                    r.iterations,
                    r.seconds,
                    if within { "within" } else { "**more than**" },
                    c.seconds
                )
            }
            None => format!("no member's repaired program is checked in under {CHECK_BUDGET_SECONDS} s"),
        };
        let repaired: Vec<(usize, u64)> =
            of.iter().filter(|m| m.repair.stop == "repaired").map(|m| (m.n, m.repair.iterations)).collect();
        let growth = match (repaired.first(), repaired.last()) {
            (Some(&(n0, i0)), Some(&(n1, i1))) if n1 > n0 => {
                format!("; iterations {i0} at N = {n0}, {i1} at N = {n1}")
            }
            _ => String::new(),
        };
        let _ = writeln!(out, "- {}: {verdict}{growth}.", family.name());
    }
    out
}

/// One member as JSON (the repaired program left out: `paces repair` prints it again).
fn member_json(m: &Member) -> Value {
    let r = &m.repair;
    serde_json::json!({
        "family": m.family.name(),
        "n": m.n,
        "repair": {
            "stop_reason": r.stop,
            "iterations": r.iterations,
            "bad_traces": r.bad_traces,
            "good_traces": r.good_traces,
            "states_explored": r.states,
            "constraint_nodes": r.constraint_nodes,
            "cost": r.cost.map(|(a, i)| serde_json::json!({"atomic_weight": a, "inversions": i})),
            "changes": r.changes,
            "seconds": r.seconds,
            "peak_mib": r.peak_mib,
        },
        "check": {
            "of": if m.check.hand { "hand repair" } else { "loop's repair" },
            "verdict": m.check.verdict,
            "states": m.check.states,
            "seconds": m.check.seconds,
        },
    })
}

/// Colours of the families in the plot, in the order of [`Family::ALL`].
const COLOURS: [&str; 5] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];

/// Panel geometry of the plot: width and height of each plotting area, its top edge, and the
/// left edges of the two panels.
const PANEL_W: f64 = 360.0;
const PANEL_H: f64 = 240.0;
const TOP: f64 = 70.0;
const LEFTS: [f64; 2] = [70.0, 530.0];

/// The scales of the plot: threads on x in both panels, iterations (linear) on the left and
/// seconds (log) on the right.
struct Plot {
    n_min: usize,
    n_max: usize,
    /// Step and top of the iteration axis.
    step: u64,
    top: u64,
    /// The decades of the time axis.
    decades: (i32, i32),
}

impl Plot {
    fn x(&self, panel: usize, n: usize) -> f64 {
        LEFTS[panel] + PANEL_W * (n - self.n_min) as f64 / (self.n_max - self.n_min) as f64
    }

    fn y_iterations(&self, i: u64) -> f64 {
        TOP + PANEL_H * (1.0 - i as f64 / self.top as f64)
    }

    fn y_time(&self, seconds: f64) -> f64 {
        let (lo, hi) = self.decades;
        let l = seconds.max(10f64.powi(lo)).log10();
        TOP + PANEL_H * (1.0 - (l - f64::from(lo)) / f64::from(hi - lo))
    }

    /// The two panels' frames, titles and ticks.
    fn axes(&self, s: &mut String) {
        for (panel, title) in [(0, "iterations"), (1, "repair time (s, log scale)")] {
            let (l, b, mid) = (LEFTS[panel], TOP + PANEL_H, LEFTS[panel] + PANEL_W / 2.0);
            let _ = writeln!(
                s,
                "<rect x=\"{l}\" y=\"{TOP}\" width=\"{PANEL_W}\" height=\"{PANEL_H}\" fill=\"none\" stroke=\"#444\"/>\n\
                 <text x=\"{mid:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"14\">{title}</text>\n\
                 <text x=\"{mid:.1}\" y=\"{:.1}\" text-anchor=\"middle\">threads N</text>",
                TOP - 12.0,
                b + 34.0
            );
            for n in self.n_min..=self.n_max {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text>",
                    self.x(panel, n),
                    b + 16.0
                );
            }
        }
        let mut i = 0;
        while i <= self.top {
            grid_line(s, 0, self.y_iterations(i), &i.to_string());
            i += self.step;
        }
        for decade in self.decades.0..=self.decades.1 {
            grid_line(s, 1, self.y_time(10f64.powi(decade)), &format!("{}", 10f64.powi(decade)));
        }
    }

    /// One family's lines and points, and its legend entry.
    fn family(&self, s: &mut String, index: usize, run: &[(usize, &RepairRun, &CheckRun)]) {
        let colour = COLOURS[index];
        let line = |s: &mut String, points: Vec<(f64, f64)>, dashed: bool| {
            let points: Vec<String> = points.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
            let dash = if dashed { " stroke-dasharray=\"5,4\"" } else { "" };
            let _ = writeln!(
                s,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/>",
                points.join(" ")
            );
        };
        line(s, run.iter().map(|(n, r, _)| (self.x(0, *n), self.y_iterations(r.iterations))).collect(), false);
        line(s, run.iter().map(|(n, r, _)| (self.x(1, *n), self.y_time(r.seconds))).collect(), false);
        line(s, run.iter().map(|(n, _, c)| (self.x(1, *n), self.y_time(CHECK_FACTOR * c.seconds))).collect(), true);
        for (n, r, _) in run {
            let fill = if r.stop == "repaired" { colour } else { "white" };
            for (panel, y) in [(0, self.y_iterations(r.iterations)), (1, self.y_time(r.seconds))] {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"2\"/>",
                    self.x(panel, *n)
                );
            }
        }
        let lx = 70.0 + 200.0 * index as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{lx}\" y1=\"18\" x2=\"{:.1}\" y2=\"18\" stroke=\"{colour}\" stroke-width=\"2\"/>\n\
             <text x=\"{:.1}\" y=\"22\">{}</text>",
            lx + 24.0,
            lx + 30.0,
            Family::ALL[index].name()
        );
    }
}

/// A horizontal grid line across `panel` at `y`, labelled on the left.
fn grid_line(s: &mut String, panel: usize, y: f64, label: &str) {
    let (l, r) = (LEFTS[panel], LEFTS[panel] + PANEL_W);
    let _ = writeln!(
        s,
        "<line x1=\"{l}\" y1=\"{y:.1}\" x2=\"{r:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\n\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
        l - 6.0,
        y + 4.0
    );
}

/// The growth plot as an SVG document: iterations against N (left) and repair time against N
/// on a log scale (right), one line per family; a filled point is a repair, an open one a run
/// that stopped otherwise (at the value it reached), and the dashed lines on the right are
/// [`CHECK_FACTOR`] times the check of each member's repaired program.
///
/// Written by hand (a few kinds of SVG element) so that xtask stays light on dependencies; the
/// text depends only on the members.
pub(crate) fn growth_svg(members: &[Member], time_limit: f64) -> String {
    let n_min = members.iter().map(|m| m.n).min().unwrap_or(Family::MIN_THREADS);
    let n_max = members.iter().map(|m| m.n).max().unwrap_or(n_min).max(n_min + 1);
    let max_iterations = members.iter().map(|m| m.repair.iterations).max().unwrap_or(0);
    let (step, top) = iteration_axis(max_iterations);
    let plot = Plot { n_min, n_max, step, top, decades: time_axis(members, time_limit) };
    let mut s = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"360\" viewBox=\"0 0 960 360\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"960\" height=\"360\" fill=\"white\"/>\n",
    );
    plot.axes(&mut s);
    for (index, family) in Family::ALL.into_iter().enumerate() {
        let run: Vec<(usize, &RepairRun, &CheckRun)> =
            members.iter().filter(|m| m.family == family).map(|m| (m.n, &m.repair, &m.check)).collect();
        if !run.is_empty() {
            plot.family(&mut s, index, &run);
        }
    }
    let _ = writeln!(
        s,
        "<text x=\"70\" y=\"42\" fill=\"#444\">filled: repaired; open: a limit; dashed: {CHECK_FACTOR} x check</text>\n</svg>"
    );
    s
}

/// The step and the top of the iteration axis: a step of 1, 2, 5, 10, 20, ... giving at most
/// ten steps, and the top a multiple of it at or above `max` (at least one step).
pub(crate) fn iteration_axis(max: u64) -> (u64, u64) {
    let mut power = 1;
    loop {
        for step in [power, 2 * power, 5 * power] {
            if max <= 10 * step {
                return (step, max.div_ceil(step).max(1) * step);
            }
        }
        power *= 10;
    }
}

/// The decades of the time axis: from the one below the fastest run (at most 10 ms) to the one
/// at or above the slowest, the time limit included.
fn time_axis(members: &[Member], time_limit: f64) -> (i32, i32) {
    let times: Vec<f64> = members
        .iter()
        .map(|m| m.repair.seconds)
        .chain(members.iter().map(|m| CHECK_FACTOR * m.check.seconds))
        .filter(|t| *t > 0.0)
        .collect();
    let lo = times.iter().copied().fold(0.01, f64::min).log10().floor() as i32;
    let hi = times.iter().copied().fold(time_limit, f64::max).log10().ceil() as i32;
    (lo, hi.max(lo + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(json: &str, seconds: f64) -> ChildRun {
        ChildRun { stdout: json.as_bytes().to_vec(), seconds, peak_mib: 12.5, status: 0 }
    }

    fn repaired(iterations: u64, seconds: f64) -> RepairRun {
        RepairRun {
            stop: "repaired".into(),
            iterations,
            bad_traces: iterations,
            good_traces: 1,
            states: 100,
            constraint_nodes: 10,
            cost: Some((2, 0)),
            changes: vec!["atomic [a; b]".into()],
            seconds,
            peak_mib: 10.0,
            repaired: None,
        }
    }

    fn member(family: Family, n: usize, repair: RepairRun, check_seconds: f64) -> Member {
        let hand = repair.stop != "repaired";
        let check = CheckRun { hand, verdict: "correct".into(), states: 50, seconds: check_seconds };
        Member { family, n, repair, check }
    }

    #[test]
    fn growing_goes_past_max_while_the_check_is_short() {
        let options = |grow| Options {
            min: 2,
            max: 8,
            grow,
            family: None,
            time_limit: GROW_TIME_LIMIT,
            out: PathBuf::from("growth.json"),
        };
        let at = |n, check_seconds| member(Family::TokenRing, n, repaired(1, 1.0), check_seconds);
        // Up to --max either way.
        assert!(goes_on(&options(false), &at(7, 0.5)));
        assert!(!goes_on(&options(false), &at(8, 0.5)));
        // Past it while the check takes under the budget, and never past the cap.
        assert!(goes_on(&options(true), &at(8, 0.5)));
        assert!(goes_on(&options(true), &at(15, CHECK_BUDGET_SECONDS - 0.1)));
        assert!(!goes_on(&options(true), &at(15, CHECK_BUDGET_SECONDS)));
        assert!(!goes_on(&options(true), &at(GROW_CAP, 0.5)));
        // A check that did not end correct stops the growth.
        let mut timed_out = at(12, 0.5);
        timed_out.check.verdict = "bound-reached".into();
        assert!(!goes_on(&options(true), &timed_out));
    }

    #[test]
    fn a_repair_document_reads_into_its_measurements() {
        let json = r#"{"schema": "paces-repair/1", "stop_reason": "repaired", "iterations": 3, "bad_traces": 3,
            "good_traces": 2, "states_explored": 417, "constraint": {"nodes": 31}, "cost": {"atomic_weight": 4,
            "inversions": 1}, "changes": ["move a below b", "atomic [c; d]"], "repaired_program": "var x;"}"#;
        let r = repair_run(&child(json, 0.25)).unwrap();
        assert_eq!((r.stop.as_str(), r.iterations, r.bad_traces, r.good_traces), ("repaired", 3, 3, 2));
        assert_eq!((r.states, r.constraint_nodes, r.cost), (417, 31, Some((4, 1))));
        assert_eq!(r.changes, ["move a below b", "atomic [c; d]"]);
        assert_eq!((r.seconds, r.peak_mib, r.repaired.as_deref()), (0.25, 12.5, Some("var x;")));
        let limit =
            r#"{"schema": "paces-repair/1", "stop_reason": "iteration-limit", "iterations": 100, "cost": null}"#;
        let r = repair_run(&child(limit, 9.0)).unwrap();
        assert_eq!((r.stop.as_str(), r.iterations, r.cost), ("iteration-limit", 100, None));
        assert!(repair_run(&child(r#"{"schema": "paces-check/2"}"#, 1.0)).unwrap_err().contains("not a repair"));
        let crashed = ChildRun { status: 101 << 8, ..child("thread 'main' panicked", 1.0) };
        assert_eq!(repair_run(&crashed).unwrap().stop, "no JSON: exit 101");
    }

    #[test]
    fn a_killed_run_is_reported_as_such() {
        let killed = ChildRun { stdout: Vec::new(), seconds: 75.0, peak_mib: 1.0, status: 9 };
        assert_eq!(repair_run(&killed).unwrap().stop, "no JSON: killed by signal 9");
        assert_eq!(check_run(&killed, true).unwrap().verdict, "no JSON: killed by signal 9");
    }

    #[test]
    fn a_check_document_reads_into_verdict_and_states() {
        let json = r#"{"schema": "paces-check/2", "verdict": "correct", "states": 9}"#;
        let c = check_run(&child(json, 0.5), false).unwrap();
        assert_eq!(c, CheckRun { hand: false, verdict: "correct".into(), states: 9, seconds: 0.5 });
    }

    #[test]
    fn limits_show_in_the_table() {
        let mut limited = repaired(100, 3.0);
        limited.stop = "iteration-limit".into();
        limited.cost = None;
        let members = [member(Family::Counters, 2, repaired(4, 0.5), 0.2), member(Family::Counters, 3, limited, 0.1)];
        let md = table(&members, 20.0);
        assert!(md.contains("| counters | 2 | repaired | 4 | 4 / 1 | 100 | 10 | (2, 0) | 0.500 s | 10 MiB | 50 states, 0.200 s | 2.5x |"), "{md}");
        assert!(md.contains("| counters | 3 | **iteration limit** | 100 | 100 / 1 | 100 | 10 | - | 3.000 s | 10 MiB | 50 states, 0.100 s (hand repair) | - |"), "{md}");
        assert_eq!(md.lines().filter(|l| l.starts_with("| counters")).count(), 2);
    }

    #[test]
    fn the_summary_judges_the_largest_member_checked_within_the_budget() {
        let members = [
            member(Family::TokenRing, 2, repaired(1, 0.1), 0.05),
            member(Family::TokenRing, 3, repaired(2, 0.9), 0.1),
            member(Family::TokenRing, 4, repaired(3, 60.0), 12.0),
            member(Family::Counters, 2, repaired(5, 0.1), 0.05),
            member(Family::ReadersWriters, 2, repaired(2, 0.1), 0.05),
            member(Family::ReadersWriters, 3, RepairRun { stop: "time-limit".into(), ..repaired(7, 20.0) }, 0.5),
        ];
        let text = summary(&members);
        let rw = "- readers-writers: largest member whose repaired program is checked in under 10 s: N = 3 (hand \
                  repair, 0.500 s), **not repaired**: time-limit after 7 iterations and 20.000 s.\n";
        assert!(text.contains(rw), "{text}");
        assert!(text.contains("- token-ring: largest member whose repaired program is checked in under 10 s: N = 3, repaired in 2 iterations and 0.900 s, **more than** 5 x its check (0.100 s); iterations 1 at N = 2, 3 at N = 4."), "{text}");
        assert!(text.contains("- counters: largest member whose repaired program is checked in under 10 s: N = 2, repaired in 5 iterations and 0.100 s, within 5 x its check (0.050 s)."), "{text}");
    }

    #[test]
    fn the_iteration_axis_has_at_most_ten_round_steps() {
        assert_eq!(iteration_axis(0), (1, 1));
        assert_eq!(iteration_axis(7), (1, 7));
        assert_eq!(iteration_axis(10), (1, 10));
        assert_eq!(iteration_axis(11), (2, 12));
        assert_eq!(iteration_axis(45), (5, 45));
        assert_eq!(iteration_axis(98), (10, 100));
        assert_eq!(iteration_axis(101), (20, 120));
        assert_eq!(iteration_axis(480), (50, 500));
    }

    #[test]
    fn the_plot_draws_each_family_with_its_points() {
        let mut limited = repaired(100, 20.0);
        limited.stop = "time-limit".into();
        let members = [
            member(Family::Counters, 2, repaired(4, 0.05), 0.02),
            member(Family::Counters, 3, limited, 0.1),
            member(Family::TokenRing, 2, repaired(1, 0.03), 0.01),
            member(Family::TokenRing, 3, repaired(2, 0.04), 0.01),
        ];
        let svg = growth_svg(&members, 20.0);
        assert!(svg.starts_with("<svg ") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg, growth_svg(&members, 20.0));
        // Two solid lines per family run, one dashed line per family with a checked member.
        assert_eq!(svg.matches("<polyline").count(), 6);
        assert_eq!(svg.matches("stroke-dasharray").count(), 2);
        // Four members, each a point in both panels; the time-limited one open.
        assert_eq!(svg.matches("<circle").count(), 8);
        assert_eq!(svg.matches("fill=\"white\" stroke=\"#1f77b4\"").count(), 2);
        assert!(svg.contains(">counters</text>") && svg.contains(">token-ring</text>"));
        assert!(!svg.contains(">readers-writers</text>"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }
}
