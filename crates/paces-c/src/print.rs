//! A Cwhile program printed in the C dialect, one statement per line, with the map from each
//! Cwhile label to the label (line number) its statement gets when the C text is read back.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use paces_cwhile::ir::{BinOp, Cond, Expr, Owner, StmtKind, UnOp, VarIdx, VarScope};
use paces_cwhile::ir::{Owner as O, ProcIdx, ThreadIdx};
use paces_cwhile::Program;

/// A program in the C dialect.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Printed {
    /// The C text.
    pub text: String,
    /// Each location name of the Cwhile program (statement and derived labels) and the name
    /// the same location has in the C text (`12`, `12.then`).
    pub labels: BTreeMap<String, String>,
}

/// Prints a program in the paper's C dialect ([`Printer::print`]), or writes it into the C
/// source of the program it was made from ([`Printer::splice`]).
///
/// ```
/// let program = paces_cwhile::parse("var x;\nthread t { x := 1; }")?;
/// let printed = paces_c::Printer::new(&program).print()?;
/// assert!(printed.text.contains("void t() {\n    x = 1;\n}"));
/// // Line 5: after the header comment, `int x = 0;`, a blank line and `void t() {`.
/// assert_eq!(printed.labels["t.0"], "5");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[must_use]
pub struct Printer<'a> {
    program: &'a Program,
}

impl<'a> Printer<'a> {
    /// A printer of `program`.
    pub fn new(program: &'a Program) -> Self {
        Printer { program }
    }

    /// The program in the C dialect: globals with their initial values, each procedure and
    /// thread as a function, and a `main` that starts the threads in order. A Cwhile
    /// `await(b)` is `assume(b)`, a Cwhile `assume(b)` (which cuts the path) is
    /// `__VERIFIER_assume(b)`.
    ///
    /// # Errors
    /// When the program has something the dialect cannot say: a procedure local with an
    /// initial value other than 0 (C initialises a local on every call), a name that is a C
    /// keyword, or a `while` with an empty body and a condition (the dialect reads that as a
    /// busy wait).
    pub fn print(&self) -> Result<Printed, Error> {
        let mut w = Writer { program: self.program, out: String::new(), line: 1, labels: BTreeMap::new(), owner: None };
        w.program()?;
        Ok(Printed { text: w.out, labels: w.labels })
    }

    /// Writes the program, made from `original` by [`Program::apply`], as the C source
    /// `source` that [`parse`](crate::parse) read `original` from, with the blocks whose items
    /// changed order or gained an atomic section rewritten and every other byte kept.
    ///
    /// In a rewritten block each statement moves with its own lines: the comment lines
    /// directly above it (up to the first blank or code line) and the comment at the end of
    /// its last line. The lines between statements that belong to none of them (blank lines,
    /// comments set apart by a blank line, declarations) stay in their places. An added
    /// section is an `atomicBegin();` line before its first statement (above that statement's
    /// comment lines) and an `atomicEnd();` line after its last, indented like the first
    /// statement; the statements inside keep their indentation, since a section is no C
    /// block. An unchanged program gives back `source` itself.
    ///
    /// The text is checked before it is returned: [`parse`](crate::parse) must read it as the
    /// program up to labels (C labels are line numbers, which moved and added lines shift),
    /// that is, the canonical Cwhile texts ([`paces_cwhile::Printer::print`]) of the two
    /// programs are equal once every statement label is replaced by the same placeholder.
    ///
    /// The steps of one C statement (two declarators of one declaration, the statements a
    /// macro expands to) are one unit of lines: they move together and a section takes them
    /// all or none. Where the layout cannot take the change as it stands, the changed blocks
    /// are laid out again first: a line holding two or more of a changed block's statements
    /// is split into one line each (an inline `{ ... }` body becomes a multi-line one), and a
    /// `for` loop the reader unrolled whose copies the change parts is written unrolled
    /// (`docs/c-frontend.md`, "The repaired program").
    ///
    /// `None` when the layout does not allow it (a change that parts the steps of one
    /// statement, a section added in a block without braces, a comment that a cut between
    /// lines would split) or when the check fails, as it must where the dialect cannot say
    /// the change (a section over a `return`; a move of an `if` whose early `return` makes the
    /// statements after it its `else` branch): the caller then prints the program another way.
    #[must_use]
    pub fn splice(&self, source: &str, original: &Program) -> Option<String> {
        let dialect = crate::splice::Dialect {
            parse: &|text| crate::parse(text).ok(),
            begin: "atomicBegin();",
            end: "atomicEnd();",
            flat: false,
        };
        crate::splice::splice(source, original, self.program, &dialect)
    }
}

/// The names the dialect's printer refuses beside C's keywords
/// ([`crate::KEYWORDS`]): the dialect's built-ins.
const BUILT_INS: &[&str] = &[
    "main",
    "nondet",
    "nondet_int",
    "assume",
    "assert",
    "assertd",
    "atomicBegin",
    "atomicEnd",
    "noReorderBegin",
    "noReorderEnd",
    "bool",
];

/// The state the printing functions share: the program, the text so far, its line, the
/// labels found so far and the owner being printed.
struct Writer<'a> {
    program: &'a Program,
    out: String,
    line: usize,
    labels: BTreeMap<String, String>,
    /// The thread or procedure being printed.
    owner: Option<Owner>,
}

/// Why a program cannot be printed in the C dialect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    /// What the dialect cannot say, in one sentence.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

fn rejected(message: String) -> Error {
    Error { message }
}

/// Threads and procedures in source order (threads first on ties).
fn decl_order(p: &Program) -> Vec<O> {
    let threads =
        (0..p.threads.len()).map(|i| (p.threads[i].span.start, O::Thread(ThreadIdx::new(i).expect("thread index"))));
    let procs = (0..p.procs.len()).map(|i| (p.procs[i].span.start, O::Proc(ProcIdx::new(i).expect("proc index"))));
    let mut v: Vec<(u32, O)> = threads.chain(procs).collect();
    v.sort_by_key(|&(start, _)| start);
    v.into_iter().map(|(_, o)| o).collect()
}

impl Writer<'_> {
    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{}{text}", "    ".repeat(depth));
        self.line += 1;
    }

    fn name<'n>(&self, name: &'n str) -> Result<&'n str, Error> {
        if crate::KEYWORDS.contains(&name) || BUILT_INS.contains(&name) {
            return Err(rejected(format!("the name `{name}` is a C keyword or built-in; rename it first")));
        }
        Ok(name)
    }

    fn program(&mut self) -> Result<(), Error> {
        let p = self.program;
        self.line(0, "// Written by `paces export --c`: each statement is labelled by its line.");
        for v in &p.vars[..p.global_count()] {
            let name = self.name(&v.name)?;
            self.line(0, &format!("int {name} = {};", int(v.init)));
        }
        for owner in decl_order(p) {
            self.owner = Some(owner);
            let (name, locals, body, is_proc) = match owner {
                Owner::Thread(t) => {
                    let t = &p.threads[t.index()];
                    (&t.name, &t.locals, t.body, false)
                }
                Owner::Proc(q) => {
                    let q = &p.procs[q.index()];
                    (&q.name, &q.locals, q.body, true)
                }
            };
            self.line(0, "");
            let name = self.name(name)?;
            self.line(0, &format!("void {name}() {{"));
            for &l in locals {
                let v = &p.vars[l.index()];
                let lname = self.name(&v.name)?;
                if is_proc && v.init != 0 {
                    return Err(rejected(format!(
                        "the procedure local `{lname}` starts at {}, which C cannot say",
                        v.init
                    )));
                }
                let init = if v.init == 0 { String::new() } else { format!(" = {}", int(v.init)) };
                self.line(1, &format!("int {lname}{init};"));
            }
            self.block(body, 1)?;
            self.line(0, "}");
        }
        self.line(0, "");
        self.line(0, "void main() {");
        for t in &p.threads {
            let name = self.name(&t.name)?;
            self.line(1, &format!("{name}();"));
        }
        self.line(0, "}");
        Ok(())
    }

    fn block(&mut self, block: paces_constraint::BlockId, depth: usize) -> Result<(), Error> {
        for &id in &self.program.blocks[block.index()].items {
            self.stmt(id, depth)?;
        }
        Ok(())
    }

    fn label(&mut self, cwhile: &str) {
        self.labels.insert(cwhile.to_owned(), self.line.to_string());
    }

    fn derived(&mut self, cwhile: &str, c_line: usize) {
        if let Some((_, suffix)) = cwhile.rsplit_once('.') {
            self.labels.insert(cwhile.to_owned(), format!("{c_line}.{suffix}"));
        }
    }

    fn cond(&mut self, c: &Cond, at: usize) -> Result<String, Error> {
        Ok(match c {
            Cond::Star => "nondet".to_owned(),
            Cond::Expr { cond, then_guard, else_guard } => {
                self.derived(&then_guard.label, at);
                self.derived(&else_guard.label, at);
                self.expr(cond, 0, true)?
            }
        })
    }

    fn stmt(&mut self, id: paces_cwhile::ir::StmtId, depth: usize) -> Result<(), Error> {
        let s = &self.program.stmts[id.index()];
        let at = self.line;
        self.label(&s.label);
        match &s.kind {
            StmtKind::Assign { var, expr } => {
                let text = format!("{} = {};", self.var(*var)?, self.expr(expr, 0, false)?);
                self.line(depth, &text);
            }
            StmtKind::Assume(e) => {
                let text = format!("__VERIFIER_assume({});", self.expr(e, 0, true)?);
                self.line(depth, &text);
            }
            StmtKind::Await(e) => {
                let text = format!("assume({});", self.expr(e, 0, true)?);
                self.line(depth, &text);
            }
            StmtKind::Assert(e) => {
                let name = if self.program.assertd.contains(&id) { "assertd" } else { "assert" };
                let text = format!("{name}({});", self.expr(e, 0, true)?);
                self.line(depth, &text);
            }
            StmtKind::Skip => self.line(depth, ";"),
            StmtKind::If { cond, then_block, else_block } => {
                let c = self.cond(cond, at)?;
                self.line(depth, &format!("if ({c}) {{"));
                self.block(*then_block, depth + 1)?;
                if let Some(e) = else_block {
                    self.line(depth, "} else {");
                    self.block(*e, depth + 1)?;
                }
                self.line(depth, "}");
            }
            StmtKind::While { cond, body } => {
                if matches!(cond, Cond::Expr { .. }) && self.program.blocks[body.index()].items.is_empty() {
                    return Err(rejected(format!(
                        "the loop `{}` has an empty body, which the C dialect reads as a busy wait",
                        s.label
                    )));
                }
                let c = self.cond(cond, at)?;
                self.line(depth, &format!("while ({c}) {{"));
                self.block(*body, depth + 1)?;
                self.line(depth, "}");
            }
            StmtKind::Atomic(b) => {
                self.line(depth, "atomicBegin();");
                self.block(*b, depth)?;
                self.line(depth, "atomicEnd();");
            }
            StmtKind::NoReorder(b) => {
                self.line(depth, "noReorderBegin();");
                self.block(*b, depth)?;
                self.line(depth, "noReorderEnd();");
            }
            StmtKind::Call(q) => {
                let name = self.name(&self.program.procs[q.index()].name)?.to_owned();
                self.line(depth, &format!("{name}();"));
            }
            StmtKind::Lock { var, wait, set } => {
                self.derived(&wait.label, at);
                self.derived(&set.label, at);
                let text = format!("lock({});", self.var(*var)?);
                self.line(depth, &text);
            }
            StmtKind::Unlock(v) => {
                let text = format!("unlock({});", self.var(*v)?);
                self.line(depth, &text);
            }
            StmtKind::Down { var, wait, set } => {
                self.derived(&wait.label, at);
                self.derived(&set.label, at);
                let text = format!("down({});", self.var(*var)?);
                self.line(depth, &text);
            }
            StmtKind::Up(v) => {
                let text = format!("up({});", self.var(*v)?);
                self.line(depth, &text);
            }
        }
        Ok(())
    }

    fn var(&self, v: VarIdx) -> Result<String, Error> {
        let var = &self.program.vars[v.index()];
        if let VarScope::Proc(q) = var.scope {
            if self.owner != Some(Owner::Proc(q)) {
                let proc_name = &self.program.procs[q.index()].name;
                return Err(rejected(format!(
                    "`{proc_name}.{}` (a procedure's local used by its caller) has no form in the C dialect",
                    var.name
                )));
            }
        }
        Ok(self.name(&var.name)?.to_owned())
    }

    /// An expression with the parentheses C needs (`outer`: the precedence around it).
    /// `cond`: where the dialect reads a condition (the whole of a test, an operand of `&&`,
    /// `||` or `!`), which reads `&` and `|` as `&&` and `||`: a bitwise `&` or `|` there is
    /// written `(a & b) != 0`, which means the same and reads back as bitwise.
    fn expr(&self, e: &Expr, outer: u8, cond: bool) -> Result<String, Error> {
        Ok(match e {
            Expr::Int(v) => int(*v),
            Expr::Bool(b) => if *b { "1" } else { "0" }.to_owned(),
            Expr::Var(v) => self.var(*v)?,
            Expr::Unary(op, a) => {
                let (sym, operand_cond) = match op {
                    UnOp::Not => ("!", true),
                    UnOp::Neg => ("-", false),
                };
                let inner = self.expr(a, BinOp::MAX_PRECEDENCE + 1, operand_cond)?;
                if inner.starts_with('-') {
                    format!("{sym}({inner})")
                } else {
                    format!("{sym}{inner}")
                }
            }
            Expr::Chain(c) if cond && matches!(c.links()[0].0, BinOp::BitAnd | BinOp::BitOr) => {
                let ne = BinOp::Ne.precedence();
                let text = format!("({}) != 0", self.expr(e, 0, false)?);
                if ne < outer {
                    format!("({text})")
                } else {
                    text
                }
            }
            Expr::Chain(c) => {
                // The levels of `BinOp::precedence` order the operators as C does.
                let prec = c.level();
                let operand_cond = matches!(c.links()[0].0, BinOp::And | BinOp::Or);
                let mut text = self.expr(c.first(), prec, operand_cond)?;
                for (op, e) in c.links() {
                    let _ = write!(text, " {} {}", op.symbol(), self.expr(e, prec + 1, operand_cond)?);
                }
                if prec < outer {
                    format!("({text})")
                } else {
                    text
                }
            }
        })
    }
}

/// A literal; the most negative value is written as C needs it.
fn int(v: i64) -> String {
    if v == i64::MIN {
        "(-9223372036854775807 - 1)".to_owned()
    } else if v < 0 {
        format!("(-{})", v.unsigned_abs())
    } else {
        v.to_string()
    }
}
