//! Reading a function's body: its statements, declarations and calls as Cwhile text.

use lang_c::ast::{
    BinaryOperator as B, BlockItem, Declaration, Expression, Expression as E, FunctionDefinition, Initializer,
    Statement, UnaryOperator as U,
};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};
use rustc_hash::FxHashSet;

use super::{error, outside, Reader, Scope};
use crate::model::{Marker, K, RET, S};

impl Reader<'_> {
    pub(super) fn body(&mut self, index: usize, f: &Node<FunctionDefinition>) -> Result<(), Diagnostic> {
        let params = {
            let func = &self.model.functions[index];
            func.params.iter().map(|(p, _)| p.clone()).zip(func.param_vars.iter().cloned()).collect()
        };
        let mut scope = Scope {
            function: index,
            locals: FxHashSet::default(),
            params,
            drawn: Vec::new(),
            read_draws: std::cell::Cell::new(0),
        };
        let Statement::Compound(items) = &f.node.statement.node else {
            return Err(outside("a function body that is not a block", self.span(&f.node.statement)));
        };
        let body = self.block(items, &mut scope)?;
        self.model.functions[index].body = body;
        Ok(())
    }

    fn block(&mut self, items: &[Node<BlockItem>], scope: &mut Scope) -> Result<Vec<S>, Diagnostic> {
        let mut out = Vec::new();
        for item in items {
            match &item.node {
                BlockItem::Declaration(d) => {
                    let inits: Vec<&Node<Expression>> = d
                        .node
                        .declarators
                        .iter()
                        .filter_map(|i| match &i.node.initializer.as_ref()?.node {
                            Initializer::Expression(e) => Some(&**e),
                            Initializer::List(_) => None,
                        })
                        .collect();
                    self.drawing(&inits, self.span(d), scope, &mut out, |me, scope, out| me.local_decl(d, scope, out))?;
                }
                BlockItem::StaticAssert(s) => return Err(outside("`_Static_assert`", self.span(s))),
                BlockItem::Statement(s) => self.stmt(s, scope, &mut out)?,
            }
        }
        Ok(out)
    }

    fn local_decl(&mut self, d: &Node<Declaration>, scope: &mut Scope, out: &mut Vec<S>) -> Result<(), Diagnostic> {
        if self.specifiers(&d.node.specifiers)? {
            return Err(outside("a typedef inside a function", self.span(d)));
        }
        for init in &d.node.declarators {
            let decl = &init.node.declarator;
            self.check_derived(decl, false)?;
            if !decl.node.derived.is_empty() {
                return Err(outside("a function declaration inside a function", self.span(decl)));
            }
            let (name, span) = self.declarator_name(decl)?;
            self.check_name(&name, span)?;
            let hides = self.globals.contains_key(&name)
                || self.macros.contains_key(&name)
                || scope.params.contains_key(&name)
                || scope.params.values().any(|v| *v == name);
            if hides {
                return Err(error(
                    "C0106",
                    format!("the local `{name}` hides a global or parameter"),
                    span,
                    "rename it",
                ));
            }
            if !scope.locals.insert(name.clone()) {
                return Err(error(
                    "C0103",
                    format!("the local `{name}` is declared twice in this function"),
                    span,
                    "again here",
                ));
            }
            self.model.functions[scope.function].locals.push((name.clone(), span));
            if let Some(i) = &init.node.initializer {
                let Initializer::Expression(e) = &i.node else {
                    return Err(outside("an initialiser list", self.span(i)));
                };
                let label = self.labels.next(span);
                let value = self.expr(e, scope, false)?;
                out.push(S { label, span: self.span(init), kind: K::Simple(format!("{name} := {value}")) });
            }
        }
        Ok(())
    }

    fn simple(&mut self, span: Span, text: String) -> S {
        S { label: self.labels.next(span), span, kind: K::Simple(text) }
    }

    fn stmt(&mut self, s: &Node<Statement>, scope: &mut Scope, out: &mut Vec<S>) -> Result<(), Diagnostic> {
        let span = self.span(s);
        match &s.node {
            Statement::Compound(items) => {
                let inner = self.block(items, scope)?;
                out.extend(inner);
            }
            Statement::Expression(None) => out.push(self.simple(span, "skip".into())),
            Statement::Expression(Some(e)) => {
                self.drawing(&[e], span, scope, out, |me, scope, out| me.expr_stmt(e, scope, out))?;
            }
            Statement::If(i) if !self.is_choice(&i.node.condition) && nondet_reads(&i.node.condition) > 0 => {
                // The condition's `nondet` is drawn before the `if`, which reads it.
                let c = &i.node.condition;
                self.drawing(&[c], span, scope, out, |me, scope, out| {
                    let label = me.labels.next(span);
                    let cond = me.cond(c, scope)?;
                    scope.drawn.clear();
                    let then = me.branch(&i.node.then_statement, scope)?;
                    let els = match &i.node.else_statement {
                        Some(e) => Some(me.branch(e, scope)?),
                        None => None,
                    };
                    out.push(S { label, span, kind: K::If(cond, then, els) });
                    Ok(())
                })?;
            }
            Statement::If(i) => {
                let label = self.labels.next(span);
                let cond = self.cond(&i.node.condition, scope)?;
                let then = self.branch(&i.node.then_statement, scope)?;
                let els = match &i.node.else_statement {
                    Some(e) => Some(self.branch(e, scope)?),
                    None => None,
                };
                out.push(S { label, span, kind: K::If(cond, then, els) });
            }
            Statement::While(w) if !self.is_choice(&w.node.expression) && nondet_reads(&w.node.expression) > 0 => {
                // `while (x < nondet)`: a value is drawn before the loop, for its first test,
                // and again at the end of every iteration, for the next one.
                let c = &w.node.expression;
                self.drawing(&[c], span, scope, out, |me, scope, out| {
                    let label = me.labels.next(span);
                    let cond = me.cond(c, scope)?;
                    let names = std::mem::take(&mut scope.drawn);
                    let mut body = me.branch(&w.node.statement, scope)?;
                    me.draws(&names, span, &mut body);
                    out.push(S { label, span, kind: K::While(cond, body) });
                    Ok(())
                })?;
            }
            Statement::While(w) => {
                let label = self.labels.next(span);
                let cond = self.cond(&w.node.expression, scope)?;
                let body = self.branch(&w.node.statement, scope)?;
                let busy = body.is_empty() || body.iter().all(|b| matches!(&b.kind, K::Simple(t) if t == "skip"));
                match cond {
                    Some(c) if busy => out.push(S { label, span, kind: K::Simple(format!("await(!({c}))")) }),
                    cond => out.push(S { label, span, kind: K::While(cond, body) }),
                }
            }
            Statement::Return(value) => {
                let values: Vec<&Node<Expression>> = value.iter().map(|e| &**e).collect();
                self.drawing(&values, span, scope, out, |me, scope, out| {
                    let label = me.labels.next(span);
                    let text = match value {
                        None => None,
                        Some(e) => {
                            let v = me.expr(e, scope, false)?;
                            me.model.functions[scope.function].returns = true;
                            Some(format!("{RET} := {v}"))
                        }
                    };
                    out.push(S { label, span, kind: K::Return(text) });
                    Ok(())
                })?;
            }
            Statement::Labeled(_) => return Err(outside("a C label", span)),
            Statement::Switch(_) => return Err(outside("`switch`", span)),
            Statement::DoWhile(_) => return Err(outside("`do ... while`", span)),
            Statement::For(_) => return Err(outside("`for`", span)),
            Statement::Goto(_) => return Err(outside("`goto`", span)),
            Statement::Continue => return Err(outside("`continue`", span)),
            Statement::Break => return Err(outside("`break`", span)),
            Statement::Asm(_) => return Err(outside("inline assembly", span)),
        }
        Ok(())
    }

    /// Reads a statement whose expressions are `exprs` with `read`. When they read the
    /// pseudo-variable `nondet` as a value (`x = nondet + 1;`, `if (nondet == x)`), a
    /// nondeterministic value 0 or 1 (the range of `nondet_int()`, a bound `crate::bounds`
    /// reports) is drawn for each read just before the statement, into a local of the
    /// function (`nondet` for the first read, then `nondet_2`, ..., names the source does not
    /// use), which that read reads; the statement keeps its label.
    fn drawing(
        &mut self,
        exprs: &[&Node<Expression>],
        span: Span,
        scope: &mut Scope,
        out: &mut Vec<S>,
        read: impl FnOnce(&mut Self, &mut Scope, &mut Vec<S>) -> Result<(), Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let reads: usize = exprs.iter().map(|e| nondet_reads(e)).sum();
        if reads == 0 {
            return read(self, scope, out);
        }
        let names: Vec<String> = (0..reads).map(|k| self.draw_local(k)).collect();
        let at = out.len();
        scope.drawn.clone_from(&names);
        scope.read_draws.set(0);
        let result = read(self, scope, out);
        scope.drawn.clear();
        result?;
        let function = &mut self.model.functions[scope.function];
        for name in &names {
            if !function.locals.iter().any(|(n, _)| n == name) {
                function.locals.push((name.clone(), span));
            }
        }
        let mut drawn = Vec::new();
        self.draws(&names, span, &mut drawn);
        out.splice(at..at, drawn);
        Ok(())
    }

    /// Adds to `out` a draw of 0 or 1 into each of `names`: `if (*) { v := 0; } else { v := 1; }`.
    fn draws(&mut self, names: &[String], span: Span, out: &mut Vec<S>) {
        for name in names {
            let zero = self.simple(span, format!("{name} := 0"));
            let one = self.simple(span, format!("{name} := 1"));
            let label = self.labels.next(span);
            out.push(S { label, span, kind: K::If(None, vec![zero], Some(vec![one])) });
        }
    }

    /// The local that the `k`th read of `nondet` in a statement reads: `nondet`, then
    /// `nondet_2`, `nondet_3`, ..., each skipping a name that the source uses anywhere.
    fn draw_local(&self, k: usize) -> String {
        if k == 0 {
            return NONDET.to_owned();
        }
        let used = |name: &str| self.labels.nondet_words.contains(name);
        let mut n = k + 1;
        loop {
            let name = format!("{NONDET}_{n}");
            if !used(&name) {
                return name;
            }
            n += 1;
        }
    }

    fn branch(&mut self, s: &Node<Statement>, scope: &mut Scope) -> Result<Vec<S>, Diagnostic> {
        let mut out = Vec::new();
        self.stmt(s, scope, &mut out)?;
        Ok(out)
    }

    /// A condition: `None` for a nondeterministic choice: `nondet` or `*`, its negation, or
    /// `nondet` compared with a constant (`nondet == 1`, `0 != nondet`), as the paper's tool's
    /// models write it.
    fn cond(&mut self, e: &Node<Expression>, scope: &Scope) -> Result<Option<String>, Diagnostic> {
        if self.is_choice(e) {
            return Ok(None);
        }
        self.expr(e, scope, true).map(Some)
    }

    /// Whether a condition is a nondeterministic choice (see [`Reader::cond`]).
    fn is_choice(&self, e: &Node<Expression>) -> bool {
        let nondet = |e: &Node<Expression>| match &e.node {
            E::Identifier(id) => {
                id.node.name == "nondet" || (id.node.name == "_" && self.prep.stars.contains(&self.span(e).start))
            }
            _ => false,
        };
        match &e.node {
            E::UnaryOperator(u) if u.node.operator.node == U::Negate => self.is_choice(&u.node.operand),
            E::BinaryOperator(b) => {
                let comparison = matches!(
                    b.node.operator.node,
                    B::Equals | B::NotEquals | B::Less | B::LessOrEqual | B::Greater | B::GreaterOrEqual
                );
                let (l, r) = (&b.node.lhs, &b.node.rhs);
                comparison && ((nondet(l) && self.constant(r).is_ok()) || (nondet(r) && self.constant(l).is_ok()))
            }
            _ => nondet(e),
        }
    }

    fn expr_stmt(&mut self, e: &Node<Expression>, scope: &mut Scope, out: &mut Vec<S>) -> Result<(), Diagnostic> {
        let span = self.span(e);
        match &e.node {
            E::Call(call) => self.call_stmt(&call.node.callee, &call.node.arguments, None, span, scope, out),
            E::UnaryOperator(u) => {
                let op = match u.node.operator.node {
                    U::PostIncrement | U::PreIncrement => "+",
                    U::PostDecrement | U::PreDecrement => "-",
                    _ => return Err(outside("this expression as a statement", span)),
                };
                let x = self.target(&u.node.operand, scope)?;
                out.push(self.simple(span, format!("{x} := ({x} {op} 1)")));
                Ok(())
            }
            E::BinaryOperator(b) => {
                let x = self.target(&b.node.lhs, scope)?;
                let op = match b.node.operator.node {
                    B::Assign => {
                        if let E::Call(call) = &b.node.rhs.node {
                            return self.call_stmt(&call.node.callee, &call.node.arguments, Some(x), span, scope, out);
                        }
                        let v = self.expr(&b.node.rhs, scope, false)?;
                        out.push(self.simple(span, format!("{x} := {v}")));
                        return Ok(());
                    }
                    B::AssignPlus => "+",
                    B::AssignMinus => "-",
                    B::AssignMultiply => "*",
                    B::AssignDivide => "/",
                    B::AssignModulo => "%",
                    _ => return Err(outside("this operator as a statement", span)),
                };
                let v = self.expr(&b.node.rhs, scope, false)?;
                out.push(self.simple(span, format!("{x} := ({x} {op} {v})")));
                Ok(())
            }
            _ => Err(outside("this expression as a statement", span)),
        }
    }

    /// The variable an assignment writes.
    fn target(&self, e: &Node<Expression>, scope: &Scope) -> Result<String, Diagnostic> {
        let E::Identifier(id) = &e.node else {
            return Err(outside("assigning to anything but a variable", self.span(e)));
        };
        self.variable(&id.node.name, self.span(e), scope)
    }

    pub(super) fn variable(&self, name: &str, span: Span, scope: &Scope) -> Result<String, Diagnostic> {
        if scope.locals.contains(name) || self.globals.contains_key(name) {
            return Ok(name.to_owned());
        }
        if let Some(v) = scope.params.get(name) {
            return Ok(v.clone());
        }
        if self.macros.contains_key(name) {
            return Err(error("C0107", format!("the macro `{name}` is not a variable"), span, "assigned here"));
        }
        Err(error("C0108", format!("unknown variable `{name}`"), span, "not declared"))
    }

    /// A call statement `f(args);` or `x = f(args);`.
    fn call_stmt(
        &mut self,
        callee: &Node<Expression>,
        args: &[Node<Expression>],
        target: Option<String>,
        span: Span,
        scope: &mut Scope,
        out: &mut Vec<S>,
    ) -> Result<(), Diagnostic> {
        let name = match &callee.node {
            E::Identifier(id) => id.node.name.clone(),
            E::UnaryOperator(u) if u.node.operator.node == U::Indirection && target.is_none() && args.is_empty() => {
                // `(*hook)()`: asserts the hook is set and calls nothing.
                let hook = self.target(&u.node.operand, scope)?;
                out.push(self.simple(span, format!("assert({hook} != 0)")));
                return Ok(());
            }
            _ => return Err(outside("a call through this expression", self.span(callee))),
        };
        if let Some(x) = target {
            if name == "nondet_int" && args.is_empty() {
                let label = self.labels.next(span);
                let zero = self.simple(span, format!("{x} := 0"));
                let one = self.simple(span, format!("{x} := 1"));
                out.push(S { label, span, kind: K::If(None, vec![zero], Some(vec![one])) });
                return Ok(());
            }
            return self.user_call(&name, args, Some(x), span, scope, out);
        }
        let one_arg = |me: &mut Self, scope: &Scope, cond: bool| -> Result<String, Diagnostic> {
            match args {
                [a] => me.expr(a, scope, cond),
                _ => Err(error("C0109", format!("`{name}` takes one argument"), span, "here")),
            }
        };
        let text = match name.as_str() {
            "assume" => format!("await({})", one_arg(self, scope, true)?),
            "__VERIFIER_assume" => format!("assume({})", one_arg(self, scope, true)?),
            "assert" => format!("assert({})", one_arg(self, scope, true)?),
            "assertd" => format!("assertd({})", one_arg(self, scope, true)?),
            "lock" | "unlock" | "down" | "up" => {
                let [a] = args else {
                    return Err(error("C0109", format!("`{name}` takes one argument"), span, "here"));
                };
                let v = self.target(a, scope)?;
                if !self.globals.contains_key(&v) {
                    return Err(error(
                        "C0110",
                        format!("`{name}` needs a global variable"),
                        self.span(a),
                        "not a global",
                    ));
                }
                format!("{name}({v})")
            }
            "atomicBegin" | "atomicEnd" | "noReorderBegin" | "noReorderEnd" => {
                if !args.is_empty() {
                    return Err(error("C0109", format!("`{name}` takes no argument"), span, "here"));
                }
                let m = match name.as_str() {
                    "atomicBegin" => Marker::AtomicBegin,
                    "atomicEnd" => Marker::AtomicEnd,
                    "noReorderBegin" => Marker::NoReorderBegin,
                    _ => Marker::NoReorderEnd,
                };
                let label = if m == Marker::AtomicBegin || m == Marker::NoReorderBegin {
                    self.labels.next(span)
                } else {
                    String::new()
                };
                out.push(S { label, span, kind: K::Marker(m) });
                return Ok(());
            }
            _ => return self.user_call(&name, args, None, span, scope, out),
        };
        out.push(self.simple(span, text));
        Ok(())
    }

    /// A call of a function of the model: parameters set, the call, the return value read,
    /// as one `noreorder` item when there is more than the call.
    fn user_call(
        &mut self,
        name: &str,
        args: &[Node<Expression>],
        target: Option<String>,
        span: Span,
        scope: &mut Scope,
        out: &mut Vec<S>,
    ) -> Result<(), Diagnostic> {
        let Some(&callee) = self.functions.get(name) else {
            return Err(error(
                "C0111",
                format!("call of the unknown function `{name}`"),
                span,
                "not defined in this file",
            ));
        };
        if name == "main" {
            return Err(error("C0112", "`main` cannot be called", span, "here"));
        }
        let f = &self.model.functions[callee];
        if f.params.len() != args.len() {
            let n = f.params.len();
            return Err(error(
                "C0109",
                format!("`{name}` takes {n} argument{}", if n == 1 { "" } else { "s" }),
                span,
                "here",
            ));
        }
        let param_vars = f.param_vars.clone();
        self.model.functions[scope.function].calls.push((name.to_owned(), span));
        let label = self.labels.next(span);
        let mut items = Vec::new();
        for (a, v) in args.iter().zip(&param_vars) {
            let value = self.expr(a, scope, false)?;
            items.push(self.simple(span, format!("{name}.{v} := {value}")));
        }
        if items.is_empty() && target.is_none() {
            out.push(S { label, span, kind: K::Simple(format!("{name}()")) });
            return Ok(());
        }
        items.push(self.simple(span, format!("{name}()")));
        if let Some(x) = target {
            self.model.functions[callee].returns = true;
            items.push(self.simple(span, format!("{x} := {name}.{RET}")));
        }
        out.push(S { label, span, kind: K::NoReorder(items) });
        Ok(())
    }
}

/// The local that holds the value a statement drew for the pseudo-variable `nondet`.
pub(crate) const NONDET: &str = "nondet";

/// How many times an expression names the pseudo-variable `nondet` (in a choice position or
/// not; the caller asks only where a choice is not read).
pub(super) fn nondet_reads(e: &Node<Expression>) -> usize {
    struct Count(usize);
    impl<'ast> lang_c::visit::Visit<'ast> for Count {
        fn visit_identifier(&mut self, id: &'ast lang_c::ast::Identifier, _: &'ast lang_c::span::Span) {
            self.0 += usize::from(id.name == "nondet");
        }
    }
    let mut count = Count(0);
    lang_c::visit::Visit::visit_expression(&mut count, &e.node, &e.span);
    count.0
}
