//! Loops of the pthread C lowering: `while`, `do` and `for`, and the unrolling of `for` loops
//! that create threads or index arrays.

use std::collections::{BTreeMap, BTreeSet};

use lang_c::ast::{BinaryOperator as B, Expression as E, ForInitializer, Initializer, Statement, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{has_jump, has_return, unsupported, Cx, Kind, Lower, GUARD, MAX_UNROLL, N};

impl<'a> Lower<'a> {
    pub(super) fn while_node(
        &mut self,
        c: Option<&'a Node<lang_c::ast::Expression>>,
        body: &'a Node<Statement>,
        step: Option<&'a Node<lang_c::ast::Expression>>,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        let empty = match &body.node {
            Statement::Expression(None) => true,
            Statement::Compound(items) => items.is_empty(),
            _ => false,
        };
        let label = self.label(span);
        if let Some(c) = c {
            if empty
                && step.is_none()
                && !self.is_nondet_call(c)
                && self.reads(c) <= 1
                && !super::value_calls::has_call(c)
            {
                // A busy wait on at most one shared read: waits until the condition is false.
                let mut cx = Cx { split: false, pre: Vec::new(), span, arith: false };
                let t = self.expr(c, &mut cx)?;
                return Ok(vec![N::Simple(label, format!("await({GUARD}!({t}))"))]);
            }
        }
        if creates_threads(body) {
            return self.rounds(c, body, step, span, 0);
        }
        // `break` and `continue` set the loop's jump flag (1 and 2): the rest of the iteration
        // is skipped, and a break leaves the loop by its condition.
        let jump = if has_jump(body) { Some(self.fresh_local("jump")) } else { None };
        let (cond, pre) = match c {
            Some(c) => self.condition(c, span)?,
            None => ("1".to_owned(), Vec::new()),
        };
        // A `return` inside ends the loop too: its flag joins the condition.
        let returned = if has_return(body) { Some(self.returned_flag()) } else { None };
        let cond = match &jump {
            Some(_) if cond == "*" => {
                return Err(unsupported("`break` or `continue` in a loop on a nondet value", span))
            }
            Some(j) => format!("({j} != 1 && {cond})"),
            None => cond,
        };
        let cond = match &returned {
            Some(_) if cond == "*" => return Err(unsupported("a `return` in a loop on a nondet value", span)),
            Some(r) => format!("({r} == 0 && {cond})"),
            None => cond,
        };
        // A `goto` out of the loop ends it too (`goto_out.rs`).
        let outs = self.out_guards(body);
        let cond = match outs.is_empty() {
            false if cond == "*" => return Err(unsupported("a `goto` out of a loop on a nondet value", span)),
            false => format!("({} && {cond})", outs.join(" && ")),
            true => cond,
        };
        self.frame.loops += 1;
        self.frame.jumps.push(jump.clone());
        let inner = self.block(body);
        self.frame.jumps.pop();
        self.frame.loops -= 1;
        let mut inner = inner?;
        if let Some(j) = &jump {
            let l = self.label(span);
            inner.insert(0, N::Simple(l, format!("{j} := 0")));
        }
        if let Some(st) = step {
            let nodes = self.expr_stmt_nodes(st, span)?;
            let mut guards: Vec<String> = jump.iter().map(|j| format!("{j} != 1")).collect();
            guards.extend(returned.iter().map(|r| format!("{r} == 0")));
            guards.extend(outs.iter().cloned());
            if guards.is_empty() {
                inner.extend(nodes);
            } else {
                let l = self.label(span);
                inner.push(N::If(l, guards.join(" && "), nodes, None));
            }
        }
        let mut out = Vec::new();
        if let Some(j) = &jump {
            let l = self.label(span);
            out.push(N::Simple(l, format!("{j} := 0")));
        }
        if pre.is_empty() {
            out.push(N::While(label, cond, inner));
            return Ok(self.unit(out, span));
        }
        self.frame.temps = 0;
        if let Some(c) = c {
            let (_, again) = self.condition(c, span)?;
            inner.extend(again);
        }
        let w = self.label(span);
        let mut group = pre;
        group.push(N::While(w, cond, inner));
        out.push(N::NoReorder(label, group));
        Ok(self.unit(out, span))
    }

    /// `do BODY while (c);`: `BODY; while (c) { BODY }` (with an empty body, the wait
    /// `while (c);` is). A `break` or `continue` in the body is refused by name.
    pub(super) fn do_while_node(
        &mut self,
        d: &'a Node<lang_c::ast::DoWhileStatement>,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        let (body, c) = (&d.node.statement, &d.node.expression);
        let empty = match &body.node {
            Statement::Expression(None) => true,
            Statement::Compound(items) => items.is_empty(),
            _ => false,
        };
        if empty {
            return self.while_node(Some(c), body, None, span);
        }
        if has_jump(body) {
            return Err(unsupported("`break` or `continue` in a `do ... while`", span));
        }
        let mut nodes = self.block(body)?;
        nodes.extend(self.while_node(Some(c), body, None, span)?);
        Ok(self.unit(nodes, span))
    }

    /// A new local of the current function.
    pub(super) fn fresh_local(&mut self, base: &str) -> String {
        let name = self.fresh_here(base);
        self.frame.locals.push(name.clone());
        name
    }

    /// A loop that creates threads and is not unrolled exactly (no constant bound): its
    /// rounds, from round `done` on, each a copy of the body (and `step`) under the loop's
    /// condition, up to [`super::Options::thread_rounds`]; a path on which the loop would run
    /// once more is cut there (`assume(0)`, as `abort()` is read), a bound the reading reports.
    /// Every run of the model is then the start of a run of the program, so an error it
    /// reaches is real, and "no error" holds within the bound.
    fn rounds(
        &mut self,
        c: Option<&'a Node<lang_c::ast::Expression>>,
        body: &'a Node<Statement>,
        step: Option<&'a Node<lang_c::ast::Expression>>,
        span: Span,
        done: usize,
    ) -> Result<Vec<N>, Diagnostic> {
        if has_jump(body) || has_return(body) {
            return Err(unsupported("`break`, `continue` or `return` in a loop that creates threads", span));
        }
        if self.jumps_out(body) {
            return Err(unsupported("a `goto` out of a loop that creates threads", span));
        }
        self.rounds_cut = true;
        let last = done == self.options.thread_rounds;
        let this = |l: &mut Self| -> Result<Vec<N>, Diagnostic> {
            if last {
                let cut = l.label(span);
                return Ok(vec![N::Simple(cut, "assume(0)".to_owned())]);
            }
            let mut nodes = l.block(body)?;
            if let Some(st) = step {
                nodes.extend(l.expr_stmt_nodes(st, span)?);
            }
            nodes.extend(l.rounds(c, body, step, span, done + 1)?);
            Ok(nodes)
        };
        match c {
            Some(c) if self.const_eval(c).is_none_or(|v| v == 0) => {
                self.frame.temps = 0;
                self.cond_node(c, span, |l| Ok((this(l)?, None)))
            }
            // `while (1)`, `for (;;)`: every round runs.
            _ => this(self),
        }
    }

    pub(super) fn for_node(
        &mut self,
        f: &'a Node<lang_c::ast::ForStatement>,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        self.frame.scopes.push(BTreeMap::new());
        let result = (|| {
            let mut out = Vec::new();
            match &f.node.initializer.node {
                ForInitializer::Empty => {}
                ForInitializer::Expression(e) => out.extend(self.expr_stmt_nodes(e, span)?),
                ForInitializer::Declaration(d) => out.extend(self.local_decl(d)?),
                ForInitializer::StaticAssert(s) => return Err(unsupported("`_Static_assert`", self.span(s))),
            }
            if let Some(unrolled) = self.unroll(f, span)? {
                // The initialiser's step stays (it sets the loop variable), then the copies.
                out.extend(unrolled);
                return Ok(out);
            }
            let cond = f.node.condition.as_deref();
            out.extend(self.while_node(cond, &f.node.statement, f.node.step.as_deref(), span)?);
            // The initialiser shares the loop's line: one item, which a section holds whole.
            Ok(self.unit(out, span))
        })();
        self.frame.scopes.pop();
        result
    }

    /// A `for (i = a; i < b; i++)` loop over a local `i` with constant bounds whose body
    /// creates or joins threads or indexes an array: one copy of the body per iteration, `i`
    /// a constant in each (exact: no bound); then `i := b`.
    pub(super) fn unroll(
        &mut self,
        f: &'a Node<lang_c::ast::ForStatement>,
        span: Span,
    ) -> Result<Option<Vec<N>>, Diagnostic> {
        if has_jump(&f.node.statement) || has_return(&f.node.statement) || self.jumps_out(&f.node.statement) {
            return Ok(None);
        }
        let mut scan = Scan::default();
        lang_c::visit::Visit::visit_statement(&mut scan, &f.node.statement.node, &f.node.statement.span);
        if !(scan.threads || scan.index) {
            return Ok(None);
        }
        let Some((var, from)) = self.loop_start(&f.node.initializer.node) else { return Ok(None) };
        let Some(v) = self.lookup(&var).cloned() else { return Ok(None) };
        if v.shared || !matches!(v.kind, Kind::Scalar(_)) || self.frame.consts.contains_key(&var) {
            return Ok(None);
        }
        let Some(c) = f.node.condition.as_deref() else { return Ok(None) };
        let E::BinaryOperator(b) = &c.node else { return Ok(None) };
        let E::Identifier(id) = &b.node.lhs.node else { return Ok(None) };
        if id.node.name != var {
            return Ok(None);
        }
        let step_ok = match f.node.step.as_deref().map(|s| &s.node) {
            Some(E::UnaryOperator(u)) => {
                matches!(u.node.operator.node, U::PostIncrement | U::PreIncrement)
                    && matches!(&u.node.operand.node, E::Identifier(x) if x.node.name == var)
            }
            _ => false,
        };
        let assigned = scan.assigned.contains(&var);
        let Some(to) = self.const_eval(&b.node.rhs) else {
            if step_ok && !assigned && scan.threads && matches!(b.node.operator.node, B::Less | B::LessOrEqual) {
                // `i < n`, `n` not a constant: rounds with `i` a constant in each (`indexed_rounds.rs`).
                return self.indexed_rounds(c, &f.node.statement, (&var, &v.cw), from, span, 0).map(Some);
            }
            return Ok(None);
        };
        let to = match b.node.operator.node {
            B::Less | B::NotEquals => to,
            B::LessOrEqual => to + 1,
            _ => return Ok(None),
        };
        if step_ok && !assigned && to - from > MAX_UNROLL {
            if let Some(creates) = thread_calls_only(&f.node.statement) {
                return self.prefix(f, &var, from, to, creates, span).map(Some);
            }
        }
        if !step_ok || assigned || to < from || to - from > MAX_UNROLL {
            // A loop that creates threads runs its rounds up to the bound (`Lower::rounds`).
            return Ok(None);
        }
        let mut out = Vec::new();
        for k in from..to {
            self.frame.consts.insert(var.clone(), k);
            let copy = self.block(&f.node.statement);
            self.frame.consts.remove(&var);
            out.extend(copy?);
        }
        let label = self.label(span);
        out.push(N::Simple(label, format!("{} := {to}", v.cw)));
        Ok(Some(out))
    }

    /// A `for (i = a; i < b; i++)` of more than [`MAX_UNROLL`] iterations whose body only
    /// creates threads (or only joins them): its first [`super::Options::thread_rounds`]
    /// copies, `i` a constant in each. After creates, `i := b`: the other iterations' threads
    /// are created but never scheduled, which every run of the program may do for as long as
    /// the model runs. After joins, the path is cut (`assume(0)`): the next join waits for a
    /// thread the model never ran. Each run of the model is the start of a run of the program,
    /// so an error found is real; "no error" is a bound.
    fn prefix(
        &mut self,
        f: &'a Node<lang_c::ast::ForStatement>,
        var: &str,
        from: i64,
        to: i64,
        creates: bool,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        let cw = self.lookup(var).map(|v| v.cw.clone()).unwrap_or_default();
        let k = i64::try_from(self.options.thread_rounds).unwrap_or(i64::MAX).min(to - from);
        self.prefix_cut = true;
        let mut out = Vec::new();
        for i in from..from + k {
            self.frame.consts.insert(var.to_owned(), i);
            let copy = self.block(&f.node.statement);
            self.frame.consts.remove(var);
            out.extend(copy?);
        }
        let label = self.label(span);
        out.push(N::Simple(label, if creates { format!("{cw} := {to}") } else { "assume(0)".to_owned() }));
        Ok(out)
    }

    pub(super) fn loop_start(&self, init: &ForInitializer) -> Option<(String, i64)> {
        match init {
            ForInitializer::Expression(e) => match &e.node {
                E::BinaryOperator(b) if b.node.operator.node == B::Assign => match &b.node.lhs.node {
                    E::Identifier(id) => Some((id.node.name.clone(), self.const_eval(&b.node.rhs)?)),
                    _ => None,
                },
                _ => None,
            },
            ForInitializer::Declaration(d) => {
                let [one] = d.node.declarators.as_slice() else { return None };
                let (name, _) = self.declarator_name(&one.node.declarator).ok()?;
                match &one.node.initializer.as_ref()?.node {
                    Initializer::Expression(e) => Some((name, self.const_eval(e)?)),
                    Initializer::List(_) => None,
                }
            }
            _ => None,
        }
    }
}

/// `Some(true)` when the statement only calls `pthread_create` (as expression statements,
/// in braces or not), `Some(false)` when it only calls `pthread_join`, else `None`.
fn thread_calls_only(body: &Node<Statement>) -> Option<bool> {
    fn calls(s: &Statement, out: &mut Vec<bool>) -> bool {
        match s {
            Statement::Compound(items) => items.iter().all(|i| match &i.node {
                lang_c::ast::BlockItem::Statement(st) => calls(&st.node, out),
                _ => false,
            }),
            Statement::Expression(Some(e)) => match &e.node {
                E::Call(c) => match &c.node.callee.node {
                    E::Identifier(id) if id.node.name == "pthread_create" => {
                        out.push(true);
                        true
                    }
                    E::Identifier(id) if id.node.name == "pthread_join" => {
                        out.push(false);
                        true
                    }
                    _ => false,
                },
                _ => false,
            },
            _ => false,
        }
    }
    let mut kinds = Vec::new();
    if !calls(&body.node, &mut kinds) {
        return None;
    }
    let first = *kinds.first()?;
    kinds.iter().all(|&k| k == first).then_some(first)
}

/// Whether the statement calls `pthread_create`.
fn creates_threads(body: &Node<Statement>) -> bool {
    let mut scan = Scan::default();
    lang_c::visit::Visit::visit_statement(&mut scan, &body.node, &body.span);
    scan.creates
}

/// What a loop body does that asks for unrolling, and the variables it assigns.
#[derive(Default)]
struct Scan {
    /// It creates or joins threads.
    threads: bool,
    /// It creates threads.
    creates: bool,
    /// It indexes an array.
    index: bool,
    /// The names it assigns (`=`, `op=`, `++`, `--`).
    assigned: BTreeSet<String>,
}

impl<'ast> lang_c::visit::Visit<'ast> for Scan {
    fn visit_call_expression(&mut self, c: &'ast lang_c::ast::CallExpression, span: &'ast lang_c::span::Span) {
        if let E::Identifier(id) = &c.callee.node {
            self.threads |= matches!(id.node.name.as_str(), "pthread_create" | "pthread_join");
            self.creates |= id.node.name == "pthread_create";
        }
        lang_c::visit::visit_call_expression(self, c, span);
    }

    fn visit_binary_operator_expression(
        &mut self,
        b: &'ast lang_c::ast::BinaryOperatorExpression,
        span: &'ast lang_c::span::Span,
    ) {
        let op = &b.operator.node;
        self.index |= *op == B::Index;
        let assigns = !matches!(
            op,
            B::Index
                | B::Multiply
                | B::Divide
                | B::Modulo
                | B::Plus
                | B::Minus
                | B::ShiftLeft
                | B::ShiftRight
                | B::Less
                | B::Greater
                | B::LessOrEqual
                | B::GreaterOrEqual
                | B::Equals
                | B::NotEquals
                | B::BitwiseAnd
                | B::BitwiseXor
                | B::BitwiseOr
                | B::LogicalAnd
                | B::LogicalOr
        );
        if let (true, E::Identifier(id)) = (assigns, &b.lhs.node) {
            self.assigned.insert(id.node.name.clone());
        }
        lang_c::visit::visit_binary_operator_expression(self, b, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast lang_c::ast::UnaryOperatorExpression,
        span: &'ast lang_c::span::Span,
    ) {
        let steps = matches!(
            u.operator.node,
            U::PostIncrement | U::PreIncrement | U::PostDecrement | U::PreDecrement | U::Address
        );
        if let (true, E::Identifier(id)) = (steps, &u.operand.node) {
            self.assigned.insert(id.node.name.clone());
        }
        lang_c::visit::visit_unary_operator_expression(self, u, span);
    }
}
