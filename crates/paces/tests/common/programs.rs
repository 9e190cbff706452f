//! Random small Cwhile programs for property tests: free-form ones with assignments,
//! assertions, waits, locks, `if` and `while` one level deep, and two driver-like families
//! (a flag published among the writes it guards, a split read-modify-write of a counter).

use proptest::prelude::*;

const VARS: [&str; 3] = ["x", "y", "z"];

fn var() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&VARS[..])
}

fn cond() -> impl Strategy<Value = String> {
    (var(), prop::sample::select(&["==", "!=", "<", ">"][..]), 0..3i64).prop_map(|(v, op, k)| format!("{v} {op} {k}"))
}

fn simple() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (var(), var(), 0..3i64).prop_map(|(v, w, k)| format!("{v} := {w} + {k};")),
        2 => cond().prop_map(|c| format!("assert({c});")),
        1 => cond().prop_map(|c| format!("await({c});")),
        1 => (var(), 0..3i64).prop_map(|(v, k)| format!("lock(m); {v} := {k}; unlock(m);")),
    ]
}

fn stmt() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => simple(),
        1 => (cond(), prop::collection::vec(simple(), 1..3)).prop_map(|(c, b)| format!("if ({c}) {{ {} }}", b.join(" "))),
        1 => prop::collection::vec(simple(), 1..3).prop_map(|b| format!("while (*) {{ {} }}", b.join(" "))),
    ]
}

/// Free-form programs, and two driver-like families whose bug only some schedules show:
/// publishing a flag among the writes it guards (in a random order), and a split
/// read-modify-write of a counter, each with a random extra thread.
pub fn program() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => free_form(),
        1 => (Just(vec![0usize, 1, 2]).prop_shuffle(), stmt()).prop_map(|(order, extra)| publish(&order, &extra)),
        1 => stmt().prop_map(|extra| format!(
            "var x = 0, y = 0, z = 0, m = 0, c = 0, d1 = 0, d2 = 0;
             thread a {{ local t; A1: t := c; A2: c := t + 1; A3: d1 := 1; }}
             thread b {{ local t; B1: t := c; B2: c := t + 1; B3: d2 := 1; }}
             thread w {{ W1: await(d1 == 1 && d2 == 1); W2: assert(c == 2); }}
             thread n {{ {extra} }}\n"
        )),
    ]
}

/// A writer sets `x`, `y` and the flag `f` in the given order; a reader waits for the flag
/// and checks both.
fn publish(order: &[usize], extra: &str) -> String {
    let writes = ["P1: x := 1;", "P2: y := 2;", "P3: f := 1;"];
    let body: Vec<&str> = order.iter().map(|&i| writes[i]).collect();
    format!(
        "var x = 0, y = 0, z = 0, m = 0, f = 0;
         thread p {{ {} }}
         thread r {{ R1: await(f == 1); R2: assert(x == 1); R3: assert(y == 2); }}
         thread n {{ {extra} }}\n",
        body.join(" ")
    )
}

fn free_form() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::collection::vec(stmt(), 1..4), 2..4).prop_map(|threads| {
        let mut src = String::from("var x = 0, y = 0, z = 0, m = 0;\n");
        for (i, body) in threads.iter().enumerate() {
            src.push_str(&format!("thread t{i} {{ {} }}\n", body.join(" ")));
        }
        src
    })
}
