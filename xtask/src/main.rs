//! `cargo xtask`: the single entry point for chores.
//!
//! * `cargo xtask ci` runs the cargo steps of `.ci/run` (format check, clippy, the test suite, the
//!   library crates' examples, the docs with warnings denied, the CaDiCaL backend); `.ci/run`
//!   also installs the system packages they need.
//! * `cargo xtask table [--runs N] [--out FILE]` measures the paper's Table 1 here.
//! * `cargo xtask scale [--time-limit SECS] [--big]` runs `paces repair` on long generated
//!   programs and checks each run's wall time and peak memory against bounds (Linux).
//! * `cargo xtask scale --threads [--min N] [--max N] [--grow] [--family F] [--time-limit SECS]
//!   [--out FILE]` measures how the repair loop grows with the threads on generated program
//!   families (Linux): a table, a JSON file and an SVG plot; `--grow` goes on past `--max`
//!   while the repaired program's check takes under 10 s (each run then limited to 60 s).
//! * `cargo xtask variants [--out FILE]` runs the loop on the injected-bug variants of the
//!   driver models (`examples/variants/`).
//! * `cargo xtask svcomp DIR [--out FILE] [--paces BIN] [--time-limit SECS]` checks (and
//!   repairs) every SV-COMP `unreach-call` task under DIR (docs/svcomp.md).
//! * `cargo xtask differential --n N [--seed S] [--limit L] [--spin-every K] [--shrink T] [--jobs J] [--from F]`
//!   compares the checker with a brute-force interpreter of the contract and SPIN on N random
//!   programs.

mod differential;
mod scale;
mod scale_threads;
mod svcomp;
mod table;
mod variants;

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("table") => table_command(&args[1..]),
        Some("variants") => variants_command(&args[1..]),
        Some("scale") => scale_command(&args[1..]),
        Some("svcomp") => svcomp_command(&args[1..]),
        Some("differential") => differential_command(&args[1..]),
        _ => {
            eprintln!(
                "usage: cargo xtask ci | cargo xtask table [--runs N] [--out FILE] | cargo xtask variants [--out FILE] | cargo xtask scale [--time-limit SECS] [--big] | cargo xtask scale --threads [--min N] [--max N] [--grow] [--family F] [--time-limit SECS] [--out FILE] | cargo xtask svcomp DIR [--out FILE] [--paces BIN] [--time-limit SECS] | cargo xtask differential --n N [--seed S] [--limit L] [--spin-every K] [--shrink T] [--jobs J] [--from F]"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Parses the options of `cargo xtask svcomp` and runs it.
fn svcomp_command(args: &[String]) -> Result<(), String> {
    let usage = || "usage: cargo xtask svcomp DIR [--out FILE] [--paces BIN] [--time-limit SECS]".to_owned();
    let mut it = args.iter();
    let dir = it.next().ok_or_else(usage)?;
    let mut options = svcomp::Args { dir: dir.into(), out: None, paces: None, limit: 120 };
    while let Some(arg) = it.next() {
        let value = it.next().ok_or_else(usage)?;
        match arg.as_str() {
            "--out" => options.out = Some(value.into()),
            "--paces" => options.paces = Some(value.into()),
            "--time-limit" => options.limit = value.parse().map_err(|_| usage())?,
            _ => return Err(usage()),
        }
    }
    svcomp::svcomp(&options)
}

/// Parses the options of `cargo xtask variants` and runs it.
fn variants_command(args: &[String]) -> Result<(), String> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = match args {
        [] => root.join("docs/variants.json"),
        [flag, file] if flag == "--out" => std::path::PathBuf::from(file),
        _ => return Err("usage: cargo xtask variants [--out FILE]".to_owned()),
    };
    variants::variants(&out)
}

/// Parses the options of `cargo xtask differential` and runs it.
fn differential_command(args: &[String]) -> Result<(), String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options =
        differential::Options { n: 300, seed: 1, limit: 20_000, spin_every: 10, shrink: 48, jobs: cores, from: 0 };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut number = |what: &str| -> Result<u64, String> {
            it.next().and_then(|s| s.parse().ok()).ok_or_else(|| format!("{what} takes a number"))
        };
        match arg.as_str() {
            "--n" => options.n = number("--n")? as usize,
            "--seed" => options.seed = number("--seed")?,
            "--limit" => options.limit = number("--limit")? as usize,
            "--spin-every" => options.spin_every = number("--spin-every")? as usize,
            "--shrink" => options.shrink = number("--shrink")? as usize,
            "--jobs" => options.jobs = number("--jobs")? as usize,
            "--from" => options.from = number("--from")? as usize,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    differential::differential(&options)
}

/// Parses the options of `cargo xtask scale` and runs it.
fn scale_command(args: &[String]) -> Result<(), String> {
    if args.first().is_some_and(|a| a == "--threads") {
        return scale_threads_command(&args[1..]);
    }
    let mut options = scale::Options { time_limit: 20.0, big: false };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--time-limit" => {
                options.time_limit = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or("--time-limit takes a positive number of seconds")?;
            }
            "--big" => options.big = true,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    scale::scale(&options)
}

/// Parses the options of `cargo xtask scale --threads` (those after `--threads`) and runs it.
fn scale_threads_command(args: &[String]) -> Result<(), String> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut options = scale_threads::Options {
        min: 2,
        max: 8,
        grow: false,
        family: None,
        time_limit: 20.0,
        out: root.join("docs/growth-threads.json"),
    };
    let mut time_limit = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--grow" {
            options.grow = true;
            continue;
        }
        let value = it.next().ok_or_else(|| format!("`{arg}` takes a value"))?;
        match arg.as_str() {
            "--min" => options.min = value.parse().map_err(|_| "--min takes a number of threads")?,
            "--max" => options.max = value.parse().map_err(|_| "--max takes a number of threads")?,
            "--family" => {
                let names: Vec<&str> = paces_testkit::families::Family::ALL.iter().map(|f| f.name()).collect();
                options.family = Some(
                    paces_testkit::families::Family::from_name(value)
                        .ok_or_else(|| format!("unknown family `{value}` (known: {})", names.join(", ")))?,
                );
            }
            "--time-limit" => {
                time_limit = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s > 0.0)
                        .ok_or("--time-limit takes a positive number of seconds")?,
                );
            }
            "--out" => options.out = value.into(),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    if let Some(limit) = time_limit.or(options.grow.then_some(scale_threads::GROW_TIME_LIMIT)) {
        options.time_limit = limit;
    }
    scale_threads::scale_threads(&options)
}

/// Parses the options of `cargo xtask table` and runs it.
fn table_command(args: &[String]) -> Result<(), String> {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut runs = 3;
    let mut out = root.join("docs/evaluation.json");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--runs" => runs = it.next().and_then(|n| n.parse().ok()).ok_or("--runs takes a number")?,
            "--out" => out = it.next().map(std::path::PathBuf::from).ok_or("--out takes a file")?,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    table::table(runs, &out)
}

/// One cargo step of CI: environment variables, then cargo's arguments.
struct Step {
    env: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
}

/// The cargo steps of `.ci/run`, in its order.
const CI_STEPS: &[Step] = &[
    Step { env: &[], args: &["fmt", "--all", "--", "--check"] },
    Step { env: &[], args: &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"] },
    Step {
        env: &[],
        args: &[
            "clippy",
            "-p",
            "paces-constraint",
            "-p",
            "paces-trace",
            "-p",
            "paces-learn",
            "--all-targets",
            "--features",
            "serde",
            "--",
            "-D",
            "warnings",
        ],
    },
    Step { env: &[], args: &["test", "--workspace"] },
    Step { env: &[], args: &["test", "-p", "paces-learn", "--features", "serde"] },
    // The library crates' examples: each checks what it shows.
    Step { env: &[], args: &["run", "-p", "paces-constraint", "--example", "exclude_candidates"] },
    Step { env: &[], args: &["run", "-p", "paces-trace", "--example", "learn_from_good_trace"] },
    Step { env: &[], args: &["run", "-p", "paces-generalize", "--example", "eliminate_bad_trace"] },
    Step { env: &[], args: &["run", "-p", "paces-solver", "--example", "cheapest_candidate"] },
    Step { env: &[], args: &["run", "-p", "paces-learn", "--example", "custom_cegis"] },
    Step { env: &[], args: &["run", "-p", "paces-learn", "--features", "serde", "--example", "json_cegis"] },
    Step { env: &[], args: &["run", "-p", "paces-cwhile", "--example", "parse_and_reorder"] },
    Step { env: &[], args: &["run", "-p", "paces-c", "--example", "read_c_model"] },
    Step { env: &[], args: &["run", "-p", "paces-explore", "--example", "check_to_fixes"] },
    Step { env: &[], args: &["run", "-p", "paces-report", "--example", "check_page"] },
    Step { env: &[("RUSTDOCFLAGS", "-D warnings")], args: &["doc", "--workspace", "--no-deps"] },
    Step {
        env: &[],
        args: &["clippy", "-p", "paces-solver", "--all-targets", "--features", "cadical", "--", "-D", "warnings"],
    },
    Step { env: &[], args: &["test", "-p", "paces-solver", "--features", "cadical"] },
    Step {
        env: &[],
        args: &[
            "package",
            "--workspace",
            "--exclude",
            "paces-heldin",
            "--exclude",
            "paces-benches",
            "--exclude",
            "xtask",
        ],
    },
    Step {
        env: &[],
        args: &[
            "+1.86",
            "check",
            "--workspace",
            "--exclude",
            "paces-heldin",
            "--exclude",
            "paces-testkit",
            "--exclude",
            "paces-benches",
            "--exclude",
            "xtask",
        ],
    },
];

impl Step {
    /// The step as a shell line, as `.ci/run` spells it.
    fn shell(&self) -> String {
        let mut line = String::new();
        for (key, value) in self.env {
            line.push_str(&format!("{key}=\"{value}\" "));
        }
        line.push_str("cargo ");
        line.push_str(&self.args.join(" "));
        line
    }

    /// Runs the step, failing with its command line when it fails. A step on another
    /// toolchain (`cargo +1.86 ...`) goes through rustup's `cargo` on the `PATH` (the cargo
    /// that runs xtask takes no `+toolchain`), and is skipped, saying so, when that toolchain
    /// is not installed (`.ci/run` installs it).
    fn run(&self) -> Result<(), String> {
        let cargo = match self.args[0].strip_prefix('+') {
            Some(toolchain) => {
                let installed = Command::new("rustup")
                    .args(["run", toolchain, "rustc", "--version"])
                    .output()
                    .is_ok_and(|o| o.status.success());
                if !installed {
                    eprintln!(
                        "xtask: skipped `{}`: toolchain {toolchain} is not installed (`rustup toolchain install \
                         {toolchain} --profile minimal`)",
                        self.shell()
                    );
                    return Ok(());
                }
                "cargo"
            }
            None => env!("CARGO"),
        };
        eprintln!("xtask: {}", self.shell());
        let status = Command::new(cargo)
            .args(self.args)
            .envs(self.env.iter().copied())
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("`{}` failed ({status})", self.shell()))
        }
    }
}

/// The cargo steps of `.ci/run`, in the same order.
fn ci() -> Result<(), String> {
    CI_STEPS.iter().try_for_each(|step| {
        if step.args[0] == "package" {
            forget_unpacked_overlay()?;
        }
        step.run()
    })
}

/// Removes the workspace's crates that an earlier `cargo package` unpacked from its local
/// registry overlay into the cargo home: cargo never unpacks a crate again, so a later run at
/// the same path would verify the earlier run's sources. `.ci/run` does the same in shell.
fn forget_unpacked_overlay() -> Result<(), String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else { return Ok(()) };
    let Ok(entries) = std::fs::read_dir(&src) else { return Ok(()) };
    for entry in entries.flatten() {
        let overlay = entry.file_name().to_string_lossy().starts_with('-');
        let ours = std::fs::read_dir(entry.path())
            .map(|d| d.flatten().any(|c| c.file_name().to_string_lossy().starts_with("paces-")))
            .unwrap_or(false);
        if overlay && ours {
            std::fs::remove_dir_all(entry.path())
                .map_err(|e| format!("cannot remove {}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::CI_STEPS;

    #[test]
    fn xtask_ci_runs_the_cargo_steps_of_ci_run() {
        let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../.ci/run")).unwrap();
        let in_script: Vec<&str> = script
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with('#') && l.contains("cargo "))
            .filter(|l| !l.starts_with("export"))
            .collect();
        let ours: Vec<String> = CI_STEPS.iter().map(|s| s.shell()).collect();
        assert_eq!(in_script, ours);
    }

    /// The one step on another toolchain builds with the workspace's `rust-version`, the
    /// minimum Rust version the crates declare.
    #[test]
    fn the_minimum_rust_version_step_uses_the_declared_version() {
        let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml")).unwrap();
        let declared = manifest.lines().find_map(|l| l.strip_prefix("rust-version = ")).map(|v| v.trim_matches('"'));
        let toolchains: Vec<&str> = CI_STEPS.iter().filter_map(|s| s.args[0].strip_prefix('+')).collect();
        assert_eq!(toolchains, [declared.expect("the workspace declares its rust-version")]);
    }
}
