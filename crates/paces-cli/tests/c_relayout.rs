//! A C file's repair written as C where the source's layout needs changing first: two
//! statements of a changed line split onto lines of their own, a `for` loop the reader unrolled
//! written unrolled where the repair parts its copies, a bare block around a section (the paper's
//! models' `{ atomicBegin(); ... atomicEnd(); };`) moved with its braces. Each written file is C,
//! reads back as a correct program, and differs from the input only inside the changed block.

use std::process::Command;

fn paces(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_paces")).args(args).env("NO_COLOR", "1").output().expect("runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("paces-c-relayout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// The lines where two texts differ: each without the lines both begin and end with, and the
/// 1-based number of the first line of `a` that differs.
fn differing<'t>(a: &'t str, b: &'t str) -> (Vec<&'t str>, Vec<&'t str>, usize) {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..].iter().rev().zip(b[head..].iter().rev()).take_while(|(x, y)| x == y).count();
    (a[head..a.len() - tail].to_vec(), b[head..b.len() - tail].to_vec(), head + 1)
}

/// Repairs `source` (written as `name`) with `flags`, expecting exit 0 and the change `change`
/// in the summary; checks that the written file is C that reads back as a correct program and
/// returns it.
fn repaired(name: &str, source: &str, flags: &[&str], change: &str) -> String {
    let input = temp(name);
    std::fs::write(&input, source).expect("write");
    let out = temp(&name.replace(".c", "_repaired.c"));
    let (input, out_s) = (input.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    let (code, _, summary) = paces(&[&["repair", input, "-o", out_s], flags].concat());
    assert_eq!(code, 0, "{summary}");
    assert!(summary.contains(change), "{summary}");
    let fixed = std::fs::read_to_string(&out).expect("written");
    assert!(!fixed.contains(":=") && !fixed.contains("var "), "Cwhile in a C file:\n{fixed}");
    let (code, stdout, stderr) = paces(&["check", out_s]);
    assert_eq!(code, 0, "{stdout}{stderr}\n{fixed}");
    assert!(stdout.contains("correct"), "{stdout}");
    fixed
}

const INLINE: &str = "#include <pthread.h>\n#include <assert.h>\nint x = 0, y = 0;\n\
    void *w1(void *arg) { y = 1; x = 1; return 0; }\n\
    void *w2(void *arg) {\n  if (y == 1) assert(x == 1);\n  return 0;\n}\n\
    int main(void) {\n  pthread_t t[2];\n  int i;\n  pthread_create(&t[0], 0, w1, 0);\n\
    \x20 pthread_create(&t[1], 0, w2, 0);\n  for (i = 0; i < 2; i++) pthread_join(t[i], 0);\n  return 0;\n}\n";

/// An inline function body whose two statements swap becomes a multi-line body, indented as
/// the file indents.
#[test]
fn an_inline_body_is_split_into_lines() {
    let fixed = repaired("inline.c", INLINE, &[], "move line 4 `y = 1` below line 4 `x = 1`");
    let (before, after, at) = differing(INLINE, &fixed);
    assert_eq!(at, 4, "{fixed}");
    assert_eq!(before, ["void *w1(void *arg) { y = 1; x = 1; return 0; }"], "{fixed}");
    assert_eq!(after, ["void *w1(void *arg) {", "  x = 1;", "  y = 1;", "  return 0;", "}"], "{fixed}");
}

/// Two statements on one line of a multi-line block: the line is split, its comment stays at
/// its end, the other lines of the block stay as they are.
#[test]
fn a_line_of_two_statements_is_split_in_a_block() {
    let source = INLINE.replace(
        "void *w1(void *arg) { y = 1; x = 1; return 0; }",
        "void *w1(void *arg) {\n  int k = 0; /* first */\n  y = 1; x = 1; // the pair\n  return k;\n}",
    );
    let fixed = repaired("block.c", &source, &[], "move line 6 `y = 1` below line 6 `x = 1`");
    let (before, after, at) = differing(&source, &fixed);
    assert_eq!(at, 6, "{fixed}");
    assert_eq!(before, ["  y = 1; x = 1; // the pair"], "{fixed}");
    assert_eq!(after, ["  x = 1; // the pair", "  y = 1;"], "{fixed}");
}

/// Thread 1 expects `d` set, thread 0 does not look: the cheapest repair sets it between the
/// two creations, which parts the unrolled loop of creates; it is written unrolled, and `i`,
/// which nothing reads, gets no assignment (nor a declaration, when the loop declared it).
#[test]
fn a_loop_of_creates_that_the_repair_parts_is_written_unrolled() {
    let source = "#include <pthread.h>\n#include <assert.h>\nint d = 0;\n\
        void *w(void *arg) {\n  if ((long)arg == 1) assert(d == 1);\n  return 0;\n}\n\
        int main(void) {\n  pthread_t t[2];\n  int i;\n\
        \x20 for (i = 0; i < 2; i++) pthread_create(&t[i], 0, w, (void *)(long)i);\n  d = 1;\n\
        \x20 for (i = 0; i < 2; i++) pthread_join(t[i], 0);\n  return 0;\n}\n";
    let fixed = repaired(
        "creates.c",
        source,
        &[],
        "move line 11 `pthread_create(&t[i], 0, w, (void *)(long)i)` [i = 1] below line 12 `d = 1`",
    );
    let (before, after, at) = differing(source, &fixed);
    assert_eq!(at, 11, "{fixed}");
    assert_eq!(
        before,
        ["  for (i = 0; i < 2; i++) pthread_create(&t[i], 0, w, (void *)(long)i);", "  d = 1;"],
        "{fixed}"
    );
    let unrolled = [
        "  pthread_create(&t[0], 0, w, (void *)(long)0);",
        "  d = 1;",
        "  pthread_create(&t[1], 0, w, (void *)(long)1);",
    ];
    assert_eq!(after, unrolled, "{fixed}");
    let declared = source.replace(
        "for (i = 0; i < 2; i++) pthread_create(&t[i], 0, w, (void *)(long)i);",
        "for (int k = 0; k < 2; k++) pthread_create(&t[k], 0, w, (void *)(long)k);",
    );
    let change = "move line 11 `pthread_create(&t[k], 0, w, (void *)(long)k)` [k = 1] below line 12 `d = 1`";
    let fixed = repaired("declared.c", &declared, &[], change);
    let (_, after, at) = differing(&declared, &fixed);
    assert_eq!((at, after), (11, unrolled.to_vec()), "{fixed}");
}

/// `flag` must not be set before thread 0 is done, and thread 1 must see it: the cheapest
/// repair (found by the exhaustive search) sets it between the two joins. The loop of joins,
/// whose braces and comment go, is written unrolled; `i` is read after it, so its final value
/// is set.
#[test]
fn a_loop_of_joins_that_the_repair_parts_is_written_unrolled() {
    let source = "#include <pthread.h>\n#include <assert.h>\nint flag = 0, done0 = 0, d = 0;\n\
        void *w(void *arg) {\n  if ((long)arg == 0) done0 = 1;\n  else if (flag == 1) assert(done0 == 1);\n  return 0;\n}\n\
        int main(void) {\n  pthread_t t[2];\n  int i;\n\
        \x20 for (i = 0; i < 2; i++) pthread_create(&t[i], 0, w, (void *)(long)i);\n  flag = 1;\n\
        \x20 for (i = 0; i < 2; i++) {\n    /* wait */\n    pthread_join(t[i], 0);\n  }\n  d = i;\n  return 0;\n}\n";
    let flags = ["--exhaustive", "--exhaustive-limit", "200000"];
    let fixed =
        repaired("joins.c", source, &flags, "move line 13 `flag = 1` below line 16 `pthread_join(t[i], 0)` [i = 0]");
    let (before, after, at) = differing(source, &fixed);
    assert_eq!(at, 13, "{fixed}");
    assert_eq!(
        before,
        ["  flag = 1;", "  for (i = 0; i < 2; i++) {", "    /* wait */", "    pthread_join(t[i], 0);", "  }"],
        "{fixed}"
    );
    assert_eq!(after, ["  pthread_join(t[0], 0);", "  flag = 1;", "  pthread_join(t[1], 0);", "  i = 2;"], "{fixed}");
}

/// iwl3945's shape in the paper's C dialect, its sections written as the paper's models write
/// them (`{ atomicBegin(); ... atomicEnd(); };`): the repair moves `H` above the noReorder
/// region, and the file is the source with those lines moved, all inside the changed function.
#[test]
fn a_moved_noreorder_region_of_the_paper_s_dialect_is_written_in_c() {
    let source = include_str!("../../paces-c/tests/models/iwl_region.c");
    let fixed = repaired("iwl_region.c", source, &[], "move");
    let (before, after, at) = differing(source, &fixed);
    // The 1-based lines of the function's head and of its closing brace.
    let start = source.lines().position(|l| l.starts_with("alive_start")).expect("the function") + 1;
    let close = start + 1 + source.lines().skip(start).position(|l| l == "}").expect("its end");
    assert!(at > start && at + before.len() <= close, "lines from {at} changed outside {start}..{close}:\n{fixed}");
    let (mut a, mut b) = (before.clone(), after.clone());
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "only moved lines:\n{fixed}");
    let (h, region) = (fixed.find("lock1 = 0;\n\n    noReorderBegin();"), fixed.find("restarted = 1;"));
    assert!(h.zip(region).is_some_and(|(h, r)| h > r), "H moved above the region:\n{fixed}");
}

/// What C cannot say still writes nothing: the two statements one macro expands to are one
/// unit, which a swap would part.
#[test]
fn statements_of_one_macro_are_not_parted() {
    let source = INLINE.replace("int x = 0, y = 0;", "#define PUBLISH y = 1; x = 1\nint x = 0, y = 0;").replace(
        "void *w1(void *arg) { y = 1; x = 1; return 0; }",
        "void *w1(void *arg) {\n  PUBLISH;\n  return 0;\n}",
    );
    let input = temp("macro.c");
    std::fs::write(&input, &source).expect("write");
    let out = temp("macro_repaired.c");
    let (code, stdout, stderr) = paces(&["repair", input.to_str().expect("utf-8"), "-o", out.to_str().expect("utf-8")]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty() && !out.exists(), "{stdout}");
    assert!(stderr.contains("cannot be written into this C source"), "{stderr}");
}
