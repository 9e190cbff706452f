//! Mutexes that are not globals: a `pthread_mutex_t` local of `main` (outside loops), or a
//! struct local of `main` holding one, is modelled as a global. `main` runs once, so the local
//! is one object for the program's whole run; its Cwhile name is the function's and the local's
//! (`main_lock`). The globals also hold it as `main::lock`, the name pointer parameters bound to
//! it (`pointers.rs`) and pointers set to its address (`structs.rs`) use. A mutex local of any
//! other function, or of `main` inside a loop, is still refused by name.

use paces_cwhile::{Diagnostic, Span};

use super::common::{type_specifiers, unsupported, Base, Lower, Shape, Var};
use super::pointers::base_function;

impl Lower<'_> {
    /// Whether a local declared with `base` and `shape` is a mutex (or a struct holding one) of
    /// `main` outside loops: a global.
    pub(super) fn main_mutex(&self, base: Base, shape: &Shape) -> bool {
        self.frame.is_main
            && self.frame.loops == 0
            && matches!(shape, Shape::Scalar | Shape::Array(_))
            && self.holds_mutex(base)
    }

    fn holds_mutex(&self, base: Base) -> bool {
        match base {
            Base::Mutex => true,
            Base::Struct(k) => self.field_bases(k).into_iter().any(|b| self.holds_mutex(b)),
            _ => false,
        }
    }

    /// The types of the fields of the struct type `k` (those the reader can name).
    fn field_bases(&self, k: usize) -> Vec<Base> {
        let mut out = Vec::new();
        for f in self.struct_defs[k].node.declarations.iter().flatten() {
            let lang_c::ast::StructDeclaration::Field(f) = &f.node else { continue };
            let specs = type_specifiers(&f.node.specifiers);
            if let Ok((Some(b), _, _)) = self.base_type(&specs) {
                out.push(b);
            }
        }
        out
    }

    /// Records a local modelled as a global (an escaped one, `pointsto.rs`, or a mutex of
    /// `main`): among the escaped variables, and among the globals as `f::name`. A local read
    /// twice (declared again in `main`, or in a loop whose body the reader copies per round)
    /// would be one object per declaration: refused.
    pub(super) fn promote(&mut self, name: &str, var: &Var, span: Span) -> Result<(), Diagnostic> {
        let key = format!("{}::{name}", base_function(&self.frame.name));
        if self.globals.contains_key(&key) {
            return Err(unsupported(
                "a local of `main` modelled as a global (a mutex, or one whose address another function holds) declared twice or in a loop,",
                span,
            ));
        }
        self.escaped_var(name, var);
        self.register(&key, var.clone(), true);
        Ok(())
    }
}
