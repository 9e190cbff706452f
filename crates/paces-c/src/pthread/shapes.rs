//! The shapes of C the pointer flow (`ptrflow.rs`) and the lowering both recognise, read from
//! the syntax alone: `container_of`'s expansion (`container.rs` models it) and a `malloc` or
//! `calloc` call (`alloc.rs`).

use lang_c::ast::{
    BinaryOperator as B, BlockItem, DerivedDeclarator, Expression as E, Initializer, MemberOperator, Statement,
    TypeName, UnaryOperator as U,
};
use lang_c::span::Node;

/// A variable: the function it is a local of (`None`: a global) and its C name (`s.f` for a
/// struct's field).
pub(super) type Key = (Option<String>, String);

/// `e` without the casts around it.
pub(super) fn uncast(e: &Node<E>) -> &Node<E> {
    match &e.node {
        E::Cast(c) => uncast(&c.node.expression),
        _ => e,
    }
}

/// The flow's key (`ptrflow::Key`) of the object a `malloc` or `calloc` call `e` (casts stripped) makes.
pub(super) fn heap_key(e: &Node<E>) -> Option<Key> {
    let e = uncast(e);
    let E::Call(c) = &e.node else { return None };
    let E::Identifier(id) = &c.node.callee.node else { return None };
    matches!(id.node.name.as_str(), "malloc" | "calloc").then(|| (None, format!("heap@{}", e.span.start)))
}

/// A recognised `container_of`: the member pointer, the container's type and the member.
pub(super) struct ContainerOf<'e> {
    pub(super) ptr: &'e Node<E>,
    pub(super) ty: &'e Node<TypeName>,
    pub(super) member: String,
}

/// `e` read as `container_of(ptr, type, member)`, or `None` when it is not that macro's shape.
pub(super) fn container_of(e: &Node<E>) -> Option<ContainerOf<'_>> {
    let E::Statement(s) = &e.node else { return None };
    let Statement::Compound(items) = &s.node else { return None };
    let [first, second] = items.as_slice() else { return None };
    let BlockItem::Declaration(d) = &first.node else { return None };
    let [init] = d.node.declarators.as_slice() else { return None };
    let mptr = match &init.node.declarator.node.kind.node {
        lang_c::ast::DeclaratorKind::Identifier(id) => id.node.name.as_str(),
        _ => return None,
    };
    let Some(Initializer::Expression(ptr)) = init.node.initializer.as_ref().map(|i| &i.node) else { return None };
    let BlockItem::Statement(st) = &second.node else { return None };
    let Statement::Expression(Some(x)) = &st.node else { return None };
    let E::Cast(outer) = &x.node else { return None };
    let ty = &outer.node.type_name;
    if !is_pointer(ty) {
        return None;
    }
    let E::BinaryOperator(b) = &outer.node.expression.node else { return None };
    if b.node.operator.node != B::Minus {
        return None;
    }
    match &uncast(&b.node.lhs).node {
        E::Identifier(id) if id.node.name == mptr => {}
        _ => return None,
    }
    let member = offset_member(&b.node.rhs)?;
    Some(ContainerOf { ptr, ty, member })
}

/// The member an `offsetof(type, member)` names: the builtin, or the macro's
/// `((unsigned long) &((type *)0)->member)`.
fn offset_member(e: &Node<E>) -> Option<String> {
    match &uncast(e).node {
        E::OffsetOf(o) => {
            let d = &o.node.designator.node;
            d.members.is_empty().then(|| d.base.node.name.clone())
        }
        E::UnaryOperator(u) if u.node.operator.node == U::Address => {
            let E::Member(m) = &u.node.operand.node else { return None };
            if m.node.operator.node != MemberOperator::Indirect {
                return None;
            }
            let E::Cast(c) = &m.node.expression.node else { return None };
            let zero = matches!(&c.node.expression.node, E::Constant(k)
                if matches!(&k.node, lang_c::ast::Constant::Integer(i) if i.number.trim_start_matches('0').is_empty()));
            (zero && is_pointer(&c.node.type_name)).then(|| m.node.identifier.node.name.clone())
        }
        _ => None,
    }
}

/// Whether a type name is a pointer type (`T *`).
fn is_pointer(t: &Node<TypeName>) -> bool {
    t.node.declarator.as_ref().is_some_and(|d| {
        matches!(d.node.derived.as_slice(),
        [x] if matches!(x.node, DerivedDeclarator::Pointer(_)))
    })
}
