//! Any bytes: parsing ends in a program or in diagnostics that render, never in a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match paces_cwhile::parse_bytes(data) {
        Ok(program) => {
            let _ = program.space();
            let _ = paces_cwhile::to_promela(&program, &String::from_utf8_lossy(data));
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            let text = String::from_utf8_lossy(data);
            let rendered = paces_cwhile::render(&diags, "fuzz.cw", &text, false);
            assert!(rendered.contains("error["));
        }
    }
});
