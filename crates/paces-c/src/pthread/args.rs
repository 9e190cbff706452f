//! `main`'s parameters: `int main(int argc, char **argv)` (or `char *argv[]`). `argc` is a
//! local of `main` set, when `main` starts, to a value of the nondet range that is not
//! negative (C's `argc` never is): a bound, as for `__VERIFIER_nondet_int()`. `argv` holds
//! strings, which the model has none of: `main` may declare it, read numbers out of it
//! (`argv.rs`), and any other use of it is refused by name.

use lang_c::ast::{DerivedDeclarator, FunctionDefinition};
use lang_c::span::Node;
use paces_cwhile::Diagnostic;

use super::common::{unsupported, Base, Kind, Lower, Var, N};

impl<'a> Lower<'a> {
    /// The steps that set `main`'s parameters when it starts: a choice of `argc`'s value.
    pub(super) fn main_parameters(&mut self, main: &'a Node<FunctionDefinition>) -> Result<Vec<N>, Diagnostic> {
        let mut params = Vec::new();
        for x in &main.node.declarator.node.derived {
            if let DerivedDeclarator::Function(fd) = &x.node {
                params.extend(fd.node.parameters.iter().filter(|p| p.node.declarator.is_some()));
            }
        }
        let mut out = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let d = p.node.declarator.as_ref().expect("filtered");
            let (name, span) = self.declarator_name(d)?;
            let (base, _, _) = self.base_type(&p.node.specifiers)?;
            let indirections = d
                .node
                .derived
                .iter()
                .filter(|x| matches!(x.node, DerivedDeclarator::Pointer(_) | DerivedDeclarator::Array(_)))
                .count();
            let char_type = matches!(base, Some(Base::Int(t)) if t.bits == 8);
            match (k, base, indirections) {
                (0, Some(Base::Int(ty)), 0) => {
                    let cw = self.fresh_here(&name);
                    self.frame.locals.push(cw.clone());
                    let var = Var { cw: cw.clone(), kind: Kind::Scalar(ty), shared: false };
                    self.frame.scopes.last_mut().expect("a scope").insert(name.clone(), var);
                    // An `argc` that `main`'s body (macros expanded) never names makes no choice
                    // and bounds nothing.
                    if !super::thread::names(main, &name) {
                        continue;
                    }
                    let (lo, hi) = self.options.nondet;
                    let lo = lo.max(0);
                    self.nondet_used = true;
                    let choice = self.choice(&cw, lo, hi.max(lo), span);
                    out.extend(self.unit(choice, span));
                }
                (1, Some(Base::Int(_)), 2) if char_type => {
                    self.refuse_argv(main, &name)?;
                    self.argv = Some(name);
                }
                _ => {
                    return Err(unsupported(
                        "a parameter of `main` other than `int argc` and `char **argv`",
                        self.span(p),
                    ))
                }
            }
        }
        Ok(out)
    }

    /// Refuses the first use of `argv` (named `name`) in `main`'s body other than as the string
    /// a number is read out of (`argv.rs`).
    fn refuse_argv(&self, main: &Node<FunctionDefinition>, name: &str) -> Result<(), Diagnostic> {
        let mut finder = First { name, at: None };
        lang_c::visit::Visit::visit_statement(&mut finder, &main.node.statement.node, &main.node.statement.span);
        match finder.at {
            Some(at) => Err(unsupported(
                &format!("`{name}`, the command line's arguments (strings),"),
                self.prep.span(at.start, at.end, self.source),
            )),
            None => Ok(()),
        }
    }
}

/// Finds the first occurrence of an identifier.
struct First<'n> {
    name: &'n str,
    at: Option<lang_c::span::Span>,
}

impl<'ast> lang_c::visit::Visit<'ast> for First<'_> {
    fn visit_call_expression(&mut self, c: &'ast lang_c::ast::CallExpression, span: &'ast lang_c::span::Span) {
        if super::argv::reads_argv(c, self.name) {
            for a in c.arguments.iter().skip(1) {
                self.visit_expression(&a.node, &a.span);
            }
            return;
        }
        lang_c::visit::visit_call_expression(self, c, span);
    }

    fn visit_identifier(&mut self, i: &'ast lang_c::ast::Identifier, span: &'ast lang_c::span::Span) {
        if self.at.is_none() && i.name == self.name {
            self.at = Some(*span);
        }
    }
}
