//! pthread C to Cwhile: threads, shared steps, synchronisation, the property (the table in
//! `docs/c-frontend.md`, "pthread C"). The Cwhile text is built as a tree of labelled nodes,
//! printed, checked by the Cwhile frontend, and every statement's span moved back into the C
//! source. This file drives the lowering and names things; the lowering's state lives in
//! `common.rs`, and its methods by the construct they read in `decl.rs`, `stmt.rs`,
//! `loops.rs`, `assign.rs`, `expr.rs`, `call.rs` and `thread.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use lang_c::ast::{ExternalDeclaration, TranslationUnit};
use lang_c::span::Node;
use paces_cwhile::ir::StmtKind;
use paces_cwhile::{Diagnostic, Program, Span};

use super::common::{lit, locals, print_node, unsupported, Frame, Instance, Lower, GUARD, KEYWORDS, N};
use super::diag::error;
use super::options::Options;
use super::pre::Prepared;

pub(super) fn lower(
    unit: &TranslationUnit,
    source: &str,
    prep: &Prepared,
    options: &Options,
    thread_local_at: Vec<usize>,
) -> Result<(Program, Vec<String>), Diagnostic> {
    let mut l = Lower {
        source,
        prep,
        options,
        globals: BTreeMap::new(),
        global_order: Vec::new(),
        typedefs: BTreeMap::new(),
        functions: BTreeMap::new(),
        taken: KEYWORDS.iter().map(|s| (*s).to_owned()).collect(),
        lines: BTreeMap::new(),
        line_starts: std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i + 1)).collect(),
        spans: BTreeMap::new(),
        texts: BTreeMap::new(),
        copies: BTreeMap::new(),
        instances: Vec::new(),
        handles: BTreeMap::new(),
        creators: BTreeMap::new(),
        fn_targets: BTreeSet::new(),
        argv: None,
        joined: BTreeSet::new(),
        thread_steps: BTreeSet::new(),
        procs: BTreeMap::new(),
        proc_texts: BTreeMap::new(),
        pending: Vec::new(),
        calls: Vec::new(),
        frame: Frame::default(),
        nondet_used: false,
        params: BTreeMap::new(),
        c_params: BTreeMap::new(),
        by_ref: BTreeSet::new(),
        aborted: None,
        index_cut: false,
        rounds_cut: false,
        prefix_cut: false,
        used: BTreeSet::new(),
        aliases: BTreeMap::new(),
        local_refs: BTreeSet::new(),
        thread_locals: BTreeMap::new(),
        bindings: BTreeMap::new(),
        struct_defs: Vec::new(),
        struct_tags: BTreeMap::new(),
        struct_at: BTreeMap::new(),
        struct_typedefs: BTreeMap::new(),
        thread_local_at,
        thread_local_uses: BTreeMap::new(),
        mutex_types: BTreeMap::new(),
        flow: super::ptrflow::Flow::default(),
        escaped_vars: BTreeMap::new(),
    };
    l.program(unit)
}

impl<'a> Lower<'a> {
    pub(super) fn span<T>(&self, n: &Node<T>) -> Span {
        self.prep.span(n.span.start, n.span.end, self.source)
    }

    pub(super) fn line_of(&self, span: Span) -> usize {
        self.line_starts.partition_point(|&s| s <= span.start as usize)
    }

    /// A fresh label for a step of the C statement at `span`: its line, then `line.2`, ...
    pub(super) fn label(&mut self, span: Span) -> String {
        let line = self.line_of(span);
        let n = self.lines.entry(line).or_insert(0);
        *n += 1;
        let label = if *n == 1 { line.to_string() } else { format!("{line}.{n}") };
        self.spans.insert(label.clone(), span);
        if !self.frame.consts.is_empty() {
            let values: Vec<String> = self.frame.consts.iter().map(|(var, v)| format!("{var} = {v}")).collect();
            self.copies.insert(label.clone(), values.join(", "));
        }
        label
    }

    /// The steps of one C statement as one item: two or more nodes go into a `noreorder`
    /// (closed to atomic sections, see `respan`) named by the first node's label, whose node
    /// takes a fresh label; one node or none stay as they are. A `for` with its initialiser,
    /// a loop with its `break` flag, a `return` with its flag, a declaration of several
    /// variables: C can put an atomic section around the whole statement, never inside it.
    pub(super) fn unit(&mut self, mut nodes: Vec<N>, span: Span) -> Vec<N> {
        if nodes.len() < 2 {
            return nodes;
        }
        let fresh = self.label(span);
        let first = std::mem::replace(nodes[0].label_mut(), fresh.clone());
        if let Some(s) = self.spans.get(&first).copied() {
            self.spans.insert(fresh.clone(), s);
        }
        self.spans.insert(first.clone(), span);
        if let Some(t) = self.texts.remove(&first) {
            self.texts.insert(fresh.clone(), t);
        }
        if self.thread_steps.contains(&first) {
            // The step keeps its mark under its new label; the item named `first` holds it.
            self.thread_steps.insert(fresh);
        }
        vec![N::NoReorder(first, nodes)]
    }

    /// A Cwhile name for a local of the current function: no global's, function's or
    /// keyword's, and no other local's of the function (other functions may use it too, so
    /// that the names of one function never depend on the order functions are read in).
    pub(super) fn fresh_here(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut k = 1;
        while self.taken.contains(&name) || self.frame.locals.contains(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        name
    }

    /// A Cwhile name for `base` not yet taken.
    pub(super) fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut k = 1;
        while self.taken.contains(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        self.taken.insert(name.clone());
        name
    }

    pub(super) fn program(&mut self, unit: &'a TranslationUnit) -> Result<(Program, Vec<String>), Diagnostic> {
        // Names first, so that generated names never take a C name.
        for ext in &unit.0 {
            if let ExternalDeclaration::FunctionDefinition(f) = &ext.node {
                let (name, _) = self.declarator_name(&f.node.declarator)?;
                self.taken.insert(name.clone());
                self.functions.insert(name, f);
                let mut names = super::common::Names::default();
                lang_c::visit::Visit::visit_statement(&mut names, &f.node.statement.node, &f.node.statement.span);
                self.used.extend(names.0);
            }
        }
        self.collect_structs(unit);
        self.flow = super::ptrflow::Flow::of(unit);
        self.addressed_functions(unit);
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::Declaration(d) => self.global_decl(d)?,
                ExternalDeclaration::FunctionDefinition(_) => {}
                ExternalDeclaration::StaticAssert(s) => return Err(unsupported("`_Static_assert`", self.span(s))),
            }
        }
        self.mutex_types(unit)?;
        self.thread_local_users();
        let main = *self.functions.get("main").ok_or_else(|| {
            error("C0411", "the program has no `main`", Span::default(), "`main` is the first thread")
        })?;
        self.frame = Frame { name: "main".into(), is_main: true, is_thread: true, ..Frame::default() };
        let scope = self.thread_local_frame("main");
        self.frame.scopes.push(scope);
        // Returning from `main` ends the program, yet needs no step of its own: the other
        // threads' steps after it could all have been taken before it (the return waits for
        // nothing and changes nothing they read), so every error reachable after it is
        // reachable before it.
        let mut body = self.main_parameters(main)?;
        body.extend(self.body(main)?);
        let main_frame = std::mem::take(&mut self.frame);
        // In the order they are first called (`main`'s calls first): a function that creates
        // a thread is read before a later-called one that joins it.
        while !self.pending.is_empty() {
            let f = self.next_pending();
            self.procedure(&f)?;
        }
        self.recursion()?;
        self.check_creators()?;
        let text = self.emit(&main_frame, &body);
        let text = text.replace(GUARD, &self.aborted.as_ref().map(|f| format!("{f} == 1 || ")).unwrap_or_default());
        let program = paces_cwhile::parse(&text).map_err(|d| {
            let first = d.iter().next().map(|d| d.message.clone()).unwrap_or_default();
            error("C0499", format!("the program's Cwhile model was refused: {first}"), Span::default(), "")
        })?;
        let mut bounds = Vec::new();
        if self.nondet_used {
            let (lo, hi) = self.options.nondet;
            bounds.push(format!("nondeterministic values in {lo}..{hi}"));
        }
        if self.index_cut {
            bounds.push("paths with an array index out of bounds cut".to_owned());
        }
        if self.rounds_cut {
            let k = self.options.thread_rounds;
            bounds.push(format!("loops that create threads cut after {k} round(s)"));
        }
        if self.prefix_cut {
            let k = self.options.thread_rounds;
            bounds.push(format!(
                "long `for` loops of creates run {k} of their threads (the others never scheduled), of joins cut after {k}"
            ));
        }
        Ok((self.respan(program), bounds))
    }

    pub(super) fn respan(&self, program: Program) -> Program {
        let mut parts = program.into_parts();
        for s in &mut parts.stmts {
            if let Some(span) = self.spans.get(&s.label) {
                s.span = *span;
            }
        }
        // Every `noreorder` body is closed to atomic sections: each stands for one C statement
        // (its steps through temporaries, a call, a `for` with its initialiser, see `unit`) or
        // for a created thread's start, and C writes no section inside a statement.
        let closed: Vec<bool> = parts
            .blocks
            .iter()
            .map(|b| {
                b.parent
                    .and_then(|p| parts.stmts.get(p.index()))
                    .is_some_and(|s| matches!(s.kind, StmtKind::NoReorder(_)))
            })
            .collect();
        for (b, c) in parts.blocks.iter_mut().zip(closed) {
            b.in_atomic |= c;
        }
        // Threads and procedures keep no span: the printer orders them by their spans, and a
        // repair that moves a `pthread_create` must not change that order.
        for t in &mut parts.threads {
            t.span = Span::default();
        }
        for p in &mut parts.procs {
            p.span = Span::default();
        }
        // The steps of a created thread's start stand for its `pthread_create`.
        let owners: Vec<Option<Span>> = parts
            .blocks
            .iter()
            .map(|b| match b.owner {
                paces_cwhile::ir::Owner::Thread(t) => {
                    let name = &parts.threads[t.index()].name;
                    self.instances.iter().find(|i| &i.name == name).map(|i| i.span)
                }
                paces_cwhile::ir::Owner::Proc(_) => None,
            })
            .collect();
        for s in &mut parts.stmts {
            if !self.spans.contains_key(&s.label) {
                s.span = owners[s.block.index()].unwrap_or_default();
            }
        }
        parts.source_texts = self.texts.clone();
        parts.source_steps = crate::shown::source_steps(&parts, self.source, &self.thread_places(), &self.copies);
        let names = self.instances.iter().map(|i| (i.name.clone(), i.shown.clone()));
        parts.source_threads = crate::shown::thread_names(names);
        // A created thread's wait for its create is marked too: the checker lets a thread
        // whose create never ran stand as one at its end (it was never started).
        let starts: BTreeSet<String> = self.instances.iter().map(|i| format!("{}_start", i.name)).collect();
        parts.thread_structure = parts
            .stmts
            .iter()
            .enumerate()
            .filter(|(_, s)| self.thread_steps.contains(&s.label) || starts.contains(&s.label))
            .filter_map(|(i, _)| paces_cwhile::ir::StmtId::new(i))
            .collect();
        Program::new(parts)
    }

    /// Fails on a function that calls itself, directly or not.
    pub(super) fn recursion(&self) -> Result<(), Diagnostic> {
        let mut edges: BTreeMap<&str, Vec<(&str, Span)>> = BTreeMap::new();
        for (a, b, s, _) in &self.calls {
            edges.entry(a.as_str()).or_default().push((b.as_str(), *s));
        }
        for start in edges.keys() {
            let mut stack = vec![*start];
            let mut seen = BTreeSet::new();
            while let Some(f) = stack.pop() {
                for (g, span) in edges.get(f).map(Vec::as_slice).unwrap_or(&[]) {
                    if g == start {
                        return Err(unsupported(&format!("recursion (`{start}` calls itself)"), *span));
                    }
                    if seen.insert(*g) {
                        stack.push(g);
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn emit(&self, main: &Frame, body: &[N]) -> String {
        let mut text = String::new();
        let mut globals: Vec<String> = self.global_order.iter().map(|(n, v, _)| format!("{n} = {v}")).collect();
        // Threads in the order of their names, which no repair changes.
        let mut instances: Vec<&Instance> = self.instances.iter().collect();
        instances.sort_by(|a, b| a.name.cmp(&b.name));
        for i in &instances {
            globals.push(format!("{} = 0", i.start));
            if self.joined.contains(&self.instances.iter().position(|x| x.name == i.name).unwrap_or(usize::MAX)) {
                globals.push(format!("{} = 0", i.done));
            }
        }
        if !globals.is_empty() {
            let _ = writeln!(text, "var {};", globals.join(", "));
        }
        let _ = writeln!(text, "thread main {{");
        locals(&mut text, main);
        for n in body {
            print_node(&mut text, n, 1);
        }
        text.push_str("}\n");
        for inst in instances {
            let cw = &self.procs[&inst.function];
            let _ = writeln!(text, "thread {} {{\n  {}_go: noreorder {{", inst.name, inst.name);
            let _ = writeln!(text, "    {}_start: await({} == 1);", inst.name, inst.start);
            if let (Some(v), Some((params, _))) = (inst.arg, self.params.get(&inst.function)) {
                if let Some((p, _)) = params.first() {
                    let _ = writeln!(text, "    {}_arg: {cw}.{p} := {};", inst.name, lit(v));
                }
            }
            let _ = writeln!(text, "    {}_run: {cw}();", inst.name);
            if self.joined.contains(&self.instances.iter().position(|i| i.name == inst.name).unwrap_or(usize::MAX)) {
                let _ = writeln!(text, "    {}_done: {} := 1;", inst.name, inst.done);
            }
            text.push_str("  }\n}\n");
        }
        // Procedures in the order of their names, which no repair changes.
        for p in self.proc_texts.values() {
            text.push_str(p);
        }
        text
    }
}
