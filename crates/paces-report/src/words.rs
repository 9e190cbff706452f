//! Changes in the words a reviewer reads them in. A Cwhile program's items are named by their
//! labels (`move 3 below 5`, `atomic [7; 9]`, `swap 3 <-> 5`). A program a frontend read from
//! C has a source statement for every item ([`Program::source_step`]): its items are named by
//! the statement's line and text (``move line 9 `x = 1` below line 11 `z = 1` ``), a statement
//! of one copy of an unrolled loop with the copy (`` line 12 `t[i] = 1` [i = 0] ``), so that
//! two statements of one line and the copies of one statement stay apart.

use paces::constraint::{Loc, Move, Space, Transformation};
use paces::cwhile::ir::{Program, StmtKind};

/// Names the items of `space`, whose labels are those of `program` (the original the repair
/// started from).
#[derive(Clone, Copy)]
pub(crate) struct Namer<'a> {
    pub(crate) program: &'a Program,
    pub(crate) space: &'a Space,
}

impl Namer<'_> {
    /// The item at `loc`: its label, or for a C program its statement's line and text (a
    /// compound statement's header: `` line 8 `if (x > 0)` ``, an `if` or a loop); an item of several statements
    /// that is none of them (a region the frontend holds together) by its first statement and
    /// its lines (`` lines 12-14 `x = 1` ... ``), and a block the source writes atomic by its
    /// lines and the first statement inside (`` lines 47-48 `int lb = data->shared.b` ... ``).
    pub(crate) fn item(&self, loc: Loc) -> String {
        let label = self.space.name(loc);
        let at = self.program.loc(label);
        let steps = at.map(|l| self.program.source_steps_in(l)).unwrap_or_default();
        let (Some(at), Some(&first)) = (at, steps.first()) else { return label.to_owned() };
        let kind = self.program.stmt_at(at).map(|s| &self.program.stmts[s.index()].kind);
        let compound = matches!(kind, Some(StmtKind::If { .. } | StmtKind::While { .. }));
        let last = steps.iter().map(|s| s.line).max().unwrap_or(first.line);
        // A block the source writes atomic (`__VERIFIER_atomic_begin(); ... end();`) by its
        // lines and its first statement, not by the call that opens it.
        let opened = steps
            .get(1)
            .filter(|_| matches!(kind, Some(StmtKind::Atomic(_))) && self.program.source_step(at).is_some());
        if let Some(inner) = opened {
            let copy = inner.copy.as_ref().map(|c| format!(" [{c}]")).unwrap_or_default();
            return format!("lines {}-{last} `{}` ...{copy}", first.line, inner.text);
        }
        let copy = first.copy.as_ref().map(|c| format!(" [{c}]")).unwrap_or_default();
        if self.program.source_step(at).is_some() || compound || steps.iter().all(|s| s.start == first.start) {
            format!("line {} `{}`{copy}", first.line, first.text)
        } else if last == first.line {
            format!("line {} `{}` ...{copy}", first.line, first.text)
        } else {
            format!("lines {}-{last} `{}` ...{copy}", first.line, first.text)
        }
    }

    /// `move A below B`, `move A above B` (to the top of its block), `move A to the top`.
    pub(crate) fn change(&self, m: &Move) -> String {
        match (m.below, m.above) {
            (Some(b), _) => format!("move {} below {}", self.item(m.item), self.item(b)),
            (None, Some(a)) => format!("move {} above {}", self.item(m.item), self.item(a)),
            (None, None) => format!("move {} to the top", self.item(m.item)),
        }
    }

    /// `swap A <-> B`; `atomic [A; B]` from the first item to the last, `atomic [A]` for one
    /// item alone (a Cwhile program's `atomic [A; A]`, its label twice, as its syntax says).
    pub(crate) fn transformation(&self, t: &Transformation) -> String {
        match *t {
            Transformation::Swap { first, second } => {
                format!("swap {} <-> {}", self.item(first), self.item(second))
            }
            Transformation::Atomic { first, last } if first == last && self.is_source(first) => {
                format!("atomic [{}]", self.item(first))
            }
            Transformation::Atomic { first, last } => format!("atomic [{}; {}]", self.item(first), self.item(last)),
        }
    }

    /// Whether the item at `loc` is named by source statements.
    fn is_source(&self, loc: Loc) -> bool {
        self.program.loc(self.space.name(loc)).is_some_and(|l| !self.program.source_steps_in(l).is_empty())
    }
}
