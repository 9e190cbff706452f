//! pthread C (`paces_c::pthread`): verdicts of the checker on the frontend's model, the bounds
//! it reports, errors with their line and column, and both preprocessors.

mod verdict;

use paces_c::pthread::{parse, Options, Preprocessor, Reading};
use paces_explore::{check, Config, FailureKinds, Verdict};

use verdict::fails;

fn read(name: &str, options: &Options) -> Reading {
    let path = format!("{}/tests/pthread/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("test program");
    match parse(&source, options) {
        Ok(r) => r,
        Err(d) => panic!("{name}: {}", paces_cwhile::render(&d, name, &source, false)),
    }
}

#[test]
fn a_lost_update_fails_and_a_mutex_prevents_it() {
    let lost = read("lost_update.c", &Options::default());
    assert!(fails(&lost));
    assert!(lost.bounds.is_empty());
    // `hits = hits + 1` reads and writes `hits`: two steps in one `noreorder` item.
    let text = paces_cwhile::Printer::new(&lost.program).print();
    assert!(text.contains("noreorder"), "{text}");
    let mutex = read("mutex.c", &Options::default());
    assert!(!fails(&mutex));
    assert!(mutex.bounds.is_empty());
    assert!(paces_cwhile::Printer::new(&mutex.program).print().contains("lock(guard)"));
}

#[test]
fn message_passing_waits_and_the_swapped_writes_fail() {
    assert!(!fails(&read("message.c", &Options::default())));
    assert!(fails(&read("message_swapped.c", &Options::default())));
}

#[test]
fn a_constant_loop_creates_one_thread_per_iteration() {
    let r = read("atomic_loop.c", &Options::default());
    // main and three workers, each with its own argument.
    assert_eq!(r.program.threads.len(), 4);
    let text = paces_cwhile::Printer::new(&r.program).print();
    for k in 0..3 {
        assert!(text.contains(&format!("work.arg := {k};")), "{text}");
    }
    assert!(!fails(&r));
    assert!(r.bounds.is_empty());
}

#[test]
fn nondeterministic_values_are_a_reported_bound() {
    let small = read("nondet.c", &Options::default());
    assert_eq!(small.bounds, vec!["nondeterministic values in 0..1".to_owned()]);
    assert!(!fails(&small), "no value in 0..1 makes k exceed 5");
    let wide = read("nondet.c", &Options { nondet: (0, 9), ..Options::default() });
    assert_eq!(wide.bounds, vec!["nondeterministic values in 0..9".to_owned()]);
    assert!(fails(&wide), "limit 6 and above makes k exceed 5");
}

#[test]
fn both_preprocessors_read_the_same_program() {
    let own = read("atomic_loop.c", &Options { preprocessor: Preprocessor::Own, ..Options::default() });
    assert_eq!(own.preprocessor, "own");
    let auto = read("atomic_loop.c", &Options::default());
    let has_cpp = std::process::Command::new("cpp").arg("--version").output().is_ok_and(|o| o.status.success());
    if has_cpp {
        assert_eq!(auto.preprocessor, "cpp");
        let system = read("atomic_loop.c", &Options { preprocessor: Preprocessor::System, ..Options::default() });
        assert_eq!(
            paces_cwhile::Printer::new(&system.program).print(),
            paces_cwhile::Printer::new(&own.program).print()
        );
    } else {
        assert_eq!(auto.preprocessor, "own");
        let path = format!("{}/tests/pthread/atomic_loop.c", env!("CARGO_MANIFEST_DIR"));
        let source = std::fs::read_to_string(path).expect("test program");
        assert!(parse(&source, &Options { preprocessor: Preprocessor::System, ..Options::default() }).is_err());
    }
    assert_eq!(paces_cwhile::Printer::new(&auto.program).print(), paces_cwhile::Printer::new(&own.program).print());
}

/// The first error reading `source`: its code, line, column and message.
fn error_of(source: &str) -> (String, usize, usize, String) {
    for which in [Preprocessor::Own, Preprocessor::Auto] {
        let Err(d) = parse(source, &Options { preprocessor: which, ..Options::default() }) else {
            panic!("read: {source}")
        };
        let d = d.iter().next().expect("one");
        let (line, col) = d.line_col(source);
        if which == Preprocessor::Auto {
            return (d.code.to_owned(), line, col, d.message.clone());
        }
    }
    unreachable!("the loop returns")
}

#[test]
fn what_cannot_be_read_is_an_error_at_its_place() {
    let head = "#include <pthread.h>\nint x;\n";
    let cases: &[(&str, &str, usize, usize, &str)] = &[
        ("int *p;\nint main() { p = (int *)x; return 0; }\n", "C0410", 4, 18, "a pointer set to a value other"),
        ("union s { int a; } v;\nint main() { return 0; }\n", "C0410", 3, 1, "union"),
        ("int main() {\n  x = malloc(4);\n  return 0;\n}\n", "C0421", 4, 7, "`malloc`"),
        ("void f() { f(); }\nint main() { f(); return 0; }\n", "C0410", 3, 12, "recursion"),
        (
            "void *t(void *a) { return 0; }\nint main() {\n  pthread_t h;\n  while (x < 3) { pthread_create(&h, 0, t, 0); if (x == 2) break; x++; }\n  return 0;\n}\n",
            "C0410",
            6,
            3,
            "`break`, `continue` or `return` in a loop that creates threads",
        ),
        (
            "void *t(void *a) { return 0; }\nvoid spawn() { pthread_t h; pthread_create(&h, 0, t, 0); }\nint main() {\n  spawn();\n  spawn();\n  return 0;\n}\n",
            "C0410",
            6,
            3,
            "not called exactly once outside loops by a function that runs once",
        ),
        (
            "int main() {\n  x = 1;\nagain:\n  x = x + 1;\n  if (x < 3) goto again;\n  x = 0;\n  return 0;\n}\n",
            "C0410",
            7,
            14,
            "goto",
        ),
        ("int main() {\n  pthread_cond_t c;\n  x = x & 1;\n  return 0;\n}\n", "C0410", 5, 7, "operator"),
    ];
    for (body, code, line, col, what) in cases {
        let source = format!("{head}{body}");
        let (c, l, k, message) = error_of(&source);
        assert_eq!((c.as_str(), l, k), (*code, *line, *col), "{message}\n{source}");
        assert!(message.contains(what), "{message}");
    }
}

#[test]
fn the_paper_dialect_is_told_apart() {
    assert!(!paces_c::pthread::looks_like_pthread("int x;\nvoid t() { x = 1; }\nvoid main() { t(); }\n"));
    assert!(paces_c::pthread::looks_like_pthread("#include <pthread.h>\nint main() { return 0; }\n"));
}

#[test]
fn a_function_main_calls_once_may_create_and_join() {
    let source = "#include <pthread.h>\nint x;\nvoid *t(void *a) { (void)a; x = x + 1; return 0; }\n\
        int start() {\n  pthread_t h1, h2;\n  pthread_create(&h1, 0, t, 0);\n  pthread_create(&h2, 0, t, 0);\n\
        pthread_join(h1, 0);\n  pthread_join(h2, 0);\n  return x;\n}\n\
        int main() {\n  int r = start();\n  __VERIFIER_assert(r == 2);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert_eq!(r.program.threads.len(), 3);
    assert!(fails(&r), "the two increments race");
}

#[test]
fn hostile_input_is_an_error_never_a_crash() {
    let deep = format!("int x;\nint main() {{ x = {}1{}; return 0; }}\n", "(".repeat(5000), ")".repeat(5000));
    let chain = format!("int x;\nint main() {{ x = 1{}; return 0; }}\n", " + 1".repeat(50_000));
    let unary = format!("int x;\nint main() {{ x = {}1; return 0; }}\n", "- ".repeat(50_000));
    let cases = [
        deep,
        chain,
        unary,
        "int main() { x = ; }".to_owned(),
        "/* open".to_owned(),
        "#include \"mine.h\"\nint main() { return 0; }".to_owned(),
        "#define F(a) a\nint main() { F(1; return 0; }".to_owned(),
        "int main() { \u{e9}\u{e9} = 1; }".to_owned(),
        "int x; /* \u{e9} */ int main() { x = y; return 0; }".to_owned(),
        // A macro that names itself with its argument twice: 2^32 bytes at its 32 levels
        // (the own preprocessor stops at 1 MiB; cpp does not expand a macro inside itself).
        "#define twice(c) twice(c c)\nint x;\nint main() { twice(x); return 0; }".to_owned(),
        String::new(),
    ];
    for source in &cases {
        for which in [Preprocessor::Own, Preprocessor::Auto] {
            let result = parse(source, &Options { preprocessor: which, ..Options::default() });
            let Err(d) = result else { panic!("read: {}", &source[..source.len().min(80)]) };
            // Every error renders with its place.
            let text = paces_cwhile::render(&d, "hostile.c", source, false);
            assert!(text.contains("error["), "{text}");
        }
    }
    let bytes = b"int main() { \xff return 0; }";
    assert!(paces_c::pthread::parse_bytes(bytes, &Options::default()).is_err());
}

#[test]
fn an_int_pointer_parameter_is_a_local_passed_by_reference() {
    let source = "#include <pthread.h>\nint g = 5;\nvoid __VERIFIER_atomic_snap(int *a, int *b) {\n  *a = g;\n  *b = *a + 1;\n}\n\
        int main() {\n  int x, y;\n  __VERIFIER_atomic_snap(&x, &y);\n  __VERIFIER_assert(x == 5 && y == 6);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert!(!fails(&r));
    let wrong = source.replace("y == 6", "y == 5");
    assert!(fails(&parse(&wrong, &Options::default()).expect("read")));
    // A shared variable's address, or one local twice, is not read.
    for bad in [source.replace("(&x, &y)", "(&g, &y)"), source.replace("(&x, &y)", "(&x, &x)")] {
        let (code, line, _, _) = error_of(&bad);
        assert_eq!((code.as_str(), line), ("C0410", 9), "{bad}");
    }
}

#[test]
fn an_error_before_an_abort_in_an_atomic_block_counts() {
    let source = "#include <pthread.h>\nint x;\nvoid __VERIFIER_atomic_check() {\n  if (x == 0) { reach_error(); abort(); }\n  __VERIFIER_assume(x == 1);\n}\n\
        int main() {\n  __VERIFIER_atomic_check();\n  return 0;\n}\n";
    assert!(fails(&parse(source, &Options::default()).expect("read")));
    // After the abort nothing counts: the error below it is not reached.
    let after = source.replace("{ reach_error(); abort(); }", "{ abort(); reach_error(); }");
    assert!(!fails(&parse(&after, &Options::default()).expect("read")));
}

#[test]
fn a_return_before_the_end_skips_the_rest() {
    let source = "#include <pthread.h>\nint x;\nint step(int k) {\n  if (k > 2) {\n    return 7;\n  }\n  x = k;\n  return k + 1;\n}\n\
        int main() {\n  int a = step(1);\n  int b = step(5);\n  __VERIFIER_assert(a == 2 && b == 7 && x == 1);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert!(!fails(&r));
    assert!(fails(&parse(&source.replace("x == 1", "x == 5"), &Options::default()).expect("read")));
    // In a loop on a nondet value, where the flag cannot join the condition: refused.
    let in_loop =
        "#include <pthread.h>\nint x;\nint main() {\n  while (__VERIFIER_nondet_int()) {\n    return 1;\n  }\n  return 0;\n}\n";
    let (code, line, col, _) = error_of(in_loop);
    assert_eq!((code.as_str(), line, col), ("C0410", 4, 3));
}

#[test]
fn computed_indexes_choose_an_element_and_cut_out_of_bounds() {
    let source = "#include <pthread.h>\nint slots[3];\nint top = 0;\nvoid put(int *s, int v) {\n  s[top] = v;\n  top = top + 1;\n}\n\
        int main() {\n  put(slots, 4);\n  put(slots, 5);\n  __VERIFIER_assert(slots[0] == 4 && slots[1] == 5 && top == 2);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert_eq!(r.bounds, vec!["paths with an array index out of bounds cut".to_owned()]);
    assert!(!fails(&r));
    assert!(fails(&parse(&source.replace("slots[1] == 5", "slots[1] == 4"), &Options::default()).expect("read")));
    // One pointer parameter cannot stand for two arrays.
    let two = source.replace("int slots[3];", "int slots[3];\nint other[3];").replace("put(slots, 5)", "put(other, 5)");
    let (code, line, _, message) = error_of(&two);
    assert_eq!((code.as_str(), line), ("C0410", 11), "{message}");
    // Nor for a local's address at one call and an array at another.
    let mixed = "#include <pthread.h>\nint slots[3];\nvoid put(int *s) {\n  *s = 1;\n}\nint main() {\n  int x;\n  put(&x);\n  put(slots);\n  return 0;\n}\n";
    let (code, line, col, message) = error_of(mixed);
    assert_eq!((code.as_str(), line, col), ("C0410", 9, 7), "{message}");
}

#[test]
fn an_if_that_only_reaches_the_error_reads_as_an_assertion() {
    let growing = read("growing.c", &Options::default());
    assert!(fails(&growing));
    let text = paces_cwhile::Printer::new(&growing.program).print();
    assert!(text.contains("assert(!(a > 5))"), "{text}");
    assert!(!text.contains("if (a > 5)"), "{text}");
    // Each form SV-COMP writes is one assertion; an `else` that acts keeps the `if`.
    let forms = [
        ("if (!(a > 5)) reach_error();", true),
        ("if (a > 5) { ERROR: { reach_error(); abort(); } ; }", true),
        ("if (a > 5) __VERIFIER_error(); else {}", true),
        ("if (a > 5) { reach_error(); exit(1); } else ;", true),
        ("if (a > 5) reach_error(); else a = 0;", false),
        ("if (a > 5) { a = 0; reach_error(); }", false),
    ];
    for (check, assertion) in forms {
        let source = format!("#include <pthread.h>\nint a;\nint main() {{ a = 1; {check} return 0; }}\n");
        let r = parse(&source, &Options::default()).expect("reads");
        let text = paces_cwhile::Printer::new(&r.program).print();
        assert_eq!(text.contains("assert(0)"), !assertion, "{check}\n{text}");
        assert_eq!(text.contains("if ("), !assertion, "{check}\n{text}");
    }
}

/// The verdict of a program of `main` alone (after a thread that sets the globals).
fn verdict_of(body: &str) -> bool {
    let source = format!(
        "#include <pthread.h>\nvoid reach_error() {{}}\nunsigned int u = 0;\nint neg = -1;\n\
         void *t(void *a) {{ u = u - 1; return 0; }}\n\
         int main() {{\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n  pthread_join(h, 0);\n  {body}\n  return 0;\n}}\n"
    );
    let reading = parse(&source, &Options::default()).unwrap_or_else(|d| panic!("{body}: {d:?}"));
    assert!(reading.bounds.is_empty(), "{body}");
    fails(&reading)
}

/// C's usual arithmetic conversions: `u` is 4294967295 after the thread; `-1` compared with it
/// is converted to `unsigned` first, and `unsigned` arithmetic wraps modulo 2^32 inside an
/// expression, not only when stored.
#[test]
fn unsigned_comparisons_and_arithmetic_follow_c() {
    let cases = [
        ("if (neg < u) reach_error();", false),
        ("if (neg == u) reach_error();", true),
        ("if (u > -1) reach_error();", false),
        ("if (u + 1 != 0) reach_error();", false),
        ("if ((u + 1) / 2 != 0) reach_error();", false),
        ("if (u / 2 != 2147483647) reach_error();", false),
        ("if (0u - 1 == u) reach_error();", true),
        ("if (-u != 1) reach_error();", false),
        ("if (~u != 0) reach_error();", false),
        ("if (neg < 0) reach_error();", true),
        ("if ((int)u != -1) reach_error();", false),
        ("int x = u; if (x != -1) reach_error();", false),
        ("int x = 0; x = u; if (x < 0) reach_error();", true),
    ];
    for (body, reaches) in cases {
        assert_eq!(verdict_of(body), reaches, "{body}");
    }
}

/// A function's value has its return type: `return -1;` in an `unsigned` function returns
/// 4294967295, in an `unsigned char` one 255, and `return 200;` in a `char` one -56; a caller
/// that stores the value converts it to the target's type.
#[test]
fn returned_values_take_the_function_s_type() {
    let cases = [
        ("if (big() > 5) reach_error();", true),
        ("if (big() / 2 == 2147483647) reach_error();", true),
        ("unsigned r = 0; r = big(); if (r == 4294967295u) reach_error();", true),
        ("int r = 0; r = big(); if (r == -1) reach_error();", true),
        ("if (byte() == 255) reach_error();", true),
        ("if (small() == -56) reach_error();", true),
        ("if (big() < 0) reach_error();", false),
        ("if (byte() + small() != 199) reach_error();", false),
    ];
    for (body, reaches) in cases {
        let source = format!(
            "#include <pthread.h>
void reach_error() {{}}
unsigned big() {{ return -1; }}
             unsigned char byte() {{ return -1; }}
char small() {{ return 200; }}
             int main() {{
  {body}
  return 0;
}}
"
        );
        let reading = parse(&source, &Options::default()).unwrap_or_else(|d| panic!("{body}: {d:?}"));
        assert_eq!(fails(&reading), reaches, "{body}");
    }
}

/// What the model cannot say of unsigned values is refused by name, never read wrong.
#[test]
fn unsigned_64_bit_arithmetic_is_refused() {
    let source = "#include <pthread.h>\nunsigned long long w;\nint main() {\n  if (w + 1 > 0) w = 0;\n  return 0;\n}\n";
    let (code, line, col, message) = error_of(source);
    assert_eq!((code.as_str(), line, col), ("C0410", 4, 7), "{message}");
    assert!(message.contains("64-bit `unsigned`"), "{message}");
}

#[test]
fn a_void_pointer_parameter_of_any_function_is_read_as_a_value() {
    // `critical` runs as a thread and is called by `main` too, with `0` and `NULL`.
    let source = "#include <pthread.h>\nint inside = 0, turn = 0;\n\
        void *critical(void *who) {\n  inside = inside + 1;\n  __VERIFIER_assert(inside == 1);\n  inside = inside - 1;\n  return 0;\n}\n\
        int main() {\n  pthread_t t;\n  pthread_create(&t, 0, critical, 0);\n  critical(0);\n  critical(NULL);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert!(fails(&r), "two runs of `critical` overlap");
    // A dereference of the parameter, or an address passed to it, is still refused.
    let deref = source.replace("inside = inside + 1;", "inside = *(int *)who;");
    let (code, line, _, message) = error_of(&deref);
    assert_eq!((code.as_str(), line), ("C0410", 4), "{message}");
    let address = source.replace("critical(NULL);", "critical(&turn);");
    let (code, line, _, message) = error_of(&address);
    assert_eq!((code.as_str(), line), ("C0410", 13), "{message}");
}

#[test]
fn a_loop_that_creates_threads_without_bound_runs_its_rounds() {
    // One client alone never loses an update; the second one can.
    let rounds = |k: usize| read("spawner.c", &Options { thread_rounds: k, ..Options::default() });
    let one = rounds(1);
    assert_eq!(one.program.threads.len(), 2, "main and one client");
    assert_eq!(one.bounds, vec!["loops that create threads cut after 1 round(s)".to_owned()]);
    assert!(!fails(&one));
    for k in [2, 3] {
        let r = rounds(k);
        assert_eq!(r.program.threads.len(), k + 1);
        assert!(fails(&r), "{k} rounds");
    }
    assert_eq!(Options::default().thread_rounds, 2);
    // A loop with a condition stops by it before the bound: `for (i = 0; i < n; i++)` with
    // `n` a nondet value in 0..1 creates at most one thread, and its rounds are still a bound.
    let source = "#include <pthread.h>\nint x;\nvoid *t(void *a) { x = x + 1; return 0; }\n\
        int main() {\n  pthread_t h;\n  int n = __VERIFIER_nondet_int();\n  for (int i = 0; i < n; i++) { pthread_create(&h, 0, t, 0); }\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert_eq!(r.program.threads.len(), 3, "main and a thread per round");
    assert!(r.bounds.iter().any(|b| b.contains("cut after 2 round(s)")), "{:?}", r.bounds);
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert_eq!(text.matches("assume(0)").count(), 1, "{text}");
}

#[test]
fn a_global_s_address_passed_to_an_atomic_function_is_copied_inside_its_step() {
    let source = "#include <pthread.h>\nint m = 0, count = 0;\n\
        void __VERIFIER_atomic_acquire(int *l) { __VERIFIER_assume(*l == 0); *l = 1; }\n\
        void __VERIFIER_atomic_release(int *l) { *l = 0; }\n\
        void *worker(void *arg) {\n  __VERIFIER_atomic_acquire(&m);\n  int c = count;\n  count = c + 1;\n  __VERIFIER_atomic_release(&m);\n  return 0;\n}\n\
        int main() {\n  pthread_t a, b;\n  pthread_create(&a, 0, worker, 0);\n  pthread_create(&b, 0, worker, 0);\n  \
        pthread_join(a, 0);\n  pthread_join(b, 0);\n  __VERIFIER_assert(count == 2);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert!(!fails(&r), "the lock held by `m` keeps the update whole");
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert!(text.contains("__VERIFIER_atomic_acquire.l := m;"), "{text}");
    // Released before the update: the lost update is found.
    let early = source.replace(
        "  int c = count;\n  count = c + 1;\n  __VERIFIER_atomic_release(&m);\n",
        "  __VERIFIER_atomic_release(&m);\n  int c = count;\n  count = c + 1;\n",
    );
    assert!(fails(&parse(&early, &Options::default()).expect("read")));
    // A function that names the global too is refused at the argument.
    let named = source.replace("*l = 0; }", "*l = m - 1; }");
    let (code, line, _, message) = error_of(&named);
    assert_eq!((code.as_str(), line), ("C0410", 9), "{message}");
    assert!(message.contains("also names that global"), "{message}");
    // A parameter named as the global shadows it: the function names its parameter only.
    let shadow = source.replace(
        "acquire(int *l) { __VERIFIER_assume(*l == 0); *l = 1; }",
        "acquire(int *m) { __VERIFIER_assume(*m == 0); *m = 1; }",
    );
    assert_ne!(shadow, source);
    assert!(!fails(&parse(&shadow, &Options::default()).expect("read")));
    // One that is not atomic gets a copy in which `l` is `m` (`pointers.rs`): the release is
    // the write of `m` itself.
    let plain = source.replace("__VERIFIER_atomic_release", "release");
    let r = parse(&plain, &Options::default()).expect("read");
    assert!(paces_cwhile::Printer::new(&r.program).print().contains("proc release_m"));
    assert!(!fails(&r));
}

#[test]
fn a_quoted_include_reads_the_file_next_to_the_program() {
    let dir = std::path::PathBuf::from(format!("{}/tests/pthread", env!("CARGO_MANIFEST_DIR")));
    let source = std::fs::read_to_string(dir.join("included.c")).expect("test program");
    for which in [Preprocessor::Own, Preprocessor::Auto] {
        let options = Options { include_dir: Some(dir.clone()), preprocessor: which, ..Options::default() };
        let r = parse(&source, &options).expect("read");
        assert!(fails(&r), "a lost update ({which:?})");
        // The lines after the included text keep their own numbers: the failing check is
        // the one on line 20.
        let config = Config::new().find(FailureKinds::BAD);
        let Verdict::Bad(cex) = check(&r.program, &config).expect("check").verdict else { panic!("bad") };
        let step = &cex.schedule.steps[cex.failing_step.expect("a failing step")];
        let stmt = r.program.stmts.iter().find(|s| s.label == step.label).expect("the failing statement");
        let line = source[..stmt.span.start as usize].matches('\n').count() + 1;
        assert_eq!(line, 20, "{which:?}");
    }
    // Without the directory, or with a file that is not there: an error at the `#include`.
    let (code, line, col, message) = error_of(&source);
    assert_eq!((code.as_str(), line, col), ("C0402", 3, 1), "{message}");
    let missing = source.replace("\"checks.h\"", "\"absent.h\"");
    let options = Options { include_dir: Some(dir), ..Options::default() };
    let d = parse(&missing, &options).expect_err("no such file");
    let d = d.iter().next().expect("one");
    assert_eq!((d.code, d.line_col(&missing).0), ("C0402", 3));
    assert!(d.message.contains("`absent.h`, which cannot be read"), "{}", d.message);
}

#[test]
fn switch_do_while_and_comma_statements_are_read() {
    let options = Options { thread_rounds: 3, ..Options::default() };
    let r = read("setup_once.c", &options);
    assert!(!fails(&r), "one setup, under the lock, whatever the order");
    // Taking the lock after reading the state lets two clients set up.
    let path = format!("{}/tests/pthread/setup_once.c", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(path).expect("test program");
    let racy = source.replace("  __VERIFIER_atomic_take(&guard);\n  switch (state) {", "  switch (state) {");
    let racy = racy.replace("    __VERIFIER_atomic_give(&guard);\n", "");
    assert_ne!(racy, source);
    assert!(fails(&parse(&racy, &options).expect("read")));
    // A case value no state takes reaches `default`: with `state = 2` the second client fails.
    let two = source.replace("    state = 1;", "    state = 2;");
    assert!(fails(&parse(&two, &options).expect("read")));
    // What a switch or a `do` cannot take is an error at its place.
    let cases: &[(String, usize, &str)] = &[
        (source.replace("    setups = setups + 1;", "    if (setups) break;"), 22, "inside a case"),
        (source.replace("    ready = state;", "    ready = state;\n    if (ready) break;"), 33, "`do ... while`"),
        (source.replace("  case 1:", "  case users:"), 24, "not a constant"),
    ];
    for (text, line, what) in cases {
        let (code, l, _, message) = error_of(text);
        assert_eq!((code.as_str(), l), ("C0410", *line), "{message}");
        assert!(message.contains(what), "{message}");
    }
}

#[test]
fn a_dollar_in_an_identifier_reads_as_an_underscore_unless_that_name_is_taken() {
    let source = "#include <pthread.h>\nint x = 0;\n_Bool main$guard;\n\
        void *w(void *a) { x = 1; return 0; }\n\
        int main() {\n  pthread_t t;\n  pthread_create(&t, 0, w, 0);\n  main$guard = x == 0;\n  __VERIFIER_assert(main$guard);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert!(fails(&r), "w may run before the guard is set");
    let taken = source.replace("int x = 0;", "int x = 0, main_guard = 0;");
    let (code, line, col, message) = error_of(&taken);
    assert_eq!((code.as_str(), line, col), ("C0410", 3, 7), "{message}");
    assert!(message.contains("`main$guard`"), "{message}");
}

#[test]
fn a_goto_to_the_error_or_back_to_its_block_s_start_is_read() {
    // As SV-COMP's tasks write a check that does not stop the thread (`goto ERROR`), and a
    // thread that counts for ever (`L: ...; goto L;`).
    let source = "#include <pthread.h>\nextern void abort(void);\nvoid reach_error() {}\nint s = 0, r = 0;\n\
        void *counter(void *arg) {\n  int mine = 0;\n  r = r + 1;\n  if (r == 1) {\n  AGAIN:\n    s = s + 1;\n    mine = mine + 1;\n    \
        if (!(s == mine)) { goto ERROR; }\n    goto AGAIN;\n  }\n  return 0;\n  \
        ERROR: { reach_error(); abort(); }\n}\n\
        int main() {\n  pthread_t a, b;\n  pthread_create(&a, 0, counter, 0);\n  pthread_create(&b, 0, counter, 0);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    let text = paces_cwhile::Printer::new(&r.program).print();
    assert!(text.contains("while (1)"), "{text}");
    // Both threads may pass `r == 1` (a lost update of `r`) and count `s` together.
    let config = Config::new().find(FailureKinds::BAD).max_states(200_000);
    assert!(matches!(check(&r.program, &config).expect("check").verdict, Verdict::Bad(_)));
    // Once `r` is taken atomically only one thread counts: no error within the bound.
    let atomic = source.replace("  r = r + 1;\n  if (r == 1) {", "  int mine_r;\n  __VERIFIER_atomic_begin();\n  r = r + 1;\n  mine_r = r;\n  __VERIFIER_atomic_end();\n  if (mine_r == 1) {");
    let r = parse(&atomic, &Options::default()).expect("read");
    let result = check(&r.program, &config.clone().max_states(5_000)).expect("check");
    assert!(!matches!(result.verdict, Verdict::Bad(_)), "{}", result.verdict.name());
    // A jump elsewhere is refused where it stands.
    let elsewhere = source.replace("goto ERROR;", "goto AGAIN;");
    let (code, line, _, message) = error_of(&elsewhere);
    assert_eq!((code.as_str(), line), ("C0410", 12), "{message}");
    assert!(message.contains("`goto`"), "{message}");
}

#[test]
fn a_return_inside_a_loop_ends_every_loop_around_it() {
    // A compare-and-swap retry loop as lock-free code writes it: `return` once the swap took.
    let source = "#include <pthread.h>\nint value = 0;\n\
        void __VERIFIER_atomic_cas(int *v, int e, int u, int *r) {\n  if (*v == e) { *v = u; *r = 1; } else { *r = 0; }\n}\n\
        int bump() {\n  int seen, ok;\n  for (int tries = 0; tries < 5; tries++) {\n    while (1) {\n      seen = value;\n      \
        if (seen >= 3) { return -1; }\n      __VERIFIER_atomic_cas(&value, seen, seen + 1, &ok);\n      if (ok) { return seen + 1; }\n    }\n  }\n  \
        return -2;\n}\n\
        void *worker(void *arg) {\n  int got = bump();\n  __VERIFIER_assert(got == 1 || got == 2);\n  return 0;\n}\n\
        int main() {\n  pthread_t a, b;\n  pthread_create(&a, 0, worker, 0);\n  pthread_create(&b, 0, worker, 0);\n  \
        pthread_join(a, 0);\n  pthread_join(b, 0);\n  __VERIFIER_assert(value == 2);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert!(!fails(&r), "each worker bumps once, to 1 or 2");
    // Without the `return` of a taken swap the loop goes on bumping: `value` passes 2.
    let on = source.replace("if (ok) { return seen + 1; }", "if (ok) { ok = 0; }");
    assert!(fails(&parse(&on, &Options::default()).expect("read")));
    // In a loop on a nondet value the flag cannot join the condition: refused there.
    let nondet = source.replace("while (1) {", "while (__VERIFIER_nondet_int()) {");
    let (code, line, _, message) = error_of(&nondet);
    assert_eq!((code.as_str(), line), ("C0410", 9), "{message}");
}

#[test]
fn a_conditional_expression_is_chosen_before_its_statement() {
    let source = "#include <pthread.h>\n#define least(a, b) ((a) < (b) ? (a) : (b))\nint x = 5, y = 3, z = 0;\n\
        int main() {\n  int m = least(x, y);\n  int k = z ? 10 : 20;\n  int n = (x > 4 ? y : x) + (z ? 1 : 2);\n  \
        __VERIFIER_assert(m == 3 && k == 20 && n == 5);\n  return 0;\n}\n";
    assert!(!fails(&parse(source, &Options::default()).expect("read")));
    assert!(fails(&parse(&source.replace("n == 5", "n == 6"), &Options::default()).expect("read")));
    // A branch not taken is not evaluated: no division by zero.
    let guarded = source.replace("int k = z ? 10 : 20;", "int k = z ? 10 / z : 20;");
    assert!(!fails(&parse(&guarded, &Options::default()).expect("read")));
    // Under `&&` or `||` it is chosen only when the left side leaves the answer open.
    let logic = source.replace("int k = z ? 10 : 20;", "int k = z && (10 / z ? 1 : 0) ? 10 : 20;");
    assert!(!fails(&parse(&logic, &Options::default()).expect("read")), "`10 / z` with `z == 0` never runs");
}

#[test]
fn a_call_under_and_or_or_runs_only_when_the_left_side_leaves_the_answer_open() {
    let source = "#include <pthread.h>
int top = 0, calls = 0;
        int empty() {
  calls = calls + 1;
  if (top == 0) return 1;
  return 0;
}
        int main() {
  int r = 0;
  __VERIFIER_assert(!r || !empty());
  __VERIFIER_assert(calls == 0);
          r = 1;
  top = 1;
  __VERIFIER_assert(!r || !empty());
  __VERIFIER_assert(r && empty() == 0 && calls == 2);
  return 0;
}
";
    let r = parse(source, &Options::default()).expect("read");
    assert!(!fails(&r));
    assert!(fails(&parse(&source.replace("calls == 0", "calls == 1"), &Options::default()).expect("read")));
}

#[test]
fn a_global_pointer_no_function_names_is_dropped() {
    // Generated tasks declare helper pointers they never use.
    let source = "#include <pthread.h>\nint x = 0;\nint *x$delayed_var;\nint main() {\n  x = 1;\n  __VERIFIER_assert(x == 1);\n  return 0;\n}\n";
    let r = parse(source, &Options::default()).expect("read");
    assert!(!fails(&r));
    assert!(!paces_cwhile::Printer::new(&r.program).print().contains("delayed"));
    // Used, it is a pointer (`pointsto.rs`): NULL here, a value no error depends on.
    let used = source.replace("  x = 1;", "  x = 1;\n  x$delayed_var = 0;");
    let r = parse(&used, &Options::default()).expect("read");
    assert!(!fails(&r));
    assert!(paces_cwhile::Printer::new(&r.program).print().contains("x_delayed_var"));
    let used = source.replace("  x = 1;", "  x = 1;\n  x$delayed_var = (int *)x;");
    let (code, line, col, message) = error_of(&used);
    assert_eq!((code.as_str(), line, col), ("C0410", 6, 19), "{message}");
}
