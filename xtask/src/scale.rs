//! `cargo xtask scale`: `paces repair` on long generated programs, one run at a time, with each
//! run's wall time and peak memory checked against bounds: the time limit honoured, and peak
//! memory within a budget linear in the program.
//!
//! Linux only: the peak resident set of a run is the `ru_maxrss` that `wait4` reports for it.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Statements per thread of the programs measured by default.
pub(crate) const SIZES: &[usize] = &[500, 2_000, 5_000];

/// Statements per thread of the program `--big` adds.
pub(crate) const BIG: usize = 100_000;

/// Seconds a run may take beyond its `--time-limit` before the limit counts as not honoured.
pub(crate) const GRACE_SECONDS: f64 = 5.0;

/// The fixed part of the memory budget, in MiB: about twice the peak of the short programs,
/// whose runs reach the time limit in the search (good traces, learning) rather than in reading
/// the program (2 x 2,000 statements: 512 MiB, about as much with a limit of 60 s).
pub(crate) const BUDGET_BASE_MIB: f64 = 1024.0;

/// The part of the memory budget that grows with the program, in KiB per statement (both
/// threads counted): the 2 x 100,000 programs peak at about 1,000 MiB, 5 KiB a statement,
/// and the budget there is about twice that.
pub(crate) const BUDGET_KIB_PER_STATEMENT: f64 = 5.0;

/// The two program shapes measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Two threads of conflicting assignments to `x` and `y`; `t` ends in an assertion.
    Conflicting,
    /// A check-then-act bug that a reorder fixes: `t` writes `x`, runs `n` unrelated writes,
    /// then asserts its `x`; `u` writes `x` first.
    CheckThenAct,
}

impl Shape {
    /// Both shapes, in the order of the table.
    pub(crate) const ALL: [Shape; 2] = [Shape::Conflicting, Shape::CheckThenAct];

    /// The shape's name in the table.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Shape::Conflicting => "conflicting",
            Shape::CheckThenAct => "check-then-act",
        }
    }

    /// The Cwhile program of this shape with `n` statements per thread (besides the
    /// assertion and the first write of the check-then-act shape).
    pub(crate) fn program(self, n: usize) -> String {
        match self {
            Shape::Conflicting => conflicting(n),
            Shape::CheckThenAct => check_then_act(n),
        }
    }
}

/// `var x, y;` and two threads of `n` statements `x := (y + 0) * x - 1;`, the first ending in
/// `assert(x != 12345);`.
fn conflicting(n: usize) -> String {
    let mut s = String::from("var x, y;\n");
    for (name, assert) in [("t", true), ("u", false)] {
        let _ = writeln!(s, "thread {name} {{");
        for i in 0..n {
            let _ = writeln!(s, "  {name}{i}: x := (y + 0) * x - 1;");
        }
        if assert {
            s.push_str("  assert(x != 12345);\n");
        }
        s.push_str("}\n");
    }
    s
}

/// `t`: `x := 1;`, `n` times `y := i % 7;`, `assert(x == 1);`; `u`: `x := 2;`, `n` times
/// `y := i % 5;`.
fn check_then_act(n: usize) -> String {
    let mut s = String::from("var x, y;\n");
    for (name, value, modulus, assert) in [("t", 1, 7, true), ("u", 2, 5, false)] {
        let _ = writeln!(s, "thread {name} {{\n  {name}x: x := {value};");
        for i in 0..n {
            let _ = writeln!(s, "  {name}{i}: y := {i} % {modulus};");
        }
        if assert {
            s.push_str("  assert(x == 1);\n");
        }
        s.push_str("}\n");
    }
    s
}

/// The most peak memory, in MiB, a run on a program of `statements` statements (both threads)
/// may take.
pub(crate) fn budget_mib(statements: usize) -> f64 {
    BUDGET_BASE_MIB + BUDGET_KIB_PER_STATEMENT * statements as f64 / 1024.0
}

/// The stop reason of `paces repair`'s text summary: its first line is
/// `paces: NAME: REASON (MODE)`; `None` when `stderr` holds no such line.
pub(crate) fn stop_reason(stderr: &str, name: &str) -> Option<String> {
    let prefix = format!("paces: {name}: ");
    let line = stderr.lines().find_map(|l| l.strip_prefix(&prefix))?;
    let reason = match line.rfind(" (") {
        Some(at) if line.ends_with(')') => &line[..at],
        _ => line,
    };
    Some(reason.to_owned())
}

/// One measured run.
pub(crate) struct Measured {
    /// The exit status as `wait4` gives it (see [`describe_status`]).
    status: i32,
    stderr: String,
    seconds: f64,
    /// Peak resident set in MiB.
    peak_mib: f64,
}

/// One row of the table.
struct Row {
    shape: Shape,
    n: usize,
    bytes: usize,
    reason: String,
    seconds: f64,
    peak_mib: f64,
}

/// What `cargo xtask scale` measures.
pub(crate) struct Options {
    /// `--time-limit` of each run, in seconds.
    pub(crate) time_limit: f64,
    /// Whether the 100,000-statement programs are measured too.
    pub(crate) big: bool,
}

/// Builds the release binary, measures every shape and size, prints the table and fails when
/// a run passed a bound.
pub(crate) fn scale(options: &Options) -> Result<(), String> {
    let binary = crate::table::build_paces()?;
    let dir = std::env::temp_dir().join(format!("paces-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let result = measure_all(&binary, &dir, options);
    let _ = std::fs::remove_dir_all(&dir);
    let rows = result?;
    println!("{}", table(&rows, options.time_limit));
    let failures: Vec<String> = rows.iter().filter_map(|r| passed_bound(r, options.time_limit)).collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("a bound was passed:\n  {}", failures.join("\n  ")))
    }
}

/// Measures each shape at each size, one run at a time.
fn measure_all(binary: &Path, dir: &Path, options: &Options) -> Result<Vec<Row>, String> {
    let mut sizes = SIZES.to_vec();
    if options.big {
        sizes.push(BIG);
    }
    let mut rows = Vec::new();
    for shape in Shape::ALL {
        for &n in &sizes {
            rows.push(measure_one(binary, dir, shape, n, options.time_limit)?);
        }
    }
    Ok(rows)
}

/// Writes the program of `shape` and `n` into `dir` and measures `paces repair` on it.
fn measure_one(binary: &Path, dir: &Path, shape: Shape, n: usize, time_limit: f64) -> Result<Row, String> {
    let path = program_path(dir, shape, n);
    let name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let text = shape.program(n);
    std::fs::write(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("xtask: paces repair --time-limit {time_limit} {name}");
    let run = run_measured(binary, &path, time_limit)?;
    let reason = stop_reason(&run.stderr, &path.display().to_string())
        .unwrap_or_else(|| format!("no summary ({})", describe_status(run.status)));
    Ok(Row { shape, n, bytes: text.len(), reason, seconds: run.seconds, peak_mib: run.peak_mib })
}

/// Runs `paces repair --time-limit T FILE` and measures its wall time and peak memory; the
/// child is killed when it runs three times its time limit (and some), so a hang ends.
fn run_measured(binary: &Path, file: &Path, time_limit: f64) -> Result<Measured, String> {
    let start = Instant::now();
    let mut child = Command::new(binary)
        .arg("repair")
        .arg("--time-limit")
        .arg(time_limit.to_string())
        .arg(file)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let stderr = drain(child.stderr.take().ok_or("the child has no stderr")?);
    let watchdog = Duration::from_secs_f64(3.0 * (time_limit + GRACE_SECONDS));
    let (status, peak_kib) = wait_killing_after(&mut child, watchdog)?;
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&stderr.join().unwrap_or_default()).into_owned();
    Ok(Measured { status, stderr, seconds, peak_mib: peak_kib as f64 / 1024.0 })
}

/// Reads `pipe` to its end on a thread of its own.
pub(crate) fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Waits for `child` and returns its status and peak resident set in KiB; kills it first
/// when it is still running after `limit`.
pub(crate) fn wait_killing_after(child: &mut Child, limit: Duration) -> Result<(i32, i64), String> {
    let pid = i32::try_from(child.id()).map_err(|_| "the child's process id does not fit a pid_t")?;
    let start = Instant::now();
    loop {
        if let Some(done) = wait4(pid, false)? {
            return Ok(done);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            return wait4(pid, true)?.ok_or_else(|| "wait4 returned without the child".to_owned());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `wait4` on `pid`: its status and peak resident set in KiB once it has ended, `None` while
/// it runs (only when `block` is false).
#[allow(unsafe_code)] // Reason: `wait4` is the only way to a child's own peak memory.
fn wait4(pid: i32, block: bool) -> Result<Option<(i32, i64)>, String> {
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let options = if block { 0 } else { libc::WNOHANG };
    // SAFETY: `status` and `usage` are valid for writes for the duration of the call, and
    // `pid` is our own child, which std has not reaped (it is waited for only here).
    let got = unsafe { libc::wait4(pid, &mut status, options, &mut usage) };
    match got {
        0 => Ok(None),
        p if p == pid => Ok(Some((status, usage.ru_maxrss))),
        _ => Err(format!("wait4 on {pid} failed: {}", std::io::Error::last_os_error())),
    }
}

/// A `wait4` status in words: the exit code or the signal.
pub(crate) fn describe_status(status: i32) -> String {
    if libc::WIFEXITED(status) {
        format!("exit {}", libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        format!("killed by signal {}", libc::WTERMSIG(status))
    } else {
        format!("status {status}")
    }
}

/// Why `row` passed a bound, when it did.
fn passed_bound(row: &Row, time_limit: f64) -> Option<String> {
    let what = format!("{} N={}", row.shape.name(), row.n);
    let budget = budget_mib(2 * row.n);
    if row.seconds > time_limit + GRACE_SECONDS {
        Some(format!("{what}: {:.1} s, more than the time limit {time_limit} s + {GRACE_SECONDS} s", row.seconds))
    } else if row.peak_mib > budget {
        Some(format!("{what}: peak {:.0} MiB, more than the budget {budget:.0} MiB", row.peak_mib))
    } else {
        None
    }
}

/// The measured rows as a markdown table.
fn table(rows: &[Row], time_limit: f64) -> String {
    let mut md = format!(
        "`paces repair --time-limit {time_limit}`, one run at a time; budget: peak at most {BUDGET_BASE_MIB} MiB + \
         {BUDGET_KIB_PER_STATEMENT} KiB per statement, wall at most the limit + {GRACE_SECONDS} s.\n\n"
    );
    md.push_str("| shape | N per thread | file | stop reason | wall | peak memory | memory budget |\n");
    md.push_str("|---|---|---|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.1} s | {:.0} MiB | {:.0} MiB |",
            r.shape.name(),
            r.n,
            file_size(r.bytes),
            r.reason.replace('|', "\\|"),
            r.seconds,
            r.peak_mib,
            budget_mib(2 * r.n),
        );
    }
    md
}

/// A file size in KB or MB (decimal), one decimal.
fn file_size(bytes: usize) -> String {
    if bytes >= 1_000_000 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.1} KB", bytes as f64 / 1e3)
    }
}

/// Where the program of `shape` with `n` statements per thread is written in `dir`.
fn program_path(dir: &Path, shape: Shape, n: usize) -> PathBuf {
    dir.join(format!("{}-{n}.cw", shape.name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Statements per thread: every line inside a thread body that ends in `;`.
    fn statements_per_thread(program: &str) -> Vec<usize> {
        program
            .split("thread ")
            .skip(1)
            .map(|body| body.lines().filter(|l| l.trim_end().ends_with(';')).count())
            .collect()
    }

    #[test]
    fn the_conflicting_shape_has_n_assignments_per_thread_and_one_assertion() {
        let p = Shape::Conflicting.program(500);
        assert_eq!(statements_per_thread(&p), vec![501, 500]);
        assert_eq!(p.matches("assert(x != 12345);").count(), 1);
        assert_eq!(p.matches("x := (y + 0) * x - 1;").count(), 1000);
        assert!(p.contains("  t499: x := (y + 0) * x - 1;\n  assert"));
    }

    #[test]
    fn the_check_then_act_shape_writes_x_first_and_asserts_it_last() {
        let p = Shape::CheckThenAct.program(2_000);
        assert_eq!(statements_per_thread(&p), vec![2_002, 2_001]);
        assert!(p.contains("thread t {\n  tx: x := 1;\n  t0: y := 0 % 7;"));
        assert!(p.contains("thread u {\n  ux: x := 2;\n  u0: y := 0 % 5;"));
        assert!(p.contains("  t1999: y := 1999 % 7;\n  assert(x == 1);\n}"));
        assert_eq!(p.matches("assert").count(), 1);
    }

    #[test]
    fn a_program_grows_linearly_with_n() {
        for shape in Shape::ALL {
            let small = shape.program(1_000).len();
            let large = shape.program(10_000).len();
            assert!(large > 9 * small && large < 12 * small, "{}: {small} then {large}", shape.name());
        }
        assert_eq!(program_path(Path::new("/d"), Shape::CheckThenAct, 5), PathBuf::from("/d/check-then-act-5.cw"));
    }

    #[test]
    fn the_budget_is_a_base_plus_a_share_per_statement() {
        assert_eq!(budget_mib(0), BUDGET_BASE_MIB);
        assert_eq!(budget_mib(1024), BUDGET_BASE_MIB + BUDGET_KIB_PER_STATEMENT);
        assert_eq!(budget_mib(200_000) - budget_mib(100_000), budget_mib(100_000) - budget_mib(0));
    }

    #[test]
    fn the_stop_reason_is_the_first_summary_line_without_file_and_mode() {
        let stderr = "paces: warning: something\npaces: /tmp/a.cw: time limit reached (mixed mode)\n  iterations: 1\n";
        assert_eq!(stop_reason(stderr, "/tmp/a.cw").as_deref(), Some("time limit reached"));
        let bound = "paces: f.cw: the checker reached its memory bound (exhaustive search)\n";
        assert_eq!(stop_reason(bound, "f.cw").as_deref(), Some("the checker reached its memory bound"));
        assert_eq!(stop_reason("paces: f.cw: repaired\n", "f.cw").as_deref(), Some("repaired"));
        assert_eq!(stop_reason("thread 'main' panicked\n", "f.cw"), None);
    }

    #[test]
    fn a_run_passes_a_bound_only_past_the_grace_or_the_budget() {
        let row = |seconds, peak_mib| Row {
            shape: Shape::Conflicting,
            n: 500,
            bytes: 0,
            reason: String::new(),
            seconds,
            peak_mib,
        };
        let budget = budget_mib(1_000);
        assert_eq!(passed_bound(&row(24.9, budget), 20.0), None);
        assert!(passed_bound(&row(25.1, 10.0), 20.0).unwrap().contains("time limit"));
        assert!(passed_bound(&row(1.0, budget + 1.0), 20.0).unwrap().contains("budget"));
    }

    #[test]
    fn statuses_read_as_exit_codes_or_signals() {
        assert_eq!(describe_status(3 << 8), "exit 3");
        assert_eq!(describe_status(9), "killed by signal 9");
    }
}
