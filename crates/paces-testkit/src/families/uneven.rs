//! [`Family::Uneven`](super::Family::Uneven): workers that differ, on shared counters.
//!
//! Worker `wi` is built from pieces in an order of its own (one of four layouts, by `i`):
//!
//! * private work `u := u + c` (a local; how much of it, and where, differs per worker);
//! * an update of a shared counter the check never reads (`s0`, `s1` or `s2 := ... + 1`);
//! * the lost update `t := total; total := t + 1;` (with a private step between the read and
//!   the write in every third worker), unless the worker does not add (every seventh);
//! * the check-then-act `if (slots > 0) { slots := slots - 1; taken := taken + 1; }` (inside a
//!   private `if (u > 0)` in every fourth worker, one block deeper), unless the worker does
//!   not take (every fifth);
//! * at its end, `done := done + 1`.
//!
//! `slots` starts at half the takers (at least one), and a `check` thread waits for every
//! worker and asserts `total` (the adders) and `taken <= slots`. The hand repair is an atomic
//! section around each worker's read and write of `total` and around each `if (slots > 0)`.

use std::fmt::Write as _;

use super::section;

/// A piece of a worker's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// A private step.
    Private,
    /// An update of a shared counter the check never reads.
    Shared,
    /// The read and write of `total`.
    Add,
    /// The check-then-act on `slots`.
    Take,
}

/// The layouts of the workers' bodies, by `(i - 1) % 4`.
const LAYOUTS: [&str; 4] = ["PSAPPTS", "PPTSPA", "SPAPTPPS", "PTPSSAP"];

/// Whether worker `i` adds to `total`.
fn adds(i: usize) -> bool {
    i % 7 != 0
}

/// Whether worker `i` takes a slot.
fn takes(i: usize) -> bool {
    i % 5 != 0
}

/// The pieces of worker `i`, in order: its layout, with `(i - 1) / 4` more private steps
/// after its second piece, without the races it has no part in.
fn pieces(i: usize) -> Vec<Piece> {
    let mut out: Vec<Piece> = LAYOUTS[(i - 1) % 4]
        .chars()
        .map(|c| match c {
            'P' => Piece::Private,
            'S' => Piece::Shared,
            'A' => Piece::Add,
            _ => Piece::Take,
        })
        .collect();
    for _ in 0..(i - 1) / 4 {
        out.insert(2, Piece::Private);
    }
    out.retain(|&p| (p != Piece::Add || adds(i)) && (p != Piece::Take || takes(i)));
    out
}

/// The slots at the start: half the takers, at least one.
fn slots(n: usize) -> usize {
    ((1..=n).filter(|&i| takes(i)).count() / 2).max(1)
}

/// The member with `n` workers, or its hand repair.
pub(super) fn program(n: usize, repaired: bool) -> String {
    let adders = (1..=n).filter(|&i| adds(i)).count();
    let slots = slots(n);
    let mut s = format!(
        "// uneven counters, {n} workers that differ: private work, counters the check never reads,\n\
         // a lost update on `total` and a check-then-act on `slots`.\n\
         var total = 0, slots = {slots}, taken = 0, done = 0, s0 = 0, s1 = 0, s2 = 0;\n"
    );
    for i in 1..=n {
        let _ = write!(s, "\nthread w{i} {{\n  local t, u;\n");
        let (mut private, mut shared) = (0, 0);
        for piece in pieces(i) {
            match piece {
                Piece::Private => {
                    let _ = writeln!(s, "  w{i}p{private}: u := u + {};", 1 + (i + private) % 4);
                    private += 1;
                }
                Piece::Shared => {
                    let k = (i + shared) % 3;
                    let _ = writeln!(s, "  w{i}c{shared}: s{k} := s{k} + 1;");
                    shared += 1;
                }
                Piece::Add => {
                    let gap = if i % 3 == 0 { format!("  w{i}m: u := u + {i};\n") } else { String::new() };
                    let body = format!("  w{i}r: t := total;\n{gap}  w{i}w: total := t + 1;\n");
                    s.push_str(&section(&body, "  ", repaired));
                }
                Piece::Take if i % 4 == 0 => {
                    let take = format!(
                        "    w{i}s: if (slots > 0) {{\n      w{i}d: slots := slots - 1;\n      \
                         w{i}k: taken := taken + 1;\n    }}\n"
                    );
                    let _ = write!(s, "  w{i}g: if (u > 0) {{\n{}  }}\n", section(&take, "    ", repaired));
                }
                Piece::Take => {
                    let take = format!(
                        "  w{i}s: if (slots > 0) {{\n    w{i}d: slots := slots - 1;\n    \
                         w{i}k: taken := taken + 1;\n  }}\n"
                    );
                    s.push_str(&section(&take, "  ", repaired));
                }
            }
        }
        let _ = write!(s, "  w{i}e: done := done + 1;\n}}\n");
    }
    let _ = write!(
        s,
        "\nthread check {{\n  c1: await(done == {n});\n  c2: assert(total == {adders});\n  \
         c3: assert(taken <= {slots});\n}}\n"
    );
    s
}

/// The labels of worker `i`'s steps when it runs alone with `free` slots left (the branch an
/// `if` takes is named `.then` or `.else`), and whether it takes a slot.
#[cfg(test)]
fn steps(i: usize, free: usize) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    let (mut private, mut shared, mut took) = (0, 0, false);
    for piece in pieces(i) {
        match piece {
            Piece::Private => {
                out.push(format!("w{i}p{private}"));
                private += 1;
            }
            Piece::Shared => {
                out.push(format!("w{i}c{shared}"));
                shared += 1;
            }
            Piece::Add => {
                out.push(format!("w{i}r"));
                if i % 3 == 0 {
                    out.push(format!("w{i}m"));
                }
                out.push(format!("w{i}w"));
            }
            Piece::Take => {
                if i % 4 == 0 {
                    out.push(format!("w{i}g.then"));
                }
                if free > 0 {
                    out.extend([format!("w{i}s.then"), format!("w{i}d"), format!("w{i}k")]);
                    took = true;
                } else {
                    out.push(format!("w{i}s.else"));
                }
            }
        }
    }
    out.push(format!("w{i}e"));
    (out, took)
}

/// A bad schedule of the member with `n` workers, as (thread, label) steps: `w1` reads
/// `total`, `w2` runs to its end, then `w1` and every other worker, one after the other, and
/// the check, whose assertion on `total` fails (an update is lost).
#[cfg(test)]
pub(super) fn bad_schedule(n: usize) -> Vec<(usize, String)> {
    // Slots are taken in the order the workers take them: `w2`, then `w1` (its check comes
    // after its read of `total`), then the others.
    let mut free = slots(n);
    let mut runs: Vec<Vec<String>> = vec![Vec::new(); n];
    for i in std::iter::once(2).chain(std::iter::once(1)).chain(3..=n) {
        let (labels, took) = steps(i, free);
        free -= usize::from(took);
        runs[i - 1] = labels;
    }
    let read = runs[0].iter().position(|l| l == "w1r").expect("w1 adds") + 1;
    let mut out: Vec<(usize, String)> = runs[0][..read].iter().map(|l| (0, l.clone())).collect();
    out.extend(runs[1].iter().map(|l| (1, l.clone())));
    out.extend(runs[0][read..].iter().map(|l| (0, l.clone())));
    for (t, labels) in runs.iter().enumerate().skip(2) {
        out.extend(labels.iter().map(|l| (t, l.clone())));
    }
    out.extend(["c1", "c2"].map(|l| (n, l.to_owned())));
    out
}

/// The atomic sections of the hand repair: one per adder and one per taker.
#[cfg(test)]
pub(super) fn sections(n: usize) -> usize {
    (1..=n).map(|i| usize::from(adds(i)) + usize::from(takes(i))).sum()
}
