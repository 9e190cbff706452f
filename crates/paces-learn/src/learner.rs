//! The embedding API: a learner that takes good and bad traces of any checker and proposes
//! the next candidate program, so that a custom CEGIS loop needs no Cwhile.

use std::collections::BTreeSet;
use std::fmt;

use paces_constraint::{Arena, NodeId, Space, Stats};
use paces_generalize::{eliminate, EliminateConfig, Elimination};
use paces_solver::{ConstraintId, Outcome, Solver, SolverConfig};
use paces_trace::{learn_good, Trace};

use crate::config::LearnerConfig;
use crate::lesson::{Conjunct, ConjunctKind, Lesson, LessonId, Role, Shown, SHOWN_CHARS, STOPS_AT_FAILURE};
use crate::proposal::Proposal;
use crate::{Error, ErrorKind};

/// Why `trace`, given as good, is not: its first failing event, or its blocked or pending
/// steps (LearnGoodUnder keeps the orders of a trace whose every thread got through: a failing
/// run kept would protect the failure, and a run cut short says nothing of what follows).
fn not_good(trace: &Trace, space: &Space) -> Option<String> {
    if let Some((i, e)) = trace.events().iter().enumerate().find(|(_, e)| e.failed) {
        let at = if e.is_final_check() { "the final check".to_owned() } else { format!("`{}`", space.name(e.loc)) };
        return Some(format!("event {i} (at {at}) fails: a good trace has no failing step"));
    }
    if !trace.blocked().is_empty() {
        return Some("it ends with blocked steps (a deadlock): a good trace has none".to_owned());
    }
    if !trace.pending().is_empty() {
        return Some("it lists pending steps: a good trace has none".to_owned());
    }
    None
}

/// Whether a bad trace ends at its failure with no blocked and no pending steps (a final
/// check does not: every thread ran to its end before it).
fn stops_at_failure(trace: &Trace) -> bool {
    let last = trace.len().checked_sub(1);
    let failure = trace.first_failure();
    !failure.is_some_and(|e| trace.event(e).is_final_check())
        && failure.map(|e| e.index()) == last
        && last.is_some()
        && trace.blocked().is_empty()
        && trace.pending().is_empty()
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

impl Relaxable {
    /// The constraint `id`, at `index` of `Learner::learned`, standing for `original`.
    fn new(id: ConstraintId, index: usize, original: &Original) -> Relaxable {
        Relaxable {
            id,
            lesson: original.lesson,
            index,
            constraint: original.constraint,
            trace: original.trace.clone(),
            number: original.number,
            kind: original.kind,
        }
    }
}

/// A relaxable lesson as first learned, to bring back when a relaxation is undone (see
/// [`Learner::retract`]).
struct Original {
    lesson: LessonId,
    constraint: NodeId,
    conjunct: Conjunct,
    trace: Trace,
    number: usize,
    kind: Guess,
}

/// A relaxation a conflict caused: the lesson relaxed, and the other lessons of the conflict.
struct Relaxation {
    lesson: LessonId,
    causes: Vec<LessonId>,
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
    /// The relaxable lessons as first learned.
    originals: Vec<Original>,
    /// The relaxations conflicts caused, in order.
    relaxations: Vec<Relaxation>,
    /// The lesson count at each open scope's [`Learner::push`].
    scopes: Vec<u32>,
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
        let root = arena.constant(true);
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
            originals: Vec::new(),
            relaxations: Vec::new(),
            scopes: Vec::new(),
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
    /// step, thread and labels named; [`ErrorKind::NotGood`] when it is no good trace (a
    /// failing event, blocked or pending steps); when the solver cannot take the constraint (a
    /// resource limit).
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
        if let Some(problem) = not_good(trace, &self.space) {
            return Err(Error::new(ErrorKind::NotGood, format!("the trace is not good: {problem}")));
        }
        let config = &self.config.learn;
        let mut learned = learn_good(trace, &mut self.arena, config);
        if learned.fallback_used && freely_bad() == Some(true) {
            learned = learn_good(trace, &mut self.arena, &config.clone().fallback(false));
        }
        let (lesson, number) = (self.next_lesson(), self.good + 1);
        let kind =
            if learned.fallback_used { ConjunctKind::Fallback } else { ConjunctKind::Covers { after_fallback: false } };
        let conjunct = Conjunct::new(lesson, Some((Role::Good, number)), kind);
        let id = self.add(learned.constraint, conjunct.clone())?;
        self.lessons += 1;
        self.good = number;
        if learned.fallback_used {
            let original = Original {
                lesson,
                constraint: learned.constraint,
                conjunct,
                trace: trace.clone(),
                number,
                kind: Guess::Fallback,
            };
            self.keep_relaxable(id, &original);
            self.originals.push(original);
        }
        Ok(Lesson {
            id: lesson,
            constraint: learned.constraint,
            fallback_used: learned.fallback_used,
            fixes: 0,
            role: Role::Good,
            number: self.good,
            stops_at_failure: false,
            shown: Shown::new(&self.arena, learned.constraint),
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
        if constraint != self.arena.constant(false) || whole {
            // `eliminate` stands the alternative in exactly when the trace offers no fix.
            let kind = if alternative.is_some() && elimination.fixes.is_empty() {
                ConjunctKind::Alternative
            } else {
                ConjunctKind::Fixes { k }
            };
            let conjunct = Conjunct::new(lesson, Some((Role::Bad, number)), kind);
            let id = self.add(constraint, conjunct.clone())?;
            let kind = Guess::Fixes { k, alternative };
            let original = Original { lesson, constraint, conjunct, trace: trace.clone(), number, kind };
            self.keep_relaxable(id, &original);
            self.originals.push(original);
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
            shown: Shown::new(&self.arena, elimination.constraint),
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
        let config = EliminateConfig::new().max_constraint_edges(k).max_memory(self.config.max_elimination_memory);
        let elimination = eliminate(trace, &self.space, &mut self.arena, &config)?;
        Ok(match alternative {
            Some(a) if elimination.fixes.is_empty() => (a, elimination),
            _ => (elimination.constraint, elimination),
        })
    }

    /// Adds a constraint of the caller's own (a node of [`Learner::arena_mut`]): a fact, such
    /// as a candidate the checker rejected. A constraint the caller only supposes goes to
    /// [`Learner::require_guess`].
    ///
    /// # Errors
    /// When the solver cannot take the constraint (a resource limit).
    pub fn require(&mut self, constraint: NodeId, name: &str) -> Result<LessonId, Error> {
        self.require_kind(constraint, name, ConjunctKind::Required)
    }

    /// Adds a constraint of the caller's own that is a guess (a node of
    /// [`Learner::arena_mut`]): a likely cause of a failure rather than a proved one. It binds
    /// like [`Learner::require`]'s, but an unsatisfiable [`Proposal`] lists it among its
    /// `guesses`, so that a caller claims "no candidate" only when no guess is in the conflict
    /// (it [retracts](Learner::retract) the guesses and asks again).
    ///
    /// # Errors
    /// When the solver cannot take the constraint (a resource limit).
    pub fn require_guess(&mut self, constraint: NodeId, name: &str) -> Result<LessonId, Error> {
        self.require_kind(constraint, name, ConjunctKind::Guess)
    }

    fn require_kind(&mut self, constraint: NodeId, name: &str, kind: ConjunctKind) -> Result<LessonId, Error> {
        let lesson = self.next_lesson();
        let mut conjunct = Conjunct::new(lesson, None, kind);
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
    /// too) stops binding, by the solver's activation literals, with no rebuilding. A
    /// relaxation that a conflict holding the lesson caused in another lesson (see
    /// [`LearnerConfig::relax_on_conflict`]) is undone: that lesson binds again as first
    /// learned (a later conflict may relax it again). With relaxation off, the learner then
    /// proposes what a learner that never learned the lesson proposes; with it on, the
    /// relaxations that conflicts without the lesson caused stay (they depend on when
    /// [`Learner::propose`] was asked), and so do [`Learner::relax_fallbacks`]'. The trace
    /// counts ([`Learner::counts`]), the relaxation counts ([`Learner::relaxed`],
    /// [`Learner::deepened`], [`Learner::dropped`]) and the other lessons' names stay. Returns
    /// false when the lesson was already taken back.
    ///
    /// # Errors
    /// [`ErrorKind::UnknownLesson`] for an id this learner did not give; a solver failure.
    pub fn retract(&mut self, lesson: LessonId) -> Result<bool, Error> {
        if lesson.0 >= self.lessons {
            let given = match self.lessons {
                1 => "1 lesson".to_owned(),
                n => format!("{n} lessons"),
            };
            let message = format!("{lesson} was not learned: this learner gave {given}");
            return Err(Error::new(ErrorKind::UnknownLesson, message));
        }
        Ok(self.take_back(&BTreeSet::from([lesson]))? > 0)
    }

    /// Opens a scope: [`Learner::pop`] takes back every lesson learned (or required) after
    /// this call, as [`Learner::retract`] would each. Scopes nest; returns how many are open.
    pub fn push(&mut self) -> usize {
        self.scopes.push(self.lessons);
        self.scopes.len()
    }

    /// Closes the innermost open scope (see [`Learner::push`]), taking back the lessons learned
    /// since it opened; returns how many it took back (those retracted before do not count).
    /// Lesson ids are never given twice: the lessons of a scope popped keep theirs, retracted.
    ///
    /// # Errors
    /// [`ErrorKind::NoScope`] when no scope is open (the learner stays as it was); a solver
    /// failure.
    pub fn pop(&mut self) -> Result<usize, Error> {
        let Some(&mark) = self.scopes.last() else {
            return Err(Error::new(ErrorKind::NoScope, "`pop` without a `push`: no scope is open"));
        };
        let lessons: BTreeSet<LessonId> = (mark..self.lessons).map(LessonId).collect();
        let taken = self.take_back(&lessons)?;
        self.scopes.pop();
        Ok(taken)
    }

    /// How many scopes are open (see [`Learner::push`]).
    pub fn scopes(&self) -> usize {
        self.scopes.len()
    }

    /// Takes back `lessons` (see [`Learner::retract`]); returns how many were still in force.
    fn take_back(&mut self, lessons: &BTreeSet<LessonId>) -> Result<usize, Error> {
        let mut taken = BTreeSet::new();
        for index in 0..self.conjuncts.len() {
            let conjunct = &self.conjuncts[index];
            if !lessons.contains(&conjunct.lesson) || conjunct.retracted {
                continue;
            }
            if !conjunct.relaxed {
                self.solver.retract(self.ids[index])?;
                self.learned[index] = self.arena.constant(true);
            }
            taken.insert(self.conjuncts[index].lesson);
            self.conjuncts[index].retracted = true;
        }
        self.relaxable.retain(|r| !lessons.contains(&r.lesson));
        // The relaxations that a conflict holding a lesson taken back caused.
        let undo: BTreeSet<LessonId> = self
            .relaxations
            .iter()
            .filter(|r| !lessons.contains(&r.lesson) && r.causes.iter().any(|c| taken.contains(c)))
            .map(|r| r.lesson)
            .collect();
        self.relaxations.retain(|r| !lessons.contains(&r.lesson) && !undo.contains(&r.lesson));
        for lesson in undo {
            self.restore(lesson)?;
        }
        self.refresh_root();
        Ok(taken.len())
    }

    /// Brings a relaxed lesson back as first learned: what stands for it now stops binding
    /// (marked relaxed), and its first constraint is added again.
    fn restore(&mut self, lesson: LessonId) -> Result<(), Error> {
        let Some(original) = self.originals.iter().position(|o| o.lesson == lesson) else {
            return Ok(());
        };
        for index in 0..self.conjuncts.len() {
            let conjunct = &self.conjuncts[index];
            if conjunct.lesson == lesson && !conjunct.relaxed && !conjunct.retracted {
                self.solver.retract(self.ids[index])?;
                self.learned[index] = self.arena.constant(true);
                self.conjuncts[index].relaxed = true;
            }
        }
        self.relaxable.retain(|r| r.lesson != lesson);
        let (constraint, conjunct) = (self.originals[original].constraint, self.originals[original].conjunct.clone());
        let id = self.add(constraint, conjunct)?;
        self.relaxable.push(Relaxable::new(id, self.learned.len() - 1, &self.originals[original]));
        Ok(())
    }

    /// Records the constraint `id` (the last added) as relaxable, as `original` says.
    fn keep_relaxable(&mut self, id: ConstraintId, original: &Original) {
        self.relaxable.push(Relaxable::new(id, self.learned.len() - 1, original));
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
        self.relax_now(&fallbacks, None)?;
        Ok(self.relaxed - before)
    }

    /// Relaxes the constraints among `conflict` that may be relaxed (see
    /// [`LearnerConfig::relax_on_conflict`]); false when none is.
    fn relax(&mut self, conflict: &[ConstraintId]) -> Result<bool, Error> {
        if !self.config.relax_on_conflict {
            return Ok(false);
        }
        self.relax_now(conflict, Some(conflict))
    }

    /// Relaxes the relaxable constraints among `ids`; false when none is. A relaxation that
    /// the conflict `cause` caused is undone when one of its other lessons is taken back.
    fn relax_now(&mut self, ids: &[ConstraintId], cause: Option<&[ConstraintId]>) -> Result<bool, Error> {
        let causes: BTreeSet<LessonId> = cause
            .unwrap_or_default()
            .iter()
            .filter_map(|id| self.conjuncts.get(id.index()))
            .map(|c| c.lesson)
            .collect();
        let limit = self.config.deepen_to.max(self.config.max_constraint_edges);
        let relaxable = |r: &Relaxable| match r.kind {
            Guess::Fallback => true,
            Guess::Fixes { k, alternative } => k < limit || alternative.is_some(),
        };
        let (hit, keep): (Vec<Relaxable>, Vec<Relaxable>) =
            std::mem::take(&mut self.relaxable).into_iter().partition(|r| ids.contains(&r.id) && relaxable(r));
        self.relaxable = keep;
        for r in &hit {
            let others: Vec<LessonId> = causes.iter().copied().filter(|&c| c != r.lesson).collect();
            if !others.is_empty() {
                self.relaxations.push(Relaxation { lesson: r.lesson, causes: others });
            }
            self.solver.retract(r.id)?;
            self.learned[r.index] = self.arena.constant(true);
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

    /// The solver's conflict in the learner's words: each constraint under its lesson's id
    /// and its name, with its text.
    fn explain(&self, unsat: &paces_solver::Unsat) -> String {
        let mut explanation = match unsat.conflict.len() {
            0 => String::from("the space has no candidate program"),
            1 => String::from("no candidate program satisfies this constraint:"),
            _ => String::from("no candidate program satisfies these constraints together:"),
        };
        for c in &unsat.conflict {
            match self.conjuncts.get(c.id.index()) {
                Some(conjunct) => explanation.push_str(&format!("\n  {} `{}`: {}", conjunct.lesson, c.name, c.text)),
                None => explanation.push_str(&format!("\n  `{}`: {}", c.name, c.text)),
            }
        }
        explanation
    }

    /// The cheapest candidate satisfying every constraint learned so far, or the lessons
    /// that conflict: each constraint of the solver's core (the constraints it needed to find
    /// no candidate, under assumptions) named by its lesson's id and name, and which of those
    /// lessons are guesses ([`Learner::require_guess`]).
    ///
    /// A conflict that involves constraints stronger than what is known relaxes them first
    /// (see [`LearnerConfig::relax_on_conflict`]) and asks again.
    ///
    /// # Errors
    /// When the solver fails.
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
                        let mut explanation = self.explain(&u);
                        let fals = self.arena.constant(false);
                        let short = self
                            .relaxable
                            .iter()
                            .any(|r| ids.contains(&r.id) && r.constraint == fals && stops_at_failure(&r.trace));
                        let conflict: Vec<Conjunct> =
                            ids.iter().filter_map(|id| self.conjuncts.get(id.index()).cloned()).collect();
                        let fallback = conflict.iter().any(|c| c.kind == ConjunctKind::Fallback);
                        let lessons: Vec<LessonId> =
                            conflict.iter().map(|c| c.lesson).collect::<BTreeSet<_>>().into_iter().collect();
                        let guesses: Vec<LessonId> = conflict
                            .iter()
                            .filter(|c| matches!(c.kind, ConjunctKind::Guess | ConjunctKind::Alternative))
                            .map(|c| c.lesson)
                            .collect::<BTreeSet<_>>()
                            .into_iter()
                            .collect();
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
                        if !guesses.is_empty() {
                            let names: Vec<String> = guesses.iter().map(ToString::to_string).collect();
                            explanation.push_str(&format!(
                                "\n  (this answer rests on a guess, not on what the traces proved: {} {}; \
                                 without it the conflict is lifted)",
                                names.join(", "),
                                if guesses.len() == 1 { "is a guess" } else { "are guesses" },
                            ));
                        }
                        return Ok(Proposal::Unsatisfiable { explanation, conflict, lessons, guesses });
                    }
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
