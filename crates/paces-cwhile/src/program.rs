//! Queries on a [`Program`]: lookups, effects, the commute relation and the space.

use paces_constraint::{BlockId, ItemInfo, Loc, Space, SpaceBuilder, Waits};

use crate::ir::VarIdx;
use crate::ir::{Block, Program, Stmt, StmtId, StmtKind, VarScope};

fn intersects(a: &[VarIdx], b: &[VarIdx]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

impl Program {
    /// The number of global variables: they are `vars[..global_count()]`.
    pub fn global_count(&self) -> usize {
        self.vars.iter().take_while(|v| v.scope == VarScope::Global).count()
    }

    /// The location with this label (statement labels and derived step labels).
    pub fn loc(&self, label: &str) -> Option<Loc> {
        self.facts().loc_by_name.get(label).copied()
    }

    /// The name of a location (`?` for a location of another program).
    pub fn loc_name(&self, loc: Loc) -> &str {
        self.loc_names.get(loc.index()).map_or("?", String::as_str)
    }

    /// The statement whose own label is `loc`; `None` for a derived step (the guard of an
    /// `if (b)`, the await of a `lock`) and for an unknown location.
    pub fn stmt_at(&self, loc: Loc) -> Option<StmtId> {
        self.facts().stmt_at.get(loc.index()).copied().flatten()
    }

    /// A statement.
    ///
    /// # Panics
    /// When `id` is not a statement of this program.
    pub fn stmt(&self, id: StmtId) -> &Stmt {
        &self.stmts[id.index()]
    }

    /// Whether a statement is an `assertd(b);` (an assertion that items may move across, see
    /// [`Parts::assertd`](crate::ir::Parts::assertd)); false for every other statement.
    pub fn is_assertd(&self, stmt: &Stmt) -> bool {
        matches!(stmt.kind, StmtKind::Assert(_)) && self.stmt_at(stmt.loc).is_some_and(|id| self.assertd.contains(&id))
    }

    /// Whether a statement keeps its place in its block: an `assert` (not an `assertd`) is a
    /// fixed point of its block's order, so that a repair never makes its check vacuous by
    /// moving it away from the waits and writes it was written after. An item that only holds
    /// an assertion (a branch, a loop, a call) moves like any other.
    pub fn keeps_place(&self, stmt: StmtId) -> bool {
        self.stmts
            .get(stmt.index())
            .is_some_and(|s| matches!(s.kind, StmtKind::Assert(_)) && !self.assertd.contains(&stmt))
    }

    /// Whether a statement is or holds a loop (in its branches, bodies and the procedures it
    /// calls).
    ///
    /// # Panics
    /// When `stmt` is not a statement of this program.
    pub fn holds_loop(&self, stmt: StmtId) -> bool {
        let mut stack = vec![stmt];
        let mut seen_procs = std::collections::BTreeSet::new();
        while let Some(s) = stack.pop() {
            let blocks: Vec<BlockId> = match &self.stmt(s).kind {
                StmtKind::While { .. } => return true,
                StmtKind::If { then_block, else_block, .. } => {
                    std::iter::once(*then_block).chain(*else_block).collect()
                }
                StmtKind::Atomic(b) | StmtKind::NoReorder(b) => vec![*b],
                StmtKind::Call(p) if seen_procs.insert(p.index()) => vec![self.procs[p.index()].body],
                _ => Vec::new(),
            };
            for b in blocks {
                stack.extend(self.block(b).items.iter().copied());
            }
        }
        false
    }

    /// For this program, a candidate of `original` applied ([`Program::apply`]), and the label
    /// of one of its atomic blocks: the locations of `original` of the section's items that
    /// hold a loop, when the block is a section the candidate added. Empty for an atomic block
    /// the user wrote (no transformation changes it) and for a label that names no atomic
    /// block.
    pub fn loops_in_added_section(&self, original: &Program, label: &str) -> Vec<Loc> {
        let Some(stmt) = self.loc(label).and_then(|l| self.stmt_at(l)) else { return Vec::new() };
        let StmtKind::Atomic(body) = self.stmt(stmt).kind else { return Vec::new() };
        if original.loc(label).is_some() {
            return Vec::new();
        }
        self.block(body)
            .items
            .iter()
            .filter(|&&item| self.holds_loop(item))
            .filter_map(|&item| original.loc(&self.stmt(item).label))
            .collect()
    }

    /// A block.
    ///
    /// # Panics
    /// When `id` is not a block of this program.
    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    /// The variables a statement may read, sorted: for a compound statement everything inside
    /// it (through calls, guards included); `lock`/`down` read their variable. Empty for an
    /// unknown id.
    pub fn reads(&self, id: StmtId) -> &[VarIdx] {
        self.facts().stmts.get(id.index()).map_or(&[], |s| &s.reads)
    }

    /// The variables a statement may write, sorted (as [`Program::reads`]).
    pub fn writes(&self, id: StmtId) -> &[VarIdx] {
        self.facts().stmts.get(id.index()).map_or(&[], |s| &s.writes)
    }

    /// The number of simple steps a statement holds (through calls; `lock`/`down` count 2,
    /// the two guards of `if (b)`/`while (b)` count 1 each): what an atomic section around it
    /// costs.
    pub fn weight(&self, id: StmtId) -> u32 {
        self.facts().stmts.get(id.index()).map_or(0, |s| s.weight)
    }

    /// Where the statement waits: `First` when its very first step is a wait (`await`,
    /// `lock`, `down`) and it holds no other, `Inside` when it holds a wait elsewhere (through
    /// calls), `Never` otherwise.
    pub fn waits(&self, id: StmtId) -> Waits {
        self.facts().stmts.get(id.index()).and_then(|s| s.waits).unwrap_or(Waits::Never)
    }

    /// Whether a statement is a preemption point: an `await` (also inside `lock`/`down`) or
    /// an item holding one, through calls.
    pub fn is_preemption_point(&self, id: StmtId) -> bool {
        self.waits(id) != Waits::Never
    }

    /// Whether a statement runs as one step by itself: a simple statement, `lock`, `down`, a
    /// user `atomic` block, or a `noreorder` (or a call) of at most one such step. An item that
    /// is not, of weight 2 or more, may be an added atomic section alone.
    pub fn is_atomic(&self, id: StmtId) -> bool {
        self.facts().stmts.get(id.index()).is_some_and(|s| s.atomic)
    }

    /// [`Program::weight`], [`Program::waits`] and [`Program::is_atomic`] together, as the
    /// space needs them; an item that [holds the threads'
    /// structure](Program::holds_thread_structure) is kept out of added atomic sections.
    pub fn item_info(&self, id: StmtId) -> ItemInfo {
        let info = ItemInfo::new(self.weight(id), self.waits(id), self.is_atomic(id));
        if self.holds_thread_structure(id) {
            info.never_in_section()
        } else {
            info
        }
    }

    /// Whether a statement is or holds (in its branches and bodies, through calls) a statement
    /// of [`Parts::thread_structure`](crate::ir::Parts::thread_structure): one that starts a
    /// thread or waits for one to end. False for an unknown id.
    pub fn holds_thread_structure(&self, id: StmtId) -> bool {
        self.facts().stmts.get(id.index()).is_some_and(|s| s.thread)
    }

    /// Whether every step of a statement is an assignment or a `skip` (through `atomic` and
    /// `noreorder` bodies): such an item may move across an item that holds the threads'
    /// structure; a call, a branch, a loop, a wait, a lock or a check may not.
    fn assigns_only(&self, id: StmtId) -> bool {
        self.facts().stmts.get(id.index()).is_some_and(|s| s.assigns_only)
    }

    /// Whether a block is the body of a `noreorder`.
    fn is_noreorder_body(&self, b: BlockId) -> bool {
        self.blocks
            .get(b.index())
            .and_then(|b| b.parent)
            .and_then(|s| self.stmts.get(s.index()))
            .is_some_and(|s| matches!(s.kind, StmtKind::NoReorder(_)))
    }

    /// Whether a block is closed to atomic sections (inside a user `atomic`, the body of one, or
    /// closed by its frontend, see [`Block::in_atomic`](crate::ir::Block::in_atomic)).
    pub fn is_closed(&self, b: BlockId) -> bool {
        self.blocks.get(b.index()).is_some_and(|block| {
            block.in_atomic
                || block
                    .parent
                    .and_then(|s| self.stmts.get(s.index()))
                    .is_some_and(|s| matches!(s.kind, StmtKind::Atomic(_)))
        })
    }

    /// Whether two statements may trade places (Cwhile's rule): they are sequentially
    /// equivalent in either order (neither writes a variable that the other reads or writes),
    /// they are not both members of one `noreorder` body, and neither is an `assert` that keeps
    /// its place ([`Program::keeps_place`]). A statement does not commute with itself.
    pub fn commutes(&self, a: StmtId, b: StmtId) -> bool {
        if a == b {
            return false;
        }
        let (Some(sa), Some(sb)) = (self.stmts.get(a.index()), self.stmts.get(b.index())) else { return false };
        if sa.block == sb.block && self.is_noreorder_body(sa.block) {
            return false;
        }
        if self.keeps_place(a) || self.keeps_place(b) {
            return false;
        }
        let (ra, wa, rb, wb) = (self.reads(a), self.writes(a), self.reads(b), self.writes(b));
        !(intersects(wa, rb) || intersects(wa, wb) || intersects(wb, ra))
    }

    /// The space of programs reachable by the allowed transformations, in
    /// `paces-constraint`'s vocabulary. Its locations are registered in [`Loc`] order, so the
    /// space's `Loc`s are this program's; its blocks are this program's blocks in [`BlockId`]
    /// order. Every pair of items of a block that does not commute, every pair inside a
    /// `noreorder` body, and every pair of an `assert` and another item of its block is fixed;
    /// so is every pair of an item that [holds the threads'
    /// structure](Program::holds_thread_structure) and another item of its block that holds
    /// it too or is not made of assignments only (a call, a branch, a loop, a wait), and no
    /// added atomic section may hold such an item ([`Program::item_info`]). The threads are
    /// declared in order, by name, each running its body.
    pub fn space(&self) -> Space {
        let mut b = SpaceBuilder::new();
        for (i, name) in self.loc_names.iter().enumerate() {
            // Names are unique in a checked program; a hand-built one with duplicates still
            // gets one location per index (ids must coincide).
            if b.loc(name).is_err() {
                let _ = b.loc(&format!("{name}#{i}"));
            }
        }
        for (i, block) in self.blocks.iter().enumerate() {
            let id = b.block(self.is_closed(BlockId::from_u32(i as u32)));
            for &item in &block.items {
                if let Some(s) = self.stmts.get(item.index()) {
                    let _ = b.item(id, s.loc, self.item_info(item));
                }
            }
            for (x, y) in self.fixed_pairs(BlockId::from_u32(i as u32), &block.items) {
                if let (Some(sx), Some(sy)) = (self.stmts.get(x.index()), self.stmts.get(y.index())) {
                    let _ = b.fix(sx.loc, sy.loc);
                }
            }
        }
        // Declared in order, so the space's thread ids are this program's thread indices; a
        // hand-built program whose threads share a block declares none.
        let bodies: std::collections::BTreeSet<BlockId> = self.threads.iter().map(|t| t.body).collect();
        if bodies.len() == self.threads.len() {
            for thread in &self.threads {
                let _ = b.thread(&thread.name, thread.body);
            }
        }
        b.build().expect("SpaceBuilder::build has no failure case")
    }

    /// Pairs of a block's items whose transitive closure is "does not commute", transitively:
    /// the same order constraints as fixing every pair that does not commute, in a number of
    /// pairs linear in the items' reads and writes.
    ///
    /// Per variable it keeps the last item that writes it and the items that read it since:
    /// an item that reads a variable follows its last writer; an item that writes it follows
    /// its last writer and every reader since. An earlier item that conflicts on the same
    /// variable precedes those through pairs recorded before (two writes of a variable do not
    /// commute, nor a read and a later write), so nothing of the closure is lost; and every
    /// recorded pair is a pair that does not commute. A `noreorder` body fixes its items one
    /// after the other. An `assert` that keeps its place follows every item since the
    /// previous such `assert` and precedes every item up to the next one: linear again, and
    /// through the chain of asserts every item before one stays before it. The items that
    /// hold the threads' structure are chained the same way, with the items other than
    /// assignments between them ([`Program::thread_pairs`]).
    fn fixed_pairs(&self, block: BlockId, items: &[StmtId]) -> Vec<(StmtId, StmtId)> {
        if self.is_noreorder_body(block) {
            return items.windows(2).map(|w| (w[0], w[1])).collect();
        }
        let mut pairs = self.thread_pairs(items);
        let mut since: Vec<StmtId> = Vec::new();
        let mut last_assert: Option<StmtId> = None;
        for &y in items {
            if self.keeps_place(y) {
                pairs.extend(since.drain(..).map(|x| (x, y)));
                pairs.extend(last_assert.map(|a| (a, y)));
                last_assert = Some(y);
            } else {
                since.push(y);
                pairs.extend(last_assert.map(|a| (a, y)));
            }
        }
        #[derive(Default)]
        struct Accesses {
            writer: Option<StmtId>,
            readers: Vec<StmtId>,
        }
        let mut by_var: Vec<Accesses> = Vec::new();
        for &y in items {
            for &v in self.reads(y) {
                if by_var.len() <= v.index() {
                    by_var.resize_with(v.index() + 1, Accesses::default);
                }
                pairs.extend(by_var[v.index()].writer.map(|w| (w, y)));
            }
            for &v in self.writes(y) {
                if by_var.len() <= v.index() {
                    by_var.resize_with(v.index() + 1, Accesses::default);
                }
                let at = &mut by_var[v.index()];
                pairs.extend(at.writer.map(|w| (w, y)));
                pairs.extend(at.readers.drain(..).filter(|&r| r != y).map(|r| (r, y)));
                at.writer = Some(y);
            }
            for &v in self.reads(y) {
                let at = &mut by_var[v.index()];
                if at.writer != Some(y) {
                    at.readers.push(y);
                }
            }
        }
        pairs
    }

    /// Pairs whose closure fixes every item of `items` that holds the threads' structure
    /// against every other such item and every item not made of assignments only: each such
    /// item follows the previous one that holds the structure, and the items of that kind
    /// since precede the next one. Empty when none holds it.
    fn thread_pairs(&self, items: &[StmtId]) -> Vec<(StmtId, StmtId)> {
        let mut pairs = Vec::new();
        let mut last: Option<StmtId> = None;
        let mut since: Vec<StmtId> = Vec::new();
        for &y in items {
            if self.holds_thread_structure(y) {
                pairs.extend(last.map(|x| (x, y)));
                pairs.extend(since.drain(..).map(|x| (x, y)));
                last = Some(y);
            } else if !self.assigns_only(y) {
                pairs.extend(last.map(|x| (x, y)));
                since.push(y);
            }
        }
        pairs
    }
}
