//! The types of a thread's control graph: control points, the steps taken at them, the
//! options (a step with the silent moves leading to it), block occurrences and atomic
//! regions.

use paces_constraint::{BlockId, Loc};
use paces_trace::EventKind;

use super::code::Code;
use super::layout::VarRef;
use crate::bits::Bits;

/// A structural move that takes no step. `Push`/`Pop` open and close block instances (for
/// trace scopes); `LoopEnter`/`LoopExit` count loop iterations (for `unwind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Move {
    Push(u32),
    Pop,
    LoopEnter(u32),
    LoopExit(u32),
}

/// What a step does.
#[derive(Clone, Debug)]
pub(crate) enum StepKind {
    Assign(VarRef, Code),
    Assume(Code),
    Await(Code),
    Assert(Code),
    Skip,
}

/// One simple step of a thread (a statement or a derived step), at one inlined place.
#[derive(Clone, Debug)]
pub(crate) struct StepInfo {
    /// The control point where the step is taken.
    pub site: u32,
    /// The control point after the step.
    pub after: u32,
    /// Moves made by the step itself (entering a branch or a loop body, leaving a loop).
    pub after_moves: Vec<Move>,
    pub loc: Loc,
    pub kind: StepKind,
    pub event: EventKind,
    /// Variables read, without repetition, in order of first occurrence.
    pub reads: Vec<VarRef>,
    /// Globals read and written.
    pub r: Bits,
    pub w: Bits,
    /// The atomic region the step belongs to.
    pub region: Option<u32>,
}

/// A step a thread may take next from a control point, with the moves that lead to it.
#[derive(Clone, Debug)]
pub(crate) struct Opt {
    pub step: u32,
    pub moves: Vec<Move>,
    /// Whether `moves` holds loop moves (only those matter for the state).
    pub has_loop_moves: bool,
    /// Globals the transition may read and write (for a step that enters an atomic region:
    /// everything the region may touch).
    pub r: Bits,
    pub w: Bits,
}

/// A block at one inlined place.
#[derive(Clone, Debug)]
pub(crate) struct Occ {
    pub block: BlockId,
    /// The enclosing occurrence and the index of the item holding this one.
    pub parent: Option<(u32, u32)>,
    pub first_point: u32,
    pub len: u32,
    /// The call statements this occurrence was inlined through, outermost first.
    pub calls: Vec<Loc>,
}

/// A control point: before an item of a block occurrence, at its end, or in the middle of a
/// `lock`/`down`.
#[derive(Clone, Debug)]
pub(crate) struct Point {
    pub occ: u32,
    pub region: Option<u32>,
    /// The item the point stands at (the block's item, or the `lock` for a middle point).
    pub item: Option<Loc>,
    pub options: Vec<Opt>,
    /// Whether the thread can reach its end from here without a step.
    pub can_finish: bool,
    /// For a point in an atomic region: the moves that leave the region without a step.
    pub exit_moves: Option<Vec<Move>>,
    /// Globals that steps reachable from here may read and write.
    pub fut_r: Bits,
    pub fut_w: Bits,
    /// Globals that some path from here may read before the thread writes them: no other
    /// value of a global outside every thread's `live_r` is ever read (the checker resets
    /// it to 0).
    pub live_r: Bits,
    /// The thread's local slots whose value can never be read again from here: the checker
    /// resets them to 0 (a global, through every thread's `live_r`).
    pub dead: Vec<u32>,
    /// Whether the point's only next step is outside atomic blocks, not an `await`, and
    /// touches only variables private to the thread (it may be merged into the step before).
    pub private_next: bool,
    /// Whether this is the thread's entry and its every option a wait that a frontend marks
    /// as the threads' structure (`Parts::thread_structure`: the pthread frontend's wait for a
    /// `pthread_create`): while no option can be taken, the thread has not been created, and
    /// it may never be, so it stands as a thread at its end does (`Engine::unstarted`).
    pub start_gate: bool,
}

/// An outermost atomic block (a user `atomic`, or a `lock`/`down` outside one) at one
/// inlined place.
#[derive(Clone, Debug)]
pub(crate) struct Region {
    /// The atomic statement (its label names the region in a livelock).
    pub loc: Loc,
    /// The statement whose label names the region in a deadlock, for a thread waiting
    /// before it: the atomic statement, or for a section added by a transformation
    /// (labelled `atomic_FIRST`) its first item `FIRST`.
    pub wait_loc: Loc,
    /// The point after the region.
    pub exit: u32,
    /// For a user `atomic` block: the step that takes it along a path with no step of its
    /// own (through an empty branch, past a loop left at once), a `skip` at the block's label
    /// to `exit`. It is no option of any point by itself: a point from which such a path
    /// starts gets it, so the block is one step along every path, as SPIN's `skip` of an
    /// empty branch makes it too.
    pub pass: Option<u32>,
    pub r: Bits,
    pub w: Bits,
}

/// One thread, compiled.
#[derive(Clone, Debug)]
pub(crate) struct TCode {
    pub name: String,
    pub points: Vec<Point>,
    pub steps: Vec<StepInfo>,
    pub occs: Vec<Occ>,
    pub regions: Vec<Region>,
    /// The point where the thread starts.
    pub entry: u32,
    /// Number of loop occurrences (loop counter slots).
    pub n_loops: u32,
    /// Initial values of the local slots.
    pub local_init: Vec<i64>,
}
