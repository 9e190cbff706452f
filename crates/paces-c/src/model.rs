//! The C model in the frontend's own terms: functions of simplified statements with their
//! labels, the shape both the reader ([`crate::read`]) and the lowering ([`crate::lower`])
//! share.

use paces_cwhile::Span;

/// A statement of a function body, with its label (from its source line) and span.
#[derive(Clone, Debug)]
pub(crate) struct S {
    pub(crate) label: String,
    pub(crate) span: Span,
    pub(crate) kind: K,
}

/// What a statement is. Expressions and simple statements are already Cwhile text.
#[derive(Clone, Debug)]
pub(crate) enum K {
    /// A simple Cwhile statement, such as `x := (x + 1)` (without label or `;`).
    Simple(String),
    /// `if (c) ... else ...`; `None` for a nondeterministic condition.
    If(Option<String>, Vec<S>, Option<Vec<S>>),
    /// `while (c) ...`.
    While(Option<String>, Vec<S>),
    /// `atomicBegin(); ... atomicEnd();` once grouped.
    Atomic(Vec<S>),
    /// `noReorderBegin(); ... noReorderEnd();` once grouped.
    NoReorder(Vec<S>),
    /// `return;` or `return e;` (the value's assignment to the return variable, as text).
    Return(Option<String>),
    /// A section marker before grouping.
    Marker(Marker),
}

/// The built-ins that open and close a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    AtomicBegin,
    AtomicEnd,
    NoReorderBegin,
    NoReorderEnd,
}

impl Marker {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Marker::AtomicBegin => "atomicBegin",
            Marker::AtomicEnd => "atomicEnd",
            Marker::NoReorderBegin => "noReorderBegin",
            Marker::NoReorderEnd => "noReorderEnd",
        }
    }
}

/// The name of the local that holds a function's return value: a C keyword, so that no name
/// of the model clashes with it.
pub(crate) const RET: &str = "return";

/// A function of the model.
#[derive(Clone, Debug)]
pub(crate) struct Function {
    pub(crate) name: String,
    pub(crate) span: Span,
    /// Parameter names (their Cwhile variables are in [`Function::param_vars`]).
    pub(crate) params: Vec<(String, Span)>,
    /// The Cwhile local holding each parameter (each thread has its own copy).
    pub(crate) param_vars: Vec<String>,
    /// Whether the function has a return value (a `return e;` sets one or a caller uses it),
    /// held in its Cwhile local [`RET`].
    pub(crate) returns: bool,
    /// Locals: name, span, constant initial value.
    pub(crate) locals: Vec<(String, Span)>,
    pub(crate) body: Vec<S>,
    /// Functions it calls, with the call's span.
    pub(crate) calls: Vec<(String, Span)>,
}
