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

const PUBLISH_LINE_16_FAILS: &str = "bad: 16 fails";

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
    assert!(text(&out.stderr).contains("swap 10 <-> 11"), "{}", text(&out.stderr));
}

#[test]
fn lang_c_reads_standard_input_as_c() {
    let source = std::fs::read(model("publish")).unwrap();
    let out = paces(&["check", "--lang", "c", "-"], Some(&source));
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains(PUBLISH_LINE_16_FAILS), "{}", text(&out.stdout));
    // The same bytes read as Cwhile are a syntax error.
    let out = paces(&["check", "-"], Some(&source));
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
    let paper1 = format!("{}/../../examples/paper1.cw", env!("CARGO_MANIFEST_DIR"));
    let out = paces(&["export", "--c", &paper1], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let c = out.stdout;
    assert!(text(&c).contains("void main() {"), "{}", text(&c));
    let back = paces(&["check", "--lang", "c", "-"], Some(&c));
    assert_eq!(back.status.code(), Some(1), "paper1 is buggy: {}", text(&back.stdout));
}
