//! `for (i = a; i < n; i++)` loops that create or join threads with `n` not a constant
//! (`for (i = 0; i < n; i++) pthread_create(&t[i], 0, f, 0);`, `n` nondet): their rounds, as
//! `Lower::rounds` runs any loop that creates threads, with `i` a constant in each copy (`a`,
//! `a + 1`, ...), so that `t[i]` names one handle per round.

use lang_c::ast::{Expression as E, Statement};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{Lower, N};

impl<'a> Lower<'a> {
    /// The rounds from round `done` on, `i` (C name `var`, Cwhile `cw`) being `k` in this one:
    /// `if (k < n) { BODY; i := k + 1; if (k + 1 < n) { ... if (..) { assume(0); } } }`, up to
    /// [`super::Options::thread_rounds`] copies; a path on which the loop would run once more
    /// is cut there, a bound the reading reports. Only for a body with no `break`, `continue`,
    /// `return` or `goto` out of it (`Lower::unroll` leaves those to `Lower::rounds`, which
    /// refuses them).
    pub(super) fn indexed_rounds(
        &mut self,
        c: &'a Node<E>,
        body: &'a Node<Statement>,
        (var, cw): (&str, &str),
        k: i64,
        span: Span,
        done: usize,
    ) -> Result<Vec<N>, Diagnostic> {
        self.rounds_cut = true;
        let last = done == self.options.thread_rounds;
        self.frame.consts.insert(var.to_owned(), k);
        self.frame.temps = 0;
        let nodes = self.cond_node(c, span, |l| {
            if last {
                let cut = l.label(span);
                return Ok((vec![N::Simple(cut, "assume(0)".to_owned())], None));
            }
            let mut nodes = l.block(body)?;
            let next = l.label(span);
            nodes.push(N::Simple(next, format!("{cw} := {}", k + 1)));
            nodes.extend(l.indexed_rounds(c, body, (var, cw), k + 1, span, done + 1)?);
            Ok((nodes, None))
        });
        self.frame.consts.remove(var);
        nodes
    }
}
