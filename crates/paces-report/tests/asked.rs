//! Every change of a repair's page says why it is there: the iterations whose lessons ask for
//! it (linked to them), or the step of the run that kept it.

use paces::{Mode, Repair};
use paces_report::{repair_page, Source};

/// The page of the mixed-mode repair of `text` and the report it draws.
fn page(name: &str, text: &str) -> (String, paces::Report) {
    let program = paces::cwhile::parse(text).expect("the program parses");
    let report = Repair::new().mode(Mode::Mixed).record_traces(true).keep_deadlocks(true).run(&program).unwrap();
    let source = Source { name, language: "Cwhile", text };
    (repair_page(&source, report.repaired_text().as_deref(), &report), report)
}

/// Each change of the page's list with its reasons (the inner list's items, tags left out).
fn reasons(page: &str) -> Vec<(String, Vec<String>)> {
    let list = page.split("<ol class=\"changes\">").nth(1).and_then(|s| s.split("</ol>").next()).unwrap_or_default();
    list.split("<li><code>")
        .skip(1)
        .map(|item| {
            let change = item.split("</code>").next().unwrap().to_owned();
            let why = item.split("<ul class=\"why\">").nth(1).and_then(|s| s.split("</ul>").next()).unwrap_or_default();
            let why = why.split("<li>").skip(1).map(|r| strip_tags(r.trim_end_matches("</li>"))).collect();
            (change, why)
        })
        .collect()
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

/// Two twin threads each check-then-act: the check's first bad trace and its further one both
/// ask for a section around `j`; the section around `i` comes from making the twins alike.
#[test]
fn a_further_trace_and_the_twins_explain_both_sections() {
    let text = "var claimed = 0, owners = 0;\n\
        thread a { i: if (claimed == 0) { s: claimed := 1; o: owners := owners + 1; } x: assert(owners <= 1); }\n\
        thread b { j: if (claimed == 0) { t: claimed := 1; u: owners := owners + 1; } y: assert(owners <= 1); }\n";
    let (page, report) = page("cta.cw", text);
    let it = &report.history[0];
    assert_eq!(it.more.len(), 1, "the check finds a further failure");
    assert_eq!(it.more_learned.len(), 1, "its trace is kept");
    assert!(it.more_learned[0].is_some());
    let reasons = reasons(&page);
    assert_eq!(reasons.len(), 2, "{page}");
    for (change, why) in &reasons {
        assert!(!why.is_empty(), "{change} has no reason");
    }
    let j = reasons.iter().find(|(c, _)| c == "atomic [j; j]").expect("a section around j");
    assert_eq!(j.1, ["asked by iteration 1: `x` fails", "asked by iteration 1: `y` fails"]);
    let i = reasons.iter().find(|(c, _)| c == "atomic [i; i]").expect("a section around i");
    assert!(i.1[0].starts_with("kept from the cheapest candidate") && i.1[0].contains("twin threads alike"), "{i:?}");
    // The further trace is drawn in its iteration, which the reason links to.
    assert!(page.contains("id=\"iteration-1\"") && page.contains("href=\"#iteration-1\""));
    assert!(page.contains("Further counterexample of the same check: `y` fails"), "{page}");
    assert!(page.contains("id=\"bad-1-more-1\""));
    assert!(matches!(report.origin, Some(paces::Origin::Loop { iteration: 1, twins: true })), "{:?}", report.origin);
}

/// ex1's one move is asked for by its one iteration.
#[test]
fn ex1_s_move_is_asked_for_by_its_iteration() {
    let (page, _) = page("ex1.cw", paces_heldin::source("ex1"));
    assert_eq!(reasons(&page), [("move 1 below 2".to_owned(), vec!["asked by iteration 1: `85` fails".to_owned()])]);
}
