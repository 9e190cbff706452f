//! POSIX semaphores (`semaphore.h`): a `sem_t` is an integer (the prelude declares it as `int`
//! when the program includes `<semaphore.h>`), a global one or an element of a global array
//! of them at a constant index. `sem_init(&s, pshared, v)` sets it to `v` (a step of the
//! threads' structure, which a repair does not move across a create), `sem_wait(&s)` is
//! Cwhile's `down(s)` (it waits until the value is positive, then takes one, as one step),
//! `sem_post(&s)` is `up(s)`, and `sem_destroy(&s)` takes no step. The model is exact: POSIX's
//! `sem_wait` only returns early on a signal, which the programs read here do not handle.

use lang_c::ast::Expression as E;
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::call::arity;
use super::common::{unsupported, Cx, Item, Lower};

impl<'a> Lower<'a> {
    /// A call of `sem_init`, `sem_wait`, `sem_post` or `sem_destroy` with `args`: its step.
    pub(super) fn semaphore_item(&mut self, name: &str, args: &'a [Node<E>], span: Span) -> Result<Item, Diagnostic> {
        arity(name, args, if name == "sem_init" { 3 } else { 1 }, span)?;
        let what = "a semaphore argument that is not `&s` for a global `sem_t s` (or `&s[k]`, constant `k`)";
        let (s, _) = self.global_integer(&args[0], what)?;
        match name {
            "sem_init" => {
                let mut cx = Cx { split: false, pre: Vec::new(), span, arith: false };
                let v = self.expr(&args[2], &mut cx)?;
                if !cx.pre.is_empty() {
                    return Err(unsupported("a semaphore's initial value that reads a shared variable", span));
                }
                // The threads' structure: a repair never moves the initialisation across the
                // creates of the threads that use the semaphore.
                Ok(Item::Nodes(vec![self.structure_step(span, format!("{s} := {v}"))]))
            }
            "sem_wait" => self.simple_item(span, format!("down({s})")),
            "sem_post" => self.simple_item(span, format!("up({s})")),
            _ => Ok(Item::Nodes(Vec::new())),
        }
    }
}
