//! How a pthread C file is read: the options of [`super::parse`].

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
}

impl Default for Options {
    fn default() -> Self {
        Options { nondet: (0, 1), preprocessor: Preprocessor::Auto }
    }
}
