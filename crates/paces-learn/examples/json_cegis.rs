//! A CEGIS loop whose checker is another process that speaks JSON, so that a tool written in
//! any language can use the learner: the learner side is this program; the checker side is
//! the same binary started with `--checker`, and it uses nothing of PACES (only JSON values),
//! as a foreign tool would. The program is the paper's Figure 7:
//!
//! ```text
//! thread1 { A: x := 1; B: y := 1; C: z := 1 }
//! thread2 { 1: await(x == 1); 2: await(y == 1); 3: assert(z == 1) }
//! thread3 { n: await(z == 1); p: assert(y == 1) }
//! ```
//!
//! The protocol, one JSON object per line:
//! 1. the checker sends `{"space": SPACE}` (locations, blocks, threads);
//! 2. the learner sends `{"check": CANDIDATE}` (block orders and sections), the first time
//!    the original program;
//! 3. the checker answers `{"verdict": "correct", "good": [TRACE, ...]}` or
//!    `{"verdict": "bad", "trace": TRACE, "good": [TRACE, ...]}`; a bad trace stops at its
//!    failure and lists each thread's remaining steps as pending steps;
//! 4. repeat from 2; the learner closes the checker's input when it is done.
//!
//! The loop is the crate's [`Runner`] in its default configuration: when a candidate is
//! correct while good traces' fallbacks are in force, it relaxes them once and asks for a
//! cheaper candidate; the cheapest correct candidate wins. The formats are in the user guide
//! ("Embedding the learner").
//!
//! Run with `cargo run -p paces-learn --features serde --example json_cegis`.

use std::io::{BufRead, BufReader, Write as _};
use std::process::{Command, Stdio};

use paces_learn::constraint::Space;
use paces_learn::trace::Trace;
use paces_learn::{CheckError, Event, LearnerConfig, Runner, Verdict};
use serde_json::{json, Value};

type Result<T> = std::result::Result<T, CheckError>;

fn main() -> Result<()> {
    if std::env::args().nth(1).as_deref() == Some("--checker") {
        return checker::serve();
    }
    let answer = learn(Command::new(std::env::current_exe()?).arg("--checker"))?;
    println!("{answer}");
    Ok(())
}

/// The learner's side: runs the loop against the checker `command` starts, through the
/// crate's [`Runner`], and returns the answer in words.
fn learn(command: &mut Command) -> Result<String> {
    let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
    let mut to_checker = child.stdin.take().ok_or("no pipe to the checker")?;
    let mut from_checker = BufReader::new(child.stdout.take().ok_or("no pipe from the checker")?);
    let mut receive = move || -> Result<Value> {
        let mut line = String::new();
        if from_checker.read_line(&mut line)? == 0 {
            return Err("the checker closed its output".into());
        }
        Ok(serde_json::from_str(&line)?)
    };
    let first = receive()?;
    let space: Space = serde_json::from_value(first.get("space").cloned().ok_or("no space")?)?;
    let mut round = 0;
    let mut runner = Runner::new(&space, LearnerConfig::new())?.on_event(|event| match event {
        Event::Check { iteration, candidate, .. } => {
            round = *iteration;
            println!("round {round}: check {}", candidate.display(&space).to_string().replace('\n', " | "));
        }
        Event::Correct { .. } => println!("round {round}: correct"),
        Event::Relaxed { count } => println!("round {round}: {count} fallbacks relaxed, looking for a cheaper one"),
        _ => {}
    });
    // The checker's verdicts as they come: good traces of the original program, and a bad
    // trace that stops at its failure and lists each thread's remaining steps as pending.
    let report = runner.run(|candidate| {
        writeln!(to_checker, "{}", json!({ "check": candidate }))?;
        let reply = receive()?;
        let mut good = Vec::new();
        for trace in reply.get("good").and_then(Value::as_array).into_iter().flatten() {
            good.push(serde_json::from_value::<Trace>(trace.clone())?);
        }
        if reply["verdict"] == "correct" {
            return Ok(Verdict::correct(good));
        }
        let bad: Trace = serde_json::from_value(reply.get("trace").cloned().ok_or("no trace")?)?;
        Ok(Verdict::wrong(vec![bad], good))
    })?;
    drop(runner);
    drop(to_checker);
    child.wait()?;
    let best = report.best.ok_or(format!("no correct candidate: {}", report.stop))?;
    Ok(format!("answer ({}):\n{}", report.stop, best.display(&space)))
}

/// The checker's side, as a tool in another language would write it: JSON values only.
mod checker {
    use std::collections::BTreeSet;
    use std::io::{BufRead, Write as _};

    use serde_json::{json, Value};

    use super::Result;

    /// A step: its label, thread, kind, the variable it reads or writes (writes set it to 1).
    struct Step {
        label: &'static str,
        thread: usize,
        kind: &'static str,
        var: usize,
    }

    const STEPS: [Step; 8] = [
        Step { label: "A", thread: 0, kind: "plain", var: 0 },
        Step { label: "B", thread: 0, kind: "plain", var: 1 },
        Step { label: "C", thread: 0, kind: "plain", var: 2 },
        Step { label: "1", thread: 1, kind: "await", var: 0 },
        Step { label: "2", thread: 1, kind: "await", var: 1 },
        Step { label: "3", thread: 1, kind: "assert", var: 2 },
        Step { label: "n", thread: 2, kind: "await", var: 2 },
        Step { label: "p", thread: 2, kind: "assert", var: 1 },
    ];
    const THREADS: usize = 3;

    /// Serves requests until the learner closes the input.
    pub fn serve() -> Result<()> {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        writeln!(out, "{}", json!({ "space": space() }))?;
        let mut first = true;
        for line in std::io::stdin().lock().lines() {
            let request: Value = serde_json::from_str(&line?)?;
            let program = Program::of(&request["check"])?;
            let (bad, good) = program.explore();
            // Good traces of the original program only: the learner keeps what it learned.
            let good: Vec<Value> =
                if first { good.into_iter().map(|run| program.trace(&run, None)).collect() } else { vec![] };
            first = false;
            let reply = match bad {
                Some((run, failed)) => {
                    json!({ "verdict": "bad", "trace": program.trace(&run, Some(failed)), "good": good })
                }
                None => json!({ "verdict": "correct", "good": good }),
            };
            writeln!(out, "{reply}")?;
            out.flush()?;
        }
        Ok(())
    }

    /// The space: location i is step i, one block per thread, awaits wait first; no two steps
    /// of one thread conflict, so no pair is fixed.
    fn space() -> Value {
        let blocks: Vec<Value> = (0..THREADS)
            .map(|t| {
                let items: Vec<Value> = STEPS
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.thread == t)
                    .map(|(i, s)| match s.kind {
                        "await" => json!({ "loc": i, "waits": "first" }),
                        _ => json!({ "loc": i }),
                    })
                    .collect();
                json!({ "items": items })
            })
            .collect();
        let threads: Vec<Value> =
            (0..THREADS).map(|t| json!({ "name": format!("thread{}", t + 1), "block": t })).collect();
        json!({ "locations": STEPS.iter().map(|s| s.label).collect::<Vec<_>>(), "blocks": blocks, "threads": threads })
    }

    /// A candidate: each thread's steps in their new order, cut into units that run as one
    /// step (a section is one unit).
    struct Program {
        units: Vec<Vec<Vec<usize>>>,
    }

    /// A run: the units taken, as (thread, unit index).
    type Run = Vec<(usize, usize)>;

    impl Program {
        fn of(candidate: &Value) -> Result<Program> {
            let locs = |v: &Value| -> Vec<usize> {
                v.as_array().into_iter().flatten().filter_map(Value::as_u64).map(|l| l as usize).collect()
            };
            let orders: Vec<Vec<usize>> = candidate["orders"].as_array().ok_or("no orders")?.iter().map(locs).collect();
            let sections: Vec<Vec<usize>> =
                candidate["sections"].as_array().ok_or("no sections")?.iter().map(locs).collect();
            let units = orders
                .iter()
                .map(|order| {
                    let mut units: Vec<Vec<usize>> = Vec::new();
                    // The last step of the section being filled, if any.
                    let mut open: Option<usize> = None;
                    for &step in order {
                        match (open, units.last_mut()) {
                            (Some(last), Some(unit)) => {
                                unit.push(step);
                                if step == last {
                                    open = None;
                                }
                            }
                            _ => {
                                units.push(vec![step]);
                                open =
                                    sections.iter().find(|s| s.first() == Some(&step)).and_then(|s| s.get(1).copied());
                                open = open.filter(|&last| last != step);
                            }
                        }
                    }
                    units
                })
                .collect();
            Ok(Program { units })
        }

        /// Every run from the initial state, depth first, threads in order: the first run to a
        /// failed assertion (with the failing step), and the first complete good run.
        fn explore(&self) -> (Option<(Run, usize)>, Vec<Run>) {
            let mut good = Vec::new();
            let mut seen = BTreeSet::new();
            let bad = self.search(&mut vec![0; THREADS], &mut [0; 3], &mut Vec::new(), &mut good, &mut seen);
            (bad, good)
        }

        fn search(
            &self,
            pcs: &mut Vec<usize>,
            vars: &mut [i64; 3],
            run: &mut Run,
            good: &mut Vec<Run>,
            seen: &mut BTreeSet<(Vec<usize>, [i64; 3])>,
        ) -> Option<(Run, usize)> {
            if !seen.insert((pcs.clone(), *vars)) {
                return None;
            }
            if (0..THREADS).all(|t| pcs[t] == self.units[t].len()) {
                if good.is_empty() {
                    good.push(run.clone());
                }
                return None;
            }
            for t in 0..THREADS {
                let Some(unit) = self.units[t].get(pcs[t]) else { continue };
                let saved = *vars;
                let mut enabled = true;
                let mut failed = None;
                for &step in unit {
                    let s = &STEPS[step];
                    match s.kind {
                        "plain" => vars[s.var] = 1,
                        "await" if vars[s.var] != 1 => enabled = false,
                        "assert" if vars[s.var] != 1 => failed = failed.or(Some(step)),
                        _ => {}
                    }
                }
                if !enabled {
                    *vars = saved;
                    continue;
                }
                run.push((t, pcs[t]));
                pcs[t] += 1;
                if let Some(step) = failed {
                    return Some((run.clone(), step));
                }
                if let Some(found) = self.search(pcs, vars, run, good, seen) {
                    return Some(found);
                }
                pcs[t] -= 1;
                run.pop();
                *vars = saved;
            }
            None
        }

        /// A run as a trace: its steps, and for a bad run every thread's remaining steps as
        /// pending steps. Reads name the variable only: the learner resolves the writer.
        fn trace(&self, run: &Run, failed: Option<usize>) -> Value {
            let event = |step: usize, failed: bool| {
                let s = &STEPS[step];
                let scope = json!([{ "block": s.thread, "instance": 0, "item": step }]);
                let mut e =
                    json!({ "thread": s.thread, "loc": step, "scope": scope, "kind": s.kind, "failed": failed });
                match s.kind {
                    "plain" => e["writes"] = json!([{ "var": s.var, "value": 1 }]),
                    _ => e["reads"] = json!([s.var]),
                }
                e
            };
            let events: Vec<Value> = run
                .iter()
                .flat_map(|&(t, u)| self.units[t][u].iter().map(|&step| event(step, Some(step) == failed)))
                .collect();
            let mut pcs = [0; THREADS];
            for &(t, _) in run {
                pcs[t] += 1;
            }
            let pending: Vec<Value> = match failed {
                Some(_) => (0..THREADS)
                    .flat_map(|t| self.units[t][pcs[t]..].iter().flatten().map(|&s| event(s, false)))
                    .collect(),
                None => Vec::new(),
            };
            json!({ "events": events, "pending": pending })
        }
    }
}
