//! The pages of held-in repairs and checks: what they show, one column per thread in every
//! chart, HTML escaping, and the same page on every run.

use paces::Repair;
use paces_report::{check_page, repair_page, Counterexample, Source, TraceChart};

/// The page of the repair of the held-in program `name`, with the report it draws.
fn repair(name: &str) -> (String, paces::Report) {
    let text = paces_heldin::source(name);
    let program = paces::cwhile::parse(text).expect("the held-in program parses");
    // The held-in models deadlock on purpose: keep their deadlocks, as Table 1 does.
    let report = Repair::new().record_traces(true).keep_deadlocks(true).run(&program).expect("the repair runs");
    let source = Source { name, language: "Cwhile", text: &report.original_text() };
    (repair_page(&source, report.repaired_text().as_deref(), &report), report)
}

/// For every chart of `page` (in order): the threads its `data-threads` says and the thread
/// columns it holds.
fn columns(page: &str) -> Vec<(usize, usize)> {
    page.split("<svg class=\"chart\"")
        .skip(1)
        .map(|chart| {
            let chart = &chart[..chart.find("</svg>").expect("the chart ends")];
            let declared = chart.split("data-threads=\"").nth(1).and_then(|s| s.split('"').next());
            let declared: usize = declared.and_then(|d| d.parse().ok()).expect("data-threads is a number");
            (declared, chart.matches("<g class=\"thread\"").count())
        })
        .collect()
}

#[test]
fn ex1_shows_the_change_the_iteration_and_the_acceptance() {
    let (page, report) = repair("ex1");
    assert_eq!(report.history.len(), 1);
    let learned = report.history[0].learned.as_ref().expect("the iteration keeps its trace");
    let chart = TraceChart::of_elimination(&report.original, &learned.trace, &learned.elimination, &report.space);
    assert_eq!(chart.threads, ["thread1", "thread2", "thread3"]);
    assert!(!chart.failing.is_empty() && !chart.orderings.is_empty() && chart.fixes.len() == 2, "{chart:?}");
    // The diff names its change on both changed lines.
    assert_eq!(page.matches("<span class=\"tag\">move 1 below 2</span>").count(), 2, "{page}");
    assert!(page.contains("<div class=\"del\">-  1: stuff1();"), "{page}");
    assert!(page.contains("Accepted: it passed every check of the acceptance below."));
    assert!(page.contains("<h3>Partial order</h3><svg"));
    assert!(page.contains("<h3>Elimination graph, fix 2</h3><svg"));
    assert!(page.contains("<td>optimality</td><td>optimal in the space"));
    // The good traces, each drawn, each with the assertion it protects.
    assert_eq!(report.learned_good.len(), report.good_traces);
    let good_charts: Vec<TraceChart> =
        report.learned_good.iter().map(|t| TraceChart::of_good_trace(&report.original, t)).collect();
    // A good trace of ex1 that reaches `62` passes it because `20` (thread1) wrote `updated`
    // first: that data flow is drawn.
    let flows = |c: &TraceChart| {
        c.orderings.iter().map(|&(a, b)| (c.steps[a].label.clone(), c.steps[b].label.clone())).collect::<Vec<_>>()
    };
    let reaching_62: Vec<&TraceChart> =
        good_charts.iter().filter(|c| c.steps.iter().any(|s| s.label == "62")).collect();
    assert!(!reaching_62.is_empty());
    for c in reaching_62 {
        assert!(flows(c).contains(&("20".to_owned(), "62".to_owned())), "{:?}", flows(c));
    }
    assert_eq!(page.matches("<div class=\"good\">").count(), report.good_traces);
    assert!(page.contains("Protects <code>62  assert(updated == 1)</code>"), "{page}");
    // The iteration's chart, then one per good trace: one column per thread each.
    let columns = columns(&page);
    assert_eq!(columns.len(), 1 + report.good_traces);
    assert!(columns.iter().all(|&(declared, found)| declared == 3 && found == 3), "{columns:?}");
    // Self-contained: nothing is loaded from elsewhere.
    for link in ["src=", "@import", "url(http", "href=\"http"] {
        assert!(!page.contains(link), "the page loads something: {link}");
    }
    // Every reference inside the page names an element of the page, and ids are unique.
    let ids: Vec<&str> = page.split(" id=\"").skip(1).filter_map(|s| s.split('"').next()).collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "an id is used twice");
    for reference in page.split("href=\"#").skip(1).chain(page.split("url(#").skip(1)) {
        let target = reference.split(['"', ')']).next().unwrap_or_default();
        assert!(unique.binary_search(&target).is_ok(), "`{target}` names no element");
    }
}

#[test]
fn a_page_is_the_same_on_every_run() {
    for name in ["ex1", "ex5"] {
        let (first, _) = repair(name);
        let (second, _) = repair(name);
        assert!(first == second, "{name}: two runs give different pages");
    }
}

#[test]
fn text_from_the_input_is_escaped() {
    let chart = TraceChart::default();
    let source = Source { name: "<script>alert(1)</script>.cw", language: "Cwhile", text: "" };
    let cex = Counterexample { title: "a & b <\"c\">".to_owned(), chart };
    let page = check_page(&source, "bad: `x` < 1", &[("states".to_owned(), "3 states".to_owned())], &[cex]);
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;.cw"));
    assert!(page.contains("Counterexample 1: a &amp; b &lt;&quot;c&quot;&gt;"));
    assert!(page.contains("bad: `x` &lt; 1"));
    // An empty chart has no column and says so.
    assert_eq!(columns(&page), [(0, 0)]);
}

#[test]
fn a_check_draws_each_counterexample_with_its_partial_order() {
    let program = paces::cwhile::parse(paces_heldin::source("ex1")).unwrap();
    let result = paces::explore::check(&program, &paces::explore::Config::default()).unwrap();
    let cex = result.verdict.counterexample().expect("ex1 has a bad trace");
    let chart = TraceChart::of_bad_trace(&program, &cex.trace);
    assert_eq!(chart.steps.len(), cex.trace.len());
    assert_eq!(chart.failing.len(), 1);
    assert!(chart.steps[chart.failing[0]].text.starts_with("assert"), "{chart:?}");
    let source = Source { name: "ex1.cw", language: "Cwhile", text: paces_heldin::source("ex1") };
    let page = check_page(&source, &result.verdict_text(), &[], &[Counterexample { title: "bad".to_owned(), chart }]);
    assert_eq!(columns(&page), [(3, 3)]);
    assert_eq!(page.matches("class=\"step failing\"").count(), 1);
    assert!(page.contains("<h3>Partial order</h3><svg"));
}
