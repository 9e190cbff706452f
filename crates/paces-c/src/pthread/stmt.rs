//! Statements of the pthread C lowering: function bodies, blocks, atomic-section markers and
//! conditions.

use std::collections::BTreeMap;

use lang_c::ast::{BlockItem, FunctionDefinition, Statement};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{has_jump, has_return, unsupported, Cx, Item, Lower, Target, GUARD, INT, N};
use super::diag::error;

impl<'a> Lower<'a> {
    /// A function's body: its statements, the final `return` (or `pthread_exit`) read as the
    /// end of the function.
    pub(super) fn body(&mut self, f: &'a Node<FunctionDefinition>) -> Result<Vec<N>, Diagnostic> {
        let Statement::Compound(items) = &f.node.statement.node else {
            return Err(unsupported("this function body", self.span(&f.node.statement)));
        };
        let mut out = Vec::new();
        let mut stack: Vec<(Span, Vec<N>)> = Vec::new();
        self.items(items, &mut out, &mut stack, true)?;
        if let Some((span, _)) = stack.first() {
            return Err(error("C0415", "`__VERIFIER_atomic_begin()` without its end in this block", *span, "here"));
        }
        if let Some(flag) = self.frame.returned.clone() {
            // Procedure locals keep their values between calls: the flag starts each call clear.
            let span = self.span(&f.node.statement);
            let l = self.label(Span { start: span.start, end: span.start.saturating_add(1) });
            out.insert(0, N::Simple(l, format!("{flag} := 0")));
        }
        Ok(out)
    }

    /// Adds a lowered item to a block, grouping atomic sections.
    pub(super) fn push_item(
        &mut self,
        item: Item,
        out: &mut Vec<N>,
        stack: &mut Vec<(Span, Vec<N>)>,
    ) -> Result<(), Diagnostic> {
        match item {
            Item::Nodes(nodes) => match stack.last_mut() {
                Some((_, body)) => body.extend(nodes),
                None => out.extend(nodes),
            },
            Item::Begin(span) => {
                if !stack.is_empty() {
                    return Err(unsupported("a nested `__VERIFIER_atomic_begin()`", span));
                }
                self.frame.atomic += 1;
                stack.push((span, Vec::new()));
            }
            Item::End(span) => {
                let Some((open, body)) = stack.pop() else {
                    return Err(error(
                        "C0415",
                        "`__VERIFIER_atomic_end()` without its begin in this block",
                        span,
                        "here",
                    ));
                };
                self.frame.atomic -= 1;
                let whole = Span { start: open.start, end: span.end };
                let label = self.label(open);
                self.spans.insert(label.clone(), whole);
                out.push(N::Atomic(label, body));
            }
        }
        Ok(())
    }

    pub(super) fn block(&mut self, s: &'a Node<Statement>) -> Result<Vec<N>, Diagnostic> {
        match &s.node {
            Statement::Compound(items) => self.block_items(items),
            _ => self.in_scope(|l, out, stack| {
                let lowered = l.stmt(s, false)?;
                l.push_item(lowered, out, stack)
            }),
        }
    }

    /// The nodes of `items` as a block of their own (a scope, every atomic section closed).
    pub(super) fn block_items(&mut self, items: &'a [Node<BlockItem>]) -> Result<Vec<N>, Diagnostic> {
        self.in_scope(|l, out, stack| l.items(items, out, stack, false))
    }

    /// The nodes `fill` lowers in a scope of their own; an error when an atomic section it
    /// opened is left open.
    fn in_scope(
        &mut self,
        fill: impl FnOnce(&mut Self, &mut Vec<N>, &mut Vec<(Span, Vec<N>)>) -> Result<(), Diagnostic>,
    ) -> Result<Vec<N>, Diagnostic> {
        self.frame.scopes.push(BTreeMap::new());
        let mut out = Vec::new();
        let mut stack = Vec::new();
        let result = fill(self, &mut out, &mut stack).and_then(|()| match stack.first() {
            Some((span, _)) => {
                Err(error("C0415", "`__VERIFIER_atomic_begin()` without its end in this block", *span, "here"))
            }
            None => Ok(()),
        });
        self.frame.scopes.pop();
        result.map(|()| out)
    }

    /// The items of a block; after an item that may `break` or `continue`, the rest run only
    /// when it did not (`if (jump == 0) { ... }`).
    pub(super) fn items(
        &mut self,
        items: &'a [Node<BlockItem>],
        out: &mut Vec<N>,
        stack: &mut Vec<(Span, Vec<N>)>,
        top: bool,
    ) -> Result<(), Diagnostic> {
        if let Some(k) = self.goto_loop_start(items) {
            // `L: ...; goto L;` at the block's end: the items before `L`, then the loop.
            if let Some(i) = items[..k].iter().find(|i| matches!(&i.node, BlockItem::Statement(s) if has_return(s))) {
                return Err(unsupported("a `return` before a loop closed by a `goto`", self.span(i)));
            }
            self.items(&items[..k], out, stack, false)?;
            let span = self.span(&items[k]);
            let nodes = self.goto_loop(&items[k..items.len() - 1], span)?;
            return self.push_item(Item::Nodes(nodes), out, stack);
        }
        if let Some(jump) = self.forward_goto(items) {
            return self.forward_items(items, jump, out, stack, top);
        }
        if let Some(jump) = self.goto_out(items) {
            return self.out_items(items, jump, out, stack, top);
        }
        for (k, item) in items.iter().enumerate() {
            if self.end_before_return(items, k, !stack.is_empty()) {
                // Its section closes at the enclosing block's end (`atomic_exit.rs`).
                continue;
            }
            let last = top && k + 1 == items.len();
            let lowered = self.block_item(item, last)?;
            self.push_item(lowered, out, stack)?;
            let mut guards = Vec::new();
            if let BlockItem::Statement(s) = &item.node {
                if let (true, Some(Some(flag))) = (has_jump(s), self.frame.jumps.last()) {
                    guards.push(format!("{flag} == 0"));
                }
                if let (true, Some(flag)) = (has_return(s), &self.frame.returned) {
                    guards.push(format!("{flag} == 0"));
                }
                guards.extend(self.out_guards(s));
            }
            if let (false, Some(next)) = (guards.is_empty(), items.get(k + 1)) {
                if self.guarded_past_end(&items[k + 1..], &guards.join(" && "), out, stack, top)? {
                    return Ok(());
                }
                let span = self.span(next);
                let mut rest = Vec::new();
                let mut inner = Vec::new();
                self.items(&items[k + 1..], &mut rest, &mut inner, top)?;
                if let Some((span, _)) = inner.first() {
                    return Err(error(
                        "C0415",
                        "`__VERIFIER_atomic_begin()` without its end in this block",
                        *span,
                        "here",
                    ));
                }
                let l = self.label(span);
                self.push_item(Item::Nodes(vec![N::If(l, guards.join(" && "), rest, None)]), out, stack)?;
                return Ok(());
            }
        }
        Ok(())
    }

    pub(super) fn block_item(&mut self, item: &'a Node<BlockItem>, last: bool) -> Result<Item, Diagnostic> {
        match &item.node {
            BlockItem::Declaration(d) => self.local_decl(d).map(Item::Nodes),
            BlockItem::Statement(s) => self.stmt(s, last),
            BlockItem::StaticAssert(s) => Err(unsupported("`_Static_assert`", self.span(s))),
        }
    }

    pub(super) fn stmt(&mut self, s: &'a Node<Statement>, last: bool) -> Result<Item, Diagnostic> {
        let span = self.span(s);
        self.frame.temps = 0;
        let nodes = match &s.node {
            Statement::Labeled(l) => return self.stmt(&l.node.statement, last),
            Statement::Compound(_) => self.block(s)?,
            Statement::Expression(None) => Vec::new(),
            Statement::Expression(Some(e)) => return self.expr_stmt(e, span, last),
            Statement::If(i)
                if self.frame.atomic == 0 && is_check(&i.node) && !self.is_nondet_call(&i.node.condition) =>
            {
                return Ok(Item::Nodes(self.check(&i.node.condition, span)?));
            }
            Statement::If(i) => {
                let then = &i.node.then_statement;
                let els = i.node.else_statement.as_deref();
                self.cond_node(&i.node.condition, span, |l| {
                    let t = l.block(then)?;
                    let e = match els {
                        Some(e) => Some(l.block(e)?),
                        None => None,
                    };
                    Ok((t, e))
                })?
            }
            Statement::While(w) => self.while_node(Some(&w.node.expression), &w.node.statement, None, span)?,
            Statement::For(f) => self.for_node(f, span)?,
            Statement::Return(e) => {
                let mut nodes = match (e, self.frame.result.clone()) {
                    (Some(e), Some(r)) => {
                        let ty = self.frame.result_ty.unwrap_or(INT);
                        let target = Target { cw: r, ty, shared: false, computed: None };
                        self.assign(&target, None, Some(e), span)?
                    }
                    // `return f();` in `main` or a thread: the call runs, its value is unused.
                    (Some(e), None) if super::value_calls::has_call(e) => {
                        self.expr_stmt_nodes(super::common::strip_casts(e), span)?
                    }
                    _ => Vec::new(),
                };
                if !last {
                    // The rest of the function runs only while the flag is clear, and every
                    // loop around the `return` ends (`Lower::while_node`).
                    let flag = self.returned_flag();
                    let l = self.label(span);
                    nodes.push(N::Simple(l, format!("{flag} := 1")));
                }
                self.unit(nodes, span)
            }
            Statement::DoWhile(d) => self.do_while_node(d, span)?,
            Statement::Switch(sw) => self.switch_node(sw, span)?,
            Statement::Goto(target) => return self.goto_item(&target.node.name, span),
            Statement::Break | Statement::Continue => {
                let value = if matches!(s.node, Statement::Break) { 1 } else { 2 };
                let Some(Some(flag)) = self.frame.jumps.last().cloned() else {
                    return Err(unsupported("`break` or `continue` outside a loop", span));
                };
                let l = self.label(span);
                self.texts.insert(l.clone(), self.c_text(span));
                vec![N::Simple(l, format!("{flag} := {value}"))]
            }
            Statement::Asm(_) => return Err(unsupported("inline assembly", span)),
        };
        Ok(Item::Nodes(nodes))
    }

    /// The current function's flag that a `return` before its end sets.
    pub(super) fn returned_flag(&mut self) -> String {
        if let Some(f) = &self.frame.returned {
            return f.clone();
        }
        let f = self.fresh_local("returned");
        self.frame.returned = Some(f.clone());
        f
    }

    /// An `if` on `c`: `*` for a nondet condition; with the reads of a condition that reads
    /// shared variables more than once as steps before it, in one `noreorder` item.
    pub(super) fn cond_node(
        &mut self,
        c: &'a Node<lang_c::ast::Expression>,
        span: Span,
        branches: impl FnOnce(&mut Self) -> Result<(Vec<N>, Option<Vec<N>>), Diagnostic>,
    ) -> Result<Vec<N>, Diagnostic> {
        let label = self.label(span);
        let (cond, pre) = self.condition(c, span)?;
        let (t, e) = branches(self)?;
        if pre.is_empty() {
            return Ok(vec![N::If(label, cond, t, e)]);
        }
        let inner = self.label(span);
        let mut group = pre;
        group.push(N::If(inner, cond, t, e));
        Ok(vec![N::NoReorder(label, group)])
    }

    /// `if (c) reach_error();` read as `assert(!(c))`, a check that keeps its place (see
    /// `is_check`). Only outside atomic blocks, whose items never move anyway, and where an
    /// `abort()` after the error sets a flag that later waits read.
    fn check(&mut self, c: &'a Node<lang_c::ast::Expression>, span: Span) -> Result<Vec<N>, Diagnostic> {
        let l = self.label(span);
        let split = self.reads(c) > 1;
        let mut cx = Cx { split, pre: Vec::new(), span, arith: false };
        let t = self.expr(c, &mut cx)?;
        Ok(self.group(l, span, cx.pre, format!("assert({GUARD}(!({t})))")))
    }

    /// A condition's text and the steps before it.
    pub(super) fn condition(
        &mut self,
        c: &'a Node<lang_c::ast::Expression>,
        span: Span,
    ) -> Result<(String, Vec<N>), Diagnostic> {
        if self.is_nondet_call(c) {
            return Ok(("*".into(), Vec::new()));
        }
        let split = self.reads(c) > 1;
        let mut cx = Cx { split, pre: Vec::new(), span, arith: false };
        let text = self.expr(c, &mut cx)?;
        Ok((text, cx.pre))
    }
}

/// Whether a statement only reaches the error: `reach_error()` or `__VERIFIER_error()`
/// (labelled or not, in braces or not), then optionally `abort()` or `exit(n)`.
pub(super) fn only_reaches_error(s: &Node<Statement>) -> bool {
    let mut run = Vec::new();
    flat(s, &mut run)
        && matches!(run.first(), Some(s) if calls(s, &["reach_error", "__VERIFIER_error"]))
        && match run.len() {
            1 => true,
            2 => calls(run[1], &["abort", "exit"]),
            _ => false,
        }
}

/// Whether an `if` is an assertion as SV-COMP writes it: its branch only reaches the error
/// (`reach_error()` or `__VERIFIER_error()`, labelled or not, in braces or not, optionally
/// followed by `abort()` or `exit(n)`), and it has no `else` or one that does nothing.
fn is_check(i: &lang_c::ast::IfStatement) -> bool {
    let mut els = Vec::new();
    let idle = i.else_statement.as_deref().is_none_or(|e| flat(e, &mut els) && els.is_empty());
    only_reaches_error(&i.then_statement) && idle
}

/// Puts the statements `s` runs into `out`: labels dropped, braces opened, empty statements
/// left out; `false` when a block declares something.
fn flat<'s>(s: &'s Node<Statement>, out: &mut Vec<&'s Node<Statement>>) -> bool {
    match &s.node {
        Statement::Labeled(l) => flat(&l.node.statement, out),
        Statement::Compound(items) => items.iter().all(|item| match &item.node {
            BlockItem::Statement(s) => flat(s, out),
            _ => false,
        }),
        Statement::Expression(None) => true,
        _ => {
            out.push(s);
            true
        }
    }
}

/// Whether `s` is a call of one of `names`.
fn calls(s: &Node<Statement>, names: &[&str]) -> bool {
    let Statement::Expression(Some(e)) = &s.node else { return false };
    let lang_c::ast::Expression::Call(c) = &e.node else { return false };
    matches!(&c.node.callee.node, lang_c::ast::Expression::Identifier(id) if names.contains(&id.node.name.as_str()))
}
