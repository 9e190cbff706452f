//! Arrays of structs, flattened: `struct S a[N]` is one array per field, `a_f_0`, ...,
//! `a_f_{N-1}` in Cwhile (a nested struct's fields arrays of their own, `a_in_f_k`; a mutex
//! field an array of mutexes), each visible as `a.f` in the lowering's scopes. `members.rs`
//! writes `a[i].f` as `a.f[i]`, which reads, writes and locks an element as any array's does
//! (a constant index names the element; a computed one chooses among them).
//!
//! A pointer to an element, `&a[i]`, is an integer holding the index: a local declared with
//! it (`struct S *p = &a[i];`, or another such pointer's value) and assigned such values
//! later, a `struct S *` parameter a call passes one, or a thread's parameter its
//! `pthread_create` passes one at a constant index (each array its own copy of the function,
//! as `pointers.rs` binds a pointer to a global; the argument the index). `p->f` is
//! `a.f[p]`: the pointer read once, a choice among the elements, and an index out of the
//! array's bounds (a pointer past its end) fails as an assertion: C leaves the dereference
//! undefined, and the checker reports it as the error it is. A pointer given elements of two
//! arrays, arithmetic on one, a comparison of one, one passed to a thread at an index that is
//! not a constant and an element of a local array passed to a function are refused by name.

use lang_c::ast::{
    BinaryOperator as B, Declarator, DerivedDeclarator, Expression as E, Initializer, UnaryOperator as U,
};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{strip_casts, unsupported, Base, Cx, Kind, Lower, Shape, Ty, Var, N};
use super::pointers::element_binding;
use super::pointsto::Place;

/// What an element pointer's value is: an array and the index expression (`&a[i]`), or a
/// pointer to one of its elements.
enum Element<'e> {
    Address(String, Var, &'e Node<E>),
    Pointer(String, Var, Var),
}

impl<'a> Lower<'a> {
    /// The variables of an array of `n` structs of type `k`: one array per field, their Cwhile
    /// names starting with `cw` (globals when `shared`).
    pub(super) fn struct_array_var(&mut self, cw: &str, k: usize, n: usize, shared: bool) -> Result<Var, Diagnostic> {
        let mut fields = Vec::new();
        for (specs, d) in self.struct_fields(k)? {
            let (name, at) = self.declarator_name(d)?;
            let (base, _, _) = self.base_type(&specs)?;
            let Some(base) = base else { return Err(unsupported("a `void` field", at)) };
            let field_cw = format!("{cw}_{name}");
            let var = match (base, self.shape(d)?) {
                (_, Shape::Scalar) => self.new_var(&field_cw, base, Shape::Array(n), at, shared, &[])?,
                _ => return Err(unsupported("an array field of an array of structs", at)),
            };
            fields.push((name, var));
        }
        Ok(Var { cw: cw.to_owned(), kind: Kind::Structs(fields), shared })
    }

    /// The value `e` gives a pointer to an element: `&a[i]` (`a` an array of structs) or an
    /// element pointer.
    fn element_of<'e>(&self, e: &'e Node<E>) -> Option<Element<'e>> {
        match &strip_casts(e).node {
            E::UnaryOperator(u) if u.node.operator.node == U::Address => {
                let E::BinaryOperator(b) = &u.node.operand.node else { return None };
                let E::Identifier(id) = &b.node.lhs.node else { return None };
                match self.lookup(&id.node.name) {
                    Some(v @ Var { kind: Kind::Structs(_), .. }) if b.node.operator.node == B::Index => {
                        Some(Element::Address(id.node.name.clone(), v.clone(), &b.node.rhs))
                    }
                    _ => None,
                }
            }
            E::Identifier(id) => match self.lookup(&id.node.name) {
                Some(p @ Var { kind: Kind::Element(name, array), .. }) => {
                    Some(Element::Pointer(name.clone(), (**array).clone(), p.clone()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The index `e`, a value of an element pointer, holds.
    fn element_value(&mut self, e: &'a Node<E>, cx: &mut Cx) -> Result<String, Diagnostic> {
        match self.element_of(e) {
            Some(Element::Address(_, _, index)) => self.expr(index, cx),
            Some(Element::Pointer(_, _, p)) => Ok(self.read_var(&p.cw, p.shared, cx)),
            None => Err(unsupported(
                "this value of a pointer to an element of an array of structs (only `&a[i]` or such a pointer)",
                self.span(e),
            )),
        }
    }

    /// A local `struct S *p = &a[i];` (or `= q`, another element pointer): an integer local
    /// holding the index, and the step that sets it. `None` for any other declaration.
    pub(super) fn element_pointer_decl(
        &mut self,
        base: Option<Base>,
        d: &Node<Declarator>,
        init: Option<&'a Node<Initializer>>,
    ) -> Result<Option<(String, Var, Vec<N>)>, Diagnostic> {
        let single = matches!(d.node.derived.as_slice(), [x] if matches!(x.node, DerivedDeclarator::Pointer(_)));
        let Some(Initializer::Expression(e)) = init.map(|i| &i.node) else { return Ok(None) };
        if !single || !matches!(base, Some(Base::Struct(_))) {
            return Ok(None);
        }
        let (name, array) = match self.element_of(e) {
            Some(Element::Address(name, array, _) | Element::Pointer(name, array, _)) => (name, array),
            None => return Ok(None),
        };
        let (c_name, span) = self.declarator_name(d)?;
        let cw = self.fresh_here(&c_name);
        self.frame.locals.push(cw.clone());
        let mut cx = Cx { split: true, pre: Vec::new(), span, arith: false };
        let v = self.element_value(e, &mut cx)?;
        let label = self.label(span);
        let nodes = self.group(label, span, cx.pre, format!("{cw} := {v}"));
        let var = Var { cw, kind: Kind::Element(name, Box::new(array)), shared: false };
        Ok(Some((c_name, var, nodes)))
    }

    /// `p = &a[i];` or `p = q;` for an element pointer `p`; `None` for any other statement.
    pub(super) fn element_statement(&mut self, e: &'a Node<E>, span: Span) -> Result<Option<Vec<N>>, Diagnostic> {
        let (pointer, rhs) = match &e.node {
            E::BinaryOperator(b) if b.node.operator.node == B::Assign => (&b.node.lhs, Some(&b.node.rhs)),
            E::BinaryOperator(b) => (&b.node.lhs, None),
            E::UnaryOperator(u) => (&u.node.operand, None),
            _ => return Ok(None),
        };
        let E::Identifier(id) = &pointer.node else { return Ok(None) };
        let Some(Var { cw, kind: Kind::Element(_, array), .. }) = self.lookup(&id.node.name).cloned() else {
            return Ok(None);
        };
        let Some(rhs) = rhs else {
            return Err(unsupported("arithmetic on a pointer to an element of an array of structs", self.span(e)));
        };
        match self.element_of(rhs) {
            Some(Element::Address(_, other, _) | Element::Pointer(_, other, _)) if same_array(&array, &other) => {}
            Some(_) => {
                return Err(unsupported("a pointer to elements of two arrays of structs", self.span(rhs)));
            }
            None => return Ok(None), // refused as an assignment to this variable
        }
        let mut cx = Cx { split: true, pre: Vec::new(), span, arith: false };
        let v = self.element_value(rhs, &mut cx)?;
        let label = self.label(span);
        Ok(Some(self.group(label, span, cx.pre, format!("{cw} := {v}"))))
    }

    /// The place `p->f` names when `p` is an element pointer (`pointer` and `rest` `f`): the
    /// field's elements, each chosen by its index, and none for an index out of bounds.
    pub(super) fn element_place(
        &self,
        pointer: &str,
        rest: Option<&str>,
        span: Span,
    ) -> Result<Option<Place>, Diagnostic> {
        let Some(Var { cw, kind: Kind::Element(_, array), shared }) = self.lookup(pointer) else { return Ok(None) };
        let Some(rest) = rest else {
            return Err(unsupported("a whole element of an array of structs through a pointer", span));
        };
        let field = field_of(array, rest)
            .ok_or_else(|| unsupported(&format!("`{pointer}->{rest}`, which names no field of the array,"), span))?;
        let options = match &field.kind {
            Kind::Array(ty, cws) => element_vars(cws, Kind::Scalar(*ty), field.shared),
            Kind::Mutexes(cws) => element_vars(cws, Kind::Mutex, true),
            _ => return Err(unsupported("a field of an element other than an integer or a mutex", span)),
        };
        Ok(Some(Place { sel: cw.clone(), shared: *shared, null: true, options }))
    }

    /// The type of `p->f` for an element pointer `p`.
    pub(super) fn element_ty(&self, name: &str) -> Option<Ty> {
        let (pointer, rest) = name.split_once("->")?;
        match self.lookup(pointer).map(|v| &v.kind) {
            Some(Kind::Element(_, array)) => match field_of(array, rest).map(|f| &f.kind) {
                Some(Kind::Array(ty, _)) => Some(*ty),
                _ => None,
            },
            _ => None,
        }
    }

    /// `pthread_mutex_lock(&m[i])` (or `unlock`, `init`, `destroy`) for an array of mutexes
    /// `m` (a field's: `&a[i].m`) and an index that is not a constant: the index read once,
    /// then a choice among the elements, as an element's read is (an index out of bounds cuts
    /// the path, a bound). `None` for any other argument.
    pub(super) fn indexed_mutex(
        &mut self,
        op: &str,
        arg: Option<&'a Node<E>>,
        span: Span,
    ) -> Result<Option<Vec<N>>, Diagnostic> {
        let Some(E::UnaryOperator(u)) = arg.map(|a| &strip_casts(a).node) else { return Ok(None) };
        let E::BinaryOperator(b) = &u.node.operand.node else { return Ok(None) };
        if u.node.operator.node != U::Address || b.node.operator.node != B::Index {
            return Ok(None);
        }
        let E::Identifier(id) = &b.node.lhs.node else { return Ok(None) };
        let Some(Var { kind: Kind::Mutexes(cws), .. }) = self.lookup(&id.node.name).cloned() else { return Ok(None) };
        if self.const_eval(&b.node.rhs).is_some() {
            return Ok(None);
        }
        if cws.iter().any(|m| self.mutex_types.contains_key(m)) {
            return Err(unsupported("a recursive or error-checking mutex at a computed index", span));
        }
        let steps: Vec<String> = cws
            .iter()
            .map(|m| match op {
                "pthread_mutex_lock" => format!("lock({m})"),
                "pthread_mutex_unlock" => format!("unlock({m})"),
                "pthread_mutex_init" => format!("{m} := 0"),
                _ => "skip".to_owned(),
            })
            .collect();
        let mut cx = Cx { split: true, pre: Vec::new(), span, arith: false };
        let idx = self.expr(&b.node.rhs, &mut cx)?;
        let mut nodes = cx.pre;
        nodes.extend(self.pick(&idx, steps, span));
        Ok(Some(self.item(nodes, span)))
    }

    /// The parameters of the function copy `key` bound to elements of a global array of
    /// structs (`pointers.rs`): each one's C name, the array's C name and its variable.
    pub(super) fn element_params(&self, key: &str) -> Vec<(String, String, Var)> {
        let (Some(bound), Some(f)) = (self.bindings.get(key), self.functions.get(key)) else { return Vec::new() };
        let mut out = Vec::new();
        for x in &f.node.declarator.node.derived {
            let DerivedDeclarator::Function(fd) = &x.node else { continue };
            for (k, g) in bound {
                let Some(array) = element_binding(g) else { continue };
                let Some(d) = fd.node.parameters.get(*k).and_then(|p| p.node.declarator.as_ref()) else { continue };
                let (Ok((name, _)), Some(var)) = (self.declarator_name(d), self.globals.get(array)) else { continue };
                out.push((name, array.to_owned(), var.clone()));
            }
        }
        out
    }

    /// The binding of a `struct S *` parameter that the argument `a` gives: `a[]` when `a` is
    /// an element of the global array of structs `a` (`&a[i]`, or a pointer to one).
    pub(super) fn element_binding_of(&self, a: &Node<E>) -> Result<Option<String>, Diagnostic> {
        let (name, array) = match self.element_of(a) {
            Some(Element::Address(name, array, _) | Element::Pointer(name, array, _)) => (name, array),
            None => return Ok(None),
        };
        if !array.shared {
            let what = "a pointer to an element of a local array of structs passed to a function";
            return Err(unsupported(what, self.span(a)));
        }
        Ok(Some(format!("{name}[]")))
    }

    /// A thread started with a pointer to an element of a global array of structs, `&a[k]`
    /// (`k` a constant, or an unrolled loop's variable): the copy of the thread function whose
    /// first parameter holds the index, and the index. `None` for any other argument.
    pub(super) fn element_thread(
        &mut self,
        function: &str,
        arg: &Node<E>,
    ) -> Result<Option<(String, i64)>, Diagnostic> {
        let Some(binding) = self.element_binding_of(arg)? else { return Ok(None) };
        let index = match self.element_of(arg) {
            Some(Element::Address(_, _, index)) => self.const_eval(index),
            _ => None,
        };
        let what = "a thread argument that points to an element other than at a constant index";
        let index = index.ok_or_else(|| unsupported(what, self.span(arg)))?;
        Ok(Some((self.specialise(function, &[(0, binding)]), index)))
    }

    /// The steps a call of the function copy `key` (procedure `proc`) takes to pass `a` to
    /// its parameter `c_name` (Cwhile `param`): the index, for a parameter bound to an array's
    /// elements; `None` for any other parameter.
    pub(super) fn element_argument(
        &mut self,
        key: &str,
        c_name: Option<&String>,
        (proc, param): (&str, &str),
        a: &'a Node<E>,
        span: Span,
    ) -> Result<Option<Vec<N>>, Diagnostic> {
        let Some(c_name) = c_name else { return Ok(None) };
        if !self.element_params(key).iter().any(|(p, _, _)| p == c_name) {
            return Ok(None);
        }
        let mut cx = Cx { split: true, pre: Vec::new(), span, arith: false };
        let v = self.element_value(a, &mut cx)?;
        let l = self.label(span);
        cx.pre.push(N::Simple(l, format!("{proc}.{param} := {v}")));
        Ok(Some(cx.pre))
    }
}

/// The field `path` (`f`, `in.f`) of an array of structs.
fn field_of<'v>(array: &'v Var, path: &str) -> Option<&'v Var> {
    let mut var = array;
    for part in path.split('.') {
        let Kind::Structs(fields) = &var.kind else { return None };
        var = &fields.iter().find(|(f, _)| f == part)?.1;
    }
    Some(var)
}

/// Each element's variable, numbered by its index.
fn element_vars(cws: &[String], kind: Kind, shared: bool) -> Vec<(i64, Var)> {
    cws.iter().enumerate().map(|(k, cw)| (k as i64, Var { cw: cw.clone(), kind: kind.clone(), shared })).collect()
}

/// Whether two arrays of structs are one (their first elements' variables are).
fn same_array(a: &Var, b: &Var) -> bool {
    fn first(v: &Var) -> Option<&str> {
        match &v.kind {
            Kind::Structs(fields) => fields.iter().find_map(|(_, f)| first(f)),
            Kind::Array(_, cws) | Kind::Mutexes(cws) => cws.first().map(String::as_str),
            _ => None,
        }
    }
    first(a).is_some() && first(a) == first(b) && a.cw == b.cw
}
