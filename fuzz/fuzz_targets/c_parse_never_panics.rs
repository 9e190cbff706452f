//! Any bytes given to the C frontend: a program (whose space and C printing are then built)
//! or diagnostics that render; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match paces_c::parse_bytes(data) {
        Ok(program) => {
            let _ = program.space();
            let _ = paces_c::Printer::new(&program).print();
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            let text = String::from_utf8_lossy(data);
            let rendered = paces_cwhile::render(&diags, "fuzz.c", &text, false);
            assert!(rendered.contains("error["));
        }
    }
});
