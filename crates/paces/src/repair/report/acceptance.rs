//! The checks an accepted program passed ([`Acceptance`]) and what became of the original's
//! deadlocks ([`DeadlockFate`]).

use std::fmt;

use paces_explore::{DeadlockId, LivelockId};

/// The checks an accepted program passed, with what they compared.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Acceptance {
    /// No assertion can fail.
    pub no_assertion_failure: bool,
    /// No deadlock is reachable; with [`Repair::keep_deadlocks`](crate::Repair::keep_deadlocks),
    /// every reachable deadlock is one the original reaches (see [`Acceptance::deadlocks`]).
    pub no_new_deadlock: bool,
    /// Every reachable atomic livelock was reachable in the original.
    pub no_new_livelock: bool,
    /// The final states of complete sequential traces equal the original's.
    pub same_sequential_states: bool,
    /// Every assertion that passes on some run of the original still does on some run of
    /// the program: no check was made vacuous (say by a wait that never passes moved above
    /// it). One that only ever fails in the original may become unreachable.
    pub assertions_reached: bool,
    /// The accepted program's deadlocks, each with the rule that admits it (empty unless the
    /// original's deadlocks are kept).
    pub deadlocks: Vec<AdmittedDeadlock>,
    /// The accepted program's atomic livelocks (each one the original has too).
    pub livelocks: Vec<LivelockId>,
    /// How many distinct final states the complete sequential runs reach.
    pub sequential_final_states: usize,
    /// Every outcome of the program (the globals' values where every thread is at its end
    /// or idle at a loop it may leave) is an outcome of some run of the original: the
    /// repair adds no behaviour that no assertion names.
    pub no_new_outcome: bool,
    /// How many distinct outcomes the program has, when they were compared with the
    /// original's; `None` for a program without reorders (an atomic section only takes runs
    /// away, so it adds no outcome, and none is compared) or whose reorders are private to
    /// their threads (`Program::reorders_are_private`).
    pub outcomes: Option<usize>,
    /// The check of the accepted program cut some path at the checker's loop bound
    /// (`Config::unwind`): the checks hold only within that bound.
    pub unwind_reached: bool,
    /// The states the checks of the program stored (its check and, with reorders, its
    /// outcomes), when it was accepted: the floor of what a run that ends with it costs.
    pub states: usize,
}

/// A deadlock of an accepted program and why it is no regression.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AdmittedDeadlock {
    /// Where every thread stands (shown as `a at L, b done`).
    pub deadlock: DeadlockId,
    /// The rule that admits it.
    pub rule: DeadlockRule,
}

/// Why a deadlock of a repaired program is not new.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeadlockRule {
    /// The original reaches a deadlock where every thread stands at the same place.
    SamePlace,
    /// The original reaches a deadlock of the same blocked threads on a run where an
    /// assertion had already failed: a run that was bad already may end in a deadlock instead.
    SameThreadsAfterFailure,
}

impl DeadlockRule {
    /// The rule's name in reports (`same-place`, `same-threads-after-failure`).
    pub fn name(self) -> &'static str {
        match self {
            DeadlockRule::SamePlace => "same-place",
            DeadlockRule::SameThreadsAfterFailure => "same-threads-after-failure",
        }
    }
}

impl Acceptance {
    /// Whether every check passed.
    pub fn accepted(&self) -> bool {
        self.no_assertion_failure
            && self.no_new_deadlock
            && self.no_new_livelock
            && self.same_sequential_states
            && self.assertions_reached
            && self.no_new_outcome
    }
}

/// What became of a deadlock of the original program in the repaired one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeadlockFate {
    /// Where every thread stands (shown as `a at L, b done`).
    pub deadlock: DeadlockId,
    /// Removed, or kept and why.
    pub fate: Fate,
}

/// Whether the repair removed a deadlock of the original.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fate {
    /// The repaired program does not reach it.
    Removed,
    /// The repaired program still reaches it.
    Kept(KeptBecause),
}

/// Why a deadlock of the original stays in the repaired program.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeptBecause {
    /// [`Repair::keep_deadlocks`](crate::Repair::keep_deadlocks) asked to keep every one.
    Asked,
    /// Every program of the space keeps it: once the threads named in `before` ran one
    /// after another to their end, `thread` alone waits at `at` for good, and no reorder or
    /// section changes what a thread does alone.
    ThreadAlone {
        /// The threads that ran to their end first.
        before: Vec<String>,
        /// The thread that waits for good.
        thread: String,
        /// The label it waits at.
        at: String,
    },
    /// Its trace offers no reorder or section that removes it (no elimination cycle).
    NoFix,
    /// Every candidate that removes it conflicts with what the repair of the assertions
    /// (or of another deadlock) learned.
    Conflict,
    /// The removal phase's budget ran out before a program without it was found.
    Budget,
}

impl fmt::Display for KeptBecause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeptBecause::Asked => f.write_str("kept as asked (--keep-deadlocks)"),
            KeptBecause::ThreadAlone { before, thread, at } => {
                let quoted: Vec<String> = before.iter().map(|t| format!("`{t}`")).collect();
                let before = match quoted.as_slice() {
                    [] => "from the start".to_owned(),
                    [one] => format!("after {one} ran to its end"),
                    [rest @ .., last] => {
                        format!("after {} and {last} ran one after another to their end", rest.join(", "))
                    }
                };
                write!(f, "every program of the space keeps it: {before}, `{thread}` alone waits at `{at}` for good")
            }
            KeptBecause::NoFix => f.write_str("its trace offers no reorder or atomic section that removes it"),
            KeptBecause::Conflict => {
                f.write_str("every candidate that removes it conflicts with what the repair of the assertions needs")
            }
            KeptBecause::Budget => {
                f.write_str("the removal phase's budget ran out before a program without it was found")
            }
        }
    }
}

impl fmt::Display for Fate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fate::Removed => f.write_str("removed"),
            Fate::Kept(why) => write!(f, "kept: {why}"),
        }
    }
}

impl Fate {
    /// A stable short name: `removed` or `kept`.
    pub fn name(&self) -> &'static str {
        match self {
            Fate::Removed => "removed",
            Fate::Kept(_) => "kept",
        }
    }

    /// For a kept deadlock, a stable short name of the reason: `asked`, `thread-alone`,
    /// `no-fix`, `conflict`, `budget`.
    pub fn reason(&self) -> Option<&'static str> {
        match self {
            Fate::Removed => None,
            Fate::Kept(KeptBecause::Asked) => Some("asked"),
            Fate::Kept(KeptBecause::ThreadAlone { .. }) => Some("thread-alone"),
            Fate::Kept(KeptBecause::NoFix) => Some("no-fix"),
            Fate::Kept(KeptBecause::Conflict) => Some("conflict"),
            Fate::Kept(KeptBecause::Budget) => Some("budget"),
        }
    }
}
