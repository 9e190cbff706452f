//! Differential check of the Promela export against SPIN, when `spin` and a C compiler are
//! installed (Debian package `spin`): known-buggy programs fail an assertion, the paper's fix
//! and a program cut by an `assume` or idling in a loop have no error, a real deadlock is an
//! invalid end state. Without SPIN the test says so on stderr and checks nothing else.

use std::path::Path;
use std::process::Command;

fn have(tool: &str, flag: &str) -> bool {
    Command::new(tool).arg(flag).output().is_ok_and(|o| o.status.success())
}

/// Runs SPIN's safety search on `source`; returns pan's report.
fn spin(name: &str, source: &str) -> String {
    let program = paces_cwhile::parse(source).unwrap_or_else(|d| panic!("{name}: {d}"));
    let dir = std::env::temp_dir().join(format!("paces-spin-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("model.pml"), paces_cwhile::to_promela(&program, source).unwrap()).unwrap();
    let run = |cmd: &mut Command| {
        let out = cmd.current_dir(&dir).output().unwrap();
        assert!(out.status.success(), "{name}: {:?} failed: {}", cmd, String::from_utf8_lossy(&out.stdout));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(Command::new("spin").args(["-a", "model.pml"]));
    run(Command::new("cc").args(["-w", "-O1", "-DSAFETY", "-DVECTORSZ=4096", "-o", "pan", "pan.c"]));
    let out = Command::new(Path::new(&dir).join("pan")).current_dir(&dir).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn promela_agrees_with_the_semantics() {
    if !have("spin", "-V") || !have("cc", "--version") {
        eprintln!("spin or cc not installed: Promela export not checked against SPIN");
        return;
    }
    for name in ["paper1", "ex-regr", "iwl3945"] {
        let report = spin(name, paces_heldin::source(name));
        assert!(report.contains("assertion violated"), "{name}: {report}");
    }
    // The paper's repair of Figure 7 (B; C; A) is correct.
    let fixed = paces_heldin::source("paper1")
        .replace("  A: x := 1;\n  B: y := 1;\n  C: z := 1;", "  B: y := 1;\n  C: z := 1;\n  A: x := 1;");
    let report = spin("fixed", &fixed);
    assert!(report.contains("errors: 0"), "{report}");
    // An assume cuts the trace; an idle worker loop is finished: neither is a deadlock, also
    // beside a thread that waits for good (the cut thread ends the run).
    let src = "var x, y;\nthread a { assume(x == 1); x := 2; }\nthread b { while (*) { await(y == 1); } }\nthread c { if (*) { await(y == 2); } }\nthread d { await(y == 3); }\n";
    let report = spin("cut", src);
    assert!(report.contains("errors: 0"), "{report}");
    // A wait beside a loop exit whose first step is a false assume blocks its thread: the
    // choice is made with the first step of the branch taken.
    let src = "var m, stop;\nthread h { lock(m); await(stop == 1); }\nthread p { while (*) { lock(m); unlock(m); } assume(stop == 1); }\n";
    let report = spin("wait-beside-cut", src);
    assert!(report.contains("invalid end state"), "{report}");
    // Two locks taken in opposite orders can deadlock: an invalid end state for SPIN.
    let src = "var m, n;\nthread a { lock(m); lock(n); unlock(n); unlock(m); }\nthread b { lock(n); lock(m); unlock(m); unlock(n); }\n";
    let report = spin("deadlock", src);
    assert!(report.contains("invalid end state"), "{report}");
    // Division by zero is an assertion failure.
    let src = "var x, y;\nthread a { y := 10 / x; }\n";
    let report = spin("div", src);
    assert!(report.contains("assertion violated"), "{report}");
    // ... but not behind a false `&&`.
    let src = "var x, y;\nthread a { assert(x == 0 || 10 / x > 0); }\n";
    let report = spin("div-guarded", src);
    assert!(report.contains("errors: 0"), "{report}");
    // A shift by an amount outside 0..63 is one too; the bitwise operators are Promela's.
    let src = "var x = 64, y;\nthread a { y := 1 << x; }\n";
    let report = spin("shift", src);
    assert!(report.contains("assertion violated"), "{report}");
    let src = "var x = 12, y = 10;\nthread a { assert((x & y) == 8 && (x | y) == 14 && (x ^ y) == 6 && -x >> 2 == -3 && (y >> 63) == 0); }\n";
    let report = spin("bits", src);
    assert!(report.contains("errors: 0"), "{report}");
}
