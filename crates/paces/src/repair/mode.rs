//! Which traces the loop learns from: [`Mode`].

use std::fmt;

/// Which traces the loop learns from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// PACES: learn from good traces of the original program first, then from bad traces.
    #[default]
    Mixed,
    /// The CEGIS baseline: learn from counterexamples only.
    BadOnly,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Mixed => "mixed",
            Mode::BadOnly => "bad-only",
        })
    }
}
