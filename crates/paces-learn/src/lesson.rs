//! What the learner took from a trace: [`Lesson`]s and the [`Conjunct`]s they hold.

use std::fmt;

use paces_constraint::{Arena, Loc, NodeId, Space};

/// A lesson's id: what [`Learner::retract`](crate::Learner::retract) takes back. Every trace learned and every
/// constraint required (or guessed) has one, numbered from 0 in the order learned; an
/// unsatisfiable [`Proposal`](crate::Proposal) names the lessons in its conflict by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(transparent))]
pub struct LessonId(pub(crate) u32);

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
/// [`Lesson::display`], as everything the learner hands out.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Lesson {
    /// Its id, for [`Learner::retract`](crate::Learner::retract).
    pub id: LessonId,
    /// The constraint learned (a node of [`Learner::arena`](crate::Learner::arena)).
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
    /// The constraint's text with its locations left to name, so that the lesson shows
    /// without the learner's arena (in a [`Runner`](crate::Runner)'s progress events, say).
    pub(crate) shown: Shown,
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
    pub(crate) fn name(self) -> &'static str {
        match self {
            Role::Good => "good",
            Role::Bad => "bad",
        }
    }
}

/// One constraint the learner holds: what it was learned from and what kind of constraint it
/// is, under the name its explanations use (`good trace #1 (fallback)`,
/// `bad trace #2 (fixes, K = 4)`). [`Learner::conjuncts`](crate::Learner::conjuncts) lists them; an unsatisfiable
/// [`Proposal`](crate::Proposal) names those in conflict.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Conjunct {
    /// The name, as explanations and [`Learner::display_constraints`](crate::Learner::display_constraints) give it.
    pub name: String,
    /// The trace it was learned from: good or bad, and its number among those (from 1);
    /// `None` for a constraint of the caller's own ([`Learner::require`](crate::Learner::require),
    /// [`Learner::require_guess`](crate::Learner::require_guess)).
    pub trace: Option<(Role, usize)>,
    /// The lesson it belongs to (a relaxed constraint and its replacement share one).
    pub lesson: LessonId,
    /// What kind of constraint it is.
    pub kind: ConjunctKind,
    /// Whether it stopped binding in favour of a constraint later in the list for the same
    /// lesson: a conflict relaxed it, or [`Learner::retract`](crate::Learner::retract) undid
    /// the relaxation that brought it and its lesson's first constraint follows again.
    pub relaxed: bool,
    /// Whether [`Learner::retract`](crate::Learner::retract) took its lesson back (it is `true` now).
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
    /// (more than the trace needs: [`LearnerConfig::relax_on_conflict`](crate::LearnerConfig::relax_on_conflict)).
    Fallback,
    /// A bad trace's fixes: the elimination cycles with at most `k` constraint edges.
    Fixes {
        /// The K the fixes were searched with.
        k: usize,
    },
    /// A bad trace with no fix, for which the caller's alternative stands
    /// ([`Learner::learn_bad_or`](crate::Learner::learn_bad_or)).
    Alternative,
    /// A constraint of the caller's own ([`Learner::require`](crate::Learner::require)).
    Required,
    /// A guess of the caller's own ([`Learner::require_guess`](crate::Learner::require_guess)).
    Guess,
}

impl Conjunct {
    pub(crate) fn new(lesson: LessonId, trace: Option<(Role, usize)>, kind: ConjunctKind) -> Conjunct {
        let what = match kind {
            ConjunctKind::Covers { after_fallback: false } => "covered edges".to_owned(),
            ConjunctKind::Covers { after_fallback: true } => "covered edges, fallback relaxed".to_owned(),
            ConjunctKind::Fallback => "fallback: every order frozen".to_owned(),
            ConjunctKind::Fixes { k } => format!("fixes, K = {k}"),
            ConjunctKind::Alternative => "no fix: the caller's alternative".to_owned(),
            ConjunctKind::Required | ConjunctKind::Guess => String::new(),
        };
        let name = match trace {
            Some((role, number)) => format!("{} trace #{number} ({what})", role.name()),
            None => what,
        };
        Conjunct { name, trace, lesson, kind, relaxed: false, retracted: false }
    }
}

/// The advice for a bad trace that stops at its failure.
pub(crate) const STOPS_AT_FAILURE: &str =
    "the bad trace ends at its failure and lists no pending steps: a fix orders the \
     failure before a write that comes after it, which such a trace does not show; run the trace on past its \
     failure, or list each thread's next steps as pending steps (`StepBuilder::push_pending`)";

impl Lesson {
    /// The warning for a bad trace that ends at its failure with no blocked or pending steps
    /// and offered no fix: what to add to the trace. `None` otherwise.
    pub fn warning(&self) -> Option<&'static str> {
        (self.stops_at_failure && self.fixes == 0).then_some(STOPS_AT_FAILURE)
    }
}

/// How much of one constraint [`Lesson::display`] and
/// [`Learner::display_constraints`](crate::Learner::display_constraints) print.
pub(crate) const SHOWN_CHARS: usize = 2000;

/// Marks a location's number in a [`Shown`] text (no constraint's text holds it).
const MARK: char = '\u{0}';

/// A constraint's text in the paper's notation with each location as its number between two
/// [`MARK`]s, to be named by a space when shown: a lesson shows with `&Space` alone, as
/// everything else the learner hands out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shown(String);

impl Shown {
    /// The text of `root`, long enough for [`SHOWN_CHARS`] characters with short names.
    pub(crate) fn new(arena: &Arena, root: NodeId) -> Shown {
        Shown(arena.to_text(root, &|l| format!("{MARK}{}{MARK}", l.index()), 4 * SHOWN_CHARS))
    }

    /// The text with `space`'s names, cut after [`SHOWN_CHARS`] characters (`...`).
    fn named(&self, space: &Space) -> String {
        let mut out = String::new();
        for (i, part) in self.0.split(MARK).enumerate() {
            if i % 2 == 0 {
                out.push_str(part);
                continue;
            }
            // A number cut short by the text's own bound ends the text.
            match part.parse::<u32>().map(Loc::from_u32) {
                Ok(loc) if loc.index() < space.loc_count() => out.push_str(space.name(loc)),
                Ok(loc) => out.push_str(&format!("location {}", loc.index())),
                Err(_) => {
                    out.push_str("...");
                    break;
                }
            }
        }
        if let Some((cut, _)) = out.char_indices().nth(SHOWN_CHARS) {
            out.truncate(cut);
            out.push_str("...");
        }
        out
    }
}

impl Lesson {
    /// Displays the lesson with the space's names: `good trace #1: 1 <= 2 /\ A <= B`, then
    /// what the learner should know about it (a good trace's fallback, a bad trace's number
    /// of fixes, the warning). A constraint is cut after 2000 characters (`...`).
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplayLesson { lesson: self, space }
    }
}

struct DisplayLesson<'a> {
    lesson: &'a Lesson,
    space: &'a Space,
}

impl fmt::Display for DisplayLesson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lesson = self.lesson;
        write!(f, "{} trace #{}: {}", lesson.role.name(), lesson.number, lesson.shown.named(self.space))?;
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

#[cfg(test)]
mod tests {
    use paces_constraint::{Arena, ItemInfo, SpaceBuilder};

    use super::{Shown, SHOWN_CHARS};

    /// A long constraint shows with the space's names, cut after [`SHOWN_CHARS`] characters,
    /// whatever the names' lengths (the text kept holds numbers, not names).
    #[test]
    fn a_long_constraint_is_named_and_cut() {
        for name_len in [1, 3, 40] {
            let mut b = SpaceBuilder::new();
            let block = b.open_block();
            let names: Vec<String> = ["a", "b", "c"].iter().map(|n| n.repeat(name_len)).collect();
            let locs: Vec<_> = names.iter().map(|n| b.add_item(block, n, ItemInfo::SIMPLE).unwrap()).collect();
            let space = b.build().unwrap();
            let mut arena = Arena::new();
            let mut root = arena.order(locs[0], locs[1]);
            for i in 0..2000 {
                let atom = if i % 2 == 0 { arena.order(locs[1], locs[2]) } else { arena.atomic(locs[0], locs[2]) };
                root = if i % 2 == 0 { arena.and([atom, root]) } else { arena.or([atom, root]) };
            }
            let shown = Shown::new(&arena, root).named(&space);
            let whole = arena.display(root, &space, usize::MAX).to_string();
            let kept = shown.strip_suffix("...").expect("cut");
            assert_eq!(kept.chars().count(), SHOWN_CHARS, "names of {name_len}");
            assert!(whole.starts_with(kept), "names of {name_len}");
        }
    }

    /// A short constraint shows whole, as the arena shows it.
    #[test]
    fn a_short_constraint_is_named_whole() {
        let mut b = SpaceBuilder::new();
        let block = b.open_block();
        let [a, c] = ["A", "C"].map(|n| b.add_item(block, n, ItemInfo::SIMPLE).unwrap());
        let space = b.build().unwrap();
        let mut arena = Arena::new();
        let (order, section) = (arena.order(c, a), arena.atomic(a, c));
        let root = arena.or([order, section]);
        assert_eq!(Shown::new(&arena, root).named(&space), "C <= A \\/ [A; C]");
    }
}
