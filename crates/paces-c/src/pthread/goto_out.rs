//! A forward `goto` out of nested statements, the C "goto out" shape: `goto L;` anywhere
//! inside an item of a block (in loops, `switch` cases and `if` branches) where `L` labels a
//! later item of that block. The jump sets a flag: the rest of every block it lies in runs only
//! while the flag is clear, every loop it lies in ends (the flag joins the loop's condition,
//! as a `return` does), and the block's items from `L` on run again unguarded.

use lang_c::ast::{BlockItem, Statement};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{has_jump, has_return, Item, Lower, N};
use super::diag::error;
use super::goto::{count_gotos, label_of};

/// A jump out found in a block: the first item holding a `goto L`, the item `L` labels, and `L`.
pub(super) struct Out {
    first: usize,
    target: usize,
    name: String,
}

impl<'a> Lower<'a> {
    /// The flags of the jumps out ([`Lower::out_items`]) whose `goto` lies inside `s`, each
    /// as the guard `flag == 0`.
    pub(super) fn out_guards(&self, s: &Node<Statement>) -> Vec<String> {
        self.frame
            .forward
            .iter()
            .filter(|(name, _)| count_gotos(s, name) > 0)
            .map(|(_, flag)| format!("{flag} == 0"))
            .collect()
    }

    /// A jump out in `items`: a label `L` of a later item `items[j]` (`j > 0`) that does not
    /// only reach the error, whose every `goto L` in the function lies in `items[..j]`; the
    /// first such jump by where it starts.
    pub(super) fn goto_out(&self, items: &[Node<BlockItem>]) -> Option<Out> {
        let body = &self.functions.get(self.frame.name.as_str())?.node.statement;
        let mut best: Option<Out> = None;
        for (j, item) in items.iter().enumerate().skip(1) {
            let BlockItem::Statement(s) = &item.node else { continue };
            let Some(name) = label_of(s) else { continue };
            // A jump to the error reads as the error in place (`Lower::goto_item`).
            if self.frame.forward.contains_key(name) || super::stmt::only_reaches_error(s) {
                continue;
            }
            let within = |i: &Node<BlockItem>| match &i.node {
                BlockItem::Statement(s) => count_gotos(s, name),
                _ => 0,
            };
            let total = count_gotos(body, name);
            if total == 0 || items[..j].iter().map(within).sum::<usize>() != total {
                continue;
            }
            let first = items[..j].iter().position(|i| within(i) > 0)?;
            if best.as_ref().is_none_or(|b| first < b.first) {
                best = Some(Out { first, target: j, name: name.to_owned() });
            }
        }
        best
    }

    /// The items of a block with a jump out ([`Lower::goto_out`]): the flag cleared at the
    /// block's start, the items before `L` with the jump registered (`Lower::items` guards
    /// what follows an item holding it), then the items from `L` on; those run only while a
    /// `return`, `break` or `continue` among the earlier items has not happened.
    pub(super) fn out_items(
        &mut self,
        items: &'a [Node<BlockItem>],
        out: Out,
        into: &mut Vec<N>,
        stack: &mut Vec<(Span, Vec<N>)>,
        top: bool,
    ) -> Result<(), Diagnostic> {
        let flag = self.fresh_local("out");
        let clear = self.simple_item(self.span(&items[0]), format!("{flag} := 0"))?;
        self.push_item(clear, into, stack)?;
        self.frame.forward.insert(out.name.clone(), flag);
        let before = self.items(&items[..out.target], into, stack, false);
        self.frame.forward.remove(&out.name);
        before?;
        let earlier = &items[..out.target];
        let any = |f: fn(&Node<Statement>) -> bool| {
            earlier.iter().any(|i| matches!(&i.node, BlockItem::Statement(s) if f(s)))
        };
        let mut guards = Vec::new();
        if let (true, Some(returned)) = (any(has_return), &self.frame.returned) {
            guards.push(format!("{returned} == 0"));
        }
        if let (true, Some(Some(jump))) = (any(has_jump), self.frame.jumps.last()) {
            guards.push(format!("{jump} == 0"));
        }
        if guards.is_empty() {
            return self.items(&items[out.target..], into, stack, top);
        }
        let mut tail = Vec::new();
        let mut open = Vec::new();
        self.items(&items[out.target..], &mut tail, &mut open, top)?;
        if let Some((span, _)) = open.first() {
            return Err(error("C0415", "`__VERIFIER_atomic_begin()` without its end in this block", *span, "here"));
        }
        let l = self.label(self.span(&items[out.target]));
        self.push_item(Item::Nodes(vec![N::If(l, guards.join(" && "), tail, None)]), into, stack)
    }

    /// Whether `s` holds a `goto` out of it to a label [`Lower::out_items`] reads (for the
    /// loops that cannot end early: unrolled ones and those closed by a `goto`).
    pub(super) fn jumps_out(&self, s: &Node<Statement>) -> bool {
        !self.out_guards(s).is_empty()
    }
}
