//! Reading the parsed C into the frontend's model ([`crate::model`]): globals, macros,
//! functions with their statements as Cwhile text, labels from source lines.

use lang_c::ast::{
    BinaryOperator as B, BlockItem, Constant, Declaration, DeclarationSpecifier, Declarator, DeclaratorKind,
    DerivedDeclarator, Expression as E, ExternalDeclaration, FunctionDefinition, Initializer, IntegerBase, Statement,
    StorageClassSpecifier, TranslationUnit, TypeSpecifier, UnaryOperator as U,
};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{Function, Marker, K, RET, S};
use crate::prepass::Prepared;

/// A global variable: name, initial value, declaration span.
#[derive(Clone, Debug)]
pub(crate) struct Global {
    pub(crate) name: String,
    pub(crate) init: i64,
    pub(crate) span: Span,
}

/// The whole model as read.
#[derive(Debug, Default)]
pub(crate) struct Model {
    pub(crate) globals: Vec<Global>,
    pub(crate) functions: Vec<Function>,
}

/// The names Cwhile reserves: a C name among them cannot be a Cwhile name.
const CWHILE_KEYWORDS: &[&str] = &[
    "var",
    "thread",
    "proc",
    "local",
    "if",
    "else",
    "while",
    "atomic",
    "noreorder",
    "assume",
    "await",
    "assert",
    "assertd",
    "skip",
    "lock",
    "unlock",
    "down",
    "up",
    "true",
    "false",
];

pub(crate) fn error(
    code: &'static str,
    message: impl Into<String>,
    span: Span,
    label: impl Into<String>,
) -> Diagnostic {
    Diagnostic { code, message: message.into(), primary: span, label: label.into(), notes: Vec::new() }
}

fn outside(what: &str, span: Span) -> Diagnostic {
    error("C0101", format!("{what} is outside the C dialect PACES reads"), span, "not supported")
}

/// Labels from source lines: the first statement starting on line 12 is `12`, the next `12.2`.
struct Labels<'a> {
    source: &'a str,
    used: FxHashMap<usize, u32>,
}

impl Labels<'_> {
    fn next(&mut self, span: Span) -> String {
        let start = (span.start as usize).min(self.source.len());
        let line = self.source.as_bytes()[..start].iter().filter(|&&b| b == b'\n').count() + 1;
        let n = self.used.entry(line).or_insert(0);
        *n += 1;
        if *n == 1 {
            line.to_string()
        } else {
            format!("{line}.{n}")
        }
    }
}

/// What the statements of one function see.
struct Scope {
    function: usize,
    locals: FxHashSet<String>,
    /// Parameter name to its Cwhile local.
    params: FxHashMap<String, String>,
}

/// The reader: the prepared text's offsets, the names declared, the labels handed out.
pub(crate) struct Reader<'a> {
    prep: &'a Prepared,
    labels: Labels<'a>,
    macros: FxHashMap<String, i64>,
    typedefs: FxHashSet<String>,
    globals: FxHashMap<String, usize>,
    functions: FxHashMap<String, usize>,
    model: Model,
    taken: FxHashSet<String>,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(source: &'a str, prep: &'a Prepared) -> Self {
        Reader {
            prep,
            labels: Labels { source, used: FxHashMap::default() },
            macros: FxHashMap::default(),
            typedefs: FxHashSet::default(),
            globals: FxHashMap::default(),
            functions: FxHashMap::default(),
            model: Model::default(),
            taken: FxHashSet::default(),
        }
    }

    fn span<T>(&self, n: &Node<T>) -> Span {
        self.prep.span(n.span.start, n.span.end)
    }

    /// Reads the translation unit.
    pub(crate) fn read(mut self, unit: &TranslationUnit) -> Result<Model, Diagnostic> {
        self.read_macros()?;
        let mut defs = Vec::new();
        for d in &unit.0 {
            match &d.node {
                ExternalDeclaration::Declaration(decl) => self.global_decl(decl)?,
                ExternalDeclaration::FunctionDefinition(f) => defs.push(self.signature(f)?),
                ExternalDeclaration::StaticAssert(s) => return Err(outside("`_Static_assert`", self.span(s))),
            }
        }
        for name in self.macros.keys().chain(self.globals.keys()).chain(self.functions.keys()) {
            self.taken.insert(name.clone());
        }
        self.name_params();
        for (i, f) in defs.into_iter().enumerate() {
            self.body(i, f)?;
        }
        Ok(self.model)
    }

    fn read_macros(&mut self) -> Result<(), Diagnostic> {
        for d in &self.prep.defines {
            let value = if d.value == "true" {
                Some(1)
            } else if d.value == "false" {
                Some(0)
            } else if let Some(&v) = self.macros.get(&d.value) {
                Some(v)
            } else {
                int_literal(d.value.trim_start_matches('-').trim_start_matches(['(', ' ']).trim_end_matches([')', ' ']))
                    .map(|v| if d.value.starts_with('-') { v.wrapping_neg() } else { v })
            };
            let Some(value) = value else {
                return Err(error(
                    "C0102",
                    format!("the macro `{}` is not an integer constant", d.name),
                    d.span,
                    "a macro's value must be a number, `true`, `false` or another macro",
                ));
            };
            if self.macros.insert(d.name.clone(), value).is_some() {
                return Err(error("C0103", format!("the macro `{}` is defined twice", d.name), d.span, "again here"));
            }
        }
        Ok(())
    }

    /// A declaration at the top level: a typedef, globals, or a prototype (ignored).
    fn global_decl(&mut self, decl: &Node<Declaration>) -> Result<(), Diagnostic> {
        let typedef = self.specifiers(&decl.node.specifiers)?;
        for init in &decl.node.declarators {
            let d = &init.node.declarator;
            let (name, nspan) = self.declarator_name(d)?;
            if typedef {
                self.typedefs.insert(name);
                continue;
            }
            let is_function = d
                .node
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)));
            let pointer = self.check_derived(d, true)?;
            if is_function && !pointer {
                continue; // a prototype
            }
            let init_value = match &init.node.initializer {
                None => 0,
                Some(i) => match &i.node {
                    Initializer::Expression(e) => self.constant(e)?,
                    Initializer::List(_) => return Err(outside("an initialiser list", self.span(i))),
                },
            };
            self.check_name(&name, nspan)?;
            if self.globals.contains_key(&name) || self.macros.contains_key(&name) {
                return Err(error("C0103", format!("`{name}` is declared twice"), nspan, "again here"));
            }
            self.globals.insert(name.clone(), self.model.globals.len());
            self.model.globals.push(Global { name, init: init_value, span: nspan });
        }
        Ok(())
    }

    /// Checks declaration specifiers: integer types, `void`, typedef names; whether it is a
    /// `typedef`.
    fn specifiers(&self, specs: &[Node<DeclarationSpecifier>]) -> Result<bool, Diagnostic> {
        let mut typedef = false;
        for s in specs {
            match &s.node {
                DeclarationSpecifier::StorageClass(c) => match c.node {
                    StorageClassSpecifier::Typedef => typedef = true,
                    StorageClassSpecifier::Static | StorageClassSpecifier::Extern | StorageClassSpecifier::Register => {
                    }
                    _ => return Err(outside("this storage class", self.span(s))),
                },
                DeclarationSpecifier::TypeSpecifier(t) => match &t.node {
                    TypeSpecifier::Void
                    | TypeSpecifier::Char
                    | TypeSpecifier::Short
                    | TypeSpecifier::Int
                    | TypeSpecifier::Long
                    | TypeSpecifier::Signed
                    | TypeSpecifier::Unsigned
                    | TypeSpecifier::Bool
                    | TypeSpecifier::TypedefName(_) => {}
                    TypeSpecifier::Struct(_) => return Err(outside("a struct or union", self.span(s))),
                    TypeSpecifier::Enum(_) => return Err(outside("an enum", self.span(s))),
                    _ => return Err(outside("this type (only integer types are read)", self.span(s))),
                },
                DeclarationSpecifier::TypeQualifier(_) | DeclarationSpecifier::Function(_) => {}
                _ => return Err(outside("this declaration specifier", self.span(s))),
            }
        }
        Ok(typedef)
    }

    fn declarator_name(&self, d: &Node<Declarator>) -> Result<(String, Span), Diagnostic> {
        match &d.node.kind.node {
            DeclaratorKind::Identifier(id) => Ok((id.node.name.clone(), self.span(id))),
            DeclaratorKind::Declarator(inner) => self.declarator_name(inner),
            DeclaratorKind::Abstract => {
                Err(error("C0104", "a declaration without a name", self.span(d), "name missing"))
            }
        }
    }

    /// Rejects arrays and pointers other than a function pointer (`void (*hook)()`); whether
    /// it is a function pointer.
    fn check_derived(&self, d: &Node<Declarator>, allow_hook: bool) -> Result<bool, Diagnostic> {
        let mut pointer = false;
        if let DeclaratorKind::Declarator(inner) = &d.node.kind.node {
            for x in &inner.node.derived {
                match x.node {
                    DerivedDeclarator::Pointer(_) if allow_hook => pointer = true,
                    _ => return Err(outside("this declarator", self.span(x))),
                }
            }
        }
        for x in &d.node.derived {
            match &x.node {
                DerivedDeclarator::Array(_) => return Err(outside("an array", self.span(x))),
                DerivedDeclarator::Pointer(_) => {
                    return Err(outside("a pointer (other than a function pointer hook)", self.span(x)))
                }
                _ => {}
            }
        }
        let function = d
            .node
            .derived
            .iter()
            .any(|x| matches!(x.node, DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)));
        if pointer && !function {
            return Err(outside("a pointer (other than a function pointer hook)", self.span(d)));
        }
        Ok(pointer)
    }

    fn check_name(&self, name: &str, span: Span) -> Result<(), Diagnostic> {
        if CWHILE_KEYWORDS.contains(&name) {
            return Err(error("C0105", format!("the name `{name}` is reserved by PACES"), span, "rename it"));
        }
        Ok(())
    }

    /// A function's name and parameters; its body is read later.
    fn signature<'f>(&mut self, f: &'f Node<FunctionDefinition>) -> Result<&'f Node<FunctionDefinition>, Diagnostic> {
        self.specifiers(&f.node.specifiers)?;
        if let Some(d) = f.node.declarations.first() {
            return Err(outside("a K&R parameter declaration list", self.span(d)));
        }
        let d = &f.node.declarator;
        let (name, span) = self.declarator_name(d)?;
        self.check_name(&name, span)?;
        let mut params = Vec::new();
        for x in &d.node.derived {
            match &x.node {
                DerivedDeclarator::Function(fd) => {
                    for p in &fd.node.parameters {
                        self.specifiers(&p.node.specifiers)?;
                        if let Some(pd) = &p.node.declarator {
                            self.check_derived(pd, false)?;
                            let (pname, pspan) = self.declarator_name(pd)?;
                            self.check_name(&pname, pspan)?;
                            params.push((pname, pspan));
                        }
                    }
                }
                DerivedDeclarator::KRFunction(ids) => {
                    if let Some(id) = ids.first() {
                        return Err(outside("a K&R parameter list", self.span(id)));
                    }
                }
                _ => return Err(outside("this function declarator", self.span(x))),
            }
        }
        if self.functions.contains_key(&name) || self.globals.contains_key(&name) {
            return Err(error("C0103", format!("`{name}` is declared twice"), span, "again here"));
        }
        self.functions.insert(name.clone(), self.model.functions.len());
        self.model.functions.push(Function {
            name,
            span: self.span(f),
            params,
            param_vars: Vec::new(),
            returns: false,
            locals: Vec::new(),
            body: Vec::new(),
            calls: Vec::new(),
        });
        Ok(f)
    }

    /// Gives each parameter its Cwhile local: its own name, or with `_` appended while that
    /// names a global, a macro or a function (C lets a parameter hide a global; Cwhile does not).
    fn name_params(&mut self) {
        for i in 0..self.model.functions.len() {
            let f = &self.model.functions[i];
            let mut vars: Vec<String> = Vec::new();
            for (p, _) in &f.params {
                let mut v = p.clone();
                while self.taken.contains(&v) || vars.contains(&v) || f.params.iter().any(|(q, _)| *q == v && q != p) {
                    v.push('_');
                }
                vars.push(v);
            }
            self.model.functions[i].param_vars = vars;
        }
    }

    fn body(&mut self, index: usize, f: &Node<FunctionDefinition>) -> Result<(), Diagnostic> {
        let params = {
            let func = &self.model.functions[index];
            func.params.iter().map(|(p, _)| p.clone()).zip(func.param_vars.iter().cloned()).collect()
        };
        let mut scope = Scope { function: index, locals: FxHashSet::default(), params };
        let Statement::Compound(items) = &f.node.statement.node else {
            return Err(outside("a function body that is not a block", self.span(&f.node.statement)));
        };
        let body = self.block(items, &mut scope)?;
        self.model.functions[index].body = body;
        Ok(())
    }

    fn block(&mut self, items: &[Node<BlockItem>], scope: &mut Scope) -> Result<Vec<S>, Diagnostic> {
        let mut out = Vec::new();
        for item in items {
            match &item.node {
                BlockItem::Declaration(d) => self.local_decl(d, scope, &mut out)?,
                BlockItem::StaticAssert(s) => return Err(outside("`_Static_assert`", self.span(s))),
                BlockItem::Statement(s) => self.stmt(s, scope, &mut out)?,
            }
        }
        Ok(out)
    }

    fn local_decl(&mut self, d: &Node<Declaration>, scope: &mut Scope, out: &mut Vec<S>) -> Result<(), Diagnostic> {
        if self.specifiers(&d.node.specifiers)? {
            return Err(outside("a typedef inside a function", self.span(d)));
        }
        for init in &d.node.declarators {
            let decl = &init.node.declarator;
            self.check_derived(decl, false)?;
            if !decl.node.derived.is_empty() {
                return Err(outside("a function declaration inside a function", self.span(decl)));
            }
            let (name, span) = self.declarator_name(decl)?;
            self.check_name(&name, span)?;
            let hides = self.globals.contains_key(&name)
                || self.macros.contains_key(&name)
                || scope.params.contains_key(&name)
                || scope.params.values().any(|v| *v == name);
            if hides {
                return Err(error(
                    "C0106",
                    format!("the local `{name}` hides a global or parameter"),
                    span,
                    "rename it",
                ));
            }
            if !scope.locals.insert(name.clone()) {
                return Err(error(
                    "C0103",
                    format!("the local `{name}` is declared twice in this function"),
                    span,
                    "again here",
                ));
            }
            self.model.functions[scope.function].locals.push((name.clone(), span));
            if let Some(i) = &init.node.initializer {
                let Initializer::Expression(e) = &i.node else {
                    return Err(outside("an initialiser list", self.span(i)));
                };
                let label = self.labels.next(span);
                let value = self.expr(e, scope, false)?;
                out.push(S { label, span: self.span(init), kind: K::Simple(format!("{name} := {value}")) });
            }
        }
        Ok(())
    }

    fn simple(&mut self, span: Span, text: String) -> S {
        S { label: self.labels.next(span), span, kind: K::Simple(text) }
    }

    fn stmt(&mut self, s: &Node<Statement>, scope: &mut Scope, out: &mut Vec<S>) -> Result<(), Diagnostic> {
        let span = self.span(s);
        match &s.node {
            Statement::Compound(items) => {
                let inner = self.block(items, scope)?;
                out.extend(inner);
            }
            Statement::Expression(None) => out.push(self.simple(span, "skip".into())),
            Statement::Expression(Some(e)) => self.expr_stmt(e, scope, out)?,
            Statement::If(i) => {
                let label = self.labels.next(span);
                let cond = self.cond(&i.node.condition, scope)?;
                let then = self.branch(&i.node.then_statement, scope)?;
                let els = match &i.node.else_statement {
                    Some(e) => Some(self.branch(e, scope)?),
                    None => None,
                };
                out.push(S { label, span, kind: K::If(cond, then, els) });
            }
            Statement::While(w) => {
                let label = self.labels.next(span);
                let cond = self.cond(&w.node.expression, scope)?;
                let body = self.branch(&w.node.statement, scope)?;
                let busy = body.is_empty() || body.iter().all(|b| matches!(&b.kind, K::Simple(t) if t == "skip"));
                match cond {
                    Some(c) if busy => out.push(S { label, span, kind: K::Simple(format!("await(!({c}))")) }),
                    cond => out.push(S { label, span, kind: K::While(cond, body) }),
                }
            }
            Statement::Return(value) => {
                let label = self.labels.next(span);
                let text = match value {
                    None => None,
                    Some(e) => {
                        let v = self.expr(e, scope, false)?;
                        self.model.functions[scope.function].returns = true;
                        Some(format!("{RET} := {v}"))
                    }
                };
                out.push(S { label, span, kind: K::Return(text) });
            }
            Statement::Labeled(_) => return Err(outside("a C label", span)),
            Statement::Switch(_) => return Err(outside("`switch`", span)),
            Statement::DoWhile(_) => return Err(outside("`do ... while`", span)),
            Statement::For(_) => return Err(outside("`for`", span)),
            Statement::Goto(_) => return Err(outside("`goto`", span)),
            Statement::Continue => return Err(outside("`continue`", span)),
            Statement::Break => return Err(outside("`break`", span)),
            Statement::Asm(_) => return Err(outside("inline assembly", span)),
        }
        Ok(())
    }

    fn branch(&mut self, s: &Node<Statement>, scope: &mut Scope) -> Result<Vec<S>, Diagnostic> {
        let mut out = Vec::new();
        self.stmt(s, scope, &mut out)?;
        Ok(out)
    }

    /// A condition: `None` for a nondeterministic choice: `nondet` or `*`, its negation, or
    /// `nondet` compared with a constant (`nondet == 1`, `0 != nondet`), as the paper's tool's
    /// models write it.
    fn cond(&mut self, e: &Node<Expression>, scope: &Scope) -> Result<Option<String>, Diagnostic> {
        if self.is_choice(e) {
            return Ok(None);
        }
        self.expr(e, scope, true).map(Some)
    }

    /// Whether a condition is a nondeterministic choice (see [`Reader::cond`]).
    fn is_choice(&self, e: &Node<Expression>) -> bool {
        let nondet = |e: &Node<Expression>| match &e.node {
            E::Identifier(id) => {
                id.node.name == "nondet" || (id.node.name == "_" && self.prep.stars.contains(&self.span(e).start))
            }
            _ => false,
        };
        match &e.node {
            E::UnaryOperator(u) if u.node.operator.node == U::Negate => self.is_choice(&u.node.operand),
            E::BinaryOperator(b) => {
                let comparison = matches!(
                    b.node.operator.node,
                    B::Equals | B::NotEquals | B::Less | B::LessOrEqual | B::Greater | B::GreaterOrEqual
                );
                let (l, r) = (&b.node.lhs, &b.node.rhs);
                comparison && ((nondet(l) && self.constant(r).is_ok()) || (nondet(r) && self.constant(l).is_ok()))
            }
            _ => nondet(e),
        }
    }

    fn expr_stmt(&mut self, e: &Node<Expression>, scope: &mut Scope, out: &mut Vec<S>) -> Result<(), Diagnostic> {
        let span = self.span(e);
        match &e.node {
            E::Call(call) => self.call_stmt(&call.node.callee, &call.node.arguments, None, span, scope, out),
            E::UnaryOperator(u) => {
                let op = match u.node.operator.node {
                    U::PostIncrement | U::PreIncrement => "+",
                    U::PostDecrement | U::PreDecrement => "-",
                    _ => return Err(outside("this expression as a statement", span)),
                };
                let x = self.target(&u.node.operand, scope)?;
                out.push(self.simple(span, format!("{x} := ({x} {op} 1)")));
                Ok(())
            }
            E::BinaryOperator(b) => {
                let x = self.target(&b.node.lhs, scope)?;
                let op = match b.node.operator.node {
                    B::Assign => {
                        if let E::Call(call) = &b.node.rhs.node {
                            return self.call_stmt(&call.node.callee, &call.node.arguments, Some(x), span, scope, out);
                        }
                        let v = self.expr(&b.node.rhs, scope, false)?;
                        out.push(self.simple(span, format!("{x} := {v}")));
                        return Ok(());
                    }
                    B::AssignPlus => "+",
                    B::AssignMinus => "-",
                    B::AssignMultiply => "*",
                    B::AssignDivide => "/",
                    B::AssignModulo => "%",
                    _ => return Err(outside("this operator as a statement", span)),
                };
                let v = self.expr(&b.node.rhs, scope, false)?;
                out.push(self.simple(span, format!("{x} := ({x} {op} {v})")));
                Ok(())
            }
            _ => Err(outside("this expression as a statement", span)),
        }
    }

    /// The variable an assignment writes.
    fn target(&self, e: &Node<Expression>, scope: &Scope) -> Result<String, Diagnostic> {
        let E::Identifier(id) = &e.node else {
            return Err(outside("assigning to anything but a variable", self.span(e)));
        };
        self.variable(&id.node.name, self.span(e), scope)
    }

    fn variable(&self, name: &str, span: Span, scope: &Scope) -> Result<String, Diagnostic> {
        if scope.locals.contains(name) || self.globals.contains_key(name) {
            return Ok(name.to_owned());
        }
        if let Some(v) = scope.params.get(name) {
            return Ok(v.clone());
        }
        if self.macros.contains_key(name) {
            return Err(error("C0107", format!("the macro `{name}` is not a variable"), span, "assigned here"));
        }
        Err(error("C0108", format!("unknown variable `{name}`"), span, "not declared"))
    }

    /// A call statement `f(args);` or `x = f(args);`.
    fn call_stmt(
        &mut self,
        callee: &Node<Expression>,
        args: &[Node<Expression>],
        target: Option<String>,
        span: Span,
        scope: &mut Scope,
        out: &mut Vec<S>,
    ) -> Result<(), Diagnostic> {
        let name = match &callee.node {
            E::Identifier(id) => id.node.name.clone(),
            E::UnaryOperator(u) if u.node.operator.node == U::Indirection && target.is_none() && args.is_empty() => {
                // `(*hook)()`: asserts the hook is set and calls nothing.
                let hook = self.target(&u.node.operand, scope)?;
                out.push(self.simple(span, format!("assert({hook} != 0)")));
                return Ok(());
            }
            _ => return Err(outside("a call through this expression", self.span(callee))),
        };
        if let Some(x) = target {
            if name == "nondet_int" && args.is_empty() {
                let label = self.labels.next(span);
                let zero = self.simple(span, format!("{x} := 0"));
                let one = self.simple(span, format!("{x} := 1"));
                out.push(S { label, span, kind: K::If(None, vec![zero], Some(vec![one])) });
                return Ok(());
            }
            return self.user_call(&name, args, Some(x), span, scope, out);
        }
        let one_arg = |me: &mut Self, scope: &Scope, cond: bool| -> Result<String, Diagnostic> {
            match args {
                [a] => me.expr(a, scope, cond),
                _ => Err(error("C0109", format!("`{name}` takes one argument"), span, "here")),
            }
        };
        let text = match name.as_str() {
            "assume" => format!("await({})", one_arg(self, scope, true)?),
            "__VERIFIER_assume" => format!("assume({})", one_arg(self, scope, true)?),
            "assert" => format!("assert({})", one_arg(self, scope, true)?),
            "assertd" => format!("assertd({})", one_arg(self, scope, true)?),
            "lock" | "unlock" | "down" | "up" => {
                let [a] = args else {
                    return Err(error("C0109", format!("`{name}` takes one argument"), span, "here"));
                };
                let v = self.target(a, scope)?;
                if !self.globals.contains_key(&v) {
                    return Err(error(
                        "C0110",
                        format!("`{name}` needs a global variable"),
                        self.span(a),
                        "not a global",
                    ));
                }
                format!("{name}({v})")
            }
            "atomicBegin" | "atomicEnd" | "noReorderBegin" | "noReorderEnd" => {
                if !args.is_empty() {
                    return Err(error("C0109", format!("`{name}` takes no argument"), span, "here"));
                }
                let m = match name.as_str() {
                    "atomicBegin" => Marker::AtomicBegin,
                    "atomicEnd" => Marker::AtomicEnd,
                    "noReorderBegin" => Marker::NoReorderBegin,
                    _ => Marker::NoReorderEnd,
                };
                let label = if m == Marker::AtomicBegin || m == Marker::NoReorderBegin {
                    self.labels.next(span)
                } else {
                    String::new()
                };
                out.push(S { label, span, kind: K::Marker(m) });
                return Ok(());
            }
            _ => return self.user_call(&name, args, None, span, scope, out),
        };
        out.push(self.simple(span, text));
        Ok(())
    }

    /// A call of a function of the model: parameters set, the call, the return value read,
    /// as one `noreorder` item when there is more than the call.
    fn user_call(
        &mut self,
        name: &str,
        args: &[Node<Expression>],
        target: Option<String>,
        span: Span,
        scope: &mut Scope,
        out: &mut Vec<S>,
    ) -> Result<(), Diagnostic> {
        let Some(&callee) = self.functions.get(name) else {
            return Err(error(
                "C0111",
                format!("call of the unknown function `{name}`"),
                span,
                "not defined in this file",
            ));
        };
        if name == "main" {
            return Err(error("C0112", "`main` cannot be called", span, "here"));
        }
        let f = &self.model.functions[callee];
        if f.params.len() != args.len() {
            let n = f.params.len();
            return Err(error(
                "C0109",
                format!("`{name}` takes {n} argument{}", if n == 1 { "" } else { "s" }),
                span,
                "here",
            ));
        }
        let param_vars = f.param_vars.clone();
        self.model.functions[scope.function].calls.push((name.to_owned(), span));
        let label = self.labels.next(span);
        let mut items = Vec::new();
        for (a, v) in args.iter().zip(&param_vars) {
            let value = self.expr(a, scope, false)?;
            items.push(self.simple(span, format!("{name}.{v} := {value}")));
        }
        if items.is_empty() && target.is_none() {
            out.push(S { label, span, kind: K::Simple(format!("{name}()")) });
            return Ok(());
        }
        items.push(self.simple(span, format!("{name}()")));
        if let Some(x) = target {
            self.model.functions[callee].returns = true;
            items.push(self.simple(span, format!("{x} := {name}.{RET}")));
        }
        out.push(S { label, span, kind: K::NoReorder(items) });
        Ok(())
    }

    /// A constant: a number, `true`/`false`, a macro, or `-` one of these.
    fn constant(&self, e: &Node<Expression>) -> Result<i64, Diagnostic> {
        match &e.node {
            E::Constant(c) => self.int_constant(c),
            E::Identifier(id) if id.node.name == "true" => Ok(1),
            E::Identifier(id) if id.node.name == "false" => Ok(0),
            E::Identifier(id) => {
                self.macros.get(&id.node.name).copied().ok_or_else(|| {
                    error("C0113", "an initial value must be a constant", self.span(e), "not a constant")
                })
            }
            E::UnaryOperator(u) if u.node.operator.node == U::Minus => {
                self.constant(&u.node.operand).map(i64::wrapping_neg)
            }
            _ => Err(error("C0113", "an initial value must be a constant", self.span(e), "not a constant")),
        }
    }

    fn int_constant(&self, c: &Node<Constant>) -> Result<i64, Diagnostic> {
        let Constant::Integer(i) = &c.node else {
            return Err(outside("a non-integer constant", self.span(c)));
        };
        let radix = match i.base {
            IntegerBase::Decimal => 10,
            IntegerBase::Octal => 8,
            IntegerBase::Hexadecimal => 16,
            IntegerBase::Binary => 2,
        };
        u64::from_str_radix(&i.number, radix)
            .ok()
            .and_then(|v| i64::try_from(v).ok())
            .ok_or_else(|| error("C0114", "integer literal out of range", self.span(c), "does not fit in 64 bits"))
    }

    /// An expression as Cwhile text; `cond`: in a condition, where `&` and `|` are `&&`, `||`.
    fn expr(&self, e: &Node<Expression>, scope: &Scope, cond: bool) -> Result<String, Diagnostic> {
        let span = self.span(e);
        match &e.node {
            E::Identifier(id) => {
                let n = id.node.name.as_str();
                match n {
                    "true" => Ok("1".into()),
                    "false" => Ok("0".into()),
                    _ => {
                        if let Some(v) = self.macros.get(n) {
                            return Ok(lit(*v));
                        }
                        if self.functions.contains_key(n) && !scope.locals.contains(n) {
                            return Ok("1".into()); // a function as a value: a set hook
                        }
                        if n == "nondet" {
                            return Err(error(
                                "C0115",
                                "`nondet` stands only as a whole condition or compared with a constant",
                                span,
                                "here",
                            ));
                        }
                        self.variable(n, span, scope)
                    }
                }
            }
            E::Constant(c) => self.int_constant(c).map(lit),
            E::UnaryOperator(u) => {
                let a = || self.expr(&u.node.operand, scope, false);
                match u.node.operator.node {
                    U::Minus => Ok(format!("(-{})", a()?)),
                    U::Plus => a(),
                    U::Negate => Ok(format!("(!{})", self.expr(&u.node.operand, scope, true)?)),
                    // Two's complement: `~x` is `-x - 1`, exactly (with wrapping).
                    U::Complement => Ok(format!("((-{}) - 1)", a()?)),
                    U::PreIncrement | U::PreDecrement | U::PostIncrement | U::PostDecrement => {
                        Err(outside("`++`/`--` inside an expression", span))
                    }
                    U::Address | U::Indirection => Err(outside("a pointer operation", span)),
                }
            }
            E::BinaryOperator(_) => self.chain(e, scope, cond),
            E::Call(_) => Err(error(
                "C0116",
                "a call inside an expression is not supported",
                span,
                "call it as a statement `x = f(...);`",
            )),
            E::Cast(_) => Err(outside("a cast", span)),
            E::StringLiteral(_) => Err(outside("a string", span)),
            E::Member(_) => Err(outside("a struct member", span)),
            E::Conditional(_) => Err(outside("`?:`", span)),
            E::Comma(_) => Err(outside("the comma operator", span)),
            E::SizeOfTy(_) | E::SizeOfVal(_) | E::AlignOf(_) => Err(outside("`sizeof`", span)),
            _ => Err(outside("this expression", span)),
        }
    }
}

/// One binary operator on the left spine of a chain: what follows the left operand.
enum Link<'e> {
    /// `op right`; whether the operands are conditions.
    Op(&'static str, &'e Node<Expression>, bool),
    /// `x << k` for a constant `k`: `* 2^k`.
    Times(String),
}

impl Reader<'_> {
    /// A binary operator expression as Cwhile text. The left spine (`a + b + c` is
    /// `(a + b) + c`, as deep as it is long) is walked with a loop; only right operands,
    /// whose depth the brackets bound, are read recursively.
    fn chain(&self, e: &Node<Expression>, scope: &Scope, cond: bool) -> Result<String, Diagnostic> {
        let mut links = Vec::new();
        let (mut at, mut at_cond) = (e, cond);
        while let E::BinaryOperator(b) = &at.node {
            let link = self.link(b, at_cond, self.span(at))?;
            at_cond = matches!(link, Link::Op(_, _, true));
            links.push(link);
            at = &b.node.lhs;
        }
        let mut text = "(".repeat(links.len());
        text.push_str(&self.expr(at, scope, at_cond)?);
        for link in links.iter().rev() {
            match link {
                Link::Op(op, right, operand_cond) => {
                    let r = self.expr(right, scope, *operand_cond)?;
                    text.push_str(&format!(" {op} {r})"));
                }
                Link::Times(factor) => text.push_str(&format!(" * {factor})")),
            }
        }
        Ok(text)
    }

    /// The link of one binary operator; `cond`: in a condition, where `&` and `|` are `&&`
    /// and `||`.
    fn link<'e>(
        &self,
        b: &'e Node<lang_c::ast::BinaryOperatorExpression>,
        cond: bool,
        span: Span,
    ) -> Result<Link<'e>, Diagnostic> {
        let (op, operand_cond) = match b.node.operator.node {
            B::LogicalOr => ("||", true),
            B::LogicalAnd => ("&&", true),
            B::BitwiseOr if cond => ("||", true),
            B::BitwiseAnd if cond => ("&&", true),
            B::Equals => ("==", false),
            B::NotEquals => ("!=", false),
            B::Less => ("<", false),
            B::LessOrEqual => ("<=", false),
            B::Greater => (">", false),
            B::GreaterOrEqual => (">=", false),
            B::Plus => ("+", false),
            B::Minus => ("-", false),
            B::Multiply => ("*", false),
            B::Divide => ("/", false),
            B::Modulo => ("%", false),
            B::BitwiseOr | B::BitwiseAnd => {
                return Err(unsupported("`&` or `|` on integers (outside a condition)", span))
            }
            B::ShiftLeft => return self.shift_left(&b.node.rhs).map(Link::Times),
            B::BitwiseXor | B::ShiftRight => return Err(unsupported("`^` or `>>`", span)),
            B::Index => return Err(outside("an array access", span)),
            _ => return Err(outside("an assignment inside an expression", span)),
        };
        Ok(Link::Op(op, &b.node.rhs, operand_cond))
    }

    /// The factor of `x << k` for a constant `k` from 0 to 63: `x * 2^k`, the same bits with
    /// wrapping.
    fn shift_left(&self, k: &Node<Expression>) -> Result<String, Diagnostic> {
        let amount = self
            .constant(k)
            .ok()
            .filter(|k| (0..64).contains(k))
            .ok_or_else(|| unsupported("`<<` by anything but a constant from 0 to 63", self.span(k)))?;
        Ok(lit(1i64.wrapping_shl(amount as u32)))
    }
}

fn unsupported(what: &str, span: Span) -> Diagnostic {
    error("C0117", format!("{what} is in the dialect but PACES does not support it yet"), span, "not supported")
}

fn lit(v: i64) -> String {
    if v < 0 {
        format!("(-{})", v.unsigned_abs())
    } else {
        v.to_string()
    }
}

/// A C integer literal (decimal, `0x` hex, `0` octal; suffixes `u`/`l` ignored).
fn int_literal(s: &str) -> Option<i64> {
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(digits, radix).ok().and_then(|v| i64::try_from(v).ok())
}

use lang_c::ast::Expression;
