//! Long flat constructs are long, not deep: operator chains of one precedence level and
//! `else if` chains pass every pass over the program (parse, print, apply, Promela export,
//! dump) on the 2 MiB stack of a test thread, and keep their meaning.

use paces_constraint::Candidate;
use paces_cwhile::ir::{BinOp, Expr, StmtKind};
use paces_cwhile::{parse, to_promela, Printer, Program};

/// Every pass over `p`; returns its canonical text, checked to print back the same.
fn every_pass(p: &Program, src: &str) -> String {
    let printed = Printer::new(p).print();
    assert_eq!(Printer::new(&parse(&printed).unwrap_or_else(|d| panic!("{d}"))).print(), printed, "printing is stable");
    let named = Printer::new(p).labels(&[]).print();
    assert_eq!(
        Printer::new(&parse(&named).unwrap_or_else(|d| panic!("{d}"))).print(),
        printed,
        "labelled where needed, the same program"
    );
    let same = p.apply(&Candidate::original(&p.space())).unwrap();
    assert_eq!(Printer::new(&same).print(), printed);
    assert!(to_promela(p, src).unwrap().contains("active proctype"));
    assert!(p.dump().contains("weight"));
    printed
}

fn assigned(p: &Program) -> &Expr {
    match &p.stmts[0].kind {
        StmtKind::Assign { expr, .. } => expr,
        other => panic!("not an assignment: {other:?}"),
    }
}

#[test]
fn a_chain_of_100_000_operators() {
    let src = format!("var x;\nthread t {{ x := x{}; }}\n", " + 1 - x".repeat(50_000));
    let p = parse(&src).unwrap_or_else(|d| panic!("{d}"));
    let Expr::Chain(c) = assigned(&p) else { panic!("a chain") };
    assert_eq!(c.links().len(), 100_000);
    assert!(matches!(c.first(), Expr::Var(_)));
    assert_eq!(c.links()[0].0, BinOp::Add);
    assert_eq!(c.links()[99_999].0, BinOp::Sub);
    let printed = every_pass(&p, &src);
    let written = &src[src.find("x :=").unwrap()..src.rfind(';').unwrap()];
    assert!(printed.contains(written), "the chain is printed as written");
}

#[test]
fn chains_keep_left_association() {
    let p = parse("var x;\nthread t { x := 10 - 1 - 1; }").unwrap();
    let Expr::Chain(c) = assigned(&p) else { panic!("a chain") };
    assert_eq!((c.first(), c.links()), (&Expr::Int(10), &[(BinOp::Sub, Expr::Int(1)), (BinOp::Sub, Expr::Int(1))][..]));
    // Redundant parentheses on the left are the same chain; on the right they stay.
    let left = parse("var x;\nthread t { x := (10 - 1) - 1; }").unwrap();
    assert_eq!(assigned(&left), assigned(&p));
    let right = parse("var x;\nthread t { x := 10 - (1 - 1); }").unwrap();
    assert_ne!(assigned(&right), assigned(&p));
    assert!(Printer::new(&right).print().contains("x := 10 - (1 - 1);"), "{}", Printer::new(&right).print());
    // Operators of another level start a new chain: `1 + 2 * 3 - 4` has two links.
    let mixed = parse("var x;\nthread t { x := 1 + 2 * 3 - 4 < 5 == true; }").unwrap();
    let Expr::Chain(eq) = assigned(&mixed) else { panic!("a chain") };
    assert_eq!(eq.level(), BinOp::Eq.precedence());
    let Expr::Chain(lt) = eq.first() else { panic!("a chain") };
    let Expr::Chain(sum) = lt.first() else { panic!("a chain") };
    assert_eq!(sum.links().len(), 2);
    assert!(
        Printer::new(&mixed).print().contains("x := 1 + 2 * 3 - 4 < 5 == true;"),
        "{}",
        Printer::new(&mixed).print()
    );
}

#[test]
fn binary_extends_a_chain_of_its_level() {
    let e = (0..1_000_000)
        .fold(Expr::Int(0), |acc, i| Expr::binary(if i % 2 == 0 { BinOp::Add } else { BinOp::Sub }, acc, Expr::Int(1)));
    let Expr::Chain(c) = &e else { panic!("a chain") };
    assert_eq!(c.links().len(), 1_000_000);
    // Another level wraps the chain: `(0 + 1 - ..) * 2`.
    let product = Expr::binary(BinOp::Mul, e.clone(), Expr::Int(2));
    let Expr::Chain(p) = &product else { panic!("a chain") };
    assert_eq!((p.first(), p.links().len()), (&e, 1));
    // Clone, comparison and drop above are flat too (this thread's stack is 2 MiB).
}

/// An `if` and `n` `else if`s, each branch assigning its index, and a last `else`.
fn chain(n: usize, labelled: bool) -> String {
    let mut src = String::from("if (x == 0) { y := 0; }");
    for i in 1..=n {
        let label = if labelled { format!("E{i}: ") } else { String::new() };
        src.push_str(&format!(" else {label}if (x == {i}) {{ y := {i}; }}"));
    }
    src.push_str(" else { y := 1; }");
    src
}

/// A program whose thread is [`chain`].
fn else_ifs(n: usize, labelled: bool) -> String {
    format!("var x, y;\nthread t {{\n  {}\n}}\n", chain(n, labelled))
}

#[test]
fn a_chain_of_1_000_else_ifs_is_flat() {
    for labelled in [false, true] {
        let src = else_ifs(1_000, labelled);
        let p = parse(&src).unwrap_or_else(|d| panic!("{d}"));
        // 1,001 `if`s, 1,001 assignments and the last `else`'s.
        assert_eq!(p.stmts.len(), 2_003);
        let printed = every_pass(&p, &src);
        assert!(
            printed.contains("} else t.2: if (x == 1) {") || printed.contains("} else E1: if (x == 1) {"),
            "{printed}"
        );
        assert_eq!(printed.matches(" else ").count(), 1_001);
        if labelled {
            assert!(p.loc("E1000").is_some());
        }
    }
}

#[test]
fn an_else_if_chain_inside_deep_nesting() {
    // 254 levels of nesting, a long `else if` chain of two levels at the bottom: still
    // within the limit.
    let src = format!(
        "var x, y;\nthread t {{\n{}{}\n{}}}\n",
        "if (x == 1) {\n".repeat(254),
        chain(500, false),
        "}\n".repeat(254)
    );
    let p = parse(&src).unwrap_or_else(|d| panic!("{d}"));
    every_pass(&p, &src);
    // One more genuine level is too many.
    let src = format!(
        "var x, y;\nthread t {{\n{}if (x == 1) {{ skip; }} else if (x == 2) {{ skip; }}\n{}}}\n",
        "if (x == 1) {\n".repeat(256),
        "}\n".repeat(256)
    );
    assert_eq!(parse(&src).unwrap_err().codes(), ["E0006"]);
}

#[test]
fn else_if_chains_are_bounded_for_the_recursive_passes() {
    // The first `if` is 1,024 levels high with 1,022 `else if`s: the most accepted.
    let src = else_ifs(1_022, false);
    let p = parse(&src).unwrap_or_else(|d| panic!("{d}"));
    every_pass(&p, &src);
    for n in [1_023, 100_000] {
        let d = parse(&else_ifs(n, false)).unwrap_err();
        assert_eq!(d.codes(), ["E0006"], "{d}");
        assert!(d.as_slice()[0].message.contains("`else if`s are nested deeper than 1024 levels"), "{d}");
    }
}

/// The bitwise operators and shifts take C's precedence: `|` looser than `^` looser than `&`
/// looser than `==`, the shifts between `< <=` and `+ -`; printing needs no parentheses for
/// it and keeps those that group otherwise, and parsing the print gives the same IR.
#[test]
fn bitwise_operators_and_shifts_have_cs_precedence() {
    let source = "var a, b, c, d, r;\nthread t {\n  r := a | b ^ c & d == 1 << 2 + 1;\n  r := (a | b) & c;\n  r := a >> (b >> c) < 3;\n}\n";
    let p = paces_cwhile::parse(source).unwrap();
    let printed = paces_cwhile::Printer::new(&p).print();
    assert!(printed.contains("r := a | b ^ c & d == 1 << 2 + 1;"), "{printed}");
    assert!(printed.contains("r := (a | b) & c;"), "{printed}");
    assert!(printed.contains("r := a >> (b >> c) < 3;"), "{printed}");
    let again = paces_cwhile::parse(&printed).unwrap();
    assert_eq!(paces_cwhile::Printer::new(&again).print(), printed);
    // The first: a | (b ^ (c & (d == (1 << (2 + 1))))).
    let StmtKind::Assign { expr: Expr::Chain(or), .. } = &p.stmts[0].kind else { panic!("{:?}", p.stmts[0]) };
    assert_eq!(or.links()[0].0, BinOp::BitOr);
    let Expr::Chain(xor) = &or.links()[0].1 else { panic!() };
    assert_eq!(xor.links()[0].0, BinOp::BitXor);
    let Expr::Chain(and) = &xor.links()[0].1 else { panic!() };
    assert_eq!(and.links()[0].0, BinOp::BitAnd);
    let Expr::Chain(eq) = &and.links()[0].1 else { panic!() };
    let Expr::Chain(shl) = &eq.links()[0].1 else { panic!() };
    assert_eq!(shl.links()[0].0, BinOp::Shl);
}
