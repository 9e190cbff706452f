//! The embedding API: a learner that takes good and bad traces of any checker and proposes
//! the next candidate program, so that a custom CEGIS loop needs no Cwhile.

use std::fmt;

use paces_constraint::{Arena, Candidate, Cost, NodeId, Space, Stats, Transformation};
use paces_generalize::{eliminate, EliminateConfig, Elimination};
use paces_solver::{BackendKind, ConstraintId, Outcome, Solver, SolverConfig};
use paces_trace::{learn_good, LearnConfig, Trace, Variant};

use crate::{Error, ErrorKind};

/// Whether a bad trace ends at its failure with no blocked and no pending steps.
fn stops_at_failure(trace: &Trace) -> bool {
    let last = trace.len().checked_sub(1);
    trace.first_failure().map(|e| e.index()) == last
        && last.is_some()
        && trace.blocked().is_empty()
        && trace.pending().is_empty()
}

/// How a [`Learner`] learns; consuming setters, each documenting its default.
#[derive(Clone, Debug)]
pub struct LearnerConfig {
    pub(crate) learn: LearnConfig,
    pub(crate) max_constraint_edges: usize,
    pub(crate) deepen_to: usize,
    pub(crate) backend: BackendKind,
    pub(crate) relax_on_conflict: bool,
}

impl Default for LearnerConfig {
    fn default() -> Self {
        LearnerConfig {
            learn: LearnConfig::new(),
            max_constraint_edges: Self::DEFAULT_MAX_CONSTRAINT_EDGES,
            deepen_to: Self::DEFAULT_DEEPEN_TO,
            backend: BackendKind::default(),
            relax_on_conflict: true,
        }
    }
}

impl LearnerConfig {
    /// The default of [`LearnerConfig::max_constraint_edges`].
    pub const DEFAULT_MAX_CONSTRAINT_EDGES: usize = 3;

    /// The default of [`LearnerConfig::deepen_to`].
    pub const DEFAULT_DEEPEN_TO: usize = 4;

    /// The default configuration.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether LearnGoodUnder falls back to freezing every intra-thread order when an edge has
    /// no cover (the paper's Algorithm 1, line 3). Default: true.
    pub fn fallback(mut self, on: bool) -> Self {
        self.learn = self.learn.fallback(on);
        self
    }

    /// Which LearnGoodUnder: the paper's full algorithm or the original tool's simplified one.
    /// Default: [`Variant::Full`].
    pub fn variant(mut self, variant: Variant) -> Self {
        self.learn = self.learn.variant(variant);
        self
    }

    /// The most constraint edges on one elimination cycle (the K of the fixes). Default:
    /// [`LearnerConfig::DEFAULT_MAX_CONSTRAINT_EDGES`] (3: one more than [`paces_generalize::EliminateConfig`]'s: a fix that moves a step behind
    /// a signal the failing thread sends after its failure also needs the orders on the way
    /// kept, as lc-rc's does).
    pub fn max_constraint_edges(mut self, k: usize) -> Self {
        self.max_constraint_edges = k;
        self
    }

    /// How far K grows for a bad trace whose fixes take part in a conflict (see
    /// [`LearnerConfig::relax_on_conflict`]); never below the starting K. Default:
    /// [`LearnerConfig::DEFAULT_DEEPEN_TO`] (4).
    pub fn deepen_to(mut self, k: usize) -> Self {
        self.deepen_to = k;
        self
    }

    /// The SAT backend. Default: the pure-Rust backend ([`BackendKind::default`]).
    pub fn backend(mut self, backend: BackendKind) -> Self {
        self.backend = backend;
        self
    }

    /// Whether a constraint that is stronger than what is known is relaxed when it takes part
    /// in a conflict, instead of ending the search with "unsatisfiable". A good trace's
    /// fallback (every order frozen) is the paper's guarantee that no fix regresses that trace,
    /// but it also rules out fixes that regress nothing (an edge without a cover need not be
    /// endangered by a move): it is relaxed to the trace's covered edges (what the original
    /// tool learned from every trace). A bad trace's fixes are the cycles with at most K
    /// constraint edges, and a longer cycle is a fix too: they are searched again with K + 1,
    /// up to [`LearnerConfig::deepen_to`]; past that, a bad trace learned with an alternative
    /// ([`Learner::learn_bad_or`]) is dropped. A regression the stronger constraint would
    /// have prevented is left to the checker, which finds it as a bad trace of the candidate.
    /// Default: true.
    pub fn relax_on_conflict(mut self, on: bool) -> Self {
        self.relax_on_conflict = on;
        self
    }

    /// Whether constraints stronger than what is known are relaxed (see
    /// [`LearnerConfig::relax_on_conflict`]).
    pub fn relaxes_on_conflict(&self) -> bool {
        self.relax_on_conflict
    }
}

/// A constraint that a conflict may relax, with what it was learned from.
struct Relaxable {
    id: ConstraintId,
    /// The lesson it belongs to.
    lesson: LessonId,
    /// Its place in `Learner::learned`.
    index: usize,
    /// The constraint itself, and the trace and its number among the good or the bad traces.
    constraint: NodeId,
    trace: Trace,
    number: usize,
    kind: Guess,
}

/// Why a constraint may be relaxed.
#[derive(Clone, Copy)]
enum Guess {
    /// A good trace's fallback: relaxed to the covered edges.
    Fallback,
    /// A bad trace's fixes with at most `k` constraint edges: searched again with `k + 1`;
    /// past the limit dropped when it came with the caller's alternative (a trace whose
    /// elimination graph may miss fixes), kept otherwise.
    Fixes { k: usize, alternative: Option<NodeId> },
}

/// A lesson's id: what [`Learner::retract`] takes back. Every trace learned and every
/// constraint required has one, numbered from 0 in the order learned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(transparent))]
pub struct LessonId(u32);

impl LessonId {
    /// The id's number, from 0 in the order learned.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for LessonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "lesson {}", self.0)
    }
}

/// What the learner took from one trace. Shown with the space's names by
/// [`Lesson::display`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Lesson {
    /// Its id, for [`Learner::retract`].
    pub id: LessonId,
    /// The constraint learned (a node of [`Learner::arena`]).
    pub constraint: NodeId,
    /// For a good trace: whether LearnGoodUnder fell back to freezing all orders.
    pub fallback_used: bool,
    /// For a bad trace: how many fixes its elimination graph offered.
    pub fixes: usize,
    /// Whether the trace was given as good or as bad.
    pub role: Role,
    /// The trace's number among the good or the bad traces, from 1 (as the learner's
    /// constraints and its explanations name it: `bad trace #1`).
    pub number: usize,
    /// For a bad trace: whether it ends at its failure with no blocked and no pending steps,
    /// so that the writes a fix must order the failure before may be missing. Not an error (a
    /// failure may well be the last step of every thread), but when such a trace offers no
    /// fix, [`Lesson::warning`] says what to add.
    pub stops_at_failure: bool,
}

/// Whether a trace was learned as good or as bad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Role {
    /// A good trace (LearnGoodUnder).
    Good,
    /// A bad trace (elimination).
    Bad,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Good => "good",
            Role::Bad => "bad",
        }
    }
}

/// One constraint the learner holds: what it was learned from and what kind of constraint it
/// is, under the name its explanations use (`good trace #1 (fallback)`,
/// `bad trace #2 (fixes, K = 4)`). [`Learner::conjuncts`] lists them; an unsatisfiable
/// [`Proposal`] names those in conflict.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Conjunct {
    /// The name, as explanations and [`Learner::display_constraints`] give it.
    pub name: String,
    /// The trace it was learned from: good or bad, and its number among those (from 1);
    /// `None` for a constraint of the caller's own ([`Learner::require`]).
    pub trace: Option<(Role, usize)>,
    /// The lesson it belongs to (a relaxed constraint and its replacement share one).
    pub lesson: LessonId,
    /// What kind of constraint it is.
    pub kind: ConjunctKind,
    /// Whether a conflict relaxed it (it is `true` now, and its replacement follows it).
    pub relaxed: bool,
    /// Whether [`Learner::retract`] took its lesson back (it is `true` now).
    pub retracted: bool,
}

/// What kind of constraint a [`Conjunct`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum ConjunctKind {
    /// A good trace's covered edges (LearnGoodUnder): orders that keep its behaviour.
    Covers {
        /// Whether it replaced the trace's fallback, relaxed.
        after_fallback: bool,
    },
    /// A good trace's fallback: an edge had no cover, so every order of the trace is frozen
    /// (more than the trace needs: [`LearnerConfig::relax_on_conflict`]).
    Fallback,
    /// A bad trace's fixes: the elimination cycles with at most `k` constraint edges.
    Fixes {
        /// The K the fixes were searched with.
        k: usize,
    },
    /// A bad trace with no fix, for which the caller's alternative stands
    /// ([`Learner::learn_bad_or`]).
    Alternative,
    /// A constraint of the caller's own ([`Learner::require`]).
    Required,
}

impl Conjunct {
    fn new(lesson: LessonId, trace: Option<(Role, usize)>, kind: ConjunctKind) -> Conjunct {
        let what = match kind {
            ConjunctKind::Covers { after_fallback: false } => "covered edges".to_owned(),
            ConjunctKind::Covers { after_fallback: true } => "covered edges, fallback relaxed".to_owned(),
            ConjunctKind::Fallback => "fallback: every order frozen".to_owned(),
            ConjunctKind::Fixes { k } => format!("fixes, K = {k}"),
            ConjunctKind::Alternative => "no fix: the caller's alternative".to_owned(),
            ConjunctKind::Required => String::new(),
        };
        let name = match trace {
            Some((role, number)) => format!("{} trace #{number} ({what})", role.name()),
            None => what,
        };
        Conjunct { name, trace, lesson, kind, relaxed: false, retracted: false }
    }
}

/// The advice for a bad trace that stops at its failure.
const STOPS_AT_FAILURE: &str = "the bad trace ends at its failure and lists no pending steps: a fix orders the \
     failure before a write that comes after it, which such a trace does not show; run the trace on past its \
     failure, or list each thread's next steps as pending steps (`StepBuilder::push_pending`)";

/// How much of one constraint [`Lesson::display`] and [`Learner::display_constraints`] print.
const SHOWN_CHARS: usize = 2000;

impl Lesson {
    /// The warning for a bad trace that ends at its failure with no blocked or pending steps
    /// and offered no fix: what to add to the trace. `None` otherwise.
    pub fn warning(&self) -> Option<&'static str> {
        (self.stops_at_failure && self.fixes == 0).then_some(STOPS_AT_FAILURE)
    }

    /// Displays the lesson with the space's names: `good trace #1: 1 <= 2 /\ A <= B`, then
    /// what the learner should know about it (a good trace's fallback, a bad trace's number
    /// of fixes, the warning). A constraint is cut after 2000 characters (`...`).
    pub fn display<'a>(&'a self, learner: &'a Learner) -> impl fmt::Display + 'a {
        DisplayLesson { lesson: self, learner }
    }
}

struct DisplayLesson<'a> {
    lesson: &'a Lesson,
    learner: &'a Learner,
}

impl fmt::Display for DisplayLesson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lesson, learner) = (self.lesson, self.learner);
        let constraint = learner.arena.display(lesson.constraint, &learner.space, SHOWN_CHARS);
        write!(f, "{} trace #{}: {constraint}", lesson.role.name(), lesson.number)?;
        match lesson.role {
            Role::Good if lesson.fallback_used => f.write_str(
                "\n  (fallback: an edge of the trace has no cover, so every order of the trace is frozen; \
                 `LearnerConfig::fallback(false)` learns the covered edges only)",
            )?,
            Role::Good => {}
            Role::Bad if lesson.fixes == 1 => f.write_str("\n  (1 fix)")?,
            Role::Bad => write!(f, "\n  ({} fixes)", lesson.fixes)?,
        }
        if let Some(warning) = lesson.warning() {
            write!(f, "\n  warning: {warning}")?;
        }
        Ok(())
    }
}

/// The learner's next proposal. With the `serde` feature it is written as
/// `{"answer": "candidate", "candidate": ..., "cost": ..., "transformations": [...]}` or
/// `{"answer": "unsatisfiable", "explanation": ..., "conflict": [...]}`.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(tag = "answer", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Proposal {
    /// The cheapest candidate satisfying every constraint learned so far.
    Candidate {
        /// The candidate.
        candidate: Candidate,
        /// Its cost.
        cost: Cost,
        /// The transformations from the original program to it.
        transformations: Vec<Transformation>,
    },
    /// No candidate of the space satisfies the constraints.
    Unsatisfiable {
        /// Which learned constraints conflict, in words, and the likely cause.
        explanation: String,
        /// The constraints in conflict (a small set that no candidate satisfies together).
        conflict: Vec<Conjunct>,
    },
}

impl Proposal {
    /// Displays the proposal with the space's names: for a candidate, its cost, the
    /// transformations leading to it (an atomic section with every item inside it, `atomic
    /// [A; B; C]`), then the candidate itself (see [`Candidate::display`]); otherwise the
    /// explanation.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayProposal { proposal: self, space }
    }
}

struct DisplayProposal<'a> {
    proposal: &'a Proposal,
    space: &'a Space,
}

impl fmt::Display for DisplayProposal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let space = self.space;
        match self.proposal {
            Proposal::Candidate { candidate, cost, transformations } => {
                write_candidate(f, space, candidate, *cost, transformations)
            }
            Proposal::Unsatisfiable { explanation, .. } => write!(f, "no candidate: {explanation}"),
        }
    }
}

/// Writes a candidate as a [`Proposal`] shows it: its cost, the transformations leading to
/// it, then the candidate itself.
pub(crate) fn write_candidate(
    f: &mut fmt::Formatter<'_>,
    space: &Space,
    candidate: &Candidate,
    cost: Cost,
    transformations: &[Transformation],
) -> fmt::Result {
    writeln!(f, "candidate (cost {cost}), from the original by:")?;
    if transformations.is_empty() {
        writeln!(f, "  nothing (the original program)")?;
    }
    for t in transformations {
        writeln!(f, "  {}", t.display_in(space, candidate))?;
    }
    write!(f, "{}", candidate.display(space))
}

/// Learns regression-preventing constraints from good traces and error-eliminating
/// constraints from bad traces over one [`Space`], and proposes the cheapest candidate that
/// satisfies all of them.
///
/// Traces are `paces-trace` traces of the ORIGINAL program of the space (their locations and
/// scopes name its items); a caller whose checker runs on candidate programs translates
/// traces back first.
pub struct Learner {
    space: Space,
    arena: Arena,
    solver: Solver,
    config: LearnerConfig,
    learned: Vec<NodeId>,
    /// What each of `learned` is, under the name the solver's explanations give it.
    conjuncts: Vec<Conjunct>,
    /// The solver's id of each of `learned`.
    ids: Vec<ConstraintId>,
    /// The conjunction of `learned`.
    root: NodeId,
    /// Lessons learned so far (retracted ones included).
    lessons: u32,
    good: usize,
    bad: usize,
    relaxable: Vec<Relaxable>,
    relaxed: usize,
    deepened: usize,
    dropped: usize,
}

impl Learner {
    /// A learner over `space` (it keeps its own copy) with nothing learned yet.
    ///
    /// # Errors
    /// When the solver cannot encode the space.
    pub fn new(space: &Space, config: LearnerConfig) -> Result<Learner, Error> {
        let solver = Solver::new(space, SolverConfig::new().backend(config.backend))?;
        let arena = Arena::new();
        let root = arena.tru();
        Ok(Learner {
            space: space.clone(),
            arena,
            root,
            solver,
            config,
            learned: Vec::new(),
            conjuncts: Vec::new(),
            ids: Vec::new(),
            lessons: 0,
            good: 0,
            bad: 0,
            relaxable: Vec::new(),
            relaxed: 0,
            deepened: 0,
            dropped: 0,
        })
    }

    /// The space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// Makes every later proposal stop with [`ErrorKind::Deadline`](crate::ErrorKind::Deadline)
    /// once `deadline` passes, also in the middle of a SAT search; `None` lifts it. What was
    /// learned stays: a later call with a later deadline goes on from there.
    pub fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.solver.set_deadline(deadline);
    }

    /// The arena holding every learned constraint.
    pub fn arena(&self) -> &Arena {
        &self.arena
    }

    /// The conjunction of everything learned so far (what is retracted or relaxed left out),
    /// as a node of [`Learner::arena`].
    pub fn constraint(&self) -> NodeId {
        self.root
    }

    /// Builds [`Learner::constraint`] again after `learned` changed.
    fn refresh_root(&mut self) {
        let parts = self.learned.clone();
        self.root = self.arena.and(parts);
    }

    /// Displays every constraint learned so far with the space's names, one per line, each
    /// under the name the explanations use: `good trace #1: 1 <= 2 /\ A <= B`,
    /// `bad trace #1: C <= A \/ [A; C]`, `bad trace #1 (K = 4): ...`. A constraint that a
    /// conflict relaxed reads `good trace #1 (relaxed): true`, its replacement follows. Each
    /// constraint is cut after 2000 characters (`...`).
    pub fn display_constraints(&self) -> impl fmt::Display + '_ {
        DisplayConstraints { learner: self }
    }

    /// Size statistics of everything learned so far.
    pub fn stats(&self) -> Stats {
        self.arena.stats(self.root)
    }

    /// Every constraint learned so far, in the order learned: what it came from, its kind and
    /// its name (relaxed ones stay, marked, with their replacement later in the list).
    pub fn conjuncts(&self) -> &[Conjunct] {
        &self.conjuncts
    }

    /// The good traces (their numbers, from 1) whose fallback is in force: an edge of the
    /// trace had no cover, so every order of it is frozen (see [`Learner::relax_fallbacks`]).
    pub fn fallbacks(&self) -> Vec<usize> {
        self.conjuncts
            .iter()
            .filter(|c| c.kind == ConjunctKind::Fallback && !c.relaxed)
            .filter_map(|c| c.trace.map(|(_, number)| number))
            .collect()
    }

    /// Good and bad traces learned from so far.
    pub fn counts(&self) -> (usize, usize) {
        (self.good, self.bad)
    }

    /// How many good traces' fallbacks were relaxed to their covered edges (see
    /// [`LearnerConfig::relax_on_conflict`]).
    pub fn relaxed(&self) -> usize {
        self.relaxed
    }

    /// How many times a bad trace's fixes were searched again with a larger K because they
    /// took part in a conflict.
    pub fn deepened(&self) -> usize {
        self.deepened
    }

    /// How many constraints learned with an alternative ([`Learner::learn_bad_or`]) were
    /// dropped because they took part in a conflict.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Learns from a good trace (LearnGoodUnder). All or nothing: a refused trace leaves the
    /// learner as it was.
    ///
    /// # Errors
    /// When the trace does not fit the space or breaks program order (see
    /// [`Trace::check_against`]: unknown threads, locations or blocks, a fixed pair run out of
    /// order, a pending step its thread already ran, a local shared by two threads), with the
    /// step, thread and labels named; when the solver cannot take the constraint (a resource
    /// limit).
    pub fn learn_good(&mut self, trace: &Trace) -> Result<Lesson, Error> {
        self.learn_good_checked(trace, || None)
    }

    /// Learns from a good trace, asking `freely_bad` only when LearnGoodUnder would fall back
    /// (an edge without a cover): whether the trace freely transforms into a bad trace of the
    /// original program (by scheduling alone, every condition reading from the same writers).
    /// When it does (`Some(true)`), the paper's regression definition (its condition (b))
    /// holds no obligation for this trace, so the fallback's freezing of every order is not
    /// needed: only the covered edges are learned (a sound, stronger-than-needed constraint).
    /// Any other answer keeps the fallback.
    ///
    /// # Errors
    /// As for [`Learner::learn_good`].
    pub fn learn_good_checked(
        &mut self,
        trace: &Trace,
        freely_bad: impl FnOnce() -> Option<bool>,
    ) -> Result<Lesson, Error> {
        trace.check_against(&self.space)?;
        let config = &self.config.learn;
        let mut learned = learn_good(trace, &mut self.arena, config);
        if learned.fallback_used && freely_bad() == Some(true) {
            learned = learn_good(trace, &mut self.arena, &config.clone().fallback(false));
        }
        let (lesson, number) = (self.next_lesson(), self.good + 1);
        let kind =
            if learned.fallback_used { ConjunctKind::Fallback } else { ConjunctKind::Covers { after_fallback: false } };
        let id = self.add(learned.constraint, Conjunct::new(lesson, Some((Role::Good, number)), kind))?;
        self.lessons += 1;
        self.good = number;
        if learned.fallback_used {
            let index = self.learned.len() - 1;
            let kind = Guess::Fallback;
            self.relaxable.push(Relaxable {
                id,
                lesson,
                index,
                constraint: learned.constraint,
                trace: trace.clone(),
                number,
                kind,
            });
        }
        Ok(Lesson {
            id: lesson,
            constraint: learned.constraint,
            fallback_used: learned.fallback_used,
            fixes: 0,
            role: Role::Good,
            number: self.good,
            stops_at_failure: false,
        })
    }

    /// Learns from a bad (or deadlock) trace: the disjunction of its fixes. A complete trace
    /// whose elimination graph offers no fix with at most K constraint edges adds `false`: no
    /// candidate of the space avoids its pattern with such a fix. Like every set of fixes it
    /// is searched again with a larger K when it takes part in a conflict (see
    /// [`LearnerConfig::relax_on_conflict`]); past that, [`Learner::propose`] answers
    /// unsatisfiable and names it. A trace that stops short (blocked or
    /// [pending](paces_trace::Trace::pending) steps) may hide the writes a fix needs: with no
    /// fix it is recorded but not added, and the caller decides (the repair loop relies on
    /// excluding the rejected candidate).
    ///
    /// All or nothing: a refused trace leaves the learner as it was.
    ///
    /// # Errors
    /// When the trace is not bad and has no blocked steps; when it does not fit the space or
    /// breaks program order, as for [`Learner::learn_good`]; a resource limit of the
    /// elimination graph or the solver.
    pub fn learn_bad(&mut self, trace: &Trace) -> Result<Lesson, Error> {
        self.learn_bad_detailed(trace).map(|(lesson, _)| lesson)
    }

    /// [`Learner::learn_bad`], also returning the elimination itself (its partial order and
    /// every fix, for display).
    ///
    /// # Errors
    /// As for [`Learner::learn_bad`].
    pub fn learn_bad_detailed(&mut self, trace: &Trace) -> Result<(Lesson, Elimination), Error> {
        self.learn_bad_or(trace, None)
    }

    /// [`Learner::learn_bad_detailed`] with an `alternative` of the caller's own (a node of
    /// [`Learner::arena_mut`]) that stands in when the trace offers no fix: for a trace whose
    /// elimination graph may not show every fix (a deadlock a candidate's moves brought in,
    /// which undoing a move frees too, through a write the trace never reaches). Such a
    /// constraint is a guess: when it takes part in a conflict and no larger K helps, it is
    /// dropped ([`Learner::dropped`]) and the caller's own exclusion of the rejected
    /// candidate is what remains.
    ///
    /// # Errors
    /// As for [`Learner::learn_bad`].
    pub fn learn_bad_or(&mut self, trace: &Trace, alternative: Option<NodeId>) -> Result<(Lesson, Elimination), Error> {
        trace.check_against(&self.space)?;
        let (lesson, number) = (self.next_lesson(), self.bad + 1);
        let k = self.config.max_constraint_edges;
        let (constraint, elimination) = self.eliminate(trace, k, alternative)?;
        // A run that stops short (blocked or pending steps) may hide the writes its fixes
        // need: no fix there proves nothing.
        let whole = trace.blocked().is_empty() && trace.pending().is_empty();
        if constraint != self.arena.fals() || whole {
            // `eliminate` stands the alternative in exactly when the trace offers no fix.
            let kind = if alternative.is_some() && elimination.fixes.is_empty() {
                ConjunctKind::Alternative
            } else {
                ConjunctKind::Fixes { k }
            };
            let id = self.add(constraint, Conjunct::new(lesson, Some((Role::Bad, number)), kind))?;
            let index = self.learned.len() - 1;
            let kind = Guess::Fixes { k, alternative };
            self.relaxable.push(Relaxable { id, lesson, index, constraint, trace: trace.clone(), number, kind });
        }
        self.lessons += 1;
        self.bad = number;
        let lesson = Lesson {
            id: lesson,
            constraint: elimination.constraint,
            fallback_used: false,
            fixes: elimination.fixes.len(),
            role: Role::Bad,
            number,
            stops_at_failure: stops_at_failure(trace),
        };
        Ok((lesson, elimination))
    }

    /// The fixes of `trace` with at most `k` constraint edges each, or the alternative when
    /// there is none.
    fn eliminate(
        &mut self,
        trace: &Trace,
        k: usize,
        alternative: Option<NodeId>,
    ) -> Result<(NodeId, Elimination), Error> {
        let config = EliminateConfig::new().max_constraint_edges(k);
        let elimination = eliminate(trace, &self.space, &mut self.arena, &config)?;
        Ok(match alternative {
            Some(a) if elimination.fixes.is_empty() => (a, elimination),
            _ => (elimination.constraint, elimination),
        })
    }

    /// Adds a constraint of the caller's own (a node of [`Learner::arena_mut`]).
    ///
    /// # Errors
    /// When the solver cannot take the constraint (a resource limit).
    pub fn require(&mut self, constraint: NodeId, name: &str) -> Result<LessonId, Error> {
        let lesson = self.next_lesson();
        let mut conjunct = Conjunct::new(lesson, None, ConjunctKind::Required);
        conjunct.name = name.to_owned();
        self.add(constraint, conjunct)?;
        self.lessons += 1;
        Ok(lesson)
    }

    /// The id the next lesson gets.
    fn next_lesson(&self) -> LessonId {
        LessonId(self.lessons)
    }

    /// Takes a lesson back: every constraint learned from it (a relaxed one's replacement
    /// too) stops binding, by the solver's activation literals, with no rebuilding. With
    /// relaxation off ([`LearnerConfig::relax_on_conflict`]), the learner then proposes what a
    /// learner that never learned the lesson proposes. A relaxation that a conflict with the
    /// lesson caused in another lesson stays; the trace counts ([`Learner::counts`]) and the
    /// other lessons' names stay too. Returns false when the lesson was already taken back.
    ///
    /// # Errors
    /// [`ErrorKind::UnknownLesson`] for an id this learner did not give; a solver failure.
    pub fn retract(&mut self, lesson: LessonId) -> Result<bool, Error> {
        if lesson.0 >= self.lessons {
            let message = format!("{lesson} was not learned: this learner gave {} lessons", self.lessons);
            return Err(Error::new(ErrorKind::UnknownLesson, message));
        }
        let mut taken = false;
        for index in 0..self.conjuncts.len() {
            let conjunct = &self.conjuncts[index];
            if conjunct.lesson != lesson || conjunct.retracted {
                continue;
            }
            if !conjunct.relaxed {
                self.solver.retract(self.ids[index])?;
                self.learned[index] = self.arena.tru();
            }
            self.conjuncts[index].retracted = true;
            taken = true;
        }
        self.relaxable.retain(|r| r.lesson != lesson);
        self.refresh_root();
        Ok(taken)
    }

    /// The arena, to build constraints for [`Learner::require`].
    pub fn arena_mut(&mut self) -> &mut Arena {
        &mut self.arena
    }

    /// Adds a constraint to the solver and, only when the solver took it, to the learned ones.
    fn add(&mut self, constraint: NodeId, conjunct: Conjunct) -> Result<ConstraintId, Error> {
        let id = self.solver.add(&self.arena, constraint, &conjunct.name)?;
        self.learned.push(constraint);
        self.conjuncts.push(conjunct);
        self.ids.push(id);
        self.refresh_root();
        Ok(id)
    }

    /// Relaxes every good trace's fallback still in force to the trace's covered edges, as a
    /// conflict would (see [`LearnerConfig::relax_on_conflict`]), whether or not a conflict
    /// named it; returns how many were relaxed. A caller whose cheapest candidate under the
    /// fallbacks turned out unsatisfying uses it to look among the candidates they forbid (each
    /// is still to be checked: a fallback is what guards its trace against a regression the
    /// covered edges cannot express).
    ///
    /// # Errors
    /// When the solver fails.
    pub fn relax_fallbacks(&mut self) -> Result<usize, Error> {
        let fallbacks: Vec<ConstraintId> =
            self.relaxable.iter().filter(|r| matches!(r.kind, Guess::Fallback)).map(|r| r.id).collect();
        let before = self.relaxed;
        self.relax_now(&fallbacks)?;
        Ok(self.relaxed - before)
    }

    /// Relaxes the constraints among `conflict` that may be relaxed (see
    /// [`LearnerConfig::relax_on_conflict`]); false when none is.
    fn relax(&mut self, conflict: &[ConstraintId]) -> Result<bool, Error> {
        if !self.config.relax_on_conflict {
            return Ok(false);
        }
        self.relax_now(conflict)
    }

    /// Relaxes the relaxable constraints among `ids`; false when none is.
    fn relax_now(&mut self, conflict: &[ConstraintId]) -> Result<bool, Error> {
        let limit = self.config.deepen_to.max(self.config.max_constraint_edges);
        let relaxable = |r: &Relaxable| match r.kind {
            Guess::Fallback => true,
            Guess::Fixes { k, alternative } => k < limit || alternative.is_some(),
        };
        let (hit, keep): (Vec<Relaxable>, Vec<Relaxable>) =
            std::mem::take(&mut self.relaxable).into_iter().partition(|r| conflict.contains(&r.id) && relaxable(r));
        self.relaxable = keep;
        for r in &hit {
            self.solver.retract(r.id)?;
            self.learned[r.index] = self.arena.tru();
            self.conjuncts[r.index].relaxed = true;
            self.refresh_root();
            match r.kind {
                Guess::Fallback => {
                    let covered = learn_good(&r.trace, &mut self.arena, &self.config.learn.clone().fallback(false));
                    let kind = ConjunctKind::Covers { after_fallback: true };
                    self.add(covered.constraint, Conjunct::new(r.lesson, Some((Role::Good, r.number)), kind))?;
                    self.relaxed += 1;
                }
                Guess::Fixes { k, alternative } if k < limit => {
                    // The search with a larger K may stop at its work bound before finding
                    // what the smaller one found: keep those fixes too.
                    let (wider, _) = self.eliminate(&r.trace, k + 1, alternative)?;
                    let constraint = self.arena.or([r.constraint, wider]);
                    let kind = ConjunctKind::Fixes { k: k + 1 };
                    let mut conjunct = Conjunct::new(r.lesson, Some((Role::Bad, r.number)), kind);
                    let base = self.config.max_constraint_edges;
                    conjunct.name = format!("bad trace #{} (fixes, K = {}, deepened from {base})", r.number, k + 1);
                    let id = self.add(constraint, conjunct)?;
                    let index = self.learned.len() - 1;
                    let kind = Guess::Fixes { k: k + 1, alternative };
                    let trace = r.trace.clone();
                    let (lesson, number) = (r.lesson, r.number);
                    self.relaxable.push(Relaxable { id, lesson, index, constraint, trace, number, kind });
                    self.deepened += 1;
                }
                Guess::Fixes { .. } => self.dropped += 1,
            }
        }
        Ok(!hit.is_empty())
    }

    /// The cheapest candidate satisfying every constraint learned so far.
    ///
    /// # Errors
    /// When the solver fails.
    /// A conflict that involves constraints stronger than what is known relaxes them first
    /// (see [`LearnerConfig::relax_on_conflict`]) and asks again.
    pub fn propose(&mut self) -> Result<Proposal, Error> {
        loop {
            match self.solver.solve()? {
                Outcome::Solution(s) => {
                    return Ok(Proposal::Candidate {
                        candidate: s.candidate,
                        cost: s.cost,
                        transformations: s.transformations,
                    })
                }
                Outcome::Unsat(u) => {
                    let ids: Vec<ConstraintId> = u.conflict.iter().map(|c| c.id).collect();
                    if !self.relax(&ids)? {
                        let bounded = self.relaxable.iter().filter_map(|r| match r.kind {
                            Guess::Fixes { k, .. } if ids.contains(&r.id) => Some(k),
                            _ => None,
                        });
                        let mut explanation = u.explanation;
                        let fals = self.arena.fals();
                        let short = self
                            .relaxable
                            .iter()
                            .any(|r| ids.contains(&r.id) && r.constraint == fals && stops_at_failure(&r.trace));
                        let conflict: Vec<Conjunct> =
                            ids.iter().filter_map(|id| self.conjuncts.get(id.index()).cloned()).collect();
                        let fallback = conflict.iter().any(|c| c.kind == ConjunctKind::Fallback);
                        if short {
                            explanation.push_str(&format!("\n  ({STOPS_AT_FAILURE})"));
                        } else if fallback {
                            explanation.push_str(
                                "\n  (a good trace's fallback freezes every order of the trace, more than it needs: \
                                 `LearnerConfig::relax_on_conflict(true)` or `Learner::relax_fallbacks` relaxes it to the \
                                 covered edges, and the checker then guards against a regression)",
                            );
                        } else if let Some(k) = bounded.max() {
                            let base = self.config.max_constraint_edges;
                            let deepened = if k > base {
                                format!(" (K = {base} as configured, deepened on conflict up to `deepen_to`)")
                            } else {
                                String::new()
                            };
                            explanation.push_str(&format!(
                                "\n  (the bad traces' fixes are the elimination cycles with at most {k} constraint edges{deepened}: \
                                 a fix that needs a longer cycle is not ruled out)"
                            ));
                        }
                        return Ok(Proposal::Unsatisfiable { explanation, conflict });
                    }
                }
                other => {
                    let message = format!("the solver gave an answer the learner does not know: {other:?}");
                    return Err(Error::new(ErrorKind::Internal, message));
                }
            }
        }
    }
}

struct DisplayConstraints<'a> {
    learner: &'a Learner,
}

impl fmt::Display for DisplayConstraints<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let learner = self.learner;
        for (i, (&constraint, conjunct)) in learner.learned.iter().zip(&learner.conjuncts).enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            let relaxed = if conjunct.relaxed { " (relaxed)" } else { "" };
            let text = learner.arena.display(constraint, &learner.space, SHOWN_CHARS);
            write!(f, "{}{relaxed}: {text}", conjunct.name)?;
        }
        Ok(())
    }
}
