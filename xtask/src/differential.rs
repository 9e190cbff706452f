//! `cargo xtask differential --n N [--seed S] [--limit L] [--spin-every K] [--shrink T] [--jobs J]
//! [--from F]`: N
//! random programs
//! (`paces_testkit::gen`, every construct) through the checker with and without the
//! reduction, with one and four workers and sequential, against the brute-force interpreter
//! of the contract and, every K-th program where `spin` and `gcc` are installed, SPIN on the
//! Promela export (programs the export refuses are compared with the interpreter only).
//! Prints the counts, the time and each disagreement with its program, shrunk (at most T
//! smaller programs tried; 0: not shrunk). J programs are compared at once (default: the
//! machine's cores); the output is the same for every J. `--from F` starts at the stream's
//! program F (numbered from 0, as the output numbers them).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use paces_testkit::diff::{compare, Kind, Options as CompareOptions, Report, SpinUse, Times};
use paces_testkit::gen::{Features, Prog};
use paces_testkit::programs::{Case, Programs};

/// The options of `cargo xtask differential`.
pub struct Options {
    /// Programs to compare.
    pub n: usize,
    /// The seed of the program stream.
    pub seed: u64,
    /// The interpreter's state limit.
    pub limit: usize,
    /// Run SPIN on every K-th program (0: never).
    pub spin_every: usize,
    /// Try at most this many smaller programs when shrinking one that disagrees.
    pub shrink: usize,
    /// Programs compared at once (threads).
    pub jobs: usize,
    /// The first program compared: the ones before it in the stream are generated and
    /// skipped (to compare again from a program of an earlier run).
    pub from: usize,
}

/// Runs the comparison; an error when some program disagrees.
pub fn differential(options: &Options) -> Result<(), String> {
    let spin = options.spin_every > 0 && paces_testkit::spin::installed();
    if options.spin_every > 0 && !spin {
        eprintln!("spin or gcc is not on PATH: compared with the interpreter only");
    }
    let start = Instant::now();
    let mut programs = Programs::new(options.seed, Features::ALL);
    for _ in 0..options.from {
        programs.next_case();
    }
    let mut tally = Tally::default();
    let mut done = 0;
    while done < options.n {
        // A batch is generated here (the stream is sequential) and compared on the workers;
        // its reports are taken in program order, so the output does not depend on `jobs`.
        let mut cases: Vec<Case> = (0..BATCH.min(options.n - done)).map(|_| programs.next_case()).collect();
        let progs: Vec<Prog> = cases.iter().map(Case::prog).collect();
        let reports = compare_batch(&progs, options.from + done, options, spin);
        for (k, (report, secs)) in reports.into_iter().enumerate() {
            tally.add(options.from + done + k, &report, secs, &mut cases[k], options);
        }
        done += progs.len();
        eprintln!("{done} programs, {} disagree, {:.1} s", tally.disagreeing, start.elapsed().as_secs_f64());
    }
    tally.print(options, start.elapsed().as_secs_f64())
}

/// Programs generated and compared at a time.
const BATCH: usize = 50;

/// The reports of `progs` (programs `first..` of the stream) and each one's seconds, compared
/// on `options.jobs` threads.
fn compare_batch(progs: &[Prog], first: usize, options: &Options, spin: bool) -> Vec<(Report, f64)> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<(Report, f64)>>> = Mutex::new((0..progs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(prog) = progs.get(k) else { break };
                let with_spin = spin && (first + k) % options.spin_every == 0;
                let compare_options = CompareOptions { limit: options.limit, spin: with_spin };
                let program_start = Instant::now();
                let report = compare(prog, compare_options);
                let secs = program_start.elapsed().as_secs_f64();
                results.lock().expect("no worker panics holding the lock")[k] = Some((report, secs));
            });
        }
    });
    let results = results.into_inner().expect("no worker panics holding the lock");
    results.into_iter().map(|r| r.expect("every program of the batch is compared")).collect()
}

/// The counts of a run.
#[derive(Default)]
struct Tally {
    complete: usize,
    spin_compared: usize,
    spin_refused: usize,
    disagreeing: usize,
    by_kind: BTreeMap<Kind, usize>,
    /// Where the time went (summed over the programs, whatever the threads).
    times: Times,
    /// The time of the programs the interpreter could not finish.
    incomplete_time: f64,
}

impl Tally {
    /// Counts program `i`'s report; prints it, shrunk, when it disagrees.
    fn add(&mut self, i: usize, report: &Report, secs: f64, case: &mut Case, options: &Options) {
        self.times += report.times;
        if !report.complete {
            self.incomplete_time += secs;
        }
        self.complete += usize::from(report.complete);
        match report.spin {
            SpinUse::Compared => self.spin_compared += 1,
            SpinUse::Refused => self.spin_refused += 1,
            SpinUse::NotRun => {}
        }
        if report.disagreements.is_empty() {
            return;
        }
        self.disagreeing += 1;
        let mut kinds: Vec<Kind> = report.disagreements.iter().map(|d| d.kind).collect();
        kinds.sort();
        kinds.dedup();
        for &k in &kinds {
            *self.by_kind.entry(k).or_default() += 1;
        }
        // Shrink while the smaller program shows a disagreement of the first kind (SPIN is
        // not rerun: a shrunk program keeps the interpreter's disagreements only).
        let first = report.disagreements[0].kind;
        let shrink_options = CompareOptions { limit: options.limit, spin: false };
        let smaller =
            case.shrink(|p| compare(p, shrink_options).disagreements.iter().any(|d| d.kind == first), options.shrink);
        let shrunk = compare(&smaller, shrink_options);
        print_disagreement(i, report, &shrunk);
    }

    /// Prints the summary; an error when some program disagrees.
    fn print(&self, options: &Options, elapsed: f64) -> Result<(), String> {
        println!(
            "{} programs (seed {}) in {elapsed:.1} s on {} threads: {} explored completely by the interpreter \
             (limit {} states), {} compared within the limit; SPIN on {} ({} refused by the export)",
            options.n,
            options.seed,
            options.jobs.max(1),
            self.complete,
            options.limit,
            options.n - self.complete,
            self.spin_compared,
            self.spin_refused,
        );
        println!(
            "time: interpreter {:.1} s, checker {:.1} s, SPIN {:.1} s; the {} programs the interpreter could not \
             finish took {:.1} s",
            self.times.interpreter.as_secs_f64(),
            self.times.checker.as_secs_f64(),
            self.times.spin.as_secs_f64(),
            options.n - self.complete,
            self.incomplete_time,
        );
        println!("{} programs disagree", self.disagreeing);
        for (k, count) in &self.by_kind {
            println!("  {}: {count}", k.name());
        }
        if self.disagreeing == 0 {
            Ok(())
        } else {
            Err(format!("{} of {} programs disagree", self.disagreeing, options.n))
        }
    }
}

fn print_disagreement(i: usize, report: &Report, shrunk: &Report) {
    println!("--- program {i}:");
    for d in &report.disagreements {
        println!("  {}: {}", d.kind.name(), d.detail);
    }
    if shrunk.disagreements.is_empty() {
        println!("{}", report.text);
    } else {
        println!("  shrunk to:");
        for d in &shrunk.disagreements {
            println!("  {}: {}", d.kind.name(), d.detail);
        }
        println!("{}", shrunk.text);
    }
}
