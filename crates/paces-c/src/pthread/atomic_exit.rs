//! An atomic section left by a `return` (`begin(); if (c) { end(); return -1; } ...; end();`,
//! as SV-COMP's KISS-derived tasks write it): the `__VERIFIER_atomic_end()` right before the
//! `return` in a nested block closes the section that an enclosing block of the function
//! opened. The `return` sets its flag inside the section (it reads no shared variable, so
//! that holds nothing more in it), the statements up to the enclosing block's own
//! `__VERIFIER_atomic_end()` are skipped on that path, and that `end` closes the section.

use lang_c::ast::{BlockItem, Expression as E, Statement};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{Item, Lower, N};
use super::diag::error;

impl<'a> Lower<'a> {
    /// Whether `items[k]` is an `__VERIFIER_atomic_end()` that a `return` reading no shared
    /// variable follows, in a block whose own atomic sections are closed (`open`: none is)
    /// while a block around it holds one open.
    pub(super) fn end_before_return(&self, items: &'a [Node<BlockItem>], k: usize, open: bool) -> bool {
        let within = usize::from(self.frame.name.starts_with("__VERIFIER_atomic_"));
        if open || self.frame.atomic <= within || !is_atomic_end(&items[k]) {
            return false;
        }
        let Some(BlockItem::Statement(next)) = items.get(k + 1).map(|i| &i.node) else { return false };
        match &next.node {
            Statement::Return(None) => true,
            Statement::Return(Some(e)) => self.reads(e) == 0 && !super::value_calls::has_call(e),
            _ => false,
        }
    }

    /// The items `rest` of a block under the guards `guards` (what follows an item that may
    /// return or jump) when a section this block opened is still open: the items before the
    /// block's `__VERIFIER_atomic_end()` under the guards, the end, then the items after it
    /// under the guards. `false` when no such end is among `rest` (nothing is pushed).
    pub(super) fn guarded_past_end(
        &mut self,
        rest: &'a [Node<BlockItem>],
        guards: &str,
        out: &mut Vec<N>,
        stack: &mut Vec<(Span, Vec<N>)>,
        top: bool,
    ) -> Result<bool, Diagnostic> {
        let Some(e) = rest.iter().position(is_atomic_end) else { return Ok(false) };
        if stack.is_empty() {
            return Ok(false);
        }
        self.guarded(&rest[..e], guards, out, stack, false)?;
        let end = self.block_item(&rest[e], false)?;
        self.push_item(end, out, stack)?;
        self.guarded(&rest[e + 1..], guards, out, stack, top)?;
        Ok(true)
    }

    /// `if (guards) { items }` (nothing for no items).
    fn guarded(
        &mut self,
        items: &'a [Node<BlockItem>],
        guards: &str,
        out: &mut Vec<N>,
        stack: &mut Vec<(Span, Vec<N>)>,
        top: bool,
    ) -> Result<(), Diagnostic> {
        let Some(first) = items.first() else { return Ok(()) };
        let mut inner = Vec::new();
        let mut open = Vec::new();
        self.items(items, &mut inner, &mut open, top)?;
        if let Some((span, _)) = open.first() {
            return Err(error("C0415", "`__VERIFIER_atomic_begin()` without its end in this block", *span, "here"));
        }
        let l = self.label(self.span(first));
        self.push_item(Item::Nodes(vec![N::If(l, guards.to_owned(), inner, None)]), out, stack)
    }
}

/// Whether a block item is the statement `__VERIFIER_atomic_end();`.
fn is_atomic_end(item: &Node<BlockItem>) -> bool {
    let BlockItem::Statement(s) = &item.node else { return false };
    let Statement::Expression(Some(e)) = &s.node else { return false };
    let E::Call(c) = &e.node else { return false };
    matches!(&c.node.callee.node, E::Identifier(id) if id.node.name == "__VERIFIER_atomic_end")
}
