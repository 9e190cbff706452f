//! A trace as an SVG chart, drawn from its [`Grid`]: one column per thread, its steps in the
//! order they ran (one row each, as tall as its wrapped text), the failing step outlined in
//! red, the orderings the failure needs drawn as blue arrows between columns, and each fix's
//! cycle as a red layer that the page's script shows one at a time, its constraint edges
//! named by their atoms in labels set clear of the boxes and arrows. The drawing is sized to
//! what it holds.

use std::fmt::Write;

use crate::grid::{Fit, Grid};
use crate::page::escape;
use crate::place::{bezier, Obstacles, Rect};
use crate::TraceChart;

/// The width of a character of the chart's 12px monospace font, with a little slack.
const CH: f64 = 7.4;
/// The height of a line of a step's text.
const LINE: f64 = 15.0;
/// Padding inside a step's box, left and right of its text.
const PAD: f64 = 6.0;
/// Space between columns (room for an arrow bowing out of its column).
const GAP: f64 = 24.0;
/// Height of the column headers.
const HEAD: f64 = 30.0;
/// The most characters of a step's text on one line; longer texts wrap.
const WRAP: usize = 40;
/// The font size of an atom's label.
const ATOM_FONT: f64 = 11.0;

/// Where the grid's columns and rows fall, in pixels.
struct Frame {
    /// Each column's left edge and width.
    columns: Vec<(f64, f64)>,
    /// Each row's top and height.
    rows: Vec<(f64, f64)>,
}

impl Frame {
    fn new(grid: &Grid) -> Frame {
        let mut x = 10.0;
        let columns = grid
            .columns
            .iter()
            .map(|c| {
                let w = c.width as f64 * CH + 2.0 * PAD + 12.0;
                let at = (x, w);
                x += w + GAP;
                at
            })
            .collect();
        let mut y = HEAD;
        let rows = grid
            .rows
            .iter()
            .map(|r| {
                let h = r.lines.len() as f64 * LINE + 9.0;
                let at = (y, h);
                y += h;
                at
            })
            .collect();
        Frame { columns, rows }
    }

    /// Step `i`'s box (its row is row `i`).
    fn step_box(&self, grid: &Grid, i: usize) -> Rect {
        let (x, w) = self.columns[grid.rows[i].column];
        let (y, h) = self.rows[i];
        Rect::new(x + 6.0, y + 2.0, w - 12.0, h - 4.0)
    }

    fn bottom(&self) -> f64 {
        self.rows.last().map_or(HEAD, |(y, h)| y + h)
    }
}

/// The chart of `chart` as an SVG element with id `id`; its fix layers are `id-fix-K`, the
/// chosen one ([`TraceChart::chosen`], also its `data-chosen`) shown.
pub(crate) fn svg(chart: &TraceChart, id: &str) -> String {
    let grid = Grid::new(chart, None, Fit::Wrap(WRAP));
    let frame = Frame::new(&grid);
    let mut cycles = String::new();
    for (k, fix) in chart.fixes.iter().enumerate() {
        let steps: Vec<String> = fix.edges.iter().map(|e| e.from.to_string()).collect();
        let _ = write!(cycles, " data-cycle-{}=\"{}\"", k + 1, steps.join(" "));
    }
    if !chart.fixes.is_empty() {
        let _ = write!(cycles, " data-chosen=\"{}\"", chart.chosen + 1);
    }
    let (blue, red) = (format!("{id}-arrow-blue"), format!("{id}-arrow-red"));
    let mut body = String::new();
    for t in 0..grid.columns.len() {
        thread_column(&mut body, chart, &grid, &frame, t);
    }
    let boxes: Vec<Rect> = (0..grid.rows.len()).map(|i| frame.step_box(&grid, i)).collect();
    // Every column (to its boxes' right edge), its header included, and every row.
    let right = frame.columns.last().map_or(1.0, |(x, w)| x + w - 6.0);
    let mut extent = Rect::new(0.0, 0.0, right, frame.bottom());
    let mut order_lines = Vec::new();
    for &(a, b) in &chart.orderings {
        let (d, points) = arrow(&boxes, &grid, a, b);
        let _ = writeln!(body, "<path class=\"order\" d=\"{d}\" marker-end=\"url(#{blue})\"/>");
        order_lines.push(points);
    }
    for (k, fix) in chart.fixes.iter().enumerate() {
        let shown = if k == chart.chosen { "" } else { " display=\"none\"" };
        let _ = writeln!(body, "<g class=\"fix\" id=\"{id}-fix-{}\"{shown}>", k + 1);
        let mut obstacles = Obstacles { boxes: boxes.clone(), lines: order_lines.clone() };
        let mut labelled = Vec::new();
        for e in &fix.edges {
            let class = if e.atom.is_some() { "cycle constraint" } else { "cycle" };
            let (d, points) = arrow(&boxes, &grid, e.from, e.to);
            let _ = writeln!(body, "<path class=\"{class}\" d=\"{d}\" marker-end=\"url(#{red})\"/>");
            if let Some(atom) = &e.atom {
                labelled.push((obstacles.lines.len(), atom.clone()));
            }
            obstacles.lines.push(points);
        }
        for (line, atom) in labelled {
            let (w, h) = (atom.chars().count() as f64 * ATOM_FONT * 0.62 + 6.0, ATOM_FONT + 4.0);
            let points = obstacles.lines[line].clone();
            let r = obstacles.place(&points, w, h);
            extent = extent.union(&r);
            let _ = writeln!(
                body,
                "<g class=\"atom-label\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"2\"/>\
                 <text class=\"atom\" x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
                r.x,
                r.y,
                r.x + 3.0,
                r.y + h - 4.0,
                escape(&atom)
            );
        }
        for line in &obstacles.lines {
            for &(x, y) in line {
                extent = extent.union(&Rect::new(x, y, 0.0, 0.0));
            }
        }
        body.push_str("</g>\n");
    }
    let (width, height) = ((extent.x + extent.w + 4.0).ceil(), (extent.y + extent.h + 6.0).ceil());
    let mut out = format!(
        "<svg class=\"chart\" id=\"{id}\" data-threads=\"{}\"{cycles} width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        chart.threads.len()
    );
    let _ = writeln!(
        out,
        "<defs><marker id=\"{blue}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" \
         markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#1f5fbf\"/></marker>\
         <marker id=\"{red}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" \
         markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#c8102e\"/></marker></defs>"
    );
    out.push_str(&body);
    out.push_str("</svg>\n");
    out
}

/// Column `t`: its thread's name on top, a lane, and a box for each of its steps with the
/// step's whole text (the label and the text's first line, then the text's further lines).
fn thread_column(out: &mut String, chart: &TraceChart, grid: &Grid, frame: &Frame, t: usize) {
    let (x, w) = frame.columns[t];
    let name = &grid.columns[t].name;
    let _ = writeln!(out, "<g class=\"thread\" data-thread=\"{}\">", escape(name));
    let _ = writeln!(out, "<text class=\"head\" x=\"{:.1}\" y=\"18\">{}</text>", x + w / 2.0, escape(name));
    let _ = writeln!(
        out,
        "<line class=\"lane\" x1=\"{0:.1}\" y1=\"{HEAD}\" x2=\"{0:.1}\" y2=\"{1:.1}\"/>",
        x + w / 2.0,
        frame.bottom()
    );
    for (i, row) in grid.rows.iter().enumerate().filter(|(_, r)| r.column == t) {
        let step = &chart.steps[row.step];
        let mut class = String::from("step");
        if chart.failing.contains(&row.step) {
            class.push_str(" failing");
        }
        if step.blocked {
            class.push_str(" blocked");
        }
        let b = frame.step_box(grid, i);
        let mut text = String::new();
        for (k, line) in row.lines.iter().enumerate() {
            let dy = if k == 0 { 0.0 } else { LINE };
            let _ = write!(text, "<tspan x=\"{:.1}\" dy=\"{dy}\">{}</tspan>", b.x + PAD, escape(line));
        }
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-step=\"{}\"><title>step {}: {}  {}</title><rect x=\"{:.1}\" y=\"{:.1}\" \
             width=\"{:.1}\" height=\"{:.1}\" rx=\"3\"/><text x=\"{:.1}\" y=\"{:.1}\" xml:space=\"preserve\">{text}</text></g>",
            row.step,
            row.step + 1,
            escape(&step.label),
            escape(&step.text),
            b.x,
            b.y,
            b.w,
            b.h,
            b.x + PAD,
            b.y + 15.0,
        );
    }
    out.push_str("</g>\n");
}

/// An arrow from step `a` to step `b`, as a path and as the points it passes: straight
/// between the boxes' facing sides across columns, bowed out to the right within one column.
fn arrow(boxes: &[Rect], grid: &Grid, a: usize, b: usize) -> (String, Vec<(f64, f64)>) {
    let (Some(from), Some(to)) = (boxes.get(a), boxes.get(b)) else { return (String::new(), Vec::new()) };
    let (y1, y2) = (from.y + from.h / 2.0, to.y + to.h / 2.0);
    if grid.rows[a].column == grid.rows[b].column {
        let x = from.x + from.w;
        let bow = x + 14.0;
        let d = format!("M{x:.1} {y1:.1} C{bow:.1} {y1:.1} {bow:.1} {y2:.1} {x:.1} {y2:.1}");
        (d, bezier((x, y1), (bow, y1), (bow, y2), (x, y2), 12))
    } else {
        let (x1, x2) = if from.x < to.x { (from.x + from.w, to.x) } else { (from.x, to.x + to.w) };
        (format!("M{x1:.1} {y1:.1} L{x2:.1} {y2:.1}"), vec![(x1, y1), (x2, y2)])
    }
}
