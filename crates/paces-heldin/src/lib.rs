//! The twelve held-in benchmark programs: the Cwhile models of the paper's Table 1 in the
//! repository's `examples/` folder, described by `examples/MANIFEST.md`.
//!
//! `examples/` holds the only copy. Every test, benchmark, example and chore of the workspace
//! that reads a benchmark goes through this crate: [`NAMES`] lists them, [`source`] gives a
//! program's text (compiled in, so a test does no file I/O) and [`path`] its file (for what
//! needs a file, such as the `paces` binary). A benchmark is named by its file stem
//! (`"paper1"` for `examples/paper1.cw`).
//!
//! # Example
//! ```
//! assert_eq!(paces_heldin::NAMES.len(), 12);
//! assert!(paces_heldin::source("paper1").contains("thread thread1"));
//! assert!(paces_heldin::path("paper1").ends_with("examples/paper1.cw"));
//! ```

use std::path::{Path, PathBuf};

/// Defines [`NAMES`] and `SOURCES` (the texts, compiled in from `examples/`, in the same order).
macro_rules! benchmarks {
    ($($name:literal),* $(,)?) => {
        /// Every benchmark's name, sorted as its file name.
        pub const NAMES: &[&str] = &[$($name),*];

        const SOURCES: &[&str] = &[$(include_str!(concat!("../../../examples/", $name, ".cw"))),*];
    };
}

benchmarks![
    "dv1394",
    "ex-regr",
    "ex1",
    "ex2",
    "ex3",
    "ex4",
    "ex5",
    "iwl3945",
    "lc-rc",
    "paper1",
    "rtl8169",
    "usb-serial"
];

/// The index of a benchmark in [`NAMES`].
///
/// # Panics
/// When `name` is no benchmark's name.
fn index(name: &str) -> usize {
    NAMES.iter().position(|n| *n == name).unwrap_or_else(|| panic!("no held-in benchmark `{name}`; known: {NAMES:?}"))
}

/// The folder holding the benchmarks: the repository's `examples/`.
fn dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2);
    root.expect("the crate lies in crates/ of the repository").join("examples")
}

/// The file of a benchmark (`examples/NAME.cw`, an absolute path).
///
/// # Panics
/// When `name` is not in [`NAMES`].
pub fn path(name: &str) -> PathBuf {
    dir().join(format!("{}.cw", NAMES[index(name)]))
}

/// The text of a benchmark, as its file held it when this crate was built.
///
/// # Panics
/// When `name` is not in [`NAMES`].
pub fn source(name: &str) -> &'static str {
    SOURCES[index(name)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `examples/` holds exactly the listed programs, and the compiled-in texts are theirs.
    #[test]
    fn names_match_the_files_of_examples() {
        let mut files: Vec<String> = std::fs::read_dir(dir())
            .expect("examples/ is readable")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "cw"))
            .map(|p| p.file_stem().expect("a file name").to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(files, NAMES);
        for name in NAMES {
            assert_eq!(std::fs::read_to_string(path(name)).expect("the file is readable"), source(name), "{name}");
        }
    }

    #[test]
    fn the_manifest_describes_every_benchmark() {
        let manifest = std::fs::read_to_string(dir().join("MANIFEST.md")).expect("examples/MANIFEST.md");
        for name in NAMES {
            assert!(manifest.contains(&format!("| {name}.cw ")), "{name} has no row in examples/MANIFEST.md");
        }
    }

    #[test]
    #[should_panic(expected = "no held-in benchmark `paper2`")]
    fn an_unknown_name_panics() {
        let _ = source("paper2");
    }
}
