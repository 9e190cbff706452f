//! The error type of the learner.

/// What went wrong; see [`Error::kind`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Learning from a trace failed for a reason other than those below.
    Learn,
    /// A trace given as bad has no failing event and no blocked thread.
    NotBad,
    /// A trace given as good has a failing event, or blocked or pending steps (a run that
    /// stops short of its threads' ends, or a deadlock).
    NotGood,
    /// A trace does not fit the space: its events lift to locations that are not items of one
    /// block, or it names events it does not hold.
    SpaceMismatch,
    /// The solver failed.
    Solve,
    /// An inconsistency between the crates (a bug: please report it).
    Internal,
    /// A resource limit of a component (an elimination graph whose tables would pass their
    /// memory bound).
    Limit,
    /// The deadline given with [`Learner::set_deadline`](crate::Learner::set_deadline) passed
    /// during a search; the learner stays usable.
    Deadline,
    /// A trace names a thread the space does not declare.
    UnknownThread,
    /// A trace names a location the space does not have.
    UnknownLocation,
    /// A trace's scope names a block the space does not have.
    UnknownBlock,
    /// A trace's scope does not fit the space: empty, an item outside its entry's block, or an
    /// innermost item that is not the event's own location.
    ScopeMismatch,
    /// A thread of a trace runs a top block that is not its own (another thread's, or not the
    /// one the space declares for it).
    ThreadBlock,
    /// A trace breaks program order: a thread runs two items against a pair the space fixes,
    /// or a blocked or pending step does not come after its thread's last event in the
    /// thread's order; or a final check out of place (one that writes, a thread's step after
    /// it, blocked or pending steps in a trace that has one).
    ProgramOrder,
    /// Two threads of a trace read or write a variable declared local to one thread.
    SharedLocal,
    /// [`Learner::retract`](crate::Learner::retract) was given an id the learner did not give.
    UnknownLesson,
    /// [`Learner::pop`](crate::Learner::pop) was called with no scope open.
    NoScope,
    /// The client's checker failed during a [`Runner`](crate::Runner) run; the message holds
    /// its error.
    Check,
}

impl ErrorKind {
    /// What failed, in words: the first part of an error's message.
    fn context(&self) -> &'static str {
        match self {
            ErrorKind::Learn => "learning from a trace failed",
            ErrorKind::NotBad => "the trace is not bad",
            ErrorKind::NotGood => "the trace is not good",
            ErrorKind::SpaceMismatch => "the trace does not fit the space",
            ErrorKind::Solve => "the solver failed",
            ErrorKind::Internal => "internal inconsistency",
            ErrorKind::Limit => "a resource bound was reached",
            ErrorKind::Deadline => "the deadline passed",
            ErrorKind::UnknownThread
            | ErrorKind::UnknownLocation
            | ErrorKind::UnknownBlock
            | ErrorKind::ScopeMismatch
            | ErrorKind::ThreadBlock
            | ErrorKind::ProgramOrder
            | ErrorKind::SharedLocal => "the trace does not fit the space",
            ErrorKind::UnknownLesson => "no such lesson",
            ErrorKind::NoScope => "no scope is open",
            ErrorKind::Check => "the checker failed",
        }
    }
}

paces_constraint::define_sourced_error!(
    /// The error of the learner: a [kind](Error::kind), a message, and the component's own error
    /// as its [source](std::error::Error::source) when a component failed.
    ///
    /// `Display` prints the message followed by the source's (so `{e}` says everything); walk
    /// `source()` to get the component's error itself, e.g. to downcast it.
    Error,
    ErrorKind
);

impl From<paces_solver::Error> for Error {
    fn from(e: paces_solver::Error) -> Self {
        let kind = match e.kind() {
            paces_solver::ErrorKind::Deadline => ErrorKind::Deadline,
            _ => ErrorKind::Solve,
        };
        let context = kind.context();
        Error::from_source(kind, context, e)
    }
}

impl From<paces_generalize::Error> for Error {
    fn from(e: paces_generalize::Error) -> Self {
        let kind = match e.kind() {
            paces_generalize::ErrorKind::TooLarge => ErrorKind::Limit,
            paces_generalize::ErrorKind::NotBad => ErrorKind::NotBad,
            paces_generalize::ErrorKind::SpaceMismatch | paces_generalize::ErrorKind::UnknownEvent => {
                ErrorKind::SpaceMismatch
            }
            _ => ErrorKind::Learn,
        };
        Error::from_source(kind.clone(), kind.context(), e)
    }
}

impl From<paces_trace::Error> for Error {
    fn from(e: paces_trace::Error) -> Self {
        use paces_trace::ErrorKind as T;
        let kind = match e.kind() {
            T::UnknownThread => ErrorKind::UnknownThread,
            T::UnknownLoc => ErrorKind::UnknownLocation,
            T::UnknownBlock => ErrorKind::UnknownBlock,
            T::ScopeMismatch | T::EmptyScope => ErrorKind::ScopeMismatch,
            T::ScopeOrder | T::FixedOrder => ErrorKind::ProgramOrder,
            T::SharedLocal => ErrorKind::SharedLocal,
            T::FinalCheck => ErrorKind::ProgramOrder,
            T::ThreadBlock => ErrorKind::ThreadBlock,
            _ => ErrorKind::SpaceMismatch,
        };
        Error::from_source(kind.clone(), kind.context(), e)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use paces_constraint::{Arena, ItemInfo, SpaceBuilder};
    use paces_generalize::{eliminate, EliminateConfig};
    use paces_trace::{BlockInstance, EventKind, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId};

    use super::*;

    /// The paper's Example 4 (`A: x:=1; C: y:=1 || 1: await(x==1); 2: assert(y==1)`): its space
    /// and the bad trace A 1 2 C, or (with `fail` false) the same run with no failure.
    fn example(fail: bool) -> (paces_constraint::Space, Trace) {
        let mut b = SpaceBuilder::new();
        let (t1, t2) = (b.block(false), b.block(false));
        let [a, c, one, two] = ["A", "C", "1", "2"].map(|n| b.loc(n).unwrap());
        b.item(t1, a, ItemInfo::SIMPLE).unwrap();
        b.item(t1, c, ItemInfo::SIMPLE).unwrap();
        b.item(t2, one, ItemInfo::AWAIT).unwrap();
        b.item(t2, two, ItemInfo::SIMPLE).unwrap();
        let space = b.build().unwrap();
        let (x, y) = (VarId::from_u32(0), VarId::from_u32(1));
        let (th1, th2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
        let at = |block, item| vec![ScopeEntry { instance: BlockInstance { block, instance: 0 }, item }];
        let mut tb = TraceBuilder::new();
        tb.step(th1, a, at(t1, a)).write(x, 1).push().unwrap();
        tb.step(th2, one, at(t2, one)).kind(EventKind::Await).read(x).push().unwrap();
        tb.step(th2, two, at(t2, two)).kind(EventKind::Assert).failed(fail).read(y).push().unwrap();
        tb.step(th1, c, at(t1, c)).write(y, 1).push().unwrap();
        (space, tb.finish())
    }

    /// An elimination graph past its memory bound is a resource limit, not a learning error:
    /// the repair loop turns it into the stop "bound reached".
    #[test]
    fn an_elimination_past_its_memory_bound_is_a_limit() {
        let (space, bad) = example(true);
        let config = EliminateConfig::new().max_memory(1);
        let e = eliminate(&bad, &space, &mut Arena::new(), &config).unwrap_err();
        assert_eq!(Error::from(e).kind(), &ErrorKind::Limit);
    }

    /// A good trace given as bad: the kind says so and the generalisation's error is the source.
    #[test]
    fn a_trace_that_is_not_bad_keeps_its_kind_and_source() {
        let (space, good) = example(false);
        let e = eliminate(&good, &space, &mut Arena::new(), &EliminateConfig::new()).unwrap_err();
        let text = e.to_string();
        let error = Error::from(e);
        assert_eq!(error.kind(), &ErrorKind::NotBad);
        let source = error.source().expect("the source is kept");
        let inner = source.downcast_ref::<paces_generalize::Error>().expect("the generalisation's error");
        assert_eq!(inner.kind(), &paces_generalize::ErrorKind::NotBad);
        // The generalisation's message already says it: the words are not repeated.
        assert_eq!(text, "the trace is not bad: no event failed and no thread is blocked");
        assert_eq!(error.to_string(), text);
    }
}
