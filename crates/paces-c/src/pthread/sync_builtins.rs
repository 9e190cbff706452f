//! GCC's `__sync` builtins, and the `__atomic` ones that take no pointer but the target's, on
//! an integer global (or a global array's element at a constant index), as programs write
//! atomic counters, flags and spin locks: each is one atomic step
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
//! | `__atomic_fetch_add(&x, v, order)` (`_sub`, `__atomic_add_fetch`, `_sub_fetch`) | as the `__sync` one | as it |
//! | `__atomic_exchange_n(&x, v, order)` | `t := x; x := v` | `t` |
//! | `__atomic_load_n(&x, order)`, `__atomic_store_n(&x, v, order)` | `t := x`; `x := v` | `t`; none |
//! | `__atomic_thread_fence(order)`, `__atomic_signal_fence(order)` | nothing | none |
//!
//! A memory order is not read: the model is sequentially consistent, as every step of the
//! pthread reading is, so behaviours only a weaker order allows are not explored.
//! A stored value is brought into `x`'s type as an assignment's is.

use lang_c::ast::{CallExpression, Expression as E};
use lang_c::span::Node;
use paces_cwhile::Diagnostic;

use super::common::{unsupported, Cx, Kind, Lower, Ty, N};
use super::diag::error;

/// The builtins read here, each with the operation it is (a `__sync` name, or `load`,
/// `store`, `fence`), the arguments the operation takes and the memory orders after them,
/// which are not read (every step is sequentially consistent here).
const SYNC: &[(&str, &str, usize, usize)] = &[
    ("__sync_fetch_and_add", "__sync_fetch_and_add", 2, 0),
    ("__sync_fetch_and_sub", "__sync_fetch_and_sub", 2, 0),
    ("__sync_add_and_fetch", "__sync_add_and_fetch", 2, 0),
    ("__sync_sub_and_fetch", "__sync_sub_and_fetch", 2, 0),
    ("__sync_bool_compare_and_swap", "__sync_bool_compare_and_swap", 3, 0),
    ("__sync_val_compare_and_swap", "__sync_val_compare_and_swap", 3, 0),
    ("__sync_lock_test_and_set", "__sync_lock_test_and_set", 2, 0),
    ("__sync_lock_release", "__sync_lock_release", 1, 0),
    ("__sync_synchronize", "fence", 0, 0),
    ("__atomic_fetch_add", "__sync_fetch_and_add", 2, 1),
    ("__atomic_fetch_sub", "__sync_fetch_and_sub", 2, 1),
    ("__atomic_add_fetch", "__sync_add_and_fetch", 2, 1),
    ("__atomic_sub_fetch", "__sync_sub_and_fetch", 2, 1),
    ("__atomic_exchange_n", "__sync_lock_test_and_set", 2, 1),
    ("__atomic_load_n", "load", 1, 1),
    ("__atomic_store_n", "store", 2, 1),
    ("__atomic_thread_fence", "fence", 0, 1),
    ("__atomic_signal_fence", "fence", 0, 1),
];

/// The entry of [`SYNC`] for `name`.
fn builtin(name: &str) -> Option<(&'static str, usize, usize)> {
    SYNC.iter().find(|(n, ..)| *n == name).map(|&(_, op, args, orders)| (op, args, orders))
}

impl<'a> Lower<'a> {
    /// Whether `c` calls one of the builtins read here (and the program defines no function
    /// of that name).
    pub(super) fn is_sync_builtin(&self, c: &CallExpression) -> bool {
        matches!(&c.callee.node, E::Identifier(id)
            if builtin(&id.node.name).is_some() && !self.functions.contains_key(&id.node.name))
    }

    /// The steps of the builtin call `c` into `cx.pre`, and its value ("0" for one without).
    pub(super) fn sync_builtin(&mut self, c: &'a Node<CallExpression>, cx: &mut Cx) -> Result<String, Diagnostic> {
        let E::Identifier(id) = &c.node.callee.node else { return Ok("0".to_owned()) };
        let (written, args, span) = (id.node.name.as_str(), &c.node.arguments, cx.span);
        let Some((name, n, orders)) = builtin(written) else { return Ok("0".to_owned()) };
        if args.len() != n + orders {
            return Err(error("C0418", format!("`{written}` takes {} argument(s)", n + orders), span, "here"));
        }
        if n == 0 {
            return Ok("0".to_owned());
        }
        let args = &args[..n];
        let what = "an atomic builtin's target that is not `&x` for a global integer `x` (or `&x[k]`)";
        let (x, ty) = self.global_integer(&args[0], what)?;
        // Each shared variable an operand reads is read in a step of its own, before.
        let mut reads = Cx { split: true, pre: Vec::new(), span, arith: cx.arith };
        let operands = args[1..].iter().map(|a| self.expr(a, &mut reads)).collect::<Result<Vec<_>, _>>()?;
        cx.pre.extend(reads.pre);
        let t = if matches!(name, "__sync_lock_release" | "store") { "0".to_owned() } else { self.temp() };
        // A stored operand is stored as an assignment stores it, an update as `x op= v` does.
        let put = |s: &Self, k: usize| s.stored(ty, operands[k - 1].clone(), Some(&args[k]), false);
        let update = |s: &Self, op: &str| s.stored(ty, format!("{x} {op} ({})", operands[0]), None, true);
        let l = |s: &mut Self| s.label(span);
        let body = match (name, operands.len()) {
            ("__sync_lock_release", _) => vec![N::Simple(l(self), format!("{x} := 0"))],
            ("load", _) => vec![N::Simple(l(self), format!("{t} := {x}"))],
            ("store", 1) => vec![N::Simple(l(self), format!("{x} := {}", put(self, 1)))],
            ("__sync_fetch_and_add" | "__sync_fetch_and_sub", 1) => {
                let op = if name.ends_with("add") { "+" } else { "-" };
                vec![
                    N::Simple(l(self), format!("{t} := {x}")),
                    N::Simple(l(self), format!("{x} := {}", update(self, op))),
                ]
            }
            ("__sync_add_and_fetch" | "__sync_sub_and_fetch", 1) => {
                let op = if name.starts_with("__sync_add") { "+" } else { "-" };
                vec![
                    N::Simple(l(self), format!("{x} := {}", update(self, op))),
                    N::Simple(l(self), format!("{t} := {x}")),
                ]
            }
            ("__sync_bool_compare_and_swap", 2) => {
                let swap = vec![
                    N::Simple(l(self), format!("{x} := {}", put(self, 2))),
                    N::Simple(l(self), format!("{t} := 1")),
                ];
                let keep = vec![N::Simple(l(self), format!("{t} := 0"))];
                vec![N::If(l(self), format!("{x} == ({})", operands[0]), swap, Some(keep))]
            }
            ("__sync_val_compare_and_swap", 2) => {
                let swap = vec![N::Simple(l(self), format!("{x} := {}", put(self, 2)))];
                vec![
                    N::Simple(l(self), format!("{t} := {x}")),
                    N::If(l(self), format!("{t} == ({})", operands[0]), swap, None),
                ]
            }
            (_, 1) => {
                vec![N::Simple(l(self), format!("{t} := {x}")), N::Simple(l(self), format!("{x} := {}", put(self, 1)))]
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

    /// The Cwhile variable and type of the global integer `&x` (or `&x[k]`, `k` constant)
    /// names; the refusal of anything else says it is not `what`.
    pub(super) fn global_integer(&self, arg: &Node<E>, what: &str) -> Result<(String, Ty), Diagnostic> {
        let span = self.span(arg);
        match self.addressed(arg, span)? {
            Some((cw, Kind::Scalar(ty), true)) => Ok((cw, ty)),
            _ => Err(unsupported(what, span)),
        }
    }
}
