//! Where a run's time went ([`TimeSplit`]), and the slots the recorder times into.

use std::time::Duration;

/// Where the time went: each part apart, so that the parts and [`TimeSplit::other`] sum to
/// [`TimeSplit::total`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimeSplit {
    /// Model checking of programs: the original, the candidates, their sequential final states.
    pub explore: Duration,
    /// The good-trace search of mixed mode.
    pub good: Duration,
    /// Running bad traces on past their failure to their end (before learning from them).
    pub complete: Duration,
    /// LearnGoodUnder and bad-trace elimination.
    pub learn: Duration,
    /// Choosing candidates (the SAT search).
    pub solve: Duration,
    /// Building candidate programs from the original (before each is checked).
    pub apply: Duration,
    /// Counting and listing the candidates of a small space in cost order (the optimisation
    /// phase's and the walking loop's lists).
    pub list: Duration,
    /// The whole run.
    pub total: Duration,
}

impl TimeSplit {
    /// The time of the run outside the named parts (building the space and the learner, the
    /// bookkeeping between the parts).
    pub fn other(&self) -> Duration {
        let parts = [self.explore, self.good, self.complete, self.learn, self.solve, self.apply, self.list];
        self.total.saturating_sub(parts.iter().sum())
    }
}

/// The slot of [`TimeSplit`] for model checking, for [`Recorder::timed`].
pub(crate) fn explore_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.explore
}

/// The slot of [`TimeSplit`] for the good-trace search, for [`Recorder::timed`].
pub(crate) fn good_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.good
}

/// The slot of [`TimeSplit`] for completing bad traces, for [`Recorder::timed`].
pub(crate) fn complete_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.complete
}

/// The slot of [`TimeSplit`] for learning, for [`Recorder::timed`].
pub(crate) fn learn_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.learn
}

/// The slot of [`TimeSplit`] for choosing candidates, for [`Recorder::timed`].
pub(crate) fn solve_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.solve
}

/// The slot of [`TimeSplit`] for building candidate programs, for [`Recorder::timed`].
pub(crate) fn apply_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.apply
}

/// The slot of [`TimeSplit`] for listing candidates, for [`Recorder::timed`].
pub(crate) fn list_time(t: &mut TimeSplit) -> &mut Duration {
    &mut t.list
}
