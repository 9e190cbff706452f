//! [`Family::Bank`](super::Family::Bank): workers of two roles, in different numbers, on one
//! balance, beside a publisher and a reader.
//!
//! Worker `wi` withdraws when `i % 3 == 2` (`w2`, `w5`, `w8`: one withdrawer in three) and
//! deposits otherwise. Its body is built from pieces in an order of its own (one of two
//! layouts per role):
//!
//! * private work `u := u + c` (a local; how much of it differs per worker);
//! * an update of a counter no assertion reads (`audit` for a depositor, `fee` for a
//!   withdrawer);
//! * a depositor's lost update `t := balance; balance := t + a;` (with a private step between
//!   the read and the write when `i % 4 == 3`);
//! * a withdrawer's check-then-act `if (balance >= a) { t := balance; balance := t - a; got :=
//!   got + a; }` (inside a private `if (u > 0)` from `w5` on, one block deeper), followed by
//!   its own `assert(balance >= 0)`;
//! * at its end, `done := done + 1`.
//!
//! A `publisher` sets a flag before the data it guards (`ready := 1; data := v + 2;`) and a
//! `reader` waits for the flag and asserts the data; a `check` thread waits for every worker
//! and asserts that no deposit or withdrawal was lost and that the balance is not negative.
//! The balance starts at 3, so two withdrawers that both pass their check can take it below
//! zero. The hand repair is a section around each depositor's read and write and around each
//! withdrawer's `if (balance >= a)`, and the publisher's data moved above its flag.

use std::fmt::Write as _;

use super::section;

/// The balance at the start.
const START: i64 = 3;

/// Whether worker `i` withdraws (else it deposits).
fn withdraws(i: usize) -> bool {
    i % 3 == 2
}

/// What worker `i` deposits or withdraws.
fn amount(i: usize) -> i64 {
    if withdraws(i) {
        1 + (i % 4) as i64
    } else {
        1 + (i % 3) as i64
    }
}

/// A piece of a worker's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// A private step.
    Private,
    /// An update of a counter no assertion reads.
    Counter,
    /// The depositor's read and write of `balance`, or the withdrawer's check-then-act and its
    /// assertion.
    Move,
}

/// The pieces of worker `i`, in order: one of its role's two layouts, with `i / 3` more
/// private steps before its move.
fn pieces(i: usize) -> Vec<Piece> {
    let layout = match (withdraws(i), (i / 2) % 2) {
        (false, 0) => "PCMP",
        (false, _) => "PPMC",
        (true, 0) => "PCM",
        (true, _) => "CPPM",
    };
    let mut out: Vec<Piece> = layout
        .chars()
        .map(|c| match c {
            'P' => Piece::Private,
            'C' => Piece::Counter,
            _ => Piece::Move,
        })
        .collect();
    let at = out.iter().position(|&p| p == Piece::Move).expect("every layout moves money");
    for _ in 0..i / 3 {
        out.insert(at, Piece::Private);
    }
    out
}

/// Worker `i`'s deposit or withdrawal, sectioned when `repaired`.
fn money(i: usize, repaired: bool) -> String {
    let a = amount(i);
    if !withdraws(i) {
        let body = if i % 4 == 3 {
            format!("  w{i}r: t := balance;\n  w{i}m: u := u + {i};\n  w{i}w: balance := t + {a};\n")
        } else {
            format!("  w{i}r: t := balance;\n  w{i}w: balance := t + {a};\n")
        };
        return section(&body, "  ", repaired);
    }
    let take = |indent: &str| {
        format!(
            "{indent}w{i}s: if (balance >= {a}) {{\n{indent}  w{i}r: t := balance;\n{indent}  w{i}w: balance := t - {a};\n\
             {indent}  w{i}g: got := got + {a};\n{indent}}}\n"
        )
    };
    let check = if i >= 5 {
        format!("  w{i}q: if (u > 0) {{\n{}  }}\n", section(&take("    "), "    ", repaired))
    } else {
        section(&take("  "), "  ", repaired)
    };
    format!("{check}  w{i}z: assert(balance >= 0);\n")
}

/// The member with `n` workers, or its hand repair.
pub(super) fn program(n: usize, repaired: bool) -> String {
    let deposits: i64 = (1..=n).filter(|&i| !withdraws(i)).map(amount).sum();
    let mut s = format!(
        "// bank, {n} workers of two roles that differ (deposits and withdrawals on one balance),\n\
         // a publisher and a reader.\n\
         var balance = {START}, got = 0, done = 0, audit = 0, fee = 0, ready = 0, data = 0;\n"
    );
    for i in 1..=n {
        let _ = write!(s, "\nthread w{i} {{\n  local t, u;\n");
        let mut private = 0;
        for piece in pieces(i) {
            match piece {
                Piece::Private => {
                    let _ = writeln!(s, "  w{i}p{private}: u := u + {};", 1 + (i + private) % 4);
                    private += 1;
                }
                Piece::Counter => {
                    let counter = if withdraws(i) { "fee" } else { "audit" };
                    let _ = writeln!(s, "  w{i}c: {counter} := {counter} + 1;");
                }
                Piece::Move => s.push_str(&money(i, repaired)),
            }
        }
        let _ = write!(s, "  w{i}e: done := done + 1;\n}}\n");
    }
    let publish = if repaired {
        "  b3: data := v + 2;\n  b2: ready := 1;\n"
    } else {
        "  b2: ready := 1;\n  b3: data := v + 2;\n"
    };
    let _ = write!(
        s,
        "\nthread publisher {{\n  local v;\n  b1: v := 40;\n{publish}}}\n\
         \nthread reader {{\n  r1: await(ready == 1);\n  r2: assert(data == 42);\n}}\n\
         \nthread check {{\n  c1: await(done == {n});\n  c2: assert(balance + got == {});\n  \
         c3: assert(balance >= 0);\n}}\n",
        START + deposits
    );
    s
}

/// The labels of worker `i`'s steps when it runs alone on `balance` (the branch an `if` takes
/// is named `.then` or `.else`), and the balance after it.
#[cfg(test)]
fn steps(i: usize, balance: i64) -> (Vec<String>, i64) {
    let mut out = Vec::new();
    let (mut private, mut balance) = (0, balance);
    for piece in pieces(i) {
        match piece {
            Piece::Private => {
                out.push(format!("w{i}p{private}"));
                private += 1;
            }
            Piece::Counter => out.push(format!("w{i}c")),
            Piece::Move if withdraws(i) => {
                if i >= 5 {
                    out.push(format!("w{i}q.then"));
                }
                if balance >= amount(i) {
                    out.extend(["s.then", "r", "w", "g"].map(|l| format!("w{i}{l}")));
                    balance -= amount(i);
                } else {
                    out.push(format!("w{i}s.else"));
                }
                out.push(format!("w{i}z"));
            }
            Piece::Move => {
                out.push(format!("w{i}r"));
                if i % 4 == 3 {
                    out.push(format!("w{i}m"));
                }
                out.push(format!("w{i}w"));
                balance += amount(i);
            }
        }
    }
    out.push(format!("w{i}e"));
    (out, balance)
}

/// A bad schedule of the member with `n` workers, as (thread, label) steps: `w1` reads the
/// balance, `w2` runs to its end (its withdrawal), then `w1` writes its deposit over it,
/// every other worker runs in turn and the check's assertion that nothing was lost fails.
#[cfg(test)]
pub(super) fn bad_schedule(n: usize) -> Vec<(usize, String)> {
    let (w2, _) = steps(2, START);
    // `w1` writes its deposit over the withdrawal, which is lost.
    let (w1, mut balance) = steps(1, START);
    let read = w1.iter().position(|l| l == "w1r").expect("w1 deposits") + 1;
    let mut out: Vec<(usize, String)> = w1[..read].iter().map(|l| (0, l.clone())).collect();
    out.extend(w2.iter().map(|l| (1, l.clone())));
    out.extend(w1[read..].iter().map(|l| (0, l.clone())));
    for i in 3..=n {
        let (labels, after) = steps(i, balance);
        balance = after;
        out.extend(labels.into_iter().map(|l| (i - 1, l)));
    }
    out.extend(["c1", "c2"].map(|l| (n + 2, l.to_owned())));
    out
}

/// The atomic sections of the hand repair: one per worker.
#[cfg(test)]
pub(super) fn sections(n: usize) -> usize {
    n
}
