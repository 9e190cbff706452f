//! SPIN on a Promela model (`paces_cwhile::to_promela`): whether an assertion violation and
//! whether an invalid end state is reachable, and every invalid end state by the deadlock's
//! name.
//!
//! The export makes a choice with the first step of the branch taken and lets a cut thread
//! end the run (docs/language.md, "Promela export"), so SPIN's invalid end states are the
//! checker's deadlocks: a process that terminated is `done`, and one that waits stands at a
//! point whose `if` names the labels it waits at.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The longest one run of SPIN's `pan` may take, in seconds.
const PAN_SECONDS: &str = "20";

fn have(tool: &str) -> bool {
    Command::new(tool).arg("-V").output().is_ok_and(|o| o.status.success())
        || Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Whether `spin` and `gcc` are on PATH.
pub fn installed() -> bool {
    have("spin") && have("gcc")
}

/// Whether SPIN can run here, for a test: false (saying that the test skipped) without it,
/// unless `PACES_REQUIRE_SPIN=1`, then it panics.
pub fn available_for_test() -> bool {
    let ok = installed();
    if !ok {
        if std::env::var("PACES_REQUIRE_SPIN").is_ok_and(|v| v == "1") {
            panic!("spin or gcc is not on PATH but PACES_REQUIRE_SPIN=1");
        }
        eprintln!("skipped: spin or gcc is not on PATH (set PACES_REQUIRE_SPIN=1 to fail instead)");
    }
    ok
}

fn scratch_dir() -> Result<PathBuf, String> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir =
        std::env::temp_dir().join(format!("paces-spin-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// SPIN's verdicts on a model: (assertion violation found, invalid end state found); `None`
/// for a search SPIN could not finish without finding an error (a loop inside an atomic
/// sequence makes its depth-first search run into the depth bound: SPIN stores no states
/// inside atomic sequences; an unbounded counter; the time limit of a run), or for a model
/// SPIN rejects (an unconditional self-loop). An error when `spin` or `gcc` fails.
pub fn verdicts(promela: &str) -> Result<(Option<bool>, Option<bool>), String> {
    let dir = scratch_dir()?;
    let result = verdicts_in(&dir, promela);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn verdicts_in(dir: &Path, promela: &str) -> Result<(Option<bool>, Option<bool>), String> {
    std::fs::write(dir.join("model.pml"), promela).map_err(|e| format!("write model: {e}"))?;
    run(dir, "spin", &["-a", "model.pml"])?;
    run(dir, "gcc", &["-O1", "-DVECTORSZ=4096", "-o", "pan", "pan.c"])?;
    let errors = |flag: &str| -> Result<Option<bool>, String> {
        // A model with unbounded counters has no finite state space: SPIN's search is cut
        // after PAN_SECONDS (no "errors:" line then, so no answer) instead of running on.
        let (out, timed_out) = run_timed(dir, &[PAN_SECONDS, "./pan", flag, "-m200000", "-w22"])?;
        // A search cut by the timeout may still print a summary of the part it explored (on
        // a loaded machine even for a small model): no answer either.
        if timed_out {
            return Ok(None);
        }
        // SPIN rejects some models outright ("unconditional self-loop"): no answer.
        let Some(n) = out.lines().find_map(|l| l.split("errors:").nth(1)).and_then(|v| v.trim().parse::<usize>().ok())
        else {
            return Ok(None);
        };
        Ok(if n == 0 && out.contains("max search depth too small") { None } else { Some(n > 0) })
    };
    Ok((errors("-E")?, errors("-A")?))
}

/// The most invalid end states whose trails are replayed; past it, no answer.
const MAX_TRAILS: usize = 400;

/// A deadlock as the checker names it: per thread, `None` when done, the labels it waits at
/// otherwise (as [`crate::interp::Deadlock`]).
pub type Deadlock = Vec<(String, Option<BTreeSet<String>>)>;

/// Every invalid end state SPIN finds in the model, by the deadlock's name; `None` where SPIN
/// gives no answer (as for [`verdicts`]), where its search ran into the depth bound, or where
/// it finds more than `MAX_TRAILS` (400) invalid end states. An error when `spin` or `gcc` fails, or a trail does not read as expected.
pub fn deadlocks(promela: &str) -> Result<Option<BTreeSet<Deadlock>>, String> {
    let dir = scratch_dir()?;
    let result = deadlocks_in(&dir, promela);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn deadlocks_in(dir: &Path, promela: &str) -> Result<Option<BTreeSet<Deadlock>>, String> {
    std::fs::write(dir.join("model.pml"), promela).map_err(|e| format!("write model: {e}"))?;
    run(dir, "spin", &["-a", "model.pml"])?;
    run(dir, "gcc", &["-O1", "-DVECTORSZ=4096", "-o", "pan", "pan.c"])?;
    let (out, timed_out) = run_timed(dir, &[PAN_SECONDS, "./pan", "-A", "-c0", "-e", "-m200000", "-w22"])?;
    let Some(n) = out.lines().find_map(|l| l.split("errors:").nth(1)).and_then(|v| v.trim().parse::<usize>().ok())
    else {
        return Ok(None);
    };
    // A search cut by the depth bound may have missed invalid end states: no answer, whatever
    // it found.
    if timed_out || out.contains("max search depth too small") || n > MAX_TRAILS {
        return Ok(None);
    }
    let lines: Vec<&str> = promela.lines().collect();
    let threads: Vec<String> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("active proctype t_").and_then(|r| r.split('(').next()))
        .map(str::to_owned)
        .collect();
    let mut found = BTreeSet::new();
    for k in 1..=n {
        let replay = run(dir, "spin", &[&format!("-t{k}"), "model.pml"])?;
        found.insert(end_state(&replay, &lines, &threads)?);
    }
    Ok(Some(found))
}

/// The deadlock at the end of a trail's replay (`spin -tK`): where each process stands, read
/// from the list of processes after `#processes:`.
fn end_state(replay: &str, model: &[&str], threads: &[String]) -> Result<Deadlock, String> {
    let mut stands: Vec<(String, Option<BTreeSet<String>>)> = threads.iter().map(|t| (t.clone(), None)).collect();
    let list = replay.split("#processes:").nth(1).ok_or_else(|| format!("no process list in\n{replay}"))?;
    for line in list.lines().filter(|l| l.contains("proc ") && l.contains("model.pml:")) {
        if line.contains("<valid end state>") {
            continue;
        }
        let name = line.split("(t_").nth(1).and_then(|r| r.split(':').next()).ok_or_else(|| format!("read {line}"))?;
        let at: usize = line
            .split("model.pml:")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("read {line}"))?;
        // The point the process stands at: the nearest `pcK:` line at or before its line.
        let point = model[..at.min(model.len())].iter().rev().find(|l| l.starts_with("pc")).copied().unwrap_or("");
        if point.starts_with("pc_end") {
            continue;
        }
        let waits = point.split("/* waits at ").nth(1).and_then(|r| r.split(" */").next()).unwrap_or("");
        let labels: BTreeSet<String> = waits.split_whitespace().map(str::to_owned).collect();
        let slot = stands.iter_mut().find(|(t, _)| t == name).ok_or_else(|| format!("no thread {name}"))?;
        slot.1 = Some(labels);
    }
    Ok(stands)
}

fn run(dir: &Path, cmd: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(cmd).args(args).current_dir(dir).output().map_err(|e| format!("{cmd}: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(format!("{cmd} {args:?} failed:\n{text}"));
    }
    Ok(text)
}

/// `timeout ARGS` in `dir`: the output, and whether the timeout stopped the command (exit
/// status 124).
fn run_timed(dir: &Path, args: &[&str]) -> Result<(String, bool), String> {
    let out = Command::new("timeout").args(args).current_dir(dir).output().map_err(|e| format!("timeout: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    Ok((text, out.status.code() == Some(124)))
}

/// Whether our verdicts (assertion failure reachable, deadlock reachable) agree with SPIN's
/// where SPIN gave an answer.
pub fn agree(ours: (bool, bool), spin: (Option<bool>, Option<bool>)) -> bool {
    spin.0.is_none_or(|b| b == ours.0) && spin.1.is_none_or(|d| d == ours.1)
}
