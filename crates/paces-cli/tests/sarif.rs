//! `--format sarif` of `check` and `repair`, validated against the SARIF 2.1.0 JSON schema and
//! read for what it says: rules, the failing step's line, one thread flow per thread in the
//! trace's order, and fixes that rewrite the input into the repaired program.
//!
//! The schema is the OASIS standard's `sarif-schema-2.1.0.json`, as the crate `serde-sarif`
//! 0.8.0 ships it (`src/schema.json`): cargo downloads that crate into its cache for a scratch
//! manifest under the target folder (`cargo metadata`), and the test reads the file there. The
//! schema is not kept in this repository. Without it (no registry reachable) the test is skipped
//! with a note, except when the environment variable `CI` is set: there it fails.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{paces, scratch, text};
use serde_json::Value;

/// The crate whose package holds the schema, and its version.
const SCHEMA_CRATE: (&str, &str) = ("serde-sarif", "0.8.0");

/// The SARIF 2.1.0 schema from [`SCHEMA_CRATE`]'s package, or why it cannot be had.
fn fetch_schema() -> Result<Value, String> {
    let (name, version) = SCHEMA_CRATE;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sarif-schema");
    std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    // Its own workspace: the target folder lies inside this repository's.
    let manifest = format!(
        "[package]\nname = \"sarif-schema\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[dependencies]\n\
         {name} = \"={version}\"\n\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata failed: {}", text(&out.stderr)));
    }
    let meta: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let package = meta["packages"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == name && p["version"] == version))
        .ok_or(format!("cargo metadata lists no {name} {version}"))?;
    let path = PathBuf::from(package["manifest_path"].as_str().unwrap_or_default()).with_file_name("src/schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    let id = schema["$id"].as_str().unwrap_or_default();
    if !id.ends_with("sarif-schema-2.1.0.json") {
        return Err(format!("{}: not the SARIF 2.1.0 schema (its $id is `{id}`)", path.display()));
    }
    Ok(schema)
}

/// The `pattern` of the `language` properties (of a run and of a tool component) in the
/// standard's schema: no ECMA 262 regular expression (its last `]` closes nothing), so the
/// validator refuses the schema with it.
const LANGUAGE_PATTERN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";

/// `schema` without [`LANGUAGE_PATTERN`] (the logs checked here set no `language`, which
/// [`sarif`] asserts).
fn without_language_pattern(mut schema: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                if map.get("pattern").and_then(Value::as_str) == Some(LANGUAGE_PATTERN) {
                    map.remove("pattern");
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut schema);
    schema
}

/// The validator of the SARIF 2.1.0 schema; `None` (the test skips) when the schema cannot be
/// had outside CI.
fn validator() -> Option<jsonschema::Validator> {
    let schema = match fetch_schema() {
        Ok(s) => s,
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "CI is set but the SARIF schema cannot be had: {why}");
            eprintln!("skipped: the SARIF 2.1.0 schema cannot be had ({why})");
            return None;
        }
    };
    let v = jsonschema::options().should_validate_formats(true).build(&without_language_pattern(schema));
    let v = v.unwrap_or_else(|e| panic!("the schema compiles: {e}"));
    // It tells: a driver needs a name, and a file name is a URI reference.
    let nameless = serde_json::json!({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]});
    assert!(!v.is_valid(&nameless));
    let place = |uri: &str| {
        serde_json::json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": [
            {"message": {"text": "m"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}]}]}]})
    };
    assert!(v.is_valid(&place("%3Cstdin%3E")) && !v.is_valid(&place("<stdin>")));
    Some(v)
}

/// Runs `paces ARGS`, parses stdout as a SARIF log and validates it; the log and the exit code.
#[track_caller]
fn sarif(v: &jsonschema::Validator, args: &[&str]) -> (Value, i32) {
    let out = paces(args);
    let stdout = text(&out.stdout);
    let log: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stdout}"));
    let errors: Vec<String> = v.iter_errors(&log).map(|e| format!("{} at {}", e, e.instance_path())).collect();
    assert!(errors.is_empty(), "{args:?}: not valid SARIF 2.1.0:\n{}\n{stdout}", errors.join("\n"));
    assert_eq!(log["version"], "2.1.0");
    assert!(!stdout.contains("\"language\""), "the schema's `language` pattern was left out: {stdout}");
    assert_eq!(log["runs"].as_array().map(Vec::len), Some(1));
    (log, out.status.code().unwrap_or(-1))
}

fn results(log: &Value) -> &Vec<Value> {
    log["runs"][0]["results"].as_array().expect("results")
}

/// Checks the first code flow of `result` against the trace of `paces check --format json`
/// (`trace`: steps with thread index and text; `threads`: their names): one thread flow per
/// thread that takes a step, each step in its thread's flow with the statement's text, and
/// `executionOrder` numbering the steps in the trace's order.
#[track_caller]
fn flow_matches(result: &Value, trace: &[Value], threads: &[Value]) {
    let flows = result["codeFlows"][0]["threadFlows"].as_array().expect("thread flows");
    let mut taking: Vec<&str> =
        trace.iter().map(|s| threads[s["thread"].as_u64().unwrap() as usize].as_str().unwrap()).collect();
    taking.sort_unstable();
    taking.dedup();
    let ids: Vec<&str> = flows.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids, taking, "one thread flow per thread that takes a step");
    for (k, step) in trace.iter().enumerate() {
        let name = threads[step["thread"].as_u64().unwrap() as usize].as_str().unwrap();
        let flow = flows.iter().find(|f| f["id"] == name).unwrap();
        let at = flow["locations"].as_array().unwrap().iter().find(|l| l["executionOrder"] == k + 1);
        let at = at.unwrap_or_else(|| panic!("step {} is not in the flow of {name}", k + 1));
        let message = at["location"]["message"]["text"].as_str().unwrap();
        assert!(message.starts_with(step["text"].as_str().unwrap()), "step {}: {message} vs {step}", k + 1);
        assert!(at["location"]["physicalLocation"]["region"]["startLine"].as_u64().is_some(), "{at}");
    }
    for flow in flows {
        let orders: Vec<u64> =
            flow["locations"].as_array().unwrap().iter().filter_map(|l| l["executionOrder"].as_u64()).collect();
        assert!(orders.windows(2).all(|w| w[0] < w[1]), "{orders:?}");
    }
}

/// The text of `old` with the replacements of `fix` (one change, regions of lines and columns
/// counted in characters from 1) applied, as a reader of SARIF applies them.
fn apply(old: &str, fix: &Value) -> String {
    let offset = |region: &Value, line: &str, column: &str| {
        let (line, column) = (region[line].as_u64().unwrap() as usize, region[column].as_u64().unwrap() as usize);
        let start: usize = old.split_inclusive('\n').take(line - 1).map(str::len).sum();
        old[start..].char_indices().nth(column - 1).map_or(old.len(), |(i, _)| start + i)
    };
    let changes = fix["artifactChanges"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "one file changes");
    let mut ranges: Vec<(usize, usize, &str)> = changes[0]["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let d = &r["deletedRegion"];
            (
                offset(d, "startLine", "startColumn"),
                offset(d, "endLine", "endColumn"),
                r["insertedContent"]["text"].as_str().unwrap(),
            )
        })
        .collect();
    ranges.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut new = old.to_owned();
    for (start, end, inserted) in ranges {
        new.replace_range(start..end, inserted);
    }
    new
}

/// `paces check` and `paces repair` of one example in SARIF: the failing assertion at
/// `line`, its trace as `check --format json` gives it, and a fix that turns the file into what
/// `paces repair` prints, replacing a line with `moved` in it.
fn check_and_repair(v: &jsonschema::Validator, file: &str, line: u64, moved: &str) {
    let (log, status) = sarif(v, &["check", file, "--format", "sarif"]);
    assert_eq!(status, 1, "exit codes as with text");
    let rules: Vec<&str> = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["assertion-failure", "deadlock", "atomic-livelock", "division-by-zero", "shift-out-of-range"]);
    let found = results(&log);
    assert_eq!(found.len(), 1, "{log}");
    let r = &found[0];
    assert_eq!(
        (r["ruleId"].as_str(), r["ruleIndex"].as_u64(), r["level"].as_str()),
        (Some("assertion-failure"), Some(0), Some("error"))
    );
    let place = &r["locations"][0]["physicalLocation"];
    assert_eq!(place["artifactLocation"]["uri"], file, "the file as given");
    assert_eq!(place["region"]["startLine"], line, "the failing assertion's line");
    let json: Value = serde_json::from_slice(&paces(&["check", file, "--format", "json"]).stdout).unwrap();
    flow_matches(r, json["trace"].as_array().unwrap(), json["threads"].as_array().unwrap());
    assert!(r.get("fixes").is_none(), "a check offers no fix");

    let (log, status) = sarif(v, &["repair", file, "--format", "sarif"]);
    assert_eq!(status, 0);
    let found = results(&log);
    assert_eq!(found.len(), 1, "{log}");
    assert_eq!(found[0]["ruleId"], "assertion-failure");
    assert_eq!(found[0]["locations"][0]["physicalLocation"]["region"]["startLine"], line);
    let fixes = found[0]["fixes"].as_array().expect("the repair as a fix");
    let source = std::fs::read_to_string(file).unwrap();
    let repaired = text(&paces(&["repair", file]).stdout);
    assert_eq!(apply(&source, &fixes[0]), repaired, "the fix writes what `paces repair` prints");
    let inserted: Vec<&str> = fixes[0]["artifactChanges"][0]["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["insertedContent"]["text"].as_str())
        .collect();
    assert!(inserted.iter().any(|t| t.contains(moved)), "{inserted:?}");
}

#[test]
fn check_and_repair_write_valid_sarif() {
    let Some(v) = validator() else { return };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let (cw, c) = (root.join("paper1.cw"), root.join("paper1.c"));
    // Line 26: `3: assert(z == 1);`; the repair moves `A` after `C`.
    check_and_repair(&v, cw.to_str().unwrap(), 26, "A: x := 1;");
    // Line 17: `assert(z == 1);` of `thread2`; the repair moves `x = 1;` after `z = 1;`.
    check_and_repair(&v, c.to_str().unwrap(), 17, "x = 1;");
}

#[test]
fn deadlocks_no_repair_and_bad_input_in_sarif() {
    let Some(v) = validator() else { return };
    // Both threads wait from the start: a deadlock with no step before it.
    let stuck = scratch(
        "sarif",
        "stuck.cw",
        "var x = 0, y = 0;\nthread a {\n  await(y == 1);\n  x := 1;\n}\nthread b {\n  await(x == 1);\n  y := 1;\n}\n",
    );
    let (log, status) = sarif(&v, &["check", &stuck, "--format", "sarif", "--all"]);
    assert_eq!(status, 1);
    let found = results(&log);
    assert_eq!(found.len(), 1, "{log}");
    assert_eq!(found[0]["ruleId"], "deadlock");
    let lines: Vec<u64> = found[0]["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["physicalLocation"]["region"]["startLine"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [3, 7], "each blocked await is a location");
    let ids: Vec<&str> =
        found[0]["codeFlows"][0]["threadFlows"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a", "b"], "each waiting thread has its flow");

    // Fails alone: no repair, no fix, and the message says why.
    let alone = scratch("sarif", "alone.cw", "var x = 0;\nthread t {\n  x := 1;\n  assert(x == 2);\n}\n");
    let (log, status) = sarif(&v, &["repair", &alone, "--format", "sarif"]);
    assert_eq!(status, 1);
    let found = results(&log);
    assert_eq!(found.len(), 1, "{log}");
    assert!(found[0].get("fixes").is_none(), "{log}");
    let message = found[0]["message"]["text"].as_str().unwrap();
    assert!(message.contains("no repair") && message.contains("fails running alone"), "{message}");

    let bad = scratch("sarif", "bad.cw", "var x;\nthread t {\n  x := ;\n}\n");
    let (log, status) = sarif(&v, &["check", &bad, "--format", "sarif"]);
    assert_eq!(status, 2);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let region = &invocation["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!((region["startLine"].as_u64(), region["startColumn"].as_u64()), (Some(3), Some(8)));
    assert!(results(&log).is_empty());
}

#[test]
fn traces_has_no_sarif() {
    let out = paces(&["traces", "--format", "sarif", "x.cw"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
