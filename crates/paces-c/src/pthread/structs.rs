//! Structs of scalars, arrays, mutexes and structs, flattened: a struct variable `s` is one
//! variable per field, named `s.f` in the lowering's scopes (`members.rs` writes `s.f` as that
//! name) and `s_f` in Cwhile. A pointer `p` initialised to a struct variable's address
//! (`struct S *p = &g;`) holds no state: `p->f` is `g.f`. Arrays of structs are one array per
//! field (`struct_arrays.rs`). Unions, bit-fields, a whole struct as a value and any other
//! pointer to a struct are refused by name.

use lang_c::ast::{
    DeclarationSpecifier, Declarator, DerivedDeclarator, Expression as E, ExternalDeclaration, Initializer,
    SpecifierQualifier, StructDeclaration, StructKind, StructType, TranslationUnit, TypeSpecifier, UnaryOperator as U,
};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{type_specifiers, unsupported, Base, Kind, Lower, Shape, Var};
use super::diag::error;

/// A field of a struct type: its type specifiers and its declarator.
pub(super) type Field<'a> = (Vec<Node<DeclarationSpecifier>>, &'a Node<Declarator>);

impl<'a> Lower<'a> {
    /// Registers the struct types the file's declarations define (nested ones too), by tag and
    /// by place, so that declarations can name them.
    pub(super) fn collect_structs(&mut self, unit: &'a TranslationUnit) {
        for ext in &unit.0 {
            if let ExternalDeclaration::Declaration(d) = &ext.node {
                for s in &d.node.specifiers {
                    if let DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                        self.collect_struct(t);
                    }
                }
            }
        }
    }

    fn collect_struct(&mut self, t: &'a Node<TypeSpecifier>) {
        let TypeSpecifier::Struct(st) = &t.node else { return };
        let Some(fields) = &st.node.declarations else { return };
        if st.node.kind.node == StructKind::Struct {
            let k = self.struct_defs.len();
            self.struct_defs.push(st);
            self.struct_at.insert(st.span.start, k);
            if let Some(tag) = &st.node.identifier {
                self.struct_tags.insert(tag.node.name.clone(), k);
            }
        }
        for f in fields {
            if let StructDeclaration::Field(f) = &f.node {
                for s in &f.node.specifiers {
                    if let SpecifierQualifier::TypeSpecifier(t) = &s.node {
                        self.collect_struct(t);
                    }
                }
            }
        }
    }

    /// The struct type a type specifier names.
    pub(super) fn struct_base(&self, st: &Node<StructType>, span: Span) -> Result<Base, Diagnostic> {
        if st.node.kind.node == StructKind::Union {
            return Err(unsupported("a union", span));
        }
        let found = match (&st.node.declarations, &st.node.identifier) {
            (Some(_), _) => self.struct_at.get(&st.span.start),
            (None, Some(tag)) => self.struct_tags.get(&tag.node.name),
            (None, None) => None,
        };
        found
            .map(|k| Base::Struct(*k))
            .ok_or_else(|| unsupported("a struct defined inside a function, or declared without its fields", span))
    }

    /// A struct variable: one variable per field (a global when `shared`), each field's
    /// initial value from the positional initialiser list `init` (a global's only).
    pub(super) fn struct_var(
        &mut self,
        cw: &str,
        k: usize,
        span: Span,
        shared: bool,
        init: Option<&Node<Initializer>>,
    ) -> Result<Var, Diagnostic> {
        let items = match init.map(|i| &i.node) {
            None => &[][..],
            Some(Initializer::List(items)) if shared => items.as_slice(),
            Some(_) => {
                let at = init.map_or(span, |i| self.span(i));
                return Err(unsupported("an initialiser of a local struct (or one that is not a list)", at));
            }
        };
        let mut fields = Vec::new();
        for (specs, d) in self.struct_fields(k)? {
            let item = items.get(fields.len());
            if let Some(it) = item.filter(|it| !it.node.designation.is_empty()) {
                return Err(unsupported("a designated initialiser", self.span(it)));
            }
            let field = self.field(cw, d, &specs, shared, item.map(|it| &*it.node.initializer))?;
            fields.push(field);
        }
        if items.len() > fields.len() {
            return Err(error("C0413", "more initial values than the struct has fields", self.span(&items[0]), ""));
        }
        Ok(Var { cw: String::new(), kind: Kind::Struct(fields), shared })
    }

    /// The fields of the struct type `k`, in order: each one's type specifiers and declarator
    /// (a bit-field is refused).
    pub(super) fn struct_fields(&self, k: usize) -> Result<Vec<Field<'a>>, Diagnostic> {
        let st = self.struct_defs[k];
        let mut out = Vec::new();
        for f in st.node.declarations.iter().flatten() {
            let StructDeclaration::Field(f) = &f.node else { continue };
            let specs = type_specifiers(&f.node.specifiers);
            for d in &f.node.declarators {
                if d.node.bit_width.is_some() {
                    return Err(unsupported("a bit-field", self.span(d)));
                }
                if let Some(d) = &d.node.declarator {
                    out.push((specs.clone(), d));
                }
            }
        }
        Ok(out)
    }

    /// One field of a struct variable whose fields' Cwhile names start with `cw`.
    fn field(
        &mut self,
        cw: &str,
        d: &Node<Declarator>,
        specs: &[Node<DeclarationSpecifier>],
        shared: bool,
        init: Option<&Node<Initializer>>,
    ) -> Result<(String, Var), Diagnostic> {
        let (name, span) = self.declarator_name(d)?;
        let (base, _, _) = self.base_type(specs)?;
        if d.node.derived.iter().any(|x| matches!(x.node, DerivedDeclarator::Pointer(_))) {
            // A list or tree through it (`next`): the objects it links are not followed.
            return Err(unsupported(&format!("`{name}`, a pointer field of a struct,"), span));
        }
        let Some(base) = base else { return Err(unsupported("a `void` field", span)) };
        let shape = self.shape(d)?;
        let field_cw = format!("{cw}_{name}");
        let var = match (base, &shape) {
            (Base::Struct(k), Shape::Scalar) => self.struct_var(&field_cw, k, span, shared, init)?,
            _ => {
                let inits = self.initial(init, &shape)?;
                self.new_var(&field_cw, base, shape, span, shared, &inits)?
            }
        };
        Ok((name, var))
    }

    /// Makes a variable visible under its C name (in the globals, or the innermost scope of the
    /// function), a struct's fields under `name.field`.
    pub(super) fn register(&mut self, name: &str, var: Var, global: bool) {
        if let Kind::Struct(fields) | Kind::Structs(fields) = &var.kind {
            for (f, v) in fields.clone() {
                self.register(&format!("{name}.{f}"), v, global);
            }
        }
        if global {
            self.globals.insert(name.to_owned(), var);
        } else {
            self.frame.scopes.last_mut().expect("a scope").insert(name.to_owned(), var);
        }
    }

    /// A pointer declared with a variable's address (`struct S *p = &g;`, `int *p = &x;`,
    /// `pthread_mutex_t *m = &m1;`): the variable it points to, which `*p`, `p->f` and
    /// `pthread_mutex_lock(m)` name (a pointer assigned later is refused where it is
    /// assigned). `None` when `d` declares no such pointer; a pointer to a struct declared
    /// any other way is refused.
    pub(super) fn struct_pointer(
        &self,
        base: Option<Base>,
        d: &Node<Declarator>,
        init: Option<&Node<Initializer>>,
    ) -> Result<Option<Var>, Diagnostic> {
        if !matches!(d.node.derived.as_slice(), [x] if matches!(x.node, DerivedDeclarator::Pointer(_))) {
            return Ok(None);
        }
        let is_struct = matches!(base, Some(Base::Struct(_)));
        let refused =
            |span| unsupported("a pointer to a struct other than one set to a struct variable's address", span);
        let target = match init.map(|i| &i.node) {
            Some(Initializer::Expression(e)) => match &e.node {
                E::UnaryOperator(u) if u.node.operator.node == U::Address => match &u.node.operand.node {
                    E::Identifier(id) => Some((id.node.name.clone(), self.span(e))),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some((target, span)) = target else {
            let at = match init.map(|i| &i.node) {
                Some(Initializer::Expression(e)) => self.span(e),
                _ => init.map_or(self.span(d), |i| self.span(i)),
            };
            return if is_struct { Err(refused(at)) } else { Ok(None) };
        };
        let found = self.lookup(&target);
        let fits = match (base, found.map(|v| &v.kind)) {
            (Some(Base::Struct(_)), Some(Kind::Struct(_)))
            | (Some(Base::Int(_)), Some(Kind::Scalar(_)))
            | (Some(Base::Mutex), Some(Kind::Mutex)) => true,
            (Some(Base::Struct(_)), _) => return Err(refused(span)),
            _ => false,
        };
        // A field through a bound pointer (`&p->f`) is that variable's field.
        let target = match target.split_once("->").map(|(p, rest)| (self.lookup(p), rest)) {
            Some((Some(Var { kind: Kind::Points(t), .. }), rest)) => format!("{t}.{rest}"),
            _ => self.global_key(&target).unwrap_or(target),
        };
        Ok(fits.then(|| Var { cw: String::new(), kind: Kind::Points(target), shared: found.is_some_and(|v| v.shared) }))
    }

    /// The variable named `name`, where the name may be a member access through a pointer
    /// (`p->f`, `p->in.f`): the field of the struct variable the pointer was set to.
    pub(super) fn lookup_member(&self, name: &str) -> Option<&Var> {
        let (pointer, rest) = name.split_once("->")?;
        match self.lookup(pointer) {
            Some(Var { kind: Kind::Points(target), shared, .. }) => self.pointee(&format!("{target}.{rest}"), *shared),
            _ => None,
        }
    }

    /// The variable named `target` that a pointer points to: a global when the pointer points
    /// to one (`shared`), found among the globals whatever the function's locals are named; else
    /// the visible variable of that name.
    pub(super) fn pointee(&self, target: &str, shared: bool) -> Option<&Var> {
        if shared {
            self.globals.get(target)
        } else {
            self.lookup(target)
        }
    }

    /// The error for a name that names no variable: a member through a pointer that was not
    /// set to a struct's address is refused by name; any other name is undeclared.
    pub(super) fn undeclared(&self, name: &str, span: Span) -> Diagnostic {
        if name.contains("->") {
            return unsupported(
                &format!("`{name}`, a member through a pointer other than one set to a struct variable's address,"),
                span,
            );
        }
        let base = name.split('.').next().unwrap_or(name);
        if base.len() < name.len() && self.lookup(base).is_some() {
            // `x.f` or `x[i].f` of an `x` that is no struct (a pointer's element, `p[i].f`).
            return unsupported(&format!("`{name}`, a member of something other than a struct,"), span);
        }
        error("C0416", format!("`{name}` is not declared"), span, "unknown name")
    }
}
