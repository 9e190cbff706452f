//! `--format json` output of `repair`, `check`, `check --all`, `traces` and of bad input
//! validated against `docs/{repair,check,check-all,traces,error}.schema.json`, and the exit codes of every subcommand on
//! real programs.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn paces(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paces")).args(args).env("NO_COLOR", "1").output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn example(name: &str) -> String {
    paces_heldin::path(name).display().to_string()
}

/// Validates `value` against the subset of JSON Schema the schema file uses (`type` with one
/// name or a list, `enum`, `required`, `properties`, `items`); returns the first violation.
fn validate(schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    if let Some(t) = schema.get("type") {
        let names: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => return Err(format!("{path}: bad schema type")),
        };
        let ok = names.iter().any(|n| match *n {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_u64() || value.is_i64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            _ => false,
        });
        if !ok {
            return Err(format!("{path}: expected {names:?}, got {value}"));
        }
    }
    if value.is_null() {
        return Ok(());
    }
    if let Some(Value::Array(options)) = schema.get("enum") {
        if !options.contains(value) {
            return Err(format!("{path}: {value} is not one of {options:?}"));
        }
    }
    if let (Some(Value::Array(req)), Some(obj)) = (schema.get("required"), value.as_object()) {
        for r in req.iter().filter_map(Value::as_str) {
            if !obj.contains_key(r) {
                return Err(format!("{path}: missing field `{r}`"));
            }
        }
    }
    if let (Some(Value::Object(props)), Some(obj)) = (schema.get("properties"), value.as_object()) {
        for (k, s) in props {
            if let Some(v) = obj.get(k) {
                validate(s, v, &format!("{path}.{k}"))?;
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            validate(items, v, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

fn schema() -> Value {
    schema_of("repair")
}

/// The schema file `docs/NAME.schema.json`.
fn schema_of(name: &str) -> Value {
    let path = root().join(format!("docs/{name}.schema.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Parses `out` as JSON and validates it against `docs/NAME.schema.json`.
#[track_caller]
fn valid(name: &str, out: &str) -> Value {
    let v: Value = serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
    validate(&schema_of(name), &v, "$").unwrap_or_else(|e| panic!("{e}\n{out}"));
    v
}

fn scratch(name: &str, contents: &str) -> String {
    let dir = std::env::temp_dir().join(format!("paces-cli-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

#[test]
fn check_and_traces_json_match_their_schemas() {
    let (status, out, _) = paces(&["check", &example("paper1"), "--format", "json"]);
    assert_eq!(status, 1);
    let v = valid("check", &out);
    assert_eq!(v["threads"], serde_json::json!(["thread1", "thread2", "thread3"]));
    assert_eq!(v["message"], "bad: 3 fails", "the message holds no statistics");
    assert!(v["time_ms"]["total"].is_number());
    let (status, out, _) = paces(&["traces", &example("paper1"), "--format", "json"]);
    assert_eq!(status, 0);
    let v = valid("traces", &out);
    assert_eq!(v["threads"].as_array().unwrap().len(), 3);
    let looping = scratch("loop.cw", "var x = 0;\nthread a { while (true) { x := x + 1; } }\n");
    let (status, out, _) = paces(&["check", &looping, "--format", "json", "--max-states", "50"]);
    assert_eq!(status, 3);
    assert_eq!(valid("check", &out)["verdict"], "bound-reached", "one spelling");
}

#[test]
fn check_all_json_matches_its_schema() {
    let (status, out, _) = paces(&["check", "--all", &example("ex4"), "--format", "json"]);
    assert_eq!(status, 1);
    let v = valid("check-all", &out);
    assert_eq!(v["counts"]["failures"], 2);
    let livelock = scratch("spin.cw", "var x = 0;\nthread a { atomic { while (true) { x := 1 - x; } } }\n");
    let (status, out, _) = paces(&["check", "--all", &livelock, "--format", "json"]);
    assert_eq!(status, 1);
    let v = valid("check-all", &out);
    assert_eq!(v["counts"]["livelocks"], 1, "{out}");
    assert!(v["livelocks"][0]["cycle_start"].is_u64(), "{out}");
    let looping = scratch("loop-all.cw", "var x = 0;\nthread a { while (true) { x := x + 1; } }\n");
    let (status, out, _) = paces(&["check", "--all", &looping, "--format", "json", "--max-states", "50"]);
    assert_eq!(status, 3);
    assert_eq!(valid("check-all", &out)["bound"], "state-bound");
}

#[test]
fn bad_input_gives_a_json_error_document() {
    let bad = scratch("bad.cw", "var x;\nthread t {\n  x := ;\n}\n");
    for sub in ["check", "repair", "traces"] {
        let (status, out, err) = paces(&[sub, &bad, "--format", "json"]);
        assert_eq!(status, 2, "{sub}");
        let v = valid("error", &out);
        assert_eq!(v["errors"][0]["code"], "E0004", "{sub}: {out}");
        assert_eq!((v["errors"][0]["line"].as_u64(), v["errors"][0]["column"].as_u64()), (Some(3), Some(8)));
        assert!(err.contains("error[E0004]"), "stderr keeps the rendered error: {err}");
    }
    let (status, out, _) = paces(&["check", "/nonexistent/x.cw", "--format", "json"]);
    assert_eq!(status, 2);
    assert!(valid("error", &out)["errors"][0]["message"].as_str().unwrap().contains("cannot read"));
    let (status, out, _) = paces(&["repair", &example("paper1"), "--format", "json", "--time-limit", "-1"]);
    assert_eq!(status, 2);
    assert!(valid("error", &out)["errors"][0]["message"].as_str().unwrap().contains("--time-limit"));
}

/// `check --unwind` whose bound cut a path gives no plain "correct": exit 3.
#[test]
fn a_bounded_correct_is_not_a_plain_success() {
    let looping = scratch("count.cw", "var x = 0;\nthread a { while (x < 10) { x := x + 1; } assert(x >= 0); }\n");
    let (status, out, _) = paces(&["check", &looping, "--unwind", "3"]);
    assert_eq!(status, 3, "{out}");
    assert!(out.contains("correct (loops unwound to 3, bound hit)"), "{out}");
    let (status, out, _) = paces(&["check", &looping, "--unwind", "20"]);
    assert_eq!(status, 0, "the bound was not hit: {out}");
}

/// `repair --unwind` whose bound cut a path of the accepted program gives no plain success:
/// exit 3, said in the summary and in JSON; also for "already correct".
#[test]
fn a_bounded_repair_is_not_a_plain_success() {
    let buggy = "var x = 0, y = 0, n = 0;\nthread a { x := 1; y := 1; while (n < 10) { n := n + 1; } }\n\
                 thread b { await(x == 1); assert(y == 1); }\n";
    let buggy = scratch("bounded-repair.cw", buggy);
    let (status, _, err) = paces(&["repair", &buggy, "--unwind", "2"]);
    assert_eq!(status, 3, "{err}");
    assert!(err.contains("repaired") && err.contains("holds only within that bound (exit 3)"), "{err}");
    let (status, out, err) = paces(&["repair", &buggy, "--unwind", "2", "--format", "json"]);
    assert_eq!(status, 3, "{err}");
    let v = valid("repair", &out);
    assert_eq!((v["stop_reason"].as_str(), v["unwind_reached"].as_bool()), (Some("repaired"), Some(true)));
    let (status, out, err) = paces(&["repair", &buggy, "--unwind", "20", "--format", "json"]);
    assert_eq!(status, 0, "the bound was not hit: {err}");
    assert_eq!(valid("repair", &out)["unwind_reached"], false);
    let correct =
        scratch("bounded-correct.cw", "var n = 0;\nthread a { while (n < 10) { n := n + 1; } assert(n >= 0); }\n");
    let (status, _, err) = paces(&["repair", &correct, "--unwind", "2"]);
    assert_eq!(status, 3, "{err}");
    assert!(err.contains("already correct") && err.contains("(exit 3)"), "{err}");
}

#[test]
fn the_validator_rejects_what_it_should() {
    let schema = schema();
    assert!(validate(&schema, &serde_json::json!({}), "$").is_err());
    assert!(validate(&serde_json::json!({"type": "integer"}), &serde_json::json!("1"), "$").is_err());
    assert!(validate(&serde_json::json!({"enum": ["a"]}), &serde_json::json!("b"), "$").is_err());
}

#[test]
fn repair_json_matches_the_schema_for_each_stop_reason() {
    let schema = schema();
    for (file, mode, stop, code) in [
        (example("paper1"), "mixed", "repaired", 0),
        (example("paper1"), "bad-only", "repaired", 0),
        (example("ex3"), "mixed", "repaired", 0),
    ] {
        let (status, out, err) = paces(&["repair", &file, "--format", "json", "--mode", mode]);
        assert_eq!(status, code, "{file}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{file}: not JSON ({e}): {out}"));
        validate(&schema, &v, "$").unwrap();
        assert_eq!(v["stop_reason"], stop);
        assert_eq!(v["mode"], mode);
    }
}

#[test]
fn repair_json_for_already_correct_and_no_repair() {
    let dir = std::env::temp_dir().join(format!("paces-cli-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = dir.join("ok.cw");
    std::fs::write(&ok, "var x = 0;\nthread a { A: x := 1; }\nthread b { B: await(x == 1); C: assert(x == 1); }\n")
        .unwrap();
    let none = dir.join("none.cw");
    std::fs::write(&none, "var x = 0;\nthread a { A: x := 1; }\nthread b { B: assert(x == 1); }\n").unwrap();
    let schema = schema();
    let (status, out, _) = paces(&["repair", ok.to_str().unwrap(), "--format", "json"]);
    assert_eq!(status, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    validate(&schema, &v, "$").unwrap();
    assert_eq!(v["stop_reason"], "already-correct");
    let (status, out, _) = paces(&["repair", none.to_str().unwrap(), "--format", "json"]);
    assert_eq!(status, 1, "no repair exits 1");
    let v: Value = serde_json::from_str(&out).unwrap();
    validate(&schema, &v, "$").unwrap();
    assert_eq!(v["stop_reason"], "no-repair");
    assert!(v["explanation"].is_string());
}

#[test]
fn repair_text_prints_the_program_and_a_summary() {
    let (status, out, err) = paces(&["repair", &example("paper1")]);
    assert_eq!(status, 0, "{err}");
    let b = out.find("B: y := 1;").unwrap();
    let c = out.find("C: z := 1;").unwrap();
    let a = out.find("A: x := 1;").unwrap();
    assert!(b < c && c < a, "B; C; A expected:\n{out}");
    assert!(err.contains("repaired (mixed mode)"), "{err}");
    assert!(err.contains("move A below C"), "{err}");
    let (status, out, err) = paces(&["repair", &example("paper1"), "--quiet"]);
    assert_eq!(status, 0);
    assert!(err.is_empty(), "--quiet prints no summary: {err}");
    assert!(!out.is_empty());
}

#[test]
fn repair_writes_the_output_file_and_dot_graphs() {
    let dir = std::env::temp_dir().join(format!("paces-cli-out-{}", std::process::id()));
    let out_file = dir.join("fixed.cw");
    let dot_dir = dir.join("dot");
    std::fs::create_dir_all(&dir).unwrap();
    let (status, out, err) =
        paces(&["repair", &example("paper1"), "-o", out_file.to_str().unwrap(), "--dot", dot_dir.to_str().unwrap()]);
    assert_eq!(status, 0, "{err}");
    assert!(out.is_empty(), "the program goes to the file, not stdout");
    let fixed = std::fs::read_to_string(&out_file).unwrap();
    let reparsed = paces_cwhile::parse(&fixed).unwrap();
    assert!(
        paces_cwhile::Printer::new(&reparsed).print().contains("  B: y := 1;\n  C: z := 1;\n  A: x := 1;\n"),
        "{fixed}"
    );
    // The file is the source with the moved statement moved: every comment kept.
    let source = std::fs::read_to_string(example("paper1")).unwrap();
    for line in source.lines().filter(|l| l.trim_start().starts_with("//")) {
        assert!(fixed.contains(line), "`{line}` lost:\n{fixed}");
    }
    let dots: Vec<_> = std::fs::read_dir(&dot_dir).unwrap().filter_map(Result::ok).collect();
    assert!(dots.len() >= 3, "trace graph, partial order and fix cycles: {}", dots.len());
    // Each thread's column is headed by the thread's name.
    for d in &dots {
        let text = std::fs::read_to_string(d.path()).unwrap();
        let name = d.file_name().to_string_lossy().into_owned();
        assert!(text.contains("label=\"thread2\"") || text.contains("label=\"thread thread2\""), "{name}:\n{text}");
        assert!(!text.contains("label=\"t0\"") && !text.contains("label=\"thread t0\""), "{name}:\n{text}");
    }
}

#[test]
fn check_exit_codes_and_json() {
    let (status, out, _) = paces(&["check", &example("paper1")]);
    assert_eq!(status, 1, "a failure is reachable");
    assert!(out.contains("3"), "{out}");
    let (status, out, _) = paces(&["check", &example("paper1"), "--format", "json"]);
    assert_eq!(status, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "bad");
    let steps = v["trace"].as_array().unwrap();
    assert!(steps.iter().any(|s| s["failing"] == true && s["label"] == "3"));
    let dir = std::env::temp_dir().join(format!("paces-cli-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ok = dir.join("ok.cw");
    std::fs::write(&ok, "var x = 0;\nthread a { A: x := 1; }\nthread b { B: await(x == 1); C: assert(x == 1); }\n")
        .unwrap();
    let (status, out, _) = paces(&["check", ok.to_str().unwrap()]);
    assert_eq!(status, 0, "{out}");
    let bad = dir.join("bad.cw");
    std::fs::write(&bad, "thread a { x := 1; }\n").unwrap();
    let (status, _, err) = paces(&["check", bad.to_str().unwrap()]);
    assert_eq!(status, 2);
    assert!(err.contains("1:12") || err.contains(":1:"), "line:column in the diagnostic: {err}");
    let (status, _, _) = paces(&["repair", bad.to_str().unwrap()]);
    assert_eq!(status, 2);
}

#[test]
fn traces_lists_good_and_bad_traces() {
    let (status, out, err) = paces(&["traces", &example("paper1"), "--format", "json"]);
    assert_eq!(status, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(!v["good"].as_array().unwrap().is_empty());
    assert_eq!(v["verdict"], "bad");
}

#[test]
fn usage_errors_give_a_json_error_document_with_format_json() {
    for args in [
        &["check", "--format", "json", "--bogus", "x.cw"][..],
        &["repair", "--format=json"],
        &["traces", "--format", "json", "--max-states", "many", "x.cw"],
    ] {
        let (status, out, err) = paces(args);
        assert_eq!(status, 2, "{args:?}: {err}");
        let v = valid("error", &out);
        assert_eq!(v["file"], "", "{args:?}");
        let message = v["errors"][0]["message"].as_str().unwrap();
        assert!(!message.is_empty() && !message.starts_with("error:"), "{args:?}: {message}");
        assert!(err.contains(message.split(' ').next().unwrap()), "{args:?}: stderr keeps the text: {err}");
    }
    let (_, out, _) = paces(&["repair", "--format=json"]);
    assert!(out.contains("required arguments were not provided: <FILE>"), "{out}");
    // Without JSON on the command line, stdout stays empty.
    let (status, out, _) = paces(&["check", "--bogus", "x.cw"]);
    assert_eq!((status, out.as_str()), (2, ""));
}
