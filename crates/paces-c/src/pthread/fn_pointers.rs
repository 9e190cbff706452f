//! Function pointers whose targets are known at read time: a variable or parameter declared
//! `void (*f)()` holds a function's number (its place among the file's functions, by name,
//! from 1; 0 for no function), `f = good` and `foo(bar)` set it, and a call through it,
//! `f()` or `(*f)()`, is a choice over the functions whose address the program takes anywhere
//! and that take as many arguments: `if (f == 1) { bad(); } else { if (f == 2) { good(); }
//! else { assume(0); } }`, the pointer read once before the choice. Calling no function (a
//! null pointer) crashes the program: the path ends there.

use std::collections::{BTreeMap, BTreeSet};

use lang_c::ast::{
    CallExpression, Declarator, DeclaratorKind, DerivedDeclarator, Expression as E, ExternalDeclaration,
    FunctionDefinition, Initializer, TranslationUnit, UnaryOperator as U,
};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{lit, unsupported, Base, Cx, Kind, Lower, Shape, Target, Var, INT, N};

impl<'a> Lower<'a> {
    /// The functions whose address the program takes: named other than as a call's callee
    /// or a `pthread_create`'s thread function, in a function's body or a global's initialiser.
    pub(super) fn addressed_functions(&mut self, unit: &TranslationUnit) {
        let mut v = Addressed { functions: &self.functions, out: BTreeSet::new() };
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::FunctionDefinition(f) => {
                    lang_c::visit::Visit::visit_statement(&mut v, &f.node.statement.node, &f.node.statement.span);
                }
                ExternalDeclaration::Declaration(d) => {
                    for i in d.node.declarators.iter().filter_map(|i| i.node.initializer.as_ref()) {
                        lang_c::visit::Visit::visit_initializer(&mut v, &i.node, &i.span);
                    }
                }
                ExternalDeclaration::StaticAssert(_) => {}
            }
        }
        self.fn_targets = v.out;
    }

    /// The name of a function-pointer declarator (`(*f)()`, `(*f)(int)`).
    pub(super) fn fn_pointer(d: &Node<Declarator>) -> Option<&str> {
        let DeclaratorKind::Declarator(inner) = &d.node.kind.node else { return None };
        let DeclaratorKind::Identifier(id) = &inner.node.kind.node else { return None };
        let pointer = matches!(inner.node.derived.as_slice(), [p] if matches!(p.node, DerivedDeclarator::Pointer(_)));
        let function = matches!(d.node.derived.as_slice(),
            [f] if matches!(f.node, DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)));
        (pointer && function).then_some(id.node.name.as_str())
    }

    /// A global function pointer: a shared variable holding its initialiser's number.
    pub(super) fn fn_pointer_global(
        &mut self,
        name: &str,
        span: Span,
        init: Option<&Node<Initializer>>,
    ) -> Result<(), Diagnostic> {
        let value = match init.map(|i| &i.node) {
            None => 0,
            Some(Initializer::Expression(e)) => match self.function_address(e).or_else(|| self.const_eval(e)) {
                Some(v) => v,
                None => return Err(unsupported("a function pointer's initialiser other than a function", span)),
            },
            Some(Initializer::List(_)) => return Err(unsupported("this initialiser", span)),
        };
        if !self.globals.contains_key(name) {
            let var = self.new_var(name, Base::Int(INT), Shape::Scalar, span, true, &[value])?;
            self.globals.insert(name.to_owned(), var);
        }
        Ok(())
    }

    /// A local function pointer, and the steps of its initialiser.
    pub(super) fn fn_pointer_local(
        &mut self,
        name: &str,
        span: Span,
        init: Option<&'a Node<Initializer>>,
        whole: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        let var = self.new_var(name, Base::Int(INT), Shape::Scalar, span, false, &[])?;
        let target = Target { cw: var.cw.clone(), ty: INT, shared: false, computed: None };
        self.frame.scopes.last_mut().expect("a scope").insert(name.to_owned(), var);
        match init.map(|i| &i.node) {
            None => Ok(Vec::new()),
            Some(Initializer::Expression(e)) => self.assign(&target, None, Some(e), whole),
            Some(Initializer::List(_)) => Err(unsupported("this local initialiser", span)),
        }
    }

    /// The number of the function `e` names (`good` or `&good`), when it names one.
    pub(super) fn function_address(&self, e: &Node<E>) -> Option<i64> {
        let id = match &e.node {
            E::Identifier(id) => id,
            E::UnaryOperator(u) if u.node.operator.node == U::Address => match &u.node.operand.node {
                E::Identifier(id) => id,
                _ => return None,
            },
            _ => return None,
        };
        let name = id.node.name.as_str();
        if self.lookup(name).is_some() {
            return None;
        }
        self.functions.keys().position(|f| f == name).map(|k| k as i64 + 1)
    }

    /// The pointer a call goes through (`f` of `f()` or `(*f)()`), when `f` is a variable.
    pub(super) fn called_pointer(&self, c: &'a Node<CallExpression>) -> Option<&'a Node<E>> {
        let mut callee = &c.node.callee;
        if let E::UnaryOperator(u) = &callee.node {
            if u.node.operator.node == U::Indirection {
                callee = &u.node.operand;
            }
        }
        let E::Identifier(id) = &callee.node else { return None };
        match self.lookup(&id.node.name) {
            Some(Var { kind: Kind::Scalar(_), .. }) => Some(callee),
            _ => None,
        }
    }

    /// A call through `pointer`: the choice over the functions it may hold (module docs).
    pub(super) fn call_through(
        &mut self,
        pointer: &'a Node<E>,
        args: &'a [Node<E>],
        span: Span,
        result: Option<Target<'a>>,
    ) -> Result<Vec<N>, Diagnostic> {
        let targets: Vec<(i64, String)> = self
            .fn_targets
            .iter()
            .filter(|f| self.functions.get(*f).is_some_and(|d| arity(d) == args.len()))
            .filter_map(|f| self.functions.keys().position(|g| g == f).map(|k| (k as i64 + 1, f.clone())))
            .collect();
        if targets.is_empty() {
            return Err(unsupported(
                &format!("a call through a pointer with {} argument(s) when no function taking as many has its address taken", args.len()),
                span,
            ));
        }
        let mut cx = Cx { split: true, pre: Vec::new(), span, arith: false };
        let v = self.expr(pointer, &mut cx)?;
        let held = self.temp();
        let mut nodes = cx.pre;
        let l = self.label(span);
        nodes.push(N::Simple(l, format!("{held} := {v}")));
        let l = self.label(span);
        let mut tail = vec![N::Simple(l, "assume(0)".to_owned())];
        for (k, f) in targets.into_iter().rev() {
            let result = result.as_ref().map(|t| Target {
                cw: t.cw.clone(),
                ty: t.ty,
                shared: t.shared,
                computed: t.computed.clone(),
            });
            let call = self.call_to(&f, args, span, result)?;
            let l = self.label(span);
            tail = vec![N::If(l, format!("{held} == {}", lit(k)), call, Some(tail))];
        }
        nodes.extend(tail);
        self.texts.insert(nodes[0].label_mut().clone(), self.c_text(span));
        Ok(self.unit(nodes, span))
    }
}

/// How many parameters a function declares (`(void)` none).
fn arity(f: &Node<FunctionDefinition>) -> usize {
    f.node
        .declarator
        .node
        .derived
        .iter()
        .map(|x| match &x.node {
            DerivedDeclarator::Function(fd) => {
                fd.node.parameters.iter().filter(|p| p.node.declarator.is_some()).count()
            }
            _ => 0,
        })
        .sum()
}

/// The visitor of [`Lower::addressed_functions`].
struct Addressed<'f, 'a> {
    functions: &'f BTreeMap<String, &'a Node<FunctionDefinition>>,
    out: BTreeSet<String>,
}

impl<'ast> lang_c::visit::Visit<'ast> for Addressed<'_, '_> {
    fn visit_call_expression(&mut self, c: &'ast CallExpression, _: &'ast lang_c::span::Span) {
        let create = matches!(&c.callee.node, E::Identifier(id) if id.node.name == "pthread_create");
        if !matches!(&c.callee.node, E::Identifier(_)) {
            self.visit_expression(&c.callee.node, &c.callee.span);
        }
        for (k, a) in c.arguments.iter().enumerate() {
            if !(create && k == 2) {
                self.visit_expression(&a.node, &a.span);
            }
        }
    }

    fn visit_identifier(&mut self, i: &'ast lang_c::ast::Identifier, _: &'ast lang_c::span::Span) {
        if self.functions.contains_key(&i.name) {
            self.out.insert(i.name.clone());
        }
    }
}
