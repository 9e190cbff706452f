//! POSIX semaphores (`docs/c-frontend.md`, "pthread C"): `sem_t` from `semaphore.h`,
//! `sem_init`, `sem_wait`, `sem_post` and `sem_destroy` on a global semaphore or an element of
//! a global array of them. Each is read and checked (the error that is there is found, none
//! that is not), a repair moves a post past the write it publishes but never an initialisation
//! across a create, and what stays outside the model is refused by name.

mod reading;
mod verdict;

use paces_explore::{check, Config};
use reading::{error_of, read, refused, repaired};
use verdict::fails;

/// A producer publishes `data` and posts; a consumer waits, then reads it.
const HANDOFF: &str = "#include <pthread.h>\n#include <semaphore.h>\nsem_t ready;\nint data;\n\
    void *producer(void *arg) {\n  data = 42;\n  sem_post(&ready);\n  return 0;\n}\n\
    void *consumer(void *arg) {\n  sem_wait(&ready);\n  __VERIFIER_assert(data == 42);\n  return 0;\n}\n\
    int main(void) {\n  pthread_t p, c;\n  sem_init(&ready, 0, 0);\n  pthread_create(&c, 0, consumer, 0);\n\
      pthread_create(&p, 0, producer, 0);\n  pthread_join(p, 0);\n  pthread_join(c, 0);\n  sem_destroy(&ready);\n  return 0;\n}\n";

#[test]
fn a_wait_takes_what_a_post_gives() {
    assert!(!fails(&read(HANDOFF)), "the consumer reads after the post");
    // A semaphore that starts at 1 lets the consumer in before the producer wrote.
    let open = HANDOFF.replace("sem_init(&ready, 0, 0)", "sem_init(&ready, 0, 1)");
    assert!(fails(&read(&open)));
    // The same through an array of semaphores.
    let array = HANDOFF.replace("sem_t ready;", "sem_t ready[2];").replace("&ready", "&ready[1]");
    assert!(!fails(&read(&array)));
    assert!(fails(&read(&array.replace("sem_init(&ready[1], 0, 0)", "sem_init(&ready[1], 0, 1)"))));
}

#[test]
fn a_wait_no_post_ever_answers_is_a_deadlock() {
    let never = HANDOFF.replace("  sem_post(&ready);\n", "");
    let r = check(&read(&never).program, &Config::new().stop_at_first_failure(false)).expect("the check runs");
    assert!(r.failures.is_empty());
    assert_eq!(r.deadlocks.len(), 1, "the consumer waits for good");
}

#[test]
fn a_post_before_the_write_it_publishes_is_moved_below_it() {
    let early = HANDOFF.replace("  data = 42;\n  sem_post(&ready);\n", "  sem_post(&ready);\n  data = 42;\n");
    assert!(fails(&read(&early)));
    let text = repaired(&early);
    let (write, post) = (text.find("data = 42;").expect("write"), text.find("sem_post").expect("post"));
    assert!(write < post, "{text}");
}

#[test]
fn an_initialisation_keeps_its_place_before_the_creates() {
    // Moving `sem_init(&ready, 0, 1)` below the creates would leave the semaphore at 0 while
    // the threads run (and use it uninitialised): it is the threads' structure, and no other
    // change removes the race, so there is no repair.
    let open = HANDOFF.replace("sem_init(&ready, 0, 0)", "sem_init(&ready, 0, 1)");
    let reading = read(&open);
    let init = reading
        .program
        .stmts
        .iter()
        .position(|s| reading.program.step_text(s.loc).is_some_and(|t| t.starts_with("sem_init")));
    let init = init.and_then(paces_cwhile::ir::StmtId::new).expect("the sem_init step");
    assert!(reading.program.thread_structure.contains(&init));
    let report = paces::Repair::new().run(&reading.program).expect("the loop runs");
    assert!(matches!(report.stop, paces::StopReason::NoRepair(_)), "{:?}", report.stop);
}

#[test]
fn what_semaphores_cannot_say_is_refused_by_name() {
    let through = HANDOFF
        .replace("sem_t ready;", "sem_t ready;\nsem_t *sp = &ready;")
        .replace("sem_wait(&ready)", "sem_wait(sp)");
    refused(&through, 12, 12, "a semaphore argument that is not `&s`");
    let (code, line, col, message) = error_of(&HANDOFF.replace("#include <semaphore.h>\n", ""));
    assert_eq!((code.as_str(), line, col), ("C0005", 2, 1), "{message}");
    assert!(message.contains("`sem_t` is not a type"), "{message}");
}
