//! The dialect's integer operators beyond Cwhile's base: `&` and `|` outside a condition,
//! `^`, `<<` and `>>` are C's 64-bit operators, while `&` and `|` in a condition are `&&`
//! and `||`; a shift by an amount outside 0..63 makes the trace bad. (The models
//! `models/registers.c` and `models/bits.c` are checked, repaired and compared with SPIN by
//! the tests that run every model.)

use paces_explore::{check, Config, Verdict};

fn read(source: &str) -> paces_cwhile::Program {
    paces_c::parse(source)
        .unwrap_or_else(|d| panic!("does not read:\n{}", paces_cwhile::render(&d, "t.c", source, false)))
}

fn verdict(source: &str) -> String {
    check(&read(source), &Config::new()).unwrap().verdict.to_string()
}

#[test]
fn and_or_are_logical_in_a_condition_and_bitwise_elsewhere() {
    let source = "int x = 1, y = 2, r, q;\n\
        t() {\n\
        \x20 if (x & y) r = 1;\n\
        \x20 q = x & y | 4;\n\
        }\n\
        void main() { t(); }\n";
    let text = paces_cwhile::Printer::new(&read(source)).print();
    assert!(text.contains("if (x && y)"), "{text}");
    assert!(text.contains("q := x & y | 4;"), "{text}");
    // 1 && 2 holds (C's bitwise 1 & 2 would be 0); as an integer 1 & 2 | 4 is 4.
    let checked = source.replace("q = x & y | 4;", "q = x & y | 4;\n  assert(r == 1 & q == 4);");
    assert_eq!(verdict(&checked), "correct");
    let wrong = source.replace("q = x & y | 4;", "q = x & y | 4;\n  assert(q == 6);");
    assert_eq!(verdict(&wrong), "bad: 5 fails");
}

#[test]
fn each_operator_has_its_value_in_64_bits() {
    // (operator expression, its value computed by hand)
    let cases: &[(&str, i64)] = &[
        ("a & b", 8),
        ("a | b", 14),
        ("a ^ b", 6),
        ("a << 60", -4611686018427387904), // 12 << 60: the bit 1 << 63 and 1 << 62, wrapped
        ("-a >> 2", -3),
        ("a >> b", 0),
        ("~a ^ b", -7),        // -13 ^ 10
        ("a ^ b & 7 | 1", 15), // 12 ^ (10 & 7) | 1 = (12 ^ 2) | 1 = 15
    ];
    for (e, value) in cases {
        let source = format!(
            "int a = 12, b = 10, r;\nt() {{\n  r = {e};\n  assert(r == {value});\n}}\nvoid main() {{ t(); }}\n"
        );
        assert_eq!(verdict(&source), "correct", "{e}");
        let off = source.replace(&format!("r == {value}"), &format!("r == {}", value.wrapping_add(1)));
        assert_eq!(verdict(&off), "bad: 4 fails", "{e}");
    }
}

#[test]
fn a_shift_by_an_amount_outside_0_to_63_makes_the_trace_bad() {
    let source = "int k, r;\nt() {\n  r = 1 >> k;\n}\nu() {\n  k = 64;\n}\nvoid main() { t(); u(); }\n";
    let result = check(&read(source), &Config::new()).unwrap();
    assert_eq!(result.verdict.to_string(), "bad: shift out of range at 3");
    let Verdict::Bad(cex) = &result.verdict else { unreachable!() };
    assert!(cex.shift_out_of_range && !cex.division_by_zero);
    // Amounts from 0 to 63 are fine, however they are computed.
    assert_eq!(verdict(&source.replace("k = 64;", "k = 63;")), "correct");
    // A constant amount out of range is refused when the model is read.
    let err = paces_c::parse("int r;\nt() {\n  r = r << 64;\n}\nvoid main() { t(); }\n").unwrap_err();
    let d = err.iter().next().unwrap();
    assert_eq!((d.code, d.message.as_str()), ("C0117", "a shift by 64 is undefined in C"));
}

/// A bitwise `&` or `|` that Cwhile has where the dialect reads a condition is printed as
/// `(a & b) != 0`, so that the C text reads back with the same meaning.
#[test]
fn printed_c_keeps_bitwise_operators_bitwise_in_conditions() {
    let cw = "var x = 1, y = 2, r;\nthread t {\n  if (x & y) { r := 1; }\n  assert(!(x | y) || r == (x ^ y) - 3);\n}\n";
    let program = paces_cwhile::parse(cw).unwrap();
    let printed = paces_c::Printer::new(&program).print().unwrap();
    assert!(printed.text.contains("if ((x & y) != 0)"), "{}", printed.text);
    assert!(printed.text.contains("!((x | y) != 0)"), "{}", printed.text);
    let back = read(&printed.text);
    assert_eq!(
        paces_cwhile::Printer::new(&back).print().matches("&&").count(),
        0,
        "{}",
        paces_cwhile::Printer::new(&back).print()
    );
    let ours = check(&program, &Config::new()).unwrap().verdict.to_string();
    assert_eq!(ours, "correct");
    assert_eq!(check(&back, &Config::new()).unwrap().verdict.to_string(), ours);
}
