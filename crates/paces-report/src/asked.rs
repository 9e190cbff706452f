//! Why each change of a repair is there: the iterations whose lessons ask for it, or, when no
//! lesson does, the step of the run that kept it ([`paces::Origin`]).
//!
//! A lesson is a bad trace learned from (an iteration's first trace or one of its further
//! ones): one of its fixes must hold. The fix it takes in the repair is the first whose atoms
//! all hold there (the one its chart shows first). A change is asked for by the lesson when an
//! atom of that fix holds in the repair thanks to the change: an added section, when the atom
//! no longer holds without the section; a move, when the atom orders the moved item against
//! another one of its block, which the original ordered the other way and no section of the
//! repair holds together.

use paces::constraint::{Atom, Candidate, Move, Space, Transformation};
use paces::generalize::Elimination;
use paces::Report;

use crate::words::Namer;

/// An iteration whose lesson asks for a change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Asker {
    /// The iteration, counted from 1.
    pub(crate) iteration: usize,
    /// The problem of the trace that taught the lesson, in words.
    pub(crate) problem: String,
}

/// A change of the repair in words (as [`crate::text::changes`] says it) and the iterations
/// that ask for it (empty when none does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) text: String,
    pub(crate) asked: Vec<Asker>,
}

/// One change of a candidate.
enum Step {
    Move(Move),
    Section(usize),
}

/// The changes of the report's repair, in the order of [`crate::text::changes`], each with
/// the iterations that ask for it. Empty without a candidate.
pub(crate) fn changes(report: &Report) -> Vec<Change> {
    let Some(repair) = &report.candidate else { return Vec::new() };
    let space = &report.space;
    let original = Candidate::original(space);
    let names = Namer { program: &report.original, space };
    let mut steps: Vec<(String, Step)> =
        repair.moves(space).into_iter().map(|m| (names.change(&m), Step::Move(m))).collect();
    for t in &report.transformations {
        let Transformation::Atomic { first, last } = *t else { continue };
        let Some(k) = repair.sections().iter().position(|s| s.first == first && s.last == last) else { continue };
        steps.push((names.transformation(t), Step::Section(k)));
    }
    let lessons = lessons(report);
    steps
        .into_iter()
        .map(|(text, step)| {
            let without = match step {
                Step::Section(k) => without_section(space, repair, k),
                Step::Move(_) => None,
            };
            let serves = |atom: &Atom| match (&step, atom) {
                (Step::Section(_), a) => a.holds(repair) && without.as_ref().is_some_and(|w| !a.holds(w)),
                (Step::Move(m), Atom::Order(a, b)) => {
                    (*a == m.item || *b == m.item)
                        && atom.holds(repair)
                        && !atom.holds(&original)
                        && !repair.in_one_section(*a, *b)
                }
                _ => false,
            };
            let mut asked: Vec<Asker> = Vec::new();
            for (iteration, problem, elimination) in &lessons {
                let taken = elimination.fixes.iter().find(|f| f.atoms.iter().all(|a| a.holds(repair)));
                let asks = taken.is_some_and(|f| f.atoms.iter().any(&serves));
                let asker = Asker { iteration: *iteration, problem: problem.clone() };
                if asks && !asked.contains(&asker) {
                    asked.push(asker);
                }
            }
            Change { text, asked }
        })
        .collect()
}

/// The repair without its section `k` (`None` if that is no candidate).
fn without_section(space: &Space, repair: &Candidate, k: usize) -> Option<Candidate> {
    let others: Vec<(paces::constraint::Loc, paces::constraint::Loc)> =
        repair.sections().iter().enumerate().filter(|&(i, _)| i != k).map(|(_, s)| (s.first, s.last)).collect();
    Candidate::new(space, repair.orders().to_vec(), &others).ok()
}

/// Every lesson of the run's history: its iteration (from 1), its problem in words and its
/// elimination; the traces kept with [`paces::Repair::record_traces`] only.
fn lessons(report: &Report) -> Vec<(usize, String, &Elimination)> {
    let mut out = Vec::new();
    for (n, it) in report.history.iter().enumerate() {
        if let Some(l) = &it.learned {
            out.push((n + 1, it.problem.shown(&report.original).to_string(), &l.elimination));
        }
        for (problem, l) in it.more.iter().zip(&it.more_learned) {
            if let Some(l) = l {
                out.push((n + 1, problem.shown(&report.original).to_string(), &l.elimination));
            }
        }
    }
    out
}
