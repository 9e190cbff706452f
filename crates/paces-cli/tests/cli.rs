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
    assert!(stdout.contains("var x = 0, y = 0, z = 0;\n\nthread thread1 {\n  A: x := 1;\n"), "{stdout}");
    assert!(out.stderr.is_empty());
    // Every comment line of the file is kept, in order.
    let source = std::fs::read_to_string(example("paper1")).unwrap();
    let comments = |t: &str| t.lines().filter_map(|l| l.find("//").map(|i| l[i..].to_owned())).collect::<Vec<_>>();
    assert!(!comments(&source).is_empty());
    assert_eq!(comments(&stdout), comments(&source));
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
    // Two `var` declarations (canonical text has one); the unlabelled statement stays so.
    let path = scratch("non-canonical.cw", b"// header\n\nvar x = 0;\nvar y = 0;\n\nthread t {\n  x := 1;\n}\n");
    let out = paces(&["fmt", "--check", &path], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("not in canonical form"), "{}", text(&out.stderr));
    let out = paces(&["fmt", &path], None);
    assert_eq!(text(&out.stdout), "// header\n\nvar x = 0, y = 0;\n\nthread t {\n  x := 1;\n}\n");
}

/// Every shipped example (`examples/*.cw`, `examples/*.c`, `examples/variants/*.cw`), as its
/// path under `examples/`, sorted.
fn shipped_examples() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut out = Vec::new();
    for (dir, prefix) in [(root.clone(), ""), (root.join("variants"), "variants/")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if name.ends_with(".cw") || name.ends_with(".c") {
                out.push(format!("{prefix}{name}"));
            }
        }
    }
    out.sort();
    out
}

/// `fmt --check` accepts every shipped example: each is its own formatted text (a C file is
/// printed as written once it reads), a fixed point of `fmt`.
#[test]
fn fmt_check_accepts_the_shipped_examples() {
    let examples = shipped_examples();
    assert!(examples.len() >= 25, "{examples:?}");
    let root = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    for name in &examples {
        let path = format!("{root}/{name}");
        let check = paces(&["fmt", "--check", &path], None);
        assert_eq!(check.status.code(), Some(0), "{name}: {}", text(&check.stderr));
        assert!(check.stdout.is_empty() && check.stderr.is_empty(), "{name}");
        let out = paces(&["fmt", &path], None);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        assert_eq!(out.stdout, std::fs::read(&path).unwrap(), "{name}");
    }
}

/// `fmt` keeps a C file C: it is printed as written, never as Cwhile, and a file that does not
/// read is refused.
#[test]
fn fmt_keeps_c_as_written() {
    let source = b"int x;\nvoid t() {\n  x = 1;   // spaced as its author likes\n}\nvoid main() { t(); }\n";
    let out = paces(&["fmt", "--lang", "c", "-"], Some(source));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(out.stdout, source);
    let bad = paces(&["fmt", "--lang", "c", "-"], Some(b"int x;\nvoid t() { x = ; }\n"));
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
}

#[test]
fn fmt_reads_stdin() {
    let out = paces(&["fmt", "-"], Some(b"var x;\nthread t { x := 1; assert(x == 1); }\n"));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "var x = 0;\n\nthread t {\n  x := 1;\n  assert(x == 1);\n}\n");
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
    let needles = [
        "int g_x = 0;",
        "active proctype t_thread1()",
        "pc0: if /* waits at 1 */\n  :: (g_x == (1)); goto pc1\n  fi;",
        "assert((g_z == (1))); goto pc_end",
    ];
    for needle in needles {
        assert!(pml.contains(needle), "{needle} missing in:\n{pml}");
    }
}

/// A program whose atomic block waits after its first step has no Promela model: the export
/// refuses it with exit 2, naming the block and where it stands.
#[test]
fn export_promela_refuses_a_wait_inside_an_atomic_block() {
    let path =
        scratch("inner-wait.cw", b"var x = 0;\nthread t {\n  K: atomic {\n    x := 1;\n    await(x == 1);\n  }\n}\n");
    let out = paces(&["export", "--promela", &path], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert!(err.contains("atomic block `K` at 3:6 waits after its first step"), "{err}");
    // The checker accepts the same program.
    let out = paces(&["check", &path], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// The checker's statistics once, with singular and plural right.
#[test]
fn check_prints_its_statistics_once() {
    let path = scratch("one.cw", b"var x = 0;\nthread a { A: x := 1; }\n");
    let out = paces(&["check", &path], None);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("1 transition,"), "{stdout}");
    assert_eq!(stdout.matches(" s\n").count() + stdout.matches("s;").count(), 1, "{stdout}");
    assert!(!stdout.contains("0.000s"), "{stdout}");
}

/// A division by zero is named as one.
#[test]
fn division_by_zero_is_named() {
    let path = scratch("div.cw", b"var x = 0, y = 1;\nthread a { q1: y := 10 / x; }\n");
    let out = paces(&["check", &path], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("bad: division by zero at q1"), "{}", text(&out.stdout));
}

/// A shift by an amount outside 0..63 is named as one, in words and in JSON.
#[test]
fn shift_out_of_range_is_named() {
    let path = scratch("shift.cw", b"var x = 64, y = 1;\nthread a { q1: y := y << x; }\n");
    let out = paces(&["check", &path], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("bad: shift out of range at q1"), "{}", text(&out.stdout));
    let out = paces(&["check", &path, "--format", "json"], None);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&v["shift_out_of_range"], &v["division_by_zero"]),
        (&serde_json::json!(true), &serde_json::json!(false))
    );
}

/// `-o` is checked before the repair starts and honoured with `--format json`.
#[test]
fn repair_output_file_is_checked_first_and_honoured_in_json() {
    let out = paces(&["repair", &example("paper1"), "-o", "/nonexistent/dir/fixed.cw"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("cannot write `/nonexistent/dir/fixed.cw`"), "{err}");
    assert!(!err.contains("repaired"), "no repair ran: {err}");
    let path = scratch("fixed-json.cw", b"");
    std::fs::remove_file(&path).unwrap();
    let out = paces(&["repair", &example("paper1"), "-o", &path, "--format", "json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&path).expect("-o written with --format json");
    assert!(written.contains("B: y := 1;"), "{written}");
    assert!(text(&out.stdout).contains("\"schema\": \"paces-repair/1\""));
}

/// A Cwhile program already correct is printed as it is, comments and layout included.
#[test]
fn a_correct_cwhile_file_is_printed_as_it_is() {
    let source = "// fine as it is\nvar x;\nthread t { x := 1;   assert(x == 1); } // one thread\n";
    let path = scratch("correct.cw", source.as_bytes());
    let out = paces(&["repair", &path], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("already correct"));
    assert_eq!(text(&out.stdout), source);
}

/// The summary says that the original deadlocks, with and without `--verbose`: a bug (exit 1,
/// no change removes it), or with `--keep-deadlocks` kept (already correct).
#[test]
fn repair_says_the_original_deadlocks() {
    let path = scratch("dead.cw", b"var x = 0;\nthread a { A: await(x == 1); }\nthread b { B: x := 0; }\n");
    for (extra, code, verdict) in [
        (&[][..], 1, "no repair"),
        (&["--verbose"][..], 1, "no repair"),
        (&["--keep-deadlocks"][..], 0, "already correct"),
        (&["--keep-deadlocks", "--verbose"][..], 0, "already correct"),
    ] {
        let mut args = vec!["repair", path.as_str()];
        args.extend_from_slice(extra);
        let out = paces(&args, None);
        assert_eq!(out.status.code(), Some(code), "{extra:?}");
        let err = text(&out.stderr);
        assert!(err.contains(verdict), "{extra:?}: {err}");
        assert!(err.contains("the original program deadlocks"), "{err}");
        assert!(err.contains("a at A"), "{err}");
    }
}

/// A good-trace search cut by its length bound is reported in text and JSON.
#[test]
fn repair_says_when_the_good_trace_search_hit_a_bound() {
    let body = |v: &str| (0..251).map(|i| format!("{v} := {i}; ")).collect::<String>();
    let src =
        format!("var x = 0, y = 0;\nthread a {{ {} }}\nthread b {{ {} assert(x == 250); }}\n", body("x"), body("y"));
    let path = scratch("long.cw", src.as_bytes());
    let out = paces(&["traces", &path], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("trace length bound: the good traces are a sample"), "{}", text(&out.stdout));
    let out = paces(&["traces", &path, "--format", "json"], None);
    assert!(text(&out.stdout).contains("\"length\""), "{}", text(&out.stdout));
}

/// The small usage points: `-q` with `-v`, `export` without a language, negative numbers,
/// `fmt --check`'s help, `paces help`.
#[test]
fn usage_is_consistent() {
    let out = paces(&["repair", &example("paper1"), "-q", "-v"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot be used with"), "{}", text(&out.stderr));
    let out = paces(&["export", &example("paper1")], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("export needs a target language"), "{}", text(&out.stderr));
    let out = paces(&["repair", &example("paper1"), "--time-limit", "-1"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("--time-limit takes a positive number") && !err.contains("-- -1"), "{err}");
    let out = paces(&["fmt", "--help"], None);
    assert!(!text(&out.stdout).contains("Print nothing;"), "{}", text(&out.stdout));
    // `help` is a subcommand like the others: it has its own `--help`, and names subcommands.
    let out = paces(&["help", "--help"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Usage: paces help"), "{}", text(&out.stdout));
    let out = paces(&["help", "repair"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Usage: paces repair"), "{}", text(&out.stdout));
    let out = paces(&["help"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("Exit codes"), "{}", text(&out.stdout));
    let out = paces(&["help", "nonsense"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no subcommand `nonsense`"), "{}", text(&out.stderr));
}

/// Paper 1 without labels: the repair swaps `thread1`'s writes.
const UNLABELLED: &[u8] = b"var x, y, z;\nthread thread1 { x := 1; y := 1; z := 1; }\n\
thread thread2 { await(x == 1); await(y == 1); assert(z == 1); }\nthread thread3 { await(z == 1); assert(y == 1); }\n";

#[test]
fn repair_labels_only_what_the_report_names() {
    let out = paces(&["repair", "-"], Some(UNLABELLED));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stderr.contains("changes:\n    move thread1.0 below thread1.2\n  iterations"), "{stderr}");
    // The moved statements carry the labels the report names; the others none.
    assert!(stdout.contains("  thread1.1: y := 1;\n  thread1.2: z := 1;\n  thread1.0: x := 1;\n"), "{stdout}");
    assert!(stdout.contains("thread thread2 {\n  await(x == 1);\n  await(y == 1);\n  assert(z == 1);\n}"), "{stdout}");
    // The printed program parses back to the same text.
    let again = paces(&["fmt", "-"], Some(stdout.as_bytes()));
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(text(&again.stdout).contains("  thread1.1: y := 1;\n  thread1.2: z := 1;\n  thread1.0: x := 1;\n"));
}

#[test]
fn traces_show_each_step_beside_its_label() {
    let src = b"var x, m;\nthread a { lock(m); x := 1; unlock(m); }\nthread b { assert(x == 0); }\n";
    let out = paces(&["check", "-"], Some(src));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for row in ["a.0.wait  await(m == 0)", "a.0.set   m := 1", "a.1       x := 1", "b.0  assert(x == 0)  <- fails"] {
        assert!(stdout.contains(row), "no `{row}` in\n{stdout}");
    }
    let json = paces(&["check", "--format", "json", "-"], Some(src));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let text_of = |label: &str| {
        let steps = v["trace"].as_array().unwrap();
        steps.iter().find(|s| s["label"] == label).map(|s| s["text"].clone())
    };
    assert_eq!(text_of("a.0.set"), Some(serde_json::json!("m := 1")));
    assert_eq!(text_of("b.0"), Some(serde_json::json!("assert(x == 0)")));
}

/// A repaired Cwhile file is its source with the changed blocks rewritten: the header and
/// every comment stay, each moved statement with the comment lines above it, and `diff`
/// shows only the repair.
#[test]
fn repair_keeps_the_comments_and_layout_of_a_cwhile_source() {
    let src = b"// Header: what the model is.
var x = 0, y = 0, z = 0;

thread writer {
  // first the flag
  x := 1;   // the flag
  y := 1;
  z := 1;
}

thread reader {
  await(x == 1);
  assert(y == 1);   // the data is there
}
";
    let out = paces(&["repair", "-"], Some(src));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let fixed = text(&out.stdout);
    let source = text(src);
    for comment in source.lines().filter_map(|l| l.find("//").map(|i| &l[i..])) {
        assert!(fixed.contains(comment), "`{comment}` lost:\n{fixed}");
    }
    // Only the writer's lines moved: the same lines, in another order, and labels where the
    // report names a statement.
    let (before, after): (Vec<&str>, Vec<&str>) = (source.lines().collect(), fixed.lines().collect());
    assert_eq!(before.len(), after.len(), "{fixed}");
    assert_eq!(before[..3], after[..3]);
    assert_eq!(before[9..], after[9..]);
    let strip = |l: &str| {
        l.split_once(": ")
            .filter(|(a, _)| a.trim().starts_with("writer."))
            .map_or(l.to_owned(), |(a, b)| format!("{}{b}", &a[..a.len() - a.trim_start().len()]))
    };
    let mut moved: Vec<String> = after[3..9].iter().map(|l| strip(l)).collect();
    let mut kept: Vec<String> = before[3..9].iter().map(|l| (*l).to_owned()).collect();
    moved.sort();
    kept.sort();
    assert_eq!(moved, kept, "{fixed}");
    assert_ne!(after[3..9], before[3..9], "nothing moved:\n{fixed}");
}

#[test]
fn time_limit_and_quiet_mean_the_same_in_check_and_repair() {
    for command in ["check", "repair"] {
        let help = text(&paces(&[command, "--help"], None).stdout);
        assert!(help.contains("--time-limit <TIME_LIMIT>"), "{help}");
        assert!(!help.contains("--max-time"), "the old spelling is a hidden alias: {help}");
        assert!(help.contains("Write nothing on stderr but errors"), "{help}");
        for flag in ["--time-limit", "--max-time"] {
            let out = paces(&[command, &example("paper1"), flag, "0"], None);
            assert_eq!(out.status.code(), Some(2), "{command} {flag}");
            let err = text(&out.stderr);
            assert!(err.contains("--time-limit takes a positive number of seconds"), "{command} {flag}: {err}");
        }
        let out = paces(&[command, &example("paper1"), "--time-limit", "60", "-q"], None);
        assert_eq!(out.status.code(), Some(if command == "check" { 1 } else { 0 }), "{command}");
        assert!(out.stderr.is_empty(), "{command} -q writes nothing on stderr: {}", text(&out.stderr));
        assert!(!out.stdout.is_empty(), "{command} -q still answers on stdout");
    }
}

#[test]
fn standard_input_is_read_in_the_language_its_text_starts_like() {
    let c = std::fs::read(paces_heldin::path("paper1").with_extension("c")).unwrap();
    let out = paces(&["check", "-"], Some(&c));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("<stdin>: bad: assertion at line 17 fails"), "{}", text(&out.stdout));
    let cwhile = std::fs::read(paces_heldin::path("paper1")).unwrap();
    let out = paces(&["check", "-"], Some(&cwhile));
    assert!(text(&out.stdout).starts_with("<stdin>: bad: 3 fails"), "{}", text(&out.stderr));
    let pthread = b"// a comment first\n#include <pthread.h>\nint x;\nvoid *t(void *a) { x = 1; return 0; }\n\
                    int main() { pthread_t a; pthread_create(&a, 0, t, 0); pthread_join(a, 0); \
                    __VERIFIER_assert(x == 1); return 0; }\n";
    let out = paces(&["check", "-"], Some(pthread));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A guess that fails to parse says what it guessed and how to choose.
    let out = paces(&["check", "-"], Some(b"int x = 0;\nvoid t() { x = 1 + ; }\nvoid main() { t(); }\n"));
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("note: the input was read as C (the paper's dialect), guessed from its text"), "{err}");
    assert!(err.contains("add --lang cwhile or --lang pthread"), "{err}");
    // A text that starts with a Cwhile keyword is Cwhile for sure: no note.
    let out = paces(&["check", "-"], Some(b"// x\nvar x;\nthread t { x := ; }\n"));
    let err = text(&out.stderr);
    assert!(err.contains("error[E0004]") && !err.contains("guessed"), "{err}");
    // A named `.cw` file is Cwhile whatever it starts like: no guess, no note.
    let path = scratch("named.cw", b"int x;\n");
    let err = text(&paces(&["check", &path], None).stderr);
    assert!(err.contains("error[E0004]") && !err.contains("guessed"), "{err}");
}

#[test]
fn help_names_every_input_language() {
    for command in ["repair", "check", "traces", "fmt", "export"] {
        let help = text(&paces(&["help", command], None).stdout);
        assert!(help.contains("The program: Cwhile, C or pthread C (see --lang)"), "{command}: {help}");
        assert!(!help.contains("The Cwhile file"), "{command}: {help}");
    }
}

#[test]
fn a_failure_that_needs_no_other_thread_has_no_scheduling_repair() {
    let src = b"var x = 0;\nthread t { a: x := 1; b: assert(x == 2); }\nthread u { c: x := 3; }\n";
    let out = paces(&["repair", "-"], Some(src));
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "no repair in this space: the failure (`b` fails) needs no other thread: thread `t` fails running \
             alone, so no scheduling repair (reordering or atomic section) exists"
        ),
        "{err}"
    );
    assert!(!err.contains("has no cycle"), "{err}");
}

#[test]
fn a_missing_semicolon_is_reported_at_the_end_of_its_statement() {
    let cases: [(&str, &[u8], &str); 3] = [
        ("missing.cw", b"var x = 0;\nthread t {\n  a: x := 1\n  b: x := 2;\n}\n", "missing.cw:3:12"),
        ("missing.c", b"int x = 0;\nvoid t() {\n  x = 1 // one\n  x = 2;\n}\nvoid main() { t(); }\n", "missing.c:3:8"),
        (
            "missing-pthread.c",
            b"#include <pthread.h>\nint x = 0;\nvoid *t(void *a) {\n  x = 1\n  return 0;\n}\n\
              int main() { pthread_t a; pthread_create(&a, 0, t, 0); return 0; }\n",
            "missing-pthread.c:4:8",
        ),
    ];
    for (name, src, at) in cases {
        let path = scratch(name, src);
        let out = paces(&["check", &path], None);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = text(&out.stderr);
        assert!(err.contains("expected `;`"), "{name}: {err}");
        assert!(err.contains(at), "{name}: {err}");
        assert!(err.contains("^ `;` expected here"), "{name}: {err}");
    }
}

#[test]
fn the_good_trace_step_bound_names_its_flag() {
    let out = paces(&["repair", &example("paper1"), "--good-steps", "5"], None);
    let err = text(&out.stderr);
    assert!(err.contains("warning: the good-trace search stopped at its step bound (--good-steps raises it)"), "{err}");
    let out = paces(&["repair", &example("paper1")], None);
    assert!(!text(&out.stderr).contains("step bound"), "{}", text(&out.stderr));
}

#[test]
fn verbose_draws_each_trace_as_a_chart_with_repetitions_counted() {
    let src = b"var x = 0, y = 0;\nthread t { L1: while (x < 3) { L2: x := x + 1; } L3: assert(y == 0); }\n\
                thread u { L4: y := 1; L5: y := 0; }\n";
    let out = paces(&["repair", "-", "--verbose"], Some(src));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let chart = "paces: <stdin>: iteration 1: bad trace: `L3` fails (10 steps); 1 fix; next: atomic [L4; L5]\n\
                 \x20   #  t                        u\n\
                 \x20   0  (L1.body L2) x3 L1.exit\n\
                 \x20   7                           L4\n\
                 \x20   8  L3 <- fails\n\
                 \x20   9                           L5\n";
    assert!(err.contains(chart), "{err}");
}

#[test]
fn the_time_parts_sum_to_the_total() {
    // ex2's loop walks and lists its small space in cost order: listing is one of the parts.
    let out = paces(&["repair", &example("ex2"), "--format", "json"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let time = doc["time_ms"].as_object().unwrap();
    let parts = ["read", "explore", "good", "complete", "learn", "solve", "apply", "list", "print", "other"];
    let keys: Vec<&str> = time.keys().map(String::as_str).filter(|k| *k != "total").collect();
    let mut sorted = parts.to_vec();
    sorted.sort_unstable();
    assert_eq!(keys, sorted, "every part is named");
    let sum: f64 = parts.iter().map(|p| time[*p].as_f64().unwrap()).sum();
    let total = time["total"].as_f64().unwrap();
    assert!((sum - total).abs() < 0.01, "the parts ({sum} ms) sum to the total ({total} ms)");
    assert!(time["list"].as_f64().unwrap() > 0.0, "{time:?}");
    // The summary names the parts that show; each left out is under half a millisecond.
    let err = text(&paces(&["repair", &example("ex2")], None).stderr);
    let line = err.lines().find(|l| l.starts_with("  states explored: ")).unwrap();
    let (head, parts) = line.split_once(" s (").unwrap();
    let total: f64 = head.rsplit(' ').next().unwrap().parse().unwrap();
    let shown: Vec<f64> = parts
        .trim_end_matches(')')
        .split(", ")
        .map(|p| p.trim_end_matches(" s").rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    let sum: f64 = shown.iter().sum();
    assert!((sum - total).abs() <= 0.0005 * 11.0, "{line}");
}

/// A section added in a thread leaves the statements after it unlabelled, and they keep the
/// generated names the original gave them: read back, each has the name it has in the original.
#[test]
fn a_repaired_file_keeps_the_original_s_generated_names() {
    let source = "var x = 0, y = 0, t = 0;\nthread t1 {\n  y := 1;\n  x := 1;\n  t := x;\n  assert(t == 1);\n  y := 5;\n}\nthread t2 {\n  y := 2;\n  x := 2;\n  y := 3;\n}\n";
    let path = scratch("names.cw", source.as_bytes());
    let repaired = scratch("names-repaired.cw", b"");
    let out = paces(&["repair", "-q", &path, "-o", &repaired], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&repaired).unwrap();
    assert!(written.contains("atomic {"), "{written}");
    assert!(written.contains("\n  assert(t == 1);\n  y := 5;\n"), "unchanged statements unlabelled: {written}");
    let named = |file: &str| {
        let program = paces_cwhile::parse(&std::fs::read_to_string(file).unwrap()).unwrap();
        let label = |text: &str| {
            program
                .stmts
                .iter()
                .find(|s| program.loc(&s.label).and_then(|l| program.step_text(l)).as_deref() == Some(text))
                .map(|s| s.label.clone())
        };
        (label("assert(t == 1)"), label("y := 5"), label("y := 3"))
    };
    assert_eq!(named(&repaired), named(&path));
    assert_eq!(named(&path).0.as_deref(), Some("t1.3"));
}

/// The elimination graph's memory bound stops a repair (the bug remains: exit 1), and the
/// message names the flag that raises it.
#[test]
fn the_elimination_memory_bound_names_its_flag() {
    let out = paces(&["repair", "--max-elimination-memory", "0", &example("paper1")], None);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("memory bound in learning from a bad trace"), "{stderr}");
    assert!(stderr.contains("(--max-elimination-memory raises it)"), "{stderr}");
}
