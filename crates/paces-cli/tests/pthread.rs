//! pthread C through the binary: a repair written into the C file and checked again, the
//! nondet range as a bound (exit 3) and as a flag, errors with line and column (exit 2).

use std::process::Command;

fn paces(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paces")).args(args).env("NO_COLOR", "1").output().expect("runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn program(name: &str) -> String {
    format!("{}/../paces-c/tests/pthread/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("paces-pthread-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

#[test]
fn a_lost_update_is_repaired_in_its_own_c() {
    let input = program("lost_update.c");
    let (code, _, _) = paces(&["check", &input]);
    assert_eq!(code, 1);
    let out = temp("lost_update_repaired.c");
    let out_s = out.to_str().expect("utf-8 path");
    let (code, _, summary) = paces(&["repair", &input, "-o", out_s]);
    assert_eq!(code, 0, "{summary}");
    let repaired = std::fs::read_to_string(&out).expect("written");
    let original = std::fs::read_to_string(&input).expect("read");
    assert_ne!(repaired, original);
    // The file is still pthread C: its includes and calls stay, the fix is C lines.
    assert!(repaired.starts_with("#include <pthread.h>"), "{repaired}");
    assert!(
        repaired.contains("__VERIFIER_atomic_begin();") || repaired.lines().count() == original.lines().count(),
        "{repaired}"
    );
    let (code, stdout, _) = paces(&["check", out_s]);
    assert_eq!(code, 0, "{stdout}\n{repaired}");
}

#[test]
fn a_correct_verdict_within_the_nondet_range_is_bounded() {
    let input = program("nondet.c");
    let (code, stdout, _) = paces(&["check", &input]);
    assert_eq!(code, 3, "{stdout}");
    assert!(stdout.contains("correct within bounds: nondeterministic values in 0..1"), "{stdout}");
    let (code, stdout, _) = paces(&["check", "--nondet-range", "0..9", &input]);
    assert_eq!(code, 1, "{stdout}");
    let (code, _, stderr) = paces(&["check", "--nondet-range", "5..1", &input]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn an_exact_model_is_correct_and_an_unread_construct_is_exit_2() {
    let (code, stdout, _) = paces(&["check", &program("mutex.c")]);
    assert_eq!(code, 0, "{stdout}");
    let bad = temp("pointer.c");
    std::fs::write(&bad, "#include <pthread.h>\nint x;\nint *p;\nint main() { p = (int *)x; return 0; }\n")
        .expect("write");
    let (code, _, stderr) = paces(&["check", bad.to_str().expect("utf-8")]);
    assert_eq!(code, 2);
    assert!(stderr.contains("pointer.c:4:18"), "{stderr}");
}

#[test]
fn the_paper_dialect_s_nondet_int_is_a_bound_too() {
    let model = temp("nondet_dialect.c");
    std::fs::write(&model, "int x;\nvoid t1() {\n  x = nondet_int();\n  assert(x <= 1);\n}\nvoid main() { t1(); }\n")
        .expect("write");
    let path = model.to_str().expect("utf-8");
    let (code, stdout, _) = paces(&["check", path]);
    assert_eq!(code, 3, "{stdout}");
    assert!(stdout.contains("nondeterministic values in 0..1"), "{stdout}");
    let (code, _, summary) = paces(&["repair", path]);
    assert_eq!(code, 3, "{summary}");
    assert!(summary.contains("nondeterministic values in 0..1"), "{summary}");
    // Without nondet_int the model is exact.
    std::fs::write(&model, "int x;\nvoid t1() {\n  x = 1;\n  assert(x <= 1);\n}\nvoid main() { t1(); }\n")
        .expect("write");
    assert_eq!(paces(&["check", path]).0, 0);
}

/// `growing.c` checks `a` right after creating both threads that grow it. Its only repairs
/// ran the check before a thread could start (a section holding a create and the check), and
/// no section holds a create (`docs/c-frontend.md`, "The threads' structure"): there is none,
/// and the check keeps its place below both creations.
#[test]
fn a_check_after_the_threads_it_checks_is_not_run_before_them() {
    let input = program("growing.c");
    let (code, _, summary) = paces(&["repair", &input]);
    assert_eq!(code, 1, "{summary}");
    assert!(summary.contains("no repair in this space"), "{summary}");
}

/// A candidate that passes the check by reading its value before the thread that changes it
/// starts is refused by the loop (an iteration of kind `refused`), and the repair it answers
/// reads the checked value after the thread that writes it was created: in `stale_read.c` the
/// cheapest candidate moves main's sample above the create. In `snapshot.c` the stale
/// candidates held a create in a section, which the space no longer has: its repair keeps both
/// reads below both creations without a refusal.
#[test]
fn a_repair_that_makes_a_check_meaningless_is_refused() {
    let run = |name: &str| -> (Vec<String>, String) {
        let (code, json, stderr) = paces(&["repair", &program(name), "--format", "json"]);
        assert_eq!(code, 0, "{name}: {stderr}");
        let doc: serde_json::Value = serde_json::from_str(&json).expect("json");
        let history = doc["history"].as_array().expect("a history");
        let kinds = history.iter().filter_map(|i| i["kind"].as_str().map(str::to_owned)).collect();
        (kinds, doc["repaired_program"].as_str().unwrap_or_default().to_owned())
    };
    let at = |text: &str, needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle} in {text}"));
    let (kinds, repaired) = run("stale_read.c");
    assert!(kinds.iter().any(|k| k == "refused"), "{kinds:?}");
    assert!(at(&repaired, "pthread_create(&w") < at(&repaired, "int sample = level;"), "{repaired}");
    let (_, repaired) = run("snapshot.c");
    assert!(at(&repaired, "pthread_create(&b") < at(&repaired, "int low = lo > CAP;"), "{repaired}");
    assert!(at(&repaired, "pthread_create(&a") < at(&repaired, "int high = hi > CAP;"), "{repaired}");
}

#[test]
fn an_included_header_is_read_and_kept_in_the_repaired_file() {
    let input = program("included.c");
    let (code, stdout, stderr) = paces(&["check", &input]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // The repaired file is written next to the header, so that it reads back with it.
    let out = std::path::Path::new(&input).with_file_name(format!("included_repaired_{}.c", std::process::id()));
    let out_s = out.to_str().expect("utf-8 path").to_owned();
    let (code, _, summary) = paces(&["repair", &input, "-o", &out_s]);
    let repaired = std::fs::read_to_string(&out).unwrap_or_default();
    let (again, stdout, _) = paces(&["check", &out_s]);
    let _ = std::fs::remove_file(&out);
    assert_eq!(code, 0, "{summary}");
    assert!(repaired.contains("#include \"checks.h\""), "{repaired}");
    assert_eq!(again, 0, "{stdout}\n{repaired}");
}

#[test]
fn a_loop_that_creates_threads_is_a_bound_set_by_a_flag() {
    let input = program("spawner.c");
    let (code, stdout, _) = paces(&["check", "--thread-rounds", "1", &input]);
    assert_eq!(code, 3, "{stdout}");
    assert!(stdout.contains("loops that create threads cut after 1 round(s)"), "{stdout}");
    let (code, stdout, _) = paces(&["check", &input]);
    assert_eq!(code, 1, "{stdout}");
}

/// The repair keeps the threads' structure (`docs/c-frontend.md`, "The threads' structure"):
/// two threads taking two mutexes in opposite orders are not run one after the other (the
/// second create stays above the first join), and a helper started before `main`'s own call
/// of the same racy function stays started before it. Each repaired file checks correct.
#[test]
fn a_repair_never_runs_threads_one_after_the_other() {
    for (name, first, second) in
        [("abba.c", "pthread_create(&r", "pthread_join(l"), ("helper.c", "pthread_create(&h", "main's own share")]
    {
        let input = program(name);
        let (code, _, _) = paces(&["check", &input]);
        assert_eq!(code, 1, "{name} has a bug");
        let out = temp(&format!("structure_{name}"));
        let out_s = out.to_str().expect("utf-8 path");
        let (code, _, summary) = paces(&["repair", &input, "-o", out_s]);
        assert_eq!(code, 0, "{name}: {summary}");
        let repaired = std::fs::read_to_string(&out).expect("written");
        assert!(repaired.starts_with("//") && repaired.contains("#include <pthread.h>"), "{repaired}");
        let at = |needle: &str| repaired.find(needle).unwrap_or_else(|| panic!("{needle} in {repaired}"));
        assert!(at(first) < at(second), "{name}: {repaired}");
        let (code, stdout, _) = paces(&["check", out_s]);
        assert_eq!(code, 0, "{name}: {stdout}\n{repaired}");
    }
}

#[test]
fn a_program_with_bool_argc_and_a_thread_local_is_repaired_in_its_own_c() {
    // `bool` from `stdbool.h`, `main(int argc, char **argv)` and a `__thread` counter: the
    // lost update is found, repaired in the C file, and the file reads back and checks.
    let input = program("tally_local.c");
    let (code, stdout, _) = paces(&["check", &input]);
    assert_eq!(code, 1, "{stdout}");
    let out = temp("tally_local_repaired.c");
    let out_s = out.to_str().expect("utf-8 path");
    // Repaired within the bound `argc` puts on the model (a nondet value): exit 3.
    let (code, _, summary) = paces(&["repair", &input, "-o", out_s]);
    assert_eq!(code, 3, "{summary}");
    assert!(summary.contains("nondeterministic values in 0..1"), "{summary}");
    let repaired = std::fs::read_to_string(&out).expect("written");
    assert!(repaired.contains("__thread int mine = 0;") && repaired.contains("int main(int argc, char **argv)"));
    assert!(repaired.contains("__VERIFIER_atomic_begin();"), "{repaired}");
    let (code, stdout, _) = paces(&["check", out_s]);
    assert_eq!(code, 3, "{stdout}\n{repaired}");
    assert!(stdout.contains("nondeterministic values in 0..1"), "{stdout}");
}

/// A read and a write of `x`, each in its own `__VERIFIER_atomic_begin()`/`end()` block, in
/// two threads: the repair joins each thread's two blocks, and the change names each block
/// by its lines and the statement inside, not by the call that opens it.
const SPLIT_UPDATE: &str = "#include <pthread.h>
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
extern void reach_error(void);
int x = 0;
void *bump(void *arg) {
  __VERIFIER_atomic_begin();
  int t = x;
  __VERIFIER_atomic_end();
  __VERIFIER_atomic_begin();
  x = t + 1;
  __VERIFIER_atomic_end();
  return 0;
}
int main() {
  pthread_t a, b;
  pthread_create(&a, 0, bump, 0);
  pthread_create(&b, 0, bump, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  if (x != 2) { reach_error(); }
  return 0;
}
";

#[test]
fn a_block_written_atomic_is_named_by_what_it_holds() {
    let input = temp("split_update.c");
    std::fs::write(&input, SPLIT_UPDATE).expect("written");
    let (code, _, summary) = paces(&["repair", input.to_str().expect("utf-8 path")]);
    assert_eq!(code, 0, "{summary}");
    assert!(summary.contains("atomic [lines 7-8 `int t = x` ...; lines 10-11 `x = t + 1` ...]"), "{summary}");
    assert!(!summary.contains("`__VERIFIER_atomic_begin()`"), "{summary}");
}
