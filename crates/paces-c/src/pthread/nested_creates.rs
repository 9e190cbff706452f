//! `pthread_create` outside `main`: in a function `main` calls, or in a thread function (a
//! thread that creates another, which joins it later or not). Every create step sets its
//! thread's start flag, which a thread's step sets as well as `main`'s; the model needs each
//! create to run at most once, so the function it lies in must run at most once: `main`, or a
//! function with one call (or one `pthread_create` of it) outside loops in a function that
//! runs at most once.

use std::collections::BTreeSet;

use paces_cwhile::{Diagnostic, Span};

use super::common::{unsupported, Lower};

impl Lower<'_> {
    /// Fails on a `pthread_create` in a function that may run more than once.
    pub(super) fn check_creators(&self) -> Result<(), Diagnostic> {
        for (f, at) in &self.creators {
            if self.runs_once(f, &mut BTreeSet::new()) {
                continue;
            }
            if self.in_a_thread(f, &mut BTreeSet::new()) {
                return Err(unsupported(
                    "`pthread_create` in a thread other than `main`, in a loop or in a function that may run more than once",
                    *at,
                ));
            }
            let sites: Vec<_> = self.calls.iter().filter(|c| &c.1 == f).collect();
            let span = sites.first().map_or(*at, |c| c.2);
            return Err(unsupported(
                &format!("`pthread_create` in `{f}`, which is not called exactly once outside loops by a function that runs once"),
                span,
            ));
        }
        Ok(())
    }

    /// Whether `f` runs at most once: `main`, or one call or create of it, outside loops,
    /// from a function that runs at most once (no recursion: `Lower::recursion` checked).
    fn runs_once(&self, f: &str, seen: &mut BTreeSet<String>) -> bool {
        if f == "main" {
            return true;
        }
        if !seen.insert(f.to_owned()) {
            return false;
        }
        let sites: Vec<_> = self.calls.iter().filter(|c| c.1 == f).collect();
        match sites.as_slice() {
            [(caller, _, _, false)] => self.runs_once(caller, seen),
            _ => false,
        }
    }

    /// Whether `f` runs in a thread other than `main`: it is a thread function, or a function
    /// such a thread calls.
    fn in_a_thread(&self, f: &str, seen: &mut BTreeSet<String>) -> bool {
        if f == "main" || !seen.insert(f.to_owned()) {
            return false;
        }
        if self.instances.iter().any(|i| i.function == f) {
            return true;
        }
        let callers: Vec<String> = self.calls.iter().filter(|c| c.1 == f).map(|c| c.0.clone()).collect();
        callers.iter().any(|c| self.in_a_thread(c, seen))
    }

    /// Records that the function being lowered creates a thread at `span` (checked by
    /// [`Lower::check_creators`] when every call is known).
    pub(super) fn note_creator(&mut self, span: Span) {
        if !self.frame.is_main {
            self.creators.entry(self.frame.name.clone()).or_insert(span);
        }
    }
}

impl<'a> Lower<'a> {
    /// The next function to lower out of [`Lower::pending`], taken out of it: the first,
    /// unless it joins a thread while a later one creates threads. A thread's join must come
    /// after its create, and functions are lowered in order of their first call, which need not
    /// be the order they run in (a thread that creates another while `main` calls the joiner).
    pub(super) fn next_pending(&mut self) -> String {
        let names = |l: &Self, f: &str, what: &str| {
            l.functions.get(f).is_some_and(|d| {
                let mut names = super::common::Names::default();
                lang_c::visit::Visit::visit_statement(&mut names, &d.node.statement.node, &d.node.statement.span);
                names.0.contains(what)
            })
        };
        let first = &self.pending[0];
        if names(self, first, "pthread_join") {
            if let Some(k) = self.pending.iter().position(|f| names(self, f, "pthread_create")) {
                return self.pending.remove(k);
            }
        }
        self.pending.remove(0)
    }
}

impl Lower<'_> {
    /// Lowers the function `name`, just called, now when it creates threads (or calls one
    /// that does): a join after the call, in the caller, then finds the handle its create set.
    pub(super) fn lower_creator_now(&mut self, name: &str) -> Result<(), Diagnostic> {
        if !self.names_reached(name).contains("pthread_create") {
            return Ok(());
        }
        let Some(k) = self.pending.iter().position(|f| f == name) else { return Ok(()) };
        self.pending.remove(k);
        let caller = std::mem::take(&mut self.frame);
        let lowered = self.procedure(name);
        self.frame = caller;
        lowered
    }
}
