//! Which step of a run found the program it ends with ([`Origin`]): what the report's pages
//! say of a change that no single lesson asked for.

use std::fmt;

/// Which step of the run found the program it ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// The original program, already correct.
    Original,
    /// The loop's proposal after iteration `iteration` (counted from 1): the cheapest
    /// candidate satisfying every constraint learned by then, or with `twins` the cheapest
    /// one whose twin threads change alike (or the proposal's changes made in its twins too).
    Loop {
        /// The iteration it was proposed after.
        iteration: usize,
        /// Whether its changes were made alike in twin threads.
        twins: bool,
    },
    /// The loop's proposal after iteration `iteration`, first kept in reserve (a deadlock of
    /// it is admitted only after a failure) and the answer once the search for a better one
    /// ended.
    Reserve {
        /// The iteration it was proposed after.
        iteration: usize,
        /// Whether its changes were made alike in twin threads.
        twins: bool,
    },
    /// The removal phase's proposal after iteration `iteration`: the cheapest candidate
    /// satisfying everything learned and the fixes of the original's deadlocks.
    Removal {
        /// The iteration it was proposed after.
        iteration: usize,
    },
    /// The optimisation phase judging the candidates cheaper than the repair in cost order:
    /// the first one accepted, after `judged` were judged.
    CheaperListed {
        /// How many cheaper candidates were judged, this one included.
        judged: usize,
    },
    /// The optimisation phase's learner (the good traces' fallbacks relaxed): the cheapest
    /// candidate satisfying everything learned, the lessons of `checked` cheaper candidates
    /// judged in the phase included.
    CheaperLearned {
        /// How many cheaper candidates the phase had judged, this one included.
        checked: usize,
    },
    /// The optimisation phase taking added sections out of the repair one at a time: the
    /// repair without `dropped` of its sections, which passes every check.
    SectionsDropped {
        /// How many of the repair's sections were taken out.
        dropped: usize,
    },
    /// The optimisation phase putting reordered blocks of the repair back in their original
    /// order one at a time: the repair with `restored` of its blocks in their original order,
    /// which passes every check.
    OrdersRestored {
        /// How many of the repair's reordered blocks were put back.
        restored: usize,
    },
    /// Judging the candidates of the space in cost order (the exhaustive search, or the loop
    /// walking a small space): the first one accepted, after `checked` were judged.
    InCostOrder {
        /// How many candidates were judged, the original and this one included.
        checked: usize,
    },
}

impl Origin {
    /// The step's name, as JSON gives it: `original`, `loop`, `reserve`, `removal`,
    /// `cheaper-listed`, `cheaper-learned`, `sections-dropped`, `orders-restored` or
    /// `in-cost-order`.
    pub fn name(&self) -> &'static str {
        match self {
            Origin::Original => "original",
            Origin::Loop { .. } => "loop",
            Origin::Reserve { .. } => "reserve",
            Origin::Removal { .. } => "removal",
            Origin::CheaperListed { .. } => "cheaper-listed",
            Origin::CheaperLearned { .. } => "cheaper-learned",
            Origin::SectionsDropped { .. } => "sections-dropped",
            Origin::OrdersRestored { .. } => "orders-restored",
            Origin::InCostOrder { .. } => "in-cost-order",
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Origin::Original => f.write_str("the original program, already correct"),
            Origin::Loop { iteration, twins } => write!(
                f,
                "the cheapest candidate that satisfies every constraint learned{}, proposed after iteration \
                 {iteration}",
                alike(twins)
            ),
            Origin::Reserve { iteration, twins } => write!(
                f,
                "the cheapest candidate that satisfies every constraint learned{}, proposed after iteration \
                 {iteration} and kept in reserve",
                alike(twins)
            ),
            Origin::Removal { iteration } => write!(
                f,
                "the cheapest candidate that satisfies every constraint learned and removes the original's \
                 deadlocks, proposed by the removal phase after iteration {iteration}"
            ),
            Origin::CheaperListed { judged } => write!(
                f,
                "the cheapest candidate that passes every check: the optimisation phase judged {judged} \
                 candidates cheaper than the loop's repair, cheapest first"
            ),
            Origin::CheaperLearned { checked } => write!(
                f,
                "the cheapest candidate that satisfies every constraint learned, the good traces' fallbacks \
                 relaxed, proposed by the optimisation phase ({checked} cheaper candidates judged)"
            ),
            Origin::SectionsDropped { dropped } => write!(
                f,
                "the loop's repair with {dropped} of its atomic sections taken out by the optimisation phase, \
                 which passes every check"
            ),
            Origin::OrdersRestored { restored } => write!(
                f,
                "the loop's repair with {restored} of its reordered blocks put back in their original order by \
                 the optimisation phase, which passes every check"
            ),
            Origin::InCostOrder { checked } => write!(
                f,
                "the cheapest candidate that passes every check: {checked} candidates of the space judged, \
                 cheapest first (the original included)"
            ),
        }
    }
}

/// What a proposal spread to twin threads adds to its words.
fn alike(twins: bool) -> &'static str {
    if twins {
        " and changes its twin threads alike"
    } else {
        ""
    }
}
