//! GCC's `__sync` builtins on an integer global (or a global array's element at a constant
//! index), as programs write atomic counters, flags and spin locks: each is one atomic step
//! (a Cwhile `atomic` block), its value, when an expression reads it, in a temporary. The
//! operands are read before it, as C evaluates a call's arguments first.
//!
//! | builtin | atomic block | value |
//! |---|---|---|
//! | `__sync_fetch_and_add(&x, v)` (`_sub`) | `t := x; x := x + v` | `t` |
//! | `__sync_add_and_fetch(&x, v)` (`_sub_`) | `x := x + v; t := x` | `t` |
//! | `__sync_bool_compare_and_swap(&x, o, n)` | `if (x == o) { x := n; t := 1 } else { t := 0 }` | `t` |
//! | `__sync_val_compare_and_swap(&x, o, n)` | `t := x; if (t == o) { x := n }` | `t` |
//! | `__sync_lock_test_and_set(&x, v)` | `t := x; x := v` | `t` |
//! | `__sync_lock_release(&x)` | `x := 0` | none |
//! | `__sync_synchronize()` | nothing (every step is sequentially consistent here) | none |
//!
//! A stored value is brought into `x`'s type as an assignment's is.

use lang_c::ast::{BinaryOperator as B, CallExpression, Expression as E, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::Diagnostic;

use super::common::{strip_casts, unsupported, Cx, Kind, Lower, Ty, Var, N};
use super::diag::error;

/// The builtins read here.
const SYNC: &[&str] = &[
    "__sync_fetch_and_add",
    "__sync_fetch_and_sub",
    "__sync_add_and_fetch",
    "__sync_sub_and_fetch",
    "__sync_bool_compare_and_swap",
    "__sync_val_compare_and_swap",
    "__sync_lock_test_and_set",
    "__sync_lock_release",
    "__sync_synchronize",
];

impl<'a> Lower<'a> {
    /// Whether `c` calls one of the builtins read here (and the program defines no function
    /// of that name).
    pub(super) fn is_sync_builtin(&self, c: &CallExpression) -> bool {
        matches!(&c.callee.node, E::Identifier(id)
            if SYNC.contains(&id.node.name.as_str()) && !self.functions.contains_key(&id.node.name))
    }

    /// The steps of the builtin call `c` into `cx.pre`, and its value ("0" for one without).
    pub(super) fn sync_builtin(&mut self, c: &'a Node<CallExpression>, cx: &mut Cx) -> Result<String, Diagnostic> {
        let E::Identifier(id) = &c.node.callee.node else { return Ok("0".to_owned()) };
        let (name, args, span) = (id.node.name.as_str(), &c.node.arguments, cx.span);
        let n = match name {
            "__sync_synchronize" => 0,
            "__sync_lock_release" => 1,
            "__sync_bool_compare_and_swap" | "__sync_val_compare_and_swap" => 3,
            _ => 2,
        };
        if args.len() != n {
            return Err(error("C0418", format!("`{name}` takes {n} argument(s)"), span, "here"));
        }
        if n == 0 {
            return Ok("0".to_owned());
        }
        let what = "an atomic builtin's target that is not `&x` for a global integer `x` (or `&x[k]`)";
        let (x, ty) = self.global_integer(&args[0], what)?;
        // Each shared variable an operand reads is read in a step of its own, before.
        let mut reads = Cx { split: true, pre: Vec::new(), span, arith: cx.arith };
        let operands = args[1..].iter().map(|a| self.expr(a, &mut reads)).collect::<Result<Vec<_>, _>>()?;
        cx.pre.extend(reads.pre);
        let t = if name == "__sync_lock_release" { "0".to_owned() } else { self.temp() };
        let l = |s: &mut Self| s.label(span);
        let body = match (name, operands.as_slice()) {
            ("__sync_lock_release", _) => vec![N::Simple(l(self), format!("{x} := 0"))],
            ("__sync_fetch_and_add" | "__sync_fetch_and_sub", [v]) => {
                let op = if name.ends_with("add") { "+" } else { "-" };
                vec![
                    N::Simple(l(self), format!("{t} := {x}")),
                    N::Simple(l(self), format!("{x} := {}", ty.wrap(&format!("{x} {op} ({v})")))),
                ]
            }
            ("__sync_add_and_fetch" | "__sync_sub_and_fetch", [v]) => {
                let op = if name.starts_with("__sync_add") { "+" } else { "-" };
                vec![
                    N::Simple(l(self), format!("{x} := {}", ty.wrap(&format!("{x} {op} ({v})")))),
                    N::Simple(l(self), format!("{t} := {x}")),
                ]
            }
            ("__sync_bool_compare_and_swap", [o, v]) => {
                let swap = vec![
                    N::Simple(l(self), format!("{x} := {}", Self::stored(ty, v))),
                    N::Simple(l(self), format!("{t} := 1")),
                ];
                let keep = vec![N::Simple(l(self), format!("{t} := 0"))];
                vec![N::If(l(self), format!("{x} == ({o})"), swap, Some(keep))]
            }
            ("__sync_val_compare_and_swap", [o, v]) => {
                let swap = vec![N::Simple(l(self), format!("{x} := {}", Self::stored(ty, v)))];
                vec![N::Simple(l(self), format!("{t} := {x}")), N::If(l(self), format!("{t} == ({o})"), swap, None)]
            }
            (_, [v]) => {
                vec![
                    N::Simple(l(self), format!("{t} := {x}")),
                    N::Simple(l(self), format!("{x} := {}", Self::stored(ty, v))),
                ]
            }
            _ => return Err(unsupported(&format!("`{name}` with these arguments"), span)),
        };
        if self.frame.atomic > 0 {
            cx.pre.extend(body);
        } else {
            let label = l(self);
            self.texts.insert(label.clone(), self.c_text(span));
            cx.pre.push(N::Atomic(label, body));
        }
        Ok(t)
    }

    /// `v` brought into `ty`'s range, unless it is a literal inside it already.
    fn stored(ty: Ty, v: &str) -> String {
        let fits = |n: i64| match ty.bits {
            b if b >= 64 => true,
            b if ty.signed => (-(1i64 << (b - 1))..1i64 << (b - 1)).contains(&n),
            b => (0..1i64 << b).contains(&n),
        };
        if v.trim().parse::<i64>().is_ok_and(fits) {
            v.trim().to_owned()
        } else {
            ty.wrap(v)
        }
    }

    /// The Cwhile variable and type of the global integer `&x` (or `&x[k]`, `k` constant)
    /// names; the refusal of anything else says it is not `what`.
    pub(super) fn global_integer(&self, arg: &Node<E>, what: &str) -> Result<(String, Ty), Diagnostic> {
        let span = self.span(arg);
        let bad = || unsupported(what, span);
        let E::UnaryOperator(u) = &strip_casts(arg).node else { return Err(bad()) };
        if u.node.operator.node != U::Address {
            return Err(bad());
        }
        match &u.node.operand.node {
            E::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Var { cw, kind: Kind::Scalar(ty), shared: true }) => Ok((cw.clone(), *ty)),
                _ => Err(bad()),
            },
            E::BinaryOperator(b) if b.node.operator.node == B::Index => match self.element(b, span)? {
                (cw, Kind::Scalar(ty), true) => Ok((cw, ty)),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}
