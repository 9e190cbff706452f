//! A repaired Cwhile program whose source layout cannot take the repair (two statements of a
//! changed block on one line) is printed in canonical layout with every comment of the source,
//! and the summary and the JSON say that the layout was not kept. A C file's line is split
//! instead; a C repair that C cannot hold writes nothing.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn paces(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_paces"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const CWHILE: &str = "var x, y, z;\n// the writer\nthread thread1 { A: x := 1; B: y := 1; C: z := 1; } // one line\n\
    // the waiter\nthread thread2 { await(x == 1); await(y == 1); assert(z == 1); }\n\
    thread thread3 { await(z == 1); assert(y == 1); } /* end */\n";

const C: &str = "int a, b;\n/* the writer */\nvoid t() { b = 1; a = 1; } // one line\n\
    void u() { assume(b == 1); assert(a == 1); } /* the reader */\nvoid main() { t(); u(); }\n";

/// pthread C whose two statements to swap are what one macro expands to.
const MACRO: &str = "#include <pthread.h>\n#define PUBLISH b = 1; a = 1\nint a, b;\n\
    void *t(void *p) { PUBLISH; return 0; }\nvoid *u(void *p) { if (b == 1) __VERIFIER_assert(a == 1); return 0; }\n\
    int main() { pthread_t x, y; pthread_create(&x, 0, t, 0); pthread_create(&y, 0, u, 0); return 0; }\n";

#[test]
fn a_cwhile_fallback_keeps_the_comments_and_says_so() {
    let out = paces(&["repair", "-"], CWHILE.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    for comment in ["// the writer", "// one line", "// the waiter", "/* end */"] {
        assert!(stdout.contains(comment), "{comment} is lost:\n{stdout}");
    }
    assert!(stdout.contains("  B: y := 1;\n  C: z := 1;\n  A: x := 1;\n"), "{stdout}");
    assert!(paces_cwhile::parse(&stdout).is_ok(), "{stdout}");
    assert!(stderr.contains("the source's layout cannot take the repair"), "{stderr}");
    let out = paces(&["repair", "--format", "json", "-"], CWHILE.as_bytes());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["layout_kept"], false);
    assert!(doc["repaired_program"].as_str().unwrap().contains("// the waiter"));
}

#[test]
fn a_layout_that_takes_the_repair_is_kept_and_not_noted() {
    let spread = CWHILE.replace("A: x := 1; B: y := 1; C: z := 1;", "\n  A: x := 1;\n  B: y := 1;\n  C: z := 1;\n");
    let out = paces(&["repair", "-"], spread.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("layout cannot take"), "{}", text(&out.stderr));
    let out = paces(&["repair", "--format", "json", "-"], spread.as_bytes());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["layout_kept"], true);
}

#[test]
fn a_c_line_of_two_statements_is_split_and_kept() {
    let out = paces(&["repair", "--lang", "c", "-"], C.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stdout.contains("/* the writer */\nvoid t() {\n    a = 1;\n    b = 1;\n} // one line\n"), "{stdout}");
    assert!(!stderr.contains("layout cannot take") && !stderr.contains("cannot be written"), "{stderr}");
}

#[test]
fn a_c_repair_that_c_cannot_hold_writes_no_cwhile() {
    let out = paces(&["repair", "--lang", "pthread", "-"], MACRO.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(stdout, "", "a C file gets no Cwhile");
    assert!(
        stderr.contains("cannot be written into this C source") && stderr.contains("no program is written"),
        "{stderr}"
    );
}
