//! Arrays of structs in pthread C (`docs/c-frontend.md`, "pthread C"): one array per field,
//! `a[i].f` an element of the field's array, a pointer to an element (`&a[i]`, passed to a
//! function or held by a local) the element's index. Each shape is read and checked (the race
//! that is there found, none where the locks rule it out), a repair is written back into the
//! C file, and what stays outside is refused by name at its line and column.

mod reading;
mod verdict;

use paces::Repair;
use paces_c::pthread::{parse, Options, Printer};
use paces_explore::{check, Config, FailureKinds, Verdict};

use reading::{error_of, read_with as read};
use verdict::fails;

/// A cache of entries, each with its own lock, that a worker and `main` both visit through
/// a function taking a pointer to the entry (`touch(&cache[i])`). `main` then looks at one
/// entry under the lock `LOCKED` names.
const CACHE: &str = "#include <pthread.h>\n\
struct entry {\n  int refs;\n  pthread_mutex_t guard;\n} cache[3];\n\
void touch(struct entry *e) {\n  pthread_mutex_lock(&e->guard);\n  e->refs = e->refs + 1;\n  e->refs = e->refs - 1;\n  \
pthread_mutex_unlock(&e->guard);\n}\n\
void *worker(void *arg) {\n  int i;\n  for (i = 0; i < 3; i++)\n    touch(&cache[i]);\n  return 0;\n}\n\
int main() {\n  pthread_t t;\n  for (int i = 0; i < 3; i++)\n    pthread_mutex_init(&cache[i].guard, 0);\n  \
pthread_create(&t, 0, worker, 0);\n  pthread_mutex_lock(&cache[LOCKED].guard);\n  \
__VERIFIER_assert(cache[1].refs == 0);\n  pthread_mutex_unlock(&cache[LOCKED].guard);\n  pthread_join(t, 0);\n  return 0;\n}\n";

#[test]
fn a_pointer_parameter_to_an_element_locks_that_element() {
    let right = read(&CACHE.replace("LOCKED", "1"), &Options::default());
    assert!(right.bounds.is_empty(), "{:?}", right.bounds);
    assert!(!fails(&right), "the entry's own lock is held");
    // One array per field, one variable per element.
    let text = paces_cwhile::Printer::new(&right.program).print();
    for v in ["cache_refs_0", "cache_refs_2", "cache_guard_1"] {
        assert!(text.contains(v), "{v} in\n{text}");
    }
    let wrong = read(&CACHE.replace("LOCKED", "2"), &Options::default());
    assert!(fails(&wrong), "another entry's lock does not keep the worker out");
}

/// A thread picks an element by a nondet index, holds a pointer to it, and locks the
/// element's mutex through it; `main` does the same with `a[i]` directly.
const PICK: &str = "#include <pthread.h>\n\
struct slot {\n  int datum;\n  pthread_mutex_t mutex;\n} a[3];\n\
void *t_fun(void *arg) {\n  int i = __VERIFIER_nondet_int();\n  __VERIFIER_assume(0 <= i && i < 2);\n  \
struct slot *p = &a[i];\n  pthread_mutex_lock(&p->mutex);\n  ACCESS = 1;\n  ACCESS = 0;\n  \
pthread_mutex_unlock(&p->mutex);\n  return 0;\n}\n\
int main() {\n  pthread_t t;\n  int i = __VERIFIER_nondet_int();\n  pthread_create(&t, 0, t_fun, 0);\n  \
pthread_mutex_lock(&a[i].mutex);\n  __VERIFIER_assert(a[i].datum == 0);\n  pthread_mutex_unlock(&a[i].mutex);\n  \
pthread_join(t, 0);\n  return 0;\n}\n";

#[test]
fn a_local_pointer_to_an_element_is_its_index() {
    let options = Options { nondet: (0, 2), ..Options::default() };
    let through = read(&PICK.replace("ACCESS", "p->datum"), &options);
    assert!(!fails(&through), "the pointer's element is the one locked");
    let direct = read(&PICK.replace("ACCESS", "a[i].datum"), &options);
    assert!(!fails(&direct), "`a[i]` is the element the pointer holds");
    let next = read(&PICK.replace("ACCESS", "a[i + 1].datum"), &options);
    assert!(fails(&next), "the next element is not the one locked");
    // A pointer assigned later, and one copied from another, hold the same index.
    let later = PICK
        .replace("struct slot *p = &a[i];", "struct slot *q = &a[0];\n  struct slot *p = q;\n  p = &a[i];")
        .replace("ACCESS", "p->datum");
    assert!(!fails(&read(&later, &options)));
    let copy = "struct slot *p = &a[i];\n  struct slot *q = p;";
    assert!(!fails(&read(&PICK.replace("struct slot *p = &a[i];", copy).replace("ACCESS", "q->datum"), &options)));
    let other =
        PICK.replace("struct slot *p = &a[i];", &format!("{copy}\n  q = &a[1 - i];")).replace("ACCESS", "q->datum");
    assert!(fails(&read(&other, &options)), "`q` holds the other element, not the one locked");
}

/// Two threads, each given an account (`&accts[k]`) as its argument, deposit into it under
/// the account's lock.
const DEPOSIT: &str = "#include <pthread.h>\n\
struct acct {\n  int bal;\n  pthread_mutex_t m;\n} accts[2];\n\
void *deposit(void *arg) {\n  struct acct *a = arg;\n  pthread_mutex_lock(&a->m);\n  a->bal = a->bal + 1;\n  \
pthread_mutex_unlock(&a->m);\n  return 0;\n}\n\
int main() {\n  pthread_t t1, t2;\n  pthread_create(&t1, 0, deposit, &accts[1]);\n  \
pthread_create(&t2, 0, deposit, &accts[SECOND]);\n  pthread_join(t1, 0);\n  pthread_join(t2, 0);\n  \
__VERIFIER_assert(accts[1].bal == 2);\n  return 0;\n}\n";

#[test]
fn a_thread_given_an_element_holds_its_index() {
    let both = read(&DEPOSIT.replace("SECOND", "1"), &Options::default());
    assert!(both.bounds.is_empty(), "{:?}", both.bounds);
    assert!(!fails(&both), "the deposits are under the account's lock");
    let unlocked =
        DEPOSIT.replace("  pthread_mutex_lock(&a->m);\n", "").replace("  pthread_mutex_unlock(&a->m);\n", "");
    assert!(fails(&read(&unlocked.replace("SECOND", "1"), &Options::default())), "a deposit lost");
    let apart = DEPOSIT.replace("SECOND", "0");
    assert!(fails(&read(&apart, &Options::default())), "the second deposit goes to account 0");
    let apart = apart.replace("accts[1].bal == 2", "accts[0].bal == 1 && accts[1].bal == 1");
    assert!(!fails(&read(&apart, &Options::default())));
}

/// `&p->m` for a pointer whose target changes (`pointsto.rs`) locks the mutex of the struct
/// it points to, as `p->m` of an element pointer does.
#[test]
fn a_mutex_field_through_a_changing_pointer_is_locked() {
    let source = "#include <pthread.h>\n\
struct box {\n  int v;\n  pthread_mutex_t m;\n} b1, b2;\n\
void *worker(void *arg) {\n  struct box *p = &b1;\n  if (__VERIFIER_nondet_int())\n    p = &b2;\n  \
pthread_mutex_lock(&p->m);\n  p->v = p->v + 1;\n  p->v = p->v - 1;\n  pthread_mutex_unlock(&p->m);\n  return 0;\n}\n\
int main() {\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  pthread_mutex_lock(&LOCKED.m);\n  \
__VERIFIER_assert(b2.v == 0);\n  pthread_mutex_unlock(&LOCKED.m);\n  return 0;\n}\n";
    assert!(!fails(&read(&source.replace("LOCKED", "b2"), &Options::default())));
    assert!(fails(&read(&source.replace("LOCKED", "b1"), &Options::default())));
}

/// Nested structs and an array of structs inside a struct: every path of fields is an array.
#[test]
fn nested_fields_are_arrays_of_their_own() {
    let source = "#include <pthread.h>\n\
struct pair {\n  int x;\n  int y;\n};\n\
struct node {\n  struct pair at;\n  pthread_mutex_t lock;\n};\n\
struct grid {\n  struct node cells[2];\n  int count;\n} g;\n\
void move(struct node *n) {\n  pthread_mutex_lock(&n->lock);\n  n->at.x = n->at.x + 1;\n  n->at.y++;\n  \
pthread_mutex_unlock(&n->lock);\n}\n\
void *worker(void *arg) {\n  move(&g.cells[1]);\n  return 0;\n}\n\
int main() {\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  move(&g.cells[0]);\n  \
pthread_mutex_lock(&g.cells[1].lock);\n  int x = g.cells[1].at.x;\n  int y = g.cells[1].at.y;\n  \
pthread_mutex_unlock(&g.cells[1].lock);\n  __VERIFIER_assert(x == y);\n  pthread_join(t, 0);\n  \
__VERIFIER_assert(g.cells[0].at.x == 1 && g.cells[1].at.y == 1);\n  return 0;\n}\n";
    let r = read(source, &Options::default());
    assert!(r.bounds.is_empty(), "{:?}", r.bounds);
    assert!(!fails(&r), "x and y change under the cell's lock");
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert!(text.contains("g_cells_at_x_1"), "{text}");
    let unlocked = source.replace("  pthread_mutex_lock(&g.cells[1].lock);\n", "");
    let unlocked = unlocked.replace("  pthread_mutex_unlock(&g.cells[1].lock);\n", "");
    assert!(fails(&read(&unlocked, &Options::default())), "x read before the worker's move, y after");
}

/// A pointer past the array's end is C's `&a[N]`: a dereference of it is undefined, and the
/// model reports it as the error it is.
#[test]
fn a_dereference_past_the_end_fails() {
    let source = "struct s {\n  int v;\n} a[2];\nvoid set(struct s *p) {\n  p->v = 1;\n}\n\
int main() {\n  set(&a[INDEX]);\n  return 0;\n}\n";
    let inside = read(&source.replace("INDEX", "1"), &Options::default());
    assert!(inside.bounds.is_empty(), "{:?}", inside.bounds);
    assert!(!fails(&inside));
    assert!(fails(&read(&source.replace("INDEX", "2"), &Options::default())));
}

/// `a[i].f += v` and `a[i].f++` at a computed index: the element read by one choice, then
/// written by another (an array of integers the same).
#[test]
fn a_compound_assignment_at_a_computed_index_updates_that_element() {
    let source = "struct s {\n  int v;\n} a[3];\nint c[3];\n\
int main() {\n  int k = __VERIFIER_nondet_int();\n  a[k].v += 2;\n  a[k].v++;\n  c[k]--;\n  \
__VERIFIER_assert(a[k].v == 3 && a[1 - k].v == 0 && c[k] == -1);\n  return 0;\n}\n";
    assert!(!fails(&read(source, &Options::default())));
    assert!(fails(&read(&source.replace("a[k].v == 3", "a[k].v == 2"), &Options::default())));
}

/// The loop's repair of the racing cache, written into the C file: the file read back has no
/// failing assertion.
#[test]
fn a_repair_of_an_array_of_structs_reads_back_as_c() {
    let source = CACHE.replace("LOCKED", "2");
    let original = parse(&source, &Options::default()).unwrap().program;
    let report = Repair::new().run(&original).unwrap();
    let repaired = report.repaired.clone().unwrap_or_else(|| panic!("not repaired: {}", report.stop));
    let text = Printer::new(&repaired).splice(&source, &original).expect("written into the file");
    assert_ne!(text, source);
    let again = parse(&text, &Options::default()).unwrap().program;
    let config = Config::new().find(FailureKinds::BAD);
    assert!(matches!(check(&again, &config).unwrap().verdict, Verdict::Correct), "{text}");
}

#[test]
fn what_stays_outside_is_refused_by_name() {
    let head = "#include <pthread.h>\nstruct s {\n  int v;\n} a[2], b[2];\n";
    let cases = [
        // Arithmetic on an element pointer.
        ("int main() {\n  struct s *p = &a[0];\n  p++;\n  return 0;\n}\n", 7, 3, "arithmetic on a pointer"),
        // One pointer given elements of two arrays.
        ("int main() {\n  struct s *p = &a[0];\n  p = &b[1];\n  return 0;\n}\n", 7, 7, "two arrays of structs"),
        // An element of a local array passed to a function.
        (
            "void f(struct s *p) {\n  p->v = 1;\n}\nint main() {\n  struct s l[2];\n  f(&l[0]);\n  return 0;\n}\n",
            10,
            5,
            "a local array of structs",
        ),
        // A comparison of element pointers.
        ("int main() {\n  struct s *p = &a[0];\n  if (p == &a[1]) {\n  }\n  return 0;\n}\n", 7, 7, "this variable"),
        // A whole element as a value, and an element of a pointer (`p[1].v`).
        ("int main() {\n  int x = a[1];\n  return x;\n}\n", 6, 11, "a whole element"),
        (
            "void f(struct s *p) {\n  p[1].v = 1;\n}\nint main() {\n  f(&a[0]);\n  return 0;\n}\n",
            6,
            3,
            "a member of something other than a struct",
        ),
        // An element passed to a thread at an index that is not a constant.
        (
            "void *f(void *arg) {\n  struct s *p = arg;\n  p->v = 1;\n  return 0;\n}\n\
             int main() {\n  pthread_t t;\n  int k = __VERIFIER_nondet_int();\n  pthread_create(&t, 0, f, &a[k]);\n  \
             return 0;\n}\n",
            13,
            28,
            "other than at a constant index",
        ),
    ];
    for (body, line, col, what) in cases {
        let source = format!("{head}{body}");
        let (code, l, c, message) = error_of(&source);
        assert_eq!((code.as_str(), l, c), ("C0410", line, col), "{message}\n{source}");
        assert!(message.contains(what), "{message}");
    }
    // An initialiser, and an array field of an array of structs.
    let init = "struct s {\n  int v;\n} a[2] = {{1}, {2}};\nint main() {\n  return 0;\n}\n";
    let (code, line, _, message) = error_of(init);
    assert_eq!((code.as_str(), line), ("C0410", 3), "{message}");
    let nested = "struct s {\n  int v[2];\n} a[2];\nint main() {\n  return 0;\n}\n";
    let (code, line, col, message) = error_of(nested);
    assert_eq!((code.as_str(), line, col), ("C0410", 2, 7), "{message}");
    assert!(message.contains("an array field of an array of structs"), "{message}");
}
