//! A deterministic text dump of the IR, for snapshot tests and debugging.

use std::fmt::Write as _;

use paces_constraint::{BlockId, Waits};

use crate::ir::{Cond, Owner, Program, StmtId, StmtKind, VarScope};
use crate::print::{expr, head, var_name};

impl Program {
    /// A deterministic, line-oriented description of the IR: variables, threads and
    /// procedures, blocks with their items, every statement with its label, location, kind,
    /// read and write sets, weight, where it waits, whether it is atomic by itself and whether
    /// it holds the threads' structure (and its derived steps), the non-commuting pairs of each
    /// block, and the space's closed blocks, fixed pairs and items kept out of sections.
    pub fn dump(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "vars:");
        for (i, v) in self.vars.iter().enumerate() {
            let scope = match v.scope {
                VarScope::Global => "global".to_owned(),
                VarScope::Thread(t) => format!("local of thread {}", self.threads[t.index()].name),
                VarScope::Proc(q) => format!("local of proc {}", self.procs[q.index()].name),
            };
            let _ = writeln!(out, "  v{i} {} = {} ({scope})", v.name, v.init);
        }
        let _ = writeln!(out, "threads:");
        for (i, t) in self.threads.iter().enumerate() {
            let _ = writeln!(out, "  t{i} {} body {}", t.name, t.body);
        }
        let _ = writeln!(out, "procs:");
        for (i, q) in self.procs.iter().enumerate() {
            let _ = writeln!(out, "  p{i} {} body {}", q.name, q.body);
        }
        let _ = writeln!(out, "blocks:");
        for (i, b) in self.blocks.iter().enumerate() {
            let owner = match b.owner {
                Owner::Thread(t) => format!("thread {}", self.threads[t.index()].name),
                Owner::Proc(q) => format!("proc {}", self.procs[q.index()].name),
            };
            let parent = b.parent.map_or("-".to_owned(), |s| self.stmts[s.index()].label.clone());
            let items: Vec<&str> = b.items.iter().map(|s| self.stmts[s.index()].label.as_str()).collect();
            let closed = if self.is_closed(BlockId::from_u32(i as u32)) { " closed" } else { "" };
            let _ = writeln!(out, "  b{i} {owner} parent {parent}{closed}: [{}]", items.join(", "));
        }
        let _ = writeln!(out, "stmts:");
        for (i, s) in self.stmts.iter().enumerate() {
            let id = StmtId::from_u32(i as u32);
            let names = |vs: &[crate::ir::VarIdx]| vs.iter().map(|&v| var_name(self, v)).collect::<Vec<_>>().join(", ");
            let waits = match self.waits(id) {
                Waits::Never => "never",
                Waits::First => "first",
                Waits::Inside => "inside",
            };
            let role = format!(
                "waits {waits}{}{}",
                if self.is_atomic(id) { " atomic" } else { "" },
                if self.holds_thread_structure(id) { " thread" } else { "" }
            );
            let _ = writeln!(
                out,
                "  {} {}{} [{}] {} | reads {{{}}} writes {{{}}} weight {} {role}",
                s.loc,
                s.label,
                if s.explicit_label { "" } else { " (generated)" },
                s.block,
                head(self, s),
                names(self.reads(id)),
                names(self.writes(id)),
                self.weight(id),
            );
            let steps: Vec<(&crate::ir::Step, &str)> = match &s.kind {
                StmtKind::If { cond: Cond::Expr { then_guard, else_guard, .. }, .. }
                | StmtKind::While { cond: Cond::Expr { then_guard, else_guard, .. }, .. } => {
                    vec![(then_guard, "assume"), (else_guard, "assume")]
                }
                StmtKind::Lock { wait, set, .. } | StmtKind::Down { wait, set, .. } => {
                    vec![(wait, "await"), (set, "set")]
                }
                _ => Vec::new(),
            };
            for (step, what) in steps {
                let _ = writeln!(
                    out,
                    "    {} {}: {what} {}",
                    step.loc,
                    step.label,
                    expr(self, &step.expr, crate::print::owner_of(self, s))
                );
            }
        }
        let _ = writeln!(out, "non-commuting pairs:");
        for b in &self.blocks {
            for (k, &x) in b.items.iter().enumerate() {
                for &y in &b.items[k + 1..] {
                    if !self.commutes(x, y) {
                        let _ = writeln!(out, "  {} / {}", self.stmts[x.index()].label, self.stmts[y.index()].label);
                    }
                }
            }
        }
        dump_space(&self.space(), &mut out);
        out
    }
}

/// The space's part of the dump: per block whether it is closed, its fixed pairs and the items
/// kept out of sections (when there are any).
fn dump_space(space: &paces_constraint::Space, out: &mut String) {
    let _ = writeln!(out, "space: {} locations, {} blocks", space.loc_count(), space.block_count());
    for b in space.blocks() {
        let fixed: Vec<String> =
            space.fixed_pairs(b).map(|(x, y)| format!("{} < {}", space.name(x), space.name(y))).collect();
        let kept: Vec<&str> = space
            .items(b)
            .iter()
            .filter(|&&l| space.item_info(l).is_some_and(|i| i.no_section))
            .map(|&l| space.name(l))
            .collect();
        let kept = if kept.is_empty() { String::new() } else { format!(", no section [{}]", kept.join(", ")) };
        let closed = if space.is_closed(b) { " closed" } else { "" };
        let _ = writeln!(out, "  {b}{closed}: fixed [{}]{kept}", fixed.join(", "));
    }
}
