//! Reading C expressions and constants as Cwhile text.

use lang_c::ast::{BinaryOperator as B, Constant, Expression, Expression as E, IntegerBase, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::{error, outside, Reader, Scope};

impl Reader<'_> {
    /// A constant: a number, `true`/`false`, a macro, or `-` one of these.
    pub(super) fn constant(&self, e: &Node<Expression>) -> Result<i64, Diagnostic> {
        match &e.node {
            E::Constant(c) => self.int_constant(c),
            E::Identifier(id) if id.node.name == "true" => Ok(1),
            E::Identifier(id) if id.node.name == "false" => Ok(0),
            E::Identifier(id) => {
                self.macros.get(&id.node.name).copied().ok_or_else(|| {
                    error("C0113", "an initial value must be a constant", self.span(e), "not a constant")
                })
            }
            E::UnaryOperator(u) if u.node.operator.node == U::Minus => {
                self.constant(&u.node.operand).map(i64::wrapping_neg)
            }
            _ => Err(error("C0113", "an initial value must be a constant", self.span(e), "not a constant")),
        }
    }

    fn int_constant(&self, c: &Node<Constant>) -> Result<i64, Diagnostic> {
        let Constant::Integer(i) = &c.node else {
            return Err(outside("a non-integer constant", self.span(c)));
        };
        let radix = match i.base {
            IntegerBase::Decimal => 10,
            IntegerBase::Octal => 8,
            IntegerBase::Hexadecimal => 16,
            IntegerBase::Binary => 2,
        };
        u64::from_str_radix(&i.number, radix)
            .ok()
            .and_then(|v| i64::try_from(v).ok())
            .ok_or_else(|| error("C0114", "integer literal out of range", self.span(c), "does not fit in 64 bits"))
    }

    /// An expression as Cwhile text; `cond`: in a condition, where `&` and `|` are `&&`, `||`.
    pub(super) fn expr(&self, e: &Node<Expression>, scope: &Scope, cond: bool) -> Result<String, Diagnostic> {
        let span = self.span(e);
        match &e.node {
            E::Identifier(id) => {
                let n = id.node.name.as_str();
                match n {
                    "true" => Ok("1".into()),
                    "false" => Ok("0".into()),
                    _ => {
                        if let Some(v) = self.macros.get(n) {
                            return Ok(lit(*v));
                        }
                        if self.functions.contains_key(n) && !scope.locals.contains(n) {
                            return Ok("1".into()); // a function as a value: a set hook
                        }
                        if n == "nondet" {
                            let k = scope.read_draws.get();
                            scope.read_draws.set(k + 1);
                            return scope.drawn.get(k).cloned().ok_or_else(|| {
                                error("C0115", "`nondet` is read where no value was drawn for it", span, "here")
                            });
                        }
                        self.variable(n, span, scope)
                    }
                }
            }
            E::Constant(c) => self.int_constant(c).map(lit),
            E::UnaryOperator(u) => {
                let a = || self.expr(&u.node.operand, scope, false);
                match u.node.operator.node {
                    U::Minus => Ok(format!("(-{})", a()?)),
                    U::Plus => a(),
                    U::Negate => Ok(format!("(!{})", self.expr(&u.node.operand, scope, true)?)),
                    // Two's complement: `~x` is `-x - 1`, exactly (with wrapping).
                    U::Complement => Ok(format!("((-{}) - 1)", a()?)),
                    U::PreIncrement | U::PreDecrement | U::PostIncrement | U::PostDecrement => {
                        Err(outside("`++`/`--` inside an expression", span))
                    }
                    U::Address | U::Indirection => Err(outside("a pointer operation", span)),
                }
            }
            E::BinaryOperator(_) => self.chain(e, scope, cond),
            E::Call(_) => Err(error(
                "C0116",
                "a call inside an expression is not supported",
                span,
                "call it as a statement `x = f(...);`",
            )),
            E::Cast(_) => Err(outside("a cast", span)),
            E::StringLiteral(_) => Err(outside("a string", span)),
            E::Member(_) => Err(outside("a struct member", span)),
            E::Conditional(_) => Err(outside("`?:`", span)),
            E::Comma(_) => Err(outside("the comma operator", span)),
            E::SizeOfTy(_) | E::SizeOfVal(_) | E::AlignOf(_) => Err(outside("`sizeof`", span)),
            _ => Err(outside("this expression", span)),
        }
    }
}

/// One binary operator on the left spine of a chain: what follows the left operand.
enum Link<'e> {
    /// `op right`; whether the operands are conditions.
    Op(&'static str, &'e Node<Expression>, bool),
    /// `x << k` for a constant `k`: `* 2^k`.
    Times(String),
}

impl Reader<'_> {
    /// A binary operator expression as Cwhile text. The left spine (`a + b + c` is
    /// `(a + b) + c`, as deep as it is long) is walked with a loop; only right operands,
    /// whose depth the brackets bound, are read recursively.
    fn chain(&self, e: &Node<Expression>, scope: &Scope, cond: bool) -> Result<String, Diagnostic> {
        let mut links = Vec::new();
        let (mut at, mut at_cond) = (e, cond);
        while let E::BinaryOperator(b) = &at.node {
            let link = self.link(b, at_cond, self.span(at))?;
            at_cond = matches!(link, Link::Op(_, _, true));
            links.push(link);
            at = &b.node.lhs;
        }
        let mut text = "(".repeat(links.len());
        text.push_str(&self.expr(at, scope, at_cond)?);
        for link in links.iter().rev() {
            match link {
                Link::Op(op, right, operand_cond) => {
                    let r = self.expr(right, scope, *operand_cond)?;
                    text.push_str(&format!(" {op} {r})"));
                }
                Link::Times(factor) => text.push_str(&format!(" * {factor})")),
            }
        }
        Ok(text)
    }

    /// The link of one binary operator; `cond`: in a condition, where `&` and `|` are `&&`
    /// and `||`.
    fn link<'e>(
        &self,
        b: &'e Node<lang_c::ast::BinaryOperatorExpression>,
        cond: bool,
        span: Span,
    ) -> Result<Link<'e>, Diagnostic> {
        let (op, operand_cond) = match b.node.operator.node {
            B::LogicalOr => ("||", true),
            B::LogicalAnd => ("&&", true),
            B::BitwiseOr if cond => ("||", true),
            B::BitwiseAnd if cond => ("&&", true),
            B::Equals => ("==", false),
            B::NotEquals => ("!=", false),
            B::Less => ("<", false),
            B::LessOrEqual => ("<=", false),
            B::Greater => (">", false),
            B::GreaterOrEqual => (">=", false),
            B::Plus => ("+", false),
            B::Minus => ("-", false),
            B::Multiply => ("*", false),
            B::Divide => ("/", false),
            B::Modulo => ("%", false),
            B::BitwiseOr | B::BitwiseAnd => {
                return Err(unsupported("`&` or `|` on integers (outside a condition)", span))
            }
            B::ShiftLeft => return self.shift_left(&b.node.rhs).map(Link::Times),
            B::BitwiseXor | B::ShiftRight => return Err(unsupported("`^` or `>>`", span)),
            B::Index => return Err(outside("an array access", span)),
            _ => return Err(outside("an assignment inside an expression", span)),
        };
        Ok(Link::Op(op, &b.node.rhs, operand_cond))
    }

    /// The factor of `x << k` for a constant `k` from 0 to 63: `x * 2^k`, the same bits with
    /// wrapping.
    fn shift_left(&self, k: &Node<Expression>) -> Result<String, Diagnostic> {
        let amount = self
            .constant(k)
            .ok()
            .filter(|k| (0..64).contains(k))
            .ok_or_else(|| unsupported("`<<` by anything but a constant from 0 to 63", self.span(k)))?;
        Ok(lit(1i64.wrapping_shl(amount as u32)))
    }
}

fn unsupported(what: &str, span: Span) -> Diagnostic {
    error("C0117", format!("{what} is in the dialect but PACES does not support it yet"), span, "not supported")
}

fn lit(v: i64) -> String {
    if v < 0 {
        format!("(-{})", v.unsigned_abs())
    } else {
        v.to_string()
    }
}
