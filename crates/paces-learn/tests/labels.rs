//! The client's labels: a candidate read back as the client's own statements and threads.

use paces_learn::constraint::{Candidate, ItemInfo, SpaceBuilder};
use paces_learn::trace::ThreadId;
use paces_learn::Labels;

/// The client's statement type.
#[derive(Debug, PartialEq)]
struct Stmt(&'static str);

#[test]
fn a_candidate_reads_back_as_the_clients_statements() {
    let mut b = SpaceBuilder::new();
    let mut labels: Labels<Stmt, String> = Labels::new();
    let (t1, t2) = (b.block(false), b.block(false));
    for (block, names) in [(t1, ["a", "b", "c"]), (t2, ["d", "e", "f"])] {
        for name in names {
            let loc = b.loc(name).unwrap();
            b.item(block, loc, ItemInfo::SIMPLE).unwrap();
            // "f" stays without a label.
            if name != "f" {
                labels.set_loc(loc, Stmt(name));
            }
        }
    }
    labels.set_thread(ThreadId::from_u32(1), "second".to_owned());
    let space = b.build().unwrap();
    let at = |n: &str| space.loc(n).unwrap();
    let candidate = Candidate::new(
        &space,
        vec![vec![at("c"), at("a"), at("b")], vec![at("d"), at("e"), at("f")]],
        &[(at("a"), at("b")), (at("e"), at("f"))],
    )
    .unwrap();
    assert_eq!(labels.units(&candidate, t1), [vec![&Stmt("c")], vec![&Stmt("a"), &Stmt("b")]]);
    // The section [e; f] keeps its labelled item.
    assert_eq!(labels.units(&candidate, t2), [vec![&Stmt("d")], vec![&Stmt("e")]]);
    assert_eq!(labels.find_loc(&Stmt("e")), Some(at("e")));
    assert_eq!(labels.loc(at("f")), None);
    assert_eq!(labels.find_thread(&"second".to_owned()), Some(ThreadId::from_u32(1)));
    assert_eq!(labels.thread(ThreadId::from_u32(0)), None);
    // The original program: one unit per item.
    let original = Candidate::original(&space);
    assert_eq!(labels.units(&original, t1), [vec![&Stmt("a")], vec![&Stmt("b")], vec![&Stmt("c")]]);
}
