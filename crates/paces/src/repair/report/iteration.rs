//! What one iteration of the loop learned from ([`Iteration`]): the problem of the program
//! it rejected ([`Problem`]), the trace, the fixes, the next proposal.

use std::fmt;

use paces_constraint::Transformation;
use paces_cwhile::Program;
use paces_explore::{DeadlockId, LivelockId};
use paces_generalize::Elimination;
use paces_trace::Trace;

/// What a rejected program was rejected for, and so what an iteration learned from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IterationKind {
    /// An assertion fails: a bad trace.
    Bad,
    /// A deadlock the original program does not have.
    Deadlock,
    /// An atomic livelock the original program does not have.
    Livelock,
    /// The final states of complete sequential runs differ from the original's.
    Sequential,
    /// An assertion that passes on some run of the original is reached on none.
    Unreached,
    /// The input's language refuses the candidate ([`Repair::refuse_when`](crate::Repair::refuse_when)).
    Refused,
    /// The candidate reaches an outcome that no run of the original reaches.
    Outcome,
}

impl IterationKind {
    /// A stable short name: `bad`, `deadlock`, `livelock`, `sequential`, `unreached`,
    /// `refused`, `outcome`.
    pub fn name(self) -> &'static str {
        match self {
            IterationKind::Bad => "bad",
            IterationKind::Deadlock => "deadlock",
            IterationKind::Livelock => "livelock",
            IterationKind::Sequential => "sequential",
            IterationKind::Unreached => "unreached",
            IterationKind::Refused => "refused",
            IterationKind::Outcome => "outcome",
        }
    }
}

impl fmt::Display for IterationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What kind of step fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// An assertion.
    Assertion,
    /// A division by zero.
    DivisionByZero,
    /// A shift by a negative amount or by the width or more.
    ShiftOutOfRange,
}

/// The problem a program was rejected for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A step fails: at the location labelled `at` (`None` when the trace does not say).
    Failure {
        /// The failing step's label.
        at: Option<String>,
        /// What fails there.
        kind: FailureKind,
    },
    /// A deadlock the original does not reach.
    NewDeadlock(DeadlockId),
    /// A deadlock the original reaches too, which the removal phase removes.
    OriginalDeadlock(DeadlockId),
    /// A candidate that passes every check but has a deadlock the original reaches only
    /// after a failure (same blocked threads): kept in reserve while the loop looks, for at
    /// most `iterations` more iterations, for a repair whose deadlocks stand where the
    /// original's do.
    InReserve {
        /// The deadlock.
        deadlock: DeadlockId,
        /// How many more iterations the loop looks.
        iterations: usize,
    },
    /// A deadlock admitted only after a failure, met by the optimisation phase.
    AdmittedAfterFailure(DeadlockId),
    /// An atomic livelock the original does not have.
    NewLivelock(LivelockId),
    /// An outcome no run of the original reaches: the globals' values, by name.
    NewOutcome(Vec<(String, i64)>),
    /// The final states of complete sequential runs changed.
    SequentialStates,
    /// Assertions the original checks are reached no more: their labels.
    Unreached(Vec<String>),
    /// The input's language refuses the candidate: its reasons.
    Refused(Vec<String>),
}

impl Problem {
    /// What an iteration that learns from this problem learns from.
    pub fn kind(&self) -> IterationKind {
        match self {
            Problem::Failure { .. } => IterationKind::Bad,
            Problem::NewDeadlock(_)
            | Problem::OriginalDeadlock(_)
            | Problem::InReserve { .. }
            | Problem::AdmittedAfterFailure(_) => IterationKind::Deadlock,
            Problem::NewLivelock(_) => IterationKind::Livelock,
            Problem::NewOutcome(_) => IterationKind::Outcome,
            Problem::SequentialStates => IterationKind::Sequential,
            Problem::Unreached(_) => IterationKind::Unreached,
            Problem::Refused(_) => IterationKind::Refused,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        InWords { problem: self, program: None }.fmt(f)
    }
}

impl Problem {
    /// The problem in the words of the source `program` (the original the repair started
    /// from) was read from: for a program read from C, its places by line and its threads by
    /// the names traces show them by (`assertion at line 20 fails`, `new deadlock: main at
    /// line 19, worker t[0] done`); for a Cwhile program the same as its `Display`.
    pub fn shown<'a>(&'a self, program: &'a Program) -> impl fmt::Display + 'a {
        InWords { problem: self, program: Some(program) }
    }
}

/// A [`Problem`] in words, its places and threads named as `program` names them.
struct InWords<'a> {
    problem: &'a Problem,
    program: Option<&'a Program>,
}

impl InWords<'_> {
    fn deadlock(&self, id: &DeadlockId) -> String {
        self.program.map_or_else(|| id.to_string(), |p| id.shown(p))
    }

    fn livelock(&self, id: &LivelockId) -> String {
        self.program.map_or_else(|| id.to_string(), |p| id.shown(p))
    }

    /// The location `at` (`line 20` for a program read from C), and whether it is a line.
    fn place(&self, at: &str) -> (String, bool) {
        match self.program.and_then(|p| p.place_name(at)) {
            Some(line) => (line, true),
            None => (format!("`{at}`"), false),
        }
    }
}

impl fmt::Display for InWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problem {
            Problem::Failure { at: None, .. } => f.write_str("a failure"),
            Problem::Failure { at: Some(at), kind } => match (kind, self.place(at)) {
                (FailureKind::Assertion, (at, true)) => write!(f, "assertion at {at} fails"),
                (FailureKind::Assertion, (at, false)) => write!(f, "{at} fails"),
                (FailureKind::DivisionByZero, (at, _)) => write!(f, "division by zero at {at}"),
                (FailureKind::ShiftOutOfRange, (at, _)) => write!(f, "shift out of range at {at}"),
            },
            Problem::NewDeadlock(id) => write!(f, "new deadlock: {}", self.deadlock(id)),
            Problem::OriginalDeadlock(id) => write!(f, "deadlock of the original: {}", self.deadlock(id)),
            Problem::InReserve { deadlock, iterations } => write!(
                f,
                "candidate kept in reserve, not yet the repair: it passes every check, but with a deadlock \
                 admitted only after a failure ({}: the original deadlocks with the same threads blocked \
                 once an assertion failed); looking for at most {iterations} more iterations for a repair whose \
                 deadlocks all stand where the original's do (the reserve is the answer when none is found)",
                self.deadlock(deadlock)
            ),
            Problem::AdmittedAfterFailure(_) => f.write_str("deadlock admitted only after a failure"),
            Problem::NewLivelock(id) => write!(f, "new atomic livelock: {}", self.livelock(id)),
            Problem::NewOutcome(values) => {
                let parts: Vec<String> = values.iter().map(|(name, v)| format!("{name} = {v}")).collect();
                write!(f, "new outcome: {} (no run of the original ends with these values)", parts.join(", "))
            }
            Problem::SequentialStates => f.write_str("the final states of complete sequential traces changed"),
            Problem::Unreached(labels) => {
                let places: Vec<String> = labels
                    .iter()
                    .map(|l| self.program.and_then(|p| p.place_name(l)).unwrap_or_else(|| l.clone()))
                    .collect();
                write!(f, "assertions the original checks are reached no more: {}", places.join(", "))
            }
            Problem::Refused(reasons) => f.write_str(&reasons.join("; ")),
        }
    }
}

/// A bad trace the loop generalised, kept when [`Repair::record_traces`](crate::Repair::record_traces)
/// is on: the trace in the original's terms and its elimination (partial order and fixes).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LearnedTrace {
    /// The trace, its locations the original program's.
    pub trace: Trace,
    /// Its partial order and the fixes of its elimination graph.
    pub elimination: Elimination,
}

/// What one iteration learned from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Iteration {
    /// What went wrong ([`Iteration::kind`] says of what kind).
    pub problem: Problem,
    /// The schedule of the trace learned from (labels), empty when none.
    pub schedule: Vec<String>,
    /// The thread of each step of [`Iteration::schedule`] (an index into the program's
    /// threads).
    pub threads: Vec<usize>,
    /// The failing step of a bad trace (an index into [`Iteration::schedule`]).
    pub failing: Option<usize>,
    /// Fixes the elimination graphs of its traces offered (the first trace's and those of
    /// [`Iteration::more`]).
    pub fixes: usize,
    /// The problems of the further bad traces of the same check learned from in this
    /// iteration, after the one of [`Iteration::schedule`]
    /// ([`Repair::counterexamples`](crate::Repair::counterexamples)); empty when there were none.
    pub more: Vec<Problem>,
    /// The transformations of the candidate proposed afterwards (empty when none).
    pub proposal: Vec<Transformation>,
    /// The trace learned from with its elimination, when
    /// [`Repair::record_traces`](crate::Repair::record_traces) is on and the trace was
    /// generalised.
    pub learned: Option<Box<LearnedTrace>>,
    /// The further bad traces of [`Iteration::more`] with their eliminations, one entry per
    /// problem there (`None` for a trace that was not generalised), when
    /// [`Repair::record_traces`](crate::Repair::record_traces) is on; empty otherwise.
    pub more_learned: Vec<Option<Box<LearnedTrace>>>,
}

impl Iteration {
    /// What the program learned from was rejected for: its problem's kind.
    pub fn kind(&self) -> IterationKind {
        self.problem.kind()
    }

    pub(crate) fn new(problem: Problem) -> Iteration {
        Iteration {
            problem,
            schedule: Vec::new(),
            threads: Vec::new(),
            failing: None,
            fixes: 0,
            more: Vec::new(),
            proposal: Vec::new(),
            learned: None,
            more_learned: Vec::new(),
        }
    }
}
