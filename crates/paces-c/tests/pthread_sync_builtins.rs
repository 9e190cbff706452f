//! GCC's `__sync` builtins (`docs/c-frontend.md`, "pthread C"): each is one atomic step on an
//! integer global, its value (where an expression reads it) what the builtin returns. A
//! counter they update loses no update, a spin lock they make excludes, and the same programs
//! written with plain reads and writes fail.

mod reading;
mod verdict;

use reading::{read, refused};
use verdict::fails;

/// Asserts that `source` meets no failure and that it fails with `from` written `to` (`why`).
#[track_caller]
fn holds_until(source: &str, from: &str, to: &str, why: &str) {
    assert!(!fails(&read(source)), "{source}");
    let edited = source.replace(from, to);
    assert_ne!(edited, source, "`{from}` is in the program");
    assert!(fails(&read(&edited)), "{why}");
}

/// Two workers count with `__sync_fetch_and_add` and take a spin lock around a check.
const SPIN: &str = "#include <pthread.h>\nint count;\nint lock;\nint inside;\n\
    void *worker(void *arg) {\n  __sync_fetch_and_add(&count, 1);\n  while (__sync_lock_test_and_set(&lock, 1)) {\n  }\n\
      inside = inside + 1;\n  __VERIFIER_assert(inside == 1);\n  inside = inside - 1;\n  __sync_lock_release(&lock);\n  return 0;\n}\n\
    int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, worker, 0);\n  pthread_create(&b, 0, worker, 0);\n\
      pthread_join(a, 0);\n  pthread_join(b, 0);\n  __VERIFIER_assert(count == 2);\n  return 0;\n}\n";

#[test]
fn an_atomic_counter_and_a_spin_lock_hold() {
    let plain = "count = count + 1;";
    holds_until(SPIN, "__sync_fetch_and_add(&count, 1);", plain, "a plain increment loses an update");
    let (spin, open) = ("while (__sync_lock_test_and_set(&lock, 1)) {\n  }", "while (lock) {\n  }\n  lock = 1;");
    holds_until(SPIN, spin, open, "a test, then a set, lets both in");
}

#[test]
fn a_spin_loop_asks_again_each_round() {
    // `main` holds the lock until the worker started: the worker passes only by asking again
    // after the release, so the assertion that it passed can fail only if it does.
    let source = "#include <pthread.h>\nint lock = 1;\nint passed;\n\
        void *worker(void *arg) {\n  while (__sync_lock_test_and_set(&lock, 1)) {\n  }\n  passed = 1;\n  return 0;\n}\n\
        int main(void) {\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  __sync_lock_release(&lock);\n\
          pthread_join(t, 0);\n  __VERIFIER_assert(passed == 0);\n  return 0;\n}\n";
    assert!(fails(&read(source)));
    let p = paces_cwhile::Printer::new(&read(source).program).print();
    let body = &p[p.find("while").expect("the loop")..];
    assert!(body.contains("atomic"), "the builtin's step is asked again in the loop:\n{p}");
}

#[test]
fn values_are_what_the_builtins_return() {
    let source = "#include <pthread.h>\nint x = 5;\nint main(void) {\n\
        int old = __sync_val_compare_and_swap(&x, 5, 7);\n  __VERIFIER_assert(old == 5 && x == 7);\n\
        int swapped = __sync_bool_compare_and_swap(&x, 5, 9);\n  __VERIFIER_assert(!swapped && x == 7);\n\
        __VERIFIER_assert(__sync_add_and_fetch(&x, 3) == 10);\n  old = __sync_fetch_and_sub(&x, 4);\n\
        __VERIFIER_assert(old == 10 && x == 6);\n  old = __sync_lock_test_and_set(&x, 1);\n\
        __VERIFIER_assert(old == 6 && x == 1);\n  __sync_synchronize();\n  return 0;\n}\n";
    holds_until(source, "(&x, 3) == 10", "(&x, 3) == 11", "add-and-fetch gives the new value");
}

#[test]
fn a_target_that_is_not_a_global_integer_is_refused_by_name() {
    let source = "#include <pthread.h>\nint main(void) {\n  int local = 0;\n  __sync_fetch_and_add(&local, 1);\n  return 0;\n}\n";
    refused(source, 4, 24, "an atomic builtin's target that is not `&x`");
}

#[test]
fn the_atomic_forms_are_the_same_steps_whatever_their_order() {
    let counter = SPIN.replace("__sync_fetch_and_add(&count, 1);", "__atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);");
    assert_ne!(counter, SPIN);
    holds_until(
        &counter,
        "__atomic_fetch_add(&count, 1, __ATOMIC_RELAXED);",
        "count = count + 1;",
        "a plain increment",
    );
    let source = "#include <pthread.h>\nint x = 5;\nint main(void) {\n\
        int old = __atomic_exchange_n(&x, 7, __ATOMIC_SEQ_CST);\n  __VERIFIER_assert(old == 5);\n\
        __atomic_store_n(&x, 9, __ATOMIC_RELEASE);\n  __atomic_thread_fence(__ATOMIC_SEQ_CST);\n\
        __VERIFIER_assert(__atomic_load_n(&x, __ATOMIC_ACQUIRE) == 9);\n\
        __VERIFIER_assert(__atomic_sub_fetch(&x, 2, __ATOMIC_SEQ_CST) == 7);\n  return 0;\n}\n";
    holds_until(source, "__ATOMIC_ACQUIRE) == 9", "__ATOMIC_ACQUIRE) == 7", "the load reads the store");
}

#[test]
fn a_struct_field_is_a_target_too() {
    let source = "#include <pthread.h>\nstruct stats {\n  int rows;\n  int errors;\n} statis;\n\
        void *w(void *arg) {\n  __sync_fetch_and_add(&statis.rows, 2);\n  return 0;\n}\n\
        int main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, w, 0);\n  pthread_create(&b, 0, w, 0);\n\
          pthread_join(a, 0);\n  pthread_join(b, 0);\n  __VERIFIER_assert(statis.rows == 4);\n  return 0;\n}\n";
    let plain = "statis.rows = statis.rows + 2;";
    holds_until(source, "__sync_fetch_and_add(&statis.rows, 2);", plain, "a plain update loses one");
}
