//! Trace model and trace-analysis graphs for PACES (under construction: the model is here,
//! the graph and LearnGoodUnder follow).

mod model;

pub use model::{
    lift, BlockInstance, Event, EventId, EventKind, Read, ScopeEntry, StepBuilder, ThreadId, Trace, TraceBuilder,
    TraceError, TraceErrorKind, VarId, Write,
};
