//! The real `paces` binary on good and bad inputs: exit codes, stdout, stderr.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn paces(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_paces"));
    cmd.args(args).env_remove("NO_COLOR").stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let mut child = cmd.spawn().expect("the binary runs");
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// The file of a held-in benchmark, as an argument.
fn example(name: &str) -> String {
    paces_heldin::path(name).display().to_string()
}

fn scratch(name: &str, contents: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("paces-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

#[test]
fn fmt_prints_canonical_text() {
    let out = paces(&["fmt", &example("paper1")], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("var x = 0, y = 0, z = 0;\n\nthread thread1 {\n  A: x := 1;\n"), "{stdout}");
    assert!(out.stderr.is_empty());
    // Canonical text is a fixed point, and `--check` accepts it.
    let path = scratch("canonical.cw", stdout.as_bytes());
    let again = paces(&["fmt", &path], None);
    assert_eq!(text(&again.stdout), stdout);
    let check = paces(&["fmt", "--check", &path], None);
    assert_eq!(check.status.code(), Some(0));
    assert!(check.stdout.is_empty() && check.stderr.is_empty());
}

#[test]
fn fmt_check_rejects_non_canonical_text() {
    let out = paces(&["fmt", "--check", &example("paper1")], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("not in canonical form"), "{}", text(&out.stderr));
}

#[test]
fn fmt_reads_stdin() {
    let out = paces(&["fmt", "-"], Some(b"var x;\nthread t { x := 1; assert(x == 1); }\n"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "var x = 0;\n\nthread t {\n  t.0: x := 1;\n  t.1: assert(x == 1);\n}\n");
    let canonical = out.stdout;
    let check = paces(&["fmt", "--check", "-"], Some(&canonical));
    assert_eq!(check.status.code(), Some(0));
}

#[test]
fn bad_input_is_rendered_with_snippet_and_exit_2() {
    let out = paces(&["fmt", "-"], Some(b"var x;\nthread t {\n  y := 1;\n  x := ;\n}\n"));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    // Syntax errors stop before the checks: one error, with file, line, column and caret.
    assert!(err.contains("error[E0004]: unexpected `;`"), "{err}");
    assert!(err.contains("<stdin>:4:8"), "{err}");
    assert!(err.contains("4 │   x := ;"), "{err}");
    assert!(err.contains("^ unexpected here"), "{err}");
    assert!(!err.contains("\u{1b}["), "no colour when stderr is not a terminal: {err}");
    assert!(err.ends_with("paces: <stdin>: 1 error\n"), "{err}");
}

#[test]
fn several_check_errors_are_reported() {
    let path = scratch("checks.cw", b"var x;\nthread t {\n  y := 1;\n  f();\n}\n");
    let out = paces(&["export", "--promela", &path], None);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("error[E0102]") && err.contains("error[E0109]"), "{err}");
    assert!(err.contains("2 errors"), "{err}");
}

#[test]
fn non_utf8_and_missing_files_exit_2() {
    let path = scratch("binary.cw", b"var x;\n\xff\xfe");
    let out = paces(&["fmt", &path], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("error[E0001]"));
    let out = paces(&["fmt", "/nonexistent/dir/file.cw"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read `/nonexistent/dir/file.cw`"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [&["frobnicate"][..], &["fmt"], &["export", &example("paper1")], &[]] {
        let out = paces(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
    }
}

#[test]
fn export_promela() {
    let out = paces(&["export", "--promela", &example("paper1")], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let pml = text(&out.stdout);
    for needle in ["int g_x = 0;", "active proctype t_thread1()", "L3_1: (g_x == (1));", "assert((g_z == (1)));"] {
        assert!(pml.contains(needle), "{needle} missing in:\n{pml}");
    }
}
