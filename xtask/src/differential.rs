//! `cargo xtask differential --n N [--seed S] [--limit L] [--spin-every K] [--shrink T]`: N
//! random programs
//! (`paces_testkit::gen`, every construct) through the checker with and without the
//! reduction, with one and four workers and sequential, against the brute-force interpreter
//! of the contract and, every K-th program where `spin` and `gcc` are installed, SPIN on the
//! Promela export (programs the export refuses are compared with the interpreter only).
//! Prints the counts, the time and each disagreement with its program, shrunk (at most T
//! smaller programs tried; 0: not shrunk).

use std::collections::BTreeMap;
use std::time::Instant;

use paces_testkit::diff::{compare, Kind, Options as CompareOptions, Report, SpinUse, Times};
use paces_testkit::gen::Features;
use paces_testkit::programs::Programs;

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
}

/// Runs the comparison; an error when some program disagrees.
pub fn differential(options: &Options) -> Result<(), String> {
    let spin = options.spin_every > 0 && paces_testkit::spin::installed();
    if options.spin_every > 0 && !spin {
        eprintln!("spin or gcc is not on PATH: compared with the interpreter only");
    }
    let start = Instant::now();
    let mut programs = Programs::new(options.seed, Features::ALL);
    let (mut complete, mut spin_compared, mut spin_refused, mut disagreeing) = (0usize, 0usize, 0usize, 0usize);
    let mut by_kind: BTreeMap<Kind, usize> = BTreeMap::new();
    // Where the time went, and the time of the programs the interpreter could not finish.
    let (mut times, mut incomplete_time) = (Times::default(), 0.0);
    for i in 0..options.n {
        let mut case = programs.next_case();
        let with_spin = spin && i % options.spin_every == 0;
        let compare_options = CompareOptions { limit: options.limit, spin: with_spin };
        let program_start = Instant::now();
        let report = compare(&case.prog(), compare_options);
        times += report.times;
        if !report.complete {
            incomplete_time += program_start.elapsed().as_secs_f64();
        }
        complete += usize::from(report.complete);
        if (i + 1) % 25 == 0 {
            eprintln!("{} programs, {disagreeing} disagree, {:.1} s", i + 1, start.elapsed().as_secs_f64());
        }
        match report.spin {
            SpinUse::Compared => spin_compared += 1,
            SpinUse::Refused => spin_refused += 1,
            SpinUse::NotRun => {}
        }
        if report.disagreements.is_empty() {
            continue;
        }
        disagreeing += 1;
        let mut kinds: Vec<Kind> = report.disagreements.iter().map(|d| d.kind).collect();
        kinds.sort();
        kinds.dedup();
        for &k in &kinds {
            *by_kind.entry(k).or_default() += 1;
        }
        // Shrink while the smaller program shows a disagreement of the first kind (SPIN is
        // not rerun: a shrunk program keeps the interpreter's disagreements only).
        let first = report.disagreements[0].kind;
        let shrink_options = CompareOptions { spin: false, ..compare_options };
        let smaller =
            case.shrink(|p| compare(p, shrink_options).disagreements.iter().any(|d| d.kind == first), options.shrink);
        let shrunk = compare(&smaller, shrink_options);
        print_disagreement(i, &report, &shrunk);
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{} programs (seed {}) in {elapsed:.1} s: {complete} explored completely by the interpreter (limit {} states), \
         {} compared within the limit; SPIN on {spin_compared} ({spin_refused} refused by the export)",
        options.n,
        options.seed,
        options.limit,
        options.n - complete,
    );
    println!(
        "time: interpreter {:.1} s, checker {:.1} s, SPIN {:.1} s; the {} programs the interpreter could not \
         finish took {incomplete_time:.1} s",
        times.interpreter.as_secs_f64(),
        times.checker.as_secs_f64(),
        times.spin.as_secs_f64(),
        options.n - complete,
    );
    println!("{disagreeing} programs disagree");
    for (k, count) in &by_kind {
        println!("  {}: {count}", k.name());
    }
    if disagreeing == 0 {
        Ok(())
    } else {
        Err(format!("{disagreeing} of {} programs disagree", options.n))
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
