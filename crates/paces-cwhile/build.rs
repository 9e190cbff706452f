//! Generates the parser from `src/grammar.lalrpop` and the list of corpus tests from
//! `test_data/{ok,err}`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
        .expect("the grammar in src/grammar.lalrpop is valid");

    // One test per corpus file: `corpus_test!(name, "dir", "stem");`.
    let mut out = String::new();
    for dir in ["ok", "err"] {
        let path = Path::new("test_data").join(dir);
        println!("cargo:rerun-if-changed={}", path.display());
        let mut stems: Vec<String> = std::fs::read_dir(&path)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "cw"))
                    .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        stems.sort();
        for stem in stems {
            let ident: String =
                stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
            writeln!(out, "corpus_test!({dir}_{ident}, {dir:?}, {stem:?});").unwrap();
        }
    }
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("corpus_tests.rs");
    std::fs::write(dest, out).unwrap();
}
