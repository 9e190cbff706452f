//! Threads of the pthread C lowering: `pthread_create`, the handles it fills, and mutexes.

use std::collections::BTreeMap;

use lang_c::ast::{BinaryOperator as B, Expression as E, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{strip_casts, unsupported, Instance, Kind, Lower, Names, Var, N};
use super::diag::error;

impl<'a> Lower<'a> {
    /// `pthread_create(&t, attr, f, arg)`: a new static thread; the step sets its start flag.
    pub(super) fn create(
        &mut self,
        args: &'a [Node<lang_c::ast::Expression>],
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        self.note_creator(span);
        if self.frame.loops > 0 {
            return Err(unsupported("`pthread_create` in a loop that is not unrolled (no constant bound)", span));
        }
        let mut f = &args[2];
        if let E::UnaryOperator(u) = &f.node {
            if u.node.operator.node == U::Address {
                f = &u.node.operand;
            }
        }
        let E::Identifier(fid) = &f.node else {
            return Err(unsupported("a thread function that is not a name", self.span(f)));
        };
        let function = fid.node.name.clone();
        if !self.functions.contains_key(&function) {
            return Err(error("C0414", format!("`{function}` has no definition here"), self.span(f), "not read"));
        }
        if self.const_eval(&args[1]) != Some(0) {
            return Err(unsupported("thread attributes other than 0 or NULL", self.span(&args[1])));
        }
        let fdef = self.functions[&function];
        // A pointer to an element of an array of structs: a copy of the function whose
        // parameter holds the index (`struct_arrays.rs`).
        let element = self.element_thread(&function, &args[3])?;
        let params = if element.is_some() { Vec::new() } else { self.parameters(fdef, true, &[])? };
        let arg = match (&element, params.first()) {
            (Some((_, index)), _) => Some(*index),
            (None, None) => None,
            // An address (`&local`) is the number that names it (`pointsto.rs`).
            (None, Some((param, _, _))) => {
                match self.const_eval(strip_casts(&args[3])).or_else(|| self.thread_address(&function, param, &args[3]))
                {
                    Some(v) => Some(v),
                    // A function that never names its argument may be passed anything (`&queue`).
                    None if !names(fdef, param) => None,
                    None => {
                        return Err(unsupported(
                            "a thread argument that is not a constant (or the variable of an unrolled `for` loop)",
                            self.span(&args[3]),
                        ))
                    }
                }
            }
        };
        let k = self.instances.len();
        // A thread is named by its function and handle (`worker_t`, `worker_t_2` for `t[2]`),
        // so that a repair that moves a `pthread_create` renames nothing.
        let key = self.handle_key(&args[0], true)?;
        let handle = match key.1 {
            Some(i) => format!("{}_{i}", key.0),
            None => key.0.clone(),
        };
        let name = self.fresh(&format!("{function}_{handle}"));
        let shown = match key.1 {
            Some(i) => format!("{function} {}[{i}]", key.0),
            None => format!("{function} {}", key.0),
        };
        let start = self.fresh(&format!("started_{name}"));
        let done = self.fresh(&format!("done_{name}"));
        let function = element.map_or(function, |(key, _)| key);
        self.instances.push(Instance {
            name,
            shown,
            function: function.clone(),
            arg,
            start: start.clone(),
            done,
            span,
        });
        let key = self.scoped(key);
        self.handles.insert(key, k);
        self.use_function(&function, span, true)?;
        Ok(vec![self.structure_step(span, format!("{start} := 1"))])
    }

    /// Where a trace shows the steps of each created thread's start and end
    /// ([`crate::shown`]): its start, its argument and its call at the thread function's
    /// header (`void *worker(void *arg)`), the step that marks it done at the function's last
    /// `return` or, without one, its closing brace.
    pub(super) fn thread_places(&self) -> BTreeMap<String, Span> {
        let mut out = BTreeMap::new();
        for inst in &self.instances {
            let Some(f) = self.functions.get(&inst.function) else { continue };
            let (whole, body) = (self.span(f), self.span(&f.node.statement));
            let head = Span { start: whole.start, end: body.start };
            let end = match &f.node.statement.node {
                lang_c::ast::Statement::Compound(items) => match items.last().map(|i| &i.node) {
                    Some(lang_c::ast::BlockItem::Statement(s))
                        if matches!(s.node, lang_c::ast::Statement::Return(_)) =>
                    {
                        self.span(s)
                    }
                    _ => Span { start: body.end.saturating_sub(1), end: body.end },
                },
                _ => body,
            };
            for step in ["go", "start", "arg", "run"] {
                out.insert(format!("{}_{step}", inst.name), head);
            }
            out.insert(format!("{}_done", inst.name), end);
        }
        out
    }

    /// The handle `t` (or `&t`, `t[i]`) as a key.
    pub(super) fn handle_key(
        &self,
        e: &Node<lang_c::ast::Expression>,
        address: bool,
    ) -> Result<(String, Option<i64>), Diagnostic> {
        let span = self.span(e);
        let mut e = strip_casts(e);
        if address {
            match &e.node {
                E::UnaryOperator(u) if u.node.operator.node == U::Address => e = &u.node.operand,
                _ => return Err(unsupported("a thread handle that is not `&t` or `&t[i]`", span)),
            }
        }
        let bad = || {
            unsupported("a thread handle that is not a `pthread_t` variable (or an element, by a constant index)", span)
        };
        // An index that is a loop's variable whose address a thread holds (`&i` passed to the
        // thread the loop creates): the loop is not unrolled, since every thread reads that
        // one variable while the loop changes it.
        let escaped = |index: &Node<lang_c::ast::Expression>| match &strip_casts(index).node {
            E::Identifier(i) if self.lookup(&i.node.name).is_some_and(|v| v.shared) => {
                let i = &i.node.name;
                let what = format!(
                    "a thread handle indexed by `{i}`, a variable whose address a thread holds (`&{i}`: the \
                     loop over `{i}` is not unrolled),"
                );
                Some(unsupported(&what, span))
            }
            _ => None,
        };
        let (name, index) = match &e.node {
            E::Identifier(id) => (id.node.name.clone(), None),
            E::BinaryOperator(b) if b.node.operator.node == B::Index => match &b.node.lhs.node {
                E::Identifier(id) => {
                    let index = self.const_eval(&b.node.rhs).ok_or_else(|| escaped(&b.node.rhs).unwrap_or_else(bad))?;
                    (id.node.name.clone(), Some(index))
                }
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        match (self.lookup(&name).map(|v| &v.kind), index) {
            (Some(Kind::Handle), None) => Ok((name, None)),
            (Some(Kind::Handles(n)), Some(i)) if (0..*n as i64).contains(&i) => Ok((name, Some(i))),
            _ => Err(bad()),
        }
    }

    /// The key of a handle in [`Lower::handles`]: a local's names its function too.
    pub(super) fn scoped(&self, key: (String, Option<i64>)) -> (String, String, Option<i64>) {
        let local = self.frame.scopes.iter().any(|s| s.contains_key(&key.0));
        (if local { self.frame.name.clone() } else { String::new() }, key.0, key.1)
    }

    pub(super) fn handle(&self, e: &Node<lang_c::ast::Expression>, address: bool) -> Result<usize, Diagnostic> {
        let key = self.scoped(self.handle_key(e, address)?);
        self.handles.get(&key).copied().ok_or_else(|| {
            error(
                "C0420",
                "a join of a handle no `pthread_create` before it set",
                self.span(e),
                "which thread is this?",
            )
        })
    }

    pub(super) fn mutex(&self, arg: Option<&Node<lang_c::ast::Expression>>, span: Span) -> Result<String, Diagnostic> {
        let bad =
            || unsupported("a mutex argument that is not `&m` for a global mutex `m` (or `&m[i]`, constant `i`)", span);
        let Some(a) = arg else { return Err(bad()) };
        if let E::Identifier(id) = &a.node {
            // A `pthread_mutex_t *` parameter bound to a global mutex (`pointers.rs`).
            if let Some(Var { kind: Kind::Points(target), shared, .. }) = self.lookup(&id.node.name) {
                if let Some(Var { cw, kind: Kind::Mutex, .. }) = self.pointee(target, *shared) {
                    return Ok(cw.clone());
                }
            }
        }
        match self.addressed(a, span)? {
            Some((cw, Kind::Mutex, _)) => Ok(cw),
            _ => Err(bad()),
        }
    }

    /// The variable `&x` or `&x[k]` (`k` constant) names, with its kind and whether it is
    /// shared; `None` for any other expression. An element out of its array's bounds is an
    /// error at `span`.
    pub(super) fn addressed(
        &self,
        e: &Node<lang_c::ast::Expression>,
        span: Span,
    ) -> Result<Option<(String, Kind, bool)>, Diagnostic> {
        let E::UnaryOperator(u) = &strip_casts(e).node else { return Ok(None) };
        if u.node.operator.node != U::Address {
            return Ok(None);
        }
        match &u.node.operand.node {
            E::Identifier(id) => Ok(self.lookup(&id.node.name).map(|v| (v.cw.clone(), v.kind.clone(), v.shared))),
            E::BinaryOperator(b) if b.node.operator.node == B::Index => self.element(b, span).map(Some),
            _ => Ok(None),
        }
    }
}

/// Whether the body of `f` (macros expanded) names `name`.
pub(super) fn names(f: &Node<lang_c::ast::FunctionDefinition>, name: &str) -> bool {
    let mut names = Names::default();
    let body = &f.node.statement;
    lang_c::visit::Visit::visit_statement(&mut names, &body.node, &body.span);
    names.0.contains(name)
}
