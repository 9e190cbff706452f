//! Addresses computed from other pointers: `&p->f` (the address of a field of the struct `p`
//! points to) and `container_of(p, T, m)` (`container.rs`). `ptrflow.rs` finds the variables
//! such a value can name; here the value itself is computed: a number known while reading
//! when `p` is bound to one variable (`Kind::Points`), else a choice on `p`'s number, one
//! branch per target (`pointsto.rs`), with NULL giving NULL.

use lang_c::ast::{Expression as E, UnaryOperator as U};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::common::{lit, strip_casts, unsupported, Addr, Cx, Kind, Lower, Var, N};
use super::pointers::base_function;
use super::ptrflow::Key;
use super::shapes::container_of;

/// What an address is computed from: the pointer's variable and, for each of its targets, the
/// key of the variable the address names.
enum From {
    /// Known while reading: the key of the variable named.
    Known(Key),
    /// `p`'s Cwhile variable, whether it is shared, and each target's number with the key.
    Chosen(String, bool, Vec<(i64, Key)>),
}

impl<'a> Lower<'a> {
    /// The flow's key of the variable a `Kind::Points` target names.
    pub(super) fn points_key(&self, target: &str, shared: bool) -> Key {
        if shared && !target.contains("::") {
            return (None, target.to_owned());
        }
        self.flow.resolve(Some(base_function(&self.frame.name)), target)
    }

    /// The number of `&p->f` or `container_of(p, ...)` when it is known while reading (`p`
    /// bound to one variable), or of `p` itself when `e` names a `Kind::Points` pointer.
    pub(super) fn known_address(&self, e: &Node<E>) -> Option<i64> {
        let e = strip_casts(e);
        if let E::Identifier(id) = &e.node {
            return match self.lookup(&id.node.name) {
                Some(Var { kind: Kind::Points(t), shared, .. }) => {
                    self.flow.ids.get(&self.points_key(t, *shared)).copied()
                }
                // A pointer that only ever holds one address, never NULL (a local declared
                // with it, `int *c = malloc(sizeof(int));`).
                Some(Var { kind: Kind::Ptr(_, addrs), .. }) if addrs.len() == 1 => {
                    let local = self.frame.scopes.iter().any(|s| s.contains_key(&id.node.name));
                    let key = (local.then(|| base_function(&self.frame.name).to_owned()), id.node.name.clone());
                    let info = self.flow.pointers.get(&key)?;
                    (!info.null && info.unknown.is_none()).then_some(addrs[0].id)
                }
                _ => None,
            };
        }
        match self.derived_address(e) {
            Ok(Some(From::Known(key))) => self.flow.ids.get(&key).copied(),
            _ => None,
        }
    }

    /// `&p->f` or `container_of(p, ...)` as a pointer's value: a number, or a temporary the
    /// choice on `p` sets; `None` when `e` is neither.
    pub(super) fn derived_value(&mut self, e: &'a Node<E>, cx: &mut Cx) -> Result<Option<String>, Diagnostic> {
        let span = self.span(e);
        let Some(from) = self.derived_address(strip_casts(e))? else { return Ok(None) };
        let id = |l: &Self, key: &Key| {
            l.flow.ids.get(key).copied().ok_or_else(|| {
                unsupported(&format!("the address of `{}`, which no pointer of the program holds,", key.1), span)
            })
        };
        let (sel, shared, options) = match from {
            From::Known(key) => return id(self, &key).map(|v| Some(lit(v))),
            From::Chosen(sel, shared, options) => (sel, shared, options),
        };
        let sel = if shared { self.read_var(&sel, true, cx) } else { sel };
        let t = self.temp();
        // NULL (or a number no target has) gives NULL.
        let mut tail = vec![N::Simple(self.label(cx.span), format!("{t} := 0"))];
        for (from, key) in options.iter().rev() {
            let to = id(self, key)?;
            let (i, s) = (self.label(cx.span), self.label(cx.span));
            tail = vec![N::If(i, format!("{sel} == {from}"), vec![N::Simple(s, format!("{t} := {to}"))], Some(tail))];
        }
        cx.pre.extend(tail);
        Ok(Some(t))
    }

    /// What `&p->f` or `container_of(p, T, m)` is computed from; `None` for another expression.
    fn derived_address(&self, e: &Node<E>) -> Result<Option<From>, Diagnostic> {
        let span = self.span(e);
        if let Some(c) = container_of(e) {
            let E::Identifier(id) = &strip_casts(c.ptr).node else {
                return Err(unsupported("`container_of` of something other than a pointer variable", span));
            };
            let map = |l: &Self, key: Key| -> Result<Key, Diagnostic> {
                let outer = l.container_target(&c, &key, &|k| l.key_var(k), span)?;
                Ok((key.0, outer))
            };
            return self.through(&id.node.name, span, &map).map(Some);
        }
        let E::UnaryOperator(u) = &e.node else { return Ok(None) };
        if u.node.operator.node != U::Address {
            return Ok(None);
        }
        let E::Identifier(id) = &u.node.operand.node else { return Ok(None) };
        let Some((pointer, rest)) = id.node.name.split_once("->") else { return Ok(None) };
        if rest.contains("->") {
            return Err(unsupported("the address of a member through two pointers", span));
        }
        let map = |_: &Self, key: Key| Ok((key.0, format!("{}.{rest}", key.1)));
        self.through(pointer, span, &map).map(Some)
    }

    /// The targets of the pointer `pointer`, each mapped by `map`.
    fn through(
        &self,
        pointer: &str,
        span: Span,
        map: &dyn Fn(&Self, Key) -> Result<Key, Diagnostic>,
    ) -> Result<From, Diagnostic> {
        match self.lookup(pointer) {
            Some(Var { kind: Kind::Points(t), shared, .. }) => Ok(From::Known(map(self, self.points_key(t, *shared))?)),
            Some(Var { cw, kind: Kind::Ptr(_, addrs), shared }) => {
                let mut options = Vec::new();
                for Addr { id, owner, name } in addrs {
                    options.push((*id, map(self, (owner.clone(), name.clone()))?));
                }
                Ok(From::Chosen(cw.clone(), *shared, options))
            }
            _ => Err(unsupported(
                &format!("an address computed from `{pointer}`, which is not a pointer to known variables,"),
                span,
            )),
        }
    }

    /// The variable the flow's key names: a global, a local in scope, or an escaped local.
    pub(super) fn key_var(&self, key: &Key) -> Option<Var> {
        let here = base_function(&self.frame.name);
        match &key.0 {
            None => self.globals.get(&key.1),
            Some(f) if f == here => self.frame.scopes.iter().rev().find_map(|s| s.get(&key.1)),
            Some(f) => self.escaped_vars.get(&(Some(f.clone()), key.1.clone())),
        }
        .cloned()
    }
}

impl Lower<'_> {
    /// The name under which the globals hold the variable `name` (`x` or `x.f`) names here: a
    /// local modelled as a global (`local_mutex.rs`) is `f::x`; `None` for a local of the
    /// function's own or an unknown name.
    pub(super) fn global_key(&self, name: &str) -> Option<String> {
        let base = name.split('.').next().unwrap_or(name);
        match self.frame.scopes.iter().rev().find_map(|s| s.get(base)) {
            Some(v) if v.shared => {
                let key = format!("{}::{name}", base_function(&self.frame.name));
                self.globals.contains_key(&key).then_some(key)
            }
            Some(_) => None,
            None => self.globals.contains_key(name).then(|| name.to_owned()),
        }
    }

    /// Whether the operand of `&` names one variable while reading: a name, or a member
    /// through a pointer bound to one variable (`p->f`, `p` a `Kind::Points`).
    pub(super) fn bound_operand(&self, operand: &Node<E>) -> bool {
        match &operand.node {
            E::Identifier(id) => match id.node.name.split_once("->") {
                Some((p, _)) => matches!(self.lookup(p), Some(Var { kind: Kind::Points(_), .. })),
                None => true,
            },
            _ => true,
        }
    }
}
