//! Completing a bad trace past its failure (execution goes on after a failed assertion), so
//! that the generalisation of a counterexample sees the writes that come after the failing
//! read (the paper's Example 4 needs `C` after the failing `2`).

use paces_cwhile::ir::Program;
use rustc_hash::FxHashSet;

use crate::check::Counterexample;
use crate::compile::compile;
use crate::engine::{Engine, Settings};
use crate::error::{Error, ErrorKind};
use crate::replay::{build_trace, is_complete, resolve, take, to_schedule, Conf, XStep};

impl Counterexample {
    /// This counterexample run on past its failure, ready for generalisation: the step
    /// between [`check`](crate::check) and `paces_generalize::eliminate`. A checked bad trace
    /// ends at its failing step; the writes the failure must precede often come later (the
    /// paper's Example 4 needs `C` after the failing `2`), so its trace is marked
    /// [`stops_short`](paces_trace::Trace::stops_short) and the generalisation refuses it
    /// until it is completed. A deadlock, an atomic livelock and a trace that already ends
    /// with every thread at its end come back unchanged.
    ///
    /// The completion takes the threads in index order where there is a choice, those that
    /// could already stop where they stand last (so an idle loop is not run on): a bounded
    /// depth-first search from the end of the schedule that explores at most `max_steps`
    /// configurations, on paths of at most twice the program's control points (plus 16) past
    /// the schedule. When no completion is found within the bound (the threads left block
    /// each other, say), the schedule is extended by the longest run the search found and the
    /// trace gains each thread's [pending steps](paces_trace::Trace::pending): what it would
    /// run next, alone, as far as its path is determined.
    ///
    /// # Errors
    /// When the program cannot be compiled or the schedule is not a trace of it.
    ///
    /// # Example
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let program = paces_cwhile::parse(
    ///     "var x = 0, y = 0; thread a { A: x := 1; C: y := 1; } thread b { 1: await(x == 1); 2: assert(y == 1); }",
    /// )?;
    /// let result = paces_explore::check(&program, &paces_explore::Config::new())?;
    /// let cex = result.verdict.counterexample().unwrap();
    /// assert!(cex.trace.stops_short()); // A 1 2: the check stops at the failure
    /// let full = cex.complete(&program, 100_000)?;
    /// assert_eq!(full.trace.len(), 4); // A 1 2 C: C comes after the failure
    /// assert!(full.trace.is_bad() && !full.trace.stops_short());
    /// # Ok(()) }
    /// ```
    pub fn complete(&self, program: &Program, max_steps: usize) -> Result<Counterexample, Error> {
        complete_counterexample(program, self, max_steps)
    }
}

/// [`Counterexample::complete`], as a function: `cex` run on past its failure, exploring at
/// most `max_steps` configurations.
///
/// # Errors
/// When the program cannot be compiled or the schedule is not a trace of it.
pub fn complete_counterexample(
    program: &Program,
    cex: &Counterexample,
    max_steps: usize,
) -> Result<Counterexample, Error> {
    if !cex.trace.blocked().is_empty() || cex.cycle_start.is_some() {
        return Ok(cex.clone());
    }
    let c = compile(program)?;
    let e = Engine::new(&c, Settings::default());
    let xs = resolve(&e, &cex.schedule)?;
    let mut conf = Conf { state: e.initial().to_vec(), holder: None };
    for &x in &xs {
        conf = take(&e, &conf, x)
            .map_err(|r| Error::new(ErrorKind::NotATrace, format!("the counterexample does not replay: {r}")))?
            .0;
    }
    if is_complete(&e, &conf) {
        return Ok(cex.clone());
    }
    let mut seen: FxHashSet<Conf> = FxHashSet::default();
    seen.insert(conf.clone());
    // Depth-first: frames of (configuration, its moves, next move index).
    let mut stack: Vec<(Conf, Vec<XStep>, usize)> = vec![(conf.clone(), next_moves(&e, &conf), 0)];
    let mut path: Vec<XStep> = Vec::new();
    // The longest path found, for when no completion exists.
    let mut deepest: Vec<XStep> = Vec::new();
    let mut budget = max_steps;
    // Runs on past the failure go through each thread's code about twice at most: a loop
    // that could run forever (a counter that only grows) is not followed further.
    let max_extra = 16 + 2 * c.threads.iter().map(|t| t.points.len()).sum::<usize>();
    while let Some((here, ms, next)) = stack.last_mut() {
        if *next >= ms.len() || budget == 0 || path.len() >= max_extra {
            stack.pop();
            path.pop();
            continue;
        }
        let x = ms[*next];
        *next += 1;
        budget -= 1;
        let Ok((after, _)) = take(&e, here, x) else { continue };
        if !seen.insert(after.clone()) {
            continue;
        }
        path.push(x);
        // A run ends between steps of its threads: never halfway through an atomic block,
        // whose steps happen all together or not at all.
        if path.len() > deepest.len() && between_steps(&e, &after) {
            deepest.clone_from(&path);
        }
        if is_complete(&e, &after) {
            return extended(&e, cex, &xs, &path, false);
        }
        let m = next_moves(&e, &after);
        stack.push((after, m, 0));
    }
    // No completion: the longest run found, then the threads' next steps as pending steps.
    extended(&e, cex, &xs, &deepest, true)
}

/// The counterexample `cex` (whose steps are `xs`) run on by `more`; with `pending`, the
/// threads' next steps follow as pending steps.
fn extended(
    e: &Engine<'_>,
    cex: &Counterexample,
    xs: &[XStep],
    more: &[XStep],
    pending: bool,
) -> Result<Counterexample, Error> {
    let mut all = xs.to_vec();
    all.extend_from_slice(more);
    Ok(Counterexample {
        schedule: to_schedule(e.c, &all),
        trace: build_trace(e, &all, None, pending)?,
        failing_step: cex.failing_step,
        division_by_zero: cex.division_by_zero,
        shift_out_of_range: cex.shift_out_of_range,
        cycle_start: None,
    })
}

/// The candidate next steps in `conf`: inside the held region first, then fresh steps thread
/// by thread.
fn next_moves(e: &Engine<'_>, conf: &Conf) -> Vec<XStep> {
    let c = e.c;
    let n = c.threads.len();
    let mut out = Vec::new();
    if let Some(h) = conf.holder {
        for o in &c.threads[h].points[e.pc(&conf.state, h)].options {
            out.push(XStep { thread: h, step: o.step, fresh: false });
        }
    }
    let mut s = conf.state.clone();
    if let Some(h) = conf.holder {
        if !e.leave_region(&mut s, h) {
            return out;
        }
    }
    // Threads that still have to reach their end first; a thread that could stop where it
    // stands (an idle worker loop) only moves when the others need it, or a loop that
    // could run on forever (an unbounded counter) would fill the search.
    let at_end = |t: usize| e.may_stop(&s, t);
    for t in (0..n).filter(|&t| !at_end(t)).chain((0..n).filter(|&t| at_end(t))) {
        for o in &c.threads[t].points[e.pc(&s, t)].options {
            out.push(XStep { thread: t, step: o.step, fresh: true });
        }
    }
    out
}

/// Whether no thread stands inside an atomic block in `conf` (the holder, if any, is at the
/// block's end and leaves it without a step).
fn between_steps(e: &Engine<'_>, conf: &Conf) -> bool {
    conf.holder.is_none_or(|h| {
        let mut s = conf.state.clone();
        e.leave_region(&mut s, h)
    })
}
