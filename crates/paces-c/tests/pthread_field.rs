//! pthread C as SV-COMP's concurrency tasks write it beyond the core (`docs/c-frontend.md`,
//! "pthread C"): `bool` from `stdbool.h`, the integer types of `stdint.h`, `main`'s `argc` and `argv`, thread-local globals,
//! structs.
//! Each construct is read and checked (the error that is there is found, none that is not),
//! and what stays outside the model is refused by name at its line and column.

mod reading;
mod verdict;

use paces_c::pthread::Options;

use reading::{error_of, read_with as read};
use verdict::fails;

const FLAGS: &str = "#include <pthread.h>\n#include <stdbool.h>\nbool ready = false;\nint data;\n\
    void *writer(void *arg) {\n  data = 1;\n  ready = true;\n  return 0;\n}\n\
    int main() {\n  pthread_t t;\n  pthread_create(&t, 0, writer, 0);\n  if (ready) {\n    __VERIFIER_assert(data == 1);\n  }\n  return 0;\n}\n";

#[test]
fn bool_from_stdbool_is_c_bool() {
    let r = read(FLAGS, &Options::default());
    assert!(r.bounds.is_empty(), "{:?}", r.bounds);
    assert!(!fails(&r), "`ready` is set after `data`");
    let swapped = FLAGS.replace("  data = 1;\n  ready = true;\n", "  ready = true;\n  data = 1;\n");
    assert!(fails(&read(&swapped, &Options::default())), "`ready` set before `data`");
    // A `bool` holds 0 or 1: storing 2 stores 1.
    let two = "#include <stdbool.h>\nbool b;\nint main() {\n  b = 2;\n  __VERIFIER_assert(b == 1);\n  return 0;\n}\n";
    assert!(!fails(&read(two, &Options::default())));
    assert!(fails(&read(&two.replace("b == 1", "b == 2"), &Options::default())));
}

#[test]
fn bool_without_stdbool_is_not_a_type() {
    let source = "int main() {\n  bool b = 1;\n  __VERIFIER_assert(b);\n  return 0;\n}\n";
    let (code, line, _, _) = error_of(source);
    assert_eq!((code.as_str(), line), ("C0005", 2));
}

#[test]
fn stdint_types_are_the_c_types_they_name() {
    // A thread's index passed as `(void *)(intptr_t) i` and read back through `intptr_t`;
    // `uint8_t` wraps at 256 as `unsigned char` does.
    let source = "#include <pthread.h>\n#include <stdint.h>\nuint8_t small = 255;\nint32_t hits[2];\npthread_mutex_t m;\n\
        void *w(void *arg) {\n  int32_t id = (int32_t) (intptr_t) arg;\n  hits[id] = hits[id] + 1;\n\
          pthread_mutex_lock(&m);\n  small = small + 1;\n  pthread_mutex_unlock(&m);\n  return 0;\n}\n\
        int main(void) {\n  pthread_t t[2];\n  for (int i = 0; i < 2; i++)\n    pthread_create(&t[i], 0, w, (void *) (intptr_t) i);\n\
          for (int i = 0; i < 2; i++)\n    pthread_join(t[i], 0);\n  __VERIFIER_assert(hits[0] == 1 && hits[1] == 1);\n\
          __VERIFIER_assert(small == 1);\n  return 0;\n}\n";
    assert!(!fails(&read(source, &Options::default())), "each thread counts its own slot; 255 + 2 wraps to 1");
    assert!(fails(&read(&source.replace("small == 1", "small == 257"), &Options::default())));
    // `inttypes.h` declares them too; without either header they are no types.
    let inttypes = source.replace("<stdint.h>", "<inttypes.h>");
    assert!(!fails(&read(&inttypes, &Options::default())));
    let (code, _, _, _) = error_of(&source.replace("#include <stdint.h>\n", ""));
    assert_eq!(code, "C0005");
}

const ARGC: &str = "#include <pthread.h>\nint x;\nvoid *t(void *arg) {\n  x = 1;\n  return 0;\n}\n\
    int main(int argc, char **argv) {\n  pthread_t h;\n  if (argc > 1) {\n    pthread_create(&h, 0, t, 0);\n    pthread_join(h, 0);\n  }\n\
      __VERIFIER_assert(x == 0);\n  return 0;\n}\n";

#[test]
fn argc_is_a_nondet_value_within_the_range() {
    // argc takes the values of the nondet range that are not negative: a bound.
    let small = read(ARGC, &Options::default());
    assert_eq!(small.bounds, vec!["nondeterministic values in 0..1".to_owned()]);
    assert!(!fails(&small), "argc is 0 or 1: no thread starts");
    let wide = read(ARGC, &Options { nondet: (-3, 2), ..Options::default() });
    assert!(fails(&wide), "argc 2 starts the thread");
    // Never negative, whatever the range.
    let negative = ARGC.replace("argc > 1", "argc < 0");
    assert!(!fails(&read(&negative, &Options { nondet: (-3, 2), ..Options::default() })));
    // `char *argv[]` is the same parameter.
    assert!(fails(&read(
        &ARGC.replace("char **argv", "char *argv[]"),
        &Options { nondet: (0, 2), ..Options::default() }
    )));
    // An `argc` that `main` never reads bounds nothing: the answer is exact.
    let unused = ARGC.replace("  if (argc > 1) {", "  if (1) {");
    let exact = read(&unused, &Options::default());
    assert!(exact.bounds.is_empty(), "{:?}", exact.bounds);
    assert!(fails(&exact));
}

#[test]
fn argv_is_refused_by_name_where_it_is_used() {
    let source = ARGC.replace("  if (argc > 1) {", "  if (argc > 1 && argv[1] != 0) {");
    let (code, line, col, message) = error_of(&source);
    assert_eq!((code.as_str(), line, col), ("C0410", 9, 19), "{message}");
    assert!(message.contains("`argv`"), "{message}");
    // Other parameters of `main` are refused too.
    let (code, line, _, message) = error_of("int main(int argc, int n) {\n  return 0;\n}\n");
    assert_eq!((code.as_str(), line), ("C0410", 1), "{message}");
    assert!(message.contains("parameter of `main`"), "{message}");
}

const COUNTS: &str = "#include <pthread.h>\n__thread int count = 5;\nint total;\nvoid bump() {\n  count = count + 1;\n}\n\
    void *worker(void *arg) {\n  __VERIFIER_assert(count == 5);\n  bump();\n  bump();\n  __VERIFIER_assert(count == 7);\n  total = total + 1;\n  return 0;\n}\n\
    int main() {\n  pthread_t a, b;\n  bump();\n  pthread_create(&a, 0, worker, 0);\n  pthread_create(&b, 0, worker, 0);\n  bump();\n\
      __VERIFIER_assert(count == 7);\n  return 0;\n}\n";

#[test]
fn a_thread_local_global_is_one_copy_per_thread() {
    // Each thread's copy starts at 5 and only that thread changes it, through `bump` too.
    let r = read(COUNTS, &Options::default());
    assert!(r.bounds.is_empty(), "{:?}", r.bounds);
    assert!(!fails(&r));
    // The copy of `main` is not a worker's: a worker that expected main's changes fails.
    assert!(fails(&read(&COUNTS.replace("count == 5", "count == 6"), &Options::default())));
    assert!(fails(&read(&COUNTS.replace("count == 7);\n  total", "count == 9);\n  total"), &Options::default())));
    // One shared `count` would be changed by the other threads.
    assert!(fails(&read(&COUNTS.replace("__thread int count", "int count"), &Options::default())));
}

#[test]
fn thread_locals_other_than_integers_are_refused_by_name() {
    let array = "#include <pthread.h>\n__thread int seen[2];\nint main() {\n  seen[0] = 1;\n  return 0;\n}\n";
    let (code, line, col, message) = error_of(array);
    assert_eq!((code.as_str(), line, col), ("C0410", 2, 14), "{message}");
    assert!(message.contains("thread-local"), "{message}");
    let local = "#include <pthread.h>\nint main() {\n  static __thread int k = 1;\n  return k;\n}\n";
    let (code, line, _, message) = error_of(local);
    assert_eq!((code.as_str(), line), ("C0410", 3), "{message}");
    assert!(message.contains("thread-local"), "{message}");
}

const ACCOUNT: &str = "#include <pthread.h>\nstruct account {\n  int balance;\n  int log[2];\n  pthread_mutex_t lock;\n};\n\
    struct account acct = {10, {0, 0}};\nvoid *deposit(void *arg) {\n  struct account *a = &acct;\n  pthread_mutex_lock(&a->lock);\n\
      a->balance = a->balance + 5;\n  a->log[0] = 1;\n  pthread_mutex_unlock(&a->lock);\n  return 0;\n}\n\
    int main() {\n  pthread_t t;\n  pthread_create(&t, 0, deposit, 0);\n  pthread_mutex_lock(&acct.lock);\n\
      acct.balance = acct.balance - 3;\n  acct.log[1] = 1;\n  pthread_mutex_unlock(&acct.lock);\n  pthread_join(t, 0);\n\
      __VERIFIER_assert(acct.balance == 12 && acct.log[0] + acct.log[1] == 2);\n  return 0;\n}\n";

#[test]
fn a_struct_is_one_variable_per_field() {
    // Fields read and written as `s.f` and, through a pointer set to the struct's address,
    // `p->f`; an array field and a mutex field; initial values from the list.
    let r = read(ACCOUNT, &Options::default());
    assert!(r.bounds.is_empty(), "{:?}", r.bounds);
    assert!(!fails(&r));
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert!(text.contains("acct_balance = 10") && text.contains("lock(acct_lock)"), "{text}");
    // Without the mutex, one of the two updates can be lost.
    let racy =
        ACCOUNT.replace("  pthread_mutex_lock(&acct.lock);\n", "").replace("  pthread_mutex_unlock(&acct.lock);\n", "");
    assert!(fails(&read(&racy, &Options::default())));
    // A wrong initial value is found.
    assert!(fails(&read(&ACCOUNT.replace("{10, {0, 0}}", "{11, {0, 0}}"), &Options::default())));
}

#[test]
fn local_nested_and_typedef_structs_are_read() {
    let source = "#include <pthread.h>\ntypedef struct {\n  int x;\n  struct inner {\n    int y;\n  } in;\n} shape;\nshape g;\n\
        int main() {\n  struct inner p;\n  shape *s = &g;\n  p.y = 2;\n  g.in.y = p.y + 1;\n  s->x = s->in.y + (*s).in.y;\n\
          __VERIFIER_assert(g.x == 6);\n  return 0;\n}\n";
    let r = read(source, &Options::default());
    assert!(!fails(&r));
    assert!(fails(&read(&source.replace("g.x == 6", "g.x == 5"), &Options::default())));
}

#[test]
fn what_structs_cannot_say_is_refused_by_name() {
    let head = "#include <pthread.h>\nstruct pair {\n  int a;\n  int b;\n};\n";
    for (body, line, col, word) in [
        ("union u {\n  int a;\n} v;\nint main() {\n  return 0;\n}\n", 6, 1, "union"),
        ("struct pair many[2] = {1, 2};\nint main() {\n  return 0;\n}\n", 6, 13, "initialiser of an array of structs"),
        ("struct pair p, q;\nint main() {\n  p = q;\n  return 0;\n}\n", 8, 3, "whole struct"),
        (
            "void *t(void *arg) {\n  struct pair *p = arg;\n  return 0;\n}\nint main() {\n  pthread_t h;\n  pthread_create(&h, 0, t, (void *) 1);\n  return 0;\n}\n",
            12,
            28,
            "a pointer set to a value other than",
        ),
        ("int main() {\n  struct pair p = {1, 2};\n  return p.a;\n}\n", 7, 17, "local struct"),
    ] {
        let source = format!("{head}{body}");
        let (code, l, c, message) = error_of(&source);
        assert_eq!((code.as_str(), l, c), ("C0410", line, col), "{message}\n{source}");
        assert!(message.contains(word), "{message}");
    }
}

const ADD: &str = "#include <pthread.h>\npthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER, mb = PTHREAD_MUTEX_INITIALIZER;\nint a, b;\n\
    void add(pthread_mutex_t *m, int *x, int d) {\n  pthread_mutex_lock(m);\n  *x = *x + d;\n  pthread_mutex_unlock(m);\n}\n\
    void *worker(void *arg) {\n  add(&ma, &a, 1);\n  add(&mb, &b, 2);\n  return 0;\n}\n\
    int main() {\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  add(&ma, &a, 10);\n  add(&mb, &b, 20);\n  pthread_join(t, 0);\n\
      __VERIFIER_assert(a == 11 && b == 22);\n  return 0;\n}\n";

#[test]
fn pointer_parameters_bound_to_globals_read_and_lock_them() {
    // `add(&ma, &a, 1)` calls a copy of `add` in which `m` is `ma` and `x` is `a`.
    let r = read(ADD, &Options::default());
    assert!(r.bounds.is_empty(), "{:?}", r.bounds);
    assert!(!fails(&r));
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert!(text.contains("proc add_ma_a") && text.contains("lock(mb)"), "{text}");
    // `a` guarded by `mb` in one thread and `ma` in the other: one update can be lost.
    assert!(fails(&read(&ADD.replace("add(&ma, &a, 10)", "add(&mb, &a, 10)"), &Options::default())));
    // A struct pointer parameter, and a bound pointer passed on.
    let barrier = "#include <pthread.h>\nstruct gate {\n  int seen;\n  pthread_mutex_t lock;\n};\nstruct gate g;\n\
        void enter(struct gate *p) {\n  pthread_mutex_lock(&p->lock);\n  p->seen = p->seen + 1;\n  pthread_mutex_unlock(&p->lock);\n}\n\
        void twice(struct gate *q) {\n  enter(q);\n  enter(q);\n}\n\
        void *worker(void *arg) {\n  twice(&g);\n  return 0;\n}\n\
        int main() {\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  enter(&g);\n  pthread_join(t, 0);\n\
          __VERIFIER_assert(g.seen == 3);\n  return 0;\n}\n";
    assert!(!fails(&read(barrier, &Options::default())));
    assert!(fails(&read(&barrier.replace("g.seen == 3", "g.seen == 2"), &Options::default())));
}

#[test]
fn a_bound_pointer_is_the_global_whatever_the_function_s_locals_are_named() {
    // Inside `add`, `*x` is the global `a`, not the local `a` that hides it.
    let source = "#include <pthread.h>\nint a;\nvoid add(int *x) {\n  int a = 5;\n  *x = *x + a;\n}\n\
        int main() {\n  add(&a);\n  __VERIFIER_assert(a == 5);\n  return 0;\n}\n";
    assert!(!fails(&read(source, &Options::default())));
    assert!(fails(&read(&source.replace("a == 5", "a == 10"), &Options::default())));
}

#[test]
fn other_pointer_arguments_are_refused_by_name() {
    let source =
        "#include <pthread.h>\npthread_mutex_t m;\nvoid f(pthread_mutex_t *p) {\n  pthread_mutex_lock(p);\n}\n\
        int main() {\n  f(0);\n  return 0;\n}\n";
    let (code, line, col, message) = error_of(source);
    assert_eq!((code.as_str(), line, col), ("C0410", 7, 5), "{message}");
    assert!(message.contains("`pthread_mutex_t *`"), "{message}");
}

const DEREF: &str = "#include <pthread.h>\nint data;\nint *p = &data;\npthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;\n\
    void *t(void *arg) {\n  pthread_mutex_t *m = &m1;\n  pthread_mutex_lock(m);\n  (*p)++;\n  *p = *p + 1;\n  pthread_mutex_unlock(m);\n  return 0;\n}\n\
    int main() {\n  pthread_t a, b;\n  pthread_create(&a, 0, t, 0);\n  pthread_create(&b, 0, t, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n\
      __VERIFIER_assert(data == 4);\n  return 0;\n}\n";

#[test]
fn pointers_declared_with_a_global_s_address_are_that_global() {
    let r = read(DEREF, &Options::default());
    assert!(!fails(&r));
    // Without the lock, `*p` reads and writes `data` in steps of their own: an update is lost.
    let racy = DEREF.replace("  pthread_mutex_lock(m);\n", "").replace("  pthread_mutex_unlock(m);\n", "");
    assert!(fails(&read(&racy, &Options::default())));
    // A pointer assigned after its declaration names its target by a number (`pointsto.rs`).
    let moved = DEREF.replace("  pthread_mutex_lock(m);\n", "  m = &m1;\n  pthread_mutex_lock(m);\n");
    assert!(!fails(&read(&moved, &Options::default())));
    let racy = moved.replace("  pthread_mutex_unlock(m);\n", "  m = 0;\n  pthread_mutex_unlock(m);\n");
    assert!(fails(&read(&racy, &Options::default())), "unlocking through NULL fails");
}

#[test]
fn a_thread_argument_the_thread_never_names_may_be_an_address() {
    // `&box` is passed and never read: the thread runs without it.
    let source = "#include <pthread.h>\nstruct cell {\n  int v;\n};\nstruct cell box;\n\
        void *worker(void *arg) {\n  box.v = 1;\n  return 0;\n}\n\
        int main() {\n  pthread_t t;\n  pthread_create(&t, 0, worker, &box);\n  pthread_join(t, 0);\n\
          __VERIFIER_assert(box.v == 1);\n  return 0;\n}\n";
    assert!(!fails(&read(source, &Options::default())));
    assert!(fails(&read(&source.replace("box.v == 1", "box.v == 0"), &Options::default())));
    // A thread that reads its argument: the address is a pointer's value (`pointsto.rs`).
    let used = source.replace("  box.v = 1;\n", "  box.v = arg != 0;\n");
    assert!(!fails(&read(&used, &Options::default())), "`&box` is not NULL");
    // Arithmetic on it is refused.
    let used = source.replace("  box.v = 1;\n", "  box.v = (int) arg + 1;\n");
    let (code, line, col, message) = error_of(&used);
    assert_eq!((code.as_str(), line, col), ("C0410", 7, 11), "{message}");
    assert!(message.contains("arithmetic or an ordering on a pointer"), "{message}");
}
