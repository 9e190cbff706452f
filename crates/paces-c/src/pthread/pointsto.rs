//! Pointers whose target changes (`q = p;`, `g1 = g2 = &g;`, `m = &mutex2;` in a branch):
//! when every value a pointer can hold is NULL or the address of a variable the reader models
//! (`ptrflow.rs` finds them), the pointer is an integer variable naming its target: 0 for NULL,
//! else the target's number. `p = &x` sets it, `p = q` copies it, `p == q` compares them;
//! `*p` and `p->f` choose among the targets by it (a read reads the one it names, a write
//! writes it, `pthread_mutex_lock(m)` locks it), after one read of the pointer. A dereference
//! of NULL (or of a local pointer never set) fails as an assertion does: C's behaviour is
//! undefined there, and the checker reports it as the error it is. The integer is a global
//! when the pointer is, so other threads' changes to it interleave as any global's do.

use lang_c::ast::{
    BinaryOperator as B, BinaryOperatorExpression, DerivedDeclarator, Expression as E, Initializer, UnaryOperator as U,
};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{lit, strip_casts, unsupported, Addr, Base, Cx, Kind, Lower, Ty, Var, GUARD, N};
use super::pointers::base_function;

/// The operator of an assignment: `None` for `=`, `Some("+")` for `+=`, ...; `None` outside
/// when the operator assigns nothing.
pub(super) fn assignment_op(op: &B) -> Option<Option<&'static str>> {
    Some(match op {
        B::Assign => None,
        B::AssignPlus => Some("+"),
        B::AssignMinus => Some("-"),
        B::AssignMultiply => Some("*"),
        B::AssignDivide => Some("/"),
        B::AssignModulo => Some("%"),
        _ => return None,
    })
}

/// What a dereference names: the pointer's integer and, for each target's number, the
/// variable there.
pub(super) struct Place {
    pub(super) sel: String,
    pub(super) shared: bool,
    pub(super) null: bool,
    pub(super) options: Vec<(i64, Var)>,
}

impl<'a> Lower<'a> {
    /// The variable of a pointer declaration `d` that the lowering models as an integer
    /// naming its target, with the steps of its initialiser (a local's); `None` when the
    /// pointer is read another way (a pointer set once to one variable's address is
    /// `Kind::Points`; one the flow cannot follow is refused where it is declared or used).
    pub(super) fn pointer_decl(
        &mut self,
        base: Option<Base>,
        d: &Node<lang_c::ast::Declarator>,
        init: Option<&'a Node<Initializer>>,
        global: bool,
    ) -> Result<Option<(String, Var, Vec<N>)>, Diagnostic> {
        if !matches!(d.node.derived.as_slice(), [x] if matches!(x.node, DerivedDeclarator::Pointer(_))) {
            return Ok(None);
        }
        let ty = match base {
            Some(Base::Int(ty)) => Some(ty),
            Some(Base::Mutex | Base::Struct(_)) => None,
            _ => return Ok(None),
        };
        let (name, span) = self.declarator_name(d)?;
        let function = (!global).then(|| base_function(&self.frame.name).to_owned());
        let Some(info) = self.flow.pointers.get(&(function.clone(), name.clone())) else { return Ok(None) };
        if let Some(at) = info.unknown {
            let at = if at.is_none() { span } else { self.prep.span(at.start, at.end, self.source) };
            return Err(unsupported(
                &format!("`{name}`, a pointer set to a value other than a variable's address, NULL or such a pointer,"),
                at,
            ));
        }
        // `&p->f` is one variable's address only when `p` is bound to one (`fields.rs`).
        let to_address = init.is_some_and(|i| {
            matches!(&i.node, Initializer::Expression(e) if matches!(&strip_casts(e).node,
                E::UnaryOperator(u) if u.node.operator.node == U::Address && self.bound_operand(&u.node.operand)))
        });
        if !info.reassigned && !info.null && info.addrs.len() == 1 && to_address {
            return Ok(None); // `Kind::Points`
        }
        let mut addrs = Vec::new();
        for key in &info.addrs {
            addrs.push(Addr { id: self.flow.ids[key], owner: key.0.clone(), name: key.1.clone() });
        }
        let kind = Kind::Ptr(ty, addrs);
        if global {
            let value = match init.map(|i| &i.node) {
                None => 0,
                Some(Initializer::Expression(e)) => self.address_id(e).ok_or_else(|| {
                    unsupported("a global pointer's initial value other than a global's address or NULL", self.span(e))
                })?,
                Some(_) => return Err(unsupported("this pointer's initialiser", span)),
            };
            let cw = self.fresh(&name);
            self.global_order.push((cw.clone(), value, span));
            return Ok(Some((name, Var { cw, kind, shared: true }, Vec::new())));
        }
        let cw = self.fresh_here(&name);
        self.frame.locals.push(cw.clone());
        let var = Var { cw: cw.clone(), kind, shared: false };
        let mut nodes = Vec::new();
        if let Some(Initializer::Expression(e)) = init.map(|i| &i.node) {
            // The step is the declarator with its value (`*p = &x`), which a repair moves whole.
            let span = Span { start: self.span(d).start, end: self.span(e).end };
            let mut cx = Cx { split: true, pre: Vec::new(), span, arith: false };
            let v = self.pointer_value(e, &mut cx)?;
            let label = self.label(span);
            nodes = self.group(label, span, cx.pre, format!("{cw} := {v}"));
        }
        Ok(Some((name, var, nodes)))
    }

    /// The number of the address `arg` a `pthread_create` passes to the parameter `param` of
    /// the thread function `function`, when every value that parameter takes is an address or
    /// NULL (else its other values, integers, would share numbers with the addresses).
    pub(super) fn thread_address(&self, function: &str, param: &str, arg: &Node<E>) -> Option<i64> {
        let info = self.flow.pointers.get(&(Some(function.to_owned()), param.to_owned()))?;
        info.unknown.is_none().then(|| self.address_id(arg)).flatten().filter(|v| *v != 0)
    }

    /// Whether the local `name` of the function being lowered escapes (its address is held by
    /// a pointer of another function): then it is a shared variable, `main`'s only (a local of
    /// a function that runs more than once would be one variable per run).
    pub(super) fn escapes(&self, name: &str, span: Span) -> Result<bool, Diagnostic> {
        let key = (Some(base_function(&self.frame.name).to_owned()), name.to_owned());
        if !self.flow.escaped.contains(&key) {
            return Ok(false);
        }
        if !self.frame.is_main || self.frame.loops > 0 {
            return Err(unsupported(
                "a local whose address another function holds, other than one of `main` outside loops,",
                span,
            ));
        }
        Ok(true)
    }

    /// Records the variable of an escaped local (`escapes`), a struct's fields too.
    pub(super) fn escaped_var(&mut self, name: &str, var: &Var) {
        let key = (Some(base_function(&self.frame.name).to_owned()), name.to_owned());
        if let Kind::Struct(fields) = &var.kind {
            for (f, v) in fields.clone() {
                self.escaped_var(&format!("{name}.{f}"), &v);
            }
        }
        self.escaped_vars.insert(key, var.clone());
    }

    /// The number of the variable `e` takes the address of (`&x`), 0 for NULL.
    pub(super) fn address_id(&self, e: &Node<E>) -> Option<i64> {
        let e = strip_casts(e);
        if matches!(&e.node, E::Identifier(id) if id.node.name == "NULL") || self.const_eval(e) == Some(0) {
            return Some(0);
        }
        if let Some(v) = self.known_address(e) {
            return Some(v); // `&p->f`, `container_of(p, ...)` or a bound `p` (`fields.rs`)
        }
        let E::UnaryOperator(u) = &e.node else { return None };
        let E::Identifier(id) = &u.node.operand.node else { return None };
        if u.node.operator.node != U::Address {
            return None;
        }
        let function = base_function(&self.frame.name);
        self.flow.ids.get(&self.flow.resolve(Some(function), &id.node.name)).copied()
    }

    /// The value of a pointer expression: a target's number (`&x`, a modelled pointer's
    /// integer, the target of a `Kind::Points` pointer) or 0 (NULL).
    pub(super) fn pointer_value(&mut self, e: &'a Node<E>, cx: &mut Cx) -> Result<String, Diagnostic> {
        if let Some(v) = self.address_id(e) {
            return Ok(lit(v));
        }
        if let Some(v) = self.derived_value(e, cx)? {
            return Ok(v);
        }
        if let Some(v) = self.alloc_value(e)? {
            return Ok(v);
        }
        if let E::Identifier(id) = &strip_casts(e).node {
            match self.lookup(&id.node.name).cloned() {
                Some(Var { cw, kind: Kind::Ptr(..), shared }) => return Ok(self.read_var(&cw, shared, cx)),
                // A thread function's `void *` parameter that the flow follows: the number
                // its `pthread_create` passed.
                Some(Var { cw, kind: Kind::Scalar(_), shared: false })
                    if self
                        .flow
                        .pointers
                        .get(&(Some(base_function(&self.frame.name).to_owned()), id.node.name.clone()))
                        .is_some_and(|i| i.unknown.is_none()) =>
                {
                    return Ok(cw)
                }
                Some(Var { kind: Kind::Points(target), .. }) => {
                    let function = base_function(&self.frame.name);
                    if let Some(v) = self.flow.ids.get(&self.flow.resolve(Some(function), &target)) {
                        return Ok(lit(*v));
                    }
                }
                _ => {}
            }
        }
        Err(unsupported("this value of a pointer (only a variable's address, NULL or another pointer)", self.span(e)))
    }

    /// Whether `e` is a pointer's value (arithmetic on which is refused).
    pub(super) fn pointer_valued(&self, e: &Node<E>) -> bool {
        match &strip_casts(e).node {
            E::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Var { kind: Kind::Ptr(..), .. }) => true,
                // A thread function's parameter some `pthread_create` passes an address.
                Some(Var { kind: Kind::Scalar(_), shared: false, .. }) => self
                    .flow
                    .pointers
                    .get(&(Some(base_function(&self.frame.name).to_owned()), id.node.name.clone()))
                    .is_some_and(|i| !i.addrs.is_empty()),
                _ => false,
            },
            // A function's address is a function pointer's value (`fn_pointers.rs`).
            E::UnaryOperator(u) => u.node.operator.node == U::Address && self.function_address(e).is_none(),
            _ => false,
        }
    }

    /// The place `*p` or `p->f` names when `p` is a modelled pointer.
    fn place(&self, e: &Node<E>) -> Result<Option<Place>, Diagnostic> {
        let (pointer, rest) = match &e.node {
            E::UnaryOperator(u) if u.node.operator.node == U::Indirection => match &strip_casts(&u.node.operand).node {
                E::Identifier(id) => (id.node.name.as_str(), None),
                _ => return Ok(None),
            },
            E::Identifier(id) => match id.node.name.split_once("->") {
                Some((p, rest)) => (p, Some(rest)),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let span = self.span(e);
        if let Some(p) = self.element_place(pointer, rest, span)? {
            return Ok(Some(p)); // a pointer to an element of an array of structs
        }
        let Some(Var { cw, kind: Kind::Ptr(_, addrs), shared }) = self.lookup(pointer) else { return Ok(None) };
        let mut options = Vec::new();
        for a in addrs {
            let name = match rest {
                Some(r) => format!("{}.{r}", a.name),
                None => a.name.clone(),
            };
            let here = base_function(&self.frame.name);
            let found = match &a.owner {
                None => self.globals.get(&name),
                Some(f) if f == here => self.frame.scopes.iter().rev().find_map(|s| s.get(&name)),
                Some(f) => self.escaped_vars.get(&(Some(f.clone()), name.clone())),
            };
            let var = found.cloned().ok_or_else(|| {
                unsupported(&format!("a pointer to `{name}`, which is not a variable in scope here,"), span)
            })?;
            options.push((a.id, var));
        }
        let null = self.may_be_null(pointer);
        Ok(Some(Place { sel: cw.clone(), shared: *shared, null, options }))
    }

    /// Whether the modelled pointer `name` may be NULL.
    fn may_be_null(&self, name: &str) -> bool {
        let local = self.frame.scopes.iter().any(|s| s.contains_key(name));
        let key = (local.then(|| base_function(&self.frame.name).to_owned()), name.to_owned());
        self.flow.pointers.get(&key).is_none_or(|i| i.null)
    }

    /// How many shared reads `e` makes when it is a dereference of a modelled pointer.
    pub(super) fn place_reads(&self, e: &Node<E>) -> Option<usize> {
        let p = self.place(e).ok().flatten()?;
        Some(usize::from(p.shared) + usize::from(p.options.iter().any(|(_, v)| v.shared)))
    }

    /// The choice among a place's targets: `step(var)` for the target the pointer's value
    /// (read once, into `sel`) names; NULL fails as an assertion.
    fn choose(
        &mut self,
        p: &Place,
        sel: &str,
        span: Span,
        step: &dyn Fn(&Var) -> Result<String, Diagnostic>,
    ) -> Result<Vec<N>, Diagnostic> {
        let mut tail = if p.null || p.options.is_empty() {
            let l = self.label(span);
            vec![N::Simple(l, format!("assert({GUARD}0)"))]
        } else {
            Vec::new()
        };
        for (k, (id, var)) in p.options.iter().enumerate().rev() {
            let l = self.label(span);
            let node = N::Simple(l, step(var)?);
            if tail.is_empty() && k + 1 == p.options.len() {
                tail = vec![node];
                continue;
            }
            let i = self.label(span);
            tail = vec![N::If(i, format!("{sel} == {id}"), vec![node], Some(tail))];
        }
        Ok(tail)
    }

    /// The pointer's value, read once: a temporary for a global pointer.
    fn selector(&mut self, p: &Place, cx: &mut Cx) -> String {
        if !p.shared {
            return p.sel.clone();
        }
        let t = self.temp();
        let l = self.label(cx.span);
        cx.pre.push(N::Simple(l, format!("{t} := {}", p.sel)));
        t
    }

    /// `*p` or `p->f` as a value, when `p` is a modelled pointer.
    pub(super) fn place_read(&mut self, e: &Node<E>, cx: &mut Cx) -> Result<Option<String>, Diagnostic> {
        let Some(p) = self.place(e)? else { return Ok(None) };
        let span = self.span(e);
        let sel = self.selector(&p, cx);
        let t = self.temp();
        let chain = self.choose(&p, &sel, cx.span, &|v| match &v.kind {
            Kind::Scalar(_) => Ok(format!("{t} := {}", v.cw)),
            _ => Err(unsupported("a dereference of a pointer to something other than an integer as a value", span)),
        })?;
        cx.pre.extend(chain);
        Ok(Some(t))
    }

    /// `pthread_mutex_lock(m)` (or `unlock`, `init`) when `m` is a modelled pointer: the
    /// choice of the mutex it names.
    pub(super) fn pointer_mutex(
        &mut self,
        op: &str,
        arg: Option<&Node<E>>,
        span: Span,
    ) -> Result<Option<Vec<N>>, Diagnostic> {
        let Some(a) = arg else { return Ok(None) };
        let deref = match &strip_casts(a).node {
            // `&p->m`: the member names the place itself.
            E::UnaryOperator(u) if u.node.operator.node == U::Address => match &u.node.operand.node {
                E::Identifier(id) if id.node.name.contains("->") => (*u.node.operand).clone(),
                _ => return Ok(None),
            },
            _ => return self.pointer_mutex_deref(op, a, span),
        };
        self.mutex_choice(op, &deref, span)
    }

    /// `pthread_mutex_lock(m)` (see [`Lower::pointer_mutex`]) for the argument `a`, `m` itself.
    fn pointer_mutex_deref(&mut self, op: &str, a: &Node<E>, span: Span) -> Result<Option<Vec<N>>, Diagnostic> {
        let E::Identifier(id) = &strip_casts(a).node else { return Ok(None) };
        let deref = Node::new(
            E::UnaryOperator(Box::new(Node::new(
                lang_c::ast::UnaryOperatorExpression {
                    operator: Node::new(U::Indirection, a.span),
                    operand: Box::new(Node::new(E::Identifier(id.clone()), a.span)),
                },
                a.span,
            ))),
            a.span,
        );
        self.mutex_choice(op, &deref, span)
    }

    /// The lock (or unlock, init) of the mutex the place `deref` (`*m`, `p->m`) names.
    fn mutex_choice(&mut self, op: &str, deref: &Node<E>, span: Span) -> Result<Option<Vec<N>>, Diagnostic> {
        let Some(p) = self.place(deref)? else { return Ok(None) };
        let mut cx = Cx { split: true, pre: Vec::new(), span, arith: false };
        let sel = self.selector(&p, &mut cx);
        // A mutex that knows its owner (`mutexattr.rs`) is locked by its own steps, which a
        // pointer's choice does not take.
        let owned = self.mutex_types.clone();
        let step = |v: &Var| match (&v.kind, op) {
            (Kind::Mutex, _) if owned.contains_key(&v.cw) => {
                Err(unsupported("a recursive or error-checking mutex reached through a pointer", span))
            }
            (Kind::Mutex, "pthread_mutex_lock") => Ok(format!("lock({})", v.cw)),
            (Kind::Mutex, "pthread_mutex_unlock") => Ok(format!("unlock({})", v.cw)),
            (Kind::Mutex, "pthread_mutex_init") => Ok(format!("{} := 0", v.cw)),
            (Kind::Mutex, _) => Ok("skip".to_owned()),
            _ => Err(unsupported("a mutex pointer to something other than a mutex", span)),
        };
        let chain = self.choose(&p, &sel, span, &step)?;
        let mut nodes = cx.pre;
        nodes.extend(chain);
        Ok(Some(self.item(nodes, span)))
    }

    /// A statement's steps as one item ([`Lower::unit`]); a single step shows the statement's text.
    pub(super) fn item(&mut self, nodes: Vec<N>, span: Span) -> Vec<N> {
        let out = self.unit(nodes, span);
        if let [N::Simple(l, _)] = out.as_slice() {
            self.texts.insert(l.clone(), self.c_text(span));
        }
        out
    }

    /// A statement that assigns a modelled pointer (`p = &x;`, `g1 = g2 = &g;`) or writes
    /// through one (`*p = v;`, `(*p)++;`, `p->f += v;`); `None` for any other statement.
    pub(super) fn pointer_statement(&mut self, e: &'a Node<E>, span: Span) -> Result<Option<Vec<N>>, Diagnostic> {
        match &e.node {
            E::BinaryOperator(b) => {
                let Some(op) = assignment_op(&b.node.operator.node) else { return Ok(None) };
                if op.is_none() {
                    if let Some(nodes) = self.pointer_assign(b, span)? {
                        return Ok(Some(nodes));
                    }
                }
                self.place_write(&b.node.lhs, op, Some(&b.node.rhs), span)
            }
            E::UnaryOperator(u) => {
                let op = match u.node.operator.node {
                    U::PostIncrement | U::PreIncrement => "+",
                    U::PostDecrement | U::PreDecrement => "-",
                    _ => return Ok(None),
                };
                self.place_write(&u.node.operand, Some(op), None, span)
            }
            _ => Ok(None),
        }
    }

    /// `p = v;` or `p = q = v;` for modelled pointers `p`, `q`.
    fn pointer_assign(
        &mut self,
        b: &'a Node<BinaryOperatorExpression>,
        span: Span,
    ) -> Result<Option<Vec<N>>, Diagnostic> {
        let mut targets = Vec::new();
        let mut rhs = b;
        loop {
            match &rhs.node.lhs.node {
                E::Identifier(id) => match self.lookup(&id.node.name) {
                    Some(Var { cw, kind: Kind::Ptr(..), .. }) => targets.push(cw.clone()),
                    Some(Var { kind: Kind::Points(_), .. }) | None => return Ok(None),
                    Some(_) if targets.is_empty() && self.pointer_valued(&rhs.node.rhs) => {
                        return Err(unsupported("a pointer's value stored in an integer", span))
                    }
                    Some(_) => return Ok(None),
                },
                _ => return Ok(None),
            }
            match &rhs.node.rhs.node {
                E::BinaryOperator(inner) if inner.node.operator.node == B::Assign => rhs = inner,
                _ => break,
            }
        }
        let mut cx = Cx { split: true, pre: Vec::new(), span, arith: false };
        let mut v = self.pointer_value(&rhs.node.rhs, &mut cx)?;
        if targets.len() > 1 && v.parse::<i64>().is_err() {
            let t = self.temp();
            let l = self.label(span);
            cx.pre.push(N::Simple(l, format!("{t} := {v}")));
            v = t;
        }
        let last = targets.remove(0);
        for cw in targets.iter().rev() {
            let l = self.label(span);
            cx.pre.push(N::Simple(l, format!("{cw} := {v}")));
        }
        let label = self.label(span);
        Ok(Some(self.group(label, span, cx.pre, format!("{last} := {v}"))))
    }

    /// `*p = v`, `*p op= v` or `(*p)++` (`op` `+`, `v` none) when `p` is a modelled pointer.
    fn place_write(
        &mut self,
        lhs: &'a Node<E>,
        op: Option<&str>,
        rhs: Option<&'a Node<E>>,
        span: Span,
    ) -> Result<Option<Vec<N>>, Diagnostic> {
        let Some(p) = self.place(lhs)? else { return Ok(None) };
        let at = self.span(lhs);
        let mut cx = Cx { split: true, pre: Vec::new(), span, arith: op.is_some() };
        let mut value = match rhs {
            Some(r) => self.expr(r, &mut cx)?,
            None => "1".to_owned(),
        };
        let sel = self.selector(&p, &mut cx);
        let scalar = |v: &Var| match &v.kind {
            Kind::Scalar(ty) => Ok(*ty),
            _ => Err(unsupported("a write through a pointer to something other than an integer", at)),
        };
        if let Some(op) = op {
            let old = self.temp();
            let chain = self.choose(&p, &sel, span, &|v| scalar(v).map(|_| format!("{old} := {}", v.cw)))?;
            cx.pre.extend(chain);
            value = format!("({old} {op} {value})");
        }
        let t = self.temp();
        let l = self.label(span);
        cx.pre.push(N::Simple(l, format!("{t} := {value}")));
        let arith = cx.arith;
        let wrap = move |ty: Ty| if ty.bits < 32 || !ty.signed || arith { ty.wrap(&t) } else { t.clone() };
        let chain = self.choose(&p, &sel, span, &|v| scalar(v).map(|ty| format!("{} := {}", v.cw, wrap(ty))))?;
        let mut nodes = cx.pre;
        nodes.extend(chain);
        Ok(Some(self.item(nodes, span)))
    }
}
