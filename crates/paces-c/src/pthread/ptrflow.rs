//! Where pointers point, before the lowering: a flow-insensitive pass over the whole file that
//! finds, for each pointer variable (a global, or a function's local, declared `T *p`), every
//! value it can hold: the address of a named variable (`&x`, `&s.f`), NULL (`0`, `NULL`, a
//! global's missing initialiser), or another pointer's value (`p = q`, `g1 = g2 = &g`). A
//! pointer set to anything else (`malloc`, arithmetic, a call's result) or whose own address is
//! taken has no such set: its declaration is refused by name where the lowering meets it.
//! `pointsto.rs` models each pointer that holds more than one value over its life as an integer
//! naming its target.

use std::collections::{BTreeMap, BTreeSet};

use lang_c::ast::{
    BinaryOperator as B, BlockItem, Declaration, DeclarationSpecifier, DerivedDeclarator, Expression as E,
    ExternalDeclaration, ForInitializer, FunctionDefinition, Initializer, Statement, StorageClassSpecifier,
    TranslationUnit, TypeSpecifier, UnaryOperator as U,
};
use lang_c::span::{Node, Span};

pub(super) use super::shapes::Key;
use super::shapes::{container_of, heap_key, uncast, ContainerOf};

/// What the pass found about one pointer variable.
#[derive(Clone, Debug, Default)]
pub(super) struct Info {
    /// The variables whose address it may hold.
    pub(super) addrs: BTreeSet<Key>,
    /// Whether it may be NULL.
    pub(super) null: bool,
    /// Where it is first set to a value the pass cannot follow.
    pub(super) unknown: Option<Span>,
    /// Whether it is assigned after its declaration.
    pub(super) reassigned: bool,
    /// The pointers whose values it takes.
    copies: BTreeSet<Key>,
    /// The pointers `p` whose field's address it takes (`&p->f`), with the field (`f`, `in.f`).
    fields: BTreeSet<(Key, String)>,
    /// The pointers `p` whose container it takes (`container_of(p, T, m)`), with the member.
    containers: BTreeSet<(Key, String)>,
}

/// The pass's result: each pointer's [`Info`], and each variable whose address some pointer
/// holds with the number that names it (1, 2, ...; 0 is NULL).
#[derive(Clone, Debug, Default)]
pub(super) struct Flow {
    pub(super) pointers: BTreeMap<Key, Info>,
    pub(super) ids: BTreeMap<Key, i64>,
    /// Each function's local names, with how often each is declared.
    locals: BTreeMap<String, BTreeMap<String, usize>>,
    /// The locals whose address a pointer of another function (or a global one) may hold,
    /// such as a thread's argument: shared variables (`pointsto.rs`).
    pub(super) escaped: BTreeSet<Key>,
}

impl Flow {
    /// Runs the pass over a translation unit.
    pub(super) fn of(unit: &TranslationUnit) -> Flow {
        let mut flow = Flow::default();
        let mut functions = Vec::new();
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::Declaration(d) => flow.declaration(None, d, true),
                ExternalDeclaration::FunctionDefinition(f) => functions.push(f),
                ExternalDeclaration::StaticAssert(_) => {}
            }
        }
        for f in &functions {
            let Some(name) = function_name(f) else { continue };
            let mut locals = BTreeMap::new();
            collect_params(f, &mut locals);
            collect_locals(&f.node.statement, &mut locals);
            flow.locals.insert(name, locals);
        }
        // A thread function's `void *` parameter is a pointer set by each `pthread_create`
        // that starts it, to the call's argument.
        let mut creates = Vec::new();
        for f in &functions {
            let Some(name) = function_name(f) else { continue };
            let mut finder = Creates(Vec::new());
            lang_c::visit::Visit::visit_statement(&mut finder, &f.node.statement.node, &f.node.statement.span);
            creates.extend(finder.0.into_iter().map(|(t, a)| (name.clone(), t, a)));
        }
        // Each is set after the statements are read, so that a pointer a caller declares is
        // known when it is an argument; the parameter itself is known before.
        let mut sets: Vec<(Key, String, &Node<E>)> = Vec::new();
        for (creator, thread, arg) in creates {
            let Some(def) = functions.iter().find(|f| function_name(f).as_deref() == Some(thread.as_str())) else {
                continue;
            };
            let Some(param) = first_pointer_param(def) else { continue };
            sets.push(((Some(thread), param), creator, arg));
        }
        sets.extend(bound_params(&functions, &struct_typedefs(unit)));
        for (key, _, _) in &sets {
            flow.pointers.entry(key.clone()).or_default();
        }
        for f in &functions {
            let Some(name) = function_name(f) else { continue };
            for (local, n) in flow.locals[&name].clone() {
                let key = (Some(name.clone()), local);
                if let Some(info) = flow.pointers.get_mut(&key) {
                    if n > 1 {
                        info.unknown.get_or_insert(f.span);
                    }
                }
            }
            flow.statement(&name, &f.node.statement);
        }
        for (key, caller, arg) in sets {
            let mut info = flow.pointers.remove(&key).unwrap_or_default();
            flow.sources(Some(&caller), arg, &mut info);
            flow.pointers.insert(key, info);
        }
        flow.close();
        flow
    }

    /// Follows `p = q` to a fixed point; a pointer copying one the pass cannot follow cannot
    /// be followed either; then numbers the targets.
    fn close(&mut self) {
        loop {
            let mut changed = false;
            let keys: Vec<Key> = self.pointers.keys().cloned().collect();
            for k in &keys {
                let copies = self.pointers[k].copies.clone();
                for c in copies {
                    let Some(from) = self.pointers.get(&c).cloned() else { continue };
                    let info = self.pointers.get_mut(k).expect("a pointer");
                    let before = (info.addrs.len(), info.null, info.unknown.is_some());
                    info.addrs.extend(from.addrs);
                    info.null |= from.null;
                    if info.unknown.is_none() {
                        info.unknown = from.unknown;
                    }
                    changed |= before != (info.addrs.len(), info.null, info.unknown.is_some());
                }
                changed |= self.derived(k);
            }
            if !changed {
                break;
            }
        }
        let mut next = 1;
        for info in self.pointers.values() {
            for a in &info.addrs {
                if !self.ids.contains_key(a) {
                    self.ids.insert(a.clone(), next);
                    next += 1;
                }
            }
        }
        // A target's own declaration declared more than once in its function: which one the
        // address names is not known here.
        let ambiguous: Vec<Key> = self
            .pointers
            .iter()
            .filter(|(_, i)| {
                i.addrs.iter().any(|(f, n)| {
                    let base = n.split('.').next().unwrap_or(n);
                    f.as_ref().is_some_and(|f| self.locals.get(f).and_then(|l| l.get(base)).is_some_and(|c| *c > 1))
                })
            })
            .map(|(k, _)| k.clone())
            .collect();
        for k in ambiguous {
            let info = self.pointers.get_mut(&k).expect("a pointer");
            info.unknown.get_or_insert(Span::none());
        }
        for (k, info) in &self.pointers {
            for a in &info.addrs {
                if a.0.is_some() && a.0 != k.0 {
                    self.escaped.insert(a.clone());
                }
            }
        }
    }

    /// The variable `name` names in `function` (a local when the function declares it); a
    /// local of another function as the lowering names it, `f::x` (`escaped_var`), is that.
    pub(super) fn resolve(&self, function: Option<&str>, name: &str) -> Key {
        if let Some((f, x)) = name.split_once("::") {
            return (Some(f.to_owned()), x.to_owned());
        }
        let base = name.split(['.', '-']).next().unwrap_or(name);
        match function {
            Some(f) if self.locals.get(f).is_some_and(|l| l.contains_key(base)) => {
                (Some(f.to_owned()), name.to_owned())
            }
            _ => (None, name.to_owned()),
        }
    }

    /// The addresses a pointer takes through `&p->f` and `container_of(p, T, m)`, from what
    /// the pass knows of `p` so far; whether that added anything.
    fn derived(&mut self, k: &Key) -> bool {
        let info = &self.pointers[k];
        let (mut addrs, mut null, mut unknown) = (BTreeSet::new(), false, None);
        for (p, f) in &info.fields {
            let Some(from) = self.pointers.get(p) else { continue };
            addrs.extend(from.addrs.iter().map(|(o, n)| (o.clone(), format!("{n}.{f}"))));
            null |= from.null;
            unknown = unknown.or(from.unknown);
        }
        for (p, m) in &info.containers {
            let Some(from) = self.pointers.get(p) else { continue };
            for (o, n) in &from.addrs {
                // The container of a variable that is no such member: the lowering refuses it.
                let outer = n.strip_suffix(&format!(".{m}")).unwrap_or(n);
                addrs.insert((o.clone(), outer.to_owned()));
            }
            null |= from.null;
            unknown = unknown.or(from.unknown);
        }
        let info = self.pointers.get_mut(k).expect("a pointer");
        let before = (info.addrs.len(), info.null, info.unknown.is_some());
        info.addrs.extend(addrs);
        info.null |= null;
        if info.unknown.is_none() {
            info.unknown = unknown;
        }
        before != (info.addrs.len(), info.null, info.unknown.is_some())
    }

    /// `&p->f` (`name` is `p->f`) with `p` a pointer the pass follows: `p` and the field.
    fn field_source(&self, function: Option<&str>, name: &str) -> Option<(Key, String)> {
        let (p, rest) = name.split_once("->")?;
        (!rest.contains("->")).then_some(())?;
        Some((self.pointer(function, p)?, rest.to_owned()))
    }

    /// `container_of(p, T, m)` with `p` a pointer the pass follows: `p` and the member.
    fn container_source(&self, function: Option<&str>, c: &ContainerOf<'_>) -> Option<(Key, String)> {
        let E::Identifier(id) = &uncast(c.ptr).node else { return None };
        Some((self.pointer(function, &id.node.name)?, c.member.clone()))
    }

    /// The pointer `name` names in `function`, if it is one the pass follows.
    fn pointer(&self, function: Option<&str>, name: &str) -> Option<Key> {
        let key = self.resolve(function, name);
        self.pointers.contains_key(&key).then_some(key)
    }

    fn declaration(&mut self, function: Option<&str>, d: &Node<Declaration>, global: bool) {
        for init in &d.node.declarators {
            let decl = &init.node.declarator;
            let single = matches!(decl.node.derived.as_slice(), [x] if matches!(x.node, DerivedDeclarator::Pointer(_)));
            let Some(name) = declarator_ident(decl) else { continue };
            if !single {
                if let Some(Initializer::Expression(e)) = init.node.initializer.as_ref().map(|i| &i.node) {
                    self.expression(function.unwrap_or(""), e);
                }
                continue;
            }
            let key = (function.map(str::to_owned), name);
            let mut info = self.pointers.remove(&key).unwrap_or_default();
            match init.node.initializer.as_ref().map(|i| &i.node) {
                None => info.null |= global || function.is_some(),
                Some(Initializer::Expression(e)) => {
                    self.sources(function, e, &mut info);
                    if let Some(f) = function {
                        self.expression(f, e);
                    }
                }
                Some(Initializer::List(_)) => {
                    info.unknown.get_or_insert(init.span);
                }
            }
            self.pointers.insert(key, info);
        }
    }

    /// Adds what `e`, assigned to a pointer, can be.
    fn sources(&self, function: Option<&str>, e: &Node<E>, info: &mut Info) {
        let before = info.unknown;
        self.sources_in(function, e, info);
        if before.is_none() && info.unknown.is_some() && matches!(e.node, E::Cast(_)) {
            info.unknown = Some(e.span); // the whole value, its cast included
        }
    }

    fn sources_in(&self, function: Option<&str>, e: &Node<E>, info: &mut Info) {
        match &e.node {
            E::Cast(c) => self.sources_in(function, &c.node.expression, info),
            E::Constant(_) if is_zero(e) => info.null = true,
            E::Identifier(id) if id.node.name == "NULL" => info.null = true,
            E::Identifier(id) => match self.pointer(function, &id.node.name) {
                Some(k) => {
                    info.copies.insert(k);
                }
                None => {
                    info.unknown.get_or_insert(e.span);
                }
            },
            E::Call(_) if heap_key(e).is_some() => {
                info.addrs.extend(heap_key(e));
            }
            E::Statement(_) => match container_of(e).and_then(|c| self.container_source(function, &c)) {
                Some(source) => {
                    info.containers.insert(source);
                }
                None => {
                    info.unknown.get_or_insert(e.span);
                }
            },
            E::UnaryOperator(u) if u.node.operator.node == U::Address => match &u.node.operand.node {
                E::Identifier(id) if id.node.name.contains("->") => match self.field_source(function, &id.node.name) {
                    Some(source) => {
                        info.fields.insert(source);
                    }
                    None => {
                        info.unknown.get_or_insert(e.span);
                    }
                },
                E::Identifier(id) if self.pointer(function, &id.node.name).is_none() => {
                    info.addrs.insert(self.resolve(function, &id.node.name));
                }
                _ => {
                    info.unknown.get_or_insert(e.span);
                }
            },
            E::BinaryOperator(b) if b.node.operator.node == B::Assign => self.sources(function, &b.node.rhs, info),
            _ => {
                info.unknown.get_or_insert(e.span);
            }
        }
    }

    fn statement(&mut self, f: &str, s: &Node<Statement>) {
        match &s.node {
            Statement::Compound(items) => {
                for item in items {
                    match &item.node {
                        BlockItem::Statement(s) => self.statement(f, s),
                        BlockItem::Declaration(d) => self.declaration(Some(f), d, false),
                        BlockItem::StaticAssert(_) => {}
                    }
                }
            }
            Statement::Labeled(l) => self.statement(f, &l.node.statement),
            Statement::Expression(Some(e)) | Statement::Return(Some(e)) => self.expression(f, e),
            Statement::If(i) => {
                self.expression(f, &i.node.condition);
                self.statement(f, &i.node.then_statement);
                if let Some(e) = &i.node.else_statement {
                    self.statement(f, e);
                }
            }
            Statement::Switch(sw) => {
                self.expression(f, &sw.node.expression);
                self.statement(f, &sw.node.statement);
            }
            Statement::While(w) => {
                self.expression(f, &w.node.expression);
                self.statement(f, &w.node.statement);
            }
            Statement::DoWhile(d) => {
                self.expression(f, &d.node.expression);
                self.statement(f, &d.node.statement);
            }
            Statement::For(fo) => {
                match &fo.node.initializer.node {
                    ForInitializer::Expression(e) => self.expression(f, e),
                    ForInitializer::Declaration(d) => self.declaration(Some(f), d, false),
                    ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
                }
                for e in [&fo.node.condition, &fo.node.step].into_iter().flatten() {
                    self.expression(f, e);
                }
                self.statement(f, &fo.node.statement);
            }
            _ => {}
        }
    }

    /// The assignments to pointers inside `e`, and the pointers whose address or arithmetic
    /// it takes.
    fn expression(&mut self, f: &str, e: &Node<E>) {
        let function = Some(f).filter(|f| !f.is_empty());
        match &e.node {
            E::BinaryOperator(b) => {
                if let E::Identifier(id) = &b.node.lhs.node {
                    if let Some(k) = self.pointer(function, &id.node.name) {
                        let mut info = self.pointers.remove(&k).unwrap_or_default();
                        let op = &b.node.operator.node;
                        if *op == B::Assign {
                            info.reassigned = true;
                            self.sources(function, &b.node.rhs, &mut info);
                        } else if matches!(op, B::Plus | B::Minus | B::AssignPlus | B::AssignMinus) {
                            // Arithmetic on the pointer, or a compound assignment to it.
                            info.unknown.get_or_insert(e.span);
                        }
                        self.pointers.insert(k, info);
                    }
                }
                self.expression(f, &b.node.lhs);
                self.expression(f, &b.node.rhs);
            }
            E::UnaryOperator(u) => {
                let changes = !matches!(u.node.operator.node, U::Indirection | U::Negate);
                if let (true, E::Identifier(id)) = (changes, &u.node.operand.node) {
                    if let Some(k) = self.pointer(function, &id.node.name) {
                        self.pointers.get_mut(&k).expect("a pointer").unknown.get_or_insert(e.span);
                    }
                }
                self.expression(f, &u.node.operand);
            }
            E::Cast(c) => self.expression(f, &c.node.expression),
            E::Conditional(c) => {
                for x in [&c.node.condition, &c.node.then_expression, &c.node.else_expression] {
                    self.expression(f, x);
                }
            }
            E::Comma(items) => items.iter().for_each(|x| self.expression(f, x)),
            E::Call(c) => c.node.arguments.iter().for_each(|x| self.expression(f, x)),
            _ => {}
        }
    }
}

/// The `pthread_create` calls of a function body: each one's thread function and argument.
struct Creates<'ast>(Vec<(String, &'ast Node<E>)>);

impl<'ast> lang_c::visit::Visit<'ast> for Creates<'ast> {
    fn visit_call_expression(&mut self, call: &'ast lang_c::ast::CallExpression, span: &'ast Span) {
        let args = &call.arguments;
        if matches!(&call.callee.node, E::Identifier(id) if id.node.name == "pthread_create") && args.len() == 4 {
            let mut f = &args[2];
            if let E::UnaryOperator(u) = &f.node {
                if u.node.operator.node == U::Address {
                    f = &u.node.operand;
                }
            }
            if let E::Identifier(id) = &f.node {
                self.0.push((id.node.name.clone(), &args[3]));
            }
        }
        lang_c::visit::visit_call_expression(self, call, span);
    }
}

/// Each struct or mutex pointer parameter of a function other than a thread's is a pointer set
/// by each call, to the call's argument (`pointers.rs` binds it to its target): the parameter,
/// the caller and the argument of each call.
fn bound_params<'u>(
    functions: &[&'u Node<FunctionDefinition>],
    structs: &BTreeSet<String>,
) -> Vec<(Key, String, &'u Node<E>)> {
    let mut out = Vec::new();
    for f in functions {
        let Some(caller) = function_name(f) else { continue };
        let mut calls = Calls(Vec::new());
        lang_c::visit::Visit::visit_statement(&mut calls, &f.node.statement.node, &f.node.statement.span);
        for (callee, args) in calls.0 {
            let Some(def) = functions.iter().find(|g| function_name(g).as_deref() == Some(callee.as_str())) else {
                continue;
            };
            for (k, param) in object_params(def, structs) {
                let (Some(param), Some(arg)) = (param, args.get(k)) else { continue };
                out.push(((Some(callee.clone()), param), caller.clone(), arg));
            }
        }
    }
    out
}

/// The calls of a function body: each one's callee (a name) and arguments.
struct Calls<'ast>(Vec<(String, &'ast [Node<E>])>);

impl<'ast> lang_c::visit::Visit<'ast> for Calls<'ast> {
    fn visit_call_expression(&mut self, call: &'ast lang_c::ast::CallExpression, span: &'ast Span) {
        if let E::Identifier(id) = &call.callee.node {
            self.0.push((id.node.name.clone(), &call.arguments));
        }
        lang_c::visit::visit_call_expression(self, call, span);
    }
}

/// The parameters of a function that point to a struct or a mutex (`struct S *p`, `T *p` for
/// a struct's typedef `T`, `pthread_mutex_t *m`): each one's index and name.
fn object_params(f: &Node<FunctionDefinition>, structs: &BTreeSet<String>) -> Vec<(usize, Option<String>)> {
    let mut out = Vec::new();
    for x in &f.node.declarator.node.derived {
        let DerivedDeclarator::Function(fd) = &x.node else { continue };
        for (k, p) in fd.node.parameters.iter().enumerate() {
            let Some(d) = &p.node.declarator else { continue };
            let single = matches!(d.node.derived.as_slice(), [x] if matches!(x.node, DerivedDeclarator::Pointer(_)));
            let object = p.node.specifiers.iter().any(|s| match &s.node {
                DeclarationSpecifier::TypeSpecifier(t) => match &t.node {
                    TypeSpecifier::Struct(_) => true,
                    TypeSpecifier::TypedefName(n) => n.node.name == "pthread_mutex_t" || structs.contains(&n.node.name),
                    _ => false,
                },
                _ => false,
            });
            if single && object {
                out.push((k, declarator_ident(d)));
            }
        }
    }
    out
}

/// The typedef names of struct types a file's global declarations define.
fn struct_typedefs(unit: &TranslationUnit) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for ext in &unit.0 {
        let ExternalDeclaration::Declaration(d) = &ext.node else { continue };
        let specs = &d.node.specifiers;
        let typedef = specs.iter().any(
            |s| matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Typedef),
        );
        let is_struct = specs.iter().any(
            |s| matches!(&s.node, DeclarationSpecifier::TypeSpecifier(t) if matches!(t.node, TypeSpecifier::Struct(_))),
        );
        if typedef && is_struct {
            out.extend(d.node.declarators.iter().filter_map(|i| declarator_ident(&i.node.declarator)));
        }
    }
    out
}

/// The name of a function's first parameter when it is a pointer (`void *arg`).
fn first_pointer_param(f: &Node<FunctionDefinition>) -> Option<String> {
    f.node.declarator.node.derived.iter().find_map(|x| {
        let DerivedDeclarator::Function(fd) = &x.node else { return None };
        let d = fd.node.parameters.first()?.node.declarator.as_ref()?;
        let single = matches!(d.node.derived.as_slice(), [x] if matches!(x.node, DerivedDeclarator::Pointer(_)));
        single.then(|| declarator_ident(d)).flatten()
    })
}

/// Whether `e` is the constant 0.
fn is_zero(e: &Node<E>) -> bool {
    match &e.node {
        E::Constant(c) => {
            matches!(&c.node, lang_c::ast::Constant::Integer(i) if i.number.trim_start_matches('0').is_empty())
        }
        _ => false,
    }
}

fn function_name(f: &Node<FunctionDefinition>) -> Option<String> {
    declarator_ident(&f.node.declarator)
}

fn declarator_ident(d: &Node<lang_c::ast::Declarator>) -> Option<String> {
    match &d.node.kind.node {
        lang_c::ast::DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        lang_c::ast::DeclaratorKind::Declarator(inner) => declarator_ident(inner),
        lang_c::ast::DeclaratorKind::Abstract => None,
    }
}

fn collect_params(f: &Node<FunctionDefinition>, out: &mut BTreeMap<String, usize>) {
    for x in &f.node.declarator.node.derived {
        let DerivedDeclarator::Function(fd) = &x.node else { continue };
        for p in &fd.node.parameters {
            if let Some(name) = p.node.declarator.as_ref().and_then(declarator_ident) {
                *out.entry(name).or_insert(0) += 1;
            }
        }
    }
}

fn collect_locals(s: &Node<Statement>, out: &mut BTreeMap<String, usize>) {
    let declare = |d: &Node<Declaration>, out: &mut BTreeMap<String, usize>| {
        for init in &d.node.declarators {
            if let Some(name) = declarator_ident(&init.node.declarator) {
                *out.entry(name).or_insert(0) += 1;
            }
        }
    };
    match &s.node {
        Statement::Compound(items) => {
            for item in items {
                match &item.node {
                    BlockItem::Statement(s) => collect_locals(s, out),
                    BlockItem::Declaration(d) => declare(d, out),
                    BlockItem::StaticAssert(_) => {}
                }
            }
        }
        Statement::Labeled(l) => collect_locals(&l.node.statement, out),
        Statement::If(i) => {
            collect_locals(&i.node.then_statement, out);
            if let Some(e) = &i.node.else_statement {
                collect_locals(e, out);
            }
        }
        Statement::Switch(sw) => collect_locals(&sw.node.statement, out),
        Statement::While(w) => collect_locals(&w.node.statement, out),
        Statement::DoWhile(d) => collect_locals(&d.node.statement, out),
        Statement::For(fo) => {
            if let ForInitializer::Declaration(d) = &fo.node.initializer.node {
                declare(d, out);
            }
            collect_locals(&fo.node.statement, out);
        }
        _ => {}
    }
}
