//! Objects from `malloc` and `calloc` (`docs/c-frontend.md`, "pthread C"): a call site that
//! runs once is one object, a pointer set to it names it as it would a variable. Each program
//! is read and checked (the error that is there is found, none that is not), a repair is written
//! back into the C file and read again, and what stays outside the model is refused by name at
//! its line and column.

mod reading;
mod verdict;

use reading::{read, refused, repaired};
use verdict::fails;

/// A struct `malloc`'d by `main` and reached by two threads through a global pointer.
const ACCOUNT: &str = "#include <pthread.h>\n#include <stdlib.h>\n\
    struct account {\n  int balance;\n  pthread_mutex_t lock;\n};\nstruct account *acc;\n\
    void *deposit(void *arg) {\n  pthread_mutex_lock(&acc->lock);\n  acc->balance = acc->balance + 10;\n\
      pthread_mutex_unlock(&acc->lock);\n  return 0;\n}\n\
    int main() {\n  acc = (struct account *)malloc(sizeof(struct account));\n  pthread_mutex_init(&acc->lock, 0);\n\
      acc->balance = 0;\n  pthread_t a, b;\n  pthread_create(&a, 0, deposit, 0);\n  pthread_create(&b, 0, deposit, 0);\n\
      pthread_join(a, 0);\n  pthread_join(b, 0);\n  __VERIFIER_assert(acc->balance == 20);\n  free(acc);\n  return 0;\n}\n";

#[test]
fn a_malloc_in_main_is_one_global_object() {
    let r = read(ACCOUNT);
    assert!(!fails(&r), "both deposits are under the account's lock");
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert!(text.contains("heap_balance") && text.contains("heap_lock"), "one object:\n{text}");
    let racy =
        ACCOUNT.replace("  pthread_mutex_lock(&acc->lock);\n", "").replace("pthread_mutex_unlock(&acc->lock);\n", "");
    assert_ne!(racy, ACCOUNT);
    assert!(fails(&read(&racy)), "without the lock a deposit is lost");
    // `calloc(1, sizeof(T))` is the same object.
    let zeroed = ACCOUNT.replace("malloc(sizeof(struct account))", "calloc(1, sizeof(struct account))");
    assert!(!fails(&read(&zeroed)));
    assert!(fails(&read(&zeroed.replace("balance == 20", "balance == 10"))));
}

/// An integer `malloc`'d by `main`, passed to a thread as its argument.
const COUNTER: &str = "#include <pthread.h>\n#include <stdlib.h>\nint done;\n\
    void *worker(void *arg) {\n  int *c = (int *)arg;\n  *c = *c + 1;\n  done = 1;\n  return 0;\n}\n\
    int main() {\n  int *count = malloc(sizeof(int));\n  *count = 0;\n  pthread_t t;\n\
      pthread_create(&t, 0, worker, count);\n  *count = *count + 1;\n  pthread_join(t, 0);\n\
      __VERIFIER_assert(*count == 2);\n  return 0;\n}\n";

#[test]
fn a_malloc_d_integer_is_shared_with_the_thread_it_is_passed_to() {
    assert!(fails(&read(COUNTER)), "the two increments race");
    let safe = COUNTER
        .replace("  *count = *count + 1;\n  pthread_join(t, 0);\n", "  pthread_join(t, 0);\n  *count = *count + 1;\n");
    assert_ne!(safe, COUNTER);
    assert!(!fails(&read(&safe)), "the increments are ordered by the join");
    // The repair orders `main`'s increment before the thread starts; written into the file.
    let text = repaired(COUNTER);
    let (inc, create) = (text.find("*count = *count + 1;"), text.find("pthread_create"));
    assert!(inc.is_some() && inc < create, "{text}");
}

/// A count outside the `malloc`'d account, updated without its lock.
const AUDITS: &str = "#include <pthread.h>\n#include <stdlib.h>\n\
    struct account {\n  int balance;\n  pthread_mutex_t lock;\n};\nstruct account *acc;\nint audits;\n\
    void *deposit(void *arg) {\n  pthread_mutex_lock(&acc->lock);\n  acc->balance = acc->balance + 10;\n\
      pthread_mutex_unlock(&acc->lock);\n  audits = audits + 1;\n  return 0;\n}\n\
    int main() {\n  acc = (struct account *)malloc(sizeof(struct account));\n  pthread_mutex_init(&acc->lock, 0);\n\
      pthread_t a, b;\n  pthread_create(&a, 0, deposit, 0);\n  pthread_create(&b, 0, deposit, 0);\n\
      pthread_join(a, 0);\n  pthread_join(b, 0);\n  __VERIFIER_assert(acc->balance == 20 && audits == 2);\n  return 0;\n}\n";

#[test]
fn a_repair_of_a_program_with_a_malloc_d_object_reads_back_as_c() {
    assert!(fails(&read(AUDITS)));
    let text = repaired(AUDITS);
    assert!(text.contains("__VERIFIER_atomic_begin();\n  audits = audits + 1;\n  __VERIFIER_atomic_end();"), "{text}");
}

#[test]
fn other_allocations_are_refused_by_name() {
    // A site in a loop would be one object per round.
    let looped = ACCOUNT.replace(
        "  acc = (struct account *)malloc(sizeof(struct account));\n",
        "  while (!acc) acc = (struct account *)malloc(sizeof(struct account));\n",
    );
    refused(&looped, 15, 40, "in a loop or in a function other than `main`");
    // A site in a loop the reader unrolls (its body creates threads): one object per round.
    let unrolled = "#include <pthread.h>\n#include <stdlib.h>\nint *box;\n\
        void *worker(void *arg) {\n  *box = 1;\n  return 0;\n}\n\
        int main() {\n  pthread_t t[2];\n  for (int i = 0; i < 2; i++) {\n    box = malloc(sizeof(int));\n\
        pthread_create(&t[i], 0, worker, 0);\n  }\n  return 0;\n}\n";
    refused(unrolled, 11, 11, "in a loop or in a function other than `main`");
    // A site in a thread's function: one object per thread.
    let threaded = COUNTER.replace("  int *c = (int *)arg;\n", "  int *c = (int *)malloc(sizeof(int));\n");
    refused(&threaded, 5, 19, "in a loop or in a function other than `main`");
    // An array.
    let array = COUNTER.replace("malloc(sizeof(int))", "malloc(sizeof(int) * 4)");
    refused(&array, 11, 16, "a size other than `sizeof(T)`");
    // A linked list: a struct holding a pointer.
    let list = ACCOUNT.replace("  int balance;\n", "  int balance;\n  struct account *next;\n");
    refused(&list, 5, 19, "`next`, a pointer field of a struct");
}
