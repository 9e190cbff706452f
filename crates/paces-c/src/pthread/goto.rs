//! `goto` in the pthread C lowering, in the two shapes SV-COMP's tasks use: a jump to the
//! error (`goto ERROR;` where `ERROR:` labels a block that only reaches the error, as the
//! tasks' `assert` macros write it), and a loop closed by a jump back (`L: ...; goto L;` at the
//! end of the block that `L` starts, and no other `goto L`).

use lang_c::ast::{BlockItem, Label, Statement};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{has_jump, has_return, unsupported, Item, Lower, N};
use super::diag::error;

impl<'a> Lower<'a> {
    /// `goto target;` (not one that closes a loop, see [`Lower::goto_loop`]): the labelled
    /// statement in place when it only reaches the error (`reach_error()` or
    /// `__VERIFIER_error()`, then optionally `abort()` or `exit(n)`): the jump reaches the error,
    /// and nothing after it runs.
    pub(super) fn goto_item(&mut self, target: &str, span: Span) -> Result<Item, Diagnostic> {
        let body = self.functions.get(self.frame.name.as_str()).map(|f| &f.node.statement);
        let Some(labelled) = body.and_then(|b| find_label(b, target)) else {
            return Err(error("C0410", format!("`goto {target}` to no label of its function"), span, "not read"));
        };
        if !super::stmt::only_reaches_error(labelled) {
            return Err(unsupported(
                "a `goto` other than to a label of the error or back to the start of its block at the block's end",
                span,
            ));
        }
        self.stmt(labelled, false)
    }

    /// The index of the item that starts a loop closed by a `goto` back to it: the last item
    /// is `goto L;`, an earlier item of the block is labelled `L`, and no other `goto L` is in
    /// the function.
    pub(super) fn goto_loop_start(&self, items: &[Node<BlockItem>]) -> Option<usize> {
        let (last, rest) = items.split_last()?;
        let BlockItem::Statement(s) = &last.node else { return None };
        let Statement::Goto(target) = &s.node else { return None };
        let name = target.node.name.as_str();
        let k = rest.iter().position(|i| matches!(&i.node, BlockItem::Statement(s) if label_of(s) == Some(name)))?;
        let body = &self.functions.get(self.frame.name.as_str())?.node.statement;
        (count_gotos(body, name) == 1).then_some(k)
    }

    /// `L: s1; ...; sn; goto L;` (the items from `L` on, without the `goto`): `while (1) { s1;
    /// ...; sn; }`. A `break` or `continue` (of a loop around it) or a `return` in the loop's
    /// items is not read.
    pub(super) fn goto_loop(&mut self, items: &'a [Node<BlockItem>], span: Span) -> Result<Vec<N>, Diagnostic> {
        for i in items {
            if let BlockItem::Statement(s) = &i.node {
                if has_jump(s) || has_return(s) {
                    return Err(unsupported(
                        "a `break`, `continue` or `return` in a loop closed by a `goto`",
                        self.span(i),
                    ));
                }
            }
        }
        self.frame.loops += 1;
        self.frame.jumps.push(None);
        let inner = self.block_items(items);
        self.frame.jumps.pop();
        self.frame.loops -= 1;
        let inner = inner?;
        let l = self.label(span);
        Ok(vec![N::While(l, "1".to_owned(), inner)])
    }
}

/// The name of a statement's `goto` label, if it has one.
fn label_of(s: &Node<Statement>) -> Option<&str> {
    match &s.node {
        Statement::Labeled(l) => match &l.node.label.node {
            Label::Identifier(id) => Some(id.node.name.as_str()),
            _ => label_of(&l.node.statement),
        },
        _ => None,
    }
}

/// The statement the label `name` labels inside `s` (without the label).
fn find_label<'s>(s: &'s Node<Statement>, name: &str) -> Option<&'s Node<Statement>> {
    let mut found = None;
    each_statement(s, |st| {
        if let Statement::Labeled(l) = st {
            if matches!(&l.node.label.node, Label::Identifier(id) if id.node.name == name) && found.is_none() {
                found = Some(&*l.node.statement);
            }
        }
    });
    found
}

/// The `goto name` statements inside `s`.
fn count_gotos(s: &Node<Statement>, name: &str) -> usize {
    let mut n = 0;
    each_statement(s, |st| n += usize::from(matches!(st, Statement::Goto(id) if id.node.name == name)));
    n
}

/// Calls `f` on `s` and every statement inside it.
fn each_statement<'s>(s: &'s Node<Statement>, f: impl FnMut(&'s Statement)) {
    struct Each<F>(F);
    impl<'s, F: FnMut(&'s Statement)> lang_c::visit::Visit<'s> for Each<F> {
        fn visit_statement(&mut self, s: &'s Statement, span: &'s lang_c::span::Span) {
            (self.0)(s);
            lang_c::visit::visit_statement(self, s, span);
        }
    }
    lang_c::visit::Visit::visit_statement(&mut Each(f), &s.node, &s.span);
}
