//! A thread's control flow outside atomic blocks as *points*, each with its options: the
//! steps it may take next, each together with the choices of `if (*)`/`while (*)` (and the
//! loop exits, empty branches, block ends and calls) that lead to it without a step, as the
//! language's contract defines a choice (docs/language.md, "The language in brief").

use std::collections::HashMap;

use paces_constraint::BlockId;

use crate::ir::{Cond, Program, StmtId, StmtKind};

/// Where a thread stands: a stack of (block, index of the next item). A loop's frame stays
/// at the loop while its body runs; a branch's, a call's and a `noreorder`'s frame moves past
/// its item when the thread enters it.
type Pos = Vec<(BlockId, usize)>;

/// A step an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// A statement that is one step (an atomic block, `lock` and `down` included).
    Stmt(StmtId),
    /// The guard of an `if (b)` or `while (b)`: `true` for the branch or the body, `false` for
    /// the other way.
    Guard(StmtId, bool),
}

/// An option of a point: its step, and the point after it (`None`: the thread's end).
#[derive(Clone, Copy, Debug)]
pub(super) struct Opt {
    pub step: Step,
    pub target: Option<usize>,
}

/// A point of a thread: its options, and whether the thread may stop there (it reaches its
/// end without a step).
#[derive(Clone, Debug, Default)]
pub(super) struct Point {
    pub options: Vec<Opt>,
    pub can_finish: bool,
}

/// The points of a thread whose body is `body`, the entry first (a body with no step has one
/// point, with no option, where the thread can finish).
pub(super) fn points(p: &Program, body: BlockId) -> Vec<Point> {
    let mut ids: HashMap<Pos, usize> = HashMap::new();
    let mut order: Vec<Pos> = Vec::new();
    let mut out = Vec::new();
    let entry = normal(p, vec![(body, 0)]);
    ids.insert(entry.clone(), 0);
    order.push(entry);
    let mut k = 0;
    while k < order.len() {
        let (steps, can_finish) = options(p, &order[k]);
        let mut point = Point { options: Vec::new(), can_finish };
        for (step, after) in steps {
            let after = normal(p, after);
            let target = if after.is_empty() {
                None
            } else {
                let next = ids.len();
                let id = *ids.entry(after.clone()).or_insert(next);
                if id == next {
                    order.push(after);
                }
                Some(id)
            };
            point.options.push(Opt { step, target });
        }
        out.push(point);
        k += 1;
    }
    out
}

fn items(p: &Program, b: BlockId) -> &[StmtId] {
    p.blocks.get(b.index()).map_or(&[][..], |b| &b.items[..])
}

/// `pos` without the frames that stand at their block's end (the frame below goes on from
/// where it stands), so that equal positions have one form.
fn normal(p: &Program, mut pos: Pos) -> Pos {
    while let Some(&(b, i)) = pos.last() {
        if i < items(p, b).len() {
            break;
        }
        pos.pop();
    }
    pos
}

/// The steps a thread may take next from `pos`, each with where it stands after it, and
/// whether it can reach its end without a step.
fn options(p: &Program, pos: &Pos) -> (Vec<(Step, Pos)>, bool) {
    let mut out = Vec::new();
    let mut finish = false;
    let mut seen: Vec<Pos> = Vec::new();
    let mut work = vec![pos.clone()];
    while let Some(q) = work.pop() {
        if seen.contains(&q) {
            continue;
        }
        seen.push(q.clone());
        let Some(&(b, i)) = q.last() else {
            finish = true;
            continue;
        };
        let Some(&id) = items(p, b).get(i) else {
            let mut up = q.clone();
            up.pop();
            work.push(up);
            continue;
        };
        let mut advanced = q.clone();
        if let Some(last) = advanced.last_mut() {
            last.1 += 1;
        }
        let into = |base: &Pos, block: BlockId| {
            let mut r = base.clone();
            r.push((block, 0));
            r
        };
        let Some(s) = p.stmts.get(id.index()) else { continue };
        match &s.kind {
            StmtKind::If { cond, then_block, else_block } => {
                let other = else_block.map_or_else(|| advanced.clone(), |e| into(&advanced, e));
                let then = into(&advanced, *then_block);
                match cond {
                    Cond::Star => {
                        // Reversed, so that the first branch's steps come first.
                        work.push(other);
                        work.push(then);
                    }
                    Cond::Expr { .. } => {
                        out.push((Step::Guard(id, true), then));
                        out.push((Step::Guard(id, false), other));
                    }
                }
            }
            StmtKind::While { cond, body } => match cond {
                Cond::Star => {
                    work.push(advanced);
                    work.push(into(&q, *body));
                }
                Cond::Expr { .. } => {
                    out.push((Step::Guard(id, true), into(&q, *body)));
                    out.push((Step::Guard(id, false), advanced));
                }
            },
            StmtKind::NoReorder(inner) => work.push(into(&advanced, *inner)),
            StmtKind::Call(proc_) => {
                if let Some(callee) = p.procs.get(proc_.index()) {
                    work.push(into(&advanced, callee.body));
                }
            }
            _ => out.push((Step::Stmt(id), advanced)),
        }
    }
    (out, finish)
}
