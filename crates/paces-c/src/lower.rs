//! From the model to a checked Cwhile program: sections grouped, early returns turned into
//! `else` branches, threads from `main`'s calls; then the Cwhile text is checked by the Cwhile
//! frontend, and every span of the result is moved back into the C source.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use paces_cwhile::ir::{Block, Parts, StmtKind, VarScope};
use paces_cwhile::{Diagnostic, Diagnostics, Program, Span};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{Function, Marker, K, RET, S};
use crate::read::{error, Model};

/// A thread of the program.
struct ThreadPlan {
    name: String,
    /// The function whose body it runs.
    function: usize,
    /// Whether it runs the body directly (else it calls the function's procedure).
    direct: bool,
    /// `main`'s call as a statement: the function's name, or a `noreorder` item setting the
    /// parameters (`f.n := 1`) and calling it.
    start: S,
    /// The constant arguments.
    args: Args,
}

/// Each parameter's local and its constant value.
type Args = Vec<(String, i64)>;

/// Lowers the model (its spans point into the C source).
pub(crate) fn lower(mut model: Model, source: &str) -> Result<Program, Diagnostics> {
    let one = |d: Diagnostic| Diagnostics::new(vec![d]).expect("one diagnostic");
    for f in &mut model.functions {
        let body = std::mem::take(&mut f.body);
        f.body = restructure(group(body).map_err(one)?).map_err(one)?;
    }
    let main =
        model.functions.iter().position(|f| f.name == "main").ok_or_else(|| {
            one(error("C0201", "the model has no `main`", Span::default(), "`main` starts the threads"))
        })?;
    let threads = plan_threads(&mut model, main).map_err(one)?;
    let mut emitter = Emitter::default();
    emitter.program(&model, main, &threads);
    let program = paces_cwhile::parse(&emitter.text).map_err(|d| emitter.remap(&d))?;
    Ok(respan(program, &model, &threads, &emitter, source))
}

/// Groups `atomicBegin(); ... atomicEnd();` and `noReorderBegin(); ... noReorderEnd();` in
/// every block into one item.
fn group(items: Vec<S>) -> Result<Vec<S>, Diagnostic> {
    let mut stack: Vec<(S, Vec<S>)> = Vec::new();
    let mut out = Vec::new();
    for s in items {
        let s = deep(s)?;
        match s.kind {
            K::Marker(Marker::AtomicBegin | Marker::NoReorderBegin) => stack.push((s, Vec::new())),
            K::Marker(end @ (Marker::AtomicEnd | Marker::NoReorderEnd)) => {
                let Some((open, body)) = stack.pop() else {
                    return Err(error(
                        "C0202",
                        format!("`{}()` without a matching begin in this block", end.name()),
                        s.span,
                        "here",
                    ));
                };
                let kind = match (&open.kind, end) {
                    (K::Marker(Marker::AtomicBegin), Marker::AtomicEnd) => K::Atomic(body),
                    (K::Marker(Marker::NoReorderBegin), Marker::NoReorderEnd) => K::NoReorder(body),
                    _ => {
                        return Err(error(
                            "C0202",
                            format!("`{}()` closes a different section", end.name()),
                            s.span,
                            "here",
                        ))
                    }
                };
                let item = S { label: open.label, span: Span { start: open.span.start, end: s.span.end }, kind };
                match stack.last_mut() {
                    Some((_, b)) => b.push(item),
                    None => out.push(item),
                }
            }
            _ => match stack.last_mut() {
                Some((_, b)) => b.push(s),
                None => out.push(s),
            },
        }
    }
    if let Some((open, _)) = stack.pop() {
        let K::Marker(m) = open.kind else { unreachable_marker() };
        return Err(error(
            "C0202",
            format!("`{}()` is not closed in the same block", m.name()),
            open.span,
            "opened here",
        ));
    }
    Ok(out)
}

fn unreachable_marker() -> ! {
    unreachable!("only markers are pushed on the section stack")
}

/// Groups the blocks inside a statement.
fn deep(s: S) -> Result<S, Diagnostic> {
    let kind = match s.kind {
        K::If(c, t, e) => K::If(c, group(t)?, e.map(group).transpose()?),
        K::While(c, b) => K::While(c, group(b)?),
        K::Atomic(b) => K::Atomic(group(b)?),
        K::NoReorder(b) => K::NoReorder(group(b)?),
        k => k,
    };
    Ok(S { kind, ..s })
}

/// Whether some path through the items reaches their end without a `return`.
fn falls_through(items: &[S]) -> bool {
    for s in items {
        match &s.kind {
            K::Return(_) => return false,
            K::If(_, t, e) if !falls_through(t) && !e.as_deref().is_none_or(falls_through) => return false,
            _ => {}
        }
    }
    true
}

fn has_return(items: &[S]) -> bool {
    items.iter().any(|s| match &s.kind {
        K::Return(_) => true,
        K::If(_, t, e) => has_return(t) || e.as_deref().is_some_and(has_return),
        K::While(_, b) | K::Atomic(b) | K::NoReorder(b) => has_return(b),
        _ => false,
    })
}

/// Turns early returns into branches: `if (c) return; rest` becomes `if (c) {} else { rest }`,
/// and statements after a `return` in the same block are dropped (they never run).
fn restructure(items: Vec<S>) -> Result<Vec<S>, Diagnostic> {
    let mut out = Vec::new();
    let mut iter = items.into_iter();
    while let Some(s) = iter.next() {
        match s.kind {
            K::Return(value) => {
                if let Some(text) = value {
                    out.push(S { label: s.label, span: s.span, kind: K::Simple(text) });
                }
                return Ok(out);
            }
            K::If(c, t, e) if has_return(&t) || e.as_deref().is_some_and(has_return) => {
                let rest: Vec<S> = iter.by_ref().collect();
                let (t_falls, e_falls) = (falls_through(&t), e.as_deref().is_none_or(falls_through));
                if t_falls && e_falls && !rest.is_empty() {
                    return Err(error(
                        "C0203",
                        "a `return` here would need the statements after this `if` on two paths",
                        s.span,
                        "both branches can reach the statements after the `if`",
                    )
                    .with_note("make one branch end in `return`, or move the statements into the branches"));
                }
                let (mut t, mut e) = (t, e.unwrap_or_default());
                if t_falls {
                    t.extend(rest);
                } else if e_falls {
                    e.extend(rest);
                }
                let else_block = if e.is_empty() { None } else { Some(e) };
                out.push(S {
                    label: s.label,
                    span: s.span,
                    kind: K::If(c, restructure(t)?, else_block.map(restructure).transpose()?),
                });
                return Ok(out);
            }
            K::While(_, ref b) | K::Atomic(ref b) | K::NoReorder(ref b) if has_return(b) => {
                return Err(error(
                    "C0204",
                    "a `return` inside a loop or a section is not supported",
                    s.span,
                    "this block returns",
                ));
            }
            _ => out.push(s),
        }
    }
    Ok(out)
}

trait WithNote {
    fn with_note(self, note: &str) -> Self;
}

impl WithNote for Diagnostic {
    fn with_note(mut self, note: &str) -> Self {
        self.notes.push(note.to_owned());
        self
    }
}

/// Reads `main`: initial values, then one call per thread.
fn plan_threads(model: &mut Model, main: usize) -> Result<Vec<ThreadPlan>, Diagnostic> {
    let body = std::mem::take(&mut model.functions[main].body);
    let globals: FxHashMap<String, usize> =
        model.globals.iter().enumerate().map(|(i, g)| (g.name.clone(), i)).collect();
    let index: FxHashMap<String, usize> =
        model.functions.iter().enumerate().map(|(i, f)| (f.name.clone(), i)).collect();
    // Per thread: its function, `main`'s call, its constant arguments.
    let mut calls: Vec<(usize, S, Args)> = Vec::new();
    for s in body {
        let bad = || {
            error(
                "C0205",
                "`main` may only set globals to constants and then call one function per thread",
                s.span,
                "not allowed in `main`",
            )
        };
        match &s.kind {
            K::Simple(text) if calls.is_empty() && !text.ends_with("()") => {
                let (name, value) = assignment(text).ok_or_else(bad)?;
                let g = *globals.get(name).ok_or_else(bad)?;
                model.globals[g].init = value;
            }
            K::Simple(text) => {
                let name = text.strip_suffix("()").ok_or_else(bad)?;
                let f = *index.get(name).ok_or_else(bad)?;
                calls.push((f, s, Vec::new()));
            }
            K::NoReorder(items) => {
                let Some((call, params)) = items.split_last() else { return Err(bad()) };
                let K::Simple(call) = &call.kind else { return Err(bad()) };
                let name = call.strip_suffix("()").ok_or_else(bad)?;
                let f = *index.get(name).ok_or_else(bad)?;
                let mut args = Vec::new();
                for a in params {
                    let K::Simple(text) = &a.kind else { return Err(bad()) };
                    let (var, value) = assignment(text).ok_or_else(|| {
                        error("C0205", "a thread's arguments in `main` must be constants", a.span, "not a constant")
                    })?;
                    let local = var.strip_prefix(name).and_then(|v| v.strip_prefix('.')).ok_or_else(bad)?;
                    args.push((local.to_owned(), value));
                }
                calls.push((f, s, args));
            }
            _ => return Err(bad()),
        }
    }
    if calls.is_empty() {
        return Err(error(
            "C0206",
            "`main` starts no thread",
            model.functions[main].span,
            "call each thread's function here",
        ));
    }
    let called_elsewhere: FxHashSet<&str> = model
        .functions
        .iter()
        .filter(|f| f.name != "main")
        .flat_map(|f| f.calls.iter().map(|(n, _)| n.as_str()))
        .collect();
    let mut count: FxHashMap<usize, usize> = FxHashMap::default();
    for (f, ..) in &calls {
        *count.entry(*f).or_default() += 1;
    }
    let names: FxHashSet<String> = model.functions.iter().map(|f| f.name.clone()).collect();
    let mut taken: FxHashSet<String> = names.clone();
    let mut seen: FxHashMap<usize, usize> = FxHashMap::default();
    let mut plans = Vec::new();
    for (f, start, args) in calls {
        let name = &model.functions[f].name;
        let direct = count[&f] == 1 && !called_elsewhere.contains(name.as_str());
        let thread = if direct {
            name.clone()
        } else {
            let k = seen.entry(f).or_insert(0);
            *k += 1;
            let mut n = format!("{name}_{k}");
            while taken.contains(&n) {
                n.push('_');
            }
            n
        };
        taken.insert(thread.clone());
        plans.push(ThreadPlan { name: thread, function: f, direct, start, args });
    }
    Ok(plans)
}

/// `NAME := VALUE` with a constant value, as the reader writes it.
fn assignment(text: &str) -> Option<(&str, i64)> {
    let (name, value) = text.split_once(" := ")?;
    let v = value.trim_start_matches("(-").trim_end_matches(')');
    let n: i64 = v.parse().ok()?;
    Some((name, if value.starts_with("(-") { n.wrapping_neg() } else { n }))
}

/// Writes the Cwhile text and remembers which C span each piece comes from.
#[derive(Default)]
struct Emitter {
    text: String,
    /// (start, end) in the text, and the C span.
    segments: Vec<(usize, usize, Span)>,
    /// Statement label to its C span.
    label_spans: FxHashMap<String, Span>,
}

impl Emitter {
    fn program(&mut self, model: &Model, main: usize, threads: &[ThreadPlan]) {
        let vars: Vec<String> = model.globals.iter().map(|g| format!("{} = {}", g.name, g.init)).collect();
        if !vars.is_empty() {
            let _ = writeln!(self.text, "var {};", vars.join(", "));
        }
        // Threads and procedures in the order of their functions in the source, so that
        // locations are numbered in source order; threads that call a procedure stand where
        // `main` is.
        for (i, f) in model.functions.iter().enumerate() {
            if i == main {
                for t in threads.iter().filter(|t| !t.direct) {
                    self.thread(t, model);
                }
            } else if let Some(t) = threads.iter().find(|t| t.direct && t.function == i) {
                self.thread(t, model);
            } else {
                let start = self.text.len();
                let _ = write!(self.text, "proc {} {{", f.name);
                self.locals(f, &[]);
                self.items(&f.body);
                self.text.push_str("}\n");
                self.segments.push((start, self.text.len(), f.span));
            }
        }
    }

    fn thread(&mut self, t: &ThreadPlan, model: &Model) {
        let f = &model.functions[t.function];
        let start = self.text.len();
        let _ = write!(self.text, "thread {} {{", t.name);
        if t.direct {
            self.locals(f, &t.args);
            self.items(&f.body);
        } else {
            self.text.push('\n');
            self.stmt(&t.start);
        }
        self.text.push_str("}\n");
        self.segments.push((start, self.text.len(), f.span));
    }

    /// The function's parameters (with their values from `main` for a thread that runs the
    /// function directly), its return value and its locals, as Cwhile locals.
    fn locals(&mut self, f: &Function, args: &[(String, i64)]) {
        let init = |v: &str| args.iter().find(|(a, _)| a == v).map_or(0, |&(_, x)| x);
        let names: Vec<String> = f
            .param_vars
            .iter()
            .map(|v| format!("{v} = {}", init(v)))
            .chain(f.returns.then(|| RET.to_owned()))
            .chain(f.locals.iter().map(|(n, _)| n.clone()))
            .collect();
        if !names.is_empty() {
            let _ = writeln!(self.text, "local {};", names.join(", "));
        }
    }

    fn items(&mut self, items: &[S]) {
        self.text.push('\n');
        for s in items {
            self.stmt(s);
        }
    }

    fn block(&mut self, items: &[S]) {
        self.text.push('{');
        self.items(items);
        self.text.push('}');
    }

    fn stmt(&mut self, s: &S) {
        self.label_spans.insert(s.label.clone(), s.span);
        let start = self.text.len();
        let _ = write!(self.text, "{}: ", s.label);
        match &s.kind {
            K::Simple(t) => {
                let _ = write!(self.text, "{t};");
            }
            K::If(c, t, e) => {
                let _ = write!(self.text, "if ({}) ", c.as_deref().unwrap_or("*"));
                self.block(t);
                if let Some(e) = e {
                    self.text.push_str(" else ");
                    self.block(e);
                }
            }
            K::While(c, b) => {
                let _ = write!(self.text, "while ({}) ", c.as_deref().unwrap_or("*"));
                self.block(b);
            }
            K::Atomic(b) => {
                self.text.push_str("atomic ");
                self.block(b);
            }
            K::NoReorder(b) => {
                self.text.push_str("noreorder ");
                self.block(b);
            }
            // Grouping and restructuring leave neither.
            K::Return(_) | K::Marker(_) => self.text.push_str("skip;"),
        }
        self.text.push('\n');
        self.segments.push((start, self.text.len(), s.span));
    }

    /// The Cwhile frontend's diagnostics, pointing into the C source.
    fn remap(&self, diags: &Diagnostics) -> Diagnostics {
        let list = diags
            .iter()
            .map(|d| {
                let at = d.primary.start as usize;
                let span = self
                    .segments
                    .iter()
                    .filter(|(s, e, _)| *s <= at && at < *e)
                    .min_by_key(|(s, e, _)| e - s)
                    .map_or(Span::default(), |&(_, _, span)| span);
                let mut d = d.clone();
                d.primary = span;
                d
            })
            .collect();
        Diagnostics::new(list).unwrap_or_else(|| diags.clone())
    }
}

/// Moves every span of the program into the C source.
fn respan(program: Program, model: &Model, threads: &[ThreadPlan], emitter: &Emitter, source: &str) -> Program {
    let mut parts: Parts = program.into_parts();
    for s in &mut parts.stmts {
        s.span = emitter.label_spans.get(&s.label).copied().unwrap_or_default();
    }
    // A call's `noreorder` (its parameters set, the call, its return value read) is one C
    // statement, inside which C could not write an atomic section: it is closed to them.
    let calls: Vec<bool> = parts.blocks.iter().map(|b| is_call(&parts, b)).collect();
    for (b, call) in parts.blocks.iter_mut().zip(&calls) {
        b.in_atomic |= call;
    }
    parts.source_texts = source_texts(&parts, source, &calls);
    parts.source_steps = crate::shown::source_steps(&parts, source, &BTreeMap::new(), &BTreeMap::new());
    let names = threads.iter().map(|t| (t.name.clone(), model.functions[t.function].name.clone()));
    parts.source_threads = crate::shown::thread_names(names);
    let function_of: FxHashMap<&str, &Function> = model.functions.iter().map(|f| (f.name.as_str(), f)).collect();
    let thread_fn: FxHashMap<&str, &Function> =
        threads.iter().map(|t| (t.name.as_str(), &model.functions[t.function])).collect();
    for t in &mut parts.threads {
        t.span = thread_fn.get(t.name.as_str()).map_or(Span::default(), |f| f.span);
    }
    for p in &mut parts.procs {
        p.span = function_of.get(p.name.as_str()).map_or(Span::default(), |f| f.span);
    }
    let globals: FxHashMap<&str, Span> = model.globals.iter().map(|g| (g.name.as_str(), g.span)).collect();
    let owner_names: Vec<String> = parts.threads.iter().map(|t| t.name.clone()).collect();
    let proc_names: Vec<String> = parts.procs.iter().map(|p| p.name.clone()).collect();
    for v in &mut parts.vars {
        let f = match v.scope {
            VarScope::Global => None,
            VarScope::Thread(t) => thread_fn.get(owner_names[t.index()].as_str()).copied(),
            VarScope::Proc(p) => function_of.get(proc_names[p.index()].as_str()).copied(),
        };
        let own = f.and_then(|f| {
            let local = f.locals.iter().find(|(n, _)| *n == v.name).map(|(_, s)| *s);
            let param = f.param_vars.iter().position(|p| *p == v.name).map(|i| f.params[i].1);
            let ret = (f.returns && v.name == RET).then_some(f.span);
            local.or(param).or(ret)
        });
        v.span = own.or_else(|| globals.get(v.name.as_str()).copied()).unwrap_or_default();
    }
    Program::new(parts)
}

/// Whether a block is the `noreorder` of a call with arguments or a used return value: every
/// item of it stands for the call's C statement.
fn is_call(parts: &Parts, b: &Block) -> bool {
    let Some(call) = b.parent.and_then(|s| parts.stmts.get(s.index())) else { return false };
    matches!(call.kind, StmtKind::NoReorder(_))
        && b.items.iter().all(|&i| parts.stmts.get(i.index()).is_some_and(|s| s.span == call.span))
}

/// The C text of each simple statement, shown in traces beside its line: the statement's
/// first line without its `;` (with `...` when it goes on). A call's parameter and return
/// steps (in a block `calls` marks) keep their Cwhile text (`f.n := 1`), which says more than
/// the call's line.
fn source_texts(parts: &Parts, source: &str, calls: &[bool]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for s in &parts.stmts {
        let simple = !matches!(
            s.kind,
            StmtKind::If { .. } | StmtKind::While { .. } | StmtKind::Atomic(_) | StmtKind::NoReorder(_)
        );
        let in_call = calls.get(s.block.index()).copied().unwrap_or(false);
        let Some(text) = source.get(s.span.start as usize..s.span.end as usize) else { continue };
        if !simple || in_call || text.is_empty() {
            continue;
        }
        let mut lines = text.lines();
        let first = lines.next().unwrap_or("").trim();
        let first = first.strip_suffix(';').unwrap_or(first).trim_end();
        let shown = if lines.next().is_some() { format!("{first} ...") } else { first.to_owned() };
        out.insert(s.label.clone(), shown);
    }
    out
}
