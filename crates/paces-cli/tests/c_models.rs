//! The command line on C models: `.c` files (or `--lang c`) go to the C frontend, and
//! `export --c` prints a Cwhile program in the dialect.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn paces(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_paces"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn model(name: &str) -> String {
    format!("{}/../paces-c/tests/models/{name}.c", env!("CARGO_MANIFEST_DIR"))
}

const PUBLISH_LINE_16_FAILS: &str = "bad: assertion at line 16 fails";

#[test]
fn a_c_file_is_checked_by_its_line_labels() {
    let out = paces(&["check", &model("publish")], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains(PUBLISH_LINE_16_FAILS), "{}", text(&out.stdout));
}

#[test]
fn a_c_file_is_repaired() {
    let out = paces(&["repair", &model("publish")], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("move line 10 `ready = true` below line 11 `data = PAYLOAD`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn lang_c_reads_standard_input_as_c() {
    let source = std::fs::read(model("publish")).unwrap();
    let out = paces(&["check", "--lang", "c", "-"], Some(&source));
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains(PUBLISH_LINE_16_FAILS), "{}", text(&out.stdout));
    // Without --lang the text is recognised as C; read as Cwhile it is a syntax error.
    let out = paces(&["check", "-"], Some(&source));
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains(PUBLISH_LINE_16_FAILS), "{}", text(&out.stdout));
    let out = paces(&["check", "--lang", "cwhile", "-"], Some(&source));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn c_errors_are_rendered_with_the_c_source() {
    let out = paces(&["check", "--lang", "c", "-"], Some(b"int a[2];\nvoid t() { }\nvoid main() { t(); }\n"));
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("error[C0101]") && err.contains("<stdin>:1:6"), "{err}");
}

#[test]
fn export_c_prints_a_model_that_reads_back() {
    let paper1 = paces_heldin::path("paper1").display().to_string();
    let out = paces(&["export", "--c", &paper1], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let c = out.stdout;
    assert!(text(&c).contains("void main() {"), "{}", text(&c));
    let back = paces(&["check", "--lang", "c", "-"], Some(&c));
    assert_eq!(back.status.code(), Some(1), "paper1 is buggy: {}", text(&back.stdout));
}

/// A scratch folder of this test run.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("paces-c-models-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The lines where two texts differ: each without the lines both begin and end with.
fn differing<'t>(a: &'t str, b: &'t str) -> (Vec<&'t str>, Vec<&'t str>) {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    (a[head..a.len() - tail].to_vec(), b[head..b.len() - tail].to_vec())
}

/// `paces repair model.c -o out.c` writes the input with the repair applied and nothing else
/// changed: the diff is the moved lines, the file reads back as a correct C model, and the
/// JSON report's `repaired_program` is the same text.
#[test]
fn a_repaired_c_file_is_its_source_with_the_repair_applied() {
    let paper1 = format!("{}/../../examples/paper1.c", env!("CARGO_MANIFEST_DIR"));
    let out_file = scratch_dir("paper1").join("out.c");
    let out_name = out_file.to_str().unwrap();
    let out = paces(&["repair", &paper1, "-o", out_name], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "the program goes to the file");
    assert!(text(&out.stderr).contains("move line 9 `x = 1` below line 11 `z = 1`"), "{}", text(&out.stderr));
    let (source, fixed) = (std::fs::read_to_string(&paper1).unwrap(), std::fs::read_to_string(&out_file).unwrap());
    let (before, after) = differing(&source, &fixed);
    assert_eq!(before, ["    x = 1;", "    y = 1;", "    z = 1;"], "{fixed}");
    assert_eq!(after, ["    y = 1;", "    z = 1;", "    x = 1;"], "{fixed}");
    let check = paces(&["check", out_name], None);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
    let json = paces(&["repair", "--format", "json", &paper1], None);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["repaired_program"], serde_json::json!(fixed));
}

/// An added section is an `atomicBegin();` line and an `atomicEnd();` line; the comments stay.
#[test]
fn an_added_section_is_written_as_begin_and_end_lines() {
    let out = paces(&["repair", &model("counter")], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (source, fixed) = (std::fs::read_to_string(model("counter")).unwrap(), text(&out.stdout));
    let (before, after) = differing(&source, &fixed);
    let inside =
        ["    tmp = count;      // read", "    tmp++;            // add", "    count = tmp;      // write back"];
    assert_eq!(before, inside, "{fixed}");
    assert_eq!(after, [&["    atomicBegin();"][..], &inside, &["    atomicEnd();"]].concat(), "{fixed}");
}

/// A C model already correct is printed as it is.
#[test]
fn a_correct_c_file_is_printed_as_it_is() {
    let out = paces(&["repair", &model("params")], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), std::fs::read_to_string(model("params")).unwrap());
}

/// When the layout cannot take the repair (the two statements to swap are what one macro
/// expands to), no program is written: C stays C, never Cwhile; the run lists the changes,
/// says why on stderr (with `--quiet` too) and exits 1.
#[test]
fn a_layout_that_cannot_take_the_repair_writes_no_cwhile() {
    let source = b"#include <pthread.h>\n#define PUBLISH b = 1; a = 1\nint a, b;\n\
        void *t(void *p) { PUBLISH; return 0; }\nvoid *u(void *p) { if (b == 1) __VERIFIER_assert(a == 1); return 0; }\n\
        int main() { pthread_t x, y; pthread_create(&x, 0, t, 0); pthread_create(&y, 0, u, 0); return 0; }\n";
    let out = paces(&["repair", "--lang", "pthread", "-"], Some(source));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("the repair cannot be written into this C source"), "{stderr}");
    assert!(stderr.contains("changes:"), "{stderr}");
    let quiet = paces(&["repair", "-q", "--lang", "pthread", "-"], Some(source));
    assert_eq!(quiet.status.code(), Some(1));
    assert!(text(&quiet.stderr).contains("cannot be written into this C source"), "{}", text(&quiet.stderr));
    let json = paces(&["repair", "--format", "json", "--lang", "pthread", "-"], Some(source));
    assert_eq!(json.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["repaired_program"], serde_json::Value::Null);
    assert_eq!(doc["layout_kept"], false);
}

/// The paper's tool's `nondet` in every form its models write it (`while(nondet==1)`, `x =
/// nondet;`, `if (nondet == 1)`, `while (spins < nondet)`): the model is read, its bug found
/// and repaired in the C file, within the bound the drawn values put on it (exit 3).
#[test]
fn nondet_in_every_form_is_read_checked_and_repaired() {
    let out = paces(&["check", &model("draws")], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("bad: assertion at line 19 fails"), "{}", text(&out.stdout));
    let out = paces(&["repair", &model("draws")], None);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("atomic [line 8 `level = 1`; line 9 `level = level + 1 + extra`]")
            && stderr.contains("nondeterministic values in 0..1"),
        "{stderr}"
    );
    let written = text(&out.stdout);
    assert!(
        written.contains("  atomicBegin();\n  level = 1;\n  level = level + 1 + extra;\n  atomicEnd();\n"),
        "{written}"
    );
}

/// `--verbose` ends with the diff of the input file and the repaired file, both C: the moved
/// statement leaves its line and comes back below `z = 1;`, and no Cwhile text shows.
#[test]
fn a_verbose_c_repair_shows_the_diff_of_the_c_files() {
    let paper1 = format!("{}/../../examples/paper1.c", env!("CARGO_MANIFEST_DIR"));
    let out = paces(&["repair", &paper1, "--verbose"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let diff = &stderr[stderr.find("  diff:\n").unwrap_or_else(|| panic!("{stderr}"))..];
    assert!(diff.contains("    -    x = 1;\n") && diff.contains("    +    x = 1;\n"), "{diff}");
    assert!(diff.contains("         z = 1;\n") && !diff.contains(":="), "{diff}");
}
