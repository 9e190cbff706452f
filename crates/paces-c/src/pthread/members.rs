//! Member accesses written as names, before the lowering: `s.f` becomes the identifier `s.f`,
//! `p->f` and `(*p).f` the identifier `p->f` (nested: `s.in.f`), each with the span of the
//! access. A struct variable's fields are variables of their own under those names
//! (`structs.rs`), so every construct that reads, writes, indexes or locks a variable reads a
//! field the same way. A member of an element of a named array, `a[i].f` (`a[i].in.f`,
//! `s.a[i].f`), becomes the element `a.f[i]` of the field's own array (`struct_arrays.rs`).
//! A member of anything else (`f().x`) stays a member access, which the lowering refuses by
//! name.

use lang_c::ast::{
    BinaryOperator as B, BlockItem, Declaration, Expression as E, ExternalDeclaration, ForInitializer, Identifier,
    Initializer, MemberExpression, MemberOperator, Statement, TranslationUnit, UnaryOperator as U,
};
use lang_c::span::Node;

/// Rewrites the member accesses of every function body and declaration.
pub(super) fn name_members(unit: &mut TranslationUnit) {
    for ext in &mut unit.0 {
        match &mut ext.node {
            ExternalDeclaration::FunctionDefinition(f) => statement(&mut f.node.statement),
            ExternalDeclaration::Declaration(d) => declaration(d),
            ExternalDeclaration::StaticAssert(_) => {}
        }
    }
}

fn declaration(d: &mut Node<Declaration>) {
    for init in &mut d.node.declarators {
        if let Some(i) = &mut init.node.initializer {
            initializer(i);
        }
    }
}

fn initializer(i: &mut Node<Initializer>) {
    match &mut i.node {
        Initializer::Expression(e) => expression(e),
        Initializer::List(items) => {
            for it in items {
                initializer(&mut it.node.initializer);
            }
        }
    }
}

fn statement(s: &mut Node<Statement>) {
    match &mut s.node {
        Statement::Compound(items) => {
            for item in items {
                match &mut item.node {
                    BlockItem::Statement(s) => statement(s),
                    BlockItem::Declaration(d) => declaration(d),
                    BlockItem::StaticAssert(_) => {}
                }
            }
        }
        Statement::Labeled(l) => statement(&mut l.node.statement),
        Statement::Expression(Some(e)) => expression(e),
        Statement::If(i) => {
            expression(&mut i.node.condition);
            statement(&mut i.node.then_statement);
            if let Some(e) = &mut i.node.else_statement {
                statement(e);
            }
        }
        Statement::Switch(sw) => guarded(&mut sw.node.expression, &mut sw.node.statement),
        Statement::While(w) => guarded(&mut w.node.expression, &mut w.node.statement),
        Statement::DoWhile(d) => guarded(&mut d.node.expression, &mut d.node.statement),
        Statement::For(f) => {
            match &mut f.node.initializer.node {
                ForInitializer::Expression(e) => expression(e),
                ForInitializer::Declaration(d) => declaration(d),
                ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
            }
            for e in [&mut f.node.condition, &mut f.node.step].into_iter().flatten() {
                expression(e);
            }
            statement(&mut f.node.statement);
        }
        Statement::Return(Some(e)) => expression(e),
        _ => {}
    }
}

/// A statement with the expression that controls it (`switch`, `while`, `do`).
fn guarded(e: &mut Node<E>, s: &mut Node<Statement>) {
    expression(e);
    statement(s);
}

fn expression(e: &mut Node<E>) {
    match &mut e.node {
        E::Member(m) => {
            expression(&mut m.node.expression);
            if let Some(indexed) = element_member(&mut m.node) {
                e.node = indexed;
                return;
            }
            let field = &m.node.identifier.node.name;
            let name = match (&m.node.operator.node, &m.node.expression.node) {
                (MemberOperator::Direct, E::Identifier(id)) => Some(format!("{}.{field}", id.node.name)),
                (MemberOperator::Indirect, E::Identifier(id)) => Some(format!("{}->{field}", id.node.name)),
                (MemberOperator::Direct, E::UnaryOperator(u)) if u.node.operator.node == U::Indirection => {
                    match &u.node.operand.node {
                        E::Identifier(id) => Some(format!("{}->{field}", id.node.name)),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(name) = name {
                e.node = E::Identifier(Box::new(Node::new(Identifier { name }, e.span)));
            }
        }
        E::UnaryOperator(u) => expression(&mut u.node.operand),
        E::Cast(c) => expression(&mut c.node.expression),
        E::BinaryOperator(b) => [&mut b.node.lhs, &mut b.node.rhs].into_iter().for_each(|e| expression(e)),
        E::Conditional(c) => {
            let c = &mut c.node;
            [&mut c.condition, &mut c.then_expression, &mut c.else_expression].into_iter().for_each(|e| expression(e));
        }
        E::Comma(items) => items.iter_mut().for_each(expression),
        E::Call(c) => {
            expression(&mut c.node.callee);
            c.node.arguments.iter_mut().for_each(expression);
        }
        _ => {}
    }
}

/// `a[i].f` as `a.f[i]`: the index expression of the member access `m` with its array named
/// for the field, when `m` is a member of an element of a named array.
fn element_member(m: &mut MemberExpression) -> Option<E> {
    if m.operator.node != MemberOperator::Direct {
        return None;
    }
    let E::BinaryOperator(b) = &mut m.expression.node else { return None };
    if b.node.operator.node != B::Index {
        return None;
    }
    let E::Identifier(id) = &mut b.node.lhs.node else { return None };
    id.node.name = format!("{}.{}", id.node.name, m.identifier.node.name);
    let hole = E::Identifier(Box::new(Node::new(Identifier { name: String::new() }, m.expression.span)));
    Some(std::mem::replace(&mut m.expression.node, hole))
}
