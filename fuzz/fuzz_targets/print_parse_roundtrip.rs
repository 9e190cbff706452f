//! Any program that parses prints to text that parses to the same printed text, with the
//! same labels, and applying the original candidate changes nothing; printed with its
//! comments (`paces fmt`), it parses to the same program too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(program) = paces_cwhile::parse_bytes(data) else { return };
    let printed = paces_cwhile::Printer::new(&program).print();
    let again = match paces_cwhile::parse(&printed) {
        Ok(p) => p,
        Err(d) => panic!("printed program does not parse: {d}\n{printed}"),
    };
    assert_eq!(paces_cwhile::Printer::new(&again).print(), printed);
    assert_eq!(again.loc_names, program.loc_names);
    let space = program.space();
    let same = program.apply(&paces_constraint::Candidate::original(&space)).expect("the original candidate applies");
    assert_eq!(paces_cwhile::Printer::new(&same).print(), printed);
    let source = std::str::from_utf8(data).expect("a parsed program is UTF-8");
    let formatted = paces_cwhile::Printer::new(&program).comments(source).print();
    match paces_cwhile::parse(&formatted) {
        Ok(p) => assert_eq!(paces_cwhile::Printer::new(&p).print(), printed),
        Err(d) => panic!("formatted program does not parse: {d}\n{formatted}"),
    }
});
