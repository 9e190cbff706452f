//! The loop driver: a [`Runner`] asks the client's checker about each candidate the learner
//! proposes, learns from the traces it answers with, and reports the cheapest correct
//! candidate.

use std::fmt;
use std::time::{Duration, Instant};

use paces_constraint::{Candidate, Cost, Space, Transformation};
use paces_trace::Trace;

use crate::proposal::write_candidate;
use crate::{Error, ErrorKind, Learner, LearnerConfig, Lesson, Proposal};

/// The error a checker may give: any error, boxed.
pub type CheckError = Box<dyn std::error::Error + Send + Sync>;

/// What the checker says of one candidate: the bad traces it found (none: the candidate is
/// correct) and good traces to learn from. Traces are of the original program (see
/// [`Learner`]).
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Verdict {
    /// Bad traces of the candidate: empty when it is correct.
    pub bad: Vec<Trace>,
    /// Good traces, learned with LearnGoodUnder so that no later candidate regresses them.
    pub good: Vec<Trace>,
}

impl Verdict {
    /// The candidate is correct; `good` are its good traces to keep.
    pub fn correct(good: Vec<Trace>) -> Verdict {
        Verdict { bad: Vec::new(), good }
    }

    /// The candidate is wrong: `bad` shows how (at least one trace), `good` are good traces
    /// to keep.
    pub fn wrong(bad: Vec<Trace>, good: Vec<Trace>) -> Verdict {
        Verdict { bad, good }
    }

    /// Whether the candidate is correct: no bad trace.
    pub fn is_correct(&self) -> bool {
        self.bad.is_empty()
    }
}

/// Why a [`Runner`] stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stop {
    /// A correct candidate was found, and no cheaper candidate is left to try.
    Correct,
    /// No candidate satisfies what was learned: the learner's explanation. A correct
    /// candidate found before may still be in the report.
    NoCandidate(String),
    /// The iteration limit ([`Runner::iter_limit`]) was reached.
    IterLimit,
    /// The time limit ([`Runner::time_limit`]) passed.
    TimeLimit,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Correct => f.write_str("correct"),
            Stop::NoCandidate(explanation) => write!(f, "no candidate: {explanation}"),
            Stop::IterLimit => f.write_str("iteration limit reached"),
            Stop::TimeLimit => f.write_str("time limit reached"),
        }
    }
}

/// A correct candidate with its cost, the transformations leading to it, and the iteration
/// (from 1) that checked it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Found {
    /// The candidate.
    pub candidate: Candidate,
    /// Its cost.
    pub cost: Cost,
    /// The transformations from the original program to it.
    pub transformations: Vec<Transformation>,
    /// The iteration that checked it.
    pub iteration: usize,
}

impl Found {
    /// Displays the answer with the space's names: the iteration that found it, then as
    /// [`Proposal::display`] shows a candidate (its cost, the transformations, the candidate).
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayFound { found: self, space }
    }
}

struct DisplayFound<'a> {
    found: &'a Found,
    space: &'a Space,
}

impl fmt::Display for DisplayFound<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (found, space) = (self.found, self.space);
        write!(f, "found at iteration {}: ", found.iteration)?;
        write_candidate(f, space, &found.candidate, found.cost, &found.transformations)
    }
}

/// What a [`Runner`] did: why it stopped, the cheapest correct candidate, and how many
/// candidates it checked.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Report {
    /// Why it stopped.
    pub stop: Stop,
    /// The cheapest correct candidate checked, if any.
    pub best: Option<Found>,
    /// Candidates checked.
    pub iterations: usize,
    /// Good traces' fallbacks relaxed after a correct answer (see [`Runner::relax_once`]).
    pub relaxed: usize,
    /// Time spent.
    pub elapsed: Duration,
}

impl Report {
    /// Displays the report with the space's names: why the run stopped and after how many
    /// checks, then the cheapest correct candidate as [`Found::display`] shows it, or that
    /// there is none.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayReport { report: self, space }
    }
}

struct DisplayReport<'a> {
    report: &'a Report,
    space: &'a Space,
}

impl fmt::Display for DisplayReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = self.report;
        let checks =
            if report.iterations == 1 { "1 check".to_owned() } else { format!("{} checks", report.iterations) };
        writeln!(f, "{} after {checks}", report.stop)?;
        match &report.best {
            Some(found) => write!(f, "{}", found.display(self.space)),
            None => f.write_str("no correct candidate found"),
        }
    }
}

/// A step of a run, for progress ([`Runner::on_event`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The checker is about to check this candidate (iteration from 1).
    Check {
        /// The iteration.
        iteration: usize,
        /// The candidate.
        candidate: &'a Candidate,
        /// Its cost.
        cost: Cost,
    },
    /// A trace the checker answered with was learned.
    Learned {
        /// The iteration.
        iteration: usize,
        /// What was learned.
        lesson: &'a Lesson,
    },
    /// The candidate was correct.
    Correct {
        /// The iteration.
        iteration: usize,
    },
    /// After a correct answer, good traces' fallbacks were relaxed to look for a cheaper
    /// candidate.
    Relaxed {
        /// How many were relaxed.
        count: usize,
    },
}

/// Why a run stops when the learner proposes the candidate it just rejected.
const SAME_AGAIN: &str = "the learner proposes the rejected candidate again: its bad traces offered no fix \
     (a bad trace that stops short of the writes a fix needs: see the lessons' warnings)";

type Listener<'l> = Box<dyn FnMut(&Event<'_>) + 'l>;

/// Drives a CEGIS loop (in the spirit of egg's `Runner`): the client gives its checker, a
/// closure from a candidate to a [`Verdict`], and gets a [`Report`].
///
/// The policy, each part a setter: check the original program first; learn every trace the
/// checker answers with; after the first correct candidate, when good traces' fallbacks are
/// in force, relax them once ([`Runner::relax_once`]) and look for a cheaper candidate; keep
/// the cheapest correct one; stop when correct with no cheaper candidate left, when no
/// candidate is left, or at a limit ([`Runner::iter_limit`], [`Runner::time_limit`]).
///
/// # Example
/// See the crate's front page.
pub struct Runner<'l> {
    learner: Learner,
    iter_limit: usize,
    time_limit: Option<Duration>,
    relax_once: bool,
    listener: Option<Listener<'l>>,
}

impl<'l> Runner<'l> {
    /// The default of [`Runner::iter_limit`].
    pub const DEFAULT_ITER_LIMIT: usize = 30;

    /// A runner over a new learner of `space` with `config`.
    ///
    /// # Errors
    /// As for [`Learner::new`].
    pub fn new(space: &Space, config: LearnerConfig) -> Result<Runner<'l>, Error> {
        Ok(Runner::with_learner(Learner::new(space, config)?))
    }

    /// A runner over a learner of the client's (which may hold lessons already).
    pub fn with_learner(learner: Learner) -> Runner<'l> {
        Runner { learner, iter_limit: Self::DEFAULT_ITER_LIMIT, time_limit: None, relax_once: true, listener: None }
    }

    /// The most candidates checked in one run. Default: [`Runner::DEFAULT_ITER_LIMIT`] (30).
    pub fn iter_limit(mut self, limit: usize) -> Self {
        self.iter_limit = limit;
        self
    }

    /// The longest a run takes: checked between iterations, and a proposal stops at it.
    /// Default: none.
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Whether, after a correct candidate, good traces' fallbacks still in force are relaxed
    /// once ([`Learner::relax_fallbacks`]) to look for a cheaper candidate: a fallback
    /// freezes every order of its trace, which may exclude a cheaper reorder that the checker
    /// then checks. Default: true.
    pub fn relax_once(mut self, on: bool) -> Self {
        self.relax_once = on;
        self
    }

    /// Calls `listener` at each step of a run (for progress).
    pub fn on_event(mut self, listener: impl FnMut(&Event<'_>) + 'l) -> Self {
        self.listener = Some(Box::new(listener));
        self
    }

    /// The learner, with what it learned.
    pub fn learner(&self) -> &Learner {
        &self.learner
    }

    /// The learner, to learn or retract lessons between runs.
    pub fn learner_mut(&mut self) -> &mut Learner {
        &mut self.learner
    }

    /// The learner itself.
    pub fn into_learner(self) -> Learner {
        self.learner
    }

    fn emit(&mut self, event: Event<'_>) {
        if let Some(listener) = &mut self.listener {
            listener(&event);
        }
    }

    /// Runs the loop from the original program with `check` as the checker.
    ///
    /// # Errors
    /// The checker's error (kind [`ErrorKind::Check`]), or the learner's: a trace that does
    /// not fit the space, a solver failure.
    pub fn run(&mut self, mut check: impl FnMut(&Candidate) -> Result<Verdict, CheckError>) -> Result<Report, Error> {
        let start = Instant::now();
        let deadline = self.time_limit.map(|limit| start + limit);
        self.learner.set_deadline(deadline);
        let result = self.run_from(&mut check, start, deadline);
        self.learner.set_deadline(None);
        result
    }

    fn run_from(
        &mut self,
        check: &mut impl FnMut(&Candidate) -> Result<Verdict, CheckError>,
        start: Instant,
        deadline: Option<Instant>,
    ) -> Result<Report, Error> {
        let space = self.learner.space();
        let (mut candidate, mut transformations) = (Candidate::original(space), Vec::new());
        let mut cost = candidate.cost(space);
        let mut best: Option<Found> = None;
        let mut relaxed = 0;
        let mut tried_relaxing = false;
        let mut iteration = 0;
        let stop = loop {
            if iteration == self.iter_limit {
                break Stop::IterLimit;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break Stop::TimeLimit;
            }
            iteration += 1;
            self.emit(Event::Check { iteration, candidate: &candidate, cost });
            let verdict = check(&candidate).map_err(|e| {
                let message = format!("the checker failed on iteration {iteration}: {e}");
                Error::new(ErrorKind::Check, message)
            })?;
            for trace in &verdict.good {
                let lesson = self.learner.learn_good(trace)?;
                self.emit(Event::Learned { iteration, lesson: &lesson });
            }
            if verdict.is_correct() {
                self.emit(Event::Correct { iteration });
                if best.as_ref().is_none_or(|b| cost < b.cost) {
                    let transformations = std::mem::take(&mut transformations);
                    best = Some(Found { candidate: candidate.clone(), cost, transformations, iteration });
                }
                if !self.relax_once || tried_relaxing {
                    break Stop::Correct;
                }
                tried_relaxing = true;
                let count = self.learner.relax_fallbacks()?;
                if count == 0 {
                    break Stop::Correct;
                }
                relaxed += count;
                self.emit(Event::Relaxed { count });
            }
            for trace in &verdict.bad {
                let lesson = self.learner.learn_bad(trace)?;
                self.emit(Event::Learned { iteration, lesson: &lesson });
            }
            let proposal = match self.learner.propose() {
                Err(e) if *e.kind() == ErrorKind::Deadline => break Stop::TimeLimit,
                other => other?,
            };
            match proposal {
                Proposal::Candidate { candidate: next, cost: next_cost, transformations: next_steps } => {
                    if best.as_ref().is_some_and(|b| next_cost >= b.cost) {
                        break Stop::Correct;
                    }
                    if !verdict.is_correct() && next == candidate {
                        break Stop::NoCandidate(SAME_AGAIN.to_owned());
                    }
                    (candidate, cost, transformations) = (next, next_cost, next_steps);
                }
                Proposal::Unsatisfiable { explanation, .. } => {
                    break if best.is_some() { Stop::Correct } else { Stop::NoCandidate(explanation) };
                }
            }
        };
        Ok(Report { stop, best, iterations: iteration, relaxed, elapsed: start.elapsed() })
    }
}
