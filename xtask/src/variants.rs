//! `cargo xtask variants`: the loop on the injected-bug variants of the driver models
//! (`examples/variants/`), in mixed mode: stop reason, iterations, cost, the repair, and the
//! wall time seen from outside. usb-serial's model deadlocks on purpose (its port work item
//! waits at 518 when no work and no stop comes), so the runs keep the original's deadlocks
//! (`--keep-deadlocks`), as `cargo xtask table` does.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::table::{build_paces, run_repair_within};

/// Seconds each run may take: the rtl8169 variants need a few exhaustive checks of minutes.
const TIME_LIMIT: &str = "900";

/// Runs every variant and prints the table (markdown) on stdout; the raw reports go to `out`.
pub fn variants(out: &Path) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let binary = build_paces()?;
    let mut files: Vec<_> = std::fs::read_dir(root.join("examples/variants"))
        .map_err(|e| format!("cannot read examples/variants: {e}"))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cw"))
        .collect();
    files.sort();
    let mut table = String::from(
        "| variant | result | iterations | cost (atomic, inversions) | optimum | repair | time |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mut raw = Vec::new();
    for file in &files {
        let name = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        eprintln!("xtask: {name}");
        let run = run_repair_within(&binary, file, &["--keep-deadlocks"], TIME_LIMIT)?;
        let json = &run.json;
        let cost = &json["cost"];
        let (atomic, inversions) = (cost["atomic_weight"].as_u64(), cost["inversions"].as_u64());
        let cost_text = match (atomic, inversions) {
            (Some(a), Some(i)) => format!("({a}, {i})"),
            _ => "-".to_owned(),
        };
        // The variant has a bug, so every repair costs more than nothing; a single swap is the
        // least cost there is.
        let optimum = match (atomic, inversions) {
            (Some(0), Some(1)) => "(0, 1): the least cost",
            _ => "not known",
        };
        let repair: Vec<String> = json["transformations"]
            .as_array()
            .map(|ts| ts.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        let _ = writeln!(
            table,
            "| {name} | {} | {} | {cost_text} | {optimum} | {} | {:.1} s |",
            json["stop_reason"].as_str().unwrap_or("-"),
            json["iterations"],
            if repair.is_empty() { "-".to_owned() } else { repair.join("; ") },
            run.seconds
        );
        raw.push(serde_json::json!({ "variant": name, "report": json, "seconds": run.seconds }));
    }
    print!("{table}");
    let text = serde_json::to_string_pretty(&raw).map_err(|e| e.to_string())?;
    std::fs::write(out, text + "\n").map_err(|e| format!("cannot write {}: {e}", out.display()))
}
