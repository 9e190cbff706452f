//! Families of buggy Cwhile programs with a given number of threads that run the same code, for
//! measuring how the repair loop grows with the threads (`cargo xtask scale --threads`).
//!
//! Every member is buggy under preemption and repairable by the loop's two transformations:
//!
//! * [`Family::Counters`]: `n` workers each add one to `total` by a read and a write
//!   (`t := total; total := t + 1;`) and take the one slot with a check-then-act (`if (slots >
//!   0) { slots := slots - 1; }`), among private work; a `check` thread waits for every worker
//!   and asserts `total == n` and `slots >= 0`. Two workers interleaving either pair lose an
//!   update or both take the slot; an atomic section around each pair, in every worker,
//!   repairs it.
//! * [`Family::ReadersWriters`]: `n` threads, writers and readers alternating (a writer first);
//!   writer `k` writes `a := k; b := k;`, a reader reads `x := a; y := b;` and asserts `x ==
//!   y`. A reader between a writer's two writes, or two writers interleaved, see a torn pair;
//!   an atomic section around every writer's writes and every reader's reads repairs it.
//! * [`Family::TokenRing`]: `n` threads pass a token: thread `i` waits for `token == i`,
//!   passes the token to `i + 1` and only then adds one to `count` by a read and a write; a
//!   `check` thread waits for every thread and asserts `count == n`. The next thread runs its
//!   update while the last one's is under way; moving each pass below its thread's update (a
//!   reordering, no atomic section) repairs it.
//! * [`Family::Uneven`]: `n` workers that differ, each with a lost update on `total` and a
//!   check-then-act on `slots` (which starts at half the workers) among private work of its
//!   own and updates of counters the check never reads, placed differently in each worker (a
//!   racing pair one block deeper in some; every seventh worker does not add, every fifth
//!   does not take); a `check` thread waits for every worker and asserts `total` and `taken
//!   <= slots`. A section around each racing pair, in every worker, repairs it.
//! * [`Family::Bank`]: `n` workers of two roles in different numbers (one withdrawer in
//!   three), each laid out differently: depositors lose updates of `balance`, withdrawers
//!   race on a check-then-act (one block deeper from the fifth worker on) and assert the
//!   balance themselves; beside them a `publisher` sets a flag before its data and a `reader`
//!   asserts the data once the flag is set, and a `check` thread waits for every worker. A
//!   section around each worker's deposit or withdrawal and the publisher's data moved above
//!   its flag repair it.
//!
//! The text depends only on the family and `n`: the same arguments give the same program.

use std::fmt::Write as _;

mod bank;
mod uneven;

/// A family of generated programs (module docs: what each is and why it is buggy).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Workers on shared counters, with a check thread.
    Counters,
    /// Writers and readers of a pair of variables that must stay equal.
    ReadersWriters,
    /// Threads passing a token, each passing it before its update is done.
    TokenRing,
    /// Workers that differ (private work, shared updates, races placed differently) on
    /// shared counters, with a check thread.
    Uneven,
    /// Depositors and withdrawers that differ, in different numbers, on one balance, with a
    /// publisher and a reader.
    Bank,
}

impl Family {
    /// Every family, in the order of the growth table.
    pub const ALL: [Family; 5] =
        [Family::Counters, Family::ReadersWriters, Family::TokenRing, Family::Uneven, Family::Bank];

    /// The fewest threads a member has (`n` of [`Family::program`]).
    pub const MIN_THREADS: usize = 2;

    /// The family's name on the command line and in the table.
    pub fn name(self) -> &'static str {
        match self {
            Family::Counters => "counters",
            Family::ReadersWriters => "readers-writers",
            Family::TokenRing => "token-ring",
            Family::Uneven => "uneven",
            Family::Bank => "bank",
        }
    }

    /// The family named `name` (as [`Family::name`] spells it).
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The member with `n` racing threads (at least [`Family::MIN_THREADS`]; a smaller `n` is
    /// taken as that). [`Family::Counters`], [`Family::TokenRing`] and [`Family::Uneven`] add
    /// a `check` thread, [`Family::Bank`] a `publisher`, a `reader` and a `check` thread.
    pub fn program(self, n: usize) -> String {
        self.text(n, false)
    }

    /// The member with `n` threads repaired by hand as the module docs describe (atomic
    /// sections, or the ring's passes moved below the updates): a correct program whose check
    /// stands for that of a repair where the loop finds none.
    pub fn repaired_program(self, n: usize) -> String {
        self.text(n, true)
    }

    /// [`Family::program`] or, when `repaired`, [`Family::repaired_program`].
    fn text(self, n: usize, repaired: bool) -> String {
        let n = n.max(Family::MIN_THREADS);
        match self {
            Family::Counters => counters(n, repaired),
            Family::ReadersWriters => readers_writers(n, repaired),
            Family::TokenRing => token_ring(n, repaired),
            Family::Uneven => uneven::program(n, repaired),
            Family::Bank => bank::program(n, repaired),
        }
    }
}

/// `body` (lines indented by `indent`) inside `atomic { }` when `atomic`, as is otherwise.
fn section(body: &str, indent: &str, atomic: bool) -> String {
    if !atomic {
        return body.to_owned();
    }
    let inner: String = body.lines().map(|l| format!("  {l}\n")).collect();
    format!("{indent}atomic {{\n{inner}{indent}}}\n")
}

/// [`Family::Counters`] with `n` workers `w1` .. `wn`.
fn counters(n: usize, repaired: bool) -> String {
    let mut s = format!(
        "// counters, {n} workers: each adds one to `total` and takes the one slot if it is free.\n\
         var total = 0, slots = 1, done = 0;\n"
    );
    for i in 1..=n {
        let add = section(&format!("  w{i}r: t := total;\n  w{i}w: total := t + 1;\n"), "  ", repaired);
        let take =
            section(&format!("  w{i}s: if (slots > 0) {{\n    w{i}d: slots := slots - 1;\n  }}\n"), "  ", repaired);
        let _ = write!(
            s,
            "\nthread w{i} {{\n  local t, p;\n  w{i}p1: p := {i};\n{add}  w{i}p2: p := p * 3;\n{take}  \
             w{i}p3: p := p + 1;\n  w{i}e: done := done + 1;\n}}\n"
        );
    }
    let _ = write!(
        s,
        "\nthread check {{\n  c1: await(done == {n});\n  c2: assert(total == {n});\n  c3: assert(slots >= 0);\n}}\n"
    );
    s
}

/// [`Family::ReadersWriters`] with `n` threads: writers `w1`, `w2`, ... at even positions,
/// readers `r1`, `r2`, ... at odd ones.
fn readers_writers(n: usize, repaired: bool) -> String {
    let mut s =
        format!("// readers and writers, {n} threads: `a` and `b` must be read as a pair.\nvar a = 0, b = 0;\n");
    for position in 0..n {
        let k = position / 2 + 1;
        if position % 2 == 0 {
            let write = section(&format!("  w{k}a: a := {k};\n  w{k}b: b := {k};\n"), "  ", repaired);
            let _ = write!(s, "\nthread w{k} {{\n  local p;\n  w{k}p: p := {k};\n{write}  w{k}q: p := p * 3;\n}}\n");
        } else {
            let read = section(&format!("  r{k}x: x := a;\n  r{k}y: y := b;\n"), "  ", repaired);
            let _ = write!(s, "\nthread r{k} {{\n  local x, y;\n{read}  r{k}c: assert(x == y);\n}}\n");
        }
    }
    s
}

/// [`Family::TokenRing`] with `n` threads `p0` .. `p{n-1}`.
fn token_ring(n: usize, repaired: bool) -> String {
    let mut s = format!(
        "// token ring, {n} threads: each passes the token before its update of `count` is done.\n\
         var token = 0, count = 0, done = 0;\n"
    );
    for i in 0..n {
        let pass = format!("  p{i}n: token := {};\n", i + 1);
        let update = format!("  p{i}r: v := count;\n  p{i}w: count := v + 1;\n");
        let body = if repaired { update + &pass } else { pass + &update };
        let _ = write!(
            s,
            "\nthread p{i} {{\n  local v, w;\n  p{i}g: await(token == {i});\n{body}  p{i}p: w := v * 2;\n  \
             p{i}e: done := done + 1;\n}}\n"
        );
    }
    let _ = write!(s, "\nthread check {{\n  c1: await(done == {n});\n  c2: assert(count == {n});\n}}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use paces_cwhile::ir::ThreadIdx;
    use paces_explore::{check, replay, Config, Schedule, ScheduleStep, Verdict};

    #[test]
    fn names_read_back_and_unknown_names_are_none() {
        for family in Family::ALL {
            assert_eq!(Family::from_name(family.name()), Some(family));
        }
        assert_eq!(Family::from_name("ring"), None);
    }

    #[test]
    fn the_same_arguments_give_the_same_text_and_n_changes_it() {
        for family in Family::ALL {
            assert_eq!(family.program(5), family.program(5), "{}", family.name());
            assert_ne!(family.program(4), family.program(5), "{}", family.name());
            assert_eq!(family.program(0), family.program(2), "{}", family.name());
        }
    }

    #[test]
    fn each_member_has_n_racing_threads_besides_the_check() {
        for n in 2..=8 {
            let threads = |family: Family| family.program(n).matches("\nthread ").count();
            assert_eq!(threads(Family::Counters), n + 1);
            assert_eq!(threads(Family::ReadersWriters), n);
            assert_eq!(threads(Family::TokenRing), n + 1);
            assert_eq!(threads(Family::Uneven), n + 1);
            assert_eq!(threads(Family::Bank), n + 3);
            let rw = Family::ReadersWriters.program(n);
            assert_eq!(rw.matches("assert(x == y)").count(), n / 2);
            assert_eq!(rw.matches(" := a;").count(), n / 2);
            assert_eq!(rw.matches("\nthread w").count(), n.div_ceil(2));
        }
    }

    /// A bad schedule of every member, N = 2..8: the race of the first two threads, then every
    /// thread to its end, one after the other, and the assertion that fails.
    fn bad_schedule(family: Family, n: usize) -> Vec<(usize, String)> {
        let mut steps: Vec<(usize, String)> = Vec::new();
        let mut run = |thread: usize, labels: &[String]| steps.extend(labels.iter().map(|l| (thread, l.clone())));
        let labels = |prefix: String, names: &[&str]| names.iter().map(|n| format!("{prefix}{n}")).collect::<Vec<_>>();
        match family {
            Family::Counters => {
                // w1 and w2 both read `total` before either writes it; w1 takes the slot.
                run(0, &labels("w1".into(), &["p1", "r"]));
                run(1, &labels("w2".into(), &["p1", "r", "w"]));
                run(0, &labels("w1".into(), &["w", "p2", "s.then", "d", "p3", "e"]));
                run(1, &labels("w2".into(), &["p2", "s.else", "p3", "e"]));
                for i in 3..=n {
                    run(i - 1, &labels(format!("w{i}"), &["p1", "r", "w", "p2", "s.else", "p3", "e"]));
                }
                run(n, &labels("c".into(), &["1", "2"]));
            }
            Family::ReadersWriters => {
                // r1 reads `a` after w1's first write and `b` before its second.
                run(0, &labels("w1".into(), &["p", "a"]));
                run(1, &labels("r1".into(), &["x", "y", "c"]));
            }
            Family::TokenRing => {
                // p1 reads `count` before p0 writes it.
                run(0, &labels("p0".into(), &["g", "n"]));
                run(1, &labels("p1".into(), &["g", "n", "r"]));
                run(0, &labels("p0".into(), &["r", "w", "p", "e"]));
                run(1, &labels("p1".into(), &["w", "p", "e"]));
                for i in 2..n {
                    run(i, &labels(format!("p{i}"), &["g", "n", "r", "w", "p", "e"]));
                }
                run(n, &labels("c".into(), &["1", "2"]));
            }
            Family::Uneven => return uneven::bad_schedule(n),
            Family::Bank => return bank::bad_schedule(n),
        }
        steps
    }

    /// [`bad_schedule`] as the checker's schedule.
    fn schedule(family: Family, n: usize) -> Schedule {
        let steps = bad_schedule(family, n)
            .into_iter()
            .map(|(t, l)| ScheduleStep::new(ThreadIdx::from_u32(u32::try_from(t).expect("few threads")), l))
            .collect();
        Schedule { steps }
    }

    #[test]
    fn every_member_has_a_bad_trace_through_the_race() {
        for family in Family::ALL {
            for n in 2..=8 {
                let program = paces_cwhile::parse(&family.program(n)).expect("parses");
                let trace = replay(&program, &schedule(family, n))
                    .unwrap_or_else(|e| panic!("{} n={n}: not a trace: {e}", family.name()));
                assert!(trace.is_bad(), "{} n={n}: the race fails no assertion", family.name());
                let fixed = paces_cwhile::parse(&family.repaired_program(n)).expect("parses");
                let raced = replay(&fixed, &schedule(family, n));
                assert!(raced.is_err(), "{} n={n}: the hand repair allows the race", family.name());
            }
        }
    }

    /// Every member parses, and the checker finds a bad trace in the small ones (on the large
    /// ones its search takes seconds to minutes; `every_member_has_a_bad_trace_through_the_race`
    /// replays one instead).
    #[test]
    fn every_member_parses_and_the_small_ones_are_buggy() {
        for family in Family::ALL {
            for n in 2..=8 {
                let text = family.program(n);
                let program = paces_cwhile::parse(&text)
                    .unwrap_or_else(|d| panic!("{} n={n} does not parse: {d}\n{text}", family.name()));
                assert_eq!(paces_cwhile::parse(&text).ok(), Some(program.clone()));
                if n <= 3 {
                    let result = check(&program, &Config::new())
                        .unwrap_or_else(|e| panic!("{} n={n}: the checker failed: {e}", family.name()));
                    assert!(
                        matches!(result.verdict, Verdict::Bad(_)),
                        "{} n={n}: not buggy: {:?}",
                        family.name(),
                        result.verdict
                    );
                }
            }
        }
    }

    /// The bug is the race the module docs name: repaired by hand, every member is correct
    /// (the small ones checked here), and only the racing statements moved into sections or
    /// below the pass.
    #[test]
    fn the_repaired_members_are_correct_and_differ_only_in_the_race() {
        for family in Family::ALL {
            for n in 2..=8 {
                let (buggy, fixed) = (family.program(n), family.repaired_program(n));
                assert_eq!(fixed.matches("atomic {").count(), sections(family, n), "{} n={n}", family.name());
                // The same statements, braces and added `atomic {` lines aside, in some order.
                let statements = |text: &str| {
                    let mut lines: Vec<String> =
                        text.lines().map(|l| l.trim().to_owned()).filter(|l| l != "}" && l != "atomic {").collect();
                    lines.sort_unstable();
                    lines
                };
                assert_eq!(statements(&buggy), statements(&fixed), "{} n={n}", family.name());
                if n > 3 {
                    continue;
                }
                let program = paces_cwhile::parse(&fixed).unwrap_or_else(|d| panic!("{d}\n{fixed}"));
                let result = check(&program, &Config::new()).unwrap_or_else(|e| panic!("{e}"));
                assert!(
                    matches!(result.verdict, Verdict::Correct),
                    "{} n={n}: {:?}\n{fixed}",
                    family.name(),
                    result.verdict
                );
            }
        }
    }

    /// The atomic sections of the hand repair: two per worker, one per reader or writer.
    fn sections(family: Family, n: usize) -> usize {
        match family {
            Family::Counters => 2 * n,
            Family::ReadersWriters => n,
            Family::TokenRing => 0,
            Family::Uneven => uneven::sections(n),
            Family::Bank => bank::sections(n),
        }
    }
}
