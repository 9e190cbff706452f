//! Thread-local globals (`__thread int x = 1;`): one copy per thread, which starts at the
//! declared value when the thread starts. Each function that names the variable, or calls one
//! that does, holds it as a local (Cwhile gives every thread its own copy of every procedure's
//! locals, each starting at its declared value when the thread starts); a call copies the
//! caller's value into the callee's local before the call and back after it, as for a
//! parameter passed by reference. That is exact: only the thread itself reads or writes its
//! copies, and it runs one function at a time.

use std::collections::{BTreeMap, BTreeSet};

use lang_c::ast::{DeclarationSpecifier, StorageClassSpecifier};
use lang_c::span::Node;
use paces_cwhile::Span;

use super::common::{Kind, Lower, Names, ThreadLocal, Ty, Var, N};

impl Lower<'_> {
    /// Whether the specifiers declare a thread-local variable (`_Thread_local`, or `__thread`,
    /// which the parser read as `static`).
    pub(super) fn is_thread_local(&self, specs: &[Node<DeclarationSpecifier>]) -> bool {
        specs.iter().any(|s| match &s.node {
            DeclarationSpecifier::StorageClass(c) => {
                c.node == StorageClassSpecifier::ThreadLocal || self.thread_local_at.contains(&c.span.start)
            }
            _ => false,
        })
    }

    /// Declares the thread-local global `name`.
    pub(super) fn declare_thread_local(&mut self, name: &str, ty: Ty, init: i64) {
        let cw = self.fresh(name);
        self.thread_locals.insert(name.to_owned(), ThreadLocal { cw, ty, init });
    }

    /// For each function, the thread-local globals it names or that a function it calls names
    /// (a fixed point over the calls).
    pub(super) fn thread_local_users(&mut self) {
        if self.thread_locals.is_empty() {
            return;
        }
        let mut named: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (f, def) in &self.functions {
            let mut names = Names::default();
            let body = &def.node.statement;
            lang_c::visit::Visit::visit_statement(&mut names, &body.node, &body.span);
            named.insert(f.clone(), names.0);
        }
        // A function that names a mutex knowing its owner holds its count (`mutexattr.rs`).
        for (key, name) in self.mutex_types.values().map(|(_, key, name)| (key, name)) {
            for names in named.values_mut().filter(|n| n.contains(name)) {
                names.insert(key.clone());
            }
        }
        let mut uses: BTreeMap<String, BTreeSet<String>> = named
            .iter()
            .map(|(f, n)| (f.clone(), n.iter().filter(|x| self.thread_locals.contains_key(*x)).cloned().collect()))
            .collect();
        loop {
            let mut changed = false;
            for (f, n) in &named {
                let mut more: BTreeSet<String> = BTreeSet::new();
                for g in n.iter().filter(|g| *g != f) {
                    if let Some(u) = uses.get(g) {
                        more.extend(u.iter().cloned());
                    }
                }
                let mine = uses.entry(f.clone()).or_default();
                let before = mine.len();
                mine.extend(more);
                changed |= mine.len() != before;
            }
            if !changed {
                break;
            }
        }
        self.thread_local_uses = uses;
    }

    /// Declares, in the function being lowered (`function`), its copies of the thread-local
    /// globals it uses: locals starting at their declared values, visible under their C names.
    pub(super) fn thread_local_frame(&mut self, function: &str) -> BTreeMap<String, Var> {
        let mut scope = BTreeMap::new();
        let function = super::pointers::base_function(function);
        for name in self.thread_local_uses.get(function).cloned().unwrap_or_default() {
            let t = self.thread_locals[&name].clone();
            self.frame.locals.push(t.cw.clone());
            self.frame.local_inits.insert(t.cw.clone(), t.init);
            scope.insert(name, Var { cw: t.cw, kind: Kind::Scalar(t.ty), shared: false });
        }
        scope
    }

    /// The steps around a call of `callee` (Cwhile name `cw`) that copy the caller's
    /// thread-local values in and out.
    pub(super) fn thread_local_copies(&mut self, callee: &str, cw: &str, span: Span) -> (Vec<N>, Vec<N>) {
        let (mut copy_in, mut copy_out) = (Vec::new(), Vec::new());
        let callee = super::pointers::base_function(callee);
        for name in self.thread_local_uses.get(callee).cloned().unwrap_or_default() {
            let v = self.thread_locals[&name].cw.clone();
            let l = self.label(span);
            copy_in.push(N::Simple(l, format!("{cw}.{v} := {v}")));
            let l = self.label(span);
            copy_out.push(N::Simple(l, format!("{v} := {cw}.{v}")));
        }
        (copy_in, copy_out)
    }
}
