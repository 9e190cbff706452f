//! Calls of the pthread C lowering: built-ins (assertions, assumptions, locks, atomic
//! sections), the procedures a call lowers to, and array reads at computed indices.

use std::collections::BTreeSet;

use lang_c::ast::{DerivedDeclarator, Expression as E, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{
    locals, print_node, unsupported, Cx, Frame, Item, Kind, Lower, Target, Ty, Var, GUARD, KEYWORDS, N,
};
use super::diag::error;
use super::pointers::element_binding;

impl<'a> Lower<'a> {
    /// A user function called (or started) from `caller`: queued for lowering as a procedure.
    pub(super) fn use_function(&mut self, name: &str, span: Span, thread: bool) -> Result<String, Diagnostic> {
        let caller = self.frame.name.clone();
        let in_loop = self.frame.loops > 0;
        self.calls.push((caller, name.to_owned(), span, in_loop));
        if let Some(cw) = self.procs.get(name) {
            return Ok(cw.clone());
        }
        let f = *self.functions.get(name).ok_or_else(|| {
            error("C0414", format!("a call of `{name}`, which has no definition here"), span, "not read")
        })?;
        // The function's C name was reserved for its procedure (a keyword gets a `_`).
        let cw = match self.bound_name(name) {
            Some(cw) => cw,
            None if KEYWORDS.contains(&name) => self.fresh(&format!("{name}_")),
            None => name.to_owned(),
        };
        self.procs.insert(name.to_owned(), cw.clone());
        self.pending.push(name.to_owned());
        let bound = self.bindings.get(name).cloned().unwrap_or_default();
        let params = self.parameters(f, thread, &bound)?;
        let returns = {
            let (base, _, _) = self.base_type(&f.node.specifiers)?;
            base.is_some()
                && !f.node.declarator.node.derived.iter().any(|x| matches!(x.node, DerivedDeclarator::Pointer(_)))
        };
        let result = returns.then(|| self.fresh(&format!("{cw}_result")));
        let mut named: Vec<(String, Ty)> = Vec::new();
        for (p, ty, by_ref) in params {
            let mut c = p.clone();
            let mut k = 1;
            while self.taken.contains(&c) || named.iter().any(|(n, _)| *n == c) || result.as_ref() == Some(&c) {
                k += 1;
                c = format!("{p}_{k}");
            }
            if by_ref {
                self.by_ref.insert((name.to_owned(), c.clone()));
            }
            named.push((c, ty));
            self.c_params.entry(name.to_owned()).or_default().push(p);
        }
        self.params.insert(name.to_owned(), (named, result));
        if !thread {
            self.lower_creator_now(name)?;
        }
        Ok(cw)
    }

    /// Lowers a user function into its procedure's text.
    pub(super) fn procedure(&mut self, name: &str) -> Result<(), Diagnostic> {
        let f = self.functions[name];
        let is_thread = self.instances.iter().any(|i| i.function == name);
        self.frame = Frame { name: name.to_owned(), is_thread, ..Frame::default() };
        // The function's copies of thread-local globals; its parameters hide them.
        let mut scope = self.thread_local_frame(name);
        scope.extend(self.bound_scope(name));
        let elements = self.element_params(name);
        let (params, result) = self.params[name].clone();
        let c_names = self.c_params.get(name).cloned().unwrap_or_default();
        for ((cw, ty), c) in params.iter().zip(c_names) {
            self.frame.locals.push(cw.clone());
            let key = (name.to_owned(), cw.clone());
            if let Some(array) = self.aliases.get(&key).and_then(|a| self.globals.get(a)) {
                scope.insert(c, array.clone());
                continue;
            }
            let kind = match elements.iter().find(|(p, _, _)| *p == c) {
                Some((_, array, var)) => Kind::Element(array.clone(), Box::new(var.clone())),
                None if self.by_ref.contains(&key) => Kind::Ref(*ty),
                None => Kind::Scalar(*ty),
            };
            scope.insert(c, Var { cw: cw.clone(), kind, shared: false });
        }
        if let Some(r) = &result {
            self.frame.locals.push(r.clone());
        }
        self.frame.result = result.clone();
        self.frame.result_ty = Some(self.return_ty(name));
        self.frame.scopes.push(scope);
        if name.starts_with("__VERIFIER_atomic_") {
            self.frame.atomic = 1;
        }
        let body = self.body(f)?;
        let frame = std::mem::take(&mut self.frame);
        let cw = self.procs[name].clone();
        let mut text = format!("proc {cw} {{\n");
        locals(&mut text, &frame);
        for n in &body {
            print_node(&mut text, n, 1);
        }
        text.push_str("}\n");
        self.proc_texts.insert(name.to_owned(), text);
        Ok(())
    }

    pub(super) fn call_item(
        &mut self,
        c: &'a Node<lang_c::ast::CallExpression>,
        span: Span,
        last: bool,
    ) -> Result<Item, Diagnostic> {
        if self.called_pointer(c).is_some() {
            return self.call(c, span, None, last).map(Item::Nodes);
        }
        let E::Identifier(id) = &c.node.callee.node else {
            return Err(unsupported("a call through a pointer", self.span(&c.node.callee)));
        };
        if self.is_sync_builtin(&c.node) {
            let mut cx = Cx { split: false, pre: Vec::new(), span, arith: false };
            self.sync_builtin(c, &mut cx)?;
            return Ok(Item::Nodes(cx.pre));
        }
        let name = id.node.name.as_str();
        let args = &c.node.arguments;
        match name {
            "__VERIFIER_atomic_begin" => return Ok(Item::Begin(span)),
            "__VERIFIER_atomic_end" => return Ok(Item::End(span)),
            "reach_error" | "__VERIFIER_error" => return self.simple_item(span, format!("assert({GUARD}0)")),
            "abort" | "exit" if self.frame.atomic == 0 => return self.simple_item(span, "assume(0)".into()),
            "abort" | "exit" => {
                let flag = self.abort_flag(span);
                return self.simple_item(span, format!("{flag} := 1"));
            }
            "printf" | "puts" | "fprintf" => return Ok(Item::Nodes(Vec::new())),
            // `malloc`'d objects live for the whole run (`alloc.rs`).
            "free" if !self.functions.contains_key(name) => return Ok(Item::Nodes(Vec::new())),
            "__VERIFIER_assume" | "assume_abort_if_not" => {
                arity(name, args, 1, span)?;
                let mut cx = Cx { split: false, pre: Vec::new(), span, arith: false };
                let t = self.expr(&args[0], &mut cx)?;
                let kw = if name == "__VERIFIER_assume" { "await" } else { "assume" };
                return self.simple_item(span, format!("{kw}({GUARD}({t}))"));
            }
            "assert" | "__VERIFIER_assert" => {
                arity(name, args, 1, span)?;
                let l = self.label(span);
                let split = self.reads(&args[0]) > 1;
                let mut cx = Cx { split, pre: Vec::new(), span, arith: false };
                let t = self.expr(&args[0], &mut cx)?;
                return Ok(Item::Nodes(self.group(l, span, cx.pre, format!("assert({GUARD}({t}))"))));
            }
            _ if name.starts_with("__VERIFIER_nondet_") => return Ok(Item::Nodes(Vec::new())),
            _ if name.starts_with("pthread_") => return self.pthread_item(name, args, span, last),
            "sem_init" | "sem_wait" | "sem_post" | "sem_destroy" if !self.functions.contains_key(name) => {
                return self.semaphore_item(name, args, span)
            }
            _ if self.is_argv_number(&c.node) => return self.argv_statement(c, span),
            _ => {}
        }
        self.call(c, span, None, last).map(Item::Nodes)
    }

    /// One simple step for the call at `span`, whose C text it keeps.
    pub(super) fn simple_item(&mut self, span: Span, text: String) -> Result<Item, Diagnostic> {
        let lab = self.label(span);
        self.texts.insert(lab.clone(), self.c_text(span));
        Ok(Item::Nodes(vec![N::Simple(lab, text)]))
    }

    /// One simple step for the call at `span`, whose C text it keeps, marked as the threads'
    /// structure (`Parts::thread_structure`: a create, a join, a semaphore's initialisation).
    pub(super) fn structure_step(&mut self, span: Span, text: String) -> N {
        let lab = self.label(span);
        self.texts.insert(lab.clone(), self.c_text(span));
        self.thread_steps.insert(lab.clone());
        N::Simple(lab, text)
    }

    /// The flag an `abort()` or `exit()` inside an atomic block sets. Inside an atomic block
    /// a path cut by `assume(0)` would not be taken at all, and an error before it on that
    /// path would be lost: the abort sets a flag instead, after which no assertion counts and
    /// no wait holds the block back.
    fn abort_flag(&mut self, span: Span) -> String {
        match &self.aborted {
            Some(f) => f.clone(),
            None => {
                let f = self.fresh("aborted");
                self.global_order.push((f.clone(), 0, span));
                self.aborted = Some(f.clone());
                f
            }
        }
    }

    /// A call of a `pthread_` function named `name`.
    pub(super) fn pthread_item(
        &mut self,
        name: &str,
        args: &'a [Node<lang_c::ast::Expression>],
        span: Span,
        last: bool,
    ) -> Result<Item, Diagnostic> {
        if let Some(item) = self.mutex_item(name, args, span)? {
            return Ok(item);
        }
        match name {
            "pthread_create" => {
                arity(name, args, 4, span)?;
                self.create(args, span).map(Item::Nodes)
            }
            "pthread_join" => {
                arity(name, args, 2, span)?;
                let k = self.handle(&args[0], false)?;
                self.joined.insert(k);
                let done = self.instances[k].done.clone();
                Ok(Item::Nodes(vec![self.structure_step(span, format!("await({GUARD}{done} == 1)"))]))
            }
            "pthread_exit" => {
                if !last || !self.frame.is_thread {
                    return Err(unsupported("`pthread_exit` before the end of a thread's function", span));
                }
                Ok(Item::Nodes(Vec::new()))
            }
            "pthread_mutex_lock" | "pthread_mutex_unlock" | "pthread_mutex_init" | "pthread_mutex_destroy" => {
                if let Some(nodes) = self.pointer_mutex(name, args.first(), span)? {
                    return Ok(Item::Nodes(nodes));
                }
                if let Some(nodes) = self.indexed_mutex(name, args.first(), span)? {
                    return Ok(Item::Nodes(nodes));
                }
                let m = self.mutex(args.first(), span)?;
                match name {
                    "pthread_mutex_lock" => self.simple_item(span, format!("lock({m})")),
                    "pthread_mutex_unlock" => self.simple_item(span, format!("unlock({m})")),
                    "pthread_mutex_init" => self.simple_item(span, format!("{m} := 0")),
                    _ => self.simple_item(span, "skip".into()),
                }
            }
            "pthread_cond_wait" => {
                // POSIX lets a waiting thread wake spuriously, at any time: a wait releases the
                // mutex and takes it again, and signals change nothing the model tracks.
                arity(name, args, 2, span)?;
                let m = self.mutex(args.get(1), span)?;
                let l = self.label(span);
                let (a, b) = (self.label(span), self.label(span));
                self.texts.insert(l.clone(), self.c_text(span));
                let nodes = vec![N::Simple(a, format!("unlock({m})")), N::Simple(b, format!("lock({m})"))];
                Ok(Item::Nodes(vec![N::NoReorder(l, nodes)]))
            }
            "pthread_cond_signal" | "pthread_cond_broadcast" | "pthread_cond_init" | "pthread_cond_destroy" => {
                Ok(Item::Nodes(Vec::new()))
            }
            _ => Err(unsupported(&format!("`{name}`"), span)),
        }
    }

    /// The return type of the program function `name` (`int` when not an integer type).
    pub(super) fn return_ty(&self, name: &str) -> Ty {
        let base = self.functions.get(name).and_then(|f| self.base_type(&f.node.specifiers).ok());
        match base.and_then(|b| b.0) {
            Some(super::common::Base::Int(t)) => t,
            _ => super::common::INT,
        }
    }

    /// The function a call of `name` with `args` runs (a copy with its pointer parameters
    /// bound to the globals the call passes, `pointers.rs`), queued for lowering, and the
    /// arguments its parameters take.
    fn callee(
        &mut self,
        name: &str,
        args: &'a [Node<E>],
        atomic: bool,
        span: Span,
    ) -> Result<(String, Vec<&'a Node<E>>), Diagnostic> {
        let bound = self.pointer_bindings(name, args, atomic)?;
        let key = self.specialise(name, &bound);
        self.use_function(&key, span, false)?;
        // A parameter bound to an array's elements stays, holding the index (`struct_arrays.rs`).
        let bound: Vec<usize> = bound.iter().filter(|(_, g)| element_binding(g).is_none()).map(|(k, _)| *k).collect();
        let n = self.params[&key].0.len() + bound.len();
        if n != args.len() {
            return Err(error("C0418", format!("`{name}` takes {n} argument(s)"), span, "here"));
        }
        let rest = args.iter().enumerate().filter(|(k, _)| !bound.contains(k)).map(|(_, a)| a);
        Ok((key, rest.collect()))
    }

    /// A call of a user function: its parameters set, the call (in `atomic` for a
    /// `__VERIFIER_atomic_` function), its result read, in one `noreorder` item.
    pub(super) fn call(
        &mut self,
        c: &'a Node<lang_c::ast::CallExpression>,
        span: Span,
        result: Option<Target<'a>>,
        _last: bool,
    ) -> Result<Vec<N>, Diagnostic> {
        if let Some(pointer) = self.called_pointer(c) {
            return self.call_through(pointer, &c.node.arguments, span, result);
        }
        let E::Identifier(id) = &c.node.callee.node else {
            return Err(unsupported("a call through a pointer", self.span(&c.node.callee)));
        };
        self.call_to(&id.node.name, &c.node.arguments, span, result)
    }

    /// A call of the user function `name` with `args` (see [`Lower::call`]).
    pub(super) fn call_to(
        &mut self,
        name: &str,
        args: &'a [Node<E>],
        span: Span,
        result: Option<Target<'a>>,
    ) -> Result<Vec<N>, Diagnostic> {
        // A call that runs as one atomic step may take a global's address: its copy in and
        // out then belong to that step (`Lower::shared_reference`).
        let atomic_call = name.starts_with("__VERIFIER_atomic_") || self.frame.atomic > 0;
        let (name, args) = self.callee(name, args, atomic_call, span)?;
        let cw = self.procs[&name].clone();
        let (params, ret) = self.params[&name].clone();
        let label = self.label(span);
        let mut steps = Vec::new();
        let mut copy_out = Vec::new();
        let mut copy_in = Vec::new();
        let c_names = self.c_params.get(&name).cloned().unwrap_or_default();
        for (k, ((p, ty), a)) in params.iter().zip(args).enumerate() {
            if let Some(nodes) = self.element_argument(&name, c_names.get(k), (&cw, p), a, span)? {
                steps.extend(nodes);
                continue;
            }
            if self.by_ref.contains(&(name.clone(), p.clone())) {
                if self.array_alias(&name, p, a)? {
                    continue;
                }
                self.local_refs.insert((name.clone(), p.clone()));
                if self.aliases.contains_key(&(name.clone(), p.clone())) {
                    return Err(unsupported("a local's address passed to a parameter that is an array", self.span(a)));
                }
                if atomic_call {
                    if let Some(global) = self.shared_reference(a, &name)? {
                        if copy_out.iter().any(|(x, _)| *x == global) {
                            let span = self.span(a);
                            return Err(unsupported("the same variable passed by reference twice in one call", span));
                        }
                        let l = self.label(span);
                        copy_in.push(N::Simple(l, format!("{cw}.{p} := {global}")));
                        copy_out.push((global, p.clone()));
                        continue;
                    }
                }
                let local = self.reference(a)?;
                if copy_out.iter().any(|(x, _)| *x == local) {
                    return Err(unsupported("the same variable passed by reference twice in one call", self.span(a)));
                }
                let l = self.label(span);
                steps.push(N::Simple(l, format!("{cw}.{p} := {local}")));
                copy_out.push((local, p.clone()));
                continue;
            }
            let split = self.reads(a) > 1;
            let mut cx = Cx { split, pre: Vec::new(), span, arith: false };
            let from_unsigned = self.ty_of(a).is_some_and(|t| !super::types::promote(t).signed);
            let v = self.expr(a, &mut cx)?;
            let v = if cx.arith || ty.bits < 32 || !ty.signed || from_unsigned { ty.wrap(&v) } else { v };
            steps.extend(cx.pre);
            let l = self.label(span);
            steps.push(N::Simple(l, format!("{cw}.{p} := {v}")));
        }
        let (tls_in, tls_out) = self.thread_local_copies(&name, &cw, span);
        steps.extend(tls_in);
        let l = self.label(span);
        let call = N::Simple(l, format!("{cw}()"));
        let shared = !copy_in.is_empty();
        let mut body = copy_in;
        body.push(call);
        if shared {
            // The global is read and written back inside the call's atomic step (the locals
            // passed with it too: they are private).
            for (var, p) in copy_out.drain(..) {
                let l = self.label(span);
                body.push(N::Simple(l, format!("{var} := {cw}.{p}")));
            }
        }
        if name.starts_with("__VERIFIER_atomic_") && self.frame.atomic == 0 {
            let a = self.label(span);
            steps.push(N::Atomic(a, body));
        } else {
            steps.extend(body);
        }
        steps.extend(tls_out);
        for (local, p) in copy_out {
            let l = self.label(span);
            steps.push(N::Simple(l, format!("{local} := {cw}.{p}")));
        }
        if let Some(t) = result {
            let r =
                ret.ok_or_else(|| error("C0419", format!("`{name}` returns no value"), span, "its value is used"))?;
            let l = self.label(span);
            // The result has the function's return type; another target converts it.
            let v = if t.ty != self.return_ty(&name) { t.ty.wrap(&format!("{cw}.{r}")) } else { format!("{cw}.{r}") };
            steps.push(N::Simple(l, format!("{} := {v}", t.cw)));
        }
        self.texts.insert(label.clone(), self.c_text(span));
        Ok(vec![N::NoReorder(label, steps)])
    }

    /// Whether the argument `a` of the `int *` parameter `p` of `name` is a global array: the
    /// parameter is then that array in the function (the same array at every call).
    fn array_alias(&mut self, name: &str, p: &str, a: &Node<lang_c::ast::Expression>) -> Result<bool, Diagnostic> {
        let E::Identifier(id) = &a.node else { return Ok(false) };
        let Some(Var { kind: Kind::Array(..), shared: true, .. }) = self.globals.get(&id.node.name) else {
            return Ok(false);
        };
        let key = (name.to_owned(), p.to_owned());
        let array = id.node.name.clone();
        match self.aliases.get(&key) {
            Some(other) if *other != array => {
                Err(unsupported("different arrays passed to one pointer parameter", self.span(a)))
            }
            _ if self.local_refs.contains(&key)
                || (self.proc_texts.contains_key(name) && !self.aliases.contains_key(&key)) =>
            {
                Err(unsupported("an array passed to a parameter read as a local's address", self.span(a)))
            }
            _ => {
                self.aliases.insert(key, array);
                Ok(true)
            }
        }
    }

    /// An array of integers indexed by a value that is not a constant: the elements' type and
    /// variables, and whether they are shared.
    pub(super) fn computed_array(
        &self,
        b: &Node<lang_c::ast::BinaryOperatorExpression>,
    ) -> Option<(Ty, Vec<String>, bool)> {
        if self.const_eval(&b.node.rhs).is_some() {
            return None;
        }
        let E::Identifier(id) = &b.node.lhs.node else { return None };
        match self.lookup(&id.node.name) {
            Some(Var { kind: Kind::Array(ty, elems), shared, .. }) => Some((*ty, elems.clone(), *shared)),
            _ => None,
        }
    }

    /// The step `steps[k]` for the index value `k`: `if (idx == 0) { ... } else { if (idx == 1)
    /// ...`; an index out of the array's bounds cuts the path (a bound the reading reports).
    pub(super) fn pick(&mut self, idx: &str, steps: Vec<String>, span: Span) -> Vec<N> {
        self.index_cut = true;
        // The index is read once, into a temporary, before the choice.
        let it = self.temp();
        let l = self.label(span);
        let first = N::Simple(l, format!("{it} := {idx}"));
        let idx = it;
        let l = self.label(span);
        let mut tail = vec![N::Simple(l, "assume(0)".to_owned())];
        for (k, step) in steps.into_iter().enumerate().rev() {
            let (l, i) = (self.label(span), self.label(span));
            tail = vec![N::If(i, format!("{idx} == {k}"), vec![N::Simple(l, step)], Some(tail))];
        }
        tail.insert(0, first);
        tail
    }

    /// The global `g` of the argument `&g` of a by-reference parameter of `callee`, when `g`
    /// is a shared integer and neither `callee` nor a function it calls names `g`: the call runs
    /// as one atomic step, so copying `g` in before it and out after it, inside that step, is
    /// exact (no other thread runs in between, and no access by name sees the copy apart from
    /// `g`). `None` when the argument is not a global's address; an error when the callee
    /// names the global.
    fn shared_reference(&self, a: &Node<lang_c::ast::Expression>, callee: &str) -> Result<Option<String>, Diagnostic> {
        let E::UnaryOperator(u) = &a.node else { return Ok(None) };
        let E::Identifier(id) = &u.node.operand.node else { return Ok(None) };
        if u.node.operator.node != U::Address {
            return Ok(None);
        }
        let global = match self.lookup(&id.node.name) {
            Some(Var { cw, kind: Kind::Scalar(_), shared: true }) => cw.clone(),
            _ => return Ok(None),
        };
        if self.names_reached(callee).contains(&id.node.name) {
            return Err(unsupported(
                "a global's address passed to a function that also names that global",
                self.span(a),
            ));
        }
        Ok(Some(global))
    }

    /// Every identifier the function `f` and the functions it calls (transitively) name
    /// (a parameter's name, which shadows a global of that name, not counted in its function).
    pub(super) fn names_reached(&self, f: &str) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        let mut work = vec![f.to_owned()];
        let mut seen = BTreeSet::new();
        while let Some(g) = work.pop() {
            let Some(def) = self.functions.get(&g) else { continue };
            if !seen.insert(g) {
                continue;
            }
            let mut v = super::common::Names::default();
            lang_c::visit::Visit::visit_statement(&mut v, &def.node.statement.node, &def.node.statement.span);
            work.extend(v.0.iter().filter(|n| self.functions.contains_key(*n)).cloned());
            let params: BTreeSet<String> = def
                .node
                .declarator
                .node
                .derived
                .iter()
                .filter_map(|x| match &x.node {
                    DerivedDeclarator::Function(fd) => Some(fd),
                    _ => None,
                })
                .flat_map(|fd| fd.node.parameters.iter())
                .filter_map(|p| p.node.declarator.as_ref().and_then(|d| self.declarator_name(d).ok()).map(|(n, _)| n))
                .collect();
            names.extend(v.0.into_iter().filter(|n| !params.contains(n)));
        }
        names
    }

    /// The argument of a by-reference parameter: `&x` for a local `x` of the caller (private to
    /// its thread, so copying it in and out is exact).
    pub(super) fn reference(&self, a: &Node<lang_c::ast::Expression>) -> Result<String, Diagnostic> {
        let bad = || unsupported("an `int *` argument that is not `&x` for a local `x` of the caller", self.span(a));
        let E::UnaryOperator(u) = &a.node else { return Err(bad()) };
        let E::Identifier(id) = &u.node.operand.node else { return Err(bad()) };
        if u.node.operator.node != U::Address || self.frame.consts.contains_key(&id.node.name) {
            return Err(bad());
        }
        match self.lookup(&id.node.name) {
            Some(Var { cw, kind: Kind::Scalar(_), shared: false }) => Ok(cw.clone()),
            _ => Err(bad()),
        }
    }
}

/// An error unless the call of `name` has `n` arguments.
pub(super) fn arity<T>(name: &str, args: &[T], n: usize, span: Span) -> Result<(), Diagnostic> {
    if args.len() == n {
        Ok(())
    } else {
        Err(error("C0418", format!("`{name}` takes {n} argument(s)"), span, "here"))
    }
}
