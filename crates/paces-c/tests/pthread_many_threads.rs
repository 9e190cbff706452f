//! pthread C: a `for` loop of more creates (or joins) than are unrolled, in the shape of
//! SV-COMP's race-reachability tasks (`pthread_t t[N]; for (i = 0; i < N; i++)
//! pthread_create(&t[i], ...)` with `N` in the thousands). The model runs the first rounds'
//! threads, the others created but never scheduled, and cuts the path at the first join of an
//! unmodelled thread: an error found is real, "no error" is a reported bound.

use paces_c::pthread::{parse, Options, Reading};
use paces_explore::{check, Config, FailureKinds, Verdict};

fn reading(source: &str, options: &Options) -> Reading {
    parse(source, options).unwrap_or_else(|d| panic!("{d:?}\n{source}"))
}

fn fails(reading: &Reading) -> bool {
    let verdict = check(&reading.program, &Config::new().find(FailureKinds::BAD)).expect("check").verdict;
    assert!(matches!(verdict, Verdict::Bad(_) | Verdict::Correct), "unexpected verdict {}", verdict.name());
    matches!(verdict, Verdict::Bad(_))
}

/// Workers that bump `g` and put it back under `inner`; `main` checks `g == 0` under `outer`
/// between its loops of creates and joins.
fn program(outer: &str) -> String {
    format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nint g = 0;\n\
         pthread_mutex_t inner = PTHREAD_MUTEX_INITIALIZER;\n\
         pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;\n\
         void *work(void *a) {{\n  pthread_mutex_lock(&inner);\n  g++;\n  g--;\n  pthread_mutex_unlock(&inner);\n  return 0;\n}}\n\
         int main(void) {{\n  pthread_t ids[5000];\n\
         for (int i = 0; i < 5000; i++) pthread_create(&ids[i], 0, work, 0);\n\
         pthread_mutex_lock(&{outer});\n  if (g != 0) reach_error();\n  pthread_mutex_unlock(&{outer});\n\
         for (int i = 0; i < 5000; i++) pthread_join(ids[i], 0);\n  return 0;\n}}\n"
    )
}

#[test]
fn a_long_loop_of_creates_runs_its_first_threads_and_finds_the_race() {
    let racy = reading(&program("other"), &Options::default());
    // main and the first two workers.
    assert_eq!(racy.program.threads.len(), 3);
    assert!(fails(&racy));
    let bound = &racy.bounds;
    assert!(bound.iter().any(|b| b.contains("long `for` loops of creates run 2")), "{bound:?}");
}

#[test]
fn the_same_lock_hides_the_update_but_no_error_is_only_a_bound() {
    let guarded = reading(&program("inner"), &Options::default());
    assert!(!fails(&guarded));
    assert!(!guarded.bounds.is_empty(), "5000 threads are not all modelled: no exact \"correct\"");
    // The join loop joins the modelled threads, then cuts the path.
    let text = paces_cwhile::Printer::new(&guarded.program).print();
    assert_eq!(text.matches("assume(0)").count(), 1, "{text}");
}

#[test]
fn the_rounds_option_sets_how_many_threads_run() {
    let one = reading(&program("other"), &Options { thread_rounds: 1, ..Options::default() });
    assert_eq!(one.program.threads.len(), 2);
    // One worker and main still race: main checks while the worker holds `g` at 1.
    assert!(fails(&one));
}

#[test]
fn a_long_loop_doing_more_than_creating_is_not_cut() {
    // Skipping iterations that also write shared data would lose behaviour: such a loop runs
    // its rounds and is cut where it would go on (the rule for loops without a bound).
    let source = "#include <pthread.h>\nint x;\nvoid *w(void *a) { return 0; }\n\
        int main(void) {\n  pthread_t ids[5000];\n  for (int i = 0; i < 5000; i++) { x = x + 1; pthread_create(&ids[0], 0, w, 0); }\n  return 0;\n}\n";
    let r = reading(source, &Options::default());
    assert!(r.bounds.iter().all(|b| !b.contains("long `for` loops")), "{:?}", r.bounds);
    assert!(r.bounds.iter().any(|b| b.contains("cut after 2 round(s)")), "{:?}", r.bounds);
}
