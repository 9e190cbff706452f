//! Mutex attributes and `pthread_mutex_trylock`: `pthread_mutexattr_init`, `_settype` and
//! `_destroy` on an attribute variable, and a mutex initialised with one
//! (`pthread_mutex_init(&m, &attr)`). A normal (or default) mutex is `lock(m)` and `unlock(m)`
//! as always. An error-checking mutex (`PTHREAD_MUTEX_ERRORCHECK`) and a recursive one
//! (`PTHREAD_MUTEX_RECURSIVE`) know their owner: each thread holds, as a thread-local value
//! (`tls.rs`), how many times it holds the mutex, and a lock, unlock or trylock reads it. An
//! unlock by a thread that does not hold the mutex returns an error and changes nothing; a
//! lock of an error-checking mutex its thread holds returns an error (it does not wait for
//! ever); a recursive one counts.

use std::collections::BTreeMap;

use lang_c::ast::{Expression as E, TranslationUnit, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{unsupported, Item, Kind, Lower, ThreadLocal, INT, N};

/// What `pthread_mutex_trylock` yields when the mutex is taken (`EBUSY`).
const EBUSY: i64 = 16;

/// A mutex type that knows its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owned {
    /// `PTHREAD_MUTEX_ERRORCHECK`.
    ErrorCheck,
    /// `PTHREAD_MUTEX_RECURSIVE`.
    Recursive,
}

impl<'a> Lower<'a> {
    /// Reads every `pthread_mutexattr_settype(&a, T)` and `pthread_mutex_init(&m, &a)` of the
    /// file: each global mutex initialised with an error-checking or recursive attribute gets
    /// its thread-local count (named `m held`, which no C name is). Before the thread-local
    /// users are found.
    pub(super) fn mutex_types(&mut self, unit: &'a TranslationUnit) -> Result<(), Diagnostic> {
        let mut calls = Calls::default();
        lang_c::visit::Visit::visit_translation_unit(&mut calls, unit);
        let mut attrs: BTreeMap<String, Option<Owned>> = BTreeMap::new();
        for (attr, ty) in &calls.settype {
            let span = self.span(ty);
            let owned = match strip(ty) {
                E::Identifier(id) => match id.node.name.as_str() {
                    "PTHREAD_MUTEX_NORMAL" | "PTHREAD_MUTEX_DEFAULT" => None,
                    "PTHREAD_MUTEX_ERRORCHECK" | "PTHREAD_MUTEX_ERRORCHECK_NP" => Some(Owned::ErrorCheck),
                    "PTHREAD_MUTEX_RECURSIVE" | "PTHREAD_MUTEX_RECURSIVE_NP" => Some(Owned::Recursive),
                    _ => return Err(unsupported("this mutex type", span)),
                },
                _ => return Err(unsupported("a mutex type that is not a `PTHREAD_MUTEX_` name", span)),
            };
            let Some(attr) = attr else {
                return Err(unsupported("a mutex attribute that is not `&a` for a variable `a`", span));
            };
            if attrs.insert(attr.clone(), owned).is_some_and(|o| o != owned) {
                return Err(unsupported("an attribute set to two mutex types", span));
            }
        }
        let mut types: BTreeMap<String, Option<Owned>> = BTreeMap::new();
        for (mutex, attr, at) in &calls.init {
            let span = &self.span(at);
            let owned = match attr {
                Some(a) => attrs.get(a).copied().flatten(),
                None => None,
            };
            let Some(mutex) = mutex else {
                if owned.is_some() {
                    return Err(unsupported("an error-checking or recursive mutex that is not a global `m`", *span));
                }
                continue;
            };
            if types.insert(mutex.clone(), owned).is_some_and(|o| o != owned) {
                return Err(unsupported("a mutex initialised with two mutex types", *span));
            }
        }
        for (name, owned) in types {
            let Some(owned) = owned else { continue };
            let cw = match self.globals.get(&name) {
                Some(v) if matches!(v.kind, Kind::Mutex) => v.cw.clone(),
                _ => {
                    let at = calls.init.iter().find(|c| c.0.as_deref() == Some(name.as_str())).map(|c| self.span(c.2));
                    let what = "an error-checking or recursive mutex that is not a global `m`";
                    return Err(unsupported(what, at.unwrap_or_default()));
                }
            };
            let key = format!("{name} held");
            let held = self.fresh(&format!("{name}_held"));
            self.thread_locals.insert(key.clone(), ThreadLocal { cw: held, ty: INT, init: 0 });
            self.mutex_types.insert(cw, (owned == Owned::Recursive, key, name));
        }
        Ok(())
    }

    /// A call of `pthread_mutexattr_init`, `_settype` or `_destroy` (read by
    /// [`Lower::mutex_types`]), or one of `pthread_mutex_lock`, `_unlock`, `_trylock` or
    /// `_init` on a mutex that knows its owner: its item; `None` for any other call.
    pub(super) fn mutex_item(
        &mut self,
        name: &str,
        args: &'a [Node<E>],
        span: Span,
    ) -> Result<Option<Item>, Diagnostic> {
        if matches!(name, "pthread_mutexattr_init" | "pthread_mutexattr_settype" | "pthread_mutexattr_destroy") {
            return Ok(Some(Item::Nodes(Vec::new())));
        }
        if name == "pthread_mutex_trylock" {
            let t = self.fresh_local("tried");
            return self.trylock(args, &t, span).map(|nodes| Some(Item::Nodes(self.unit(nodes, span))));
        }
        if !matches!(name, "pthread_mutex_lock" | "pthread_mutex_unlock" | "pthread_mutex_init") {
            return Ok(None);
        }
        // A mutex reached through a pointer whose target changes is the call's to read
        // (`pointsto.rs`), as is the error for what names no mutex.
        let Ok(m) = self.mutex(args.first(), span) else { return Ok(None) };
        let Some((owned, held)) = self.owner(&m, span)? else { return Ok(None) };
        let l = |s: &mut Self| s.label(span);
        let mut nodes = match (name, owned) {
            ("pthread_mutex_init", _) => {
                vec![N::Simple(l(self), format!("{m} := 0")), N::Simple(l(self), format!("{held} := 0"))]
            }
            // Locking an error-checking mutex its thread holds returns `EDEADLK`.
            ("pthread_mutex_lock", Owned::ErrorCheck) => {
                let take = vec![N::Simple(l(self), format!("lock({m})")), N::Simple(l(self), format!("{held} := 1"))];
                vec![N::If(l(self), format!("{held} == 0"), take, None)]
            }
            ("pthread_mutex_lock", Owned::Recursive) => {
                let take = vec![N::Simple(l(self), format!("lock({m})"))];
                vec![
                    N::If(l(self), format!("{held} == 0"), take, None),
                    N::Simple(l(self), format!("{held} := {held} + 1")),
                ]
            }
            // An unlock by a thread that does not hold the mutex returns `EPERM`.
            _ => {
                let release = vec![N::Simple(l(self), format!("unlock({m})"))];
                let count = vec![
                    N::Simple(l(self), format!("{held} := {held} - 1")),
                    N::If(l(self), format!("{held} == 0"), release, None),
                ];
                vec![N::If(l(self), format!("{held} > 0"), count, None)]
            }
        };
        let first = nodes[0].label_mut().clone();
        self.texts.insert(first, self.c_text(span));
        Ok(Some(Item::Nodes(self.unit(nodes, span))))
    }

    /// `pthread_mutex_trylock(&m)` into the local `t`: in one step, when `m` is free it is
    /// taken and `t` is 0, else `t` is `EBUSY` (a recursive mutex its thread holds counts once
    /// more, and `t` is 0).
    pub(super) fn trylock(&mut self, args: &'a [Node<E>], t: &str, span: Span) -> Result<Vec<N>, Diagnostic> {
        if args.len() != 1 {
            return Err(super::diag::error("C0418", "`pthread_mutex_trylock` takes 1 argument(s)", span, "here"));
        }
        let m = self.mutex(args.first(), span)?;
        let owner = self.owner(&m, span)?;
        let l = |s: &mut Self| s.label(span);
        let mut take = vec![N::Simple(l(self), format!("{m} := 1")), N::Simple(l(self), format!("{t} := 0"))];
        let mut busy = vec![N::Simple(l(self), format!("{t} := {EBUSY}"))];
        if let Some((owned, held)) = &owner {
            take.push(N::Simple(l(self), format!("{held} := 1")));
            if *owned == Owned::Recursive {
                let again =
                    vec![N::Simple(l(self), format!("{held} := {held} + 1")), N::Simple(l(self), format!("{t} := 0"))];
                busy = vec![N::If(l(self), format!("{held} > 0"), again, Some(busy))];
            }
        }
        let test = N::If(l(self), format!("{m} == 0"), take, Some(busy));
        if self.frame.atomic > 0 {
            return Ok(vec![test]);
        }
        Ok(vec![N::Atomic(l(self), vec![test])])
    }

    /// The type of the mutex `m` (its Cwhile name) and its thread-local count here, when it
    /// knows its owner.
    fn owner(&self, m: &str, span: Span) -> Result<Option<(Owned, String)>, Diagnostic> {
        let Some((recursive, key, name)) = self.mutex_types.get(m) else { return Ok(None) };
        let owned = if *recursive { Owned::Recursive } else { Owned::ErrorCheck };
        match self.lookup(key) {
            Some(v) => Ok(Some((owned, v.cw.clone()))),
            None => Err(unsupported(
                &format!("the error-checking or recursive mutex `{name}` in a function that does not name it"),
                span,
            )),
        }
    }
}

/// The calls [`Lower::mutex_types`] reads: `settype`'s attribute (a variable's name) and type,
/// `pthread_mutex_init`'s mutex (a variable's name) and attribute.
#[derive(Default)]
struct Calls<'a> {
    settype: Vec<(Option<String>, &'a Node<E>)>,
    init: Vec<(Option<String>, Option<String>, &'a Node<E>)>,
}

impl<'a> lang_c::visit::Visit<'a> for Calls<'a> {
    fn visit_call_expression(&mut self, c: &'a lang_c::ast::CallExpression, span: &'a lang_c::span::Span) {
        if let E::Identifier(id) = &c.callee.node {
            let args = &c.arguments;
            match (id.node.name.as_str(), args.as_slice()) {
                ("pthread_mutexattr_settype", [a, t]) => self.settype.push((address_of(a), t)),
                ("pthread_mutex_init", [m, a]) => self.init.push((address_of(m), address_of(a), m)),
                _ => {}
            }
        }
        lang_c::visit::visit_call_expression(self, c, span);
    }
}

/// `&x` (casts stripped): `x`.
fn address_of(e: &Node<E>) -> Option<String> {
    match strip(e) {
        E::UnaryOperator(u) if u.node.operator.node == U::Address => match strip(&u.node.operand) {
            E::Identifier(id) => Some(id.node.name.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn strip(e: &Node<E>) -> &E {
    &super::common::strip_casts(e).node
}
