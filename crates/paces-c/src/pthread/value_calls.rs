//! Calls of `pthread_` functions whose value an expression reads: `pthread_mutex_trylock`
//! (`if (pthread_mutex_trylock(&m) == 0)`, `while (pthread_mutex_trylock(&m)) {}`),
//! `pthread_create` and `pthread_join` (`if (pthread_create(&t, 0, f, 0)) { exit(-1); }`).
//! Each runs before the statement, as a call of the program's own functions inside an
//! expression does, a trylock's value in a temporary; the model's `pthread_create` and
//! `pthread_join` always succeed: their value is 0.

use lang_c::ast::{BinaryOperator, BinaryOperatorExpression, CallExpression, Expression as E};
use lang_c::span::Node;
use paces_cwhile::Diagnostic;

use super::common::{Cx, Item, Lower, N};

/// The `pthread_` functions whose value an expression may read.
const VALUED: &[&str] = &["pthread_mutex_trylock", "pthread_create", "pthread_join"];

impl<'a> Lower<'a> {
    /// Whether `c` calls a function [`Lower::pthread_value`] reads.
    pub(super) fn is_pthread_value(c: &CallExpression) -> bool {
        matches!(&c.callee.node, E::Identifier(id) if VALUED.contains(&id.node.name.as_str()))
    }

    /// The value of a call [`Lower::is_pthread_value`] accepts; its steps go before the statement.
    pub(super) fn pthread_value(&mut self, c: &'a Node<CallExpression>, cx: &mut Cx) -> Result<String, Diagnostic> {
        let args = &c.node.arguments;
        match &c.node.callee.node {
            E::Identifier(id) if id.node.name != "pthread_mutex_trylock" => {
                if let Item::Nodes(nodes) = self.pthread_item(&id.node.name, args, cx.span, false)? {
                    cx.pre.extend(nodes);
                }
                return Ok("0".to_owned());
            }
            _ => {}
        }
        let t = self.temp();
        let nodes = self.trylock(args, &t, cx.span)?;
        cx.pre.extend(nodes);
        Ok(t)
    }
}

/// Whether `e` holds a call other than of a nondet function (whose steps a busy wait, one
/// step, cannot hold).
pub(super) fn has_call(e: &Node<E>) -> bool {
    struct Any(bool);
    impl<'a> lang_c::visit::Visit<'a> for Any {
        fn visit_call_expression(&mut self, c: &'a CallExpression, span: &'a lang_c::span::Span) {
            let nondet = matches!(&c.callee.node, E::Identifier(id) if id.node.name.starts_with("__VERIFIER_nondet_"));
            self.0 |= !nondet;
            lang_c::visit::visit_call_expression(self, c, span);
        }
    }
    let mut any = Any(false);
    lang_c::visit::Visit::visit_expression(&mut any, &e.node, &e.span);
    any.0
}

impl<'a> Lower<'a> {
    /// Whether `b` is `x = CALL` with a call [`Lower::pthread_value`] reads
    /// (`if (0 != (err = pthread_create(&t, 0, f, 0)))`).
    pub(super) fn is_assigned_pthread_value(b: &Node<BinaryOperatorExpression>) -> bool {
        b.node.operator.node == BinaryOperator::Assign
            && matches!(&b.node.rhs.node, E::Call(c) if Self::is_pthread_value(&c.node))
    }

    /// The value of `x = CALL` ([`Lower::is_assigned_pthread_value`]): the call's steps and
    /// `x`'s write go before the statement; `x` must be a local (its write is no step of its
    /// own that other threads could see between).
    pub(super) fn assigned_pthread_value(
        &mut self,
        b: &'a Node<BinaryOperatorExpression>,
        cx: &mut Cx,
    ) -> Result<String, Diagnostic> {
        let E::Call(c) = &b.node.rhs.node else { unreachable!("checked by is_assigned_pthread_value") };
        let v = self.pthread_value(c, cx)?;
        let target = self.target(&b.node.lhs)?;
        if target.shared || target.computed.is_some() {
            let what = "an assignment inside an expression to a global or an element at a computed index";
            return Err(super::common::unsupported(what, self.span(b)));
        }
        let l = self.label(cx.span);
        cx.pre.push(N::Simple(l, format!("{} := {v}", target.cw)));
        Ok(target.cw)
    }
}
