//! One program through every checker configuration, the interpreter and SPIN: the
//! disagreements.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use paces_explore::{check, replay, CheckResult, Config, ThreadStand};

use paces_cwhile::Program;

use crate::gen::Prog;
use crate::interp::{interpret, Code, Deadlock, Outcome};

/// What the checker's exhaustive search found, as the interpreter names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    /// The labels of the failing assertions.
    pub failures: BTreeSet<String>,
    /// The deadlocks.
    pub deadlocks: BTreeSet<Deadlock>,
    /// Whether an atomic livelock was found.
    pub livelock: bool,
    /// The assertions some step passes.
    pub passed: BTreeSet<String>,
}

/// `r` as the interpreter names what it finds.
pub fn observed(r: &CheckResult) -> Observed {
    let deadlocks = r
        .deadlocks
        .keys()
        .map(|id| {
            id.threads
                .iter()
                .map(|(name, stand)| match stand {
                    ThreadStand::Done => (name.clone(), None),
                    ThreadStand::Blocked(l) => (name.clone(), Some(l.iter().cloned().collect())),
                })
                .collect()
        })
        .collect();
    Observed {
        failures: r.failures.keys().cloned().collect(),
        deadlocks,
        livelock: !r.livelocks.is_empty(),
        passed: r.passed_assertions.clone(),
    }
}

/// The interpreter's outcome as [`Observed`].
pub fn expected(o: &Outcome) -> Observed {
    Observed {
        failures: o.failures.clone(),
        deadlocks: o.deadlocks.clone(),
        livelock: o.livelock,
        passed: o.passed.clone(),
    }
}

/// The kind of a disagreement (for counting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// The failing assertions differ from the interpreter's.
    Failures,
    /// The deadlocks differ.
    Deadlocks,
    /// Whether an atomic livelock exists differs.
    Livelock,
    /// The passed assertions differ.
    Passed,
    /// The checker reached a bound where the interpreter went through every state.
    Bound,
    /// The checker stopping at the first failure answers otherwise than the interpreter.
    First,
    /// The checker missed a failure the interpreter found within its state limit (on a
    /// program with more states than the limit).
    Shallow,
    /// One worker, four workers, the sequential search and the merged search disagree.
    Parallel,
    /// A witness does not replay to its trace and failure.
    Replay,
    /// SPIN's assertion verdict differs from the interpreter's.
    SpinAssertion,
    /// SPIN's invalid end states, by the deadlock's name, differ from the interpreter's
    /// deadlocks.
    SpinDeadlocks,
    /// The program does not parse, or the checker, the export or SPIN failed.
    Error,
}

impl Kind {
    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Failures => "failures",
            Kind::Deadlocks => "deadlocks",
            Kind::Livelock => "livelock",
            Kind::Passed => "passed assertions",
            Kind::Bound => "bound reached",
            Kind::First => "first-failure verdict",
            Kind::Shallow => "shallow failure missed",
            Kind::Parallel => "parallel vs sequential",
            Kind::Replay => "witness replay",
            Kind::SpinAssertion => "SPIN assertion",
            Kind::SpinDeadlocks => "SPIN deadlocks",
            Kind::Error => "error",
        }
    }
}

/// A disagreement: its kind and what differs.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// Its kind.
    pub kind: Kind,
    /// What differs, in words.
    pub detail: String,
}

/// How [`compare`] runs.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The interpreter's state limit. The checker's bound is four times as many (at least
    /// 1,000), and for the exhaustive searches of a program the interpreter could not finish
    /// the limit itself (at least 1,000).
    pub limit: usize,
    /// Whether to run SPIN on the export (where it exports).
    pub spin: bool,
}

/// How SPIN took part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpinUse {
    /// Not asked for.
    NotRun,
    /// The export refuses the program (a wait after the first step of an atomic block).
    Refused,
    /// Compared.
    Compared,
}

/// The comparison of one program.
#[derive(Clone, Debug)]
pub struct Report {
    /// The program's text (every statement labelled).
    pub text: String,
    /// Whether the interpreter visited every state.
    pub complete: bool,
    /// The interpreter's states.
    pub states: usize,
    /// How SPIN took part.
    pub spin: SpinUse,
    /// The disagreements, in the order found.
    pub disagreements: Vec<Disagreement>,
    /// Where the time went.
    pub times: Times,
}

/// Where the time of one comparison went.
#[derive(Clone, Copy, Debug, Default)]
pub struct Times {
    /// The interpreter.
    pub interpreter: Duration,
    /// The checker's searches (every configuration) and the witnesses' replays.
    pub checker: Duration,
    /// SPIN (the export, `spin`, `gcc`, `pan` and the replays of its trails).
    pub spin: Duration,
}

impl std::ops::AddAssign for Times {
    fn add_assign(&mut self, other: Times) {
        self.interpreter += other.interpreter;
        self.checker += other.checker;
        self.spin += other.spin;
    }
}

/// Compares the checker (with and without the reduction, with one and four workers,
/// sequential, and merging from the first state; exhaustive and stopping at the first failure), the
/// interpreter and SPIN on `prog`; every witness is replayed.
pub fn compare(prog: &Prog, options: Options) -> Report {
    let code = Code::new(prog);
    let text = code.text();
    let start = Instant::now();
    let outcome = interpret(&code, options.limit);
    let mut times = Times { interpreter: start.elapsed(), ..Times::default() };
    let start = Instant::now();
    let mut report = Report {
        text: text.clone(),
        complete: outcome.complete,
        states: outcome.states,
        spin: SpinUse::NotRun,
        disagreements: Vec::new(),
        times,
    };
    let mut say = |kind: Kind, detail: String| report.disagreements.push(Disagreement { kind, detail });
    let program = match paces_cwhile::parse(&text) {
        Ok(p) => p,
        Err(d) => {
            say(Kind::Error, format!("does not parse: {d}"));
            return report;
        }
    };
    let bound = options.limit.saturating_mul(4).max(1_000);
    let run = |config: &Config| check(&program, config).map_err(|e| format!("{e}"));
    // Past the interpreter's limit the exhaustive searches are compared only among themselves,
    // which the interpreter's limit does as well as a larger bound (such programs took nine
    // tenths of the time with four times the limit).
    let full_bound = if outcome.complete { bound } else { options.limit.max(1_000) };
    let full = || Config::new().stop_at_first_failure(false).max_states(full_bound);
    let configs: [(&str, Config); 5] = [
        ("por", full()),
        ("no-por", full().por(false)),
        ("sequential", full().parallel(false)),
        ("four workers", full().threads(Some(4)).min_parallel_batch(1)),
        // Merging from the first state, with no search without the reduction first (small
        // programs fit in either otherwise).
        ("merged", full().unmerged_states(0).unreduced_states(0)),
    ];
    let want = expected(&outcome);
    let mut results = Vec::new();
    // The merged search is compared only when it covers every state.
    for (name, config) in configs.iter().filter(|(name, _)| outcome.complete || *name != "merged") {
        let r = match run(config) {
            Ok(r) => r,
            Err(e) => {
                say(Kind::Error, format!("{name}: {e}"));
                report.times.checker = start.elapsed();
                return report;
            }
        };
        if outcome.complete {
            against_interpreter(name, &r, &outcome, &want, &mut say);
        }
        results.push((*name, r));
    }
    parallel_agreement(&results, &mut say);
    if first_failure_runs(&program, &outcome, bound, &mut say, &mut results).is_err() {
        report.times.checker = start.elapsed();
        return report;
    }
    replay_witnesses(&program, &results, &mut say);
    times.checker = start.elapsed();
    // SPIN on the export, against the interpreter and the checker.
    let start = Instant::now();
    if options.spin && outcome.complete {
        report.spin = against_spin(&program, &text, &outcome, &mut say);
    }
    times.spin = start.elapsed();
    report.times = times;
    report
}

/// The searches that stop at the first failure, with and without the reduction, against the
/// interpreter's `outcome`, added to `results`; `Err` after saying why one could not run.
fn first_failure_runs(
    program: &paces_cwhile::Program,
    outcome: &Outcome,
    bound: usize,
    say: &mut impl FnMut(Kind, String),
    results: &mut Vec<(&'static str, CheckResult)>,
) -> Result<(), ()> {
    // Stopping at the first failure, with and without the reduction: a failure exactly when
    // the interpreter has one; within the interpreter's limit, a failure it found is found.
    let bad = !outcome.failures.is_empty() || !outcome.deadlocks.is_empty() || outcome.livelock;
    // Past the interpreter's limit they are compared only when it found a failure.
    let first_runs: &[bool] = if outcome.complete || bad { &[true, false] } else { &[] };
    for &por in first_runs {
        let name = if por { "first" } else { "first, no-por" };
        let r = match check(program, &Config::new().max_states(bound).por(por)) {
            Ok(r) => r,
            Err(e) => {
                say(Kind::Error, format!("{name}: {e}"));
                return Err(());
            }
        };
        let found = r.verdict.counterexample().is_some();
        if outcome.complete && found != bad && r.bound.is_none() {
            say(
                Kind::First,
                format!("{name}: {}, interpreter {}", r.verdict, if bad { "a failure" } else { "correct" }),
            );
        }
        if !outcome.complete && bad && !found {
            say(
                Kind::Shallow,
                format!(
                    "{name}: {}; the interpreter finds {} within {} states",
                    r.verdict,
                    first_found(outcome),
                    outcome.states
                ),
            );
        }
        results.push((name, r));
    }
    Ok(())
}

/// `r`, the exhaustive search of configuration `name`, against the interpreter's complete
/// `outcome` (as `want` names it).
fn against_interpreter(
    name: &str,
    r: &CheckResult,
    outcome: &Outcome,
    want: &Observed,
    say: &mut impl FnMut(Kind, String),
) {
    if r.bound.is_some() {
        say(
            Kind::Bound,
            format!("{name}: {} after {} states (the interpreter: {})", r.verdict, r.states, outcome.states),
        );
    } else {
        let got = observed(r);
        if got.failures != want.failures {
            say(Kind::Failures, format!("{name}: {:?}, interpreter {:?}", got.failures, want.failures));
        }
        if got.deadlocks != want.deadlocks {
            say(
                Kind::Deadlocks,
                format!("{name}: {}, interpreter {}", deadlocks_text(&got.deadlocks), deadlocks_text(&want.deadlocks)),
            );
        }
        if got.livelock != want.livelock {
            say(Kind::Livelock, format!("{name}: {}, interpreter {}", got.livelock, want.livelock));
        }
        if got.failures == want.failures && got.passed != want.passed {
            say(Kind::Passed, format!("{name}: {:?}, interpreter {:?}", got.passed, want.passed));
        }
    }
}

/// The parallel and the sequential searches agree among themselves on everything they
/// report (also when a bound stops them); the merged search agrees with them on what it finds
/// when neither reached a bound (it stores other states, so it may meet a deadlock and a
/// livelock in the other order and name the other one its verdict).
fn parallel_agreement(results: &[(&str, CheckResult)], say: &mut impl FnMut(Kind, String)) {
    let same = |a: &CheckResult, b: &CheckResult| observed(a) == observed(b) && a.verdict.name() == b.verdict.name();
    for (name, r) in &results[2..] {
        let merged = *name == "merged";
        if merged && (r.bound.is_some() || results[0].1.bound.is_some()) {
            continue;
        }
        let agree = if merged { observed(&results[0].1) == observed(r) } else { same(&results[0].1, r) };
        if !agree {
            say(
                Kind::Parallel,
                format!(
                    "{name}: {} ({} states), por: {} ({} states)",
                    r.verdict, r.states, results[0].1.verdict, results[0].1.states
                ),
            );
        }
    }
}

/// Every witness replays to its trace, ending at its failure.
fn replay_witnesses(program: &Program, results: &[(&str, CheckResult)], say: &mut impl FnMut(Kind, String)) {
    for (name, r) in results {
        let all = r
            .verdict
            .counterexample()
            .into_iter()
            .chain(r.failures.values())
            .chain(r.deadlocks.values())
            .chain(r.livelocks.values());
        for c in all {
            match replay(program, &c.schedule) {
                Ok(t) if t.events() == c.trace.events() => {
                    if let Some(i) = c.failing_step {
                        if !t.events().get(i).is_some_and(|e| e.failed) {
                            say(Kind::Replay, format!("{name}: step {i} of the witness does not fail"));
                        }
                    }
                }
                Ok(_) => say(Kind::Replay, format!("{name}: the witness replays to another trace")),
                Err(e) => say(Kind::Replay, format!("{name}: the witness does not replay: {e}")),
            }
        }
    }
}

/// SPIN on the export of `program` (its `text`): its assertion verdict and its invalid end
/// states, by the deadlock's name, against the interpreter's complete `outcome` (the export
/// makes a choice with the first step of the branch taken and lets a cut thread end the run,
/// so SPIN's invalid end states are the contract's deadlocks). Whether SPIN was compared.
fn against_spin(program: &Program, text: &str, outcome: &Outcome, say: &mut impl FnMut(Kind, String)) -> SpinUse {
    let Ok(model) = paces_cwhile::to_promela(program, text) else {
        return SpinUse::Refused;
    };
    match (crate::spin::verdicts(&model), crate::spin::deadlocks(&model)) {
        (Ok((assertion, _)), Ok(deadlocks)) => {
            if assertion.is_some_and(|a| a == outcome.failures.is_empty()) {
                say(Kind::SpinAssertion, format!("SPIN: {assertion:?}, interpreter: {:?}", outcome.failures));
            }
            if let Some(d) = deadlocks.filter(|d| *d != outcome.deadlocks) {
                say(
                    Kind::SpinDeadlocks,
                    format!("SPIN: {}, interpreter: {}", deadlocks_text(&d), deadlocks_text(&outcome.deadlocks)),
                );
            }
            SpinUse::Compared
        }
        (Err(e), _) | (_, Err(e)) => {
            say(Kind::Error, format!("SPIN: {e}"));
            SpinUse::NotRun
        }
    }
}

fn first_found(o: &Outcome) -> String {
    if let Some(f) = o.failures.first() {
        format!("assertion {f} failing")
    } else if let Some(d) = o.deadlocks.first() {
        format!("the deadlock {}", deadlock_text(d))
    } else {
        "an atomic livelock".to_owned()
    }
}

/// A deadlock as the checker prints it: `t0 done, t1 at L4`.
pub fn deadlock_text(d: &Deadlock) -> String {
    let parts: Vec<String> = d
        .iter()
        .map(|(name, stand)| match stand {
            None => format!("{name} done"),
            Some(l) => format!("{name} at {}", l.iter().cloned().collect::<Vec<_>>().join("|")),
        })
        .collect();
    parts.join(", ")
}

fn deadlocks_text(ds: &BTreeSet<Deadlock>) -> String {
    let parts: Vec<String> = ds.iter().map(|d| format!("[{}]", deadlock_text(d))).collect();
    format!("{{{}}}", parts.join(" "))
}
