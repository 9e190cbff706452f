//! The paper's worked examples (section 3.1 and Figure 8), traces built by hand. Constraints
//! are compared by evaluating them on every candidate of the program's space.

mod common;

use common::{assert_, assign, await_, Setup};
use paces_constraint::Arena;
use paces_trace::{learn_good, LearnConfig, Variant};

const X: u32 = 0;
const Y: u32 = 1;
const Z: u32 = 2;

/// Example 2: `{1: x := 1; 2: y := 1} || {A: await(y == 1); B: assert(x == 1)}`.
fn example2() -> Setup {
    Setup::new(vec![
        vec![assign("1", &[], &[(X, 1)]), assign("2", &[], &[(Y, 1)])],
        vec![await_("A", &[Y]), assert_("B", &[X])],
    ])
}

/// Example 3, the extension of Example 2 in the paper's Figure 11: thread 2 goes on with
/// `C: z := 1`, and a third thread `{3: await(z == 1); 4: x := 0}` writes x "too late".
/// Swapping B and C, or 3 and 4, lets 4 write x before B reads it, as in the paper's trace
/// 1 -> 2 -> A -> C -> 3 -> 4 -> B.
fn example3() -> Setup {
    Setup::new(vec![
        vec![assign("1", &[], &[(X, 1)]), assign("2", &[], &[(Y, 1)])],
        vec![await_("A", &[Y]), assert_("B", &[X]), assign("C", &[], &[(Z, 1)])],
        vec![await_("3", &[Z]), assign("4", &[], &[(X, 0)])],
    ])
}

/// Figure 7/8's program (`paper1.cw`).
fn figure8() -> Setup {
    Setup::new(vec![
        vec![assign("A", &[], &[(X, 1)]), assign("B", &[], &[(Y, 1)]), assign("C", &[], &[(Z, 1)])],
        vec![await_("1", &[X]), await_("2", &[Y]), assert_("3", &[Z])],
        vec![await_("n", &[Z]), assert_("p", &[Y])],
    ])
}

#[test]
fn example2_learns_1_before_2_and_a_before_b() {
    let s = example2();
    let trace = s.trace(&["1", "2", "A", "B"]);
    for config in [LearnConfig::new(), LearnConfig::new().variant(Variant::Simplified)] {
        let mut arena = Arena::new();
        let learned = learn_good(&trace, &mut arena, &config);
        assert!(!learned.fallback_used);
        assert_eq!(learned.edges, 1, "one DFAsserts edge, no interference");
        let expected = s.orders(&mut arena, &[("1", "2"), ("A", "B")]);
        s.assert_equivalent(&arena, learned.constraint, expected);
    }
}

#[test]
fn example3_also_learns_b_before_c_and_3_before_4() {
    let s = example3();
    let trace = s.trace(&["1", "2", "A", "B", "C", "3", "4"]);
    let mut arena = Arena::new();
    let learned = learn_good(&trace, &mut arena, &LearnConfig::new());
    assert!(!learned.fallback_used);
    // The DFAsserts edge 1 -> B and its interference edge B -> 4.
    assert_eq!(learned.edges, 2);
    let extra = s.orders(&mut arena, &[("B", "C"), ("3", "4")]);
    s.assert_implies(&arena, learned.constraint, extra);
    let expected = s.orders(&mut arena, &[("1", "2"), ("A", "B"), ("B", "C"), ("3", "4")]);
    s.assert_equivalent(&arena, learned.constraint, expected);
    // Example 2's constraint alone is not enough: it allows both regressions.
    let example2_phi = s.orders(&mut arena, &[("1", "2"), ("A", "B")]);
    for orders in [[&["1", "2"][..], &["A", "C", "B"], &["3", "4"]], [&["1", "2"], &["A", "B", "C"], &["4", "3"]]] {
        let c = s.candidate(&orders);
        assert!(arena.eval(example2_phi, &c));
        assert!(!arena.eval(learned.constraint, &c), "{orders:?} must be rejected");
    }
}

#[test]
fn figure8_good_trace_keeps_b_before_c_and_n_before_p() {
    let s = figure8();
    let trace = s.trace(&["A", "B", "C", "1", "2", "n", "3", "p"]);
    let swap_bc = s.candidate(&[&["A", "C", "B"], &["1", "2", "3"], &["n", "p"]]);
    let a_last = s.candidate(&[&["B", "C", "A"], &["1", "2", "3"], &["n", "p"]]);
    let mut arena = Arena::new();
    let b_c_n_p = s.orders(&mut arena, &[("B", "C"), ("n", "p")]);

    // The paper's algorithm: the edge C -> 3 has no cover (3 may read z before C in a free
    // switch of this very trace), so the fallback freezes every order; it contains B <= C and
    // n <= p.
    let learned = learn_good(&trace, &mut arena, &LearnConfig::new());
    assert!(learned.fallback_used);
    assert_eq!(learned.uncovered, 1);
    s.assert_implies(&arena, learned.constraint, b_c_n_p);
    assert!(!arena.eval(learned.constraint, &swap_bc));
    let frozen = s.orders(&mut arena, &[("A", "B"), ("B", "C"), ("1", "2"), ("2", "3"), ("n", "p")]);
    s.assert_equivalent(&arena, learned.constraint, frozen);

    // Without the fallback (the original tool), exactly the paper's B <= C /\ n <= p, from the
    // cover B -> C -> n -> p of the edge B -> p; moving A after C (the paper's repair)
    // satisfies it, swapping B and C (Example 1's regression) does not.
    for variant in [Variant::Full, Variant::Simplified] {
        let learned = learn_good(&trace, &mut arena, &LearnConfig::new().fallback(false).variant(variant));
        assert!(!learned.fallback_used);
        assert_eq!(learned.uncovered, 1);
        s.assert_equivalent(&arena, learned.constraint, b_c_n_p);
        assert!(!arena.eval(learned.constraint, &swap_bc));
        assert!(arena.eval(learned.constraint, &a_last));
    }
}
