//! Hostile inputs through the real binary: binary bytes, non-UTF-8, a huge line, deep nesting,
//! long flat expressions, terminal escapes, many errors and 5 MB programs. Each run must end
//! within a generous time (the child is killed otherwise) with the expected exit code and
//! message, no panic, and bounded output. Each child runs under an address-space limit, so a
//! blow-up ends in an allocation failure that the exit-code asserts catch instead of taking the
//! machine. The big inputs are generated here.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long one run may take, in a debug build on a busy machine.
const TIME_LIMIT: Duration = Duration::from_secs(180);

/// The address space each child may take, in KiB (`ulimit -v`): 6 GiB.
const ADDRESS_SPACE_KIB: u64 = 6 << 20;

/// The most bytes of stderr one rejected input may produce: at most 100 rendered errors of a
/// few hundred bytes each, whatever the input.
const MAX_STDERR: usize = 64 * 1024;

/// What a run of the binary produced.
struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// Waits for `child`, killing it when it outlives [`TIME_LIMIT`].
fn wait(mut child: Child, args: &[&str]) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`paces {}` ran longer than {TIME_LIMIT:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A command that runs `program` under an address-space limit of [`ADDRESS_SPACE_KIB`]: the
/// shell sets the limit and replaces itself by `program` (same process, so killing the child
/// kills `program`), with the arguments given to the command. The shell's `ulimit` keeps the
/// test free of unsafe code, which `pre_exec` would need.
fn limited(program: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(format!("ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\"")).arg(program);
    command
}

#[test]
fn children_run_under_the_address_space_limit() {
    let out = limited("sh").args(["-c", "ulimit -v"]).output().expect("sh runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), ADDRESS_SPACE_KIB.to_string());
}

/// Runs `paces ARGS FILE` on a scratch file holding `contents`.
fn run(args: &[&str], name: &str, contents: &[u8]) -> Run {
    let dir = std::env::temp_dir().join(format!("paces-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    let file = path.display().to_string();
    all.push(&file);
    let mut child = limited(env!("CARGO_BIN_EXE_paces"))
        .args(&all)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    let code = wait(child, &all);
    let stderr = String::from_utf8(err.join().unwrap()).expect("stderr is UTF-8");
    let _ = std::fs::remove_file(&path);
    assert!(!stderr.contains("panicked"), "`paces {}` panicked:\n{stderr}", all.join(" "));
    Run { code, stdout: out.join().unwrap(), stderr }
}

/// Asserts that `contents` is rejected by `check` and `fmt` with exit code 2, a bounded
/// stderr containing every one of `needles`, no terminal escape byte and nothing on stdout;
/// returns the stderr of `check`.
#[track_caller]
fn rejected(name: &str, contents: &[u8], needles: &[&str]) -> String {
    let mut first = None;
    for cmd in ["check", "fmt"] {
        let r = run(&[cmd], name, contents);
        assert_eq!(r.code, Some(2), "{cmd} {name}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{cmd} {name}: stdout is not empty");
        assert!(r.stderr.len() <= MAX_STDERR, "{cmd} {name}: {} bytes of stderr", r.stderr.len());
        assert!(
            !r.stderr.contains('\u{1b}') && !r.stderr.contains('\u{7}'),
            "{cmd} {name}: escape bytes reached stderr"
        );
        for needle in needles {
            assert!(r.stderr.contains(needle), "{cmd} {name}: `{needle}` missing in:\n{}", r.stderr);
        }
        first.get_or_insert(r.stderr);
    }
    first.unwrap()
}

/// Deterministic bytes that look like a binary file (NUL, high bytes, escapes).
fn binary_bytes(n: usize) -> Vec<u8> {
    let mut x: u32 = 0x2545_f491;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x.to_le_bytes()[0]
        })
        .collect()
}

#[test]
fn binary_file() {
    let mut bytes = b"\x7fELF\x02\x01\x01\0\0\0".to_vec();
    bytes.extend(binary_bytes(64 * 1024));
    rejected("binary.cw", &bytes, &["error[E0001]: the file is not valid UTF-8", "1 error"]);
}

#[test]
fn non_utf8_inside_a_program() {
    rejected("latin1.cw", b"var x;\nthread t {\n  x := 1; // caf\xe9\n}\n", &["error[E0001]", "offset 34"]);
}

#[test]
fn a_200_kb_line_is_shortened() {
    let mut line = "x := 1; ".repeat(12_500);
    line.insert(line.len() / 2, '@');
    let src = format!("var x;\nthread t {{ {line} }}\n");
    assert!(src.len() > 100_000);
    let err = rejected("long-line.cw", src.as_bytes(), &["error[E0002]: invalid character `@`", "…"]);
    // One error: a header, one shortened source line and a caret line, all short.
    assert!(err.lines().all(|l| l.chars().count() < 300), "{err}");
}

#[test]
fn deep_nesting() {
    let n = 10_000;
    let src = format!("var x;\nthread t {{\n{}skip;\n{}}}\n", "if (x == 1) {\n".repeat(n), "}\n".repeat(n));
    rejected(
        "deep.cw",
        src.as_bytes(),
        &["error[E0006]: statements are nested deeper than 256 levels", "deep.cw:259:1"],
    );
    // `x := ` ends at column 16: the 513th `-` from the outside is on column 529.
    let src = format!("var x;\nthread t {{ x := {}1; }}\n", "-".repeat(100_000));
    rejected(
        "deep-expr.cw",
        src.as_bytes(),
        &[
            "error[E0006]: an expression is nested deeper than 512 levels",
            "deep-expr.cw:2:529",
            "level 513 starts here",
        ],
    );
    // `else { if` is the next link of a chain, no nesting: level 257 is the 256th nested `if`.
    let src = format!(
        "var x;\nthread t {{\n{}if (x == 0) {{\n{}skip;\n{}}}{}\n}}\n",
        "if (x == 0) { skip; } else {\n".repeat(100),
        "if (x == 1) {\n".repeat(300),
        "}\n".repeat(300),
        "}".repeat(100)
    );
    rejected(
        "else-braces.cw",
        src.as_bytes(),
        &["statements are nested deeper than 256 levels", "else-braces.cw:359:1"],
    );
    // The first `if` is level 1 on line 3; `else if` number k is level k + 1, on line k + 3.
    let src =
        format!("var x;\nthread t {{\nif (x == 0) {{ skip; }}\n{}}}\n", "else if (x == 1) { skip; }\n".repeat(5_000));
    rejected("else-ifs.cw", src.as_bytes(), &["`else if`s are nested deeper than 1024 levels", "else-ifs.cw:1027:6"]);
}

#[test]
fn long_c_chains() {
    let model = |n: usize, value: usize| {
        format!(
            "int x;\nvoid t() {{\n  x = 1{};\n  assert(x == {value});\n}}\nvoid main() {{ t(); }}\n",
            " + 1".repeat(n)
        )
    };
    let check = accepted(&["check"], "chain.c", &model(10_000, 10_001), 0);
    assert!(String::from_utf8_lossy(&check.stdout).contains("correct"));
    accepted(&["check"], "chain.c", &model(10_000, 10_000), 1);
    // `x = ` holds the first operator (column 5); the 20,001st is on column 5 + 4 * 20,000.
    let at = format!("long.c:3:{}", 5 + 4 * 20_000);
    rejected(
        "long.c",
        model(100_000, 0).as_bytes(),
        &["error[C0009]: a statement with more than 20000 operators", &at],
    );
    let unary = format!("int x;\nvoid t() {{\n  x = {}1;\n}}\nvoid main() {{ t(); }}\n", "- ".repeat(100_000));
    rejected("unary.c", unary.as_bytes(), &["error[C0006]: more than 200 operator characters in a row"]);
}

/// Runs `paces ARGS` on `src` and asserts exit code `code`; returns the run.
#[track_caller]
fn accepted(args: &[&str], name: &str, src: &str, code: i32) -> Run {
    let r = run(args, name, src.as_bytes());
    assert_eq!(r.code, Some(code), "{} {name}: {}", args.join(" "), r.stderr);
    r
}

#[test]
fn long_flat_expressions() {
    // One long chain per operator level (the value stays small: `x` is 1 or 0 throughout).
    for op in ["+", "*", "&&", "||", "<", "=="] {
        let n = 10_000;
        let value = match op {
            "+" => n + 1,
            _ => 1,
        };
        let chain = format!("1{}", format!(" {op} 1").repeat(n));
        let src = format!("var x;\nthread t {{ x := {chain}; assert(x == {value}); }}\n");
        let check = accepted(&["check"], "flat.cw", &src, 0);
        assert!(String::from_utf8_lossy(&check.stdout).contains("correct"), "`{op}`");
        let fmt = accepted(&["fmt"], "flat.cw", &src, 0);
        assert!(String::from_utf8_lossy(&fmt.stdout).contains(&chain), "`{op}`: fmt lost the chain");
        let promela = accepted(&["export", "--promela"], "flat.cw", &src, 0);
        assert!(String::from_utf8_lossy(&promela.stdout).contains("active proctype"), "`{op}`");
        accepted(&["repair"], "flat.cw", &src, 0);
    }
    // Left association: `10 - 1 - 1` is 8, not 10.
    let minus = format!("var x;\nthread t {{ x := 10{}; assert(x == 8); }}\n", " - 1".repeat(2));
    accepted(&["check"], "minus.cw", &minus, 0);
    let wrong = format!("var x;\nthread t {{ x := 10{}; assert(x == 10); }}\n", " - 1".repeat(2));
    accepted(&["check"], "minus.cw", &wrong, 1);
    let long = format!("var x;\nthread t {{ x := 20000{}; assert(x == 0); }}\n", " - 1".repeat(20_000));
    accepted(&["check"], "minus.cw", &long, 0);
    // A division by zero at the end of a long chain is found; `&&` short-circuits before it.
    let div = format!("var x;\nthread t {{ x := 7{} / 0; }}\n", " / 1".repeat(10_000));
    let r = accepted(&["check"], "div.cw", &div, 1);
    assert!(String::from_utf8_lossy(&r.stdout).contains("division by zero"), "{}", String::from_utf8_lossy(&r.stdout));
    let guarded = format!("var x;\nthread t {{ x := 1{} && 0 && 1 / 0; }}\n", " && 1".repeat(10_000));
    accepted(&["check"], "and.cw", &guarded, 0);
    // A race the repair loop fixes by moving a statement holding a long chain.
    let chain = format!("1{}", " + 1".repeat(10_000));
    let race = format!(
        "var x, y;\nthread t {{ B: y := 1; A: x := {chain}; }}\nthread u {{ await(y == 1); assert(x == 10001); }}\n"
    );
    let r = accepted(&["repair"], "race.cw", &race, 0);
    let out = String::from_utf8_lossy(&r.stdout);
    let a = out.find(&format!("x := {chain};")).expect("the chain is printed whole");
    let b = out.find("y := 1;").expect("B is printed");
    assert!(a < b, "A moves before B:\n{}", r.stderr);
}

#[test]
fn terminal_escapes_are_escaped() {
    let src = b"var x;\nthread t {\n  x := 1 \x1b]0;owned\x07 \x1b[2J;\n}\n";
    rejected("escapes.cw", src, &["error[E0002]", "\\u{1b}]0"]);
}

#[test]
fn many_errors_are_capped() {
    let src = format!("var x;\nthread t {{ x := 1; }}\n{}\n", "@ ".repeat(100_000));
    rejected("many.cw", src.as_bytes(), &["more errors not shown", "100000 errors"]);
}

/// A valid program of about `bytes` bytes: two threads of labelled assignments.
fn big_program(bytes: usize) -> String {
    let mut src = String::from("var x, y;\n");
    for t in ["t", "u"] {
        src.push_str(&format!("thread {t} {{\n"));
        let mut i = 0;
        while src.len() < bytes * if t == "t" { 1 } else { 2 } / 2 {
            src.push_str(&format!("  {t}{i}: x := (y + {i}) * x - 1;\n"));
            i += 1;
        }
        src.push_str("}\n");
    }
    src
}

#[test]
fn five_megabytes() {
    let src = big_program(5_000_000);
    let fmt = run(&["fmt"], "big.cw", src.as_bytes());
    assert_eq!(fmt.code, Some(0), "{}", fmt.stderr);
    assert!(fmt.stdout.len() >= src.len() - 100, "{} bytes of output", fmt.stdout.len());
    let check = run(&["check", "--max-time", "30", "--max-memory", "1024"], "big.cw", src.as_bytes());
    assert!(check.code.is_some(), "check was killed by a signal: {}", check.stderr);
    assert!(check.stdout.len() <= MAX_STDERR, "{} bytes of output", check.stdout.len());
    // The same program with a syntax error at its very end.
    let broken = format!("{src}thread v {{ x := ; }}\n");
    rejected("big-broken.cw", broken.as_bytes(), &["error[E0004]: unexpected `;`"]);
}

/// A check-then-act bug that a reorder fixes, with `n` unrelated writes in each thread: `t`
/// writes `x := 1`, then `y` `n` times, then asserts `x == 1`; `u` writes `x := 2`, then `y`.
fn check_then_act(n: usize) -> String {
    let mut src = String::from("var x, y;\n");
    for (t, value, modulus) in [("t", 1, 7), ("u", 2, 5)] {
        src.push_str(&format!("thread {t} {{\n  {t}x: x := {value};\n"));
        for i in 0..n {
            src.push_str(&format!("  {t}{i}: y := {i} % {modulus};\n"));
        }
        if t == "t" {
            src.push_str("  assert(x == 1);\n");
        }
        src.push_str("}\n");
    }
    src
}

#[test]
fn long_programs_end_within_their_limits() {
    let src = check_then_act(100_000);
    assert!(src.len() > 5_000_000, "{} bytes", src.len());
    // No repair within the limits: exit 1, with the limit that stopped it named.
    let repair = run(&["repair", "--time-limit", "5", "--max-memory", "200"], "long.cw", src.as_bytes());
    assert_eq!(repair.code, Some(1), "{}", repair.stderr);
    let summary = repair.stderr.lines().find(|l| l.starts_with("paces: ")).unwrap_or_default();
    assert!(
        summary.ends_with("time limit reached (mixed mode)") || summary.contains("memory bound"),
        "{}",
        repair.stderr
    );
    // The checker stops at its memory bound: no exact answer, exit 3.
    let check = run(&["check", "--max-memory", "50"], "long.cw", src.as_bytes());
    assert_eq!(check.code, Some(3), "{}", check.stderr);
    let out = String::from_utf8_lossy(&check.stdout);
    assert!(out.contains("memory bound reached after"), "{out}");
}

#[test]
fn long_else_if_chains() {
    let chain: String = (1..=1_000).map(|i| format!(" else if (x == {i}) {{ y := {i}; }}")).collect();
    let src = format!("var x = 500, y;\nthread t {{\n  if (x == 0) {{ y := 0; }}{chain}\n  assert(y == 500);\n}}\n");
    for args in [&["check"][..], &["fmt"], &["export", "--promela"], &["repair"]] {
        accepted(args, "else-if.cw", &src, 0);
    }
    let fmt = run(&["fmt"], "else-if.cw", src.as_bytes());
    assert!(String::from_utf8_lossy(&fmt.stdout).contains("} else if (x == 1000) {"));
    let wrong = src.replace("assert(y == 500)", "assert(y == 499)");
    accepted(&["check"], "else-if.cw", &wrong, 1);
}
