//! Mutexes that are not globals (`docs/c-frontend.md`, "pthread C"): a mutex, or a struct
//! holding one, that is a local of `main`, reached through a pointer parameter, a thread's
//! argument, the address of a field through a pointer (`&p->f`) or `container_of`. Each program
//! is read and checked (the error that is there is found, none that is not), a repair is
//! written back into the C file and read again, and what stays outside the model is refused by
//! name at its line and column.

mod reading;
mod verdict;

use reading::{read, refused, repaired};
use verdict::fails;

/// A counter and its lock in a struct local to `main`, passed to two threads by address.
const LOCAL: &str = "#include <pthread.h>\nstruct counter {\n  pthread_mutex_t lock;\n  int hits;\n};\n\
    void *bump(void *arg) {\n  struct counter *c = (struct counter *)arg;\n  pthread_mutex_lock(&c->lock);\n\
      c->hits = c->hits + 1;\n  pthread_mutex_unlock(&c->lock);\n  return 0;\n}\n\
    int main() {\n  struct counter shared;\n  pthread_t a, b;\n  pthread_mutex_init(&shared.lock, 0);\n  shared.hits = 0;\n\
      pthread_create(&a, 0, bump, &shared);\n  pthread_create(&b, 0, bump, &shared);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n\
      __VERIFIER_assert(shared.hits == 2);\n  return 0;\n}\n";

#[test]
fn a_struct_local_of_main_holding_a_mutex_is_one_global_object() {
    let r = read(LOCAL);
    assert!(!fails(&r), "both updates are under the struct's lock");
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert!(text.contains("lock(main_shared_lock)"), "named after the local and its function:\n{text}");
    let racy =
        LOCAL.replace("  pthread_mutex_lock(&c->lock);\n", "").replace("  pthread_mutex_unlock(&c->lock);\n", "");
    assert!(fails(&read(&racy)), "without the lock an update is lost");
    let fixed = repaired(&racy);
    assert!(fixed.contains("__VERIFIER_atomic_begin();\nc->hits = c->hits + 1;\n__VERIFIER_atomic_end();"), "{fixed}");
}

/// A mutex local to `main`, locked by `main` and by a helper that takes its address.
const HELPER: &str = "#include <pthread.h>\nint total;\n\
    void add(pthread_mutex_t *m, int d) {\n  pthread_mutex_lock(m);\n  total = total + d;\n  pthread_mutex_unlock(m);\n}\n\
    void *worker(void *arg) {\n  pthread_mutex_t *m = (pthread_mutex_t *)arg;\n  pthread_mutex_lock(m);\n\
      total = total + 1;\n  pthread_mutex_unlock(m);\n  return 0;\n}\n\
    int main() {\n  pthread_mutex_t m;\n  pthread_t t;\n  pthread_mutex_init(&m, 0);\n\
      pthread_create(&t, 0, worker, &m);\n  add(&m, 10);\n  pthread_join(t, 0);\n\
      __VERIFIER_assert(total == 11);\n  return 0;\n}\n";

#[test]
fn a_mutex_local_of_main_is_locked_through_parameters_and_arguments() {
    assert!(!fails(&read(HELPER)));
    // The thread's lock and the helper's are the same mutex: with the helper's update split
    // in two, no other update comes between.
    let split = HELPER.replace("  total = total + d;\n", "  int v = total;\n  total = v + d;\n");
    assert!(!fails(&read(&split)));
    let unlocked = split.replace("  pthread_mutex_lock(m);\n  int v", "  int v");
    let unlocked = unlocked.replacen("  total = v + d;\n  pthread_mutex_unlock(m);\n", "  total = v + d;\n", 1);
    assert!(fails(&read(&unlocked)), "the helper's read and write may surround the thread's update");
    // A thread that takes no lock: the repair makes both updates atomic, and its text reads
    // back as C.
    let bare = split.replace("  pthread_mutex_t *m = (pthread_mutex_t *)arg;\n  pthread_mutex_lock(m);\n", "");
    let bare = bare.replace("total = total + 1;\n  pthread_mutex_unlock(m);\n", "total = total + 1;\n");
    let bare = bare.replace("worker, &m)", "worker, 0)");
    assert!(fails(&read(&bare)));
    let fixed = repaired(&bare);
    let section = "  __VERIFIER_atomic_begin();\n  int v = total;\n  total = v + d;\n  __VERIFIER_atomic_end();";
    assert!(fixed.contains(section), "{fixed}");
}

const CONTAINER: &str = "#include <pthread.h>\n\
    struct hook {\n  int armed;\n};\n\
    struct box {\n  int value;\n  struct hook hook;\n  pthread_mutex_t lock;\n};\n\
    pthread_t t1, t2;\n\
    void *worker(void *arg) {\n  struct hook *h = (struct hook *)arg;\n  struct box *b;\n\
      b = ({ const typeof(((struct box *)0)->hook) *__mptr = (h);\n\
        (struct box *)((char *)__mptr - ((unsigned long) &((struct box *)0)->hook)); });\n\
      pthread_mutex_lock(&b->lock);\n  b->value = b->value + 1;\n\
      pthread_mutex_unlock(&b->lock);\n  return 0;\n}\n\
    int open_box(struct box *b) {\n  struct hook *h = &b->hook;\n  pthread_mutex_init(&b->lock, 0);\n  b->value = 0;\n\
      pthread_create(&t1, 0, worker, (void *)h);\n  pthread_create(&t2, 0, worker, (void *)h);\n  return 0;\n}\n\
    int main(void) {\n  struct box b;\n  open_box(&b);\n  pthread_join(t1, 0);\n  pthread_join(t2, 0);\n\
      __VERIFIER_assert(b.value == 2);\n  return 0;\n}\n";

/// The kernel's `container_of` as `cpp` expands it (this crate's own preprocessor puts each
/// macro argument in parentheses, so that `container_of(h, struct box, hook)` does not parse
/// after it): a thread given a pointer to a member finds the struct around it, whose lock
/// guards its data.
#[test]
fn container_of_a_member_s_address_is_the_struct_around_it() {
    assert!(!fails(&read(CONTAINER)));
    let builtin =
        CONTAINER.replace("((unsigned long) &((struct box *)0)->hook)", "__builtin_offsetof(struct box, hook)");
    assert_ne!(builtin, CONTAINER);
    assert!(!fails(&read(&builtin)));
    assert!(fails(&read(&builtin.replace("b.value == 2", "b.value == 3"))));
    let racy =
        CONTAINER.replace("pthread_mutex_lock(&b->lock);\n", "").replace("pthread_mutex_unlock(&b->lock);\n", "");
    assert_ne!(racy, CONTAINER);
    assert!(fails(&read(&racy)), "the two threads' updates race");
    // Through a global pointer set to the member's address.
    let global = CONTAINER
        .replace("pthread_t t1, t2;\n", "pthread_t t1, t2;\nstruct hook *registered;\n")
        .replace("  struct hook *h = (struct hook *)arg;\n", "")
        .replace("*__mptr = (h)", "*__mptr = (registered)")
        .replace("  struct hook *h = &b->hook;\n", "  registered = &b->hook;\n")
        .replace("(void *)h", "0");
    assert!(!fails(&read(&global)), "{global}");
    assert!(fails(&read(&global.replace("b.value == 2", "b.value == 1"))));
}

/// A pointer set to one of two global structs; pointers to its fields follow it.
const FIELDS: &str = "#include <pthread.h>\nstruct s {\n  int datum;\n  pthread_mutex_t mutex;\n} A, B;\n\
    void *t_fun(void *arg) {\n  pthread_mutex_lock(&A.mutex);\n  A.datum = A.datum + 1;\n  pthread_mutex_unlock(&A.mutex);\n  return 0;\n}\n\
    int main() {\n  struct s *s;\n  int *d;\n  pthread_mutex_t *m;\n  if (__VERIFIER_nondet_int()) {\n    s = &A;\n  } else {\n    s = &B;\n  }\n\
      m = &s->mutex;\n  d = &s->datum;\n  pthread_t t;\n  pthread_create(&t, 0, t_fun, 0);\n  pthread_mutex_lock(m);\n\
      int before = *d;\n  int after = *d;\n  pthread_mutex_unlock(m);\n  __VERIFIER_assert(before == after);\n\
      pthread_join(t, 0);\n  return 0;\n}\n";

#[test]
fn addresses_of_fields_through_a_pointer_follow_its_target() {
    assert!(!fails(&read(FIELDS)), "`A` is read under its lock, `B` no thread writes");
    let racy = FIELDS.replace("m = &s->mutex;", "m = &B.mutex;");
    assert!(fails(&read(&racy)), "`A.datum` read under `B.mutex`");
}

#[test]
fn what_stays_outside_is_refused_by_name() {
    // A mutex local to a function other than `main`.
    let other = LOCAL.replace("int main() {\n  struct counter shared;", "int run() {\n  struct counter shared;")
        + "int main() {\n  run();\n  return 0;\n}\n";
    refused(&other, 14, 18, "other than one of `main` outside loops");
    let inner = HELPER.replace(
        "  pthread_mutex_lock(m);\n  total = total + d;",
        "  pthread_mutex_t own;\n  pthread_mutex_lock(&own);\n  total = total + d;",
    );
    refused(&inner, 4, 19, "a mutex that is not a global");
    // A struct holding a mutex declared in a loop the reader unrolls: one object per round.
    let unrolled = LOCAL
        .replace(
            "int main() {\n  struct counter shared;\n  pthread_t a, b;\n",
            "int main() {\n  pthread_t a, b;\n  for (int i = 0; i < 2; i++) {\n  struct counter shared;\n",
        )
        .replace("  pthread_join(a, 0);\n", "  }\n  pthread_join(a, 0);\n");
    assert_ne!(unrolled, LOCAL);
    refused(&unrolled, 16, 18, "declared twice or in a loop");
    // `container_of` naming a member the pointer does not point to.
    let wrong =
        CONTAINER.replace("0)->hook) *__mptr", "0)->value) *__mptr").replace("0)->hook)); })", "0)->value)); })");
    refused(&wrong, 14, 5, "`container_of`");
}

/// `return run();` in `main`: the call runs (its value nothing reads).
#[test]
fn a_call_in_main_s_return_runs() {
    let source = "#include <pthread.h>\nint x;\nint run() {\n  x = 1;\n  return 0;\n}\n\
        int main() {\n  return run();\n}\n";
    let r = read(source);
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert!(text.contains("run()"), "{text}");
    let failing = source.replace("  x = 1;\n", "  __VERIFIER_assert(x == 1);\n");
    assert!(fails(&read(&failing)), "the assertion in `run` is reached");
}
