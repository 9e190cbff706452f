//! The page around the sections: its style sheet and script, both inline (the file opens from
//! disk with no network), and HTML escaping.

/// The style sheet.
const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 1.5em 2em; color: #222; max-width: 1400px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin-bottom: .3em; }
pre, code, .chart text, .graph text, .diff { font-family: ui-monospace, monospace; }
.verdict { font-weight: bold; } .ok { color: #1a7f37; } .bad { color: #c8102e; }
.diff { border: 1px solid #ddd; padding: .5em; line-height: 1.35; overflow-x: auto; }
.diff div { white-space: pre; min-height: 1.2em; }
.diff .del { background: #ffebe9; } .diff .add { background: #e6ffec; }
.diff .tag { color: #6e4ea8; font-family: system-ui, sans-serif; font-size: .85em; padding-left: 1em; }
.iteration { border-left: 4px solid #c8102e; padding: .3em 1em; margin: 1em 0; }
.iteration.accepted { border-left-color: #1a7f37; }
.good { border-left: 4px solid #1a7f37; padding: .3em 1em; margin: 1em 0; }
table.facts td { padding: .15em .8em .15em 0; vertical-align: top; }
.figures { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
.figure { overflow-x: auto; max-width: 100%; }
.chart .head { font-weight: bold; text-anchor: middle; font-size: 13px; }
.chart .lane { stroke: #ccc; stroke-dasharray: 2 3; }
.chart .step rect { fill: #f6f8fa; stroke: #888; }
.chart .step text { font-size: 12px; white-space: pre; }
.chart .step.failing rect { fill: #ffebe9; stroke: #c8102e; stroke-width: 2.5; }
.chart .step.blocked rect { stroke-dasharray: 4 3; }
.chart .step.on-cycle rect { stroke: #c8102e; stroke-width: 2; }
.chart .order { stroke: #1f5fbf; fill: none; stroke-width: 1.3; }
.chart .cycle { stroke: #c8102e; fill: none; stroke-width: 2.2; }
.chart .cycle.constraint { stroke-dasharray: 5 4; }
.chart .atom { fill: #c8102e; font-size: 11px; }
.chart .atom-label rect { fill: white; stroke: #c8102e; stroke-width: .5; }
button.fix-pick { margin: .2em .4em .2em 0; }
button.fix-pick.chosen { background: #c8102e; color: white; border-color: #c8102e; }
.legend { font-size: .9em; color: #555; }
.changes .why { color: #555; font-size: .9em; margin: .1em 0 .4em; }
"#;

/// Catches any script error before the main script runs: the root element's `data-render`
/// then says `error` with the message.
const GUARD: &str = r#"
window.onerror = function (message) {
  document.documentElement.setAttribute("data-render", "error: " + message);
};
"#;

/// Wires the fix buttons (each shows its fix's cycle on the chart and outlines its steps),
/// chooses each chart's chosen fix (`data-chosen`), checks that every chart has one column per thread, and
/// marks the page rendered (`data-render="ok"` on the root element) when all of that ran.
const SCRIPT: &str = r#"
(function () {
  function choose(chartId, fix) {
    var svg = document.getElementById(chartId);
    if (!svg) { return; }
    var layers = svg.querySelectorAll("g.fix");
    for (var i = 0; i < layers.length; i++) {
      layers[i].setAttribute("display", layers[i].id === chartId + "-fix-" + fix ? "inline" : "none");
    }
    var steps = svg.querySelectorAll("g.step");
    var cycle = (svg.getAttribute("data-cycle-" + fix) || "").split(" ");
    for (var j = 0; j < steps.length; j++) {
      steps[j].classList.toggle("on-cycle", cycle.indexOf(steps[j].getAttribute("data-step")) >= 0);
    }
    var buttons = document.querySelectorAll("button.fix-pick[data-chart='" + chartId + "']");
    for (var k = 0; k < buttons.length; k++) {
      buttons[k].classList.toggle("chosen", buttons[k].getAttribute("data-fix") === String(fix));
    }
  }
  var all = document.querySelectorAll("button.fix-pick");
  for (var b = 0; b < all.length; b++) {
    all[b].addEventListener("click", function (event) {
      var button = event.currentTarget;
      choose(button.getAttribute("data-chart"), button.getAttribute("data-fix"));
    });
  }
  var charts = document.querySelectorAll("svg.chart");
  var wrong = [];
  for (var c = 0; c < charts.length; c++) {
    var columns = charts[c].querySelectorAll("g.thread").length;
    if (String(columns) !== charts[c].getAttribute("data-threads")) { wrong.push(charts[c].id); }
    if (charts[c].querySelector("g.fix")) { choose(charts[c].id, charts[c].getAttribute("data-chosen") || "1"); }
  }
  if (document.documentElement.getAttribute("data-render") === "pending") {
    document.documentElement.setAttribute("data-charts", String(charts.length));
    document.documentElement.setAttribute("data-render", wrong.length ? "columns-wrong: " + wrong.join(" ") : "ok");
  }
})();
"#;

/// The whole page: `title` and the sections' HTML.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\" data-render=\"pending\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n<script>{GUARD}</script>\n</head>\n<body>\n{body}\
         <script>{SCRIPT}</script>\n</body>\n</html>\n",
        escape(title)
    )
}

/// `text` with HTML's special characters escaped (for element text and quoted attributes).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
