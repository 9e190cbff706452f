//! Expressions as code for a small stack machine without recursion: compiling an IR
//! expression, and evaluating the code on a state's globals and locals.

use paces_cwhile::ir::{BinOp, Expr, Fault, UnOp, VarIdx};

use super::layout::VarRef;
use crate::error::Error;

/// One instruction of a compiled expression (a stack machine without recursion).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Op {
    Const(i64),
    Load(VarRef),
    Not,
    Neg,
    Bin(BinOp),
    /// Pops a value; when it is 0, pushes 0 and jumps (short-circuit `&&`).
    AndJump(u32),
    /// Pops a value; when it is not 0, pushes 1 and jumps (short-circuit `||`).
    OrJump(u32),
    /// Normalises the top of the stack to 0 or 1.
    Bool,
}

/// A compiled expression.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Code {
    pub ops: Vec<Op>,
    /// The most values the evaluation stack holds at once.
    height: usize,
}

/// Stacks up to this height are evaluated in a fixed array on the thread's stack.
const SMALL: usize = 32;

thread_local! {
    /// The evaluation stack of code higher than [`SMALL`], reused by every evaluation on
    /// the thread (it grows to the highest such code and stays).
    static LARGE: std::cell::RefCell<Vec<i64>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Code {
    /// Code of `ops`, with its stack height.
    fn new(ops: Vec<Op>) -> Code {
        let height = height(&ops);
        Code { ops, height }
    }

    /// The constant `v`.
    pub(super) fn constant(v: i64) -> Code {
        Code::new(vec![Op::Const(v)])
    }

    /// `var + 1`.
    pub(super) fn increment(var: VarRef) -> Code {
        Code::new(vec![Op::Load(var), Op::Const(1), Op::Bin(BinOp::Add)])
    }

    /// Compiles an expression without recursion, with `var` giving where each variable lives;
    /// also returns the variables it reads, without repetition, in order of first occurrence.
    pub(super) fn compile(
        e: &Expr,
        var: impl Fn(VarIdx) -> Result<VarRef, Error>,
    ) -> Result<(Code, Vec<VarRef>), Error> {
        enum Task<'e> {
            Visit(&'e Expr),
            Emit(Op),
            AndJump,
            OrJump,
            Patch,
        }
        let mut ops: Vec<Op> = Vec::new();
        let mut reads: Vec<VarRef> = Vec::new();
        let mut patches: Vec<usize> = Vec::new();
        let mut tasks = vec![Task::Visit(e)];
        while let Some(task) = tasks.pop() {
            match task {
                Task::Visit(e) => match e {
                    Expr::Int(v) => ops.push(Op::Const(*v)),
                    Expr::Bool(b) => ops.push(Op::Const(i64::from(*b))),
                    Expr::Var(v) => {
                        let r = var(*v)?;
                        if !reads.contains(&r) {
                            reads.push(r);
                        }
                        ops.push(Op::Load(r));
                    }
                    Expr::Unary(op, a) => {
                        tasks.push(Task::Emit(match op {
                            UnOp::Not => Op::Not,
                            UnOp::Neg => Op::Neg,
                        }));
                        tasks.push(Task::Visit(a));
                    }
                    // `a0 && a1 && a2` as `(a0 && a1) && a2`: each link short-circuits to
                    // its own end, where the next link's jump sees the 0 (or 1) it left.
                    Expr::Chain(c) => {
                        for (op, e) in c.links().iter().rev() {
                            match op {
                                BinOp::And => {
                                    tasks.extend([Task::Patch, Task::Emit(Op::Bool), Task::Visit(e), Task::AndJump]);
                                }
                                BinOp::Or => {
                                    tasks.extend([Task::Patch, Task::Emit(Op::Bool), Task::Visit(e), Task::OrJump]);
                                }
                                op => tasks.extend([Task::Emit(Op::Bin(*op)), Task::Visit(e)]),
                            }
                        }
                        tasks.push(Task::Visit(c.first()));
                    }
                },
                Task::Emit(op) => ops.push(op),
                Task::AndJump => {
                    patches.push(ops.len());
                    ops.push(Op::AndJump(0));
                }
                Task::OrJump => {
                    patches.push(ops.len());
                    ops.push(Op::OrJump(0));
                }
                Task::Patch => {
                    let at = patches.pop().unwrap_or(0);
                    let target = ops.len() as u32;
                    match &mut ops[at] {
                        Op::AndJump(t) | Op::OrJump(t) => *t = target,
                        _ => {}
                    }
                }
            }
        }
        Ok((Code::new(ops), reads))
    }

    /// Evaluates the expression; an operation without a value (a division or remainder by
    /// zero, a shift by an amount outside 0..=63) yields 0 and sets `fault` (the first one
    /// stays).
    /// No evaluation allocates: the stack is a fixed array, or for high code a buffer the
    /// thread keeps.
    pub(crate) fn eval(&self, globals: &[i64], locals: &[i64], fault: &mut Option<Fault>) -> i64 {
        if self.height <= SMALL {
            return self.eval_on(Stack { slots: &mut [0; SMALL], len: 0 }, globals, locals, fault);
        }
        LARGE.with(|large| {
            let mut slots = large.borrow_mut();
            if slots.len() < self.height {
                slots.resize(self.height, 0);
            }
            self.eval_on(Stack { slots: &mut slots, len: 0 }, globals, locals, fault)
        })
    }

    /// `eval` on `stack` (empty, with at least [`Code::height`] slots).
    fn eval_on(&self, mut stack: Stack<'_>, globals: &[i64], locals: &[i64], fault: &mut Option<Fault>) -> i64 {
        let mut pc = 0;
        while pc < self.ops.len() {
            match self.ops[pc] {
                Op::Const(v) => stack.push(v),
                Op::Load(VarRef::Global(g)) => stack.push(globals[g as usize]),
                Op::Load(VarRef::Local(l)) => stack.push(locals[l as usize]),
                Op::Not => {
                    let v = stack.pop();
                    stack.push(i64::from(v == 0));
                }
                Op::Neg => {
                    let v = stack.pop();
                    stack.push(v.wrapping_neg());
                }
                Op::Bool => {
                    let v = stack.pop();
                    stack.push(i64::from(v != 0));
                }
                Op::AndJump(target) => {
                    let v = stack.pop();
                    if v == 0 {
                        stack.push(0);
                        pc = target as usize;
                        continue;
                    }
                }
                Op::OrJump(target) => {
                    let v = stack.pop();
                    if v != 0 {
                        stack.push(1);
                        pc = target as usize;
                        continue;
                    }
                }
                Op::Bin(op) => {
                    let b = stack.pop();
                    let a = stack.pop();
                    stack.push(op.apply(a, b).unwrap_or_else(|f| {
                        fault.get_or_insert(f);
                        0
                    }));
                }
            }
            pc += 1;
        }
        stack.pop()
    }
}

/// The most values the stack holds while `ops` run. A taken `AndJump`/`OrJump` leaves at its
/// target the height that falling through reaches there, so the straight line gives it.
fn height(ops: &[Op]) -> usize {
    let mut now = 0usize;
    let mut most = 0;
    for op in ops {
        match op {
            Op::Const(_) | Op::Load(_) => now += 1,
            Op::Not | Op::Neg | Op::Bool => {}
            Op::Bin(_) | Op::AndJump(_) | Op::OrJump(_) => now = now.saturating_sub(1),
        }
        most = most.max(now);
    }
    most
}

/// The evaluation stack of [`Code::eval`]: `slots[..len]`, the top last.
struct Stack<'s> {
    slots: &'s mut [i64],
    len: usize,
}

impl Stack<'_> {
    fn push(&mut self, v: i64) {
        self.slots[self.len] = v;
        self.len += 1;
    }

    /// The top value, removed (0 on an empty stack).
    fn pop(&mut self) -> i64 {
        if self.len == 0 {
            return 0;
        }
        self.len -= 1;
        self.slots[self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i64) -> Expr {
        Expr::Int(v)
    }

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::binary(op, a, b)
    }

    fn eval(e: &Expr, globals: &[i64]) -> (i64, bool) {
        let (code, _) = Code::compile(e, |v| Ok(VarRef::Global(v.index() as u32))).expect("compiles");
        let mut fault = None;
        (code.eval(globals, &[], &mut fault), fault.is_some())
    }

    #[test]
    fn bitwise_operators_and_shifts_are_c_on_64_bits() {
        let x = || Expr::Var(VarIdx::from_u32(0));
        // 12 = 0b1100, 10 = 0b1010.
        assert_eq!(eval(&bin(BinOp::BitAnd, int(12), int(10)), &[]), (8, false));
        assert_eq!(eval(&bin(BinOp::BitOr, int(12), int(10)), &[]), (14, false));
        assert_eq!(eval(&bin(BinOp::BitXor, int(12), int(10)), &[]), (6, false));
        // `>>` copies the sign bit; `<<` wraps.
        assert_eq!(eval(&bin(BinOp::Shr, int(-16), int(2)), &[]), (-4, false));
        assert_eq!(eval(&bin(BinOp::Shr, int(-1), int(63)), &[]), (-1, false));
        assert_eq!(eval(&bin(BinOp::Shl, int(3), int(62)), &[]), (i64::MIN + (1 << 62), false));
        // An amount outside 0..=63 has no value: 0 and a fault, whatever the shifted value.
        assert_eq!(eval(&bin(BinOp::Shr, int(5), x()), &[64]), (0, true));
        assert_eq!(eval(&bin(BinOp::Shl, int(5), x()), &[-1]), (0, true));
        assert_eq!(eval(&bin(BinOp::Shl, int(5), x()), &[2]), (20, false));
        // The kind of the first fault is kept.
        let (code, _) =
            Code::compile(&bin(BinOp::Add, bin(BinOp::Shl, int(1), x()), bin(BinOp::Div, int(1), int(0))), |v| {
                Ok(VarRef::Global(v.index() as u32))
            })
            .expect("compiles");
        let mut fault = None;
        code.eval(&[99], &[], &mut fault);
        assert_eq!(fault, Some(Fault::ShiftAmount));
    }

    #[test]
    fn deep_expressions_evaluate_on_a_larger_stack() {
        // 1 + (2 + (3 + ... + 100)): a hundred values on the stack at once, past the fixed
        // stack; twice, on the buffer the first evaluation left.
        let e = (1..100).rev().fold(int(100), |acc, v| bin(BinOp::Add, int(v), acc));
        assert_eq!(eval(&e, &[]), (5050, false));
        assert_eq!(eval(&e, &[]), (5050, false));
        // Short-circuits keep working at depth: (x != 0 && 10 / x == 5) || 7 < 3.
        let guarded = bin(
            BinOp::Or,
            bin(
                BinOp::And,
                bin(BinOp::Ne, Expr::Var(VarIdx::from_u32(0)), int(0)),
                bin(BinOp::Eq, bin(BinOp::Div, int(10), Expr::Var(VarIdx::from_u32(0))), int(5)),
            ),
            bin(BinOp::Lt, int(7), int(3)),
        );
        let deep = (1..60).fold(guarded, |acc, v| bin(BinOp::Add, int(v - v), acc));
        assert_eq!(eval(&deep, &[2]), (1, false));
        assert_eq!(eval(&deep, &[0]), (0, false));
        assert_eq!(eval(&bin(BinOp::Rem, int(3), Expr::Var(VarIdx::from_u32(0))), &[0]), (0, true));
    }

    #[test]
    fn the_stack_height_is_what_the_expression_needs() {
        let height = |e: &Expr| Code::compile(e, |v| Ok(VarRef::Global(v.index() as u32))).expect("compiles").0.height;
        // A flat chain holds two values at a time, however long.
        let flat =
            (0..100_000).fold(int(0), |acc, v| bin(if v % 2 == 0 { BinOp::Add } else { BinOp::Sub }, acc, int(v)));
        let and = (0..100_000).fold(int(1), |acc, v| bin(BinOp::And, acc, int(v)));
        assert_eq!(height(&and), 1, "each link pops before it pushes");
        assert_eq!(height(&flat), 2);
        let nested = (1..100).rev().fold(int(100), |acc, v| bin(BinOp::Add, int(v), acc));
        assert_eq!(height(&nested), 100);
        assert_eq!(height(&Expr::Unary(UnOp::Neg, Box::new(nested))), 100);
        assert_eq!(Code::increment(VarRef::Global(0)).height, 2);
    }
}
