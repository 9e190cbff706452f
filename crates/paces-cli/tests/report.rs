//! `--report FILE.html` through the binary, and the pages opened in a real browser: headless
//! Chromium loads the reports of held-in repairs and a check, its dumped DOM shows that the
//! page's script ran to its end without an error and that every chart has one column per
//! thread; a copy of each page with a measuring script of the test's own shows, with the fonts
//! as Chromium draws them, that every drawing is sized to its content, that no text is cut and
//! that no edge's label lies on a box or on another label; a screenshot of one page is kept
//! under the target directory.
//!
//! Where no Chromium is installed the browser test says so and passes, unless the environment
//! variable `CI` is set: CI installs Chromium (`.ci/run`), so there a missing browser fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The held-in repairs whose reports the browser opens (small and quick ones).
const REPAIRED: &[&str] = &["ex1", "ex5", "usb-serial"];

/// How long one browser run may take.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(120);

fn paces(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_paces")).args(args).stdin(Stdio::null()).output().expect("the binary runs")
}

/// A folder of this test's files under the target directory.
fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report");
    std::fs::create_dir_all(&dir).expect("the target directory is writable");
    dir
}

/// Writes the report of `paces COMMAND example --report` and returns its path. A repair keeps
/// the held-in models' deadlocks (`--keep-deadlocks`, the paper's question): their repairs are
/// the ones Table 1 knows.
///
/// `test` names the calling test: tests run in parallel, and two runs writing one file would
/// meet.
fn report(test: &str, command: &str, name: &str) -> PathBuf {
    let path = out_dir().join(format!("{test}-{command}-{name}.html"));
    let example = paces_heldin::path(name).display().to_string();
    let target = path.display().to_string();
    let mut args = vec![command, example.as_str(), "--report", target.as_str(), "-q"];
    if command == "repair" {
        args.push("--keep-deadlocks");
    }
    let out = paces(&args);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{command} {name}: {}", String::from_utf8_lossy(&out.stderr));
    path
}

/// For every chart of `html` (in order): the threads its `data-threads` says and the thread
/// columns it holds.
fn columns(html: &str) -> Vec<(usize, usize)> {
    html.split("<svg class=\"chart\"")
        .skip(1)
        .map(|chart| {
            let chart = &chart[..chart.find("</svg>").expect("the chart ends")];
            let declared = chart.split("data-threads=\"").nth(1).and_then(|s| s.split('"').next());
            (declared.and_then(|d| d.parse().ok()).expect("data-threads"), chart.matches("<g class=\"thread\"").count())
        })
        .collect()
}

#[test]
fn repair_report_is_written_and_names_its_change() {
    let path = report("written", "repair", "ex1");
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<span class=\"tag\">move 1 below 2</span>"), "{html}");
    // In the input's own text: ex1's source has its comments, which the diff shows as it is.
    assert!(columns(&html).iter().all(|&(d, f)| d == 3 && f == 3));
}

#[test]
fn check_report_draws_the_counterexample() {
    let path = report("drawn", "check", "ex1");
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.contains("<h2>Counterexample 1: assertion 85 fails</h2>"), "{html}");
    assert_eq!(columns(&html), [(3, 3)]);
}

/// The fix each iteration's chart shows first is the one the next candidate takes: for the
/// last iteration with a trace, a fix whose atoms all hold in the candidate proposed after it
/// (found here with the library, independently of the page).
#[test]
fn the_chart_shows_the_fix_the_repair_takes() {
    let mut taken = 0;
    for name in REPAIRED {
        let html = std::fs::read_to_string(report("chosen", "repair", name)).unwrap();
        let program = paces::cwhile::parse(paces_heldin::source(name)).unwrap();
        let run = paces::Repair::new().keep_deadlocks(true).record_traces(true).run(&program).unwrap();
        assert!(run.candidate.is_some(), "{name}: repaired");
        // The last iteration that learned from a trace (a rejection for an assertion no longer
        // reached, say, has none), counted from 1 as the page's ids are.
        let (at, iteration) =
            run.history.iter().enumerate().rev().find(|(_, i)| i.learned.is_some()).expect("a trace is kept");
        let learned = iteration.learned.as_ref().unwrap();
        let next = paces::constraint::Candidate::apply(&run.space, &iteration.proposal).unwrap();
        let holds = |k: usize| learned.elimination.fixes[k].atoms.iter().all(|a| a.holds(&next));
        let chart = html.split(&format!("id=\"bad-{}\"", at + 1)).nth(1).expect("the iteration's chart");
        let chart = chart.split('>').next().unwrap_or_default();
        let chosen: usize =
            chart.split("data-chosen=\"").nth(1).and_then(|s| s.split('"').next()).unwrap().parse().unwrap();
        // The first fix the next candidate takes; the first fix when it takes none.
        match (0..learned.elimination.fixes.len()).find(|&k| holds(k)) {
            Some(first) => {
                assert_eq!(chosen, first + 1, "{name}: not the first fix the next candidate takes");
                taken += 1;
            }
            None => assert_eq!(chosen, 1, "{name}"),
        }
    }
    assert!(taken >= 1, "no page shows a fix its next candidate takes");
}

/// A check page that holds a failure and a deadlock says both in its heading, and no check
/// page speaks of fixes it does not draw.
#[test]
fn a_check_page_names_every_kind_it_holds() {
    let source = "var x = 0, m = 0, n = 0;\n\
        thread a { A1: lock(m); A2: lock(n); unlock(n); unlock(m); A3: x := 1; }\n\
        thread b { B1: lock(n); B2: lock(m); unlock(m); unlock(n); B3: assert(x == 0); }\n";
    let file = out_dir().join("both.cw");
    std::fs::write(&file, source).unwrap();
    let page = out_dir().join("both.html");
    let out = paces(&["check", "--all", &file.display().to_string(), "--report", &page.display().to_string()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    let verdict = html.split("<p class=\"verdict bad\">").nth(1).and_then(|s| s.split("</p>").next()).unwrap();
    assert!(verdict.contains("1 failing assertion") && verdict.contains("1 deadlock"), "{verdict}");
    assert!(!html.contains("chosen fix"), "a check page has no fixes");
}

#[test]
fn an_unwritable_report_is_refused_before_the_run() {
    let dir = out_dir();
    let example = paces_heldin::path("ex1").display().to_string();
    for command in ["repair", "check"] {
        let out = paces(&[command, &example, "--report", &dir.display().to_string()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("it is a directory"), "{command}: {stderr}");
        assert!(out.stdout.is_empty(), "{command}: nothing ran");
    }
}

/// The Chromium binary: `PACES_CHROMIUM`, else the first of Debian's and other usual names on
/// the `PATH`.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PACES_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// Runs headless Chromium on `page` with `args`; its standard output (kept in a file: a
/// dumped page is larger than a pipe holds).
fn browse(browser: &Path, page: &Path, args: &[&str]) -> String {
    let stem = page.file_stem().unwrap().to_string_lossy().into_owned();
    let profile = out_dir().join(format!("profile-{stem}"));
    let dump = out_dir().join(format!("{stem}.dom"));
    let stdout = std::fs::File::create(&dump).expect("the dump file can be written");
    let mut child = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("the browser starts");
    let started = Instant::now();
    while child.try_wait().expect("the browser can be waited for").is_none() {
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the browser did not finish {} within {BROWSER_TIMEOUT:?}", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    String::from_utf8_lossy(&std::fs::read(&dump).expect("the dump file")).into_owned()
}

/// The value of attribute `name` on the dumped page's root element.
fn root_attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let root = &dom[dom.find("<html")?..];
    let root = &root[..root.find('>')?];
    root.split(&format!(" {name}=\"")).nth(1)?.split('"').next()
}

/// Measures the page's drawings as Chromium lays them out, and says on the root element's
/// `data-measure` what is wrong (`ok` when nothing): a drawing more than 16 px taller or wider
/// than what it holds (every fix's layer shown), or too small for it; a text that ends cut (`...`); a step's text
/// wider than its box; an edge's label on a box or on another label, or its text out of its
/// background; a change of the repair without its reason, or a reason whose link leads to no
/// iteration of the page. Appended to a copy of a page, after the page's own script.
const MEASURE: &str = r#"<script>
(function () {
  var bad = [];
  function box(e) { var b = e.getBBox(); return { x: b.x, y: b.y, r: b.x + b.width, b: b.y + b.height }; }
  function meet(a, b) { return a.x < b.r - 0.5 && b.x < a.r - 0.5 && a.y < b.b - 0.5 && b.y < a.b - 0.5; }
  function inside(a, b) { return a.x >= b.x - 1 && a.r <= b.r + 1 && a.y >= b.y - 1 && a.b <= b.b + 1; }
  function shown(e) { return !e.closest("[display=none]"); }
  var svgs = document.querySelectorAll("svg.chart, svg.graph");
  for (var i = 0; i < svgs.length; i++) {
    // The size holds every fix's layer, shown one at a time: measured with all of them shown.
    var svg = svgs[i], vb = svg.viewBox.baseVal, id = svg.id, layers = svg.querySelectorAll("g.fix"), was = [];
    for (var q = 0; q < layers.length; q++) { was.push(layers[q].getAttribute("display")); layers[q].setAttribute("display", "inline"); }
    var c = svg.getBBox();
    for (var q2 = 0; q2 < layers.length; q2++) {
      if (was[q2] === null) { layers[q2].removeAttribute("display"); } else { layers[q2].setAttribute("display", was[q2]); }
    }
    var under = vb.y + vb.height - (c.y + c.height), beside = vb.x + vb.width - (c.x + c.width);
    if (under > 16 || beside > 16) { bad.push(id + ": blank space " + Math.round(beside) + " px right, " + Math.round(under) + " px under"); }
    if (c.y + c.height > vb.y + vb.height + 1 || c.x + c.width > vb.x + vb.width + 1) { bad.push(id + ": drawing cut"); }
    var texts = svg.querySelectorAll("text");
    for (var t = 0; t < texts.length; t++) {
      var words = texts[t].textContent.trim();
      if (/(\.\.\.|\u2026)$/.test(words)) { bad.push(id + ": cut text " + words); }
    }
    var steps = svg.querySelectorAll("g.step");
    var nodes = [];
    for (var s = 0; s < steps.length; s++) {
      var r = box(steps[s].querySelector("rect"));
      nodes.push(r);
      if (!inside(box(steps[s].querySelector("text")), r)) { bad.push(id + ": step text wider than its box"); }
    }
    var rects = svg.querySelectorAll("rect.node");
    for (var n = 0; n < rects.length; n++) { nodes.push(box(rects[n])); }
    var labels = svg.querySelectorAll("g.edge-label, g.atom-label");
    var placed = [];
    for (var l = 0; l < labels.length; l++) {
      if (!shown(labels[l])) { continue; }
      var lb = box(labels[l].querySelector("rect"));
      if (!inside(box(labels[l].querySelector("text")), lb)) { bad.push(id + ": label text out of its box"); }
      for (var k = 0; k < nodes.length; k++) { if (meet(lb, nodes[k])) { bad.push(id + ": label on a box"); } }
      for (var p = 0; p < placed.length; p++) { if (meet(lb, placed[p])) { bad.push(id + ": labels meet"); } }
      placed.push(lb);
    }
  }
  // Every change of the repair says why it is there, and its links lead to iterations shown.
  var changes = document.querySelectorAll("ol.changes > li");
  for (var h = 0; h < changes.length; h++) {
    var why = changes[h].querySelectorAll("ul.why > li");
    if (!why.length || !why[0].textContent.trim()) { bad.push("a change without its reason"); }
    var links = changes[h].querySelectorAll("a[href^='#']");
    for (var a = 0; a < links.length; a++) {
      if (!document.getElementById(links[a].getAttribute("href").slice(1))) { bad.push("a reason links nowhere"); }
    }
  }
  document.documentElement.setAttribute("data-measure", bad.length ? bad.join("; ") : "ok");
  document.documentElement.setAttribute("data-changes", String(changes.length));
  document.documentElement.setAttribute("data-labels", String(document.querySelectorAll("g.edge-label, g.atom-label").length));
})();
</script>"#;

/// A copy of `page` with [`MEASURE`] at the end of its body.
fn measured(page: &Path) -> PathBuf {
    let html = std::fs::read_to_string(page).expect("the page");
    let copy = page.with_file_name(format!("{}-measured.html", page.file_stem().unwrap().to_string_lossy()));
    std::fs::write(&copy, html.replace("</body>", &format!("{MEASURE}\n</body>"))).expect("the copy is written");
    copy
}

#[test]
fn reports_render_in_chromium() {
    let Some(browser) = chromium() else {
        assert!(std::env::var_os("CI").is_none(), "CI is set but no Chromium is installed (see .ci/run)");
        eprintln!("skipped: no Chromium on the PATH (install it: apt-get install chromium)");
        return;
    };
    let mut pages: Vec<(String, PathBuf)> =
        REPAIRED.iter().map(|n| (n.to_string(), report("browser", "repair", n))).collect();
    pages.push(("ex1".to_owned(), report("browser", "check", "ex1")));
    let (mut labels, mut changes) = (0, 0);
    for (name, page) in &pages {
        let threads = paces::cwhile::parse(paces_heldin::source(name)).expect("parses").threads.len();
        let dom = browse(&browser, page, &["--dump-dom"]);
        // Each chart with fixes shows its chosen one, its button marked.
        for chart in dom.split("<svg class=\"chart\" id=\"").skip(1) {
            let id = chart.split('"').next().unwrap_or_default();
            let tag = chart.split('>').next().unwrap_or_default();
            let Some(chosen) = tag.split("data-chosen=\"").nth(1).and_then(|s| s.split('"').next()) else { continue };
            let button = format!("data-chart=\"{id}\" data-fix=\"{chosen}\"");
            let marked =
                dom.split("<button class=\"fix-pick chosen\"").skip(1).any(|b| b.starts_with(&format!(" {button}")));
            assert!(marked, "{}: the chosen fix {chosen} of {id} is not marked", page.display());
        }
        let what = page.display();
        assert_eq!(root_attribute(&dom, "data-render"), Some("ok"), "{what}: the script did not end well");
        // Sized to their content, nothing cut, labels clear: measured with the fonts as drawn.
        let measure = browse(&browser, &measured(page), &["--dump-dom"]);
        assert_eq!(root_attribute(&measure, "data-measure"), Some("ok"), "{what}: as Chromium lays it out");
        let count = |name: &str| root_attribute(&measure, name).and_then(|n| n.parse::<usize>().ok()).expect("counted");
        labels += count("data-labels");
        changes += count("data-changes");
        let charts = columns(&dom);
        assert!(!charts.is_empty(), "{what}: no chart");
        assert_eq!(root_attribute(&dom, "data-charts"), Some(charts.len().to_string().as_str()), "{what}");
        for (declared, found) in charts {
            assert_eq!((declared, found), (threads, threads), "{what}: a chart without one column per thread");
        }
    }
    assert!(labels > 0, "no page has an edge label to measure");
    assert!(changes >= REPAIRED.len(), "the repairs' changes were not found on their pages");
    let shot = out_dir().join("report-ex1.png");
    let _ = std::fs::remove_file(&shot);
    let screenshot = format!("--screenshot={}", shot.display());
    browse(&browser, &pages[0].1, &[&screenshot, "--window-size=1200,1600"]);
    let png = std::fs::read(&shot).expect("the browser wrote the screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000, "{}: no picture", shot.display());
    eprintln!("screenshot: {}", shot.display());
}
