//! C's types of expressions, as far as the lowering needs them: integer promotion and the
//! usual arithmetic conversions, so that `unsigned` arithmetic wraps modulo 2^32 and a signed
//! value compared with an `unsigned` one is converted first (C11 6.3.1.1, 6.3.1.8; ILP32).

use lang_c::ast::{BinaryOperator as B, Constant, Expression as E, IntegerBase, IntegerSize, UnaryOperator as U};
use lang_c::span::Node;

use super::common::{Base, Kind, Lower, Ty, INT};
use super::decl::radix;

/// `unsigned int`.
pub(super) const UINT: Ty = Ty { bits: 32, signed: false };

/// Integer promotion: a type narrower than `int` (all of whose values `int` holds) becomes
/// `int`.
pub(super) fn promote(t: Ty) -> Ty {
    if t.bits < 32 {
        INT
    } else {
        t
    }
}

/// The usual arithmetic conversions: the common type of two operands.
pub(super) fn common(a: Ty, b: Ty) -> Ty {
    let (a, b) = (promote(a), promote(b));
    if a.signed == b.signed {
        return if a.bits >= b.bits { a } else { b };
    }
    let (u, s) = if a.signed { (b, a) } else { (a, b) };
    // A signed type wider than the unsigned one holds all its values.
    if s.bits > u.bits {
        s
    } else {
        u
    }
}

impl Lower<'_> {
    /// The type of an expression, `None` where the lowering does not know it (a value the
    /// frontend reads some other way, or refuses).
    pub(super) fn ty_of(&self, e: &Node<E>) -> Option<Ty> {
        match &e.node {
            E::Identifier(id) => {
                if self.frame.consts.contains_key(&id.node.name) || matches!(&*id.node.name, "true" | "false" | "NULL")
                {
                    return Some(INT);
                }
                match self.lookup(&id.node.name).map(|v| &v.kind) {
                    Some(Kind::Scalar(t) | Kind::Ref(t) | Kind::Ptr(Some(t), _)) => Some(*t),
                    Some(Kind::Points(target)) => {
                        match self.pointee(target, true).or_else(|| self.lookup(target)).map(|v| &v.kind) {
                            Some(Kind::Scalar(t)) => Some(*t),
                            _ => None,
                        }
                    }
                    Some(_) => None,
                    None => self.element_ty(&id.node.name),
                }
            }
            E::Constant(c) => match &c.node {
                Constant::Integer(i) => {
                    let v = u64::from_str_radix(&i.number, radix(&i.base)).ok()?;
                    let long_long = matches!(i.suffix.size, IntegerSize::LongLong);
                    let decimal = matches!(i.base, IntegerBase::Decimal);
                    // C11 6.4.4.1: the first type of the list that holds the value.
                    Some(match (i.suffix.unsigned, long_long) {
                        (true, false) if v <= u64::from(u32::MAX) => UINT,
                        (true, _) => Ty { bits: 64, signed: false },
                        (false, false) if v <= i32::MAX as u64 => INT,
                        (false, false) if !decimal && v <= u64::from(u32::MAX) => UINT,
                        (false, _) if v <= i64::MAX as u64 => Ty { bits: 64, signed: true },
                        (false, _) => Ty { bits: 64, signed: false },
                    })
                }
                Constant::Character(_) => Some(INT),
                Constant::Float(_) => None,
            },
            E::UnaryOperator(u) => match u.node.operator.node {
                U::Negate => Some(INT),
                U::Minus | U::Plus | U::Complement => self.ty_of(&u.node.operand).map(promote),
                U::Indirection => self.ty_of(&u.node.operand),
                _ => None,
            },
            E::Cast(c) => self.cast_type(&c.node.type_name).ok().flatten(),
            E::BinaryOperator(b) => match b.node.operator.node {
                B::Index => match &b.node.lhs.node {
                    E::Identifier(id) => match self.lookup(&id.node.name).map(|v| &v.kind) {
                        Some(Kind::Array(t, _)) => Some(*t),
                        _ => None,
                    },
                    _ => None,
                },
                B::Less
                | B::Greater
                | B::LessOrEqual
                | B::GreaterOrEqual
                | B::Equals
                | B::NotEquals
                | B::LogicalAnd
                | B::LogicalOr => Some(INT),
                _ => Some(common(self.ty_of(&b.node.lhs)?, self.ty_of(&b.node.rhs)?)),
            },
            E::Call(c) => {
                let E::Identifier(id) = &c.node.callee.node else { return None };
                let name = id.node.name.as_str();
                if let Some(kind) = name.strip_prefix("__VERIFIER_nondet_") {
                    return Some(match kind {
                        "bool" => Ty { bits: 1, signed: false },
                        "char" => Ty { bits: 8, signed: true },
                        "uchar" => Ty { bits: 8, signed: false },
                        "short" => Ty { bits: 16, signed: true },
                        "ushort" => Ty { bits: 16, signed: false },
                        "int" | "long" => INT,
                        "uint" | "unsigned" | "ulong" => UINT,
                        _ => return None,
                    });
                }
                let f = self.functions.get(name)?;
                let specs = f.node.specifiers.clone();
                match self.base_type(&specs).ok()?.0 {
                    Some(Base::Int(t)) => Some(t),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
