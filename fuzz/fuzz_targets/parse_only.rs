//! Any bytes given to the Cwhile parser alone (no space, no export: the cheap target for long
//! runs): a program or diagnostics that render; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(diags) = paces_cwhile::parse_bytes(data) {
        assert!(!diags.is_empty());
        let text = String::from_utf8_lossy(data);
        let rendered = paces_cwhile::render(&diags, "fuzz.cw", &text, false);
        assert!(rendered.contains("error["));
    }
});
