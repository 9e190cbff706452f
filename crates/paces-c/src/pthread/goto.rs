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
        if let Some(flag) = self.frame.forward.get(target).cloned() {
            return self.simple_item(span, format!("{flag} := 1"));
        }
        let body = self.functions.get(self.frame.name.as_str()).map(|f| &f.node.statement);
        let Some(labelled) = body.and_then(|b| find_label(b, target)) else {
            return Err(error("C0410", format!("`goto {target}` to no label of its function"), span, "not read"));
        };
        if !super::stmt::only_reaches_error(labelled) {
            return Err(unsupported(
                "a `goto` other than to a label of the error, back to the start of its block at the block's end, or forward to a later label of an enclosing block",
                span,
            ));
        }
        self.stmt(labelled, false)
    }

    /// A forward jump inside one block: `items[k]` is `if (c) goto L;` (or `if (c) { ...;
    /// goto L; }`, no `else`), `L` labels a later item `items[j]` of the same block, and no
    /// other `goto L` is in the function: `(k, j, L)`.
    pub(super) fn forward_goto(&self, items: &[Node<BlockItem>]) -> Option<(usize, usize, String)> {
        let body = &self.functions.get(self.frame.name.as_str())?.node.statement;
        items.iter().enumerate().find_map(|(k, i)| {
            let BlockItem::Statement(s) = &i.node else { return None };
            let name = if_goto(s)?;
            let j = items[k + 1..]
                .iter()
                .position(|i| matches!(&i.node, BlockItem::Statement(s) if label_of(s) == Some(name)))?;
            (count_gotos(body, name) == 1).then(|| (k, k + 1 + j, name.to_owned()))
        })
    }

    /// The items of a block with a forward jump ([`Lower::forward_goto`]): the items before
    /// and the `if`, whose `goto L` sets a flag (cleared before it); the items it skips under
    /// `if (flag == 0)`; then the items from `L` on (under `if (returned == 0)` when a skipped
    /// item may return). A `break` or `continue` among the skipped items is not read.
    pub(super) fn forward_items(
        &mut self,
        items: &'a [Node<BlockItem>],
        (k, j, name): (usize, usize, String),
        out: &mut Vec<N>,
        stack: &mut Vec<(Span, Vec<N>)>,
        top: bool,
    ) -> Result<(), Diagnostic> {
        let skipped = &items[k + 1..j];
        if let Some(i) = skipped.iter().find(|i| matches!(&i.node, BlockItem::Statement(s) if has_jump(s))) {
            return Err(unsupported("a `break` or `continue` that a forward `goto` jumps over", self.span(i)));
        }
        if let Some(i) =
            items[..k].iter().find(|i| matches!(&i.node, BlockItem::Statement(s) if has_return(s) || has_jump(s)))
        {
            return Err(unsupported("a `return`, `break` or `continue` before a forward `goto`", self.span(i)));
        }
        let before: Vec<N> = {
            let mut inner = Vec::new();
            let mut open = Vec::new();
            self.items(&items[..k], &mut inner, &mut open, false)?;
            if let Some((span, _)) = open.first() {
                return Err(error("C0415", "`__VERIFIER_atomic_begin()` without its end in this block", *span, "here"));
            }
            inner
        };
        self.push_item(Item::Nodes(before), out, stack)?;
        let flag = self.fresh_local("skip");
        let span = self.span(&items[k]);
        let clear = self.simple_item(span, format!("{flag} := 0"))?;
        self.push_item(clear, out, stack)?;
        self.frame.forward.insert(name.clone(), flag.clone());
        let jump = self.block_item(&items[k], false);
        let mut rest = Vec::new();
        let mut open = Vec::new();
        let lowered = jump.and_then(|j| {
            self.push_item(j, out, stack)?;
            self.items(skipped, &mut rest, &mut open, false)
        });
        self.frame.forward.remove(&name);
        lowered?;
        if let Some((span, _)) = open.first() {
            return Err(error("C0415", "`__VERIFIER_atomic_begin()` without its end in this block", *span, "here"));
        }
        if !rest.is_empty() {
            let l = self.label(self.span(&items[k + 1]));
            self.push_item(Item::Nodes(vec![N::If(l, format!("{flag} == 0"), rest, None)]), out, stack)?;
        }
        let returns = skipped.iter().any(|i| matches!(&i.node, BlockItem::Statement(s) if has_return(s)));
        match (returns, self.frame.returned.clone()) {
            (true, Some(returned)) => {
                let mut tail = Vec::new();
                let mut open = Vec::new();
                self.items(&items[j..], &mut tail, &mut open, top)?;
                if let Some((span, _)) = open.first() {
                    return Err(error(
                        "C0415",
                        "`__VERIFIER_atomic_begin()` without its end in this block",
                        *span,
                        "here",
                    ));
                }
                let l = self.label(self.span(&items[j]));
                self.push_item(Item::Nodes(vec![N::If(l, format!("{returned} == 0"), tail, None)]), out, stack)
            }
            _ => self.items(&items[j..], out, stack, top),
        }
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
                if has_jump(s) || has_return(s) || self.jumps_out(s) {
                    return Err(unsupported(
                        "a `break`, `continue`, `return` or `goto` out of a loop closed by a `goto`",
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

/// `if (c) goto L;` or `if (c) { ...; goto L; }` without an `else`, the other statements of
/// the branch holding no `goto`: `L`.
fn if_goto(s: &Node<Statement>) -> Option<&str> {
    let Statement::If(i) = &s.node else { return None };
    if i.node.else_statement.is_some() {
        return None;
    }
    match &i.node.then_statement.node {
        Statement::Goto(t) => Some(t.node.name.as_str()),
        Statement::Compound(items) => {
            let (last, rest) = items.split_last()?;
            let BlockItem::Statement(g) = &last.node else { return None };
            let Statement::Goto(t) = &g.node else { return None };
            let clean = rest.iter().all(|i| match &i.node {
                BlockItem::Statement(s) => count_any_goto(s) == 0,
                _ => true,
            });
            clean.then_some(t.node.name.as_str())
        }
        _ => None,
    }
}

/// The `goto` statements inside `s`.
fn count_any_goto(s: &Node<Statement>) -> usize {
    let mut n = 0;
    each_statement(s, |st| n += usize::from(matches!(st, Statement::Goto(_))));
    n
}

/// The name of a statement's `goto` label, if it has one.
pub(super) fn label_of(s: &Node<Statement>) -> Option<&str> {
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
pub(super) fn count_gotos(s: &Node<Statement>, name: &str) -> usize {
    let mut n = 0;
    each_statement(s, |st| n += usize::from(matches!(st, Statement::Goto(id) if id.node.name == name)));
    n
}

/// Calls `f` on `s` and every statement inside it.
pub(super) fn each_statement<'s>(s: &'s Node<Statement>, f: impl FnMut(&'s Statement)) {
    struct Each<F>(F);
    impl<'s, F: FnMut(&'s Statement)> lang_c::visit::Visit<'s> for Each<F> {
        fn visit_statement(&mut self, s: &'s Statement, span: &'s lang_c::span::Span) {
            (self.0)(s);
            lang_c::visit::visit_statement(self, s, span);
        }
    }
    lang_c::visit::Visit::visit_statement(&mut Each(f), &s.node, &s.span);
}
