//! The SVG writer of the graphs: `layout-rs` places the nodes and routes the edges, this
//! writer draws them. The drawing is sized to what it holds (its view box is the bounding box
//! of its boxes, texts, edges and labels, with a small margin), and each edge's label is set
//! beside its edge, on a background, clear of every node, edge and other label
//! ([`Obstacles::place`]).

use std::fmt::Write;

use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;

use crate::page::escape;
use crate::place::{bezier, Obstacles, Rect};

/// The width of a character of the graphs' monospace font, per pixel of font size.
pub(crate) const CHAR: f64 = 0.62;

/// The margin around the drawing.
const MARGIN: f64 = 4.0;

/// Draws what the layout renders; [`GraphSvg::finish`] writes the SVG element.
#[derive(Default)]
pub(crate) struct GraphSvg {
    body: String,
    obstacles: Obstacles,
    /// Everything drawn so far, for the view box.
    extent: Option<Rect>,
    /// The labels of the edges, by the index an edge's properties name.
    labels: Vec<String>,
    /// (edge index, polyline index, font size) of each drawn edge with a label.
    to_label: Vec<(usize, usize, usize)>,
}

impl GraphSvg {
    /// A writer for edges labelled `labels` (an edge names its label by index in its
    /// properties; an empty label draws nothing).
    pub(crate) fn new(labels: Vec<String>) -> GraphSvg {
        GraphSvg { labels, ..GraphSvg::default() }
    }

    fn grow(&mut self, r: Rect) {
        self.extent = Some(self.extent.map_or(r, |e| e.union(&r)));
    }

    /// The SVG element, its ids prefixed with `id-`: the labels placed, then the view box
    /// fitted to the drawing.
    pub(crate) fn finish(mut self, id: &str) -> String {
        let mut labels = String::new();
        for (edge, line, font) in std::mem::take(&mut self.to_label) {
            let text = self.labels.get(edge).cloned().unwrap_or_default();
            let (w, h) = (text.chars().count() as f64 * font as f64 * CHAR + 6.0, font as f64 + 4.0);
            let points = self.obstacles.lines[line].clone();
            let r = self.obstacles.place(&points, w, h);
            self.grow(r);
            let _ = writeln!(
                labels,
                "<g class=\"edge-label\"><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" \
                 fill=\"white\" stroke=\"#c8102e\" stroke-width=\"0.5\" rx=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\" \
                 font-size=\"{font}\" fill=\"#c8102e\" dominant-baseline=\"central\">{}</text></g>",
                r.x,
                r.y,
                r.x + 3.0,
                r.y + h / 2.0,
                escape(&text)
            );
        }
        let e = self.extent.unwrap_or(Rect::new(0.0, 0.0, 1.0, 1.0));
        let (x, y, w, h) = (e.x - MARGIN, e.y - MARGIN, e.w + 2.0 * MARGIN, e.h + 2.0 * MARGIN);
        format!(
            "<svg class=\"graph\" id=\"{id}\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"{x:.1} {y:.1} {w:.1} {h:.1}\" \
             xmlns=\"http://www.w3.org/2000/svg\">\n<defs><marker id=\"{id}-end\" markerWidth=\"10\" \
             markerHeight=\"7\" refX=\"10\" refY=\"3.5\" orient=\"auto\"><polygon points=\"0 0, 10 3.5, 0 7\" \
             fill=\"context-stroke\"/></marker></defs>\n{}{labels}</svg>\n",
            self.body.replace("url(#end)", &format!("url(#{id}-end)"))
        )
    }
}

/// A colour of the layout as SVG writes it.
fn color(c: &layout::core::color::Color) -> String {
    c.to_web_color()
}

impl RenderBackend for GraphSvg {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        _properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        let r = Rect::new(xy.x, xy.y, size.x, size.y);
        let fill = look.fill_color.as_ref().map_or_else(|| "none".to_owned(), color);
        let _ = writeln!(
            self.body,
            "<rect class=\"node\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" \
             stroke=\"{}\" stroke-width=\"{}\" rx=\"{}\"/>",
            r.x,
            r.y,
            r.w,
            r.h,
            color(&look.line_color),
            look.line_width,
            look.rounded
        );
        self.obstacles.boxes.push(r);
        self.grow(r);
    }

    fn draw_line(&mut self, start: Point, stop: Point, look: &StyleAttr, _properties: Option<String>) {
        let _ = writeln!(
            self.body,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\"/>",
            start.x,
            start.y,
            stop.x,
            stop.y,
            color(&look.line_color)
        );
        self.grow(Rect::new(
            start.x.min(stop.x),
            start.y.min(stop.y),
            (start.x - stop.x).abs(),
            (start.y - stop.y).abs(),
        ));
    }

    fn draw_circle(&mut self, xy: Point, size: Point, look: &StyleAttr, _properties: Option<String>) {
        let _ = writeln!(
            self.body,
            "<ellipse cx=\"{:.1}\" cy=\"{:.1}\" rx=\"{:.1}\" ry=\"{:.1}\" fill=\"none\" stroke=\"{}\"/>",
            xy.x,
            xy.y,
            size.x / 2.0,
            size.y / 2.0,
            color(&look.line_color)
        );
        self.grow(Rect::new(xy.x - size.x / 2.0, xy.y - size.y / 2.0, size.x, size.y));
    }

    fn draw_text(&mut self, xy: Point, text: &str, look: &StyleAttr) {
        let font = look.font_size as f64;
        let w = text.chars().count() as f64 * font * CHAR;
        let _ = writeln!(
            self.body,
            "<text class=\"node-text\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"{}\" text-anchor=\"middle\" \
             dominant-baseline=\"central\">{}</text>",
            xy.x,
            xy.y,
            look.font_size,
            escape(text)
        );
        self.grow(Rect::new(xy.x - w / 2.0, xy.y - font / 2.0, w, font));
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        look: &StyleAttr,
        properties: Option<String>,
        _text: &str,
    ) {
        if path.len() < 2 {
            return;
        }
        let p = |q: &Point| (q.x, q.y);
        // The first segment: from path[0].0 with controls path[0].1 and path[1].0 to
        // path[1].1; each later one smooth (its first control mirrors the last one).
        let mut d = format!(
            "M {:.1} {:.1} C {:.1} {:.1}, {:.1} {:.1}, {:.1} {:.1}",
            path[0].0.x, path[0].0.y, path[0].1.x, path[0].1.y, path[1].0.x, path[1].0.y, path[1].1.x, path[1].1.y
        );
        let mut points = bezier(p(&path[0].0), p(&path[0].1), p(&path[1].0), p(&path[1].1), 16);
        let (mut control, mut end) = (p(&path[1].0), p(&path[1].1));
        for q in &path[2..] {
            let _ = write!(d, " S {:.1} {:.1}, {:.1} {:.1}", q.0.x, q.0.y, q.1.x, q.1.y);
            let mirrored = (2.0 * end.0 - control.0, 2.0 * end.1 - control.1);
            points.extend(bezier(end, mirrored, p(&q.0), p(&q.1), 16).into_iter().skip(1));
            (control, end) = (p(&q.0), p(&q.1));
        }
        let dash = if dashed { " stroke-dasharray=\"5,5\"" } else { "" };
        let end_marker = if head.1 { " marker-end=\"url(#end)\"" } else { "" };
        let _ = writeln!(
            self.body,
            "<path class=\"edge\" d=\"{d}\" stroke=\"{}\" stroke-width=\"{}\" fill=\"none\"{dash}{end_marker}/>",
            color(&look.line_color),
            look.line_width
        );
        for &(x, y) in &points {
            self.grow(Rect::new(x, y, 0.0, 0.0));
        }
        self.obstacles.lines.push(points);
        let edge = properties.and_then(|s| s.parse::<usize>().ok());
        if let Some(edge) = edge.filter(|&e| self.labels.get(e).is_some_and(|l| !l.is_empty())) {
            self.to_label.push((edge, self.obstacles.lines.len() - 1, look.font_size));
        }
    }

    fn create_clip(&mut self, _xy: Point, _size: Point, _rounded_px: usize) -> ClipHandle {
        0
    }
}
