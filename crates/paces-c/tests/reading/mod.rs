//! Reading pthread C test programs: by both preprocessors (which must agree), the first
//! error's place, a repair written back into the file. Shared by the tests of the pthread
//! reader, each of which uses some of them.
#![allow(dead_code)]

use paces::Repair;
use paces_c::pthread::{parse, Options, Preprocessor, Printer, Reading};
use paces_explore::{check, Config, FailureKinds, Verdict};

/// The program read with `options` by both preprocessors, which must agree.
pub fn read_with(source: &str, options: &Options) -> Reading {
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

/// The program read by both preprocessors, which must agree; its model is exact (no bound).
pub fn read(source: &str) -> Reading {
    let auto = read_with(source, &Options::default());
    assert!(auto.bounds.is_empty(), "{:?}", auto.bounds);
    auto
}

/// The first error reading `source`: its code, line, column and message.
pub fn error_of(source: &str) -> (String, usize, usize, String) {
    let Err(d) = parse(source, &Options::default()) else { panic!("read: {source}") };
    let d = d.iter().next().expect("one");
    let (line, col) = d.line_col(source);
    (d.code.to_owned(), line, col, d.message.clone())
}

/// Asserts that reading `source` stops with `C0410` at `line`:`col`, the message saying `words`.
#[track_caller]
pub fn refused(source: &str, line: usize, col: usize, words: &str) {
    let (code, l, c, message) = error_of(source);
    assert_eq!((code.as_str(), l, c), ("C0410", line, col), "{message}");
    assert!(message.contains(words), "{message}");
}

/// The repair of `source` written into it, read back and checked: no error remains.
pub fn repaired(source: &str) -> String {
    let reading = read(source);
    let report = Repair::new().run(&reading.program).expect("the loop runs");
    let fixed = report.repaired.as_ref().expect("a repair");
    let text = Printer::new(fixed).splice(source, &reading.program).expect("written into the file");
    let back = read(&text);
    let config = Config::new().find(FailureKinds::BAD);
    assert!(matches!(check(&back.program, &config).expect("check").verdict, Verdict::Correct), "{text}");
    text
}
