#![doc = include_str!("../README.md")]

mod config;
mod error;
mod labels;
mod learner;
mod lesson;
mod proposal;
mod runner;

pub use paces_constraint as constraint;
pub use paces_generalize as generalize;
pub use paces_solver as solver;
pub use paces_trace as trace;

pub use config::LearnerConfig;
pub use error::{Error, ErrorKind};
pub use labels::Labels;
pub use learner::Learner;
pub use lesson::{Conjunct, ConjunctKind, Lesson, LessonId, Role};
pub use proposal::Proposal;
pub use runner::{CheckError, Event, Found, Report, Runner, Stop, Verdict};
