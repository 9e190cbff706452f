//! `cargo xtask table`: the paper's Table 1, measured here, mixed (PACES) against bad-only
//! (CEGIS), with the ablations of the learner. The table's runs keep the original's deadlocks
//! (`--keep-deadlocks`), as the paper's tool did; one more mixed run per benchmark runs with no
//! flag, as a user does (the assertions repaired, then the deadlocks removed where the space
//! can), its answer in the column `default`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

/// What the paper (Table 1) reports for one benchmark.
struct Paper {
    loc: u32,
    threads: u32,
    mixed: &'static str,
    bad_only: &'static str,
    /// Mixed-mode wall time in seconds, when the paper gives one.
    mixed_seconds: Option<f64>,
}

/// One expectation on the repaired program, from the manifest's known fix.
enum Expect {
    /// These labels stand in this relative order in one block.
    Order(&'static [&'static str]),
    /// These labels lie in one added atomic section.
    Section(&'static [&'static str]),
}

struct Bench {
    name: &'static str,
    paper: Paper,
    /// `None` where the known fix is not expressible in Cwhile (explained in the docs).
    known: Option<&'static [Expect]>,
}

use Expect::{Order, Section};

const BENCHES: &[Bench] = &[
    Bench {
        name: "ex1",
        paper: Paper { loc: 60, threads: 3, mixed: "1", bad_only: "2 / 2", mixed_seconds: None },
        known: Some(&[Order(&["32", "2", "1"])]),
    },
    Bench {
        name: "ex2",
        paper: Paper { loc: 37, threads: 2, mixed: "2", bad_only: "5 / 6", mixed_seconds: None },
        known: Some(&[Order(&["25", "23", "24"])]),
    },
    Bench {
        name: "ex3",
        paper: Paper { loc: 35, threads: 3, mixed: "1", bad_only: "2 / 2", mixed_seconds: None },
        known: Some(&[Order(&["10", "12", "13", "11"])]),
    },
    Bench {
        name: "ex4",
        paper: Paper { loc: 60, threads: 3, mixed: "1", bad_only: "2 / 2", mixed_seconds: None },
        known: Some(&[Section(&["c1_4", "c1_6if"]), Section(&["c2_4", "c2_6if"])]),
    },
    Bench {
        name: "ex5",
        paper: Paper { loc: 43, threads: 4, mixed: "1", bad_only: "8 / 3", mixed_seconds: None },
        known: Some(&[Section(&["15", "19"])]),
    },
    Bench {
        name: "ex-regr",
        paper: Paper { loc: 30, threads: 3, mixed: "2", bad_only: "2 / 2", mixed_seconds: None },
        known: Some(&[Section(&["10", "11"])]),
    },
    Bench {
        name: "paper1",
        paper: Paper { loc: 28, threads: 3, mixed: "1", bad_only: "3 / 3", mixed_seconds: None },
        known: Some(&[Order(&["B", "C", "A"])]),
    },
    Bench {
        name: "dv1394",
        paper: Paper { loc: 81, threads: 3, mixed: "1", bad_only: "51 / 5", mixed_seconds: Some(17.0) },
        known: Some(&[Order(&["NR", "3"]), Order(&["I", "PF"]), Section(&["1", "NR"]), Section(&["E", "H"])]),
    },
    Bench {
        name: "iwl3945",
        paper: Paper { loc: 66, threads: 3, mixed: "1", bad_only: "2 / 2", mixed_seconds: Some(5.0) },
        known: Some(&[Order(&["A", "B", "H", "CDEFG"])]),
    },
    Bench {
        name: "lc-rc",
        paper: Paper { loc: 40, threads: 4, mixed: "10", bad_only: "179 / 203", mixed_seconds: Some(9.0) },
        known: Some(&[Order(&["3", "4", "5", "6", "1", "2"])]),
    },
    Bench {
        name: "rtl8169",
        paper: Paper { loc: 405, threads: 7, mixed: "7", bad_only: ">100 / 8", mixed_seconds: Some(3300.0) },
        known: Some(&[
            Order(&["477", "476"]),
            Order(&["605", "604"]),
            Order(&["512", "510"]),
            Order(&["363", "353"]),
            Section(&["549", "550"]),
        ]),
    },
    Bench {
        name: "usb-serial",
        paper: Paper { loc: 410, threads: 7, mixed: "4", bad_only: "6 / 6", mixed_seconds: Some(4560.0) },
        known: Some(&[Order(&["178", "183", "184", "185", "190", "191", "199", "188", "187", "194", "195"])]),
    },
];

/// Seconds each run may take (`paces repair --time-limit`): a run that needs more is reported
/// as `time-limit` in the table.
const TIME_LIMIT: &str = "120";

/// One run of `paces repair --format json`, with the wall time seen from outside.
pub(crate) struct Run {
    pub(crate) json: Value,
    pub(crate) seconds: f64,
}

pub(crate) fn run_repair(binary: &Path, file: &Path, extra: &[&str]) -> Result<Run, String> {
    run_repair_within(binary, file, extra, TIME_LIMIT)
}

/// [`run_repair`] with its own `--time-limit`, in seconds.
pub(crate) fn run_repair_within(binary: &Path, file: &Path, extra: &[&str], limit: &str) -> Result<Run, String> {
    let start = Instant::now();
    let output = Command::new(binary)
        .arg("repair")
        .arg(file)
        .args(["--format", "json", "--quiet", "--time-limit", limit])
        .args(extra)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    let json: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "`paces repair {} {}` printed no JSON ({e}); stderr: {}",
            file.display(),
            extra.join(" "),
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    Ok(Run { json, seconds })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    if xs.is_empty() {
        return f64::NAN;
    }
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Whether the repaired candidate meets every expectation of the known fix.
fn matches_known(json: &Value, expects: &[Expect]) -> bool {
    let blocks: Vec<Vec<String>> = json["candidate"]["blocks"]
        .as_array()
        .map(|bs| {
            bs.iter()
                .map(|b| {
                    b.as_array()
                        .map(|xs| xs.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    let sections: Vec<Vec<String>> = json["candidate"]["sections"]
        .as_array()
        .map(|ss| {
            ss.iter()
                .map(|s| {
                    s["items"]
                        .as_array()
                        .map(|xs| xs.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    expects.iter().all(|e| match e {
        Order(labels) => blocks.iter().any(|b| {
            let positions: Option<Vec<usize>> = labels.iter().map(|l| b.iter().position(|x| x == l)).collect();
            positions.is_some_and(|p| p.windows(2).all(|w| w[0] < w[1]))
        }),
        Section(labels) => sections.iter().any(|s| labels.iter().all(|l| s.iter().any(|x| x == l))),
    })
}

/// The column `default`: what the run with no flag ends with (its stop, iterations and, for a
/// repair, its cost), how many deadlocks of the original it removed and kept, and its time.
fn default_answer(run: &Run) -> String {
    let json = &run.json;
    let stop = text(&json["stop_reason"]);
    let cost = match (&json["cost"]["atomic_weight"], &json["cost"]["inversions"]) {
        (Value::Number(a), Value::Number(i)) if stop == "repaired" => format!(", cost ({a}, {i})"),
        _ => String::new(),
    };
    let fates = json["deadlock_fates"].as_array().cloned().unwrap_or_default();
    let count = |fate: &str| fates.iter().filter(|d| d["fate"] == fate).count();
    let deadlocks = match (count("removed"), count("kept")) {
        (0, 0) => String::new(),
        (removed, kept) => format!("; deadlocks {removed} removed, {kept} kept"),
    };
    format!("{stop} ({} iterations{cost}{deadlocks}), {:.1} s", text(&json["iterations"]), run.seconds)
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Builds the `paces` binary in release mode and returns its path, as cargo reports it (so
/// `CARGO_TARGET_DIR` and `--target-dir` are honoured).
pub(crate) fn build_paces() -> Result<PathBuf, String> {
    eprintln!("xtask: cargo build --release -p paces-cli");
    let output = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "-p", "paces-cli", "--message-format=json"])
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("`cargo build --release -p paces-cli` failed ({})", output.status));
    }
    executable_of(&String::from_utf8_lossy(&output.stdout), "paces")
        .ok_or_else(|| "cargo built paces-cli but reported no `paces` executable".to_string())
}

/// The executable of the binary target `name` among cargo's JSON messages.
fn executable_of(messages: &str, name: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .filter(|m| m["target"]["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "bin")))
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

/// Runs the table and prints it; writes the JSON next to `out`.
pub fn table(runs: usize, out: &Path) -> Result<(), String> {
    let binary = build_paces()?;
    let mut md = String::new();
    let mut rows = Vec::new();
    md.push_str(
        "| benchmark | LOC | threads | states | good traces | iterations mixed | iterations bad-only | median time mixed | median time bad-only | fix found (mixed) | matches known fix | paper mixed / bad-only (ce1 / ce2) | paper time mixed | ratio | default |\n",
    );
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let mut ablation = String::from(
        "| benchmark | full+fallback: iterations | simplified: iterations | simplified: fix | no fallback: iterations | no fallback: fix |\n|---|---|---|---|---|---|\n",
    );
    let total = Instant::now();
    for bench in BENCHES {
        let file = paces_heldin::path(bench.name);
        let mut mixed = Vec::new();
        let mut bad = Vec::new();
        for _ in 0..runs {
            mixed.push(run_repair(&binary, &file, &["--mode", "mixed", "--keep-deadlocks"])?);
            bad.push(run_repair(&binary, &file, &["--mode", "bad-only", "--keep-deadlocks"])?);
        }
        let simplified = run_repair(&binary, &file, &["--mode", "mixed", "--learn", "simplified", "--keep-deadlocks"])?;
        let no_fallback = run_repair(&binary, &file, &["--mode", "mixed", "--no-fallback", "--keep-deadlocks"])?;
        let default = run_repair(&binary, &file, &[])?;
        let m = &mixed[0].json;
        let b = &bad[0].json;
        let t_mixed = median(mixed.iter().map(|r| r.seconds).collect());
        let t_bad = median(bad.iter().map(|r| r.seconds).collect());
        let stop_ok =
            m["stop_reason"].as_str() == Some("repaired") || m["stop_reason"].as_str() == Some("already-correct");
        let fix = m["transformations"]
            .as_array()
            .map(|ts| ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("; "))
            .unwrap_or_default();
        let matches = match bench.known {
            Some(expects) if stop_ok => {
                if matches_known(m, expects) {
                    "yes"
                } else {
                    "no"
                }
            }
            Some(_) => "no (not repaired)",
            None => "n/a (no known fix)",
        };
        let ratio = match bench.paper.mixed_seconds {
            Some(p) if stop_ok => format!("{:.0}x", p / t_mixed),
            _ => "-".to_owned(),
        };
        let iterations = |j: &Value| {
            let it = text(&j["iterations"]);
            match j["stop_reason"].as_str() {
                Some("repaired") | Some("already-correct") => it,
                Some(other) => format!("{it} ({other})"),
                None => it,
            }
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {:.3} s | {:.3} s | {} | {} | {} / {} | {} | {} | {} |",
            bench.name,
            text(&m["program"]["lines"]),
            text(&m["program"]["threads"]),
            text(&m["states_explored"]),
            text(&m["good_traces"]),
            iterations(m),
            iterations(b),
            t_mixed,
            t_bad,
            if fix.is_empty() { "-".into() } else { fix.replace('|', "\\|") },
            matches,
            bench.paper.mixed,
            bench.paper.bad_only,
            bench.paper.mixed_seconds.map_or("-".to_owned(), |s| format!("{s} s")),
            ratio,
            default_answer(&default).replace('|', "\\|"),
        );
        let fix_of = |j: &Value| {
            j["transformations"]
                .as_array()
                .map(|ts| ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("; "))
                .unwrap_or_default()
                .replace('|', "\\|")
        };
        let _ = writeln!(
            ablation,
            "| {} | {} | {} | {} | {} | {} |",
            bench.name,
            iterations(m),
            iterations(&simplified.json),
            fix_of(&simplified.json),
            iterations(&no_fallback.json),
            fix_of(&no_fallback.json),
        );
        rows.push(serde_json::json!({
            "benchmark": bench.name,
            "paper": {"loc": bench.paper.loc, "threads": bench.paper.threads, "mixed_iterations": bench.paper.mixed,
                      "bad_only_iterations": bench.paper.bad_only, "mixed_seconds": bench.paper.mixed_seconds},
            "mixed": m, "bad_only": b,
            "median_seconds": {"mixed": t_mixed, "bad_only": t_bad},
            "runs": runs,
            "matches_known_fix": matches,
            "ablation": {"simplified": simplified.json, "no_fallback": no_fallback.json},
            "default": default.json,
        }));
    }
    let _ = writeln!(md, "\nWhole table: {:.1} s for {} runs per mode.", total.elapsed().as_secs_f64(), runs);
    println!("{md}\n### Ablations (mixed mode)\n\n{ablation}");
    let json = serde_json::json!({ "runs": runs, "rows": rows });
    std::fs::write(out, serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?)
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    eprintln!("xtask: wrote {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{executable_of, BENCHES};

    /// The table has one row per held-in benchmark.
    #[test]
    fn the_table_covers_every_benchmark() {
        let mut ours: Vec<&str> = BENCHES.iter().map(|b| b.name).collect();
        ours.sort_unstable();
        assert_eq!(ours, paces_heldin::NAMES);
    }

    #[test]
    fn the_binary_is_found_where_cargo_says_it_is() {
        let messages = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"paces","kind":["lib"]},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"paces","kind":["bin"]},"executable":"/elsewhere/release/paces"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        assert_eq!(executable_of(messages, "paces"), Some("/elsewhere/release/paces".into()));
        assert_eq!(executable_of(messages, "other"), None);
    }
}
