//! pthread C to Cwhile: threads, shared steps, synchronisation, the property (the table in
//! `docs/c-frontend.md`, "pthread C"). The Cwhile text is built as a tree of labelled nodes,
//! printed, checked by the Cwhile frontend, and every statement's span moved back into the C
//! source.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use lang_c::ast::{
    BinaryOperator as B, BlockItem, Constant, Declaration, DeclarationSpecifier, Declarator, DeclaratorKind,
    DerivedDeclarator, Expression as E, ExternalDeclaration, ForInitializer, FunctionDefinition, Initializer,
    IntegerBase, ParameterDeclaration, Statement, StorageClassSpecifier, TranslationUnit, TypeName, TypeSpecifier,
    UnaryOperator as U,
};
use lang_c::span::Node;
use paces_cwhile::ir::StmtKind;
use paces_cwhile::{Diagnostic, Program, Span};

use super::pre::Prepared;
use super::{error, Options};

/// Names Cwhile reserves; a C name among them gets a `_` appended.
const KEYWORDS: &[&str] = &[
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

/// Where every assertion and wait takes the guard `aborted == 1 || ` when an `abort()` or
/// `exit()` stands in an atomic block (see `Lower::aborted`), else nothing.
const GUARD: &str = "\u{1}";

/// The most iterations a `for` loop is unrolled to (one thread per iteration).
const MAX_UNROLL: i64 = 64;

/// An integer type: its width in bits and whether it is signed (`_Bool`: width 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ty {
    bits: u32,
    signed: bool,
}

const INT: Ty = Ty { bits: 32, signed: true };
const BOOL: Ty = Ty { bits: 1, signed: false };

impl Ty {
    /// `v` brought into the type's range (C's conversion: modulo 2^bits, two's complement).
    fn wrap(self, v: &str) -> String {
        if self.bits == 1 {
            return format!("({v} != 0)");
        }
        if self.bits >= 64 {
            return v.to_owned();
        }
        let m = 1i64 << self.bits;
        if self.signed {
            let h = m / 2;
            format!("(((({v}) + {h}) % {m} + {m}) % {m} - {h})")
        } else {
            format!("((({v}) % {m} + {m}) % {m})")
        }
    }
}

/// What a C name stands for.
#[derive(Clone, Debug)]
enum Kind {
    /// An integer variable.
    Scalar(Ty),
    /// A constant-size array: one Cwhile variable per element.
    Array(Ty, Vec<String>),
    /// A mutex (a Cwhile lock variable).
    Mutex,
    /// An array of mutexes.
    Mutexes(Vec<String>),
    /// A `pthread_t` (no Cwhile variable: the thread it names is known statically).
    Handle,
    /// An array of `pthread_t`.
    Handles(usize),
    /// A `pthread_cond_t` (no Cwhile variable: a wait may wake at any time).
    Cond,
    /// An `int *` parameter: the local holding the value it points to.
    Ref(Ty),
}

#[derive(Clone, Debug)]
struct Var {
    /// The Cwhile name (for an array, unused).
    cw: String,
    kind: Kind,
    shared: bool,
}

/// A Cwhile statement with its label (whose C span `Lower::spans` holds).
#[derive(Clone, Debug)]
enum N {
    Simple(String, String),
    If(String, String, Vec<N>, Option<Vec<N>>),
    While(String, String, Vec<N>),
    Atomic(String, Vec<N>),
    NoReorder(String, Vec<N>),
}

/// One thread that a `pthread_create` starts.
struct Instance {
    /// The Cwhile thread's name.
    name: String,
    function: String,
    /// The constant argument, when the function takes one.
    arg: Option<i64>,
    start: String,
    done: String,
    span: Span,
}

/// A lowered function body item: nodes, or an atomic-section marker.
enum Item {
    Nodes(Vec<N>),
    Begin(Span),
    End(Span),
}

/// What an expression is lowered in.
struct Cx {
    /// Shared reads go through temporaries, each its own step (else they stay in the
    /// expression, which is then one step).
    split: bool,
    /// The steps before the statement's own: the temporaries' reads and choices.
    pre: Vec<N>,
    span: Span,
    /// Whether the value needs wrapping into its type (arithmetic happened).
    arith: bool,
}

/// The function being lowered.
#[derive(Default)]
struct Frame {
    name: String,
    scopes: Vec<BTreeMap<String, Var>>,
    /// Loop variables of unrolled loops: their constant value in this iteration.
    consts: BTreeMap<String, i64>,
    /// The Cwhile locals declared.
    locals: Vec<String>,
    /// Temporaries handed out for the current statement, and the most ever.
    temps: usize,
    temp_names: Vec<String>,
    is_main: bool,
    is_thread: bool,
    atomic: usize,
    loops: usize,
    /// How many `&&` and `||` operands the expression being lowered lies in.
    logic: usize,
    /// The flag a `return` before the function's end sets.
    returned: Option<String>,
    /// For each loop around the statement, the flag its `break` and `continue` set.
    jumps: Vec<Option<String>>,
    /// Whether the function returns a value (its Cwhile local `result__`-like name).
    result: Option<String>,
}

struct Lower<'a> {
    source: &'a str,
    prep: &'a Prepared,
    options: &'a Options,
    globals: BTreeMap<String, Var>,
    /// Globals in declaration order: Cwhile name and initial value.
    global_order: Vec<(String, i64, Span)>,
    typedefs: BTreeMap<String, Ty>,
    functions: BTreeMap<String, &'a Node<FunctionDefinition>>,
    taken: BTreeSet<String>,
    lines: BTreeMap<usize, u32>,
    line_starts: Vec<usize>,
    spans: BTreeMap<String, Span>,
    texts: BTreeMap<String, String>,
    instances: Vec<Instance>,
    handles: BTreeMap<(String, String, Option<i64>), usize>,
    /// The functions other than `main` that create threads.
    creators: BTreeSet<String>,
    joined: BTreeSet<usize>,
    /// Procedures to lower, and lowered: name to (Cwhile name, text).
    procs: BTreeMap<String, String>,
    /// Each lowered procedure's Cwhile text.
    proc_texts: BTreeMap<String, String>,
    pending: Vec<String>,
    /// Calls between functions, for recursion: (caller, callee, span).
    calls: Vec<(String, String, Span, bool)>,
    frame: Frame,
    nondet_used: bool,
    /// Each procedure's Cwhile parameter and result names.
    params: BTreeMap<String, Signature>,
    /// The `int *` parameters that stand for a global array: (function, parameter) to its name.
    aliases: BTreeMap<(String, String), String>,
    /// The `int *` parameters some call passed a local's address.
    local_refs: BTreeSet<(String, String)>,
    /// Whether an array index out of bounds cuts a path somewhere (a bound).
    index_cut: bool,
    /// The flag an `abort()` or `exit()` inside an atomic block sets.
    aborted: Option<String>,
    /// The by-reference parameters: (function, Cwhile parameter).
    by_ref: BTreeSet<(String, String)>,
    /// Each procedure's parameters' C names.
    c_params: BTreeMap<String, Vec<String>>,
}

fn unsupported(what: &str, span: Span) -> Diagnostic {
    error("C0410", format!("{what} is not read (pthread C)"), span, "not supported")
}

pub(super) fn lower(
    unit: &TranslationUnit,
    source: &str,
    prep: &Prepared,
    options: &Options,
) -> Result<(Program, Vec<String>), Diagnostic> {
    let mut l = Lower {
        source,
        prep,
        options,
        globals: BTreeMap::new(),
        global_order: Vec::new(),
        typedefs: BTreeMap::new(),
        functions: BTreeMap::new(),
        taken: KEYWORDS.iter().map(|s| (*s).to_owned()).collect(),
        lines: BTreeMap::new(),
        line_starts: std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i + 1)).collect(),
        spans: BTreeMap::new(),
        texts: BTreeMap::new(),
        instances: Vec::new(),
        handles: BTreeMap::new(),
        creators: BTreeSet::new(),
        joined: BTreeSet::new(),
        procs: BTreeMap::new(),
        proc_texts: BTreeMap::new(),
        pending: Vec::new(),
        calls: Vec::new(),
        frame: Frame::default(),
        nondet_used: false,
        params: BTreeMap::new(),
        c_params: BTreeMap::new(),
        by_ref: BTreeSet::new(),
        aborted: None,
        index_cut: false,
        aliases: BTreeMap::new(),
        local_refs: BTreeSet::new(),
    };
    l.program(unit)
}

/// Functions whose calls the frontend reads itself (a definition of one in the file is not
/// read: SV-COMP's files define some of them with the meaning the frontend gives them).
const BUILTINS: &[&str] = &[
    "reach_error",
    "__VERIFIER_error",
    "__VERIFIER_assert",
    "assert",
    "__VERIFIER_assume",
    "assume_abort_if_not",
    "abort",
    "exit",
    "printf",
    "__VERIFIER_atomic_begin",
    "__VERIFIER_atomic_end",
];

impl<'a> Lower<'a> {
    fn span<T>(&self, n: &Node<T>) -> Span {
        self.prep.span(n.span.start, n.span.end, self.source)
    }

    fn line_of(&self, span: Span) -> usize {
        self.line_starts.partition_point(|&s| s <= span.start as usize)
    }

    /// A fresh label for a step of the C statement at `span`: its line, then `line.2`, ...
    fn label(&mut self, span: Span) -> String {
        let line = self.line_of(span);
        let n = self.lines.entry(line).or_insert(0);
        *n += 1;
        let label = if *n == 1 { line.to_string() } else { format!("{line}.{n}") };
        self.spans.insert(label.clone(), span);
        label
    }

    /// A Cwhile name for a local of the current function: no global's, function's or
    /// keyword's, and no other local's of the function (other functions may use it too, so
    /// that the names of one function never depend on the order functions are read in).
    fn fresh_here(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut k = 1;
        while self.taken.contains(&name) || self.frame.locals.contains(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        name
    }

    /// A Cwhile name for `base` not yet taken.
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut k = 1;
        while self.taken.contains(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        self.taken.insert(name.clone());
        name
    }

    fn program(&mut self, unit: &'a TranslationUnit) -> Result<(Program, Vec<String>), Diagnostic> {
        // Names first, so that generated names never take a C name.
        for ext in &unit.0 {
            if let ExternalDeclaration::FunctionDefinition(f) = &ext.node {
                let (name, _) = self.declarator_name(&f.node.declarator)?;
                self.taken.insert(name.clone());
                self.functions.insert(name, f);
            }
        }
        for ext in &unit.0 {
            match &ext.node {
                ExternalDeclaration::Declaration(d) => self.global_decl(d)?,
                ExternalDeclaration::FunctionDefinition(_) => {}
                ExternalDeclaration::StaticAssert(s) => return Err(unsupported("`_Static_assert`", self.span(s))),
            }
        }
        let main = *self.functions.get("main").ok_or_else(|| {
            error("C0411", "the program has no `main`", Span::default(), "`main` is the first thread")
        })?;
        self.frame = Frame { name: "main".into(), is_main: true, is_thread: true, ..Frame::default() };
        self.frame.scopes.push(BTreeMap::new());
        // Returning from `main` ends the program, yet needs no step of its own: the other
        // threads' steps after it could all have been taken before it (the return waits for
        // nothing and changes nothing they read), so every error reachable after it is
        // reachable before it.
        let body = self.body(main)?;
        let main_frame = std::mem::take(&mut self.frame);
        while let Some(f) = self.pending.pop() {
            self.procedure(&f)?;
        }
        self.recursion()?;
        for f in &self.creators {
            let sites: Vec<_> = self.calls.iter().filter(|c| &c.1 == f).collect();
            let once = matches!(sites.as_slice(), [(caller, _, _, false)] if caller == "main");
            if !once {
                let span = sites.first().map_or(Span::default(), |c| c.2);
                return Err(unsupported(
                    &format!("`pthread_create` in `{f}`, which is not called exactly once by `main` outside loops"),
                    span,
                ));
            }
        }
        let text = self.emit(&main_frame, &body);
        let text = text.replace(GUARD, &self.aborted.as_ref().map(|f| format!("{f} == 1 || ")).unwrap_or_default());
        let program = paces_cwhile::parse(&text).map_err(|d| {
            let first = d.iter().next().map(|d| d.message.clone()).unwrap_or_default();
            error("C0499", format!("the program's Cwhile model was refused: {first}"), Span::default(), "")
        })?;
        let mut bounds = Vec::new();
        if self.nondet_used {
            let (lo, hi) = self.options.nondet;
            bounds.push(format!("nondeterministic values in {lo}..{hi}"));
        }
        if self.index_cut {
            bounds.push("paths with an array index out of bounds cut".to_owned());
        }
        Ok((self.respan(program), bounds))
    }

    fn respan(&self, program: Program) -> Program {
        let mut parts = program.into_parts();
        for s in &mut parts.stmts {
            if let Some(span) = self.spans.get(&s.label) {
                s.span = *span;
            }
        }
        let closed: Vec<bool> = parts
            .blocks
            .iter()
            .map(|b| {
                b.parent.and_then(|p| parts.stmts.get(p.index())).is_some_and(|s| {
                    matches!(s.kind, StmtKind::NoReorder(_))
                        && !s.label.chars().next().is_some_and(|c| c.is_ascii_digit())
                })
            })
            .collect();
        for (b, c) in parts.blocks.iter_mut().zip(closed) {
            b.in_atomic |= c;
        }
        // Threads and procedures keep no span: the printer orders them by their spans, and a
        // repair that moves a `pthread_create` must not change that order.
        for t in &mut parts.threads {
            t.span = Span::default();
        }
        for p in &mut parts.procs {
            p.span = Span::default();
        }
        // The steps of a created thread's start stand for its `pthread_create`.
        let owners: Vec<Option<Span>> = parts
            .blocks
            .iter()
            .map(|b| match b.owner {
                paces_cwhile::ir::Owner::Thread(t) => {
                    let name = &parts.threads[t.index()].name;
                    self.instances.iter().find(|i| &i.name == name).map(|i| i.span)
                }
                paces_cwhile::ir::Owner::Proc(_) => None,
            })
            .collect();
        for s in &mut parts.stmts {
            if !self.spans.contains_key(&s.label) {
                s.span = owners[s.block.index()].unwrap_or_default();
            }
        }
        parts.source_texts = self.texts.clone();
        Program::new(parts)
    }

    /// Fails on a function that calls itself, directly or not.
    fn recursion(&self) -> Result<(), Diagnostic> {
        let mut edges: BTreeMap<&str, Vec<(&str, Span)>> = BTreeMap::new();
        for (a, b, s, _) in &self.calls {
            edges.entry(a.as_str()).or_default().push((b.as_str(), *s));
        }
        for start in edges.keys() {
            let mut stack = vec![*start];
            let mut seen = BTreeSet::new();
            while let Some(f) = stack.pop() {
                for (g, span) in edges.get(f).map(Vec::as_slice).unwrap_or(&[]) {
                    if g == start {
                        return Err(unsupported(&format!("recursion (`{start}` calls itself)"), *span));
                    }
                    if seen.insert(*g) {
                        stack.push(g);
                    }
                }
            }
        }
        Ok(())
    }

    // ---- declarations ----

    fn declarator_name(&self, d: &Node<Declarator>) -> Result<(String, Span), Diagnostic> {
        match &d.node.kind.node {
            DeclaratorKind::Identifier(id) => Ok((id.node.name.clone(), self.span(id))),
            DeclaratorKind::Declarator(inner) => {
                if !d.node.derived.is_empty() || !inner.node.derived.is_empty() {
                    return Err(unsupported("a function pointer", self.span(d)));
                }
                self.declarator_name(inner)
            }
            DeclaratorKind::Abstract => Err(error("C0412", "a declaration without a name", self.span(d), "")),
        }
    }

    /// The type the specifiers name: `None` for `void`; a mutex or thread handle as such.
    fn base_type(&self, specs: &[Node<DeclarationSpecifier>]) -> Result<(Option<Base>, bool, bool), Diagnostic> {
        let (mut typedef, mut is_static) = (false, false);
        let mut ts = Vec::new();
        for s in specs {
            match &s.node {
                DeclarationSpecifier::StorageClass(c) => match c.node {
                    StorageClassSpecifier::Typedef => typedef = true,
                    StorageClassSpecifier::Static => is_static = true,
                    StorageClassSpecifier::Extern | StorageClassSpecifier::Register | StorageClassSpecifier::Auto => {}
                    _ => return Err(unsupported("this storage class", self.span(s))),
                },
                DeclarationSpecifier::TypeSpecifier(t) => ts.push(t),
                DeclarationSpecifier::TypeQualifier(_) | DeclarationSpecifier::Function(_) => {}
                _ => return Err(unsupported("this declaration specifier", self.span(s))),
            }
        }
        let (mut longs, mut unsigned, mut kind) = (0, false, None::<&str>);
        for t in &ts {
            match &t.node {
                TypeSpecifier::Void => return Ok((None, typedef, is_static)),
                TypeSpecifier::Bool => kind = Some("bool"),
                TypeSpecifier::Char => kind = Some("char"),
                TypeSpecifier::Short => kind = Some("short"),
                TypeSpecifier::Int | TypeSpecifier::Signed => {}
                TypeSpecifier::Long => longs += 1,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::TypedefName(n) => {
                    let name = n.node.name.as_str();
                    return match name {
                        "pthread_t" => Ok((Some(Base::Handle), typedef, is_static)),
                        "pthread_mutex_t" => Ok((Some(Base::Mutex), typedef, is_static)),
                        "pthread_cond_t" => Ok((Some(Base::Cond), typedef, is_static)),
                        "size_t" => Ok((Some(Base::Int(Ty { bits: 32, signed: false })), typedef, is_static)),
                        _ => match self.typedefs.get(name) {
                            Some(ty) => Ok((Some(Base::Int(*ty)), typedef, is_static)),
                            None => Err(unsupported(&format!("the type `{name}`"), self.span(t))),
                        },
                    };
                }
                TypeSpecifier::Struct(_) => return Err(unsupported("a struct or union", self.span(t))),
                TypeSpecifier::Enum(_) => return Err(unsupported("an enum", self.span(t))),
                _ => return Err(unsupported("this type (only integer types are read)", self.span(t))),
            }
        }
        let bits = match kind {
            Some("bool") => return Ok((Some(Base::Int(BOOL)), typedef, is_static)),
            Some("char") => 8,
            Some("short") => 16,
            _ if longs >= 2 => 64,
            _ => 32,
        };
        Ok((Some(Base::Int(Ty { bits, signed: !unsigned })), typedef, is_static))
    }

    /// The declared shape: scalar, array of a constant size, pointer (refused), function.
    fn shape(&self, d: &Node<Declarator>) -> Result<Shape, Diagnostic> {
        let mut shape = Shape::Scalar;
        for x in &d.node.derived {
            match &x.node {
                DerivedDeclarator::Pointer(_) => return Err(unsupported("a pointer", self.span(x))),
                DerivedDeclarator::Array(a) => {
                    let size = match &a.node.size {
                        lang_c::ast::ArraySize::VariableExpression(e) | lang_c::ast::ArraySize::StaticExpression(e) => {
                            self.const_eval(e)
                        }
                        _ => None,
                    };
                    match (size, &shape) {
                        (Some(n), Shape::Scalar) if (1..=4096).contains(&n) => shape = Shape::Array(n as usize),
                        _ => {
                            return Err(unsupported(
                                "an array whose size is not a constant (or of arrays)",
                                self.span(x),
                            ))
                        }
                    }
                }
                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_) => shape = Shape::Function,
                DerivedDeclarator::Block(_) => return Err(unsupported("a block", self.span(x))),
            }
        }
        Ok(shape)
    }

    fn global_decl(&mut self, decl: &Node<Declaration>) -> Result<(), Diagnostic> {
        let (base, typedef, _) = self.base_type(&decl.node.specifiers)?;
        for init in &decl.node.declarators {
            let d = &init.node.declarator;
            if matches!(&d.node.kind.node, DeclaratorKind::Abstract) {
                continue;
            }
            let is_fn = d
                .node
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)));
            if is_fn {
                continue; // a prototype (pointer results and parameters included: never called unless defined)
            }
            let (name, nspan) = self.declarator_name(d)?;
            let shape = self.shape(d)?;
            if typedef {
                match (base, shape) {
                    (Some(Base::Int(ty)), Shape::Scalar) => {
                        self.typedefs.insert(name, ty);
                    }
                    _ => return Err(unsupported("a typedef of a type other than an integer", nspan)),
                }
                continue;
            }
            let Some(base) = base else { return Err(unsupported("a `void` variable", nspan)) };
            if self.globals.contains_key(&name) {
                continue; // `extern int x;` then `int x;`: one variable (its first initialiser wins)
            }
            let inits = self.initial(init.node.initializer.as_ref(), &shape)?;
            let var = self.new_var(&name, base, shape, nspan, true, &inits)?;
            self.globals.insert(name, var);
        }
        Ok(())
    }

    /// The constant initial values of a declaration (per element for an array).
    fn initial(&self, i: Option<&Node<Initializer>>, shape: &Shape) -> Result<Vec<i64>, Diagnostic> {
        let Some(i) = i else { return Ok(Vec::new()) };
        let not_const = |s| error("C0413", "an initial value that is not a constant", s, "not a constant");
        match (&i.node, shape) {
            (Initializer::Expression(e), Shape::Scalar) => {
                if let E::Identifier(id) = &e.node {
                    if id.node.name == "PTHREAD_MUTEX_INITIALIZER" {
                        return Ok(vec![0]);
                    }
                }
                Ok(vec![self.const_eval(e).ok_or_else(|| not_const(self.span(e)))?])
            }
            (Initializer::List(items), Shape::Array(n)) if items.len() <= *n => items
                .iter()
                .map(|it| {
                    if !it.node.designation.is_empty() {
                        return Err(unsupported("a designated initialiser", self.span(it)));
                    }
                    match &it.node.initializer.node {
                        Initializer::Expression(e) => self.const_eval(e).ok_or_else(|| not_const(self.span(e))),
                        Initializer::List(_) => Err(unsupported("a nested initialiser list", self.span(it))),
                    }
                })
                .collect(),
            _ => Err(unsupported("this initialiser", self.span(i))),
        }
    }

    /// Declares a variable (global when `shared`, else a local of the current frame).
    fn new_var(
        &mut self,
        name: &str,
        base: Base,
        shape: Shape,
        span: Span,
        shared: bool,
        inits: &[i64],
    ) -> Result<Var, Diagnostic> {
        let cw = |l: &mut Self, n: String, init: i64| {
            if shared {
                let c = l.fresh(&n);
                l.global_order.push((c.clone(), init, span));
                c
            } else {
                let c = l.fresh_here(&n);
                l.frame.locals.push(c.clone());
                c
            }
        };
        let at = |k: usize| inits.get(k).copied().unwrap_or(0);
        let kind = match (base, shape) {
            (Base::Int(ty), Shape::Scalar) => {
                let c = cw(self, name.to_owned(), at(0));
                return Ok(Var { cw: c, kind: Kind::Scalar(ty), shared });
            }
            (Base::Int(ty), Shape::Array(n)) => {
                Kind::Array(ty, (0..n).map(|k| cw(self, format!("{name}_{k}"), at(k))).collect())
            }
            (Base::Mutex, _) if !shared => return Err(unsupported("a mutex that is not a global", span)),
            (Base::Mutex, Shape::Scalar) => {
                let c = cw(self, name.to_owned(), 0);
                return Ok(Var { cw: c, kind: Kind::Mutex, shared });
            }
            (Base::Mutex, Shape::Array(n)) => {
                Kind::Mutexes((0..n).map(|k| cw(self, format!("{name}_{k}"), 0)).collect())
            }
            (Base::Cond, Shape::Scalar) => Kind::Cond,
            (Base::Cond, _) => return Err(unsupported("an array of condition variables", span)),
            (Base::Handle, Shape::Scalar) => Kind::Handle,
            (Base::Handle, Shape::Array(n)) => Kind::Handles(n),
            (_, Shape::Function) => return Err(unsupported("this declaration", span)),
        };
        Ok(Var { cw: String::new(), kind, shared })
    }

    // ---- functions ----

    /// The parameters of a function: name and type; `void *` only for a thread function's
    /// argument (`thread`), read as an integer.
    fn parameters(&self, f: &Node<FunctionDefinition>, thread: bool) -> Result<Vec<Param>, Diagnostic> {
        let mut out = Vec::new();
        for x in &f.node.declarator.node.derived {
            match &x.node {
                DerivedDeclarator::Function(fd) => {
                    for p in &fd.node.parameters {
                        if let Some(param) = self.parameter(p, thread)? {
                            out.push(param);
                        }
                    }
                }
                DerivedDeclarator::KRFunction(ids) if ids.is_empty() => {}
                DerivedDeclarator::Pointer(_) => {} // `void *f(...)`: the result is never used
                _ => return Err(unsupported("this function declarator", self.span(x))),
            }
        }
        Ok(out)
    }

    fn parameter(&self, p: &Node<ParameterDeclaration>, thread: bool) -> Result<Option<Param>, Diagnostic> {
        let (base, _, _) = self.base_type(&p.node.specifiers)?;
        let Some(d) = &p.node.declarator else { return Ok(None) }; // `(void)`
        let (name, span) = self.declarator_name(d)?;
        let pointers = d.node.derived.iter().filter(|x| matches!(x.node, DerivedDeclarator::Pointer(_))).count();
        let one = pointers == 1 && d.node.derived.len() == 1;
        match base {
            Some(Base::Int(ty)) if pointers == 0 => Ok(Some((name, ty, false))),
            // `int *p`: a caller's local passed by reference (`&x`), copied in and out.
            Some(Base::Int(ty)) if one && !thread => Ok(Some((name, ty, true))),
            None if one && thread => Ok(Some((name, INT, false))),
            _ if pointers > 0 => Err(unsupported(
                "a pointer parameter other than a thread function's `void *` or an integer's `int *`",
                span,
            )),
            _ => Err(unsupported("a parameter of this type", span)),
        }
    }

    /// A user function called (or started) from `caller`: queued for lowering as a procedure.
    fn use_function(&mut self, name: &str, span: Span, thread: bool) -> Result<String, Diagnostic> {
        let caller = self.frame.name.clone();
        let in_loop = self.frame.loops > 0;
        self.calls.push((caller, name.to_owned(), span, in_loop));
        if let Some(cw) = self.procs.get(name) {
            return Ok(cw.clone());
        }
        let f = *self.functions.get(name).ok_or_else(|| {
            error("C0414", format!("a call of `{name}`, which has no definition here"), span, "not read")
        })?;
        // The function's C name was reserved for its procedure (a keyword gets a `_`).
        let cw = if KEYWORDS.contains(&name) { self.fresh(&format!("{name}_")) } else { name.to_owned() };
        self.procs.insert(name.to_owned(), cw.clone());
        self.pending.push(name.to_owned());
        let params = self.parameters(f, thread)?;
        let returns = {
            let (base, _, _) = self.base_type(&f.node.specifiers)?;
            base.is_some()
                && !f.node.declarator.node.derived.iter().any(|x| matches!(x.node, DerivedDeclarator::Pointer(_)))
        };
        let result = returns.then(|| self.fresh(&format!("{cw}_result")));
        let mut named: Vec<(String, Ty)> = Vec::new();
        for (p, ty, by_ref) in params {
            let mut c = p.clone();
            let mut k = 1;
            while self.taken.contains(&c) || named.iter().any(|(n, _)| *n == c) || result.as_ref() == Some(&c) {
                k += 1;
                c = format!("{p}_{k}");
            }
            if by_ref {
                self.by_ref.insert((name.to_owned(), c.clone()));
            }
            named.push((c, ty));
            self.c_params.entry(name.to_owned()).or_default().push(p);
        }
        self.params.insert(name.to_owned(), (named, result));
        Ok(cw)
    }

    /// Lowers a user function into its procedure's text.
    fn procedure(&mut self, name: &str) -> Result<(), Diagnostic> {
        let f = self.functions[name];
        let is_thread = self.instances.iter().any(|i| i.function == name);
        self.frame = Frame { name: name.to_owned(), is_thread, ..Frame::default() };
        let mut scope = BTreeMap::new();
        let (params, result) = self.params[name].clone();
        let c_names = self.c_params.get(name).cloned().unwrap_or_default();
        for ((cw, ty), c) in params.iter().zip(c_names) {
            self.frame.locals.push(cw.clone());
            let key = (name.to_owned(), cw.clone());
            if let Some(array) = self.aliases.get(&key).and_then(|a| self.globals.get(a)) {
                scope.insert(c, array.clone());
                continue;
            }
            let kind = if self.by_ref.contains(&key) { Kind::Ref(*ty) } else { Kind::Scalar(*ty) };
            scope.insert(c, Var { cw: cw.clone(), kind, shared: false });
        }
        if let Some(r) = &result {
            self.frame.locals.push(r.clone());
        }
        self.frame.result = result.clone();
        self.frame.scopes.push(scope);
        if name.starts_with("__VERIFIER_atomic_") {
            self.frame.atomic = 1;
        }
        let body = self.body(f)?;
        let frame = std::mem::take(&mut self.frame);
        let cw = self.procs[name].clone();
        let mut text = format!("proc {cw} {{\n");
        locals(&mut text, &frame);
        for n in &body {
            print_node(&mut text, n, 1);
        }
        text.push_str("}\n");
        self.proc_texts.insert(name.to_owned(), text);
        Ok(())
    }

    /// A function's body: its statements, the final `return` (or `pthread_exit`) read as the
    /// end of the function.
    fn body(&mut self, f: &'a Node<FunctionDefinition>) -> Result<Vec<N>, Diagnostic> {
        let Statement::Compound(items) = &f.node.statement.node else {
            return Err(unsupported("this function body", self.span(&f.node.statement)));
        };
        let mut out = Vec::new();
        let mut stack: Vec<(Span, Vec<N>)> = Vec::new();
        self.items(items, &mut out, &mut stack, true)?;
        if let Some((span, _)) = stack.first() {
            return Err(error("C0415", "`__VERIFIER_atomic_begin()` without its end in this block", *span, "here"));
        }
        if let Some(flag) = self.frame.returned.clone() {
            // Procedure locals keep their values between calls: the flag starts each call clear.
            let span = self.span(&f.node.statement);
            let l = self.label(Span { start: span.start, end: span.start.saturating_add(1) });
            out.insert(0, N::Simple(l, format!("{flag} := 0")));
        }
        Ok(out)
    }

    /// Adds a lowered item to a block, grouping atomic sections.
    fn push_item(&mut self, item: Item, out: &mut Vec<N>, stack: &mut Vec<(Span, Vec<N>)>) -> Result<(), Diagnostic> {
        match item {
            Item::Nodes(nodes) => match stack.last_mut() {
                Some((_, body)) => body.extend(nodes),
                None => out.extend(nodes),
            },
            Item::Begin(span) => {
                if !stack.is_empty() {
                    return Err(unsupported("a nested `__VERIFIER_atomic_begin()`", span));
                }
                self.frame.atomic += 1;
                stack.push((span, Vec::new()));
            }
            Item::End(span) => {
                let Some((open, body)) = stack.pop() else {
                    return Err(error(
                        "C0415",
                        "`__VERIFIER_atomic_end()` without its begin in this block",
                        span,
                        "here",
                    ));
                };
                self.frame.atomic -= 1;
                let whole = Span { start: open.start, end: span.end };
                let label = self.label(open);
                self.spans.insert(label.clone(), whole);
                out.push(N::Atomic(label, body));
            }
        }
        Ok(())
    }

    fn block(&mut self, s: &'a Node<Statement>) -> Result<Vec<N>, Diagnostic> {
        self.frame.scopes.push(BTreeMap::new());
        let mut out = Vec::new();
        let mut stack = Vec::new();
        let result = (|| {
            match &s.node {
                Statement::Compound(items) => self.items(items, &mut out, &mut stack, false)?,
                _ => {
                    let lowered = self.stmt(s, false)?;
                    self.push_item(lowered, &mut out, &mut stack)?;
                }
            }
            if let Some((span, _)) = stack.first() {
                return Err(error("C0415", "`__VERIFIER_atomic_begin()` without its end in this block", *span, "here"));
            }
            Ok(())
        })();
        self.frame.scopes.pop();
        result.map(|()| out)
    }

    /// The items of a block; after an item that may `break` or `continue`, the rest run only
    /// when it did not (`if (jump == 0) { ... }`).
    fn items(
        &mut self,
        items: &'a [Node<BlockItem>],
        out: &mut Vec<N>,
        stack: &mut Vec<(Span, Vec<N>)>,
        top: bool,
    ) -> Result<(), Diagnostic> {
        for (k, item) in items.iter().enumerate() {
            let last = top && k + 1 == items.len();
            let lowered = self.block_item(item, last)?;
            self.push_item(lowered, out, stack)?;
            let mut guards = Vec::new();
            if let BlockItem::Statement(s) = &item.node {
                if let (true, Some(Some(flag))) = (has_jump(s), self.frame.jumps.last()) {
                    guards.push(format!("{flag} == 0"));
                }
                if let (true, Some(flag)) = (has_return(s), &self.frame.returned) {
                    guards.push(format!("{flag} == 0"));
                }
            }
            if let (false, Some(next)) = (guards.is_empty(), items.get(k + 1)) {
                let span = self.span(next);
                let mut rest = Vec::new();
                let mut inner = Vec::new();
                self.items(&items[k + 1..], &mut rest, &mut inner, top)?;
                if let Some((span, _)) = inner.first() {
                    return Err(error(
                        "C0415",
                        "`__VERIFIER_atomic_begin()` without its end in this block",
                        *span,
                        "here",
                    ));
                }
                let l = self.label(span);
                self.push_item(Item::Nodes(vec![N::If(l, guards.join(" && "), rest, None)]), out, stack)?;
                return Ok(());
            }
        }
        Ok(())
    }

    fn block_item(&mut self, item: &'a Node<BlockItem>, last: bool) -> Result<Item, Diagnostic> {
        match &item.node {
            BlockItem::Declaration(d) => self.local_decl(d).map(Item::Nodes),
            BlockItem::Statement(s) => self.stmt(s, last),
            BlockItem::StaticAssert(s) => Err(unsupported("`_Static_assert`", self.span(s))),
        }
    }

    fn local_decl(&mut self, decl: &'a Node<Declaration>) -> Result<Vec<N>, Diagnostic> {
        let (base, typedef, is_static) = self.base_type(&decl.node.specifiers)?;
        if typedef {
            return Err(unsupported("a typedef inside a function", self.span(decl)));
        }
        if is_static {
            return Err(unsupported("a `static` local", self.span(decl)));
        }
        let mut out = Vec::new();
        for init in &decl.node.declarators {
            let d = &init.node.declarator;
            let (name, nspan) = self.declarator_name(d)?;
            let shape = self.shape(d)?;
            if matches!(shape, Shape::Function) {
                continue;
            }
            let Some(base) = base else { return Err(unsupported("a `void` variable", nspan)) };
            let var = self.new_var(&name, base, shape.clone(), nspan, false, &[])?;
            if let Some(i) = &init.node.initializer {
                match (&i.node, &var.kind) {
                    (Initializer::Expression(e), Kind::Scalar(ty)) => {
                        let span = self.span(decl);
                        let target = Target { cw: var.cw.clone(), ty: *ty, shared: false, computed: None };
                        self.frame.scopes.last_mut().expect("a scope").insert(name.clone(), var.clone());
                        out.extend(self.assign(&target, None, Some(e), span)?);
                        continue;
                    }
                    _ => return Err(unsupported("this local initialiser", self.span(i))),
                }
            }
            self.frame.scopes.last_mut().expect("a scope").insert(name, var);
        }
        Ok(out)
    }

    fn lookup(&self, name: &str) -> Option<&Var> {
        self.frame.scopes.iter().rev().find_map(|s| s.get(name)).or_else(|| self.globals.get(name))
    }

    // ---- statements ----

    fn stmt(&mut self, s: &'a Node<Statement>, last: bool) -> Result<Item, Diagnostic> {
        let span = self.span(s);
        self.frame.temps = 0;
        let nodes = match &s.node {
            Statement::Labeled(l) => return self.stmt(&l.node.statement, last),
            Statement::Compound(_) => self.block(s)?,
            Statement::Expression(None) => Vec::new(),
            Statement::Expression(Some(e)) => return self.expr_stmt(e, span, last),
            Statement::If(i) => {
                let then = &i.node.then_statement;
                let els = i.node.else_statement.as_deref();
                self.cond_node(&i.node.condition, span, |l| {
                    let t = l.block(then)?;
                    let e = match els {
                        Some(e) => Some(l.block(e)?),
                        None => None,
                    };
                    Ok((t, e))
                })?
            }
            Statement::While(w) => self.while_node(Some(&w.node.expression), &w.node.statement, None, span)?,
            Statement::For(f) => self.for_node(f, span)?,
            Statement::Return(e) => {
                if !last && self.frame.loops > 0 {
                    return Err(unsupported("a `return` inside a loop", span));
                }
                let mut nodes = match (e, self.frame.result.clone()) {
                    (Some(e), Some(r)) => {
                        let target = Target { cw: r, ty: INT, shared: false, computed: None };
                        self.assign(&target, None, Some(e), span)?
                    }
                    _ => Vec::new(),
                };
                if !last {
                    // The rest of the function runs only while the flag is clear.
                    let flag = match self.frame.returned.clone() {
                        Some(f) => f,
                        None => {
                            let f = self.fresh_local("returned");
                            self.frame.returned = Some(f.clone());
                            f
                        }
                    };
                    let l = self.label(span);
                    nodes.push(N::Simple(l, format!("{flag} := 1")));
                }
                nodes
            }
            Statement::DoWhile(_) => return Err(unsupported("`do ... while`", span)),
            Statement::Switch(_) => return Err(unsupported("`switch`", span)),
            Statement::Goto(_) => return Err(unsupported("`goto`", span)),
            Statement::Break | Statement::Continue => {
                let value = if matches!(s.node, Statement::Break) { 1 } else { 2 };
                let Some(Some(flag)) = self.frame.jumps.last().cloned() else {
                    return Err(unsupported("`break` or `continue` outside a loop", span));
                };
                let l = self.label(span);
                self.texts.insert(l.clone(), self.c_text(span));
                vec![N::Simple(l, format!("{flag} := {value}"))]
            }
            Statement::Asm(_) => return Err(unsupported("inline assembly", span)),
        };
        Ok(Item::Nodes(nodes))
    }

    /// An `if` on `c`: `*` for a nondet condition; with the reads of a condition that reads
    /// shared variables more than once as steps before it, in one `noreorder` item.
    fn cond_node(
        &mut self,
        c: &'a Node<lang_c::ast::Expression>,
        span: Span,
        branches: impl FnOnce(&mut Self) -> Result<(Vec<N>, Option<Vec<N>>), Diagnostic>,
    ) -> Result<Vec<N>, Diagnostic> {
        let label = self.label(span);
        let (cond, pre) = self.condition(c, span)?;
        let (t, e) = branches(self)?;
        if pre.is_empty() {
            return Ok(vec![N::If(label, cond, t, e)]);
        }
        let inner = self.label(span);
        let mut group = pre;
        group.push(N::If(inner, cond, t, e));
        Ok(vec![N::NoReorder(label, group)])
    }

    /// A condition's text and the steps before it.
    fn condition(&mut self, c: &'a Node<lang_c::ast::Expression>, span: Span) -> Result<(String, Vec<N>), Diagnostic> {
        if self.is_nondet_call(c) {
            return Ok(("*".into(), Vec::new()));
        }
        let split = self.frame.atomic == 0 && self.reads(c) > 1;
        let mut cx = Cx { split, pre: Vec::new(), span, arith: false };
        let text = self.expr(c, &mut cx)?;
        Ok((text, cx.pre))
    }

    fn while_node(
        &mut self,
        c: Option<&'a Node<lang_c::ast::Expression>>,
        body: &'a Node<Statement>,
        step: Option<&'a Node<lang_c::ast::Expression>>,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        let empty = match &body.node {
            Statement::Expression(None) => true,
            Statement::Compound(items) => items.is_empty(),
            _ => false,
        };
        let label = self.label(span);
        if let Some(c) = c {
            if empty && step.is_none() && !self.is_nondet_call(c) && self.reads(c) <= 1 {
                // A busy wait on at most one shared read: waits until the condition is false.
                let mut cx = Cx { split: false, pre: Vec::new(), span, arith: false };
                let t = self.expr(c, &mut cx)?;
                return Ok(vec![N::Simple(label, format!("await({GUARD}!({t}))"))]);
            }
        }
        // `break` and `continue` set the loop's jump flag (1 and 2): the rest of the iteration
        // is skipped, and a break leaves the loop by its condition.
        let jump = if has_jump(body) { Some(self.fresh_local("jump")) } else { None };
        let (cond, pre) = match c {
            Some(c) => self.condition(c, span)?,
            None => ("1".to_owned(), Vec::new()),
        };
        let cond = match &jump {
            Some(j) if cond == "*" => {
                return Err(unsupported("`break` or `continue` in a loop on a nondet value", span))
            }
            Some(j) => format!("({j} != 1 && {cond})"),
            None => cond,
        };
        self.frame.loops += 1;
        self.frame.jumps.push(jump.clone());
        let inner = self.block(body);
        self.frame.jumps.pop();
        self.frame.loops -= 1;
        let mut inner = inner?;
        if let Some(j) = &jump {
            let l = self.label(span);
            inner.insert(0, N::Simple(l, format!("{j} := 0")));
        }
        if let Some(st) = step {
            let nodes = self.expr_stmt_nodes(st, span)?;
            match &jump {
                Some(j) => {
                    let l = self.label(span);
                    inner.push(N::If(l, format!("{j} != 1"), nodes, None));
                }
                None => inner.extend(nodes),
            }
        }
        let mut out = Vec::new();
        if let Some(j) = &jump {
            let l = self.label(span);
            out.push(N::Simple(l, format!("{j} := 0")));
        }
        if pre.is_empty() {
            out.push(N::While(label, cond, inner));
            return Ok(out);
        }
        self.frame.temps = 0;
        if let Some(c) = c {
            let (_, again) = self.condition(c, span)?;
            inner.extend(again);
        }
        let w = self.label(span);
        let mut group = pre;
        group.push(N::While(w, cond, inner));
        out.push(N::NoReorder(label, group));
        Ok(out)
    }

    /// A new local of the current function.
    fn fresh_local(&mut self, base: &str) -> String {
        let name = self.fresh_here(base);
        self.frame.locals.push(name.clone());
        name
    }

    fn for_node(&mut self, f: &'a Node<lang_c::ast::ForStatement>, span: Span) -> Result<Vec<N>, Diagnostic> {
        self.frame.scopes.push(BTreeMap::new());
        let result = (|| {
            let mut out = Vec::new();
            match &f.node.initializer.node {
                ForInitializer::Empty => {}
                ForInitializer::Expression(e) => out.extend(self.expr_stmt_nodes(e, span)?),
                ForInitializer::Declaration(d) => out.extend(self.local_decl(d)?),
                ForInitializer::StaticAssert(s) => return Err(unsupported("`_Static_assert`", self.span(s))),
            }
            if let Some(unrolled) = self.unroll(f, span)? {
                // The initialiser's step stays (it sets the loop variable), then the copies.
                out.extend(unrolled);
                return Ok(out);
            }
            let cond = f.node.condition.as_deref();
            out.extend(self.while_node(cond, &f.node.statement, f.node.step.as_deref(), span)?);
            Ok(out)
        })();
        self.frame.scopes.pop();
        result
    }

    /// A `for (i = a; i < b; i++)` loop over a local `i` with constant bounds whose body
    /// creates or joins threads or indexes an array: one copy of the body per iteration, `i`
    /// a constant in each (exact: no bound); then `i := b`.
    fn unroll(&mut self, f: &'a Node<lang_c::ast::ForStatement>, span: Span) -> Result<Option<Vec<N>>, Diagnostic> {
        if has_jump(&f.node.statement) || has_return(&f.node.statement) {
            return Ok(None);
        }
        let mut scan = Scan::default();
        lang_c::visit::Visit::visit_statement(&mut scan, &f.node.statement.node, &f.node.statement.span);
        if !(scan.threads || scan.index) {
            return Ok(None);
        }
        let Some((var, from)) = self.loop_start(&f.node.initializer.node) else { return Ok(None) };
        let Some(v) = self.lookup(&var).cloned() else { return Ok(None) };
        if v.shared || !matches!(v.kind, Kind::Scalar(_)) || self.frame.consts.contains_key(&var) {
            return Ok(None);
        }
        let Some(c) = f.node.condition.as_deref() else { return Ok(None) };
        let E::BinaryOperator(b) = &c.node else { return Ok(None) };
        let E::Identifier(id) = &b.node.lhs.node else { return Ok(None) };
        if id.node.name != var {
            return Ok(None);
        }
        let Some(to) = self.const_eval(&b.node.rhs) else { return Ok(None) };
        let to = match b.node.operator.node {
            B::Less | B::NotEquals => to,
            B::LessOrEqual => to + 1,
            _ => return Ok(None),
        };
        let step_ok = match f.node.step.as_deref().map(|s| &s.node) {
            Some(E::UnaryOperator(u)) => {
                matches!(u.node.operator.node, U::PostIncrement | U::PreIncrement)
                    && matches!(&u.node.operand.node, E::Identifier(x) if x.node.name == var)
            }
            _ => false,
        };
        let assigned = scan.assigned.contains(&var);
        if !step_ok || assigned || to < from || to - from > MAX_UNROLL {
            if scan.threads {
                return Err(unsupported(
                    &format!("a loop creating threads that is not `for ({var} = A; {var} < B; {var}++)` with constants A, B (at most {MAX_UNROLL} iterations) and `{var}` unchanged in its body"),
                    span,
                ));
            }
            return Ok(None);
        }
        let mut out = Vec::new();
        for k in from..to {
            self.frame.consts.insert(var.clone(), k);
            let copy = self.block(&f.node.statement);
            self.frame.consts.remove(&var);
            out.extend(copy?);
        }
        let label = self.label(span);
        out.push(N::Simple(label, format!("{} := {to}", v.cw)));
        Ok(Some(out))
    }

    fn loop_start(&self, init: &ForInitializer) -> Option<(String, i64)> {
        match init {
            ForInitializer::Expression(e) => match &e.node {
                E::BinaryOperator(b) if b.node.operator.node == B::Assign => match &b.node.lhs.node {
                    E::Identifier(id) => Some((id.node.name.clone(), self.const_eval(&b.node.rhs)?)),
                    _ => None,
                },
                _ => None,
            },
            ForInitializer::Declaration(d) => {
                let [one] = d.node.declarators.as_slice() else { return None };
                let (name, _) = self.declarator_name(&one.node.declarator).ok()?;
                match &one.node.initializer.as_ref()?.node {
                    Initializer::Expression(e) => Some((name, self.const_eval(e)?)),
                    Initializer::List(_) => None,
                }
            }
            _ => None,
        }
    }

    fn expr_stmt_nodes(&mut self, e: &'a Node<lang_c::ast::Expression>, span: Span) -> Result<Vec<N>, Diagnostic> {
        match self.expr_stmt(e, span, false)? {
            Item::Nodes(n) => Ok(n),
            Item::Begin(s) | Item::End(s) => Err(unsupported("an atomic-section marker here", s)),
        }
    }

    /// An expression statement: an assignment, `++`/`--`, or a call.
    fn expr_stmt(&mut self, e: &'a Node<lang_c::ast::Expression>, span: Span, last: bool) -> Result<Item, Diagnostic> {
        match &e.node {
            E::BinaryOperator(b) => {
                let op = match b.node.operator.node {
                    B::Assign => None,
                    B::AssignPlus => Some("+"),
                    B::AssignMinus => Some("-"),
                    B::AssignMultiply => Some("*"),
                    B::AssignDivide => Some("/"),
                    B::AssignModulo => Some("%"),
                    _ => return Err(unsupported("this expression as a statement", self.span(e))),
                };
                let target = self.target(&b.node.lhs)?;
                if op.is_none() {
                    if let E::Call(c) = &b.node.rhs.node {
                        if let E::Identifier(id) = &c.node.callee.node {
                            if self.functions.contains_key(&id.node.name) && !BUILTINS.contains(&id.node.name.as_str())
                            {
                                return self.call(c, span, Some(target), last).map(Item::Nodes);
                            }
                        }
                    }
                }
                self.assign(&target, op, Some(&b.node.rhs), span).map(Item::Nodes)
            }
            E::UnaryOperator(u) => {
                let op = match u.node.operator.node {
                    U::PostIncrement | U::PreIncrement => "+",
                    U::PostDecrement | U::PreDecrement => "-",
                    _ => return Err(unsupported("this expression as a statement", self.span(e))),
                };
                let target = self.target(&u.node.operand)?;
                self.assign(&target, Some(op), None, span).map(Item::Nodes)
            }
            E::Call(c) => self.call_item(c, span, last),
            E::Cast(c) => self.expr_stmt(&c.node.expression, span, last),
            // `(void)arg;`: a value dropped, no effect.
            E::Identifier(_) | E::Constant(_) => Ok(Item::Nodes(Vec::new())),
            _ => Err(unsupported("this expression as a statement", self.span(e))),
        }
    }

    /// The variable an assignment writes.
    fn target(&mut self, lhs: &'a Node<lang_c::ast::Expression>) -> Result<Target<'a>, Diagnostic> {
        let span = self.span(lhs);
        match &lhs.node {
            E::Identifier(id) => {
                let name = id.node.name.as_str();
                if self.frame.consts.contains_key(name) {
                    return Err(unsupported("an assignment to an unrolled loop's variable", span));
                }
                match self.lookup(name) {
                    Some(Var { cw, kind: Kind::Scalar(ty), shared }) => {
                        Ok(Target { cw: cw.clone(), ty: *ty, shared: *shared, computed: None })
                    }
                    Some(_) => Err(unsupported("an assignment to this variable", span)),
                    None => Err(error("C0416", format!("`{name}` is not declared"), span, "unknown name")),
                }
            }
            E::BinaryOperator(b) if b.node.operator.node == B::Index => {
                if let Some((ty, elems, shared)) = self.computed_array(b) {
                    return Ok(Target { cw: String::new(), ty, shared, computed: Some((&b.node.rhs, elems)) });
                }
                let (cw, kind, shared) = self.element(b, span)?;
                match kind {
                    Kind::Scalar(ty) => Ok(Target { cw, ty, shared, computed: None }),
                    _ => Err(unsupported("an assignment to this element", span)),
                }
            }
            E::UnaryOperator(u) if u.node.operator.node == U::Indirection => match &u.node.operand.node {
                E::Identifier(id) => match self.lookup(&id.node.name) {
                    Some(Var { cw, kind: Kind::Ref(ty), .. }) => {
                        Ok(Target { cw: cw.clone(), ty: *ty, shared: false, computed: None })
                    }
                    _ => Err(unsupported("a pointer operation", span)),
                },
                _ => Err(unsupported("a pointer operation", span)),
            },
            _ => Err(unsupported("an assignment to this expression (pointers, structs)", span)),
        }
    }

    /// An array element with a constant index: its Cwhile variable.
    fn element(
        &self,
        b: &Node<lang_c::ast::BinaryOperatorExpression>,
        span: Span,
    ) -> Result<(String, Kind, bool), Diagnostic> {
        let E::Identifier(id) = &b.node.lhs.node else { return Err(unsupported("this array access", span)) };
        let var = self
            .lookup(&id.node.name)
            .ok_or_else(|| error("C0416", format!("`{}` is not declared", id.node.name), span, "unknown name"))?;
        let index = self.const_eval(&b.node.rhs).ok_or_else(|| {
            unsupported(
                "an array index that is not a constant (or the variable of an unrolled `for` loop)",
                self.span(&b.node.rhs),
            )
        })?;
        let at = |n: usize| usize::try_from(index).ok().filter(|&i| i < n);
        let bad = || error("C0417", format!("index {index} is out of the array's bounds"), span, "out of bounds");
        match &var.kind {
            Kind::Array(ty, cws) => Ok((cws[at(cws.len()).ok_or_else(bad)?].clone(), Kind::Scalar(*ty), var.shared)),
            Kind::Mutexes(cws) => Ok((cws[at(cws.len()).ok_or_else(bad)?].clone(), Kind::Mutex, true)),
            _ => Err(unsupported("an index into something that is not an array", span)),
        }
    }

    /// `target op= rhs` (or `target = rhs`): its steps.
    fn assign(
        &mut self,
        target: &Target<'a>,
        op: Option<&str>,
        rhs: Option<&'a Node<lang_c::ast::Expression>>,
        span: Span,
    ) -> Result<Vec<N>, Diagnostic> {
        let label = self.label(span);
        let index_reads = target.computed.as_ref().map_or(0, |(i, _)| self.reads(i));
        let total = rhs.map_or(0, |r| self.reads(r))
            + usize::from(target.shared)
            + usize::from(op.is_some() && target.shared)
            + index_reads;
        let split = self.frame.atomic == 0 && total > 1;
        let mut cx = Cx { split, pre: Vec::new(), span, arith: op.is_some() };
        if let Some((index, elems)) = &target.computed {
            if op.is_some() {
                return Err(unsupported("a compound assignment to an element at a computed index", span));
            }
            let idx = self.expr(index, &mut cx)?;
            let value = match rhs {
                Some(r) => self.expr(r, &mut cx)?,
                None => "1".to_owned(),
            };
            let value = if target.ty.bits < 32 || (cx.arith && target.ty.bits < 64) || !target.ty.signed {
                target.ty.wrap(&value)
            } else {
                value
            };
            let v = self.temp();
            let l = self.label(span);
            cx.pre.push(N::Simple(l, format!("{v} := {value}")));
            let writes: Vec<String> = elems.iter().map(|e| format!("{e} := {v}")).collect();
            let chain = self.pick(&idx, writes, span);
            let mut group = cx.pre;
            group.extend(chain);
            return Ok(vec![N::NoReorder(label, group)]);
        }
        let mut value = match rhs {
            Some(r) => self.expr(r, &mut cx)?,
            None => "1".to_owned(),
        };
        if let Some(op) = op {
            let old = self.read_var(&target.cw, target.shared, &mut cx);
            value = format!("({old} {op} {value})");
        }
        let wrap =
            target.ty.bits < 32 || (cx.arith && target.ty.bits < 64) || (!target.ty.signed && !is_literal(&value));
        let value = if wrap { target.ty.wrap(&value) } else { value };
        let text = format!("{} := {value}", target.cw);
        Ok(self.group(label, span, cx.pre, text))
    }

    /// A statement's steps: its own step alone, or after the steps before it in one
    /// `noreorder` item named by the statement's label.
    fn group(&mut self, label: String, span: Span, pre: Vec<N>, text: String) -> Vec<N> {
        if pre.is_empty() {
            self.texts.insert(label.clone(), self.c_text(span));
            return vec![N::Simple(label, text)];
        }
        let last = self.label(span);
        let mut g = pre;
        g.push(N::Simple(last, text));
        vec![N::NoReorder(label, g)]
    }

    /// The C text of a statement: its first line, without its `;`.
    fn c_text(&self, span: Span) -> String {
        let s = self.source.get(span.start as usize..span.end as usize).unwrap_or("");
        let first = s.lines().next().unwrap_or("").trim();
        let t = first.strip_suffix(';').unwrap_or(first).trim_end();
        if s.trim_end().lines().nth(1).is_some() {
            format!("{t} ...")
        } else {
            t.to_owned()
        }
    }

    fn read_var(&mut self, cw: &str, shared: bool, cx: &mut Cx) -> String {
        if !(shared && cx.split) {
            return cw.to_owned();
        }
        let t = self.temp();
        let label = self.label(cx.span);
        cx.pre.push(N::Simple(label, format!("{t} := {cw}")));
        t
    }

    fn temp(&mut self) -> String {
        self.frame.temps += 1;
        let n = self.frame.temps;
        if n > self.frame.temp_names.len() {
            let name = self.fresh_here(&format!("tmp{n}"));
            self.frame.locals.push(name.clone());
            self.frame.temp_names.push(name);
        }
        self.frame.temp_names[n - 1].clone()
    }

    // ---- calls ----

    fn call_item(
        &mut self,
        c: &'a Node<lang_c::ast::CallExpression>,
        span: Span,
        last: bool,
    ) -> Result<Item, Diagnostic> {
        let E::Identifier(id) = &c.node.callee.node else {
            return Err(unsupported("a call through a pointer", self.span(&c.node.callee)));
        };
        let name = id.node.name.as_str();
        let args = &c.node.arguments;
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(error("C0418", format!("`{name}` takes {n} argument(s)"), span, "here"))
            }
        };
        let label = |l: &mut Self| l.label(span);
        let simple = |l: &mut Self, text: String| {
            let lab = l.label(span);
            l.texts.insert(lab.clone(), l.c_text(span));
            Ok(Item::Nodes(vec![N::Simple(lab, text)]))
        };
        match name {
            "__VERIFIER_atomic_begin" => return Ok(Item::Begin(span)),
            "__VERIFIER_atomic_end" => return Ok(Item::End(span)),
            "reach_error" | "__VERIFIER_error" => return simple(self, format!("assert({GUARD}0)")),
            "abort" | "exit" if self.frame.atomic == 0 => return simple(self, "assume(0)".into()),
            "abort" | "exit" => {
                // Inside an atomic block a path cut by `assume(0)` would not be taken at all, and
                // an error before it on that path would be lost: the abort sets a flag instead,
                // after which no assertion counts and no wait holds the block back.
                let flag = match &self.aborted {
                    Some(f) => f.clone(),
                    None => {
                        let f = self.fresh("aborted");
                        self.global_order.push((f.clone(), 0, span));
                        self.aborted = Some(f.clone());
                        f
                    }
                };
                return simple(self, format!("{flag} := 1"));
            }
            "printf" | "puts" | "fprintf" => return Ok(Item::Nodes(Vec::new())),
            "__VERIFIER_assume" | "assume_abort_if_not" => {
                arity(1)?;
                let mut cx = Cx { split: false, pre: Vec::new(), span, arith: false };
                let t = self.expr(&args[0], &mut cx)?;
                let kw = if name == "__VERIFIER_assume" { "await" } else { "assume" };
                return simple(self, format!("{kw}({GUARD}({t}))"));
            }
            "assert" | "__VERIFIER_assert" => {
                arity(1)?;
                let l = label(self);
                let split = self.frame.atomic == 0 && self.reads(&args[0]) > 1;
                let mut cx = Cx { split, pre: Vec::new(), span, arith: false };
                let t = self.expr(&args[0], &mut cx)?;
                return Ok(Item::Nodes(self.group(l, span, cx.pre, format!("assert({GUARD}({t}))"))));
            }
            "pthread_create" => {
                arity(4)?;
                return self.create(args, span).map(Item::Nodes);
            }
            "pthread_join" => {
                arity(2)?;
                let k = self.handle(&args[0], false)?;
                self.joined.insert(k);
                let done = self.instances[k].done.clone();
                return simple(self, format!("await({GUARD}{done} == 1)"));
            }
            "pthread_exit" => {
                if !last || !self.frame.is_thread {
                    return Err(unsupported("`pthread_exit` before the end of a thread's function", span));
                }
                return Ok(Item::Nodes(Vec::new()));
            }
            "pthread_mutex_lock" | "pthread_mutex_unlock" | "pthread_mutex_init" | "pthread_mutex_destroy" => {
                let m = self.mutex(args.first(), span)?;
                return match name {
                    "pthread_mutex_lock" => simple(self, format!("lock({m})")),
                    "pthread_mutex_unlock" => simple(self, format!("unlock({m})")),
                    "pthread_mutex_init" => simple(self, format!("{m} := 0")),
                    _ => simple(self, "skip".into()),
                };
            }
            "pthread_cond_wait" => {
                // POSIX lets a waiting thread wake spuriously, at any time: a wait releases the
                // mutex and takes it again, and signals change nothing the model tracks.
                arity(2)?;
                let m = self.mutex(args.get(1), span)?;
                let l = label(self);
                let (a, b) = (self.label(span), self.label(span));
                self.texts.insert(l.clone(), self.c_text(span));
                let nodes = vec![N::Simple(a, format!("unlock({m})")), N::Simple(b, format!("lock({m})"))];
                return Ok(Item::Nodes(vec![N::NoReorder(l, nodes)]));
            }
            "pthread_cond_signal" | "pthread_cond_broadcast" | "pthread_cond_init" | "pthread_cond_destroy" => {
                return Ok(Item::Nodes(Vec::new()));
            }
            _ if name.starts_with("__VERIFIER_nondet_") => return Ok(Item::Nodes(Vec::new())),
            _ if name.starts_with("pthread_") => {
                return Err(unsupported(&format!("`{name}`"), span));
            }
            _ => {}
        }
        self.call(c, span, None, last).map(Item::Nodes)
    }

    /// A call of a user function: its parameters set, the call (in `atomic` for a
    /// `__VERIFIER_atomic_` function), its result read, in one `noreorder` item.
    fn call(
        &mut self,
        c: &'a Node<lang_c::ast::CallExpression>,
        span: Span,
        result: Option<Target<'a>>,
        _last: bool,
    ) -> Result<Vec<N>, Diagnostic> {
        let E::Identifier(id) = &c.node.callee.node else {
            return Err(unsupported("a call through a pointer", self.span(&c.node.callee)));
        };
        let name = id.node.name.clone();
        let cw = self.use_function(&name, span, false)?;
        let (params, ret) = self.params[&name].clone();
        if params.len() != c.node.arguments.len() {
            return Err(error("C0418", format!("`{name}` takes {} argument(s)", params.len()), span, "here"));
        }
        let label = self.label(span);
        let mut steps = Vec::new();
        let mut copy_out = Vec::new();
        for ((p, ty), a) in params.iter().zip(&c.node.arguments) {
            if self.by_ref.contains(&(name.clone(), p.clone())) {
                // A global array passed to an `int *` parameter: the parameter is that array
                // in the function (the same array at every call).
                if let E::Identifier(id) = &a.node {
                    if let Some(Var { kind: Kind::Array(..), shared: true, .. }) = self.globals.get(&id.node.name) {
                        let key = (name.clone(), p.clone());
                        let array = id.node.name.clone();
                        match self.aliases.get(&key) {
                            Some(other) if *other != array => {
                                return Err(unsupported(
                                    "different arrays passed to one pointer parameter",
                                    self.span(a),
                                ))
                            }
                            _ if self.local_refs.contains(&key)
                                || (self.proc_texts.contains_key(&name) && !self.aliases.contains_key(&key)) =>
                            {
                                return Err(unsupported(
                                    "an array passed to a parameter read as a local's address",
                                    self.span(a),
                                ))
                            }
                            _ => {
                                self.aliases.insert(key, array);
                            }
                        }
                        continue;
                    }
                }
                self.local_refs.insert((name.clone(), p.clone()));
                if self.aliases.contains_key(&(name.clone(), p.clone())) {
                    return Err(unsupported("a local's address passed to a parameter that is an array", self.span(a)));
                }
                let local = self.reference(a)?;
                if copy_out.iter().any(|(x, _)| *x == local) {
                    return Err(unsupported("the same variable passed by reference twice in one call", self.span(a)));
                }
                let l = self.label(span);
                steps.push(N::Simple(l, format!("{cw}.{p} := {local}")));
                copy_out.push((local, p.clone()));
                continue;
            }
            let split = self.frame.atomic == 0 && self.reads(a) > 1;
            let mut cx = Cx { split, pre: Vec::new(), span, arith: false };
            let v = self.expr(a, &mut cx)?;
            let v = if cx.arith || ty.bits < 32 { ty.wrap(&v) } else { v };
            steps.extend(cx.pre);
            let l = self.label(span);
            steps.push(N::Simple(l, format!("{cw}.{p} := {v}")));
        }
        let l = self.label(span);
        let call = N::Simple(l, format!("{cw}()"));
        if name.starts_with("__VERIFIER_atomic_") && self.frame.atomic == 0 {
            let a = self.label(span);
            steps.push(N::Atomic(a, vec![call]));
        } else {
            steps.push(call);
        }
        for (local, p) in copy_out {
            let l = self.label(span);
            steps.push(N::Simple(l, format!("{local} := {cw}.{p}")));
        }
        if let Some(t) = result {
            let r =
                ret.ok_or_else(|| error("C0419", format!("`{name}` returns no value"), span, "its value is used"))?;
            let l = self.label(span);
            let v = if t.ty.bits < 32 { t.ty.wrap(&format!("{cw}.{r}")) } else { format!("{cw}.{r}") };
            steps.push(N::Simple(l, format!("{} := {v}", t.cw)));
        }
        self.texts.insert(label.clone(), self.c_text(span));
        Ok(vec![N::NoReorder(label, steps)])
    }

    /// An array of integers indexed by a value that is not a constant: the elements' type and
    /// variables, and whether they are shared.
    fn computed_array(&self, b: &Node<lang_c::ast::BinaryOperatorExpression>) -> Option<(Ty, Vec<String>, bool)> {
        if self.const_eval(&b.node.rhs).is_some() {
            return None;
        }
        let E::Identifier(id) = &b.node.lhs.node else { return None };
        match self.lookup(&id.node.name) {
            Some(Var { kind: Kind::Array(ty, elems), shared, .. }) => Some((*ty, elems.clone(), *shared)),
            _ => None,
        }
    }

    /// The step `steps[k]` for the index value `k`: `if (idx == 0) { ... } else { if (idx == 1)
    /// ...`; an index out of the array's bounds cuts the path (a bound the reading reports).
    fn pick(&mut self, idx: &str, steps: Vec<String>, span: Span) -> Vec<N> {
        self.index_cut = true;
        // The index is read once, into a temporary, before the choice.
        let it = self.temp();
        let l = self.label(span);
        let first = N::Simple(l, format!("{it} := {idx}"));
        let idx = it;
        let l = self.label(span);
        let mut tail = vec![N::Simple(l, "assume(0)".to_owned())];
        for (k, step) in steps.into_iter().enumerate().rev() {
            let (l, i) = (self.label(span), self.label(span));
            tail = vec![N::If(i, format!("{idx} == {k}"), vec![N::Simple(l, step)], Some(tail))];
        }
        tail.insert(0, first);
        tail
    }

    /// The argument of a by-reference parameter: `&x` for a local `x` of the caller (private to
    /// its thread, so copying it in and out is exact).
    fn reference(&self, a: &Node<lang_c::ast::Expression>) -> Result<String, Diagnostic> {
        let bad = || unsupported("an `int *` argument that is not `&x` for a local `x` of the caller", self.span(a));
        let E::UnaryOperator(u) = &a.node else { return Err(bad()) };
        let E::Identifier(id) = &u.node.operand.node else { return Err(bad()) };
        if u.node.operator.node != U::Address || self.frame.consts.contains_key(&id.node.name) {
            return Err(bad());
        }
        match self.lookup(&id.node.name) {
            Some(Var { cw, kind: Kind::Scalar(_), shared: false }) => Ok(cw.clone()),
            _ => Err(bad()),
        }
    }

    /// `pthread_create(&t, attr, f, arg)`: a new static thread; the step sets its start flag.
    fn create(&mut self, args: &'a [Node<lang_c::ast::Expression>], span: Span) -> Result<Vec<N>, Diagnostic> {
        if self.frame.is_thread && !self.frame.is_main {
            return Err(unsupported("`pthread_create` in a thread other than `main`", span));
        }
        if !self.frame.is_main {
            // Checked when every call is known: the function runs once, called by `main`.
            self.creators.insert(self.frame.name.clone());
        }
        if self.frame.loops > 0 {
            return Err(unsupported("`pthread_create` in a loop that is not unrolled (no constant bound)", span));
        }
        let mut f = &args[2];
        if let E::UnaryOperator(u) = &f.node {
            if u.node.operator.node == U::Address {
                f = &u.node.operand;
            }
        }
        let E::Identifier(fid) = &f.node else {
            return Err(unsupported("a thread function that is not a name", self.span(f)));
        };
        let function = fid.node.name.clone();
        if !self.functions.contains_key(&function) {
            return Err(error("C0414", format!("`{function}` has no definition here"), self.span(f), "not read"));
        }
        if self.const_eval(&args[1]) != Some(0) {
            return Err(unsupported("thread attributes other than 0 or NULL", self.span(&args[1])));
        }
        let fdef = self.functions[&function];
        let takes_arg = !self.parameters(fdef, true)?.is_empty();
        let arg = if takes_arg {
            Some(self.const_eval(strip_casts(&args[3])).ok_or_else(|| {
                unsupported(
                    "a thread argument that is not a constant (or the variable of an unrolled `for` loop)",
                    self.span(&args[3]),
                )
            })?)
        } else {
            None
        };
        let k = self.instances.len();
        // A thread is named by its function and handle (`worker_t`, `worker_t_2` for `t[2]`),
        // so that a repair that moves a `pthread_create` renames nothing.
        let key = self.handle_key(&args[0], true)?;
        let handle = match key.1 {
            Some(i) => format!("{}_{i}", key.0),
            None => key.0.clone(),
        };
        let name = self.fresh(&format!("{function}_{handle}"));
        let start = self.fresh(&format!("started_{name}"));
        let done = self.fresh(&format!("done_{name}"));
        self.instances.push(Instance { name, function: function.clone(), arg, start: start.clone(), done, span });
        let key = self.scoped(key);
        self.handles.insert(key, k);
        self.use_function(&function, span, true)?;
        let label = self.label(span);
        self.texts.insert(label.clone(), self.c_text(span));
        Ok(vec![N::Simple(label, format!("{start} := 1"))])
    }

    /// The handle `t` (or `&t`, `t[i]`) as a key.
    fn handle_key(
        &self,
        e: &Node<lang_c::ast::Expression>,
        address: bool,
    ) -> Result<(String, Option<i64>), Diagnostic> {
        let span = self.span(e);
        let mut e = strip_casts(e);
        if address {
            match &e.node {
                E::UnaryOperator(u) if u.node.operator.node == U::Address => e = &u.node.operand,
                _ => return Err(unsupported("a thread handle that is not `&t` or `&t[i]`", span)),
            }
        }
        let bad = || {
            unsupported("a thread handle that is not a `pthread_t` variable (or an element, by a constant index)", span)
        };
        let (name, index) = match &e.node {
            E::Identifier(id) => (id.node.name.clone(), None),
            E::BinaryOperator(b) if b.node.operator.node == B::Index => match &b.node.lhs.node {
                E::Identifier(id) => (id.node.name.clone(), Some(self.const_eval(&b.node.rhs).ok_or_else(bad)?)),
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        match (self.lookup(&name).map(|v| &v.kind), index) {
            (Some(Kind::Handle), None) => Ok((name, None)),
            (Some(Kind::Handles(n)), Some(i)) if (0..*n as i64).contains(&i) => Ok((name, Some(i))),
            _ => Err(bad()),
        }
    }

    /// The key of a handle in [`Lower::handles`]: a local's names its function too.
    fn scoped(&self, key: (String, Option<i64>)) -> (String, String, Option<i64>) {
        let local = self.frame.scopes.iter().any(|s| s.contains_key(&key.0));
        (if local { self.frame.name.clone() } else { String::new() }, key.0, key.1)
    }

    fn handle(&self, e: &Node<lang_c::ast::Expression>, address: bool) -> Result<usize, Diagnostic> {
        let key = self.scoped(self.handle_key(e, address)?);
        self.handles.get(&key).copied().ok_or_else(|| {
            error(
                "C0420",
                "a join of a handle no `pthread_create` before it set",
                self.span(e),
                "which thread is this?",
            )
        })
    }

    fn mutex(&self, arg: Option<&Node<lang_c::ast::Expression>>, span: Span) -> Result<String, Diagnostic> {
        let bad =
            || unsupported("a mutex argument that is not `&m` for a global mutex `m` (or `&m[i]`, constant `i`)", span);
        let Some(a) = arg else { return Err(bad()) };
        let E::UnaryOperator(u) = &a.node else { return Err(bad()) };
        if u.node.operator.node != U::Address {
            return Err(bad());
        }
        match &u.node.operand.node {
            E::Identifier(id) => match self.lookup(&id.node.name) {
                Some(Var { cw, kind: Kind::Mutex, .. }) => Ok(cw.clone()),
                _ => Err(bad()),
            },
            E::BinaryOperator(b) if b.node.operator.node == B::Index => match self.element(b, span)? {
                (cw, Kind::Mutex, _) => Ok(cw),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }

    // ---- expressions ----

    fn is_nondet_call(&self, e: &Node<lang_c::ast::Expression>) -> bool {
        matches!(&e.node, E::Call(c) if matches!(&c.node.callee.node, E::Identifier(id) if id.node.name.starts_with("__VERIFIER_nondet_")))
    }

    /// How many shared reads an expression makes.
    fn reads(&self, e: &Node<lang_c::ast::Expression>) -> usize {
        match &e.node {
            E::Identifier(id) => usize::from(
                !self.frame.consts.contains_key(&id.node.name) && self.lookup(&id.node.name).is_some_and(|v| v.shared),
            ),
            E::UnaryOperator(u) => self.reads(&u.node.operand),
            E::Cast(c) => self.reads(&c.node.expression),
            E::BinaryOperator(b) if b.node.operator.node == B::Index => {
                let array = match &b.node.lhs.node {
                    E::Identifier(id) => usize::from(self.lookup(&id.node.name).is_some_and(|v| v.shared)),
                    _ => 0,
                };
                array + self.reads(&b.node.rhs)
            }
            E::BinaryOperator(b) => self.reads(&b.node.lhs) + self.reads(&b.node.rhs),
            E::Call(c) => c.node.arguments.iter().map(|a| self.reads(a)).sum(),
            _ => 0,
        }
    }

    fn expr(&mut self, e: &'a Node<lang_c::ast::Expression>, cx: &mut Cx) -> Result<String, Diagnostic> {
        let span = self.span(e);
        match &e.node {
            E::Identifier(id) => {
                let n = id.node.name.as_str();
                if let Some(v) = self.frame.consts.get(n) {
                    return Ok(lit(*v));
                }
                match n {
                    "true" => return Ok("1".into()),
                    "false" | "NULL" => return Ok("0".into()),
                    _ => {}
                }
                match self.lookup(n).cloned() {
                    Some(Var { cw, kind: Kind::Scalar(_), shared }) => Ok(self.read_var(&cw, shared, cx)),
                    Some(_) => Err(unsupported("this variable in an expression", span)),
                    None => Err(error("C0416", format!("`{n}` is not declared"), span, "unknown name")),
                }
            }
            E::Constant(c) => self.constant(c).map(lit),
            E::UnaryOperator(u) => {
                let op = u.node.operator.node.clone();
                match op {
                    U::Minus => {
                        cx.arith = true;
                        Ok(format!("(-{})", self.expr(&u.node.operand, cx)?))
                    }
                    U::Plus => self.expr(&u.node.operand, cx),
                    U::Negate => Ok(format!("(!{})", self.expr(&u.node.operand, cx)?)),
                    U::Complement => {
                        cx.arith = true;
                        Ok(format!("((-{}) - 1)", self.expr(&u.node.operand, cx)?))
                    }
                    U::Indirection => match &u.node.operand.node {
                        E::Identifier(id) => match self.lookup(&id.node.name) {
                            Some(Var { cw, kind: Kind::Ref(_), .. }) => Ok(cw.clone()),
                            _ => Err(unsupported("a pointer operation", span)),
                        },
                        _ => Err(unsupported("a pointer operation", span)),
                    },
                    U::Address => Err(unsupported("a pointer operation", span)),
                    _ => Err(unsupported("`++`/`--` inside an expression", span)),
                }
            }
            E::Cast(c) => {
                let ty = self.cast_type(&c.node.type_name)?;
                let v = self.expr(&c.node.expression, cx)?;
                Ok(match ty {
                    Some(ty) if ty.bits < 32 || !ty.signed => ty.wrap(&v),
                    _ => v,
                })
            }
            E::BinaryOperator(b) => {
                let op = match b.node.operator.node {
                    B::Index => {
                        if let Some((_, elems, _)) = self.computed_array(b) {
                            let idx = self.expr(&b.node.rhs, cx)?;
                            let t = self.temp();
                            let writes: Vec<String> = elems.iter().map(|e| format!("{t} := {e}")).collect();
                            let chain = self.pick(&idx, writes, cx.span);
                            cx.pre.extend(chain);
                            return Ok(t);
                        }
                        let (cw, kind, shared) = self.element(b, span)?;
                        return match kind {
                            Kind::Scalar(_) => Ok(self.read_var(&cw, shared, cx)),
                            _ => Err(unsupported("this element in an expression", span)),
                        };
                    }
                    B::Multiply => "*",
                    B::Divide => "/",
                    B::Modulo => "%",
                    B::Plus => "+",
                    B::Minus => "-",
                    B::Less => "<",
                    B::Greater => ">",
                    B::LessOrEqual => "<=",
                    B::GreaterOrEqual => ">=",
                    B::Equals => "==",
                    B::NotEquals => "!=",
                    B::LogicalAnd => "&&",
                    B::LogicalOr => "||",
                    _ => {
                        return Err(unsupported(
                            "this operator (bitwise operators, shifts and assignments inside expressions)",
                            span,
                        ))
                    }
                };
                if matches!(op, "*" | "/" | "%" | "+" | "-") {
                    cx.arith = true;
                }
                let logic = usize::from(matches!(op, "&&" | "||"));
                self.frame.logic += logic;
                let l = self.expr(&b.node.lhs, cx);
                let r = self.expr(&b.node.rhs, cx);
                self.frame.logic -= logic;
                Ok(format!("({} {op} {})", l?, r?))
            }
            E::Call(c) if self.is_nondet_call(e) => {
                let E::Identifier(id) = &c.node.callee.node else { unreachable!("a nondet call has a name") };
                let name = id.node.name.clone();
                let (mut lo, mut hi) = self.options.nondet;
                if name == "__VERIFIER_nondet_bool" {
                    (lo, hi) = (0, 1);
                } else {
                    self.nondet_used = true;
                    if name.contains("uint")
                        || name.contains("uchar")
                        || name.contains("ulong")
                        || name.contains("ushort")
                    {
                        lo = lo.max(0);
                        hi = hi.max(lo);
                    }
                }
                let t = self.temp();
                let choice = self.choice(&t, lo, hi, cx.span);
                cx.pre.extend(choice);
                Ok(t)
            }
            E::Call(c)
                if self.frame.logic == 0
                    && matches!(&c.node.callee.node, E::Identifier(id)
                        if self.functions.contains_key(&id.node.name) && !BUILTINS.contains(&id.node.name.as_str())) =>
            {
                // A user function's call inside an expression runs before the statement, its
                // result in a temporary (never under `&&` or `||`, which may skip it).
                let t = self.temp();
                let target = Target { cw: t.clone(), ty: Ty { bits: 64, signed: true }, shared: false, computed: None };
                let nodes = self.call(c, cx.span, Some(target), false)?;
                cx.pre.extend(nodes);
                Ok(t)
            }
            E::Call(c) => {
                let callee = match &c.node.callee.node {
                    E::Identifier(id) => format!("`{}`", id.node.name),
                    _ => "a function pointer".to_owned(),
                };
                Err(error(
                    "C0421",
                    format!("a call of {callee} inside an expression"),
                    span,
                    "only the program's own functions are called inside expressions (outside `&&` and `||`)",
                ))
            }
            E::StringLiteral(_) => Err(unsupported("a string", span)),
            E::Member(_) => Err(unsupported("a struct member", span)),
            E::Conditional(_) => Err(unsupported("`?:`", span)),
            E::Comma(_) => Err(unsupported("the comma operator", span)),
            E::SizeOfTy(_) | E::SizeOfVal(_) | E::AlignOf(_) => Err(unsupported("`sizeof`", span)),
            _ => Err(unsupported("this expression", span)),
        }
    }

    /// `t` set to a value from `lo` to `hi`, each a choice: nested `if (*)`.
    fn choice(&mut self, t: &str, lo: i64, hi: i64, span: Span) -> Vec<N> {
        let l = self.label(span);
        let set = N::Simple(l, format!("{t} := {}", lit(lo)));
        if lo >= hi {
            return vec![set];
        }
        let rest = self.choice(t, lo + 1, hi, span);
        let l = self.label(span);
        vec![N::If(l, "*".into(), vec![set], Some(rest))]
    }

    fn cast_type(&self, t: &Node<TypeName>) -> Result<Option<Ty>, Diagnostic> {
        let specs: Vec<Node<DeclarationSpecifier>> = t
            .node
            .specifiers
            .iter()
            .filter_map(|s| match &s.node {
                lang_c::ast::SpecifierQualifier::TypeSpecifier(ts) => {
                    Some(Node::new(DeclarationSpecifier::TypeSpecifier(ts.clone()), s.span))
                }
                _ => None,
            })
            .collect();
        let pointer = t.node.declarator.as_ref().is_some_and(|d| !d.node.derived.is_empty());
        if pointer {
            return Ok(None); // `(void *)`: the value passes unchanged (thread arguments)
        }
        match self.base_type(&specs)?.0 {
            Some(Base::Int(ty)) => Ok(Some(ty)),
            None => Ok(None),
            _ => Err(unsupported("this cast", self.span(t))),
        }
    }

    fn constant(&self, c: &Node<Constant>) -> Result<i64, Diagnostic> {
        match &c.node {
            Constant::Integer(i) => {
                let radix = match i.base {
                    IntegerBase::Decimal => 10,
                    IntegerBase::Octal => 8,
                    IntegerBase::Hexadecimal => 16,
                    IntegerBase::Binary => 2,
                };
                u64::from_str_radix(&i.number, radix).ok().and_then(|v| i64::try_from(v).ok()).ok_or_else(|| {
                    error("C0422", "integer literal out of range", self.span(c), "does not fit in 64 bits")
                })
            }
            Constant::Character(s) => {
                let inner = s.trim_start_matches('\'').trim_end_matches('\'');
                match inner.as_bytes() {
                    [b] => Ok(i64::from(*b)),
                    [b'\\', b'0'] => Ok(0),
                    [b'\\', b'n'] => Ok(10),
                    _ => Err(unsupported("this character constant", self.span(c))),
                }
            }
            Constant::Float(_) => Err(unsupported("a floating-point constant", self.span(c))),
        }
    }

    /// The value of a constant expression (literals, unrolled loop variables, `+ - * / %`,
    /// comparisons, casts).
    fn const_eval(&self, e: &Node<lang_c::ast::Expression>) -> Option<i64> {
        match &e.node {
            E::Constant(c) => self.constant(c).ok(),
            E::Identifier(id) => match id.node.name.as_str() {
                "NULL" | "false" => Some(0),
                "true" => Some(1),
                n => self.frame.consts.get(n).copied(),
            },
            E::Cast(c) => self.const_eval(&c.node.expression),
            E::UnaryOperator(u) if u.node.operator.node == U::Minus => {
                self.const_eval(&u.node.operand).map(i64::wrapping_neg)
            }
            E::UnaryOperator(u) if u.node.operator.node == U::Plus => self.const_eval(&u.node.operand),
            E::BinaryOperator(b) => {
                let (l, r) = (self.const_eval(&b.node.lhs)?, self.const_eval(&b.node.rhs)?);
                match b.node.operator.node {
                    B::Plus => l.checked_add(r),
                    B::Minus => l.checked_sub(r),
                    B::Multiply => l.checked_mul(r),
                    B::Divide => l.checked_div(r),
                    B::Modulo => l.checked_rem(r),
                    B::Less => Some(i64::from(l < r)),
                    B::Equals => Some(i64::from(l == r)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    // ---- output ----

    fn emit(&self, main: &Frame, body: &[N]) -> String {
        let mut text = String::new();
        let mut globals: Vec<String> = self.global_order.iter().map(|(n, v, _)| format!("{n} = {}", lit(*v))).collect();
        // Threads in the order of their names, which no repair changes.
        let mut instances: Vec<&Instance> = self.instances.iter().collect();
        instances.sort_by(|a, b| a.name.cmp(&b.name));
        for i in &instances {
            globals.push(format!("{} = 0", i.start));
            if self.joined.contains(&self.instances.iter().position(|x| x.name == i.name).unwrap_or(usize::MAX)) {
                globals.push(format!("{} = 0", i.done));
            }
        }
        if !globals.is_empty() {
            let _ = writeln!(text, "var {};", globals.join(", "));
        }
        let _ = writeln!(text, "thread main {{");
        locals(&mut text, main);
        for n in body {
            print_node(&mut text, n, 1);
        }
        text.push_str("}\n");
        for inst in instances {
            let cw = &self.procs[&inst.function];
            let _ = writeln!(text, "thread {} {{\n  {}_go: noreorder {{", inst.name, inst.name);
            let _ = writeln!(text, "    {}_start: await({} == 1);", inst.name, inst.start);
            if let (Some(v), Some((params, _))) = (inst.arg, self.params.get(&inst.function)) {
                if let Some((p, _)) = params.first() {
                    let _ = writeln!(text, "    {}_arg: {cw}.{p} := {};", inst.name, lit(v));
                }
            }
            let _ = writeln!(text, "    {}_run: {cw}();", inst.name);
            if self.joined.contains(&self.instances.iter().position(|i| i.name == inst.name).unwrap_or(usize::MAX)) {
                let _ = writeln!(text, "    {}_done: {} := 1;", inst.name, inst.done);
            }
            text.push_str("  }\n}\n");
        }
        // Procedures in the order of their names, which no repair changes.
        for p in self.proc_texts.values() {
            text.push_str(p);
        }
        text
    }
}

/// A parameter as declared: its C name, its type, whether it is an `int *` (by reference).
type Param = (String, Ty, bool);

/// A procedure's parameters (Cwhile name and type) and the local holding its result.
type Signature = (Vec<(String, Ty)>, Option<String>);

/// Where an assignment writes.
struct Target<'a> {
    cw: String,
    ty: Ty,
    shared: bool,
    /// For an element at a computed index: the index and every element's variable.
    computed: Option<(&'a Node<lang_c::ast::Expression>, Vec<String>)>,
}

#[derive(Clone, Copy)]
enum Base {
    Int(Ty),
    Mutex,
    Handle,
    Cond,
}

#[derive(Clone, Debug)]
enum Shape {
    Scalar,
    Array(usize),
    Function,
}

/// Whether a statement may `return` (outside loops, where a `return` is refused).
fn has_return(s: &Node<Statement>) -> bool {
    match &s.node {
        Statement::Return(_) => true,
        Statement::Labeled(l) => has_return(&l.node.statement),
        Statement::Compound(items) => items.iter().any(|i| matches!(&i.node, BlockItem::Statement(s) if has_return(s))),
        Statement::If(i) => {
            has_return(&i.node.then_statement) || i.node.else_statement.as_deref().is_some_and(has_return)
        }
        _ => false,
    }
}

/// Whether a statement may `break` or `continue` the loop around it (not one inside it).
fn has_jump(s: &Node<Statement>) -> bool {
    match &s.node {
        Statement::Break | Statement::Continue => true,
        Statement::Labeled(l) => has_jump(&l.node.statement),
        Statement::Compound(items) => items.iter().any(|i| matches!(&i.node, BlockItem::Statement(s) if has_jump(s))),
        Statement::If(i) => has_jump(&i.node.then_statement) || i.node.else_statement.as_deref().is_some_and(has_jump),
        _ => false,
    }
}

fn strip_casts(e: &Node<lang_c::ast::Expression>) -> &Node<lang_c::ast::Expression> {
    match &e.node {
        E::Cast(c) => strip_casts(&c.node.expression),
        _ => e,
    }
}

fn is_literal(v: &str) -> bool {
    v.parse::<i64>().is_ok_and(|n| n >= 0)
}

fn lit(v: i64) -> String {
    if v < 0 {
        format!("(-{})", v.unsigned_abs())
    } else {
        v.to_string()
    }
}

fn locals(text: &mut String, frame: &Frame) {
    if !frame.locals.is_empty() {
        let _ = writeln!(text, "  local {};", frame.locals.join(", "));
    }
}

fn print_node(text: &mut String, n: &N, depth: usize) {
    let pad = "  ".repeat(depth);
    match n {
        N::Simple(l, s) => {
            let _ = writeln!(text, "{pad}{l}: {s};");
        }
        N::If(l, c, t, e) => {
            let _ = writeln!(text, "{pad}{l}: if ({c}) {{");
            for x in t {
                print_node(text, x, depth + 1);
            }
            match e {
                Some(e) => {
                    let _ = writeln!(text, "{pad}}} else {{");
                    for x in e {
                        print_node(text, x, depth + 1);
                    }
                    let _ = writeln!(text, "{pad}}}");
                }
                None => {
                    let _ = writeln!(text, "{pad}}}");
                }
            }
        }
        N::While(l, c, b) => {
            let _ = writeln!(text, "{pad}{l}: while ({c}) {{");
            for x in b {
                print_node(text, x, depth + 1);
            }
            let _ = writeln!(text, "{pad}}}");
        }
        N::Atomic(l, b) | N::NoReorder(l, b) => {
            let kw = if matches!(n, N::Atomic(..)) { "atomic" } else { "noreorder" };
            let _ = writeln!(text, "{pad}{l}: {kw} {{");
            for x in b {
                print_node(text, x, depth + 1);
            }
            let _ = writeln!(text, "{pad}}}");
        }
    }
}

/// What a loop body does that asks for unrolling, and the variables it assigns.
#[derive(Default)]
struct Scan {
    /// It creates or joins threads.
    threads: bool,
    /// It indexes an array.
    index: bool,
    /// The names it assigns (`=`, `op=`, `++`, `--`).
    assigned: BTreeSet<String>,
}

impl<'ast> lang_c::visit::Visit<'ast> for Scan {
    fn visit_call_expression(&mut self, c: &'ast lang_c::ast::CallExpression, span: &'ast lang_c::span::Span) {
        if let E::Identifier(id) = &c.callee.node {
            self.threads |= matches!(id.node.name.as_str(), "pthread_create" | "pthread_join");
        }
        lang_c::visit::visit_call_expression(self, c, span);
    }

    fn visit_binary_operator_expression(
        &mut self,
        b: &'ast lang_c::ast::BinaryOperatorExpression,
        span: &'ast lang_c::span::Span,
    ) {
        let op = &b.operator.node;
        self.index |= *op == B::Index;
        let assigns = !matches!(
            op,
            B::Index
                | B::Multiply
                | B::Divide
                | B::Modulo
                | B::Plus
                | B::Minus
                | B::ShiftLeft
                | B::ShiftRight
                | B::Less
                | B::Greater
                | B::LessOrEqual
                | B::GreaterOrEqual
                | B::Equals
                | B::NotEquals
                | B::BitwiseAnd
                | B::BitwiseXor
                | B::BitwiseOr
                | B::LogicalAnd
                | B::LogicalOr
        );
        if let (true, E::Identifier(id)) = (assigns, &b.lhs.node) {
            self.assigned.insert(id.node.name.clone());
        }
        lang_c::visit::visit_binary_operator_expression(self, b, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast lang_c::ast::UnaryOperatorExpression,
        span: &'ast lang_c::span::Span,
    ) {
        let steps = matches!(
            u.operator.node,
            U::PostIncrement | U::PreIncrement | U::PostDecrement | U::PreDecrement | U::Address
        );
        if let (true, E::Identifier(id)) = (steps, &u.operand.node) {
            self.assigned.insert(id.node.name.clone());
        }
        lang_c::visit::visit_unary_operator_expression(self, u, span);
    }
}
