//! Pointers whose target changes (`docs/c-frontend.md`, "pthread C"): a pointer assigned
//! after its declaration, copied, compared, set in branches, used to lock a mutex. Each
//! program is read and checked (the error that is there is found, none that is not), and what
//! stays outside the model is refused by name at its line and column.

mod reading;
mod verdict;

use paces_c::pthread::{parse, Options};

use reading::read;
use verdict::fails;

/// A global pointer copied into another after the thread starts; the thread and `main` both
/// update the value through a pointer under one mutex.
const COPY: &str = "#include <pthread.h>\nint value = 0;\nint *src = &value, *dst;\n\
    pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;\n\
    void *bump(void *arg) {\n  pthread_mutex_lock(&lk);\n  (*src)++;\n  (*src)--;\n  pthread_mutex_unlock(&lk);\n  return 0;\n}\n\
    int main() {\n  pthread_t t;\n  pthread_create(&t, 0, bump, 0);\n  dst = src;\n  pthread_mutex_lock(&lk);\n\
      __VERIFIER_assert(*dst == 0);\n  pthread_mutex_unlock(&lk);\n  return 0;\n}\n";

#[test]
fn a_copied_pointer_reads_its_target() {
    assert!(!fails(&read(COPY)), "every access is under `lk`");
    // Without the lock around the read, the thread's increment shows.
    let racing = COPY.replace("pthread_mutex_lock(&lk);\n__VERIFIER_assert", "__VERIFIER_assert");
    let racing = racing.replace("== 0);\n  pthread_mutex_unlock(&lk);", "== 0);");
    assert_eq!(racing.matches("lk").count(), 3, "{racing}");
    assert!(fails(&read(&racing)), "the read may fall between the thread's two updates");
}

/// `g1 = g2 = &g;` then writes through one and reads through the other.
const CHAIN: &str = "int g, h;\nint *g1;\nint *g2;\n\
    int main() {\n  g1 = g2 = &g;\n  *g1 = 5;\n  __VERIFIER_assert(*g2 == 5 && g1 == g2 && h == 0);\n  g2 = &h;\n\
      __VERIFIER_assert(g1 != g2);\n  *g2 += 2;\n  __VERIFIER_assert(h == 2 && *g1 == 5);\n  return 0;\n}\n";

#[test]
fn a_chained_assignment_sets_both_pointers() {
    assert!(!fails(&read(CHAIN)));
    assert!(fails(&read(&CHAIN.replace("h == 2 &&", "h == 3 &&"))), "`*g2 += 2` wrote `h`");
    assert!(fails(&read(&CHAIN.replace("g1 != g2", "g1 == g2"))), "the pointers differ after `g2 = &h`");
}

/// A mutex pointer set in a branch: the lock `main` takes is the thread's only on one path.
const BRANCH: &str = "#include <pthread.h>\nint shared = 0;\npthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;\n\
    pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;\n\
    void *worker(void *arg) {\n  pthread_mutex_lock(&m1);\n  shared = 1;\n  shared = 0;\n  pthread_mutex_unlock(&m1);\n  return 0;\n}\n\
    int main() {\n  int pick = __VERIFIER_nondet_int();\n  pthread_mutex_t *m = &m1;\n  if (pick) m = &m2;\n  pthread_t t;\n\
      pthread_create(&t, 0, worker, 0);\n  pthread_mutex_lock(m);\n  __VERIFIER_assert(shared == 0);\n  pthread_mutex_unlock(m);\n\
      return 0;\n}\n";

#[test]
fn a_mutex_pointer_set_in_a_branch_locks_the_mutex_it_names() {
    let r = parse(BRANCH, &Options::default()).expect("read");
    assert!(fails(&r), "with `m2` locked the assertion races with the thread");
    let safe = BRANCH.replace("if (pick) m = &m2;", "if (pick) m = &m1;");
    let r = parse(&safe, &Options::default()).expect("read");
    assert!(!fails(&r), "both paths lock `m1`");
}

/// A local pointer that may stay NULL: dereferencing it fails as an assertion.
const NULL: &str = "int a = 3;\nint main() {\n  int *p = 0;\n  int k = __VERIFIER_nondet_int();\n  if (k) p = &a;\n\
      int v = *p;\n  __VERIFIER_assert(v == 3);\n  return 0;\n}\n";

#[test]
fn a_null_dereference_fails() {
    let r = parse(NULL, &Options::default()).expect("read");
    assert!(fails(&r), "`k == 0` leaves `p` NULL");
    let guarded = NULL.replace("int v = *p;", "int v = 3;\n  if (p != NULL) v = *p;");
    assert!(!fails(&parse(&guarded, &Options::default()).expect("read")));
    let guarded = NULL.replace("int v = *p;", "int v = 3;\n  if (p && *p != 3) v = 4;");
    assert!(!fails(&parse(&guarded, &Options::default()).expect("read")), "`&&` skips `*p` for NULL");
}

/// A local pointer to locals of its function, chosen in a loop-free branch.
const LOCALS: &str = "int main() {\n  int x = 1, y = 2;\n  int *p = &x;\n  if (__VERIFIER_nondet_bool()) p = &y;\n\
      *p = *p + 10;\n  __VERIFIER_assert(x + y == 13);\n  __VERIFIER_assert(p == &x || y == 12);\n  return 0;\n}\n";

#[test]
fn a_pointer_to_locals_writes_the_one_it_names() {
    assert!(!fails(&read(LOCALS)));
    assert!(fails(&read(&LOCALS.replace("x + y == 13", "x == 11"))), "`p` may name `y`");
}

/// Asserts that reading `source` stops at `line`:`col` with a refusal whose message holds `words`.
fn refused_at(source: &str, line: usize, col: usize, words: &str) {
    let all = parse(source, &Options::default()).expect_err("refused");
    let d = all.iter().next().expect("one diagnostic");
    assert_eq!((d.code, d.line_col(source)), ("C0410", (line, col)), "{}\n{source}", d.message);
    assert!(d.message.contains(words), "{}", d.message);
}

#[test]
fn pointers_the_flow_cannot_follow_are_refused() {
    let other = "`p`, a pointer set to a value other than";
    // Arithmetic on a pointer: the pointer has no finite set of targets.
    refused_at("int a, b;\nint *p;\nint main() {\n  p = &a;\n  p = p + 1;\n  *p = 1;\n  return 0;\n}\n", 5, 7, other);
    // The address of an array's element is not followed: refused where it is taken.
    refused_at("int a[2];\nint *p;\nint main() {\n  p = &a[0];\n  *p = 1;\n  return 0;\n}\n", 4, 7, other);
    let stored = "int a;\nint *p;\nint main() {\n  int k;\n  p = &a;\n  k = p;\n  return 0;\n}\n";
    refused_at(stored, 6, 3, "a pointer's value stored in an integer");
    let ordered = "int a, b;\nint *p;\nint *q;\nint main() {\n  p = &a;\n  q = &b;\n  __VERIFIER_assert(p < q);\n  return 0;\n}\n";
    refused_at(ordered, 7, 21, "an ordering on a pointer");
}

/// A local of `main` whose address is a thread's argument: a shared variable, the thread's
/// parameter a pointer to it.
const ESCAPE: &str = "#include <pthread.h>\npthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER;\n\
    pthread_mutex_t mb = PTHREAD_MUTEX_INITIALIZER;\n\
    void *adder(void *arg) {\n  int *slot = (int *) arg;\n  pthread_mutex_lock(&ma);\n  *slot = *slot + 1;\n  *slot = *slot - 1;\n\
      pthread_mutex_unlock(&ma);\n  return 0;\n}\n\
    int main(void) {\n  pthread_t id;\n  int count = 0;\n  pthread_create(&id, 0, adder, (void *) &count);\n\
      pthread_mutex_lock(&ma);\n  __VERIFIER_assert(count == 0);\n  pthread_mutex_unlock(&ma);\n  pthread_join(id, 0);\n\
      __VERIFIER_assert(count == 0);\n  return 0;\n}\n";

#[test]
fn a_local_passed_to_a_thread_is_shared() {
    let r = read(ESCAPE);
    assert!(paces_cwhile::Printer::new(&r.program).print().contains("main_count"));
    assert!(!fails(&r), "`main` and the thread both hold `ma`");
    let racing = ESCAPE.replace(
        "pthread_mutex_lock(&ma);\n  __VERIFIER_assert(count == 0);\n  pthread_mutex_unlock(&ma);",
        "pthread_mutex_lock(&mb);\n  __VERIFIER_assert(count == 0);\n  pthread_mutex_unlock(&mb);",
    );
    assert_eq!(racing.matches("&mb").count(), 2, "{racing}");
    assert!(fails(&read(&racing)), "the assertion may see the thread's increment");
    // After the join the thread's writes are all visible.
    let joined = ESCAPE.replace("  *slot = *slot - 1;\n", "");
    assert!(fails(&read(&joined)), "the thread leaves `count` at 1");
}

#[test]
fn a_local_of_a_function_other_than_main_passed_to_a_thread_is_refused() {
    let source = "#include <pthread.h>\nint out;\nvoid *copy(void *arg) {\n  int *p = arg;\n  out = *p;\n  return 0;\n}\n\
        void spawn(void) {\n  pthread_t t;\n  int v = 1;\n  pthread_create(&t, 0, copy, &v);\n  pthread_join(t, 0);\n}\n\
        int main(void) {\n  spawn();\n  return 0;\n}\n";
    refused_at(source, 10, 7, "a local whose address another function holds");
}

#[test]
fn an_address_and_an_integer_passed_to_one_thread_function_are_refused() {
    // The parameter would hold both an address's number and the integer 1.
    let source = "#include <pthread.h>\nint x, seen;\nvoid *f(void *arg) {\n  seen = (int) arg;\n  return 0;\n}\n\
        int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, f, (void *) 1);\n  pthread_create(&b, 0, f, &x);\n  return 0;\n}\n";
    refused_at(source, 10, 28, "a thread argument that is not a constant");
}

#[test]
fn a_loop_that_passes_its_variable_s_address_to_its_threads_is_refused_by_that_name() {
    // Every thread would read the one `i` the loop goes on changing, so the loop is not
    // unrolled and `t[i]` names no handle: the refusal says why.
    let source = "#include <pthread.h>\nint seen;\nvoid *f(void *arg) {\n  seen = *(int *) arg;\n  return 0;\n}\n\
        int main(void) {\n  pthread_t t[2];\n  int i;\n  for (i = 0; i < 2; i++)\n    pthread_create(&t[i], 0, f, &i);\n  return 0;\n}\n";
    refused_at(source, 11, 20, "indexed by `i`, a variable whose address a thread holds (`&i`");
}
