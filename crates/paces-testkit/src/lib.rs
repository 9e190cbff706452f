//! Differential testing of the checker (internal, `publish = false`; a dev-dependency of the
//! tests and a dependency of `cargo xtask differential`):
//!
//! * [`gen`]: random small Cwhile programs (proptest strategies) covering the constructs of
//!   the language in every position;
//! * [`interp`]: a brute-force interpreter of the language's contract on the generated
//!   statements, independent of the checker's code;
//! * [`spin`]: SPIN's verdicts on a Promela model;
//! * [`diff`]: one program through the checker's configurations, the interpreter and SPIN,
//!   with the disagreements;
//! * [`families`]: buggy programs with a given number of threads running the same code, for
//!   measuring how the repair loop grows with the threads;
//! * [`programs`]: a seeded stream of generated programs, each of which shrinks;
//! * [`Rng`]: a seeded xorshift generator for tests and benchmarks.

pub mod diff;
pub mod families;
pub mod gen;
pub mod interp;
pub mod programs;
mod rng;
pub mod spin;

pub use rng::Rng;
