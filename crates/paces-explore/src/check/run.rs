//! Running the checker's searches: the search without merging, the search without the
//! reduction, the bug hunt and the merged search, and stitching their answers together.

use std::sync::Arc;
use std::time::Instant;

use paces_cwhile::ir::Program;

use crate::compile::{compile_with, Compiled};
use crate::error::Error;

use super::bfs::search;
use super::config::{Config, FailureKinds};
use super::hunt::{hunt, Hunt};
use super::result::{Answer, Bound, CheckResult, Effort, Findings, Verdict};
use super::stored::passed_labels;

/// Explores every reachable state of the program and reports whether an assertion can fail,
/// a deadlock or an atomic livelock is reachable.
///
/// Exploration is breadth first, so the first bad trace found is among the shortest (in
/// transitions of the reduced state graph; an atomic block counts as one transition). With
/// partial-order reduction a transition may also carry the steps its thread would take alone,
/// after a first search without merging ([`Config::unmerged_states`]; docs/explore.md,
/// "Merging the steps a thread would take alone"). The verdict and counterexample do not
/// depend on [`Config::threads`].
///
/// # Errors
/// When the program cannot be compiled (see [`ErrorKind`](crate::ErrorKind)).
///
/// # Example
/// ```
/// use paces_explore::{check, Config, Verdict};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let program = paces_cwhile::parse(
///     "var x = 0; thread a { A: x := 1; B: x := 0; } thread b { C: assert(x == 0); }",
/// )?;
/// let result = check(&program, &Config::new())?;
/// let Verdict::Bad(cex) = &result.verdict else { panic!("expected a bad trace") };
/// assert_eq!(cex.schedule.len(), 2); // A, then C fails
/// # Ok(()) }
/// ```
pub fn check(program: &Program, config: &Config) -> Result<CheckResult, Error> {
    // Looking for no failing assertion, an assertion changes no variable and stops nothing: a
    // skip in its place has the same runs, and the reduction no longer orders other threads'
    // writes against what it reads (docs/explore.md, "Searches that look for no failure").
    let no_failures = !config.find.contains(FailureKinds::BAD) && !config.deadlocks_after_failure;
    let c = compile_with(program, no_failures)?;
    check_compiled(&c, config)
}

/// The search behind [`check`]. With the reduction on, the search merges the steps a thread
/// would take alone (docs/explore.md), which stores far fewer states but makes a
/// counterexample shortest in merged transitions, not in steps. The repair loop generalises a
/// trace shortest in steps best, so a search without merging, bounded by
/// [`Config::unmerged_states`], comes first: when it covers the whole space or finds the
/// failure a check stops at, it is the answer. Then a search without the reduction, bounded
/// by [`Config::unreduced_states`], finds a shallow failure however the reduction starves;
/// when it covers the whole space or finds the failure, it is the answer. Then, with
/// [`Config::hunt_states`], the bug hunt looks for a failing assertion depth first; what it
/// finds is the answer. Otherwise the merged search follows, and for what both breadth-first
/// searches found, the witnesses of the unmerged one are kept; what only the unreduced one
/// found (or found with a shorter witness) is added. The states and transitions of every
/// search are counted.
pub(crate) fn check_compiled(c: &Compiled, config: &Config) -> Result<CheckResult, Error> {
    let start = Instant::now();
    Ok(answer(c, config, start)?.into_result(config.unwind, start))
}

/// The answer of the searches [`check_compiled`] runs, stitched together.
fn answer(c: &Compiled, config: &Config, start: Instant) -> Result<Answer, Error> {
    let merging = config.por;
    if !merging {
        return search(c, config, false, start, (0, 0));
    }
    let first = if config.unmerged_states == 0 {
        None
    } else {
        let bounded = config.clone().max_states(config.unmerged_states.min(config.max_states));
        let first = search(c, &bounded, false, start, (0, 0))?;
        if first.effort.bound != Some(Bound::States) {
            return Ok(first);
        }
        Some(first)
    };
    let mut earlier = first.as_ref().map_or((0, 0), |f| (f.effort.states, f.effort.transitions));
    // The reduction may keep a thread waiting while others run on without repeating a state
    // (docs/explore.md, "Fairness in depth"); a failure within the first states of the
    // unreduced space is found here, with a shortest witness.
    let unreduced = if config.unreduced_states == 0 {
        None
    } else {
        let bounded = config.clone().por(false).max_states(config.unreduced_states.min(config.max_states));
        let u = search(c, &bounded, false, start, earlier)?;
        if u.effort.bound != Some(Bound::States) {
            return Ok(with_findings_of(u, first));
        }
        earlier = (earlier.0 + u.effort.states, earlier.1 + u.effort.transitions);
        Some(u)
    };
    if config.max_states <= config.unmerged_states {
        if let Some(first) = first {
            return Ok(with_findings_of(first, unreduced));
        }
    }
    // A check that goes on past a deadlock it met (`Config::stop_at_deadlocks`) searches
    // breadth first, as the whole exploration it stands in for would (a check that stops at
    // the deadlock, then one of the whole space): its counterexample is that one's, a
    // shortest one, which the repair loop learns from best.
    let met_deadlock = first.as_ref().is_some_and(|f| !f.found.deadlocks.is_empty());
    let hunting = config.hunt_states > 0
        && (config.stop_at_first_failure || config.failures_per_assertion > 1)
        && config.find.contains(FailureKinds::BAD)
        && !config.deadlocks_after_failure
        && !met_deadlock;
    // Outcomes lie where every thread has ended, at the bottom of the space: depth first, the
    // ones a search wants are often met long before a breadth-first search gets there.
    // So do deadlocks, which a search asks of with deadlocks alone looked for.
    let hunting_outcomes = config.outcomes && config.wanted_outcomes.is_some();
    let hunting_deadlocks = config.wanted_deadlocks_alone().is_some();
    let hunted = if hunting || config.hunt_states > 0 && (hunting_outcomes || hunting_deadlocks) {
        Some(hunt(c, config, start, earlier)?)
    } else {
        None
    };
    if let Some(h) = &hunted {
        if !h.found.is_empty() {
            return Ok(with_findings_of(hunted_answer(c, first, h), unreduced));
        }
        if h.met_wanted {
            return Ok(with_findings_of(met_answer(config, first, h), unreduced));
        }
        earlier = (earlier.0 + h.states, earlier.1 + h.transitions);
    }
    // The breadth-first search stops once it met what the hunt did not.
    let rest = hunted.as_ref().map(|h| rest_wanted(config, h));
    let mut r = search(c, rest.as_ref().unwrap_or(config), true, start, earlier)?;
    if let Some(h) = hunted {
        r.effort.states += h.states;
        r.effort.transitions += h.transitions;
        r.effort.unwind_reached |= h.unwound;
        r.found.passed_assertions.extend(passed_labels(c, &h.asserts));
        r.found.outcomes.extend(h.outcomes);
        for (id, w) in h.deadlocks {
            r.found.deadlocks.entry(id).or_insert(w);
        }
    }
    let r = match first {
        Some(first) => with_unmerged_witnesses(r, first),
        None => r,
    };
    Ok(with_findings_of(r, unreduced))
}

/// The answer when the hunt `h`, after the search without merging `first` (if any), found
/// failing assertions: the first as the verdict, each with its counterexamples, with what
/// both searches did.
fn hunted_answer(c: &Compiled, first: Option<Answer>, h: &Hunt) -> Answer {
    let effort = hunted_effort(&first, h);
    let mut found = Findings::default();
    if let Some(f) = first {
        found.passed_assertions = f.found.passed_assertions;
    }
    found.passed_assertions.extend(passed_labels(c, &h.asserts));
    for (label, cex) in &h.found {
        if found.failures.contains_key(label) {
            found.more_failures.entry(label.clone()).or_default().push(cex.clone());
        } else {
            found.failures.insert(label.clone(), cex.clone());
        }
    }
    let cex = &h.found[0].1;
    Answer { verdict: Verdict::Bad(Box::new(cex.clone())), found, effort }
}

/// What the search without merging `first` (if any) and the hunt `h` after it did, when the
/// hunt's answer ends the check.
fn hunted_effort(first: &Option<Answer>, h: &Hunt) -> Effort {
    let mut effort = first.as_ref().map_or_else(Effort::default, |f| f.effort);
    effort.states += h.states;
    effort.transitions += h.transitions;
    effort.unwind_reached |= h.unwound;
    effort.bound = None;
    effort
}

/// The answer when the hunt `h`, after the search without merging `first` (if any), met
/// every outcome or every deadlock the check wants (`Hunt::met_wanted`): what it met (no run to an
/// outcome, a witness to each deadlock, the last of those wanted the verdict), with what both
/// searches did.
fn met_answer(config: &Config, first: Option<Answer>, h: &Hunt) -> Answer {
    let effort = hunted_effort(&first, h);
    let mut found = first.map_or_else(Findings::default, |f| f.found);
    found.outcomes.extend(h.outcomes.iter().cloned());
    let last = config.wanted_deadlocks_alone().and_then(|w| w.last());
    let mut verdict = Verdict::Correct;
    for (id, w) in &h.deadlocks {
        if last == Some(id) {
            verdict = Verdict::Deadlock(id.clone(), Box::new(w.clone()));
        }
        found.deadlocks.entry(id.clone()).or_insert_with(|| w.clone());
    }
    Answer { verdict, found, effort }
}

/// `config` wanting only the outcomes and deadlocks the hunt `h` did not meet.
fn rest_wanted(config: &Config, h: &Hunt) -> Config {
    let mut rest = config.clone();
    if let Some(w) = &config.wanted_outcomes {
        rest = rest.wanted_outcomes(Some(Arc::new(w.difference(&h.outcomes).cloned().collect())));
    }
    if let Some(w) = config.wanted_deadlocks.as_ref().filter(|_| !h.deadlocks.is_empty()) {
        let left = w.iter().filter(|id| !h.deadlocks.contains_key(*id)).cloned().collect();
        rest = rest.wanted_deadlocks(Some(Arc::new(left)));
    }
    rest
}

/// The answer `r` with what the earlier search `other` (if any) found that `r` did not, or
/// found with a shorter witness (in steps), and the work of both: `other`'s verdict when it
/// has a counterexample and `r`'s has none; `r`'s bound.
fn with_findings_of(mut r: Answer, other: Option<Answer>) -> Answer {
    let Some(other) = other else { return r };
    if r.verdict.counterexample().is_none() && other.verdict.counterexample().is_some() {
        r.verdict = other.verdict;
    }
    r.found.take_from(other.found, |held, offered| held.is_none_or(|h| offered.schedule.len() < h.schedule.len()));
    r.effort.states += other.effort.states;
    r.effort.transitions += other.effort.transitions;
    r.effort.reduced_states += other.effort.reduced_states;
    r.effort.depth = r.effort.depth.max(other.effort.depth);
    r.effort.unwind_reached |= other.effort.unwind_reached;
    r
}

/// The answer of the merged search `r` with, for what the search without merging `first`
/// also found, its witnesses (shortest in steps), and the work of both.
fn with_unmerged_witnesses(mut r: Answer, first: Answer) -> Answer {
    if first.verdict.counterexample().is_some() {
        r.verdict = first.verdict;
    }
    r.found.take_from(first.found, |held, _| held.is_some());
    r.effort.states += first.effort.states;
    r.effort.transitions += first.effort.transitions;
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::compile;

    fn compiled(src: &str) -> Compiled {
        compile(&paces_cwhile::parse(src).unwrap()).unwrap()
    }

    /// Every failing label, deadlock and livelock of an exhaustive search.
    fn findings(r: &CheckResult) -> Vec<String> {
        let mut out: Vec<String> = r.failures.keys().cloned().collect();
        out.extend(r.deadlocks.keys().map(|d| format!("deadlock {d}")));
        out.extend(r.livelocks.keys().map(|l| format!("livelock {l}")));
        out
    }

    fn exhaustive(c: &Compiled, merge: bool) -> CheckResult {
        let config = Config::new().stop_at_first_failure(false);
        search(c, &config, merge, Instant::now(), (0, 0)).unwrap().into_result(None, Instant::now())
    }

    /// Threads that work under one lock: the steps inside the lock are merged into the
    /// transition that takes it, so far fewer states are stored, with the same findings.
    #[test]
    fn steps_under_a_held_lock_are_merged() {
        let c = compiled(
            "var l = 0, x = 0, y = 0;
             thread a { while (*) { lock(l); x := 1; y := x; assert(y == 1); unlock(l); } }
             thread b { while (*) { lock(l); x := 2; y := x; assert(y == 2); x := 0; unlock(l); } }
             thread c { while (*) { lock(l); assert(x == 0); unlock(l); } }",
        );
        let (merged, unmerged) = (exhaustive(&c, true), exhaustive(&c, false));
        assert_eq!(findings(&merged), findings(&unmerged));
        assert_eq!(findings(&merged).len(), 1, "{:?}", findings(&merged));
        assert!(merged.states * 2 <= unmerged.states, "{} against {}", merged.states, unmerged.states);
    }

    /// A merged step can open another thread's gate (`x := y` lets `b` pass its `await`):
    /// the next step is judged again, so the state where `b` may pass is stored and the
    /// deadlock after it (a waits for `y == 0`, b and c done) is found.
    #[test]
    fn a_merged_step_that_opens_a_gate_ends_the_merge() {
        let c = compiled(
            "var x = 0, y = 0;
             thread a { atomic { await(y == 0); x := 0; } }
             thread b { y := 1; x := y; x := 2; }
             thread c { await(x != 0 && x != 2); x := 2; }",
        );
        let (merged, unmerged) = (exhaustive(&c, true), exhaustive(&c, false));
        assert!(
            findings(&unmerged).contains(&"deadlock a at a.0, b done, c done".to_string()),
            "{:?}",
            findings(&unmerged)
        );
        assert_eq!(findings(&merged), findings(&unmerged));
    }

    /// A check that stops at its first failure gives, when the failure lies within its first
    /// states, the counterexample of the search without merging.
    #[test]
    fn a_first_failure_within_the_bound_has_the_unmerged_counterexample() {
        // c never gets past its `await`, so `a`'s writes of z are merged after `x := 1`.
        let c = compiled(
            "var l = 1, x = 0, z = 0, w = 0;
             thread a { x := 1; z := 1; z := 2; }
             thread b { assert(x == 0); }
             thread c { await(l == 0); w := z; }",
        );
        let config = Config::new();
        let checked = check_compiled(&c, &config).unwrap();
        let unmerged = search(&c, &config, false, Instant::now(), (0, 0)).unwrap().into_result(None, Instant::now());
        let merged = search(&c, &config, true, Instant::now(), (0, 0)).unwrap().into_result(None, Instant::now());
        let steps = |r: &CheckResult| r.verdict.counterexample().unwrap().trace.events().len();
        assert_eq!(checked.verdict, unmerged.verdict);
        assert!(steps(&merged) > steps(&unmerged), "{} against {}", steps(&merged), steps(&unmerged));
    }
}
