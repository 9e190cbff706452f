//! Expressions of the pthread C lowering: C expressions to Cwhile expressions, with the steps
//! their shared reads and nondeterministic values take.

use lang_c::ast::{BinaryOperator as B, Expression as E, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{lit, unsupported, Cx, Kind, Lower, Target, Ty, Var, BUILTINS, N};
use super::diag::error;
use super::types::{common, promote};

impl<'a> Lower<'a> {
    pub(super) fn is_nondet_call(&self, e: &Node<lang_c::ast::Expression>) -> bool {
        matches!(&e.node, E::Call(c) if matches!(&c.node.callee.node, E::Identifier(id) if id.node.name.starts_with("__VERIFIER_nondet_")))
    }

    /// How many shared reads an expression makes.
    pub(super) fn reads(&self, e: &Node<lang_c::ast::Expression>) -> usize {
        if let Some(n) = self.place_reads(e) {
            return n;
        }
        match &e.node {
            E::Identifier(id) => usize::from(
                !self.frame.consts.contains_key(&id.node.name) && self.lookup(&id.node.name).is_some_and(|v| v.shared),
            ),
            E::UnaryOperator(u) => self.reads(&u.node.operand),
            E::Cast(c) => self.reads(&c.node.expression),
            E::BinaryOperator(b) if b.node.operator.node == B::Index => {
                let array = match &b.node.lhs.node {
                    E::Identifier(id) => usize::from(self.lookup(&id.node.name).is_some_and(|v| v.shared)),
                    _ => 0,
                };
                array + self.reads(&b.node.rhs)
            }
            E::BinaryOperator(b) => self.reads(&b.node.lhs) + self.reads(&b.node.rhs),
            E::Call(c) => c.node.arguments.iter().map(|a| self.reads(a)).sum(),
            _ => 0,
        }
    }

    pub(super) fn expr(&mut self, e: &'a Node<lang_c::ast::Expression>, cx: &mut Cx) -> Result<String, Diagnostic> {
        let span = self.span(e);
        if let Some(v) = self.place_read(e, cx)? {
            return Ok(v);
        }
        match &e.node {
            // A function's address is a function pointer's value (the arm below).
            E::UnaryOperator(u) if u.node.operator.node == U::Address && self.function_address(e).is_none() => {
                self.pointer_value(e, cx)
            }
            E::Identifier(id) => self.identifier(&id.node.name, span, cx),
            E::Constant(c) => self.constant(c).map(lit),
            E::UnaryOperator(_) if self.function_address(e).is_some() => {
                Ok(self.function_address(e).map(lit).unwrap_or_default())
            }
            E::UnaryOperator(u) => self.unary(u, span, cx),
            E::Cast(c) => {
                let ty = self.cast_type(&c.node.type_name)?;
                let from_unsigned = self.ty_of(&c.node.expression).is_some_and(|t| !promote(t).signed);
                let v = self.expr(&c.node.expression, cx)?;
                Ok(match ty {
                    Some(ty) if ty.bits < 32 || !ty.signed || (from_unsigned && ty.bits <= 32) => ty.wrap(&v),
                    _ => v,
                })
            }
            E::BinaryOperator(b) if self.frame.logic == 0 && Self::is_assigned_pthread_value(b) => {
                self.assigned_pthread_value(b, cx)
            }
            E::BinaryOperator(b) => self.binary(b, span, cx),
            E::Call(c) if self.is_nondet_call(e) => Ok(self.nondet(c, cx)),
            E::Call(c)
                if self.frame.logic == 0
                    && (matches!(&c.node.callee.node, E::Identifier(id)
                        if self.functions.contains_key(&id.node.name) && !BUILTINS.contains(&id.node.name.as_str()))
                        || self.called_pointer(c).is_some()) =>
            {
                // A user function's call inside an expression runs before the statement, its
                // result in a temporary (never under `&&` or `||`, which may skip it).
                let t = self.temp();
                let target = Target { cw: t.clone(), ty: Ty { bits: 64, signed: true }, shared: false, computed: None };
                let nodes = self.call(c, cx.span, Some(target), false)?;
                cx.pre.extend(nodes);
                Ok(t)
            }
            E::Call(c) if self.frame.logic == 0 && Self::is_pthread_value(&c.node) => self.pthread_value(c, cx),
            E::Call(c) if self.frame.logic == 0 && self.is_sync_builtin(&c.node) => self.sync_builtin(c, cx),
            E::Call(c) if self.is_argv_number(&c.node) => self.argv_value(c, span, cx),
            E::Call(c) => Err(call_error(c, span)),
            E::StringLiteral(_) => Err(unsupported("a string", span)),
            E::Member(_) => Err(unsupported("a struct member", span)),
            E::Conditional(c) if self.frame.logic == 0 => self.conditional(c, cx),
            E::Conditional(_) => Err(unsupported("`?:` under `&&` or `||`", span)),
            E::Comma(_) => Err(unsupported("the comma operator", span)),
            E::SizeOfTy(_) | E::SizeOfVal(_) | E::AlignOf(_) => Err(unsupported("`sizeof`", span)),
            _ => Err(unsupported("this expression", span)),
        }
    }

    /// `c ? a : b`, as a call is: before the statement, `if (c) { t := a } else { t := b }`
    /// into a temporary (each branch with the reads of its own value), then `t`. Never under
    /// `&&` or `||`, which may skip it (a branch may divide by zero).
    fn conditional(
        &mut self,
        c: &'a Node<lang_c::ast::ConditionalExpression>,
        cx: &mut Cx,
    ) -> Result<String, Diagnostic> {
        let test = self.expr(&c.node.condition, cx)?;
        let t = self.temp();
        let branch = |l: &mut Self, e: &'a Node<lang_c::ast::Expression>| -> Result<Vec<N>, Diagnostic> {
            let mut inner = Cx { split: cx.split, pre: Vec::new(), span: cx.span, arith: false };
            let v = l.expr(e, &mut inner)?;
            let label = l.label(cx.span);
            inner.pre.push(N::Simple(label, format!("{t} := {v}")));
            Ok(inner.pre)
        };
        let then = branch(self, &c.node.then_expression)?;
        let els = branch(self, &c.node.else_expression)?;
        let label = self.label(cx.span);
        cx.pre.push(N::If(label, format!("{test} != 0"), then, Some(els)));
        cx.arith = true;
        Ok(t)
    }

    /// The value of the name `n`.
    fn identifier(&mut self, n: &str, span: Span, cx: &mut Cx) -> Result<String, Diagnostic> {
        if let Some(v) = self.frame.consts.get(n) {
            return Ok(lit(*v));
        }
        match n {
            "true" => return Ok("1".into()),
            "false" | "NULL" => return Ok("0".into()),
            _ => {}
        }
        match self.lookup(n).cloned() {
            Some(Var { cw, kind: Kind::Scalar(_) | Kind::Ptr(..), shared }) => Ok(self.read_var(&cw, shared, cx)),
            Some(Var { kind: Kind::Struct(_) | Kind::Points(_), .. }) => {
                Err(unsupported(&format!("`{n}`, a whole struct or a pointer to one, as a value,"), span))
            }
            Some(_) => Err(unsupported("this variable in an expression", span)),
            None => match self.functions.keys().position(|f| f == n) {
                Some(k) => Ok(lit(k as i64 + 1)), // a function's number (`fn_pointers.rs`)
                None => Err(self.undeclared(n, span)),
            },
        }
    }

    /// A unary operator's expression.
    fn unary(
        &mut self,
        u: &'a Node<lang_c::ast::UnaryOperatorExpression>,
        span: Span,
        cx: &mut Cx,
    ) -> Result<String, Diagnostic> {
        let op = u.node.operator.node.clone();
        match op {
            U::Minus | U::Complement => {
                cx.arith = true;
                let ty = self.ty_of(&u.node.operand).map(promote);
                if ty.is_some_and(|t| !t.signed && t.bits > 32) {
                    return Err(unsupported("64-bit `unsigned` arithmetic or comparison", span));
                }
                let v = self.expr(&u.node.operand, cx)?;
                let text = if op == U::Minus { format!("(-{v})") } else { format!("((-{v}) - 1)") };
                // `-u` and `~u` of an `unsigned` value wrap modulo 2^32.
                Ok(match ty {
                    Some(t) if !t.signed => t.wrap(&text),
                    _ => text,
                })
            }
            U::Plus => self.expr(&u.node.operand, cx),
            U::Negate => Ok(format!("(!{})", self.expr(&u.node.operand, cx)?)),
            U::Indirection => match &u.node.operand.node {
                E::Identifier(id) => match self.lookup(&id.node.name) {
                    Some(Var { cw, kind: Kind::Ref(_), .. }) => Ok(cw.clone()),
                    Some(Var { kind: Kind::Points(target), shared, .. }) => {
                        match self.pointee(target, *shared).cloned() {
                            Some(Var { cw, kind: Kind::Scalar(_), shared }) => Ok(self.read_var(&cw, shared, cx)),
                            _ => Err(unsupported("a pointer operation", span)),
                        }
                    }
                    _ => Err(unsupported("a pointer operation", span)),
                },
                _ => Err(unsupported("a pointer operation", span)),
            },
            U::Address => Err(unsupported("a pointer operation", span)),
            _ => Err(unsupported("`++`/`--` inside an expression", span)),
        }
    }

    /// A binary operator's expression (an array element's read among them).
    fn binary(
        &mut self,
        b: &'a Node<lang_c::ast::BinaryOperatorExpression>,
        span: Span,
        cx: &mut Cx,
    ) -> Result<String, Diagnostic> {
        let op = match b.node.operator.node {
            B::Index => {
                if let Some((_, elems, _)) = self.computed_array(b) {
                    let idx = self.expr(&b.node.rhs, cx)?;
                    let t = self.temp();
                    let writes: Vec<String> = elems.iter().map(|e| format!("{t} := {e}")).collect();
                    let chain = self.pick(&idx, writes, cx.span);
                    cx.pre.extend(chain);
                    return Ok(t);
                }
                let (cw, kind, shared) = self.element(b, span)?;
                return match kind {
                    Kind::Scalar(_) => Ok(self.read_var(&cw, shared, cx)),
                    _ => Err(unsupported("this element in an expression", span)),
                };
            }
            B::Multiply => "*",
            B::Divide => "/",
            B::Modulo => "%",
            B::Plus => "+",
            B::Minus => "-",
            B::Less => "<",
            B::Greater => ">",
            B::LessOrEqual => "<=",
            B::GreaterOrEqual => ">=",
            B::Equals => "==",
            B::NotEquals => "!=",
            B::LogicalAnd => "&&",
            B::LogicalOr => "||",
            _ => {
                return Err(unsupported(
                    "this operator (bitwise operators, shifts and assignments inside expressions)",
                    span,
                ))
            }
        };
        if matches!(op, "*" | "/" | "%" | "+" | "-") {
            cx.arith = true;
        }
        if !matches!(op, "==" | "!=" | "&&" | "||")
            && (self.pointer_valued(&b.node.lhs) || self.pointer_valued(&b.node.rhs))
        {
            return Err(unsupported("arithmetic or an ordering on a pointer", span));
        }
        let logic = usize::from(matches!(op, "&&" | "||"));
        // C's usual arithmetic conversions (`types.rs`): in an `unsigned` operation a signed
        // operand is converted modulo 2^32 first and `+`, `-`, `*` wrap modulo 2^32.
        let (lt, rt) = (self.ty_of(&b.node.lhs), self.ty_of(&b.node.rhs));
        let unsigned = match (logic, lt, rt) {
            (1, _, _) => None,
            (_, Some(l), Some(r)) => Some(common(l, r)).filter(|t| !t.signed),
            (_, l, r) if [l, r].into_iter().flatten().any(|t| !promote(t).signed) => {
                return Err(unsupported("an `unsigned` operand with one of a type the frontend does not know", span));
            }
            _ => None,
        };
        if unsigned.is_some_and(|t| t.bits > 32) {
            return Err(unsupported("64-bit `unsigned` arithmetic or comparison", span));
        }
        if logic == 1 && self.frame.logic == 0 && (self.needs_steps(&b.node.lhs) || self.needs_steps(&b.node.rhs)) {
            return self.short_circuit(b, op, cx);
        }
        self.frame.logic += logic;
        let l = self.expr(&b.node.lhs, cx);
        let r = self.expr(&b.node.rhs, cx);
        self.frame.logic -= logic;
        let (l, r) = (l?, r?);
        let Some(u) = unsigned else { return Ok(format!("({l} {op} {r})")) };
        if matches!(op, "+" | "-" | "*") {
            // Modular arithmetic: the operands' conversion is in the result's.
            return Ok(u.wrap(&format!("{l} {op} {r}")));
        }
        let convert = |v: String, t: Option<Ty>| if t.is_some_and(|t| promote(t).signed) { u.wrap(&v) } else { v };
        Ok(format!("({} {op} {})", convert(l, lt), convert(r, rt)))
    }

    /// `a && b` or `a || b` (`op`) where a side calls a function or holds a `?:`, whose steps
    /// for `b` must run only when `a` leaves the answer open: before the statement, `t := (a != 0);` then
    /// `if (t != 0) { t := (b != 0) }` (`t == 0` for `||`), `b`'s steps inside the `if`.
    fn short_circuit(
        &mut self,
        b: &'a Node<lang_c::ast::BinaryOperatorExpression>,
        op: &str,
        cx: &mut Cx,
    ) -> Result<String, Diagnostic> {
        let l = self.expr(&b.node.lhs, cx)?;
        let t = self.temp();
        let first = self.label(cx.span);
        cx.pre.push(N::Simple(first, format!("{t} := ({l} != 0)")));
        let mut inner = Cx { split: cx.split, pre: Vec::new(), span: cx.span, arith: false };
        let r = self.expr(&b.node.rhs, &mut inner)?;
        let second = self.label(cx.span);
        inner.pre.push(N::Simple(second, format!("{t} := ({r} != 0)")));
        let test = if op == "&&" { format!("{t} != 0") } else { format!("{t} == 0") };
        let label = self.label(cx.span);
        cx.pre.push(N::If(label, test, inner.pre, None));
        Ok(t)
    }

    /// Whether an expression calls a function of the program or holds a `?:`: its value
    /// takes steps before the statement.
    fn needs_steps(&self, e: &Node<lang_c::ast::Expression>) -> bool {
        if self.place_reads(e).is_some() {
            return true; // a choice among a pointer's targets (`pointsto.rs`)
        }
        match &e.node {
            E::Call(c) => {
                let user = matches!(&c.node.callee.node, E::Identifier(id)
                    if self.functions.contains_key(&id.node.name) && !BUILTINS.contains(&id.node.name.as_str()));
                user || c.node.arguments.iter().any(|a| self.needs_steps(a))
            }
            E::Conditional(_) => true,
            E::UnaryOperator(u) => self.needs_steps(&u.node.operand),
            E::BinaryOperator(b) => self.needs_steps(&b.node.lhs) || self.needs_steps(&b.node.rhs),
            E::Cast(c) => self.needs_steps(&c.node.expression),
            _ => false,
        }
    }

    /// A `__VERIFIER_nondet_*()` call: a temporary its choice sets.
    fn nondet(&mut self, c: &Node<lang_c::ast::CallExpression>, cx: &mut Cx) -> String {
        let E::Identifier(id) = &c.node.callee.node else { unreachable!("a nondet call has a name") };
        let name = id.node.name.clone();
        let (mut lo, mut hi) = self.options.nondet;
        if name == "__VERIFIER_nondet_bool" {
            (lo, hi) = (0, 1);
        } else {
            self.nondet_used = true;
            if name.contains("uint") || name.contains("uchar") || name.contains("ulong") || name.contains("ushort") {
                lo = lo.max(0);
                hi = hi.max(lo);
            }
        }
        let t = self.temp();
        let choice = self.choice(&t, lo, hi, cx.span);
        cx.pre.extend(choice);
        t
    }

    /// `t` set to a value from `lo` to `hi`, each a choice: nested `if (*)`.
    pub(super) fn choice(&mut self, t: &str, lo: i64, hi: i64, span: Span) -> Vec<N> {
        let l = self.label(span);
        let set = N::Simple(l, format!("{t} := {}", lit(lo)));
        if lo >= hi {
            return vec![set];
        }
        let rest = self.choice(t, lo + 1, hi, span);
        let l = self.label(span);
        vec![N::If(l, "*".into(), vec![set], Some(rest))]
    }
}

/// The error for a call inside an expression that the frontend does not run there.
fn call_error(c: &Node<lang_c::ast::CallExpression>, span: Span) -> Diagnostic {
    let callee = match &c.node.callee.node {
        E::Identifier(id) => format!("`{}`", id.node.name),
        _ => "a function pointer".to_owned(),
    };
    error(
        "C0421",
        format!("a call of {callee} inside an expression"),
        span,
        "only the program's own functions are called inside expressions (outside `&&` and `||`)",
    )
}
