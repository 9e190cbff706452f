//! Repairs written as a report writes them, applied to a program: shared by the tests of
//! both C frontends' splices.

use paces_constraint::{Candidate, Transformation};
use paces_cwhile::Program;

/// The program `steps` make of `p`, each step written as a report writes it: `swap 14 <->
/// 16` or `atomic [14; 16]`.
#[track_caller]
pub fn apply(p: &Program, steps: &[&str]) -> Program {
    let space = p.space();
    let l = |n: &str| p.loc(n).unwrap_or_else(|| panic!("no label {n}"));
    let step = |text: &str| {
        if let Some((a, b)) = text.strip_prefix("swap ").and_then(|t| t.split_once(" <-> ")) {
            return Transformation::Swap { first: l(a), second: l(b) };
        }
        let inside = text.strip_prefix("atomic [").and_then(|t| t.strip_suffix(']'));
        let (a, b) = inside.and_then(|t| t.split_once("; ")).unwrap_or_else(|| panic!("not a step: {text}"));
        Transformation::Atomic { first: l(a), last: l(b) }
    };
    let steps: Vec<Transformation> = steps.iter().map(|t| step(t)).collect();
    p.apply(&Candidate::apply(&space, &steps).unwrap()).unwrap()
}
