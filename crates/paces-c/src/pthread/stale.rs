//! Repairs that make a check meaningless: a value an assertion tests, read before the thread
//! that changes it has started.

use paces_constraint::BlockId;
use paces_cwhile::ir::{StmtId, StmtKind, VarIdx, VarScope};
use paces_cwhile::Program;

/// The assertions of `repaired` that test a value read before a thread that changes it has
/// started, where the same assertion of `original` (the `n`th assertion that keeps its place,
/// counting through the threads, then the procedures, in order) does so fewer times: each a
/// sentence naming the assertion by its line (its label where `repaired` has no source
/// steps) and the thread by the name traces show it by.
///
/// A value an assertion tests is a shared variable read by an item of the assertion's block
/// before it that sets a local the assertion reads (`int condJ = j >= 144;` before `if (condI ||
/// condJ) reach_error();`), or sets a local that such an item reads. Such a read is stale when
/// it comes before the creation of a thread that writes the variable, or inside one atomic
/// block with it: the thread cannot have run yet, in any schedule, so the check tests the
/// variable's value before the thread and no longer what the thread computes. A repair that
/// moves such a read above a creation (or a creation below it, or puts both in a section)
/// passes every check by making it read the same values in every schedule; such a repair
/// is no repair of the program.
pub fn stale_checks(original: &Program, repaired: &Program) -> Vec<String> {
    let before = stale_per_assertion(original);
    let after = stale_per_assertion(repaired);
    let mut out = Vec::new();
    for (k, (label, threads)) in after.iter().enumerate() {
        let was = before.get(k).map_or(0, |(_, t)| t.len());
        if threads.len() > was {
            let place = repaired.place_name(label).unwrap_or_else(|| label.clone());
            let thread = threads.first().map_or("", |t| repaired.shown_thread(t));
            out.push(format!(
                "the check at {place} tests a value read before thread `{thread}` starts, in every schedule"
            ));
        }
    }
    out
}

/// Per assertion that keeps its place (threads first, then procedures, each body in order),
/// its label and the threads whose creation one of its tested values is read before (one
/// entry per stale read and thread).
fn stale_per_assertion(p: &Program) -> Vec<(String, Vec<String>)> {
    let created = created_threads(p);
    let mut out = Vec::new();
    let bodies: Vec<BlockId> = p.threads.iter().map(|t| t.body).chain(p.procs.iter().map(|q| q.body)).collect();
    for body in bodies {
        let mut stack = vec![body];
        let mut order = Vec::new();
        while let Some(b) = stack.pop() {
            order.push(b);
            let Some(block) = p.blocks.get(b.index()) else { continue };
            for &s in block.items.iter().rev() {
                stack.extend(
                    p.stmts
                        .get(s.index())
                        .into_iter()
                        .flat_map(|st| st.kind.blocks())
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev(),
                );
            }
        }
        for b in order {
            stale_in_block(p, b, &created, &mut out);
        }
    }
    out
}

/// Each thread's start flag (the shared variable its first wait reads) with its name and the
/// shared variables it writes.
fn created_threads(p: &Program) -> Vec<(VarIdx, String, Vec<VarIdx>)> {
    let mut out = Vec::new();
    for t in &p.threads {
        let Some(&first) = p.blocks.get(t.body.index()).and_then(|b| b.items.first()) else { continue };
        let Some(st) = p.stmts.get(first.index()) else { continue };
        let wait = match st.kind {
            StmtKind::NoReorder(b) => p.blocks.get(b.index()).and_then(|b| b.items.first().copied()),
            _ => None,
        };
        let Some(wait) = wait else { continue };
        if !matches!(p.stmts.get(wait.index()).map(|s| &s.kind), Some(StmtKind::Await(_))) {
            continue;
        }
        let writes: Vec<VarIdx> = p.writes(first).iter().copied().filter(|&v| is_shared(p, v)).collect();
        for &flag in p.reads(wait).iter().filter(|&&v| is_shared(p, v)) {
            out.push((flag, t.name.clone(), writes.clone()));
        }
    }
    out
}

fn is_shared(p: &Program, v: VarIdx) -> bool {
    p.vars.get(v.index()).is_some_and(|var| matches!(var.scope, VarScope::Global))
}

/// Adds the stale reads of each assertion of block `b` that keeps its place.
fn stale_in_block(
    p: &Program,
    b: BlockId,
    created: &[(VarIdx, String, Vec<VarIdx>)],
    out: &mut Vec<(String, Vec<String>)>,
) {
    let Some(block) = p.blocks.get(b.index()) else { return };
    // The block's items with the items of its atomic blocks in their place, each with the
    // atomic block it stands in.
    let mut seq: Vec<(StmtId, Option<usize>)> = Vec::new();
    for (k, &s) in block.items.iter().enumerate() {
        match p.stmts.get(s.index()).map(|st| &st.kind) {
            Some(StmtKind::Atomic(inner)) => {
                seq.extend(p.blocks.get(inner.index()).into_iter().flat_map(|i| i.items.iter().map(|&i| (i, Some(k)))));
            }
            _ => seq.push((s, None)),
        }
    }
    for (at, &(a, _)) in seq.iter().enumerate() {
        if !p.keeps_place(a) {
            continue;
        }
        let mut locals: Vec<VarIdx> = p.reads(a).iter().copied().filter(|&v| !is_shared(p, v)).collect();
        let mut feeding = Vec::new();
        for (i, &(e, _)) in seq[..at].iter().enumerate().rev() {
            if p.writes(e).iter().any(|v| locals.contains(v)) {
                feeding.push(i);
                locals.extend(p.reads(e).iter().copied().filter(|&v| !is_shared(p, v)));
            }
        }
        let mut threads = Vec::new();
        for &i in &feeding {
            let (f, section) = seq[i];
            for (j, &(c, other)) in seq.iter().enumerate() {
                for (flag, name, writes) in created {
                    let creates = p.writes(c).contains(flag);
                    let before = i < j || (section.is_some() && section == other);
                    if creates && before && p.reads(f).iter().any(|v| writes.contains(v)) {
                        threads.push(name.clone());
                    }
                }
            }
        }
        let label = p.stmts.get(a.index()).map_or_else(String::new, |s| s.label.clone());
        out.push((label, threads));
    }
}
