//! `argv` read as numbers: `atoi(argv[k])` (or `atol`) is a value of the nondet range, and
//! `sscanf(argv[k], "%d", &x)` either sets `x` to such a value or (the string holds no
//! number) leaves it: a bound, as for `__VERIFIER_nondet_int()`. An array of `pthread_t` whose
//! size is not a constant (`pthread_t pool[n];`, `n` read so) has the handles of
//! `--thread-rounds K` threads: the loops that create and join its threads run at most K
//! rounds (`indexed_rounds.rs`), and a constant index past them is refused.

use lang_c::ast::{ArraySize, BinaryOperator as B, CallExpression, Declarator, DerivedDeclarator, Expression as E};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{unsupported, Base, Cx, Item, Kind, Lower, Var, N};

/// The functions that read a number out of a string.
const NUMBER_READERS: &[&str] = &["atoi", "atol", "atoll", "sscanf"];

/// Whether `c` reads a number out of `argv[k]` (`argv` named `argv`): `atoi(argv[k])`,
/// `sscanf(argv[k], "%d", &x)`.
pub(super) fn reads_argv(c: &CallExpression, argv: &str) -> bool {
    let E::Identifier(id) = &c.callee.node else { return false };
    if !NUMBER_READERS.contains(&id.node.name.as_str()) {
        return false;
    }
    matches!(c.arguments.first().map(|a| &a.node), Some(E::BinaryOperator(b))
        if b.node.operator.node == B::Index && matches!(&b.node.lhs.node, E::Identifier(v) if v.node.name == argv))
}

impl<'a> Lower<'a> {
    /// Whether `c` reads a number out of `main`'s `argv` ([`reads_argv`]).
    pub(super) fn is_argv_number(&self, c: &CallExpression) -> bool {
        self.argv.as_deref().is_some_and(|argv| reads_argv(c, argv))
    }

    /// The value of `atoi(argv[k])`: a temporary set to a value of the nondet range.
    pub(super) fn argv_value(
        &mut self,
        c: &Node<CallExpression>,
        span: Span,
        cx: &mut Cx,
    ) -> Result<String, Diagnostic> {
        if matches!(&c.node.callee.node, E::Identifier(id) if id.node.name == "sscanf") {
            return Err(unsupported("the value of `sscanf`", span));
        }
        let (lo, hi) = self.options.nondet;
        self.nondet_used = true;
        let t = self.temp();
        let choice = self.choice(&t, lo, hi, cx.span);
        cx.pre.extend(choice);
        Ok(t)
    }

    /// `sscanf(argv[k], "%d", &x);` as a statement: `if (*) { x := a value of the nondet
    /// range }`; `atoi(argv[k]);` (its value unused): nothing.
    pub(super) fn argv_statement(&mut self, c: &'a Node<CallExpression>, span: Span) -> Result<Item, Diagnostic> {
        let args = &c.node.arguments;
        let scan = matches!(&c.node.callee.node, E::Identifier(id) if id.node.name == "sscanf");
        if !scan {
            return Ok(Item::Nodes(Vec::new()));
        }
        let format = self.source.get(self.span(&args[1]).start as usize..self.span(&args[1]).end as usize);
        let into = match (args.len(), format, args.get(2).map(|a| &a.node)) {
            (3, Some("\"%d\"" | "\"%i\"" | "\"%u\""), Some(E::UnaryOperator(u)))
                if u.node.operator.node == lang_c::ast::UnaryOperator::Address =>
            {
                &u.node.operand
            }
            _ => return Err(unsupported("an `sscanf` other than `sscanf(argv[k], \"%d\", &x)`", span)),
        };
        let target = self.target(into)?;
        if target.computed.is_some() {
            return Err(unsupported("`sscanf` into an element at a computed index", span));
        }
        let (lo, hi) = self.options.nondet;
        self.nondet_used = true;
        let t = self.temp();
        let mut nodes = self.choice(&t, lo, hi, span);
        let value = if target.ty.bits < 32 || !target.ty.signed { target.ty.wrap(&t) } else { t };
        let l = self.label(span);
        nodes.push(N::Simple(l, format!("{} := {value}", target.cw)));
        let l = self.label(span);
        self.texts.insert(l.clone(), self.c_text(span));
        Ok(Item::Nodes(vec![N::If(l, "*".to_owned(), nodes, None)]))
    }

    /// A local `pthread_t name[n]` with `n` not a constant: handles for
    /// [`super::Options::thread_rounds`] threads (module docs). `None` for any other
    /// declarator.
    pub(super) fn handle_pool(&self, base: Option<Base>, d: &Node<Declarator>) -> Option<Var> {
        let [x] = d.node.derived.as_slice() else { return None };
        let DerivedDeclarator::Array(a) = &x.node else { return None };
        let size = match &a.node.size {
            ArraySize::VariableExpression(e) => e,
            _ => return None,
        };
        if !matches!(base, Some(Base::Handle)) || self.const_eval(size).is_some() {
            return None;
        }
        let n = self.options.thread_rounds.max(1);
        Some(Var { cw: String::new(), kind: Kind::Handles(n), shared: false })
    }
}
