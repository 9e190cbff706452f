//! Pointer parameters bound to globals: a call `f(&g)` of `void f(T *p)` with `g` a global
//! (an integer, a mutex, a struct), or a pointer the caller holds that is bound to one, calls
//! a copy of `f` in which `p` is `g`: `*p` reads and writes `g`, `p->x` is `g.x`,
//! `pthread_mutex_lock(p)` locks `g`. Each set of bindings is a procedure of its own (`f_g`),
//! read at its calls, so the pointer's target is known wherever the body uses it. An `int *`
//! parameter passed a local's address, or a global's by a call that runs as one atomic step,
//! is read by reference as before (`call.rs`); any other argument of a mutex or struct pointer
//! is refused by name.

use lang_c::ast::{DerivedDeclarator, Expression as E, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::Diagnostic;

use super::common::{strip_casts, unsupported, Base, Kind, Lower, Var};

impl<'a> Lower<'a> {
    /// The pointer parameters of `name` that the call's `args` bind to globals: each
    /// parameter's index and the global's C name. `atomic`: the call runs as one atomic step.
    pub(super) fn pointer_bindings(
        &self,
        name: &str,
        args: &[Node<E>],
        atomic: bool,
    ) -> Result<Vec<(usize, String)>, Diagnostic> {
        let Some(f) = self.functions.get(name) else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for x in &f.node.declarator.node.derived {
            let DerivedDeclarator::Function(fd) = &x.node else { continue };
            for (k, p) in fd.node.parameters.iter().enumerate() {
                let Some(d) = &p.node.declarator else { continue };
                let pointer =
                    matches!(d.node.derived.as_slice(), [x] if matches!(x.node, DerivedDeclarator::Pointer(_)));
                let Some(a) = args.get(k) else { continue };
                if !pointer {
                    continue;
                }
                let target = self.pointed(a);
                match (self.base_type(&p.node.specifiers)?.0, target) {
                    // `int *`: by reference where `call.rs` reads it so (a local's address, a
                    // call that runs as one atomic step, an array).
                    (Some(Base::Int(_)), Some((g, Kind::Scalar(_), true))) if !atomic => out.push((k, g)),
                    (Some(Base::Mutex), Some((g, Kind::Mutex, true)))
                    | (Some(Base::Struct(_)), Some((g, Kind::Struct(_), true))) => out.push((k, g)),
                    // An element of a global array of structs (`struct_arrays.rs`).
                    (Some(Base::Struct(_)), _) if self.element_binding_of(a)?.is_some() => {
                        out.extend(self.element_binding_of(a)?.map(|g| (k, g)));
                    }
                    (Some(Base::Mutex), _) => {
                        return Err(unsupported(
                            "a `pthread_mutex_t *` argument other than a global mutex's address",
                            self.span(a),
                        ))
                    }
                    (Some(Base::Struct(_)), _) => {
                        return Err(unsupported(
                            "a struct pointer argument other than a global struct's address or an element of a global array of structs",
                            self.span(a),
                        ))
                    }
                    _ => {}
                }
            }
        }
        Ok(out)
    }

    /// The variable an argument points to: `&g`, or a pointer bound to `g`: its C name, kind,
    /// and whether it is a global.
    fn pointed(&self, a: &Node<E>) -> Option<(String, Kind, bool)> {
        let key = match &strip_casts(a).node {
            // A global, not hidden by a local of the caller, or a local modelled as a global
            // (`local_mutex.rs`); `&p->f` with `p` bound, the field of `p`'s variable.
            E::UnaryOperator(u) if u.node.operator.node == U::Address => match &u.node.operand.node {
                E::Identifier(id) => match id.node.name.split_once("->") {
                    Some((p, rest)) => match self.lookup(p) {
                        Some(Var { kind: Kind::Points(t), .. }) => format!("{t}.{rest}"),
                        _ => return None,
                    },
                    None => self.global_key(&id.node.name)?,
                },
                _ => return None,
            },
            E::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Var { kind: Kind::Points(t), shared: true, .. }) => t.clone(),
                _ => return None,
            },
            _ => return None,
        };
        let var = self.globals.get(&key)?;
        Some((key, var.kind.clone(), var.shared))
    }

    /// The function `name` with the bindings `bound`: itself when there are none, else a copy
    /// named for them (read as a procedure of its own).
    pub(super) fn specialise(&mut self, name: &str, bound: &[(usize, String)]) -> String {
        if bound.is_empty() {
            return name.to_owned();
        }
        let key = format!("{name}#{}", bound.iter().map(|(k, g)| format!("{k}={g}")).collect::<Vec<_>>().join(","));
        if !self.functions.contains_key(&key) {
            let f = self.functions[name];
            self.functions.insert(key.clone(), f);
            self.bindings.insert(key.clone(), bound.to_vec());
        }
        key
    }

    /// The Cwhile name of a bound copy: the function's name and its globals' (`add_ma_a`).
    pub(super) fn bound_name(&mut self, key: &str) -> Option<String> {
        let bound = self.bindings.get(key)?;
        let base = key.split('#').next().unwrap_or(key);
        let targets: Vec<String> =
            bound.iter().map(|(_, g)| g.replace("::", "_").replace('.', "_").replace("[]", "")).collect();
        Some(self.fresh(&format!("{base}_{}", targets.join("_"))))
    }

    /// The scope entries of a bound copy's pointer parameters: each its global.
    pub(super) fn bound_scope(&self, key: &str) -> Vec<(String, Var)> {
        let Some(bound) = self.bindings.get(key) else { return Vec::new() };
        let f = self.functions[key];
        let mut out = Vec::new();
        for x in &f.node.declarator.node.derived {
            let DerivedDeclarator::Function(fd) = &x.node else { continue };
            for (k, g) in bound {
                if element_binding(g).is_some() {
                    continue; // a parameter holding an element's index (`struct_arrays.rs`)
                }
                let Some(d) = fd.node.parameters.get(*k).and_then(|p| p.node.declarator.as_ref()) else { continue };
                let Ok((name, _)) = self.declarator_name(d) else { continue };
                out.push((name, Var { cw: String::new(), kind: Kind::Points(g.clone()), shared: true }));
            }
        }
        out
    }
}

/// The C function a lowered function key names (a bound copy's key is `f#...`).
pub(super) fn base_function(key: &str) -> &str {
    key.split('#').next().unwrap_or(key)
}

/// The marker a binding of a pointer parameter to an element of the global array `a` carries
/// (`a[]`, `struct_arrays.rs`): the parameter stays, holding the index.
pub(super) fn element_binding(target: &str) -> Option<&str> {
    target.strip_suffix("[]")
}
