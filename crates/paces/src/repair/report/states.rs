//! Where a run's states went ([`StatesSplit`]), and the slots the judge counts into.

/// The states the checker stored, by what each check was for; the parts sum to
/// [`Report::states_explored`](crate::Report::states_explored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StatesSplit {
    /// Checks of the original program: its verdict, its further counterexamples, its
    /// deadlocks and livelocks.
    pub original: usize,
    /// Searches of the original program for the outcomes a candidate reaches.
    pub original_outcomes: usize,
    /// Checks of candidates (every candidate judged, the accepted one among them) and the
    /// searches for their further counterexamples.
    pub candidates: usize,
    /// Explorations of candidates with reorders for their outcomes.
    pub candidate_outcomes: usize,
}

impl StatesSplit {
    /// Every state counted.
    pub fn total(&self) -> usize {
        self.original + self.original_outcomes + self.candidates + self.candidate_outcomes
    }

    /// The slot of a check of `original` (the original program, or a candidate) that looks
    /// for outcomes when `outcomes` says so.
    pub(crate) fn slot(original: bool, outcomes: bool) -> fn(&mut StatesSplit) -> &mut usize {
        match (original, outcomes) {
            (true, false) => |s| &mut s.original,
            (true, true) => |s| &mut s.original_outcomes,
            (false, false) => |s| &mut s.candidates,
            (false, true) => |s| &mut s.candidate_outcomes,
        }
    }
}
