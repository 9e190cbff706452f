//! Objects from `malloc` and `calloc`: each call site `malloc(sizeof(T))` or
//! `calloc(1, sizeof(T))` (a cast around it allowed) of an integer, a mutex or a struct (its
//! fields flattened, `structs.rs`) is one object, a global `heap` (then `heap_2`, ..., in the
//! order the sites are read; a struct's fields `heap_f`), when the site runs at most once: in `main`, outside
//! loops. A pointer set to the call's value holds the object's number, as it would a
//! variable's address (`ptrflow.rs` adds the object to its targets, `pointsto.rs` reads it).
//! SV-COMP's tasks assume that `malloc` succeeds: the call never gives NULL here. The object
//! starts at 0, `calloc`'s zeros (an uninitialised `malloc`'d value is read as 0 too).
//! `free(p)` does nothing. Any other size (an array, `sizeof *p`), a site in a loop or in a
//! function other than `main` (one object per run), and a struct holding a pointer (a linked
//! list through `next`) are refused by name.

use lang_c::ast::{Expression as E, TypeName};
use lang_c::span::Node;
use paces_cwhile::Diagnostic;

use super::common::{lit, strip_casts, type_specifiers, unsupported, Base, Lower, Shape};
use super::shapes::heap_key;

impl<'a> Lower<'a> {
    /// A `malloc` or `calloc` call as a pointer's value: its object's number (the object made
    /// at the first read of the site); `None` when `e` is no such call.
    pub(super) fn alloc_value(&mut self, e: &'a Node<E>) -> Result<Option<String>, Diagnostic> {
        let Some(key) = heap_key(e) else { return Ok(None) };
        let call = strip_casts(e);
        let span = self.span(call);
        // A site read again is a copy of an unrolled loop's body, or a loop's next round.
        if !self.frame.is_main || self.frame.loops > 0 || self.globals.contains_key(&key.1) {
            return Err(unsupported(
                "`malloc` or `calloc` in a loop or in a function other than `main` (an object per run)",
                span,
            ));
        }
        let Some(id) = self.flow.ids.get(&key).copied() else {
            return Err(unsupported("a `malloc`'d object no pointer of the program holds", span));
        };
        let E::Call(c) = &call.node else { return Ok(None) };
        let size = match c.node.arguments.as_slice() {
            [size] => Some(size),
            [n, size] if self.const_eval(n) == Some(1) => Some(size),
            _ => None,
        };
        let ty = size.and_then(|s| match &s.node {
            E::SizeOfTy(t) => Some(&t.node.0),
            _ => None,
        });
        let refused = || unsupported("a `malloc` or `calloc` of a size other than `sizeof(T)` (one object)", span);
        let Some(ty) = ty else { return Err(refused()) };
        let base = self.object_type(ty)?.ok_or_else(refused)?;
        // Named in the order the sites are read (not by line: a repair that adds lines must
        // read back as the same program).
        let cw = self.fresh("heap");
        let var = match base {
            Base::Struct(k) => self.struct_var(&cw, k, span, true, None)?,
            base => self.new_var(&cw, base, Shape::Scalar, span, true, &[])?,
        };
        self.register(&key.1, var, true);
        Ok(Some(lit(id)))
    }

    /// The type a `sizeof(T)` names, when it is not a pointer type.
    fn object_type(&self, t: &Node<TypeName>) -> Result<Option<Base>, Diagnostic> {
        if t.node.declarator.as_ref().is_some_and(|d| !d.node.derived.is_empty()) {
            return Ok(None);
        }
        let specs = type_specifiers(&t.node.specifiers);
        Ok(self.base_type(&specs)?.0.filter(|b| matches!(b, Base::Int(_) | Base::Mutex | Base::Struct(_))))
    }
}
