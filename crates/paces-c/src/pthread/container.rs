//! `container_of(ptr, type, member)` as the Linux kernel's macro writes it (a GNU statement
//! expression: `({ const typeof(((type *)0)->member) *__mptr = (ptr);
//! (type *)((char *)__mptr - offsetof(type, member)); })`, `offsetof` either the builtin or
//! `((unsigned long) &((type *)0)->member)`). The reader models it only where it is sound: the
//! pointer `ptr` names a field `x.member` of a struct variable `x` whose type is `type` (the
//! same struct), and the result is then `&x` (`ptrflow.rs` follows it, `pointsto.rs` computes
//! it). Any other pointer arithmetic stays refused by name.

use lang_c::ast::{SpecifierQualifier, TypeName, TypeSpecifier};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{unsupported, Base, Kind, Lower, Var};
use super::shapes::{ContainerOf, Key};

impl<'a> Lower<'a> {
    /// The struct variable `container_of` yields for the field `field` (the flow's key of
    /// `x.member`, `var` finding a key's variable): `x` when the field is `member` of `x` and
    /// `x`'s type is the macro's `type`; a refusal naming the field otherwise.
    pub(super) fn container_target(
        &self,
        c: &ContainerOf<'_>,
        field: &Key,
        var: &dyn Fn(&Key) -> Option<Var>,
        span: Span,
    ) -> Result<String, Diagnostic> {
        let refused = || {
            let what = format!(
                "`container_of` of a pointer to `{}`, which is not the member `{}` of a struct of that type,",
                field.1, c.member
            );
            unsupported(&what, span)
        };
        let Some(outer) = field.1.strip_suffix(&format!(".{}", c.member)) else { return Err(refused()) };
        let Some(k) = self.container_type(c.ty) else { return Err(refused()) };
        match var(&(field.0.clone(), outer.to_owned())).map(|v| v.kind) {
            Some(Kind::Struct(fields)) if self.same_fields(k, &fields) => Ok(outer.to_owned()),
            _ => Err(refused()),
        }
    }

    /// The struct type a `(type *)` cast names.
    fn container_type(&self, t: &Node<TypeName>) -> Option<usize> {
        t.node.specifiers.iter().find_map(|s| match &s.node {
            SpecifierQualifier::TypeSpecifier(ts) => match &ts.node {
                TypeSpecifier::Struct(st) => match self.struct_base(st, self.span(ts)).ok()? {
                    Base::Struct(k) => Some(k),
                    _ => None,
                },
                TypeSpecifier::TypedefName(n) => self.struct_typedefs.get(&n.node.name).copied(),
                _ => None,
            },
            _ => None,
        })
    }

    /// Whether a struct variable's fields are those of the struct type `k`, in order.
    fn same_fields(&self, k: usize, fields: &[(String, Var)]) -> bool {
        let mut names = Vec::new();
        for f in self.struct_defs[k].node.declarations.iter().flatten() {
            let lang_c::ast::StructDeclaration::Field(f) = &f.node else { continue };
            for d in &f.node.declarators {
                if let Some(d) = &d.node.declarator {
                    names.extend(self.declarator_name(d).ok().map(|(n, _)| n));
                }
            }
        }
        names.len() == fields.len() && names.iter().zip(fields).all(|(a, (b, _))| a == b)
    }
}
