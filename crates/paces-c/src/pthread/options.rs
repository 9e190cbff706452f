//! How a pthread C file is read: the options of [`super::parse`].

use std::path::PathBuf;

use super::pre::Preprocessor;

/// How a pthread C file is read.
#[derive(Clone, Debug)]
pub struct Options {
    /// The values a `__VERIFIER_nondet_*()` of a type wider than `_Bool` stands for, lowest
    /// and highest (both included; a nondet of an unsigned type takes those that are not
    /// negative). Default `0..=1`.
    pub nondet: (i64, i64),
    /// Which preprocessor runs.
    pub preprocessor: Preprocessor,
    /// The rounds a loop that creates threads runs when it is not unrolled exactly (no
    /// constant bound, such as `while (1) { pthread_create(...); }`): each round creates its
    /// own threads, and a path on which the loop would run once more is cut. Default 2.
    pub thread_rounds: usize,
    /// The directory of the program's file, where an `#include "name"` finds `name` (SV-COMP's
    /// tasks include a header of their own next to them); `None`: such an include is an
    /// error. Default `None`; the `paces` binary sets it to the file's directory.
    pub include_dir: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options { nondet: (0, 1), preprocessor: Preprocessor::Auto, thread_rounds: 2, include_dir: None }
    }
}
