//! Figure 7's program, space and traces as a foreign model checker reports them (for the
//! learner's tests).

use paces_learn::constraint::{BlockId, ItemInfo, Loc, Space, SpaceBuilder};
use paces_learn::trace::{EventKind, ThreadId, Trace, TraceBuilder, VarId};

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// One step of the foreign checker's program: label, thread, kind, variables read, variable
/// written (always with 1), whether the step failed.
pub struct Step {
    pub label: &'static str,
    pub thread: u32,
    pub kind: EventKind,
    pub reads: &'static [u32],
    pub writes: Option<u32>,
}

pub const PROGRAM: [Step; 8] = [
    Step { label: "A", thread: 0, kind: EventKind::Plain, reads: &[], writes: Some(0) },
    Step { label: "B", thread: 0, kind: EventKind::Plain, reads: &[], writes: Some(1) },
    Step { label: "C", thread: 0, kind: EventKind::Plain, reads: &[], writes: Some(2) },
    Step { label: "1", thread: 1, kind: EventKind::Await, reads: &[0], writes: None },
    Step { label: "2", thread: 1, kind: EventKind::Await, reads: &[1], writes: None },
    Step { label: "3", thread: 1, kind: EventKind::Assert, reads: &[2], writes: None },
    Step { label: "n", thread: 2, kind: EventKind::Await, reads: &[2], writes: None },
    Step { label: "p", thread: 2, kind: EventKind::Assert, reads: &[1], writes: None },
];

pub fn step(label: &str) -> &'static Step {
    PROGRAM.iter().find(|s| s.label == label).expect("a label of the program")
}

/// The space: one block per thread, every pair free to change order (no two steps of one
/// thread conflict), awaits as preemption points, the threads declared.
pub fn space() -> Result<Space> {
    let mut b = SpaceBuilder::new();
    let blocks: Vec<BlockId> = (0..3).map(|_| b.block(false)).collect();
    for s in &PROGRAM {
        let loc = b.loc(s.label)?;
        let info = if s.kind == EventKind::Await { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
        b.item(blocks[s.thread as usize], loc, info)?;
    }
    for (i, &block) in blocks.iter().enumerate() {
        b.thread(&format!("thread{}", i + 1), block)?;
    }
    Ok(b.build()?)
}

/// A trace of flat threads: each label's step, in order, `failed` the label of the failing
/// step, then the steps of `pending` as pending steps (what each thread would run next, as a
/// checker that stops at the failure lists them).
pub fn trace(space: &Space, labels: &str, failed: Option<&str>, pending: &str) -> Result<Trace> {
    let mut tb = TraceBuilder::new();
    for (label, is_pending) in
        labels.split_whitespace().map(|l| (l, false)).chain(pending.split_whitespace().map(|l| (l, true)))
    {
        let s = step(label);
        let loc: Loc = space.loc(label).ok_or("an unknown label")?;
        let mut event =
            tb.flat_step(space, ThreadId::from_u32(s.thread), loc).kind(s.kind).failed(failed == Some(label));
        for &var in s.reads {
            event = event.read(VarId::from_u32(var));
        }
        if let Some(var) = s.writes {
            event = event.write(VarId::from_u32(var), 1);
        }
        if is_pending {
            event.push_pending();
        } else {
            event.push()?;
        }
    }
    Ok(tb.finish())
}
