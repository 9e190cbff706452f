#![doc = include_str!("../README.md")]

mod error;
mod labels;
mod learner;
mod runner;

pub use paces_constraint as constraint;
pub use paces_generalize as generalize;
pub use paces_solver as solver;
pub use paces_trace as trace;

pub use error::{Error, ErrorKind};
pub use labels::Labels;
pub use learner::{Conjunct, ConjunctKind, Learner, LearnerConfig, Lesson, LessonId, Proposal, Role};
pub use runner::{CheckError, Event, Found, Report, Runner, Stop, Verdict};
