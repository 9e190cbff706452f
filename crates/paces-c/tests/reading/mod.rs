//! Reading pthread C in the tests: by both preprocessors (which must agree), or to its first
//! error.

use paces_c::pthread::{parse, Options, Preprocessor, Reading};

/// The program read by both preprocessors, which must agree.
pub fn read(source: &str, options: &Options) -> Reading {
    let own = parse(source, &Options { preprocessor: Preprocessor::Own, ..options.clone() })
        .unwrap_or_else(|d| panic!("{}", paces_cwhile::render(&d, "t.c", source, false)));
    let auto = parse(source, options).unwrap_or_else(|d| panic!("{}", paces_cwhile::render(&d, "t.c", source, false)));
    assert_eq!(
        paces_cwhile::Printer::new(&own.program).print(),
        paces_cwhile::Printer::new(&auto.program).print(),
        "the two preprocessors read different programs"
    );
    auto
}

/// The first error reading `source`: its code, line, column and message.
pub fn error_of(source: &str) -> (String, usize, usize, String) {
    let Err(d) = parse(source, &Options::default()) else { panic!("read: {source}") };
    let d = d.iter().next().expect("one");
    let (line, col) = d.line_col(source);
    (d.code.to_owned(), line, col, d.message.clone())
}
