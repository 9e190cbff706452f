//! `switch` in the pthread C lowering: the value read once into a local, then one branch per
//! case, each running the statements from its label to the first `break` (a case without one
//! falls through to the next: its branch runs the next case's statements too).

use lang_c::ast::{BlockItem, Label, Statement};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{first_jump, unsupported, Lower, Target, INT, N};

/// One case of a `switch` body: the values it is chosen for (`None`: `default`), and the
/// items its branch runs (its own and those it falls through to, up to a `break`).
struct Case<'a> {
    values: Option<Vec<i64>>,
    items: &'a [Node<BlockItem>],
}

impl<'a> Lower<'a> {
    /// `switch (e) { case A: ...; break; ... default: ...; }`: `sw := e;` then `if (sw == A)
    /// { ... } else if ... else { DEFAULT }`, one `noreorder` item.
    pub(super) fn switch_node(
        &mut self,
        s: &'a Node<lang_c::ast::SwitchStatement>,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        let cases = self.cases(&s.node.statement, span)?;
        let sw = self.fresh_local("sw");
        let target = Target { cw: sw.clone(), ty: INT, shared: false, computed: None };
        let mut nodes = self.assign(&target, None, Some(&s.node.expression), span)?;
        let mut chain: Option<Vec<N>> = None;
        for case in cases.iter().rev() {
            let body = self.block_items(case.items)?;
            chain = Some(match &case.values {
                None if chain.is_none() => body,
                None => return Err(unsupported("`default` before the last case of a `switch`", span)),
                Some(values) => {
                    let test: Vec<String> =
                        values.iter().map(|v| format!("{sw} == {}", super::common::lit(*v))).collect();
                    let l = self.label(span);
                    vec![N::If(l, test.join(" || "), body, chain)]
                }
            });
        }
        nodes.extend(chain.unwrap_or_default());
        Ok(self.unit(nodes, span))
    }

    /// The cases of a `switch` body, in order.
    fn cases(&self, body: &'a Node<Statement>, span: Span) -> Result<Vec<Case<'a>>, Diagnostic> {
        let Statement::Compound(items) = &body.node else {
            return Err(unsupported("a `switch` whose body is not a block", span));
        };
        let mut cases = Vec::new();
        for (k, item) in items.iter().enumerate() {
            let BlockItem::Statement(st) = &item.node else {
                if k == 0 {
                    return Err(unsupported("a declaration before a `switch`'s first case", self.span(item)));
                }
                continue;
            };
            let Some(values) = self.labels(st)? else {
                if k == 0 {
                    return Err(unsupported("a statement before a `switch`'s first case", self.span(item)));
                }
                continue;
            };
            // The branch runs up to the first `break` at the body's top level.
            let end = (k..items.len()).find(|&j| is_break(&items[j])).unwrap_or(items.len());
            let run = &items[k..end];
            for i in run {
                if let BlockItem::Statement(s) = &i.node {
                    if let Some(jump) = first_jump(s) {
                        return Err(unsupported(
                            "a `break` or `continue` inside a case other than at its end",
                            self.span(jump),
                        ));
                    }
                }
            }
            cases.push(Case { values, items: run });
        }
        Ok(cases)
    }

    /// The case labels on a statement (`case 1: case 2: s`): `Some(None)` for `default`
    /// (among them), `Some(Some(values))` for cases, `None` for no label.
    fn labels(&self, s: &Node<Statement>) -> Result<Option<Option<Vec<i64>>>, Diagnostic> {
        let mut values = Vec::new();
        let mut default = false;
        let mut at = s;
        while let Statement::Labeled(l) = &at.node {
            match &l.node.label.node {
                Label::Case(e) => values.push(
                    self.const_eval(e)
                        .ok_or_else(|| unsupported("a `case` whose value is not a constant", self.span(e)))?,
                ),
                Label::Default => default = true,
                _ => return Err(unsupported("this label inside a `switch`", self.span(at))),
            }
            at = &l.node.statement;
        }
        if values.is_empty() && !default {
            return Ok(None);
        }
        Ok(Some(if default { None } else { Some(values) }))
    }
}

/// Whether a `switch` body's item is a `break` (labelled or not).
fn is_break(item: &Node<BlockItem>) -> bool {
    let BlockItem::Statement(s) = &item.node else { return false };
    let mut s: &Node<Statement> = s;
    while let Statement::Labeled(l) = &s.node {
        s = &l.node.statement;
    }
    matches!(s.node, Statement::Break)
}
