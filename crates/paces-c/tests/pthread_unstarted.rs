//! A thread whose `pthread_create` never ran was never started: it waits for nothing and
//! takes no part in a deadlock, in the checker, in its search for a deadlock every candidate
//! keeps, and in the Promela export, whose invalid end states SPIN reports (docs/c-frontend.md,
//! "Threads"). A thread that was created must still run: it may not stop at its start.

use paces_c::pthread::{parse, Options};
use paces_cwhile::Program;
use paces_explore::{check, sequential_deadlock, CheckResult, Config, ThreadStand};

fn read(source: &str) -> Program {
    match parse(source, &Options::default()) {
        Ok(r) => r.program,
        Err(d) => panic!("{}", paces_cwhile::render(&d, "test.c", source, false)),
    }
}

/// Every failure, deadlock and livelock of the program, from one exhaustive search.
fn explore(p: &Program) -> CheckResult {
    check(p, &Config::new().stop_at_first_failure(false)).expect("the check runs")
}

const HEAD: &str = "#include <pthread.h>\nextern int __VERIFIER_nondet_int(void);\n";

/// `main` creates a worker only on one branch and joins it on the same one.
const MAYBE_CREATED: &str = "int x;
void *work(void *p) { x = 1; return 0; }
int main() {
  pthread_t t;
  int c = __VERIFIER_nondet_int();
  if (c) pthread_create(&t, 0, work, 0);
  if (c) pthread_join(t, 0);
  return 0;
}
";

#[test]
fn a_thread_whose_create_never_ran_is_no_deadlock() {
    let p = read(&format!("{HEAD}{MAYBE_CREATED}"));
    let r = explore(&p);
    assert!(r.deadlocks.is_empty(), "deadlocks: {:?}", r.deadlocks.keys().collect::<Vec<_>>());
    assert!(r.failures.is_empty());
    let seq = sequential_deadlock(&p, &Config::new()).expect("the search runs");
    assert!(seq.is_none(), "{seq:?}");
}

#[test]
fn every_run_of_a_thread_never_created_has_an_outcome() {
    // The run without the worker ends with x == 0: an outcome of the program.
    let p = read(&format!("{HEAD}{MAYBE_CREATED}"));
    let r = check(&p, &Config::new().stop_at_first_failure(false).outcomes(true)).expect("the check runs");
    let x = p.vars.iter().filter(|v| matches!(v.scope, paces_cwhile::ir::VarScope::Global)).position(|v| v.name == "x");
    let x = x.expect("the global x");
    let values: std::collections::BTreeSet<i64> = r.outcomes.iter().map(|o| o[x]).collect();
    assert_eq!(values, [0, 1].into_iter().collect(), "outcomes: {:?}", r.outcomes);
}

#[test]
fn a_real_deadlock_beside_a_thread_never_created_is_found() {
    let src = format!(
        "{HEAD}pthread_mutex_t a, b;
int x;
void *f(void *p) {{ pthread_mutex_lock(&a); pthread_mutex_lock(&b); x = 1; pthread_mutex_unlock(&b); pthread_mutex_unlock(&a); return 0; }}
void *g(void *p) {{ pthread_mutex_lock(&b); pthread_mutex_lock(&a); x = 2; pthread_mutex_unlock(&a); pthread_mutex_unlock(&b); return 0; }}
void *h(void *p) {{ x = 3; return 0; }}
int main() {{
  pthread_t t1, t2, t3;
  pthread_create(&t1, 0, f, 0);
  pthread_create(&t2, 0, g, 0);
  if (__VERIFIER_nondet_int()) pthread_create(&t3, 0, h, 0);
  return 0;
}}
"
    );
    let p = read(&src);
    let r = explore(&p);
    assert_eq!(r.deadlocks.len(), 1, "deadlocks: {:?}", r.deadlocks.keys().collect::<Vec<_>>());
    let id = r.deadlocks.keys().next().expect("one deadlock");
    let stands: Vec<bool> = id.threads.iter().map(|(_, s)| matches!(s, ThreadStand::Blocked(_))).collect();
    // main and h (created or not) done, f and g each waiting for the other's lock.
    assert_eq!(stands, [false, true, true, false], "{id}");
}

#[test]
fn a_created_thread_does_not_stop_at_its_start() {
    // main waits for the worker's flag: were the worker allowed to stop where it waits for
    // its create, main would wait for good.
    let src = format!(
        "{HEAD}#include <assert.h>
int flag;
void *work(void *p) {{ flag = 1; return 0; }}
int main() {{
  pthread_t t;
  pthread_create(&t, 0, work, 0);
  pthread_join(t, 0);
  assert(flag == 1);
  return 0;
}}
"
    );
    let p = read(&src);
    let r = explore(&p);
    assert!(r.deadlocks.is_empty(), "deadlocks: {:?}", r.deadlocks.keys().collect::<Vec<_>>());
    assert!(r.failures.is_empty(), "failures: {:?}", r.failures.keys().collect::<Vec<_>>());
    // A main that is blocked for good while its worker was never created still deadlocks.
    let stuck = read(&format!(
        "{HEAD}int flag;
void *work(void *p) {{ flag = 1; return 0; }}
int main() {{
  pthread_t t;
  pthread_mutex_t m;
  int c = __VERIFIER_nondet_int();
  if (c) pthread_create(&t, 0, work, 0);
  pthread_mutex_lock(&m);
  pthread_mutex_lock(&m);
  return 0;
}}
"
    ));
    assert_eq!(explore(&stuck).deadlocks.len(), 1);
}

#[test]
fn spin_agrees_that_a_thread_never_created_ends() {
    if !paces_testkit::spin::available_for_test() {
        return;
    }
    let p = read(&format!("{HEAD}{MAYBE_CREATED}"));
    let promela = paces_cwhile::to_promela(&p, "").expect("the export");
    assert!(promela.contains("timeout -> goto pc_end"), "{promela}");
    let (assertion, invalid_end) = paces_testkit::spin::verdicts(&promela).expect("spin runs");
    assert_eq!((assertion, invalid_end), (Some(false), Some(false)));
}
