//! The drawings of a page, read back from its SVG: each is sized to what it holds, no step's
//! text is cut, and no edge's label lies on a box or on another label. (The browser test of
//! `paces-cli` measures the same in Chromium, with the fonts as drawn.)

use paces::Repair;
use paces_report::{repair_page, Source};

fn page(name: &str) -> String {
    let text = paces_heldin::source(name);
    let program = paces::cwhile::parse(text).unwrap();
    let report = Repair::new().record_traces(true).keep_deadlocks(true).run(&program).unwrap();
    let source = Source { name, language: "Cwhile", text };
    repair_page(&source, report.repaired_text().as_deref(), &report)
}

/// Every `<svg class="...">` element of `page` of the class `class`.
fn svgs<'a>(page: &'a str, class: &str) -> Vec<&'a str> {
    page.split(&format!("<svg class=\"{class}\"")).skip(1).map(|s| &s[..s.find("</svg>").unwrap()]).collect()
}

fn attr(tag: &str, name: &str) -> Option<f64> {
    tag.split(&format!(" {name}=\"")).nth(1)?.split('"').next()?.parse().ok()
}

/// The box of the first `<rect` element at or after each place where `before` occurs in
/// `svg`.
fn rects(svg: &str, before: &str) -> Vec<(f64, f64, f64, f64)> {
    svg.match_indices(before)
        .filter_map(|(at, _)| {
            let s = &svg[at..];
            let tag = &s[s.find("<rect")?..];
            let tag = &tag[..tag.find('>')?];
            Some((attr(tag, "x")?, attr(tag, "y")?, attr(tag, "width")?, attr(tag, "height")?))
        })
        .collect()
}

fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

/// The lowest point of the boxes and paths of `svg`.
fn content_bottom(svg: &str) -> f64 {
    let mut bottom: f64 = 0.0;
    for r in rects(svg, "<rect").into_iter().chain(rects(svg, "<g class=\"edge-label\">")) {
        bottom = bottom.max(r.1 + r.3);
    }
    for d in svg.split(" d=\"").skip(1).filter_map(|s| s.split('"').next()) {
        let numbers: Vec<f64> =
            d.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).filter_map(|n| n.parse().ok()).collect();
        // Coordinates come in pairs: every second one is a y.
        for y in numbers.iter().skip(1).step_by(2) {
            bottom = bottom.max(*y);
        }
    }
    bottom
}

#[test]
fn every_drawing_is_sized_to_its_content() {
    for name in ["ex1", "lc-rc"] {
        let page = page(name);
        for class in ["chart", "graph"] {
            for svg in svgs(&page, class) {
                let head = &svg[..svg.find('>').unwrap()];
                let height = attr(head, "height").unwrap();
                let view: Vec<f64> = head
                    .split("viewBox=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .split(' ')
                    .map(|v| v.parse().unwrap())
                    .collect();
                assert_eq!(view[3].round(), height.round(), "{name}: {head}");
                // Nothing starts right of the drawing's edge (a thread's header included).
                let xs = svg.split(" x=\"").skip(1).filter_map(|s| s.split('"').next()?.parse::<f64>().ok());
                let right = view[0] + view[2];
                assert!(xs.clone().all(|x| x < right), "{name}: drawn past the right edge of {head}");
                let bottom = content_bottom(svg);
                let blank = view[1] + view[3] - bottom;
                assert!((0.0..=16.0).contains(&blank), "{name}: {blank} px blank under {head}");
            }
        }
    }
}

#[test]
fn no_step_text_is_cut() {
    let page = page("lc-rc");
    for svg in svgs(&page, "chart").into_iter().chain(svgs(&page, "graph")) {
        for text in svg.split("<text").skip(1) {
            let body = &text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()];
            let words: String = body.split('<').map(|s| s.split_once('>').map_or(s, |(_, t)| t)).collect();
            assert!(!words.trim_end().ends_with("...") && !words.trim_end().ends_with('…'), "cut: {words}");
        }
    }
    // lc-rc's longest statement is drawn whole.
    assert!(page.contains("await(neh_running == 0)"));
}

#[test]
fn labels_keep_off_boxes_and_each_other() {
    let mut labels_seen = 0;
    for name in ["ex1", "lc-rc", "ex4"] {
        let page = page(name);
        for svg in svgs(&page, "graph") {
            let nodes = rects(svg, "<rect class=\"node\"");
            let labels = rects(svg, "<g class=\"edge-label\">");
            labels_seen += labels.len();
            for (k, l) in labels.iter().enumerate() {
                assert!(!nodes.iter().any(|n| overlap(*l, *n)), "{name}: label {l:?} on a node");
                assert!(!labels[..k].iter().any(|m| overlap(*l, *m)), "{name}: labels meet");
            }
        }
        for svg in svgs(&page, "chart") {
            let steps = rects(svg, "<g class=\"step");
            for layer in svg.split("<g class=\"fix\"").skip(1) {
                let labels = rects(layer.split("</g>\n</g>").next().unwrap_or(layer), "<g class=\"atom-label\">");
                labels_seen += labels.len();
                for (k, l) in labels.iter().enumerate() {
                    assert!(!steps.iter().any(|s| overlap(*l, *s)), "{name}: label {l:?} on a step");
                    assert!(!labels[..k].iter().any(|m| overlap(*l, *m)), "{name}: labels meet");
                }
            }
        }
    }
    assert!(labels_seen > 0, "no label was drawn");
}
