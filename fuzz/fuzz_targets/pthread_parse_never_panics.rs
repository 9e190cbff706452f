//! Any bytes given to the pthread C reader (`paces_c::pthread`, the crate's own preprocessor,
//! no include directory): a program (whose space and Cwhile printing are then built) or
//! diagnostics that render; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use paces_c::pthread::{parse_bytes, Options, Preprocessor};

fuzz_target!(|data: &[u8]| {
    let options = Options { preprocessor: Preprocessor::Own, thread_rounds: 2, ..Options::default() };
    match parse_bytes(data, &options) {
        Ok(read) => {
            let _ = read.program.space();
            let _ = paces_cwhile::Printer::new(&read.program).print();
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            let text = String::from_utf8_lossy(data);
            let rendered = paces_cwhile::render(&diags, "fuzz.c", &text, false);
            assert!(rendered.contains("error["));
        }
    }
});
