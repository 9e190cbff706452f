//! pthread C: a forward `goto` inside one block (`if (c) goto L; ...; L: ...`), as SV-COMP's
//! driver-shaped tasks write their error exits, read with a flag that skips the jumped-over
//! statements.

use paces_c::pthread::{parse, Options};
use paces_explore::{check, Config, FailureKinds, Verdict};

fn fails(source: &str) -> bool {
    let reading = parse(source, &Options::default()).unwrap_or_else(|d| panic!("{d:?}\n{source}"));
    assert!(reading.bounds.is_empty(), "{:?}", reading.bounds);
    let config = Config::new().find(FailureKinds::BAD);
    match check(&reading.program, &config).expect("check").verdict {
        Verdict::Bad(_) => true,
        Verdict::Correct => false,
        other => panic!("unexpected verdict {}", other.name()),
    }
}

/// `probe` fails when `ok` is 0 and jumps over the line that sets `ready`; `main` checks
/// `check` after the jump's label.
fn program(ok: i32, check: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nint ready = 0;\nint cleaned = 0;\n\
         int probe(int ok) {{\n  if (ok == 0) goto fail;\n  ready = 1;\n  return 0;\nfail:\n  cleaned = 1;\n  return -1;\n}}\n\
         int main(void) {{\n  int r = probe({ok});\n  if (r != 0) goto out;\n  ready = ready + 1;\nout:\n  if (!({check})) reach_error();\n  return 0;\n}}\n"
    )
}

#[test]
fn a_jump_skips_the_statements_up_to_its_label() {
    // Success: `ready` is set, then bumped; nothing cleaned.
    assert!(!fails(&program(1, "ready == 2 && cleaned == 0")));
    assert!(fails(&program(1, "ready == 1")));
    // Failure: both jumps taken, `ready` untouched, the cleanup ran.
    assert!(!fails(&program(0, "ready == 0 && cleaned == 1")));
    assert!(fails(&program(0, "cleaned == 0")));
}

/// The driver shape: `init` creates the thread when it succeeds, `main` jumps over `exit_`
/// (which joins it) when `init` fails; `exit_` is called after `init`, so its join finds the
/// create (functions are read in the order of their first call, not by name).
fn driver(checked: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\npthread_t t;\nint dev;\n\
         void *worker(void *a) {{ dev = 6; return 0; }}\n\
         int module_init(void) {{\n  dev = 1;\n  if (__VERIFIER_nondet_int()) {{\n    pthread_create(&t, 0, worker, 0);\n    return 0;\n  }}\n  return -1;\n}}\n\
         void module_exit(void) {{\n  void *status;\n  {checked}\n  pthread_join(t, &status);\n  dev = 5;\n  if (dev != 5) reach_error();\n}}\n\
         int main(void) {{\n  if (module_init() != 0) goto out;\n  module_exit();\nout:\n  return 0;\n}}\n"
    )
}

#[test]
fn a_join_in_a_function_called_after_the_creating_one_is_read() {
    assert!(!fails(&driver("")));
    // Writing before the join races with the worker.
    assert!(fails(&driver("dev = 4; if (dev != 4) reach_error();")));
}
