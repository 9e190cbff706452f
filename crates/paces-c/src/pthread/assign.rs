//! Assignments of the pthread C lowering: expression statements, their targets and the
//! temporaries that split shared reads into steps.

use lang_c::ast::{BinaryOperator as B, Expression as E, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{is_literal, unsupported, Cx, Item, Kind, Lower, Target, Ty, Var, BUILTINS, N};
use super::diag::error;
use super::types::promote;

impl<'a> Lower<'a> {
    pub(super) fn expr_stmt_nodes(
        &mut self,
        e: &'a Node<lang_c::ast::Expression>,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        match self.expr_stmt(e, span, false)? {
            Item::Nodes(n) => Ok(n),
            Item::Begin(s) | Item::End(s) => Err(unsupported("an atomic-section marker here", s)),
        }
    }

    /// An expression statement: an assignment, `++`/`--`, or a call.
    pub(super) fn expr_stmt(
        &mut self,
        e: &'a Node<lang_c::ast::Expression>,
        span: Span,
        last: bool,
    ) -> Result<Item, Diagnostic> {
        if let Some(nodes) = self.element_statement(e, span)? {
            return Ok(Item::Nodes(nodes));
        }
        if let Some(nodes) = self.pointer_statement(e, span)? {
            return Ok(Item::Nodes(nodes));
        }
        match &e.node {
            E::BinaryOperator(b) => {
                let Some(op) = super::pointsto::assignment_op(&b.node.operator.node) else {
                    return Err(unsupported("this expression as a statement", self.span(e)));
                };
                let target = self.target(&b.node.lhs)?;
                if op.is_none() {
                    if let E::Call(c) = &b.node.rhs.node {
                        if let E::Identifier(id) = &c.node.callee.node {
                            if self.functions.contains_key(&id.node.name) && !BUILTINS.contains(&id.node.name.as_str())
                            {
                                return self.call(c, span, Some(target), last).map(Item::Nodes);
                            }
                        }
                    }
                }
                self.assign(&target, op, Some(&b.node.rhs), span).map(Item::Nodes)
            }
            E::UnaryOperator(u) => {
                let op = match u.node.operator.node {
                    U::PostIncrement | U::PreIncrement => "+",
                    U::PostDecrement | U::PreDecrement => "-",
                    _ => return Err(unsupported("this expression as a statement", self.span(e))),
                };
                let target = self.target(&u.node.operand)?;
                self.assign(&target, Some(op), None, span).map(Item::Nodes)
            }
            E::Call(c) => self.call_item(c, span, last),
            // `a = 1, b = 2;`: each in turn, one item.
            E::Comma(parts) => {
                let mut nodes = Vec::new();
                for part in parts.iter() {
                    nodes.extend(self.expr_stmt_nodes(part, span)?);
                }
                Ok(Item::Nodes(self.unit(nodes, span)))
            }
            E::Cast(c) => self.expr_stmt(&c.node.expression, span, last),
            // `(void)arg;`: a value dropped, no effect.
            E::Identifier(_) | E::Constant(_) => Ok(Item::Nodes(Vec::new())),
            _ => Err(unsupported("this expression as a statement", self.span(e))),
        }
    }

    /// The variable an assignment writes.
    pub(super) fn target(&mut self, lhs: &'a Node<lang_c::ast::Expression>) -> Result<Target<'a>, Diagnostic> {
        let span = self.span(lhs);
        match &lhs.node {
            E::Identifier(id) => {
                let name = id.node.name.as_str();
                if self.frame.consts.contains_key(name) {
                    return Err(unsupported("an assignment to an unrolled loop's variable", span));
                }
                match self.lookup(name) {
                    Some(Var { cw, kind: Kind::Scalar(ty), shared }) => {
                        Ok(Target { cw: cw.clone(), ty: *ty, shared: *shared, computed: None })
                    }
                    Some(Var { kind: Kind::Struct(_) | Kind::Points(_), .. }) => {
                        Err(unsupported("an assignment to a whole struct or to a pointer to one", span))
                    }
                    Some(_) => Err(unsupported("an assignment to this variable", span)),
                    None => Err(self.undeclared(name, span)),
                }
            }
            E::BinaryOperator(b) if b.node.operator.node == B::Index => {
                if let Some((ty, elems, shared)) = self.computed_array(b) {
                    return Ok(Target { cw: String::new(), ty, shared, computed: Some((&b.node.rhs, elems)) });
                }
                let (cw, kind, shared) = self.element(b, span)?;
                match kind {
                    Kind::Scalar(ty) => Ok(Target { cw, ty, shared, computed: None }),
                    _ => Err(unsupported("an assignment to this element", span)),
                }
            }
            E::UnaryOperator(u) if u.node.operator.node == U::Indirection => match &u.node.operand.node {
                E::Identifier(id) => match self.lookup(&id.node.name) {
                    Some(Var { cw, kind: Kind::Ref(ty), .. }) => {
                        Ok(Target { cw: cw.clone(), ty: *ty, shared: false, computed: None })
                    }
                    // A pointer bound to a global (`pointers.rs`): that global.
                    Some(Var { kind: Kind::Points(target), shared, .. }) => match self.pointee(target, *shared) {
                        Some(Var { cw, kind: Kind::Scalar(ty), shared }) => {
                            Ok(Target { cw: cw.clone(), ty: *ty, shared: *shared, computed: None })
                        }
                        _ => Err(unsupported("an assignment through a pointer to a struct or a mutex", span)),
                    },
                    _ => Err(unsupported("a pointer operation", span)),
                },
                _ => Err(unsupported("a pointer operation", span)),
            },
            _ => Err(unsupported("an assignment to this expression (pointers, structs)", span)),
        }
    }

    /// An array element with a constant index: its Cwhile variable.
    pub(super) fn element(
        &self,
        b: &Node<lang_c::ast::BinaryOperatorExpression>,
        span: Span,
    ) -> Result<(String, Kind, bool), Diagnostic> {
        let E::Identifier(id) = &b.node.lhs.node else { return Err(unsupported("this array access", span)) };
        let var = self.lookup(&id.node.name).ok_or_else(|| self.undeclared(&id.node.name, span))?;
        if let Kind::Structs(_) = var.kind {
            return Err(unsupported("a whole element of an array of structs (not one of its fields)", span));
        }
        let index = self.const_eval(&b.node.rhs).ok_or_else(|| {
            unsupported(
                "an array index that is not a constant (or the variable of an unrolled `for` loop)",
                self.span(&b.node.rhs),
            )
        })?;
        let at = |n: usize| usize::try_from(index).ok().filter(|&i| i < n);
        let bad = || error("C0417", format!("index {index} is out of the array's bounds"), span, "out of bounds");
        match &var.kind {
            Kind::Array(ty, cws) => Ok((cws[at(cws.len()).ok_or_else(bad)?].clone(), Kind::Scalar(*ty), var.shared)),
            Kind::Mutexes(cws) => Ok((cws[at(cws.len()).ok_or_else(bad)?].clone(), Kind::Mutex, true)),
            _ => Err(unsupported("an index into something that is not an array", span)),
        }
    }

    /// `target op= rhs` (or `target = rhs`): its steps.
    pub(super) fn assign(
        &mut self,
        target: &Target<'a>,
        op: Option<&str>,
        rhs: Option<&'a Node<lang_c::ast::Expression>>,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        let label = self.label(span);
        let index_reads = target.computed.as_ref().map_or(0, |(i, _)| self.reads(i));
        let total = rhs.map_or(0, |r| self.reads(r))
            + usize::from(target.shared)
            + usize::from(op.is_some() && target.shared)
            + index_reads;
        let split = total > 1;
        let mut cx = Cx { split, pre: Vec::new(), span, arith: op.is_some() };
        if let Some((index, elems)) = &target.computed {
            let idx = self.expr(index, &mut cx)?;
            let mut value = match rhs {
                Some(r) => self.expr(r, &mut cx)?,
                None => "1".to_owned(),
            };
            if let Some(op) = op {
                // `a[i] += v`: the element read (its own step), then written.
                let old = self.temp();
                let reads: Vec<String> = elems.iter().map(|e| format!("{old} := {e}")).collect();
                let chain = self.pick(&idx, reads, span);
                cx.pre.extend(chain);
                value = format!("({old} {op} {value})");
            }
            let value = self.stored(target.ty, value, rhs, cx.arith);
            let v = self.temp();
            let l = self.label(span);
            cx.pre.push(N::Simple(l, format!("{v} := {value}")));
            let writes: Vec<String> = elems.iter().map(|e| format!("{e} := {v}")).collect();
            let chain = self.pick(&idx, writes, span);
            let mut group = cx.pre;
            group.extend(chain);
            return Ok(vec![N::NoReorder(label, group)]);
        }
        let mut value = match rhs {
            Some(r) => self.expr(r, &mut cx)?,
            None => "1".to_owned(),
        };
        if let Some(op) = op {
            let old = self.read_var(&target.cw, target.shared, &mut cx);
            value = format!("({old} {op} {value})");
        }
        let value = self.stored(target.ty, value, rhs, cx.arith);
        let text = format!("{} := {value}", target.cw);
        Ok(self.group(label, span, cx.pre, text))
    }

    /// `value`, the value of `rhs` (an arithmetic result when `arith`), as a variable of type
    /// `ty` stores it: brought into the type's range where the model's integers may leave it
    /// (a type narrower than `int`, arithmetic below 64 bits, an `unsigned` target, an
    /// `unsigned` value stored in a signed variable: modulo 2^32).
    pub(super) fn stored(&self, ty: Ty, value: String, rhs: Option<&Node<E>>, arith: bool) -> String {
        let from_unsigned = rhs.and_then(|r| self.ty_of(r)).is_some_and(|t| !promote(t).signed);
        let wrap = ty.bits < 32
            || (arith && ty.bits < 64)
            || (!ty.signed && !is_literal(&value))
            || (from_unsigned && ty.signed && ty.bits <= 32);
        if wrap {
            ty.wrap(&value)
        } else {
            value
        }
    }

    /// A statement's steps: its own step alone, or after the steps before it in one
    /// `noreorder` item named by the statement's label.
    pub(super) fn group(&mut self, label: String, span: Span, pre: Vec<N>, text: String) -> Vec<N> {
        if pre.is_empty() {
            self.texts.insert(label.clone(), self.c_text(span));
            return vec![N::Simple(label, text)];
        }
        let last = self.label(span);
        let mut g = pre;
        g.push(N::Simple(last, text));
        vec![N::NoReorder(label, g)]
    }

    /// The C text of a statement: its first line, without its `;`.
    pub(super) fn c_text(&self, span: Span) -> String {
        let s = self.source.get(span.start as usize..span.end as usize).unwrap_or("");
        let first = s.lines().next().unwrap_or("").trim();
        let t = first.strip_suffix(';').unwrap_or(first).trim_end();
        if s.trim_end().lines().nth(1).is_some() {
            format!("{t} ...")
        } else {
            t.to_owned()
        }
    }

    pub(super) fn read_var(&mut self, cw: &str, shared: bool, cx: &mut Cx) -> String {
        if !(shared && cx.split) {
            return cw.to_owned();
        }
        let t = self.temp();
        let label = self.label(cx.span);
        cx.pre.push(N::Simple(label, format!("{t} := {cw}")));
        t
    }

    pub(super) fn temp(&mut self) -> String {
        self.frame.temps += 1;
        let n = self.frame.temps;
        if n > self.frame.temp_names.len() {
            let name = self.fresh_here(&format!("tmp{n}"));
            self.frame.locals.push(name.clone());
            self.frame.temp_names.push(name);
        }
        self.frame.temp_names[n - 1].clone()
    }
}
