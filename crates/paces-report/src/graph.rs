//! The partial order and the elimination graph of a bad trace as SVG, laid out by `layout-rs`
//! (a layered, Sugiyama-style layout: ranks, crossing reduction, Brandes-Köpf placement).

use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;

use crate::graph_svg::{GraphSvg, CHAR};
use crate::TraceChart;

/// The font size of the nodes' text.
const FONT: usize = 13;

/// How a node or an edge is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tone {
    /// Black.
    Plain,
    /// Blue: an ordering between threads.
    Order,
    /// Red: the failure, or a fix's cycle.
    Red,
}

impl Tone {
    fn color(self) -> Color {
        Color::fast(match self {
            Tone::Plain => "black",
            Tone::Order => "blue",
            Tone::Red => "red",
        })
    }
}

/// A graph to lay out: nodes (the chart's steps) and edges between them.
struct Graph {
    /// Step index and tone of each node, in step order.
    nodes: Vec<(usize, Tone)>,
    /// (from, to, tone, dashed, text), by step index.
    edges: Vec<(usize, usize, Tone, bool, String)>,
}

/// The SVG of the partial order of `chart`, reduced to the steps that matter (the failing
/// steps and the ends of the orderings between threads, each thread's kept steps chained in
/// program order): the failing steps in red, program order in black, the orderings between
/// threads in blue. Empty when it has more than [`MAX_NODES`] such steps.
pub(crate) fn partial_order(chart: &TraceChart, id: &str) -> String {
    render(chart, &reduced(chart, &[]), id)
}

/// The SVG of the elimination graph of `chart` with fix `fix`'s cycle in red, reduced as
/// [`partial_order`] is: the cycle's orderings in red, its constraint edges dashed and named by
/// their atoms. When that graph has more than [`MAX_NODES`] steps, the cycle alone, and `false`
/// with it. Empty when there is no fix `fix`.
pub(crate) fn elimination(chart: &TraceChart, fix: usize, id: &str) -> (String, bool) {
    let Some(f) = chart.fixes.get(fix) else { return (String::new(), true) };
    let on_cycle: Vec<usize> = f.edges.iter().map(|e| e.from).collect();
    let mut graph = reduced(chart, &on_cycle);
    let whole = graph.nodes.len() <= MAX_NODES;
    if !whole {
        graph.nodes.retain(|(i, _)| on_cycle.contains(i));
        graph.edges.clear();
    }
    graph.edges.retain(|&(a, b, ..)| !f.edges.iter().any(|e| e.from == a && e.to == b));
    for e in &f.edges {
        graph.edges.push((e.from, e.to, Tone::Red, e.atom.is_some(), e.atom.clone().unwrap_or_default()));
    }
    (render(chart, &graph, id), whole)
}

/// The most nodes a drawn graph has: larger ones are left to `--dot`.
pub(crate) const MAX_NODES: usize = 60;

/// The partial order of `chart` on the steps that matter and the steps `red`.
fn reduced(chart: &TraceChart, red: &[usize]) -> Graph {
    let mut kept: Vec<usize> = chart
        .orderings
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .chain(chart.failing.iter().copied())
        .chain(red.iter().copied())
        .collect();
    kept.sort_unstable();
    kept.dedup();
    let nodes = kept
        .iter()
        .map(|&i| (i, if chart.failing.contains(&i) || red.contains(&i) { Tone::Red } else { Tone::Plain }))
        .collect();
    let mut edges = Vec::new();
    for t in 0..chart.threads.len() {
        let steps: Vec<usize> = kept.iter().copied().filter(|&i| chart.steps[i].thread == t).collect();
        for w in steps.windows(2) {
            edges.push((w[0], w[1], Tone::Plain, false, String::new()));
        }
    }
    for &(a, b) in &chart.orderings {
        edges.push((a, b, Tone::Order, false, String::new()));
    }
    Graph { nodes, edges }
}

/// Lays `graph` out top to bottom and writes it as SVG ([`GraphSvg`]), its element ids
/// prefixed with `id-` (the page holds many graphs).
fn render(chart: &TraceChart, graph: &Graph, id: &str) -> String {
    if graph.nodes.is_empty() || graph.nodes.len() > MAX_NODES {
        return String::new();
    }
    let mut vg = VisualGraph::new(Orientation::TopToBottom);
    let mut handles = Vec::with_capacity(graph.nodes.len());
    for &(i, tone) in &graph.nodes {
        let step = &chart.steps[i];
        let thread = chart.threads.get(step.thread).map_or("?", String::as_str);
        let text = format!("{thread}: {}  {}", step.label, step.text);
        // Sized for the monospace font the writer draws in.
        let size = Point::new(text.chars().count() as f64 * FONT as f64 * CHAR + 16.0, FONT as f64 + 14.0);
        let shape = ShapeKind::new_box(&text);
        let width = if tone == Tone::Red { 2 } else { 1 };
        let look = StyleAttr::new(tone.color(), width, Some(Color::fast("white")), 0, FONT);
        handles.push((i, vg.add_node(Element::create(shape, look, Orientation::TopToBottom, size))));
    }
    let handle = |i: usize| handles.iter().find(|(s, _)| *s == i).map(|(_, h)| *h);
    let mut labels = Vec::with_capacity(graph.edges.len());
    for (a, b, tone, dashed, text) in &graph.edges {
        let (Some(from), Some(to)) = (handle(*a), handle(*b)) else { continue };
        let line = if *dashed { LineStyleKind::Dashed } else { LineStyleKind::Normal };
        let width = if *tone == Tone::Red { 2 } else { 1 };
        let look = StyleAttr::new(tone.color(), width, None, 0, FONT);
        // The label is the writer's to place: the layout gets none (it would draw it on the
        // edge), and the edge names its label by index.
        let mut arrow = Arrow::new(LineEndKind::None, LineEndKind::Arrow, line, "", &look, &None, &None);
        arrow.properties = Some(labels.len().to_string());
        labels.push(text.clone());
        vg.add_edge(arrow, from, to);
    }
    let mut writer = GraphSvg::new(labels);
    vg.do_it(false, false, false, &mut writer);
    writer.finish(id)
}
