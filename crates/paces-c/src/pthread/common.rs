//! The shared types of the pthread C lowering (`lower.rs` and the files beside it): the
//! lowering's state, the Cwhile nodes it builds, and small helpers on C syntax and literals.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use lang_c::ast::{BlockItem, Expression as E, FunctionDefinition, Statement};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};

use super::diag::error;
use super::options::Options;
use super::pre::Prepared;

/// Names Cwhile reserves; a C name among them gets a `_` appended.
pub(super) use crate::read::CWHILE_KEYWORDS as KEYWORDS;

/// Where every assertion and wait takes the guard `aborted == 1 || ` when an `abort()` or
/// `exit()` stands in an atomic block (see `Lower::aborted`), else nothing.
pub(super) const GUARD: &str = "\u{1}";

/// The most iterations a `for` loop is unrolled to (one thread per iteration).
pub(super) const MAX_UNROLL: i64 = 64;
/// The most elements of an array of values or mutexes (each is a Cwhile variable).
pub(super) const MAX_ELEMENTS: usize = 4096;

/// An integer type: its width in bits and whether it is signed (`_Bool`: width 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ty {
    pub(super) bits: u32,
    pub(super) signed: bool,
}

pub(super) const INT: Ty = Ty { bits: 32, signed: true };
pub(super) const BOOL: Ty = Ty { bits: 1, signed: false };

impl Ty {
    /// `v` brought into the type's range (C's conversion: modulo 2^bits, two's complement).
    pub(super) fn wrap(self, v: &str) -> String {
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

/// A thread-local global (`tls.rs`): its Cwhile name (each function's local), type and
/// initial value.
#[derive(Clone, Debug)]
pub(super) struct ThreadLocal {
    pub(super) cw: String,
    pub(super) ty: Ty,
    pub(super) init: i64,
}

/// What a C name stands for.
#[derive(Clone, Debug)]
pub(super) enum Kind {
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
    /// A struct: its fields (`structs.rs`), each also visible as `name.field`.
    Struct(Vec<(String, Var)>),
    /// A pointer set to the address of the struct variable named here (`p->f` is its field).
    Points(String),
    /// A pointer whose target changes (`pointsto.rs`): the variable holds its target's number
    /// (0: NULL); the pointee's type (an integer's) and the targets.
    Ptr(Option<Ty>, Vec<Addr>),
    /// An array of structs (`struct_arrays.rs`): one array per field (a nested struct's fields
    /// are arrays of their own), each also visible as `name.field`.
    Structs(Vec<(String, Var)>),
    /// A pointer to an element of an array of structs (`struct_arrays.rs`): the variable
    /// holds the element's index; the array's C name and variable.
    Element(String, Box<Var>),
}

#[derive(Clone, Debug)]
pub(super) struct Var {
    /// The Cwhile name (for an array, unused).
    pub(super) cw: String,
    pub(super) kind: Kind,
    pub(super) shared: bool,
}

/// A Cwhile statement with its label (whose C span `Lower::spans` holds).
#[derive(Clone, Debug)]
pub(super) enum N {
    Simple(String, String),
    If(String, String, Vec<N>, Option<Vec<N>>),
    While(String, String, Vec<N>),
    Atomic(String, Vec<N>),
    NoReorder(String, Vec<N>),
}

impl N {
    /// The node's label.
    pub(super) fn label_mut(&mut self) -> &mut String {
        match self {
            N::Simple(l, _) | N::If(l, ..) | N::While(l, ..) | N::Atomic(l, _) | N::NoReorder(l, _) => l,
        }
    }
}

/// One thread that a `pthread_create` starts.
pub(super) struct Instance {
    /// The Cwhile thread's name.
    pub(super) name: String,
    /// Its name in the source's terms: the function and the handle (`worker t[0]`).
    pub(super) shown: String,
    pub(super) function: String,
    /// The constant argument, when the function takes one.
    pub(super) arg: Option<i64>,
    pub(super) start: String,
    pub(super) done: String,
    pub(super) span: Span,
}

/// A lowered function body item: nodes, or an atomic-section marker.
pub(super) enum Item {
    Nodes(Vec<N>),
    Begin(Span),
    End(Span),
}

/// What an expression is lowered in.
pub(super) struct Cx {
    /// Shared reads go through temporaries, each its own step (else they stay in the
    /// expression, which is then one step).
    pub(super) split: bool,
    /// The steps before the statement's own: the temporaries' reads and choices.
    pub(super) pre: Vec<N>,
    pub(super) span: Span,
    /// Whether the value needs wrapping into its type (arithmetic happened).
    pub(super) arith: bool,
}

/// The function being lowered.
#[derive(Default)]
pub(super) struct Frame {
    pub(super) name: String,
    pub(super) scopes: Vec<BTreeMap<String, Var>>,
    /// Loop variables of unrolled loops: their constant value in this iteration.
    pub(super) consts: BTreeMap<String, i64>,
    /// The Cwhile locals declared.
    pub(super) locals: Vec<String>,
    /// The initial values of the locals that do not start at 0 (a thread-local global's copy).
    pub(super) local_inits: BTreeMap<String, i64>,
    /// Temporaries handed out for the current statement, and the most ever.
    pub(super) temps: usize,
    pub(super) temp_names: Vec<String>,
    pub(super) is_main: bool,
    pub(super) is_thread: bool,
    pub(super) atomic: usize,
    pub(super) loops: usize,
    /// How many `&&` and `||` operands the expression being lowered lies in.
    pub(super) logic: usize,
    /// The flag a `return` before the function's end sets.
    pub(super) returned: Option<String>,
    /// For each loop around the statement, the flag its `break` and `continue` set.
    pub(super) jumps: Vec<Option<String>>,
    /// The labels a forward `goto` of an enclosing block jumps to, each with the flag the
    /// jump sets (`Lower::forward_goto`).
    pub(super) forward: BTreeMap<String, String>,
    /// Whether the function returns a value (its Cwhile local `result__`-like name).
    pub(super) result: Option<String>,
    /// The function's return type (`int` when it is not an integer type of its own).
    pub(super) result_ty: Option<Ty>,
}

pub(super) struct Lower<'a> {
    pub(super) source: &'a str,
    pub(super) prep: &'a Prepared,
    pub(super) options: &'a Options,
    pub(super) globals: BTreeMap<String, Var>,
    /// Globals in declaration order: Cwhile name and initial value.
    pub(super) global_order: Vec<(String, i64, Span)>,
    pub(super) typedefs: BTreeMap<String, Ty>,
    pub(super) functions: BTreeMap<String, &'a Node<FunctionDefinition>>,
    pub(super) taken: BTreeSet<String>,
    pub(super) lines: BTreeMap<usize, u32>,
    pub(super) line_starts: Vec<usize>,
    pub(super) spans: BTreeMap<String, Span>,
    pub(super) texts: BTreeMap<String, String>,
    /// The labels made in a copy of an unrolled loop's body, each with the copy: the loop
    /// variables' values (`i = 0`), shown with the step ([`paces_cwhile::ir::SourceStep::copy`]).
    pub(super) copies: BTreeMap<String, String>,
    pub(super) instances: Vec<Instance>,
    pub(super) handles: BTreeMap<(String, String, Option<i64>), usize>,
    /// The functions other than `main` that create threads, each with its first create.
    pub(super) creators: BTreeMap<String, Span>,
    /// The functions whose address the program takes (`fn_pointers.rs`).
    pub(super) fn_targets: BTreeSet<String>,
    /// The name of `main`'s `argv`, when it has one (`argv.rs`).
    pub(super) argv: Option<String>,
    pub(super) joined: BTreeSet<usize>,
    /// The labels of the steps that make the threads' structure (a `pthread_create`'s start
    /// flag, a `pthread_join`'s wait), and of the items a statement's steps were grouped in
    /// under such a label: the program's `thread_structure`.
    pub(super) thread_steps: BTreeSet<String>,
    /// Procedures to lower, and lowered: name to (Cwhile name, text).
    pub(super) procs: BTreeMap<String, String>,
    /// Each lowered procedure's Cwhile text.
    pub(super) proc_texts: BTreeMap<String, String>,
    pub(super) pending: Vec<String>,
    /// Calls between functions, for recursion: (caller, callee, span).
    pub(super) calls: Vec<(String, String, Span, bool)>,
    pub(super) frame: Frame,
    pub(super) nondet_used: bool,
    /// Each procedure's Cwhile parameter and result names.
    pub(super) params: BTreeMap<String, Signature>,
    /// The `int *` parameters that stand for a global array: (function, parameter) to its name.
    pub(super) aliases: BTreeMap<(String, String), String>,
    /// The `int *` parameters some call passed a local's address.
    pub(super) local_refs: BTreeSet<(String, String)>,
    /// Whether an array index out of bounds cuts a path somewhere (a bound).
    pub(super) index_cut: bool,
    /// Whether a loop that creates threads is cut after its rounds somewhere (a bound).
    pub(super) rounds_cut: bool,
    /// Whether a `for` of more than [`MAX_UNROLL`] creations or joins runs only its first
    /// rounds somewhere (a bound).
    pub(super) prefix_cut: bool,
    /// Every identifier some function's body names.
    pub(super) used: BTreeSet<String>,
    /// The flag an `abort()` or `exit()` inside an atomic block sets.
    pub(super) aborted: Option<String>,
    /// The by-reference parameters: (function, Cwhile parameter).
    pub(super) by_ref: BTreeSet<(String, String)>,
    /// Each procedure's parameters' C names.
    pub(super) c_params: BTreeMap<String, Vec<String>>,
    /// The thread-local globals, by C name (`tls.rs`).
    pub(super) thread_locals: BTreeMap<String, ThreadLocal>,
    /// The struct types the file defines (`structs.rs`), by tag, by the offset of their
    /// definition, and by typedef name.
    pub(super) struct_defs: Vec<&'a Node<lang_c::ast::StructType>>,
    pub(super) struct_tags: BTreeMap<String, usize>,
    pub(super) struct_at: BTreeMap<usize, usize>,
    pub(super) struct_typedefs: BTreeMap<String, usize>,
    /// The offsets (in the prepared text) of the `__thread` keywords the parser read as `static`.
    pub(super) thread_local_at: Vec<usize>,
    /// The pointer parameters of each bound copy of a function (`pointers.rs`), by its key.
    pub(super) bindings: BTreeMap<String, Vec<(usize, String)>>,
    /// For each function, the thread-local globals it holds a copy of.
    pub(super) thread_local_uses: BTreeMap<String, BTreeSet<String>>,
    /// The mutexes that know their owner, by Cwhile name: whether recursive (else
    /// error-checking), the key of their thread-local count in `thread_locals`, and their C
    /// name (`mutexattr.rs`).
    pub(super) mutex_types: BTreeMap<String, (bool, String, String)>,
    /// Where each pointer may point (`ptrflow.rs`).
    pub(super) flow: super::ptrflow::Flow,
    /// The variables of the locals whose address another function holds (`pointsto.rs`), by
    /// function and name.
    pub(super) escaped_vars: BTreeMap<(Option<String>, String), Var>,
}

/// One variable a modelled pointer may point to (`Kind::Ptr`): its number, the function it
/// is a local of (`None`: a global), and its C name.
#[derive(Clone, Debug)]
pub(super) struct Addr {
    pub(super) id: i64,
    pub(super) owner: Option<String>,
    pub(super) name: String,
}

pub(super) fn unsupported(what: &str, span: Span) -> Diagnostic {
    error("C0410", format!("{what} is not read (pthread C)"), span, "not supported")
}

/// Functions whose calls the frontend reads itself (a definition of one in the file is not
/// read: SV-COMP's files define some of them with the meaning the frontend gives them).
pub(super) const BUILTINS: &[&str] = &[
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

/// A parameter as declared: its C name, its type, whether it is an `int *` (by reference).
pub(super) type Param = (String, Ty, bool);

/// A procedure's parameters (Cwhile name and type) and the local holding its result.
pub(super) type Signature = (Vec<(String, Ty)>, Option<String>);

/// Where an assignment writes.
pub(super) struct Target<'a> {
    pub(super) cw: String,
    pub(super) ty: Ty,
    pub(super) shared: bool,
    /// For an element at a computed index: the index and every element's variable.
    pub(super) computed: Option<(&'a Node<lang_c::ast::Expression>, Vec<String>)>,
}

#[derive(Clone, Copy)]
pub(super) enum Base {
    Int(Ty),
    Mutex,
    Handle,
    Cond,
    /// A struct type: its index in `Lower::struct_defs`.
    Struct(usize),
}

#[derive(Clone, Debug)]
pub(super) enum Shape {
    Scalar,
    Array(usize),
    Function,
}

/// Whether a statement may `return`.
pub(super) fn has_return(s: &Node<Statement>) -> bool {
    match &s.node {
        Statement::Return(_) => true,
        Statement::Labeled(l) => has_return(&l.node.statement),
        Statement::Compound(items) => items.iter().any(|i| matches!(&i.node, BlockItem::Statement(s) if has_return(s))),
        Statement::If(i) => {
            has_return(&i.node.then_statement) || i.node.else_statement.as_deref().is_some_and(has_return)
        }
        Statement::Switch(sw) => has_return(&sw.node.statement),
        Statement::While(w) => has_return(&w.node.statement),
        Statement::DoWhile(d) => has_return(&d.node.statement),
        Statement::For(f) => has_return(&f.node.statement),
        _ => false,
    }
}

/// Whether a statement may `break` or `continue` the loop around it (not one inside it).
pub(super) fn has_jump(s: &Node<Statement>) -> bool {
    first_jump(s).is_some()
}

/// The first `break` or `continue` of a statement that leaves it (not one of a loop inside it).
pub(super) fn first_jump(s: &Node<Statement>) -> Option<&Node<Statement>> {
    match &s.node {
        Statement::Break | Statement::Continue => Some(s),
        Statement::Labeled(l) => first_jump(&l.node.statement),
        Statement::Compound(items) => items.iter().find_map(|i| match &i.node {
            BlockItem::Statement(s) => first_jump(s),
            _ => None,
        }),
        Statement::If(i) => {
            first_jump(&i.node.then_statement).or_else(|| i.node.else_statement.as_deref().and_then(first_jump))
        }
        _ => None,
    }
}

pub(super) fn strip_casts(e: &Node<lang_c::ast::Expression>) -> &Node<lang_c::ast::Expression> {
    match &e.node {
        E::Cast(c) => strip_casts(&c.node.expression),
        _ => e,
    }
}

pub(super) fn is_literal(v: &str) -> bool {
    v.parse::<i64>().is_ok_and(|n| n >= 0)
}

pub(super) fn lit(v: i64) -> String {
    if v < 0 {
        format!("(-{})", v.unsigned_abs())
    } else {
        v.to_string()
    }
}

pub(super) fn locals(text: &mut String, frame: &Frame) {
    if !frame.locals.is_empty() {
        let names: Vec<String> = frame
            .locals
            .iter()
            .map(|l| match frame.local_inits.get(l) {
                Some(v) if *v != 0 => format!("{l} = {v}"),
                _ => l.clone(),
            })
            .collect();
        let _ = writeln!(text, "  local {};", names.join(", "));
    }
}

pub(super) fn print_node(text: &mut String, n: &N, depth: usize) {
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

/// The identifiers a statement names.
#[derive(Default)]
pub(super) struct Names(pub(super) BTreeSet<String>);

impl<'ast> lang_c::visit::Visit<'ast> for Names {
    fn visit_identifier(&mut self, i: &'ast lang_c::ast::Identifier, _: &'ast lang_c::span::Span) {
        // A member access written as a name (`s.f`, `p->f`, `members.rs`) names its variable too.
        if let Some(base) = i.name.split(['.', '-']).next().filter(|b| b.len() < i.name.len()) {
            self.0.insert(base.to_owned());
        }
        self.0.insert(i.name.clone());
    }
}

/// A struct field's or a type name's type specifiers, as a declaration's (for `base_type`).
pub(super) fn type_specifiers(
    specs: &[Node<lang_c::ast::SpecifierQualifier>],
) -> Vec<Node<lang_c::ast::DeclarationSpecifier>> {
    specs
        .iter()
        .filter_map(|s| match &s.node {
            lang_c::ast::SpecifierQualifier::TypeSpecifier(t) => {
                Some(Node::new(lang_c::ast::DeclarationSpecifier::TypeSpecifier(t.clone()), s.span))
            }
            _ => None,
        })
        .collect()
}
