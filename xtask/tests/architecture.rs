//! Architecture invariants of `docs/ARCHITECTURE.md`, checked: which workspace crate may depend
//! on which (read from `cargo metadata`), and no third-party type named in a public line.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{root, rust_files};

/// The workspace crates that may depend on anything of ours: they are no library.
const UNRESTRICTED: &[&str] = &["paces-benches", "xtask"];

/// For every library crate of the workspace, the workspace crates it may depend on (normal and
/// build dependencies; dev-dependencies are free): the crate map of `docs/ARCHITECTURE.md`.
const ALLOWED: &[(&str, &[&str])] = &[
    ("paces-constraint", &[]),
    ("paces-trace", &["paces-constraint"]),
    ("paces-generalize", &["paces-trace", "paces-constraint"]),
    ("paces-solver", &["paces-constraint"]),
    ("paces-cwhile", &["paces-constraint"]),
    // The checker hands its counterexamples to the generalisation in one call.
    ("paces-explore", &["paces-cwhile", "paces-trace", "paces-constraint", "paces-generalize"]),
    // The C frontend: it builds the Cwhile IR; nothing below it knows C.
    ("paces-c", &["paces-cwhile", "paces-constraint"]),
    // The learner: the four learner crates and nothing of Cwhile or the checker.
    ("paces-learn", &["paces-constraint", "paces-trace", "paces-generalize", "paces-solver"]),
    (
        "paces",
        &[
            "paces-constraint",
            "paces-trace",
            "paces-generalize",
            "paces-solver",
            "paces-learn",
            "paces-cwhile",
            "paces-explore",
        ],
    ),
    // The binary is the top: it may reach past the umbrella crate to the front end it parses,
    // prints and exports with directly (the checker it reaches through `paces::explore`).
    // The HTML report: it draws what the umbrella crate's report and charts hold.
    ("paces-report", &["paces"]),
    ("paces-cli", &["paces", "paces-cwhile", "paces-c", "paces-report"]),
    // The held-in benchmarks: test data, so a library crate may have it only as a
    // dev-dependency (no crate lists it here); it depends on nothing of ours.
    ("paces-heldin", &[]),
    // The differential test kit: test code too (tests and `cargo xtask differential` only),
    // over the checker it tests.
    ("paces-testkit", &["paces-explore", "paces-cwhile"]),
];

/// Third-party paths that must not appear in a public line of any crate (invariant 5 of
/// `docs/ARCHITECTURE.md`).
const PRIVATE_PATHS: &[&str] = &["rustsat::", "petgraph::", "logos::", "lalrpop_util::", "lang_c::", "layout::"];

/// The dependency edges that break the rules, as readable lines, sorted.
fn violations(metadata: &Value) -> Vec<String> {
    let packages = metadata["packages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let ours: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut out = Vec::new();
    if ours.is_empty() {
        out.push("cargo metadata lists no package".to_owned());
    }
    for package in packages {
        let name = package["name"].as_str().unwrap_or("?");
        let allowed = ALLOWED.iter().find(|(n, _)| *n == name).map(|(_, a)| *a);
        let unrestricted = UNRESTRICTED.contains(&name);
        if allowed.is_none() && !unrestricted {
            out.push(format!(
                "`{name}` is a new workspace crate: add its allowed dependencies to ALLOWED in \
                 xtask/tests/architecture.rs and to docs/ARCHITECTURE.md"
            ));
            continue;
        }
        let deps = package["dependencies"].as_array().map(Vec::as_slice).unwrap_or_default();
        for dep in deps {
            let dep_name = dep["name"].as_str().unwrap_or("?");
            let is_dev = dep["kind"].as_str() == Some("dev");
            if is_dev || !ours.contains(&dep_name) {
                continue;
            }
            if UNRESTRICTED.contains(&dep_name) {
                out.push(format!("`{name}` depends on `{dep_name}`, which nothing may depend on"));
            } else if let Some(allowed) = allowed {
                if !allowed.contains(&dep_name) {
                    out.push(format!(
                        "`{name}` depends on `{dep_name}`, which the crate map of docs/ARCHITECTURE.md does not allow"
                    ));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn crates_depend_only_downwards() {
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let names: Vec<&str> =
        metadata["packages"].as_array().expect("packages").iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.contains(&"paces-constraint") && names.contains(&"xtask"), "{names:?}");
    let bad = violations(&metadata);
    assert!(bad.is_empty(), "architecture invariants broken:\n{}", bad.join("\n"));
}

/// The checker itself finds what it must: an upward edge, an edge into a tool crate, and an
/// unknown crate; dev-dependencies and third-party crates pass.
#[test]
fn the_checker_catches_bad_edges() {
    let metadata = serde_json::json!({
        "packages": [
            { "name": "paces-constraint", "dependencies": [
                { "name": "paces-trace", "kind": null },
                { "name": "paces-cwhile", "kind": "dev" },
                { "name": "smallvec", "kind": null }
            ]},
            { "name": "paces-trace", "dependencies": [
                { "name": "paces-constraint", "kind": null },
                { "name": "xtask", "kind": "build" }
            ]},
            { "name": "paces-solver", "dependencies": [{ "name": "paces-cwhile", "kind": null }] },
            { "name": "paces-cwhile", "dependencies": [] },
            { "name": "xtask", "dependencies": [{ "name": "paces", "kind": null }] },
            { "name": "paces-new", "dependencies": [] }
        ]
    });
    assert_eq!(
        violations(&metadata),
        [
            "`paces-constraint` depends on `paces-trace`, which the crate map of docs/ARCHITECTURE.md does not allow",
            "`paces-new` is a new workspace crate: add its allowed dependencies to ALLOWED in \
             xtask/tests/architecture.rs and to docs/ARCHITECTURE.md",
            "`paces-solver` depends on `paces-cwhile`, which the crate map of docs/ARCHITECTURE.md does not allow",
            "`paces-trace` depends on `xtask`, which nothing may depend on",
        ]
    );
}

/// The public lines of a file that name a private third-party path: lines that start with
/// `pub ` (an item or a field visible outside the crate; `pub(crate)` lines are not) and
/// mention one of [`PRIVATE_PATHS`]. A heuristic: an imported name used in a signature is not
/// caught, so reviews still look.
fn public_mentions(path: &Path, text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let line = line.trim_start();
            line.starts_with("pub ") && PRIVATE_PATHS.iter().any(|p| line.contains(p))
        })
        .map(|(k, line)| format!("{}:{}: {}", path.display(), k + 1, line.trim()))
        .collect()
}

#[test]
fn third_party_types_stay_out_of_public_lines() {
    let crates = root().join("crates");
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(&crates).expect("crates/").flatten().map(|e| e.path().join("src")).collect();
    dirs.sort();
    let mut bad = Vec::new();
    let mut files = 0;
    for dir in dirs {
        for file in rust_files(&dir) {
            let text = std::fs::read_to_string(&file).expect("readable source");
            bad.extend(public_mentions(&file, &text));
            files += 1;
        }
    }
    assert!(files > 0, "no source files found under {}", crates.display());
    assert!(bad.is_empty(), "third-party types in public lines:\n{}", bad.join("\n"));
}

#[test]
fn the_tidy_check_catches_public_mentions() {
    let text = "use petgraph::Graph;\n\
                pub fn graph() -> petgraph::Graph<u32, ()> { todo!() }\n\
                pub(crate) fn solver(s: &mut rustsat::Solver) {}\n\
                    pub struct Tokens(pub Vec<logos::Span>);\n\
                /// pub fn doc() -> lalrpop_util::ParseError\n\
                pub use lalrpop_util::ParseError;\n";
    let found = public_mentions(Path::new("x.rs"), text);
    assert_eq!(
        found,
        [
            "x.rs:2: pub fn graph() -> petgraph::Graph<u32, ()> { todo!() }",
            "x.rs:4: pub struct Tokens(pub Vec<logos::Span>);",
            "x.rs:6: pub use lalrpop_util::ParseError;",
        ]
    );
}
