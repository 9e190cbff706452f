//! Why a run stopped ([`StopReason`]) and whether its repair is known to be a cheapest one
//! ([`Optimality`]): data, with `Display` for the words.

use std::fmt;

use paces_explore::Bound;

use super::iteration::Problem;

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// A repair was found and accepted by the checker.
    Repaired,
    /// The program has no reachable assertion failure and no reachable deadlock (with
    /// [`Repair::keep_deadlocks`](crate::Repair::keep_deadlocks): no assertion failure):
    /// nothing to repair.
    AlreadyCorrect,
    /// No program of the space satisfies the learned constraints, or the checker rejects
    /// every one: why.
    NoRepair(NoRepair),
    /// The iteration limit was reached.
    IterationLimit,
    /// The time limit was reached.
    TimeLimit,
    /// A bound was reached before an answer: which.
    BoundReached(BoundHit),
}

/// Why there is no repair in the space.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoRepair {
    /// The learned constraints conflict: the learner's explanation (which lessons conflict,
    /// and the likely cause).
    Conflict {
        /// The learner's words ([`Proposal::Unsatisfiable`](paces_learn::Proposal::Unsatisfiable)).
        explanation: String,
    },
    /// The original's failure needs no other thread: `thread` fails running alone.
    FailsAlone {
        /// The failure.
        failure: Problem,
        /// The thread that fails alone.
        thread: String,
    },
    /// The elimination graph of the original's bad trace has no cycle.
    NoCycle {
        /// The failure.
        failure: Problem,
    },
    /// The checker rejects every candidate of the space (the exhaustive search).
    EveryCandidateRejected {
        /// The space's candidates, the original included.
        candidates: usize,
    },
    /// The loop walked the space (its last candidates had nothing to generalise), judged
    /// the candidates in cost order and rejected each.
    WalkedAndRejected {
        /// The number of candidates of the space.
        candidates: usize,
        /// The iterations in a row with nothing to generalise that started the walk.
        blind: usize,
    },
    /// The original has no assertion failure and no program of the space removes its
    /// deadlocks (each is listed with the reason it is kept).
    DeadlocksStay,
}

/// A bound that stopped a run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BoundHit {
    /// A check of a program reached the checker's bound.
    Check(Bound),
    /// The sequential runs of a program reached a bound of the checker: its message.
    SequentialRuns {
        /// The checker's message.
        message: String,
    },
    /// Learning from a bad trace passed the learner's memory bound: its message.
    LearningMemory {
        /// The learner's message.
        message: String,
    },
}

impl StopReason {
    /// A stable short name: `repaired`, `already-correct`, `no-repair`, `iteration-limit`,
    /// `time-limit`, `bound-reached`.
    pub fn name(&self) -> &'static str {
        match self {
            StopReason::Repaired => "repaired",
            StopReason::AlreadyCorrect => "already-correct",
            StopReason::NoRepair(_) => "no-repair",
            StopReason::IterationLimit => "iteration-limit",
            StopReason::TimeLimit => "time-limit",
            StopReason::BoundReached(_) => "bound-reached",
        }
    }

    /// Whether the run ends with a program free of bugs (repaired or already correct).
    pub fn is_success(&self) -> bool {
        matches!(self, StopReason::Repaired | StopReason::AlreadyCorrect)
    }

    /// The checker's bound, when a check of a program stopped the run at it.
    pub fn bound(&self) -> Option<Bound> {
        match self {
            StopReason::BoundReached(BoundHit::Check(bound)) => Some(*bound),
            _ => None,
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Repaired => f.write_str("repaired"),
            StopReason::AlreadyCorrect => f.write_str("already correct: no assertion can fail"),
            StopReason::NoRepair(why) => write!(f, "no repair in this space: {why}"),
            StopReason::IterationLimit => f.write_str("iteration limit reached"),
            StopReason::TimeLimit => f.write_str("time limit reached"),
            StopReason::BoundReached(hit @ BoundHit::LearningMemory { .. }) => {
                write!(f, "the learner reached its {hit}")
            }
            StopReason::BoundReached(hit) => write!(f, "the checker reached its {hit}"),
        }
    }
}

impl fmt::Display for NoRepair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoRepair::Conflict { explanation } => f.write_str(explanation),
            NoRepair::FailsAlone { failure, thread } => write!(
                f,
                "the failure ({failure}) needs no other thread: thread `{thread}` fails running alone, so no \
                 scheduling repair (reordering or atomic section) exists"
            ),
            NoRepair::NoCycle { failure } => write!(
                f,
                "the elimination graph of the original program's bad trace ({failure}) has no cycle: no \
                 reordering or atomic section of this space removes it"
            ),
            NoRepair::EveryCandidateRejected { candidates } => {
                write!(f, "the checker rejects every one of the space's {candidates} candidates")
            }
            NoRepair::WalkedAndRejected { candidates, blind } => write!(
                f,
                "the loop's last {blind} candidates were rejected with nothing to generalise, so it judged the \
                 space's candidates in cost order: the checker rejects each of its {candidates}"
            ),
            NoRepair::DeadlocksStay => f.write_str(
                "the original has no assertion failure, and no program of the space removes its deadlocks (each is \
                 listed with the reason it is kept)",
            ),
        }
    }
}

impl fmt::Display for BoundHit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoundHit::Check(bound) => write!(f, "{bound}"),
            BoundHit::SequentialRuns { message } => f.write_str(message),
            BoundHit::LearningMemory { message } => write!(f, "memory bound in learning from a bad trace: {message}"),
        }
    }
}

/// Whether a repair of the loop is known to be a cheapest one of the space
/// ([`Report::optimality`](super::Report::optimality)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Optimality {
    /// No cheaper candidate of the space is accepted: how that is known.
    Proved(Proof),
    /// The cheapest repair the loop found: what was not tried.
    CheapestFound(Unproved),
}

/// How a repair is known to be a cheapest one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Proof {
    /// A single swap is the least change, and the original is rejected.
    SingleSwap,
    /// The optimisation phase judged the candidates cheaper than the loop's repair in cost
    /// order and took the first accepted, the `judged`-th.
    FirstCheaperAccepted {
        /// Candidates judged.
        judged: usize,
    },
    /// Each of the space's `cheaper` candidates cheaper than the repair was judged and rejected.
    EveryCheaperRejected {
        /// The cheaper candidates.
        cheaper: usize,
    },
    /// The loop walked the space in cost order (its last `blind` candidates had nothing to
    /// generalise) and took the first accepted.
    WalkedInCostOrder {
        /// The iterations in a row with nothing to generalise that started the walk.
        blind: usize,
    },
}

/// Why a repair is not known to be a cheapest one: what was not tried.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unproved {
    /// The time limit came while the phase searched for a cheaper candidate.
    TimeLimit,
    /// The time limit came after `checked` of the space's `total` cheaper candidates.
    TimeLimitInList {
        /// Judged before the limit.
        checked: usize,
        /// The cheaper candidates.
        total: usize,
    },
    /// The checker stopped (`stop`, a [`StopReason::name`]) after `checked` of `total`
    /// cheaper candidates.
    CheckerStoppedInList {
        /// The stop's name.
        stop: &'static str,
        /// Judged before it.
        checked: usize,
        /// The cheaper candidates.
        total: usize,
    },
    /// The time limit came while the learner proposed cheaper candidates.
    TimeLimitLearning,
    /// No cheaper candidate satisfies what the loop learned (`checked` judged).
    NoCheaperProposal {
        /// Judged.
        checked: usize,
    },
    /// The checker stopped (`stop`) after `checked` cheaper candidates the learner proposed.
    CheckerStopped {
        /// The stop's name.
        stop: &'static str,
        /// Judged before it.
        checked: usize,
    },
    /// The phase judged as many cheaper candidates as it may (`checks`).
    ChecksSpent {
        /// Its limit.
        checks: usize,
    },
}

impl Optimality {
    /// Whether the repair is proved a cheapest one.
    pub fn is_proved(&self) -> bool {
        matches!(self, Optimality::Proved(_))
    }

    /// How it is known, or what was not tried, in words.
    pub fn why(&self) -> String {
        match self {
            Optimality::Proved(proof) => proof.to_string(),
            Optimality::CheapestFound(unproved) => unproved.to_string(),
        }
    }
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Proof::SingleSwap => f.write_str("a single swap is the least change, and the original program is rejected"),
            Proof::FirstCheaperAccepted { judged } => write!(
                f,
                "the optimisation phase judged the {judged} candidates cheaper than the loop's repair in cost order \
                 and took the first accepted"
            ),
            Proof::EveryCheaperRejected { cheaper } => {
                write!(f, "each of the space's {cheaper} cheaper candidates was judged and rejected")
            }
            Proof::WalkedInCostOrder { blind } => write!(
                f,
                "the loop's last {blind} candidates were rejected with nothing to generalise, so it judged the \
                 space's candidates in cost order and took the first accepted"
            ),
        }
    }
}

/// What the optimisation phase's search by learning leaves out.
const NOT_TRIED: &str = "cheaper candidates that the bad traces' fixes (at most K constraint edges) and the good \
                         traces' covered edges exclude were not judged";

impl fmt::Display for Unproved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unproved::TimeLimit => f.write_str("the time limit came during the search for a cheaper candidate"),
            Unproved::TimeLimitInList { checked, total } => {
                write!(f, "the time limit came after {checked} of the {total} cheaper candidates")
            }
            Unproved::CheckerStoppedInList { stop, checked, total } => {
                write!(f, "the checker stopped ({stop}) after {checked} of the {total} cheaper candidates")
            }
            Unproved::TimeLimitLearning => write!(f, "the time limit came; {NOT_TRIED}"),
            Unproved::NoCheaperProposal { checked } => {
                write!(f, "no cheaper candidate satisfies what the loop learned ({checked} judged); {NOT_TRIED}")
            }
            Unproved::CheckerStopped { stop, checked } => {
                write!(f, "the checker stopped ({stop}) after {checked} cheaper candidates; {NOT_TRIED}")
            }
            Unproved::ChecksSpent { checks } => {
                write!(f, "the optimisation phase judged its {checks} cheaper candidates; {NOT_TRIED}")
            }
        }
    }
}
