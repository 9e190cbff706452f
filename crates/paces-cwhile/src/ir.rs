//! The IR: the form of a Cwhile program that the model checker, the space and the printer use.
//!
//! Statements and blocks live in arenas of the [`Program`] and are named by ids. Every
//! statement has a label and a [`Loc`]; the steps that a sugar adds (the `assume` of
//! `if (b)`, the `await` of `lock`) have derived labels and locations of their own (see
//! `docs/language.md`). Blocks use the same [`BlockId`]s as the program's [`Space`](paces_constraint::Space).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use paces_constraint::{BlockId, Loc, Waits};
use rustc_hash::FxHashMap;

/// A byte range in the source text (`start..end`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

paces_constraint::define_id!(
    /// A statement of the program (index into [`Parts::stmts`]).
    StmtId,
    "s"
);
paces_constraint::define_id!(
    /// A variable (index into [`Parts::vars`]): a global, a thread's local or a procedure's
    /// local (each thread has its own copy of a procedure's locals at run time).
    VarIdx,
    "v"
);
paces_constraint::define_id!(
    /// A thread (index into [`Parts::threads`]), in declaration order.
    ThreadIdx,
    "t"
);
paces_constraint::define_id!(
    /// A procedure (index into [`Parts::procs`]), in declaration order.
    ProcIdx,
    "p"
);

/// Where a variable is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarScope {
    /// A shared variable.
    Global,
    /// A local of a thread.
    Thread(ThreadIdx),
    /// A local of a procedure (one copy per calling thread).
    Proc(ProcIdx),
}

/// A declared variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Its initial value.
    pub init: i64,
    /// Where it is declared.
    pub scope: VarScope,
    /// Where it is declared in the source.
    pub span: Span,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `|` (bitwise, on 64-bit two's complement)
    BitOr,
    /// `^` (bitwise exclusive or)
    BitXor,
    /// `&` (bitwise)
    BitAnd,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<<` (wrapping; an amount outside 0..=63 makes the trace bad)
    Shl,
    /// `>>` (arithmetic: the sign bit is copied; an amount outside 0..=63 makes the trace bad)
    Shr,
    /// `+` (wrapping)
    Add,
    /// `-` (wrapping)
    Sub,
    /// `*` (wrapping)
    Mul,
    /// `/` (division by zero makes the trace bad)
    Div,
    /// `%` (remainder by zero makes the trace bad)
    Rem,
}

impl BinOp {
    /// Its precedence level, from 1 (`||`, the loosest) to 10 (`* / %`, the tightest), in
    /// C's order: `||`, `&&`, `|`, `^`, `&`, `== !=`, `< <= > >=`, `<< >>`, `+ -`, `* / %`.
    /// The operators of one level chain: `a + b - c` is one [`Chain`].
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::BitOr => 3,
            BinOp::BitXor => 4,
            BinOp::BitAnd => 5,
            BinOp::Eq | BinOp::Ne => 6,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 7,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
        }
    }

    /// The highest [`BinOp::precedence`] level: a unary operator binds tighter.
    pub const MAX_PRECEDENCE: u8 = 10;

    /// How it is written: the same in Cwhile, in the C dialect and in Promela.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
        }
    }
}

/// Why an operation has no value: the trace that evaluates it is bad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// `/` or `%` by zero.
    DivisionByZero,
    /// `<<` or `>>` by an amount outside 0..=63.
    ShiftAmount,
}

impl BinOp {
    /// The value of `a op b` on 64-bit two's complement integers: `+ - *` and `<<` wrap, `>>`
    /// is arithmetic, comparisons and `&& ||` give 0 or 1 (both operands evaluated: the
    /// short circuit is the caller's).
    ///
    /// # Errors
    /// [`Fault::DivisionByZero`] for `/` or `%` by zero, [`Fault::ShiftAmount`] for a shift by
    /// an amount outside 0..=63.
    pub fn apply(self, a: i64, b: i64) -> Result<i64, Fault> {
        Ok(match self {
            BinOp::Or => i64::from(a != 0 || b != 0),
            BinOp::And => i64::from(a != 0 && b != 0),
            BinOp::BitOr => a | b,
            BinOp::BitXor => a ^ b,
            BinOp::BitAnd => a & b,
            BinOp::Eq => i64::from(a == b),
            BinOp::Ne => i64::from(a != b),
            BinOp::Lt => i64::from(a < b),
            BinOp::Le => i64::from(a <= b),
            BinOp::Gt => i64::from(a > b),
            BinOp::Ge => i64::from(a >= b),
            BinOp::Shl | BinOp::Shr if !(0..64).contains(&b) => return Err(Fault::ShiftAmount),
            BinOp::Shl => a.wrapping_shl(b as u32),
            BinOp::Shr => a >> b,
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div | BinOp::Rem if b == 0 => return Err(Fault::DivisionByZero),
            BinOp::Div => a.wrapping_div(b),
            BinOp::Rem => a.wrapping_rem(b),
        })
    }
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `!`
    Not,
    /// `-` (wrapping)
    Neg,
}

/// An expression. `true` and `false` are the literals 1 and 0 (kept apart for printing).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// An integer literal.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// A variable.
    Var(VarIdx),
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// Binary operations of one precedence level, left-associative: `a - b + c` is
    /// `(a - b) + c`. A long flat expression such as `1 + 1 + ... + 1` is one chain, so an
    /// expression is only as deep as its genuine nesting.
    Chain(Box<Chain>),
}

impl Expr {
    /// `a op b`. When `a` is a chain of `op`'s precedence level, `b` extends it (the meaning
    /// is the same, `(a1 op1 a2) op b`), so chains built operator by operator stay flat.
    pub fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
        match a {
            Expr::Chain(mut chain) if chain.level() == op.precedence() => {
                chain.links.push((op, b));
                Expr::Chain(chain)
            }
            a => Expr::Chain(Box::new(Chain { first: a, links: vec![(op, b)] })),
        }
    }
}

/// A left-associative chain `first op1 e1 op2 e2 ...` of at least one binary operation, all
/// of one precedence level; made by [`Expr::binary`]. It means
/// `((first op1 e1) op2 e2) ...`, evaluated left to right.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chain {
    first: Expr,
    /// Never empty; every operator of one precedence level.
    links: Vec<(BinOp, Expr)>,
}

impl Chain {
    /// The leftmost operand.
    pub fn first(&self) -> &Expr {
        &self.first
    }

    /// Each operator with its right operand, left to right (at least one).
    pub fn links(&self) -> &[(BinOp, Expr)] {
        &self.links
    }

    /// The precedence level of every operator of the chain ([`BinOp::precedence`]).
    pub fn level(&self) -> u8 {
        self.links[0].0.precedence()
    }
}

/// A simple step that a sugar adds, with its derived label and location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The derived label (see `docs/language.md`).
    pub label: String,
    /// Its location.
    pub loc: Loc,
    /// The condition (for a guard, `assume(cond)`; for an await, `await(cond)`) or the
    /// assigned value, depending on the sugar.
    pub expr: Expr,
}

/// The condition of an `if` or a `while`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `*`: a nondeterministic choice, not a step.
    Star,
    /// `b`: sugar; `then_guard` is the `assume(b)` step that opens the first branch (or the
    /// loop body), `else_guard` the `assume(!b)` step that opens the else branch (or follows
    /// the loop). The guards' `expr` are `b` and `!b`.
    Expr {
        /// The condition as written.
        cond: Expr,
        /// `assume(b)`.
        then_guard: Step,
        /// `assume(!b)`.
        else_guard: Step,
    },
}

/// What a statement is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `x := e;`
    Assign {
        /// The variable written.
        var: VarIdx,
        /// The value.
        expr: Expr,
    },
    /// `assume(b);`
    Assume(Expr),
    /// `await(b);`
    Await(Expr),
    /// `assert(b);`, or `assertd(b);` when its statement is in [`Parts::assertd`].
    Assert(Expr),
    /// `skip;`
    Skip,
    /// `if (c) { then } else { otherwise }`; `otherwise` is `None` when not written (for a
    /// condition `b`, the else guard `assume(!b)` still runs when the branch is not taken).
    If {
        /// The condition.
        cond: Cond,
        /// The first branch.
        then_block: BlockId,
        /// The `else` branch, when written.
        else_block: Option<BlockId>,
    },
    /// `while (c) { body }`.
    While {
        /// The condition.
        cond: Cond,
        /// The loop body.
        body: BlockId,
    },
    /// `atomic { body }`.
    Atomic(BlockId),
    /// `noreorder { body }`.
    NoReorder(BlockId),
    /// `NAME();`
    Call(ProcIdx),
    /// `lock(m);` = `atomic { await(m == 0); m := 1; }`; the two steps as derived steps.
    Lock {
        /// The lock variable.
        var: VarIdx,
        /// `await(m == 0)`.
        wait: Step,
        /// `m := 1` (its `expr` is the value 1).
        set: Step,
    },
    /// `unlock(m);` = `m := 0;` (one step: the statement itself).
    Unlock(VarIdx),
    /// `down(s);` = `atomic { await(s > 0); s := s - 1; }`.
    Down {
        /// The semaphore.
        var: VarIdx,
        /// `await(s > 0)`.
        wait: Step,
        /// `s := s - 1` (its `expr` is `s - 1`).
        set: Step,
    },
    /// `up(s);` = `s := s + 1;` (one step: the statement itself).
    Up(VarIdx),
}

impl StmtKind {
    /// The blocks directly inside the statement, in source order (an `if`'s branches, the
    /// body of a loop, `atomic` or `noreorder`); none for a simple statement.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = BlockId> {
        let (first, second) = match self {
            StmtKind::If { then_block, else_block, .. } => (Some(*then_block), *else_block),
            StmtKind::While { body, .. } | StmtKind::Atomic(body) | StmtKind::NoReorder(body) => (Some(*body), None),
            _ => (None, None),
        };
        first.into_iter().chain(second)
    }
}

/// A statement: an item of the block it stands in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// Its label (explicit, or generated `OWNER.N`).
    pub label: String,
    /// Whether the label was written in the source.
    pub explicit_label: bool,
    /// Its location.
    pub loc: Loc,
    /// What it is.
    pub kind: StmtKind,
    /// The block it is an item of.
    pub block: BlockId,
    /// Where it is in the source (for programs built by [`Program::apply`], the span of the
    /// same statement in the original source).
    pub span: Span,
}

/// Who owns a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// A thread.
    Thread(ThreadIdx),
    /// A procedure.
    Proc(ProcIdx),
}

/// A block: statements between one pair of braces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Its items in program order.
    pub items: Vec<StmtId>,
    /// The thread or procedure it belongs to.
    pub owner: Owner,
    /// The compound statement whose body it is (`None` for a thread or procedure body).
    pub parent: Option<StmtId>,
    /// Whether it is closed to atomic sections: it lies inside a user-written `atomic`, or a
    /// frontend closed it (the C frontend closes the `noreorder` of a call, one C statement).
    pub in_atomic: bool,
}

/// A thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// Its name.
    pub name: String,
    /// Its locals.
    pub locals: Vec<VarIdx>,
    /// Its body.
    pub body: BlockId,
    /// Where it is declared.
    pub span: Span,
}

/// A procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proc {
    /// Its name.
    pub name: String,
    /// Its locals.
    pub locals: Vec<VarIdx>,
    /// Its body.
    pub body: BlockId,
    /// Where it is declared.
    pub span: Span,
}

/// What a [`Program`] is made of: its variables, threads, procedures, statements, blocks and
/// location names. A program's parts are read as its fields (`program.stmts`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Parts {
    /// All variables: globals first (in declaration order), then locals.
    pub vars: Vec<Var>,
    /// Threads in declaration order.
    pub threads: Vec<Thread>,
    /// Procedures in declaration order.
    pub procs: Vec<Proc>,
    /// Every statement.
    pub stmts: Vec<Stmt>,
    /// Every block, indexed by [`BlockId`].
    pub blocks: Vec<Block>,
    /// Location names, indexed by [`Loc`] (statement labels and derived step labels).
    pub loc_names: Vec<String>,
    /// Per statement label, the statement as its source writes it, where a frontend other
    /// than Cwhile's gives one (the C frontend: the statement's C text). Traces and reports
    /// show it beside the label instead of the Cwhile step ([`Program::step_text`]); a program
    /// made by [`Program::apply`] keeps it.
    pub source_texts: BTreeMap<String, String>,
    /// Per location name (a statement's label or a derived step's, `8.wait`), the statement
    /// of the source the step belongs to, where a frontend other than Cwhile's gives one (the
    /// C frontends give one for every step, the steps they add among them). Traces show a step
    /// by it ([`Program::source_step`]); a program made by [`Program::apply`] keeps it.
    pub source_steps: BTreeMap<String, SourceStep>,
    /// Per thread name, the name traces show the thread by, where a frontend other than
    /// Cwhile's gives one in the source's terms (pthread C: `worker t[0]`, the thread function
    /// and the handle); [`Program::thread_name`]. A program made by [`Program::apply`] keeps it.
    pub source_threads: BTreeMap<String, String>,
    /// The assertions written `assertd(b);`: the same check as `assert(b);`, but without a
    /// place of their own (the items of their block may move across them, where an `assert`
    /// is a fixed point of its block's order).
    pub assertd: BTreeSet<StmtId>,
    /// The statements that make the threads' structure: a frontend's steps that start a thread
    /// or wait for one to end (the pthread frontend's `pthread_create` and `pthread_join`, and
    /// a created thread's wait for its create: a thread whose entry only waits at such marks
    /// and cannot take one was never started, and the checker lets it stop there).
    /// The repair keeps it: an item that is or holds one keeps its order with every other such
    /// item and with every item of its block other than assignments (calls, loops, branches,
    /// waits), and no added atomic section holds it ([`Program::space`]). Cwhile's own syntax
    /// has no such statement, so a parsed program marks none; [`Program::apply`] keeps the
    /// marks.
    pub thread_structure: BTreeSet<StmtId>,
}

/// Where a step stands in the source a frontend read (a C file), and how the source writes
/// the statement it belongs to: the steps a frontend adds for a statement (the temporaries of
/// `hits = hits + 1`, the guard and counter of a `for`, a lock's wait) belong to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceStep {
    /// The statement's line (from 1).
    pub line: u32,
    /// The byte offset where the statement starts: the steps of one statement share it, so
    /// that two statements on one line stay apart.
    pub start: u32,
    /// The byte offset where the shown text ends (the statement's, or its header's: `for`,
    /// `while`, `if` show their keyword and condition).
    pub end: u32,
    /// The statement as the source writes it (`hits = hits + 1`, `for (i = 0; i < 2; i++)`).
    pub text: String,
    /// For a step of one copy of an unrolled loop's body, which copy: the values the loop
    /// variables have in it (`i = 0`, `i = 1, j = 0` for nested loops). Steps of one statement
    /// in different copies are different rows of a trace; [`Program::step_text`] shows the
    /// copy after the text (`pthread_create(&t[i], 0, worker, 0)  [i = 0]`).
    pub copy: Option<String>,
}

/// A Cwhile program (checked, when [`parse`](crate::parse) made it): its [`Parts`] and a
/// cache of facts derived from them (read and write sets, weights, section roles, lookup
/// tables), computed on first use.
///
/// The parts are read-only once they form a program: they are read as fields through
/// `Deref` (`program.stmts`, `program.loc_names`), and nothing hands out a mutable reference
/// to them. A program built by hand is made with [`Program::new`]; to change one, take it
/// apart with [`Program::into_parts`] and build a new one. So a program's cache always
/// belongs to the parts it was made with and can never be stale. This is the smallest design
/// that guarantees it: readers keep plain field access, and nothing needs to edit a program
/// in place (a transformed program is a new one, [`Program::apply`]).
///
/// ```compile_fail
/// let mut program = paces_cwhile::parse("thread t { skip; }").unwrap();
/// program.loc_names.clear(); // the parts of a program cannot be changed in place
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Program {
    parts: Parts,
    derived: Derived,
}

impl Program {
    /// The program made of `parts`, its cache empty. The parts are taken as they are, not
    /// checked as [`parse`](crate::parse) checks text.
    pub fn new(parts: Parts) -> Program {
        Program { parts, derived: Derived::default() }
    }

    /// The parts of the program, to change and build a new program from.
    pub fn into_parts(self) -> Parts {
        self.parts
    }

    /// The cache of derived facts.
    pub(crate) fn derived(&self) -> &Derived {
        &self.derived
    }
}

impl Deref for Program {
    type Target = Parts;

    fn deref(&self) -> &Parts {
        &self.parts
    }
}

/// Shows the parts as the program's own fields, then whether the cache is filled.
impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Parts {
            vars,
            threads,
            procs,
            stmts,
            blocks,
            loc_names,
            source_texts,
            source_steps,
            source_threads,
            assertd,
            thread_structure,
        } = &self.parts;
        f.debug_struct("Program")
            .field("vars", vars)
            .field("threads", threads)
            .field("procs", procs)
            .field("stmts", stmts)
            .field("blocks", blocks)
            .field("loc_names", loc_names)
            .field("source_texts", source_texts)
            .field("source_steps", source_steps)
            .field("source_threads", source_threads)
            .field("assertd", assertd)
            .field("thread_structure", thread_structure)
            .field("derived", &self.derived)
            .finish()
    }
}

/// A cache of facts derived from a [`Program`]'s parts, filled on first use; the parts never
/// change while they form that program.
///
/// It takes no part in comparisons (two programs with equal parts are equal whatever their
/// caches hold) and a clone keeps what was computed.
#[derive(Clone, Default)]
pub(crate) struct Derived {
    pub(crate) cell: OnceLock<Facts>,
}

impl PartialEq for Derived {
    fn eq(&self, _: &Derived) -> bool {
        true
    }
}

impl Eq for Derived {}

impl fmt::Debug for Derived {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.cell.get().is_some() { "Derived(computed)" } else { "Derived(empty)" })
    }
}

/// What a statement does, through calls (see `facts.rs`, which computes it).
#[derive(Clone, Debug, Default)]
pub(crate) struct Summary {
    pub(crate) reads: Vec<VarIdx>,
    pub(crate) writes: Vec<VarIdx>,
    pub(crate) weight: u32,
    pub(crate) waits: Option<Waits>,
    /// Whether the statement runs as one step by itself (a simple statement, `lock`, `down`,
    /// an `atomic` block, a block of at most one such step).
    pub(crate) atomic: bool,
    /// Whether the statement is or holds (through calls) one of
    /// [`Parts::thread_structure`].
    pub(crate) thread: bool,
    /// Whether every step of the statement is an assignment or a `skip` (through `atomic` and
    /// `noreorder` bodies; a call, branch, loop or wait is not): such an item may move across
    /// the threads' structure.
    pub(crate) assigns_only: bool,
    /// Whether the statement is or holds (through calls) a `while` loop: a thread may stop
    /// inside it (idle at the loop) before it ends.
    pub(crate) loops: bool,
}

/// The facts a [`Derived`] cache holds: locations by name, the statement at each location,
/// and the [`Summary`] of every statement and of every thread's body (computed in
/// `facts.rs`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Facts {
    pub(crate) loc_by_name: FxHashMap<String, Loc>,
    pub(crate) stmt_at: Vec<Option<StmtId>>,
    pub(crate) stmts: Vec<Summary>,
    pub(crate) threads: Vec<Summary>,
}
