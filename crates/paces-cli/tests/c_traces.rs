//! A C program's traces are shown in the user's terms (docs/c-frontend.md, "Traces"): every
//! step that `paces check --all` shows, in its text chart, its JSON, its SARIF code flows and
//! its HTML report, is a statement of the file with its line: no Cwhile step (`:=`) and no
//! name the file does not hold (`worker_t_0`, `tmp1`, `started_...`).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{paces, scratch, text};
use serde_json::Value;

/// The example of docs/c-frontend.md's "Traces": a loop with a lock, a statement split into
/// temporaries, created and joined threads.
const HITS: &str = "#include <pthread.h>\n#include <assert.h>\nint hits = 0;\n\
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nvoid *worker(void *arg) {\n  int i;\n\
  for (i = 0; i < 2; i++) {\n    pthread_mutex_lock(&m);\n    hits = hits + 1;\n    pthread_mutex_unlock(&m);\n  }\n\
  hits++;\n  return 0;\n}\nint main(void) {\n  pthread_t t[2];\n  int i;\n\
  for (i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);\n\
  for (i = 0; i < 2; i++) pthread_join(t[i], 0);\n  assert(hits == 6);\n  return 0;\n}\n";

/// The paper's dialect with locks taken in opposite orders: a deadlock.
const LOCK_ORDER: &str = "int a = 0;\nint b = 0;\nvoid t1() {\n  lock(a);\n  lock(b);\n  unlock(b);\n  unlock(a);\n}\n\
void t2() {\n  lock(b);\n  lock(a);\n  unlock(a);\n  unlock(b);\n}\nvoid main() {\n  t1();\n  t2();\n}\n";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The C files the test reads: the example, the frontend's pthread programs and dialect
/// models, and this file's own programs.
fn files() -> Vec<PathBuf> {
    let mut files = vec![root().join("examples/paper1.c")];
    for dir in ["crates/paces-c/tests/pthread", "crates/paces-c/tests/models"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files.push(PathBuf::from(scratch("c-traces", "hits.c", HITS)));
    files.push(PathBuf::from(scratch("c-traces", "lock_order.c", LOCK_ORDER)));
    files
}

/// The identifiers of `text`.
fn identifiers(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_'))
        .collect()
}

/// What a file's shown steps are checked against: its identifiers and its number of lines.
struct Source {
    name: String,
    words: BTreeSet<String>,
    lines: u64,
}

impl Source {
    fn new(path: &Path) -> Source {
        let text = std::fs::read_to_string(path).unwrap();
        let words = identifiers(&text).into_iter().map(str::to_owned).collect();
        Source { name: path.display().to_string(), words, lines: text.lines().count() as u64 }
    }

    /// `shown` is a text the user wrote: no `:=`, every identifier one of the file's (the last
    /// one only begun, when `cut`: the text chart cuts long texts).
    #[track_caller]
    fn user_text(&self, shown: &str, cut: bool) {
        assert!(!shown.contains(":="), "{}: {shown:?} is a Cwhile step", self.name);
        let words = identifiers(shown);
        for (k, w) in words.iter().enumerate() {
            let begun = cut && k + 1 == words.len();
            let known = self.words.contains(*w) || (begun && self.words.iter().any(|s| s.starts_with(w)));
            assert!(known, "{}: `{w}` of {shown:?} is not in the file", self.name);
        }
    }

    #[track_caller]
    fn line(&self, line: &Value, step: &Value) {
        let line = line.as_u64().unwrap_or_else(|| panic!("{}: a step without a line: {step}", self.name));
        assert!((1..=self.lines).contains(&line), "{}: line {line} of {step}", self.name);
    }
}

/// Every step of every trace of a `paces-check-all/1` document.
fn json_steps(doc: &Value) -> Vec<&Value> {
    let lists = ["failures", "deadlocks", "livelocks"];
    lists.iter().flat_map(|l| doc[l].as_array().unwrap()).flat_map(|f| f["trace"].as_array().unwrap()).collect()
}

#[test]
fn every_step_of_a_c_trace_is_a_statement_of_the_file_with_its_line() {
    let mut traces = 0;
    for path in files() {
        let source = Source::new(&path);
        let file = path.display().to_string();
        let report = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-traces-report.html");
        let report = report.display().to_string();
        let out = paces(&["check", "--all", "--format", "json", "--report", &report, &file]);
        assert!(matches!(out.status.code(), Some(0 | 1 | 3)), "{file}: {}", text(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        for thread in doc["threads"].as_array().unwrap() {
            source.user_text(thread.as_str().unwrap(), false);
        }
        for step in json_steps(&doc) {
            source.user_text(step["text"].as_str().unwrap(), false);
            source.line(&step["line"], step);
            assert_eq!(step["label"].as_str(), Some(step["line"].to_string().as_str()), "{step}");
            assert!(!step["locations"].as_array().unwrap().is_empty(), "{step}");
        }
        traces += doc["failures"].as_array().unwrap().len() + doc["deadlocks"].as_array().unwrap().len();
        // The HTML report: each step's box has its line and text in its title.
        let page = std::fs::read_to_string(&report).unwrap();
        for title in page.split("<title>step ").skip(1) {
            let title = title.split("</title>").next().unwrap();
            let (_, shown) = title.split_once(": ").unwrap();
            let (line, shown) = shown.split_once("  ").unwrap_or((shown, ""));
            source.line(&Value::from(line.parse::<u64>().unwrap_or(0)), &Value::from(title));
            source.user_text(&shown.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"), false);
        }
        // The text chart: every row, its cells the line and the text.
        let chart = text(&paces(&["check", "--all", &file]).stdout);
        let figures = |l: &str| l.contains(" states, ") || l.contains(" state, ");
        let rows = chart.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '#'));
        let rows = rows.filter(|l| !figures(l));
        for row in rows {
            let row = row.trim_end_matches("<- fails").trim_end_matches("(blocked)");
            let body = row.split_once(' ').map_or("", |(_, b)| b).trim_end();
            // A copy of an unrolled loop's body follows the (perhaps cut) text: `  [i = 0]`.
            let body = match body.rsplit_once("  [") {
                Some((text, copy)) => {
                    source.user_text(copy, false);
                    text
                }
                None => body,
            };
            source.user_text(body, body.ends_with("..."));
        }
        // SARIF: every code flow's steps with their texts and places.
        let sarif: Value =
            serde_json::from_slice(&paces(&["check", "--all", "--format", "sarif", &file]).stdout).unwrap();
        for result in sarif["runs"][0]["results"].as_array().unwrap() {
            for flow in result["codeFlows"][0]["threadFlows"].as_array().unwrap() {
                source.user_text(flow["id"].as_str().unwrap(), false);
                for l in flow["locations"].as_array().unwrap() {
                    let message = l["location"]["message"]["text"].as_str().unwrap();
                    let shown = message.trim_end_matches(" (fails)").trim_end_matches(" (the cycle starts here)");
                    let shown = shown.trim_end_matches(" (waits here for good)");
                    source.user_text(shown, false);
                    source.line(&l["location"]["physicalLocation"]["region"]["startLine"], l);
                }
            }
        }
    }
    assert!(traces >= 20, "only {traces} traces were shown");
}

/// The example written to a file `name`, and what `paces check` prints of it (its bug found).
fn example_chart(name: &str) -> (String, String) {
    let file = scratch("c-traces", name, HITS);
    let out = paces(&["check", &file]);
    let chart = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{chart}");
    (file, chart)
}

/// The example's trace in words: rows by statement, named by line, threads by function and
/// handle; a loop's steps on its header's row.
#[test]
fn the_example_s_chart_reads_as_its_source() {
    let chart = example_chart("hits-chart.c").1;
    let header = chart.lines().find(|l| l.starts_with('#')).unwrap();
    assert!(header.contains("worker t[0]") && header.contains("worker t[1]") && header.contains("main"), "{chart}");
    for shown in
        ["18  for (i = 0; i < 2; i++)", "5   void *worker(void *arg)", "9   hits = hits + 1", "20  assert(hits == 6)"]
    {
        assert!(chart.contains(shown), "{shown:?} missing:\n{chart}");
    }
    // A statement's steps are one row: `hits = hits + 1` reads and writes `hits` in two steps.
    assert!(!chart.contains("9.2") && !chart.contains(":="), "{chart}");
}

/// Each copy of an unrolled loop's body is its own row, shown with the loop variable's value
/// in it: the example's two `pthread_create` copies are two rows, as are its two joins.
#[test]
fn the_copies_of_an_unrolled_loop_are_rows_of_their_own() {
    let (file, chart) = example_chart("hits-copies.c");
    for call in ["pthread_create(&t[i], 0, worker, 0)", "pthread_join(t[i], 0)"] {
        let rows: Vec<&str> = chart.lines().filter(|l| l.contains(call)).collect();
        assert_eq!(rows.len(), 2, "{call}:\n{chart}");
        assert!(rows[0].trim_end().ends_with("[i = 0]") && rows[1].trim_end().ends_with("[i = 1]"), "{call}:\n{chart}");
    }
    // The JSON rows likewise, each with the one step of its copy.
    let doc: Value = serde_json::from_slice(&paces(&["check", "--all", "--format", "json", &file]).stdout).unwrap();
    let steps = json_steps(&doc);
    let creates: Vec<&Value> =
        steps.iter().copied().filter(|s| s["text"].as_str().unwrap().starts_with("pthread_create")).collect();
    let texts: Vec<&str> = creates.iter().map(|s| s["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        ["pthread_create(&t[i], 0, worker, 0)  [i = 0]", "pthread_create(&t[i], 0, worker, 0)  [i = 1]"],
        "{doc}"
    );
    assert!(creates.iter().all(|s| s["locations"].as_array().unwrap().len() == 1), "{doc}");
}

/// Locks taken in opposite orders by `main` and a created thread, while a third thread ends:
/// a deadlock with a thread done.
const DEADLOCK: &str = "#include <pthread.h>\npthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;\n\
pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;\nint n = 0;\nvoid *helper(void *arg) {\n  n = 1;\n  return 0;\n}\n\
void *worker(void *arg) {\n  pthread_mutex_lock(&b);\n  pthread_mutex_lock(&a);\n  pthread_mutex_unlock(&a);\n\
  pthread_mutex_unlock(&b);\n  return 0;\n}\nint main(void) {\n  pthread_t t, u;\n\
  pthread_create(&u, 0, helper, 0);\n  pthread_create(&t, 0, worker, 0);\n  pthread_mutex_lock(&a);\n\
  pthread_mutex_lock(&b);\n  pthread_mutex_unlock(&b);\n  pthread_mutex_unlock(&a);\n  pthread_join(t, 0);\n\
  pthread_join(u, 0);\n  return 0;\n}\n";

/// Messages name a C program's places by line and its threads as the source does: the
/// verdict, `check --all`'s headings, the JSON `message` and identities, SARIF's messages.
#[test]
fn messages_name_lines_and_the_user_s_threads() {
    let (file, out) = example_chart("hits-messages.c");
    assert!(out.lines().next().unwrap().ends_with(": bad: assertion at line 20 fails"), "{out}");
    let all = text(&paces(&["check", "--all", &file]).stdout);
    assert!(all.contains("\nassertion at line 20 fails ("), "{all}");
    let doc: Value = serde_json::from_slice(&paces(&["check", "--format", "json", &file]).stdout).unwrap();
    assert_eq!(doc["message"], "bad: assertion at line 20 fails", "{doc}");

    let file = scratch("c-traces", "deadlock-messages.c", DEADLOCK);
    let words = "main at line 21, helper u done, worker t at line 11";
    let out = text(&paces(&["check", &file]).stdout);
    assert!(out.lines().next().unwrap().ends_with(&format!(": deadlock: {words}")), "{out}");
    let doc: Value = serde_json::from_slice(&paces(&["check", "--all", "--format", "json", &file]).stdout).unwrap();
    assert_eq!(doc["deadlocks"][0]["deadlock"], words, "{doc}");
    let sarif = text(&paces(&["check", "--format", "sarif", &file]).stdout);
    assert!(sarif.contains(&format!("deadlock: {words}: every thread")), "{sarif}");
    // A repair's history and deadlocks in JSON, and `repair --verbose`'s iteration lines.
    let doc: Value = serde_json::from_slice(&paces(&["repair", "--format", "json", &file]).stdout).unwrap();
    assert_eq!(doc["history"][0]["problem"], format!("deadlock of the original: {words}"), "{doc}");
    assert_eq!(doc["original_deadlocks"][0], words, "{doc}");
    let verbose = text(&paces(&["repair", "--verbose", &file]).stderr);
    assert!(verbose.contains(&format!("iteration 1: deadlock trace: deadlock of the original: {words}")), "{verbose}");
    for out in [&all, &sarif, &verbose] {
        assert!(!out.contains("worker_t") && !out.contains("`20`"), "{out}");
    }
    // The dialect names its threads by function; its places are lines too.
    let file = scratch("c-traces", "lock-order-messages.c", LOCK_ORDER);
    let out = text(&paces(&["check", &file]).stdout);
    assert!(out.lines().next().unwrap().ends_with(": deadlock: t1 at line 5, t2 at line 11"), "{out}");
}
