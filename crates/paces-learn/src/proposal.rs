//! The learner's answer: the next candidate, or why there is none ([`Proposal`]).

use std::fmt;

use paces_constraint::{Candidate, Cost, Space, Transformation};

use crate::lesson::{Conjunct, LessonId};

/// The learner's next proposal. With the `serde` feature it is written as
/// `{"answer": "candidate", "candidate": ..., "cost": ..., "transformations": [...]}` or
/// `{"answer": "unsatisfiable", "explanation": ..., "conflict": [...], "lessons": [...], "guesses": [...]}`.
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
        /// The lessons of `conflict`, each once, in the order learned: retracting one of them
        /// (or popping its scope) lifts this conflict.
        lessons: Vec<LessonId>,
        /// Those of `lessons` that are guesses ([`Learner::require_guess`](crate::Learner::require_guess), or a
        /// bad trace with no fix whose caller's alternative stands in,
        /// [`Learner::learn_bad_or`](crate::Learner::learn_bad_or)): when there is one, "no candidate"
        /// rests on a guess, not on what the traces proved.
        guesses: Vec<LessonId>,
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

/// Writes a candidate as a [`Proposal`] shows it: its cost, the changes leading to it as a
/// reviewer reads them (the fewest moves of single items, [`Candidate::moves`], then the added
/// sections with every item inside them), then the candidate itself. The adjacent swaps stay
/// in [`Proposal::Candidate`]'s `transformations`.
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
    for m in candidate.moves(space) {
        writeln!(f, "  {}", m.display(space))?;
    }
    for t in transformations.iter().filter(|t| matches!(t, Transformation::Atomic { .. })) {
        writeln!(f, "  {}", t.display_in(space, candidate))?;
    }
    write!(f, "{}", candidate.display(space))
}
