//! Declarations of the pthread C lowering: types, shapes, globals, locals, parameters and
//! constant expressions.

use lang_c::ast::{
    BinaryOperator as B, Constant, Declaration, DeclarationSpecifier, Declarator, DeclaratorKind, DerivedDeclarator,
    Expression as E, FunctionDefinition, Initializer, IntegerBase, ParameterDeclaration, StorageClassSpecifier,
    TypeName, TypeSpecifier, UnaryOperator as U,
};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{unsupported, Base, Kind, Lower, Param, Shape, Target, Ty, Var, BOOL, INT, MAX_ELEMENTS, N};
use super::diag::error;
use super::pointers::element_binding;

impl<'a> Lower<'a> {
    pub(super) fn declarator_name(&self, d: &Node<Declarator>) -> Result<(String, Span), Diagnostic> {
        match &d.node.kind.node {
            DeclaratorKind::Identifier(id) => Ok((id.node.name.clone(), self.span(id))),
            DeclaratorKind::Declarator(inner) => {
                if !d.node.derived.is_empty() || !inner.node.derived.is_empty() {
                    return Err(unsupported("a function pointer", self.span(d)));
                }
                self.declarator_name(inner)
            }
            DeclaratorKind::Abstract => Err(error("C0412", "a declaration without a name", self.span(d), "")),
        }
    }

    /// The type the specifiers name: `None` for `void`; a mutex or thread handle as such.
    pub(super) fn base_type(
        &self,
        specs: &[Node<DeclarationSpecifier>],
    ) -> Result<(Option<Base>, bool, bool), Diagnostic> {
        let (mut typedef, mut is_static) = (false, false);
        let mut ts = Vec::new();
        for s in specs {
            match &s.node {
                DeclarationSpecifier::StorageClass(c) => match c.node {
                    StorageClassSpecifier::Typedef => typedef = true,
                    StorageClassSpecifier::Static => is_static = true,
                    // `__thread`: read by the declarations (`tls.rs`).
                    StorageClassSpecifier::Extern
                    | StorageClassSpecifier::Register
                    | StorageClassSpecifier::Auto
                    | StorageClassSpecifier::ThreadLocal => {}
                },
                DeclarationSpecifier::TypeSpecifier(t) => ts.push(t),
                DeclarationSpecifier::TypeQualifier(_) | DeclarationSpecifier::Function(_) => {}
                _ => return Err(unsupported("this declaration specifier", self.span(s))),
            }
        }
        let (mut longs, mut unsigned, mut kind) = (0, false, None::<&str>);
        for t in &ts {
            match &t.node {
                TypeSpecifier::Void => return Ok((None, typedef, is_static)),
                TypeSpecifier::Bool => kind = Some("bool"),
                TypeSpecifier::Char => kind = Some("char"),
                TypeSpecifier::Short => kind = Some("short"),
                TypeSpecifier::Int | TypeSpecifier::Signed => {}
                TypeSpecifier::Long => longs += 1,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::TypedefName(n) => {
                    let name = n.node.name.as_str();
                    return match name {
                        "pthread_t" => Ok((Some(Base::Handle), typedef, is_static)),
                        "pthread_mutex_t" => Ok((Some(Base::Mutex), typedef, is_static)),
                        "pthread_cond_t" => Ok((Some(Base::Cond), typedef, is_static)),
                        "size_t" => Ok((Some(Base::Int(Ty { bits: 32, signed: false })), typedef, is_static)),
                        _ if self.struct_typedefs.contains_key(name) => {
                            Ok((Some(Base::Struct(self.struct_typedefs[name])), typedef, is_static))
                        }
                        _ => match self.typedefs.get(name) {
                            Some(ty) => Ok((Some(Base::Int(*ty)), typedef, is_static)),
                            None => Err(unsupported(&format!("the type `{name}`"), self.span(t))),
                        },
                    };
                }
                TypeSpecifier::Struct(st) => {
                    return Ok((Some(self.struct_base(st, self.span(t))?), typedef, is_static))
                }
                TypeSpecifier::Enum(_) => return Err(unsupported("an enum", self.span(t))),
                _ => return Err(unsupported("this type (only integer types are read)", self.span(t))),
            }
        }
        let bits = match kind {
            Some("bool") => return Ok((Some(Base::Int(BOOL)), typedef, is_static)),
            Some("char") => 8,
            Some("short") => 16,
            _ if longs >= 2 => 64,
            _ => 32,
        };
        Ok((Some(Base::Int(Ty { bits, signed: !unsigned })), typedef, is_static))
    }

    /// The declared shape: scalar, array of a constant size, pointer (refused), function.
    pub(super) fn shape(&self, d: &Node<Declarator>) -> Result<Shape, Diagnostic> {
        let mut shape = Shape::Scalar;
        for x in &d.node.derived {
            match &x.node {
                DerivedDeclarator::Pointer(_) => return Err(unsupported("a pointer", self.span(x))),
                DerivedDeclarator::Array(a) => {
                    let size = match &a.node.size {
                        lang_c::ast::ArraySize::VariableExpression(e) | lang_c::ast::ArraySize::StaticExpression(e) => {
                            self.const_eval(e)
                        }
                        _ => None,
                    };
                    match (size, &shape) {
                        // Up to a million elements: a `pthread_t` array has no variables (its
                        // handles are names); arrays of values and mutexes are held to
                        // `MAX_ELEMENTS` where their variables are made.
                        (Some(n), Shape::Scalar) if (1..=1_000_000).contains(&n) => shape = Shape::Array(n as usize),
                        _ => {
                            return Err(unsupported(
                                "an array whose size is not a constant (or of arrays)",
                                self.span(x),
                            ))
                        }
                    }
                }
                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_) => shape = Shape::Function,
                DerivedDeclarator::Block(_) => return Err(unsupported("a block", self.span(x))),
            }
        }
        Ok(shape)
    }

    pub(super) fn global_decl(&mut self, decl: &'a Node<Declaration>) -> Result<(), Diagnostic> {
        if decl.node.declarators.is_empty() {
            return Ok(()); // a struct's definition (`collect_structs` read it) or a forward declaration
        }
        let (base, typedef, _) = self.base_type(&decl.node.specifiers)?;
        for init in &decl.node.declarators {
            let d = &init.node.declarator;
            if matches!(&d.node.kind.node, DeclaratorKind::Abstract) {
                continue;
            }
            if let Some(name) = Self::fn_pointer(d) {
                let span = self.span(d);
                self.fn_pointer_global(name, span, init.node.initializer.as_ref())?;
                continue;
            }
            let is_fn = d
                .node
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)));
            if is_fn {
                continue; // a prototype (pointer results and parameters included: never called unless defined)
            }
            let (name, nspan) = self.declarator_name(d)?;
            let pointer = d.node.derived.iter().any(|x| matches!(x.node, DerivedDeclarator::Pointer(_)));
            if pointer && !typedef && !self.used.contains(&name) {
                continue; // a pointer no function names (generated tasks declare some): no state
            }
            if let Some((name, var, _)) = self.pointer_decl(base, d, init.node.initializer.as_ref(), true)? {
                self.globals.insert(name, var);
                continue;
            }
            if let Some(var) = self.struct_pointer(base, d, init.node.initializer.as_ref())? {
                self.register(&name, var, true);
                continue;
            }
            let shape = self.shape(d)?;
            if typedef {
                match (base, shape) {
                    (Some(Base::Int(ty)), Shape::Scalar) => {
                        self.typedefs.insert(name, ty);
                    }
                    (Some(Base::Struct(k)), Shape::Scalar) => {
                        self.struct_typedefs.insert(name, k);
                    }
                    _ => return Err(unsupported("a typedef of a type other than an integer", nspan)),
                }
                continue;
            }
            let Some(base) = base else { return Err(unsupported("a `void` variable", nspan)) };
            if self.globals.contains_key(&name) || self.thread_locals.contains_key(&name) {
                continue; // `extern int x;` then `int x;`: one variable (its first initialiser wins)
            }
            if let (Base::Struct(k), Shape::Scalar) = (base, &shape) {
                let var = self.struct_var(&name, k, nspan, true, init.node.initializer.as_ref())?;
                self.register(&name, var, true);
                continue;
            }
            let inits = self.initial(init.node.initializer.as_ref(), &shape)?;
            if self.is_thread_local(&decl.node.specifiers) {
                match (base, shape) {
                    (Base::Int(ty), Shape::Scalar) => {
                        self.declare_thread_local(&name, ty, inits.first().copied().unwrap_or(0));
                        continue;
                    }
                    _ => return Err(unsupported("a thread-local global other than an integer", nspan)),
                }
            }
            let var = self.new_var(&name, base, shape, nspan, true, &inits)?;
            self.register(&name, var, true);
        }
        Ok(())
    }

    /// The constant initial values of a declaration (per element for an array).
    pub(super) fn initial(&self, i: Option<&Node<Initializer>>, shape: &Shape) -> Result<Vec<i64>, Diagnostic> {
        let Some(i) = i else { return Ok(Vec::new()) };
        let not_const = |s| error("C0413", "an initial value that is not a constant", s, "not a constant");
        match (&i.node, shape) {
            (Initializer::Expression(e), Shape::Scalar) => {
                if let E::Identifier(id) = &e.node {
                    if id.node.name == "PTHREAD_MUTEX_INITIALIZER" {
                        return Ok(vec![0]);
                    }
                }
                Ok(vec![self.const_eval(e).ok_or_else(|| not_const(self.span(e)))?])
            }
            (Initializer::List(items), Shape::Array(n)) if items.len() <= *n => items
                .iter()
                .map(|it| {
                    if !it.node.designation.is_empty() {
                        return Err(unsupported("a designated initialiser", self.span(it)));
                    }
                    match &it.node.initializer.node {
                        Initializer::Expression(e) => self.const_eval(e).ok_or_else(|| not_const(self.span(e))),
                        Initializer::List(_) => Err(unsupported("a nested initialiser list", self.span(it))),
                    }
                })
                .collect(),
            _ => Err(unsupported("this initialiser", self.span(i))),
        }
    }

    /// Declares a variable (global when `shared`, else a local of the current frame).
    pub(super) fn new_var(
        &mut self,
        name: &str,
        base: Base,
        shape: Shape,
        span: Span,
        shared: bool,
        inits: &[i64],
    ) -> Result<Var, Diagnostic> {
        let cw = |l: &mut Self, n: String, init: i64| {
            if shared {
                let c = l.fresh(&n);
                l.global_order.push((c.clone(), init, span));
                c
            } else {
                let c = l.fresh_here(&n);
                l.frame.locals.push(c.clone());
                c
            }
        };
        let at = |k: usize| inits.get(k).copied().unwrap_or(0);
        if let (Base::Int(_) | Base::Mutex, Shape::Array(n)) = (&base, &shape) {
            if *n > MAX_ELEMENTS {
                return Err(unsupported(&format!("an array of more than {MAX_ELEMENTS} values or mutexes"), span));
            }
        }
        let kind = match (base, shape) {
            (Base::Int(ty), Shape::Scalar) => {
                let c = cw(self, name.to_owned(), at(0));
                return Ok(Var { cw: c, kind: Kind::Scalar(ty), shared });
            }
            (Base::Int(ty), Shape::Array(n)) => {
                Kind::Array(ty, (0..n).map(|k| cw(self, format!("{name}_{k}"), at(k))).collect())
            }
            (Base::Mutex, _) if !shared => return Err(unsupported("a mutex that is not a global", span)),
            (Base::Mutex, Shape::Scalar) => {
                let c = cw(self, name.to_owned(), 0);
                return Ok(Var { cw: c, kind: Kind::Mutex, shared });
            }
            (Base::Mutex, Shape::Array(n)) => {
                Kind::Mutexes((0..n).map(|k| cw(self, format!("{name}_{k}"), 0)).collect())
            }
            (Base::Cond, Shape::Scalar) => Kind::Cond,
            (Base::Cond, _) => return Err(unsupported("an array of condition variables", span)),
            (Base::Handle, Shape::Scalar) => Kind::Handle,
            (Base::Handle, Shape::Array(n)) => Kind::Handles(n),
            (_, Shape::Function) => return Err(unsupported("this declaration", span)),
            (Base::Struct(_), _) if !inits.is_empty() => {
                return Err(unsupported("an initialiser of an array of structs", span))
            }
            (Base::Struct(k), Shape::Array(n)) => return self.struct_array_var(name, k, n, shared),
            (Base::Struct(_), Shape::Scalar) => return Err(unsupported("a struct variable here", span)),
        };
        Ok(Var { cw: String::new(), kind, shared })
    }

    /// The parameters of a function: name and type; a `void *` is read as an integer (a
    /// thread function's argument (`thread`), or a value a call passes and the body never
    /// dereferences: the lowering refuses a dereference).
    pub(super) fn parameters(
        &self,
        f: &Node<FunctionDefinition>,
        thread: bool,
        bound: &[(usize, String)],
    ) -> Result<Vec<Param>, Diagnostic> {
        let mut out = Vec::new();
        for x in &f.node.declarator.node.derived {
            match &x.node {
                DerivedDeclarator::Function(fd) => {
                    for (k, p) in fd.node.parameters.iter().enumerate() {
                        match bound.iter().find(|(b, _)| *b == k) {
                            // A pointer to an element of an array of structs: its index.
                            Some((_, g)) if element_binding(g).is_some() => {
                                if let Some(d) = &p.node.declarator {
                                    out.push((self.declarator_name(d)?.0, INT, false));
                                }
                                continue;
                            }
                            Some(_) => continue, // a pointer bound to a global (`pointers.rs`)
                            None => {}
                        }
                        if let Some(param) = self.parameter(p, thread)? {
                            out.push(param);
                        }
                    }
                }
                DerivedDeclarator::KRFunction(ids) if ids.is_empty() => {}
                DerivedDeclarator::Pointer(_) => {} // `void *f(...)`: the result is never used
                _ => return Err(unsupported("this function declarator", self.span(x))),
            }
        }
        Ok(out)
    }

    pub(super) fn parameter(&self, p: &Node<ParameterDeclaration>, thread: bool) -> Result<Option<Param>, Diagnostic> {
        let (base, _, _) = self.base_type(&p.node.specifiers)?;
        let Some(d) = &p.node.declarator else { return Ok(None) }; // `(void)`
        if let Some(name) = Self::fn_pointer(d) {
            return Ok(Some((name.to_owned(), INT, false))); // a function's number (`fn_pointers.rs`)
        }
        let (name, span) = self.declarator_name(d)?;
        let pointers = d.node.derived.iter().filter(|x| matches!(x.node, DerivedDeclarator::Pointer(_))).count();
        let one = pointers == 1 && d.node.derived.len() == 1;
        match base {
            Some(Base::Int(ty)) if pointers == 0 => Ok(Some((name, ty, false))),
            // `int *p`: a caller's local passed by reference (`&x`), copied in and out.
            Some(Base::Int(ty)) if one && !thread => Ok(Some((name, ty, true))),
            None if one => Ok(Some((name, INT, false))),
            _ if pointers > 0 => {
                Err(unsupported("a pointer parameter other than `void *` or an integer's `int *`", span))
            }
            _ => Err(unsupported("a parameter of this type", span)),
        }
    }

    pub(super) fn local_decl(&mut self, decl: &'a Node<Declaration>) -> Result<Vec<N>, Diagnostic> {
        let (base, typedef, is_static) = self.base_type(&decl.node.specifiers)?;
        if typedef {
            return Err(unsupported("a typedef inside a function", self.span(decl)));
        }
        if is_static || self.is_thread_local(&decl.node.specifiers) {
            return Err(unsupported("a `static` or thread-local local", self.span(decl)));
        }
        let mut out = Vec::new();
        for init in &decl.node.declarators {
            let d = &init.node.declarator;
            if let Some(name) = Self::fn_pointer(d) {
                let (span, whole) = (self.span(d), self.span(decl));
                out.extend(self.fn_pointer_local(name, span, init.node.initializer.as_ref(), whole)?);
                continue;
            }
            let (name, nspan) = self.declarator_name(d)?;
            let void_pointer = base.is_none()
                && matches!(d.node.derived.as_slice(), [x] if matches!(x.node, DerivedDeclarator::Pointer(_)));
            if void_pointer && init.node.initializer.is_none() {
                // `void *status;` for `pthread_join(t, &status)`, which never stores into it
                // here: no state. Any other use names an undeclared variable (`C0416`).
                continue;
            }
            let element = self.element_pointer_decl(base, d, init.node.initializer.as_ref())?;
            let pointer = match element {
                Some(e) => Some(e),
                None => self.pointer_decl(base, d, init.node.initializer.as_ref(), false)?,
            };
            if let Some((name, var, nodes)) = pointer {
                self.frame.scopes.last_mut().expect("a scope").insert(name, var);
                out.extend(nodes);
                continue;
            }
            if let Some(var) = self.struct_pointer(base, d, init.node.initializer.as_ref())? {
                self.register(&name, var, false);
                continue;
            }
            if let Some(var) = self.handle_pool(base, d) {
                self.frame.scopes.last_mut().expect("a scope").insert(name, var);
                continue;
            }
            let shape = self.shape(d)?;
            if matches!(shape, Shape::Function) {
                continue;
            }
            let Some(base) = base else { return Err(unsupported("a `void` variable", nspan)) };
            // A local whose address another function holds is a global (`pointsto.rs`).
            let escapes = self.escapes(&name, nspan)? || self.main_mutex(base, &shape);
            let shared_name = format!("{}_{name}", super::pointers::base_function(&self.frame.name));
            if let (Base::Struct(k), Shape::Scalar) = (base, &shape) {
                let cw = if escapes { self.fresh(&shared_name) } else { self.fresh_here(&name) };
                let var = self.struct_var(&cw, k, nspan, escapes, init.node.initializer.as_ref())?;
                if escapes {
                    self.promote(&name, &var, nspan)?;
                }
                self.register(&name, var, false);
                continue;
            }
            let var =
                self.new_var(if escapes { &shared_name } else { &name }, base, shape.clone(), nspan, escapes, &[])?;
            if escapes {
                self.promote(&name, &var, nspan)?;
            }
            if let Some(i) = &init.node.initializer {
                match (&i.node, &var.kind) {
                    (Initializer::Expression(e), Kind::Scalar(ty)) => {
                        let span = self.span(decl);
                        let target = Target { cw: var.cw.clone(), ty: *ty, shared: var.shared, computed: None };
                        self.frame.scopes.last_mut().expect("a scope").insert(name.clone(), var.clone());
                        out.extend(self.assign(&target, None, Some(e), span)?);
                        continue;
                    }
                    _ => return Err(unsupported("this local initialiser", self.span(i))),
                }
            }
            self.register(&name, var, false);
        }
        let span = self.span(decl);
        Ok(self.unit(out, span))
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Var> {
        self.frame
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.globals.get(name))
            .or_else(|| self.lookup_member(name))
    }

    pub(super) fn cast_type(&self, t: &Node<TypeName>) -> Result<Option<Ty>, Diagnostic> {
        let specs = super::common::type_specifiers(&t.node.specifiers);
        let pointer = t.node.declarator.as_ref().is_some_and(|d| !d.node.derived.is_empty());
        if pointer {
            return Ok(None); // `(void *)`: the value passes unchanged (thread arguments)
        }
        match self.base_type(&specs)?.0 {
            Some(Base::Int(ty)) => Ok(Some(ty)),
            None => Ok(None),
            _ => Err(unsupported("this cast", self.span(t))),
        }
    }

    pub(super) fn constant(&self, c: &Node<Constant>) -> Result<i64, Diagnostic> {
        match &c.node {
            Constant::Integer(i) => u64::from_str_radix(&i.number, radix(&i.base))
                .ok()
                .and_then(|v| i64::try_from(v).ok())
                .ok_or_else(|| error("C0422", "integer literal out of range", self.span(c), "does not fit in 64 bits")),
            Constant::Character(s) => {
                let inner = s.trim_start_matches('\'').trim_end_matches('\'');
                match inner.as_bytes() {
                    [b] => Ok(i64::from(*b)),
                    [b'\\', b'0'] => Ok(0),
                    [b'\\', b'n'] => Ok(10),
                    _ => Err(unsupported("this character constant", self.span(c))),
                }
            }
            Constant::Float(_) => Err(unsupported("a floating-point constant", self.span(c))),
        }
    }

    /// The value of a constant expression (literals, unrolled loop variables, `+ - * / %`,
    /// comparisons, casts).
    pub(super) fn const_eval(&self, e: &Node<lang_c::ast::Expression>) -> Option<i64> {
        match &e.node {
            E::Constant(c) => self.constant(c).ok(),
            E::Identifier(id) => match id.node.name.as_str() {
                "NULL" | "false" => Some(0),
                "true" => Some(1),
                n => self.frame.consts.get(n).copied(),
            },
            E::Cast(c) => self.const_eval(&c.node.expression),
            E::UnaryOperator(u) if u.node.operator.node == U::Minus => {
                self.const_eval(&u.node.operand).map(i64::wrapping_neg)
            }
            E::UnaryOperator(u) if u.node.operator.node == U::Plus => self.const_eval(&u.node.operand),
            E::BinaryOperator(b) => {
                let (l, r) = (self.const_eval(&b.node.lhs)?, self.const_eval(&b.node.rhs)?);
                match b.node.operator.node {
                    B::Plus => l.checked_add(r),
                    B::Minus => l.checked_sub(r),
                    B::Multiply => l.checked_mul(r),
                    B::Divide => l.checked_div(r),
                    B::Modulo => l.checked_rem(r),
                    B::Less => Some(i64::from(l < r)),
                    B::Equals => Some(i64::from(l == r)),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// The radix of an integer literal's base.
pub(super) fn radix(base: &IntegerBase) -> u32 {
    match base {
        IntegerBase::Decimal => 10,
        IntegerBase::Octal => 8,
        IntegerBase::Hexadecimal => 16,
        IntegerBase::Binary => 2,
    }
}
