//! The context of one run: its configuration, the original program, its space, and the
//! recorder that makes the report. The loop owns it and lends it to whoever needs it; the
//! recorder is reached only through it, so that every fact of the report is written here.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use paces_constraint::{Candidate, Space, Transformation};
use paces_cwhile::ir::Program;
use paces_explore::{Counterexample, DeadlockId, GoodBound};
use paces_learn::Learner;
use paces_trace::Trace;

use super::config::Repair;
use super::event::RepairEvent;
use super::judgement::{OriginalJudgement, OriginalVerdict, Rejection};
use super::report::{
    Accepted, Exhaustive, Iteration, KeptBecause, Optimality, Origin, Recorder, Report, StatesSplit, StopReason,
    TimeSplit,
};

/// What every part of a run shares: what it was given, and the recorder of what it did.
pub(super) struct Context<'a> {
    cfg: &'a Repair,
    /// The original program, the one the run was given.
    program: &'a Program,
    space: &'a Space,
    recorder: Recorder,
}

impl<'a> Context<'a> {
    /// The context of a run of `cfg` on `program`, whose space is `space`.
    pub(super) fn new(cfg: &'a Repair, program: &'a Program, space: &'a Space) -> Self {
        let mut recorder = Recorder::new(cfg.mode, program, space.clone());
        recorder.keep_deadlocks = cfg.keep_deadlocks;
        Context { cfg, program, space, recorder }
    }

    /// The run's configuration.
    pub(super) fn cfg(&self) -> &'a Repair {
        self.cfg
    }

    /// The original program.
    pub(super) fn program(&self) -> &'a Program {
        self.program
    }

    /// The space of the original program.
    pub(super) fn space(&self) -> &'a Space {
        self.space
    }

    /// Runs `f`, adding its time to `slot` of the report's time split.
    pub(super) fn timed<T>(&mut self, slot: fn(&mut TimeSplit) -> &mut Duration, f: impl FnOnce() -> T) -> T {
        self.recorder.timed(slot, f)
    }

    /// Adds the states a check stored to `slot` of the report's count.
    pub(super) fn add_states(&mut self, slot: fn(&mut StatesSplit) -> &mut usize, states: usize) {
        *slot(&mut self.recorder.states) += states;
    }

    /// The states stored so far, summed over every check.
    pub(super) fn states(&self) -> usize {
        self.recorder.states.total()
    }

    /// What is left of the run's time limit, if it has one.
    pub(super) fn time_left(&self) -> Option<Duration> {
        self.cfg.time_limit.map(|limit| limit.saturating_sub(self.recorder.start().elapsed()))
    }

    /// When the run's time limit passes, if it has one.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.cfg.time_limit.map(|limit| self.recorder.start() + limit)
    }

    /// Whether the run's time limit has passed.
    pub(super) fn out_of_time(&self) -> bool {
        self.cfg.time_limit.is_some_and(|l| self.recorder.start().elapsed() >= l)
    }

    /// The iterations recorded so far.
    pub(super) fn history(&self) -> &[Iteration] {
        &self.recorder.history
    }

    /// The number of iterations recorded so far.
    pub(super) fn iterations(&self) -> usize {
        self.recorder.history.len()
    }

    /// Records an iteration in the history and tells the observer.
    pub(super) fn record_iteration(&mut self, record: Iteration) {
        if let Some(observer) = &self.cfg.observer {
            let iteration = self.recorder.history.len() + 1;
            observer.tell(&RepairEvent::IterationEnded { iteration, record: Box::new(record.clone()) });
        }
        self.recorder.history.push(record);
    }

    /// Records the judgement of the original program: the rejection of its first bad trace
    /// to learn from, or why the run stops at once (an original with no failure is accepted,
    /// with its deadlocks, which the removal phase starts from unless they are kept).
    pub(super) fn record_original(&mut self, judged: OriginalJudgement) -> ControlFlow<StopReason, Rejection> {
        self.recorder.original_states = judged.states;
        match judged.verdict {
            OriginalVerdict::Buggy(rejection) => ControlFlow::Continue(rejection),
            OriginalVerdict::Correct { unwind_reached, deadlocks } => {
                self.recorder.original_unwind_reached = unwind_reached;
                let candidate = Candidate::original(self.space);
                let program = self.program.clone();
                let transformations = Vec::new();
                let origin = Origin::Original;
                self.accept(Accepted { program, candidate, transformations, acceptance: None, deadlocks, origin });
                ControlFlow::Break(StopReason::AlreadyCorrect)
            }
            OriginalVerdict::Stop(stop) => ControlFlow::Break(stop),
        }
    }

    /// Records the program the run ends with (so far).
    pub(super) fn accept(&mut self, accepted: Accepted) {
        self.recorder.accept(accepted);
    }

    /// Forgets the program accepted so far.
    pub(super) fn clear_accepted(&mut self) {
        self.recorder.clear_accepted();
    }

    /// The deadlocks of the program accepted so far (none when there is none).
    pub(super) fn accepted_deadlocks(&self) -> BTreeMap<DeadlockId, Counterexample> {
        self.recorder.accepted_deadlocks()
    }

    /// The program accepted so far, if any.
    pub(super) fn accepted_program(&self) -> Option<&Program> {
        self.recorder.accepted_program()
    }

    /// The candidate accepted so far, if any.
    pub(super) fn accepted_candidate(&self) -> Option<&Candidate> {
        self.recorder.accepted_candidate()
    }

    /// The states the accepted program's own checks stored (0 when none is).
    pub(super) fn accepted_states(&self) -> usize {
        self.recorder.accepted_states()
    }

    /// Puts a program with the same runs as the accepted one in its place, keeping its
    /// acceptance.
    pub(super) fn same_runs_accepted(
        &mut self,
        program: Program,
        candidate: Candidate,
        transformations: Vec<Transformation>,
        origin: Origin,
    ) {
        self.recorder.same_runs_accepted(program, candidate, transformations, origin);
    }

    /// Records what the search for good traces hit.
    pub(super) fn record_good_search(&mut self, bounds: Vec<GoodBound>) {
        self.recorder.good_search_bounds = bounds;
    }

    /// Records a good trace learned from (kept when the run records its traces).
    pub(super) fn record_learned_good(&mut self, trace: &Trace) {
        if self.cfg.record_traces {
            self.recorder.learned_good.push(trace.clone());
        }
    }

    /// Records what a search in cost order did.
    pub(super) fn record_exhaustive(&mut self, exhaustive: Exhaustive) {
        self.recorder.exhaustive = Some(exhaustive);
    }

    /// Whether the repair in hand is known to be a cheapest one, or not proved so.
    pub(super) fn optimality(&self) -> Option<&Optimality> {
        self.recorder.optimality.as_ref()
    }

    /// Records (or, with `None`, forgets) what is known of the repair's cost.
    pub(super) fn record_optimality(&mut self, optimality: Option<Optimality>) {
        self.recorder.optimality = optimality;
    }

    /// Records why the removal phase kept each deadlock of the original it kept.
    pub(super) fn record_kept(&mut self, kept: BTreeMap<DeadlockId, KeptBecause>) {
        self.recorder.kept_because = kept;
    }

    /// Settles what became of each deadlock of the original known to the run (`reached`),
    /// for the program the run ends with (see [`Recorder::settle_fates`]).
    pub(super) fn settle_fates(&mut self, reached: &BTreeSet<DeadlockId>) {
        self.recorder.settle_fates(reached);
    }

    /// The report of a run that stopped for `stop`, which knows every deadlock of the original
    /// when `original_deadlocks` gives them; what was learned comes from `learner` (none when
    /// the run stopped before learning).
    pub(super) fn finish(
        mut self,
        stop: StopReason,
        original_deadlocks: Option<Vec<DeadlockId>>,
        learner: Option<&mut Learner>,
    ) -> Report {
        self.recorder.original_deadlocks = original_deadlocks;
        self.recorder.finish(stop, learner)
    }
}
