//! The text charts of traces: every step on its row with its statement, blocked steps last.

use paces::explore::{check, Config, Verdict};
use paces_report::text_chart;

#[test]
fn a_deadlock_shows_each_thread_blocked_at_its_wait() {
    let program = paces::cwhile::parse(
        "var m = 0, n = 0;
         thread a { A1: lock(m); A2: lock(n); A3: unlock(n); A4: unlock(m); }
         thread b { B1: lock(n); B2: lock(m); B3: unlock(m); B4: unlock(n); }",
    )
    .unwrap();
    let result = check(&program, &Config::new().stop_at_first_failure(false)).unwrap();
    let Verdict::Deadlock(_, c) = &result.verdict else { panic!("{result}") };
    let text = text_chart::columns(&program, (&c.trace).into(), None);
    let expected = "\
#  a                       b
0  A1.wait  await(m == 0)
1  A1.set   m := 1
2                          B1.wait  await(n == 0)
3                          B1.set   n := 1
-  A2.wait  await(n == 0)                          (blocked)
-                          B2.wait  await(m == 0)  (blocked)
";
    assert_eq!(text, expected);
}

#[test]
fn a_schedule_marks_its_failing_step() {
    let program = paces::cwhile::parse("var x = 0; thread a { A: x := 1; } thread b { B: assert(x == 0); }").unwrap();
    let result = check(&program, &Config::new()).unwrap();
    let cex = result.verdict.counterexample().unwrap();
    let text = text_chart::columns(&program, (&cex.schedule).into(), cex.failing_step);
    assert_eq!(text, "#  a          b\n0  A  x := 1\n1             B  assert(x == 0)  <- fails\n");
}
