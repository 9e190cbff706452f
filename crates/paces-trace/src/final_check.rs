//! Final checks: assertions evaluated once every thread has finished, reading the final
//! values ([`TraceBuilder::final_check`]).

use paces_constraint::Loc;

use crate::{EventKind, StepBuilder, ThreadId, Trace, TraceBuilder};

/// The location of a final check: none of any space's.
const FINAL_LOC: Loc = Loc::from_u32(u32::MAX);

impl TraceBuilder {
    /// Starts a final check: an assertion evaluated once every thread has finished (after a
    /// join of all threads), reading the final values, so that a checker whose property is
    /// checked at the end need not invent a thread for it. It is an event of
    /// [`ThreadId::FINAL`] of kind [`EventKind::Assert`] with no scope; its reads
    /// ([`StepBuilder::read`]) take the last write of each variable, and it may read any
    /// thread's local variables. Mark it [`StepBuilder::failed`] when the assertion does not
    /// hold.
    ///
    /// Final checks come after every thread's steps: [`StepBuilder::push`] refuses a final
    /// check that writes and a thread's step after a final check, and
    /// [`StepBuilder::push_blocked`] a blocked step in a trace with one (a final check runs
    /// only when no thread is blocked); [`Trace::check_against`] refuses pending steps in such
    /// a trace.
    ///
    /// A bad trace whose failure is a final check is generalised through the check's
    /// reads-from edges from the last writers: the fixes are those of the same check written
    /// as the one step of a thread of its own.
    ///
    /// # Example
    /// A lost update: two threads increment `x` through a register each; the check `x == 2`
    /// at the end fails when both read 0.
    /// ```
    /// use paces_constraint::{ItemInfo, SpaceBuilder};
    /// use paces_trace::{ThreadId, TraceBuilder, VarId};
    ///
    /// let mut b = SpaceBuilder::new();
    /// let (t1, t2) = (b.open_block(), b.open_block());
    /// let r1 = b.add_item(t1, "r1", ItemInfo::SIMPLE)?;
    /// let s1 = b.add_item(t1, "s1", ItemInfo::SIMPLE)?;
    /// let r2 = b.add_item(t2, "r2", ItemInfo::SIMPLE)?;
    /// let s2 = b.add_item(t2, "s2", ItemInfo::SIMPLE)?;
    /// let space = b.build()?;
    /// let (x, a, c) = (VarId::from_u32(0), VarId::from_u32(1), VarId::from_u32(2));
    /// let (th1, th2) = (ThreadId::from_u32(0), ThreadId::from_u32(1));
    /// let mut tb = TraceBuilder::for_space(&space);
    /// tb.local(a).local(c);
    /// tb.flat(th1, r1).read(x).write(a, 0).push()?;
    /// tb.flat(th2, r2).read(x).write(c, 0).push()?;
    /// tb.flat(th1, s1).read(a).write(x, 1).push()?;
    /// tb.flat(th2, s2).read(c).write(x, 1).push()?;
    /// let check = tb.final_check().read(x).failed(true).push()?;
    /// let trace = tb.finish();
    /// assert!(trace.event(check).is_final_check());
    /// assert_eq!(trace.final_checks().count(), 1);
    /// trace.check_against(&space)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn final_check(&mut self) -> StepBuilder<'_> {
        self.step(ThreadId::FINAL, FINAL_LOC, Vec::new()).kind(EventKind::Assert)
    }
}

impl Trace {
    /// The trace's final checks ([`TraceBuilder::final_check`]), in order: its last events.
    pub fn final_checks(&self) -> impl Iterator<Item = &crate::Event> {
        self.events().iter().filter(|e| e.is_final_check())
    }
}
