//! Rebuilding a found cycle in full: the search keeps only a cycle's constraint edges, and
//! the shortest paths over no-constraint edges between them give its events and the rest of
//! its edges.

use paces_trace::EventId;

use super::graph::{Graph, NONE};
use super::search::Raw;
use super::{CycleEdge, EdgeKind};

/// A path over no-constraint edges: its nodes, and the kind and weight of each edge
/// (`edges[i]` from `nodes[i]` to `nodes[i + 1]`).
struct Path {
    nodes: Vec<u32>,
    edges: Vec<(EdgeKind, u64)>,
}

/// The events and edges of the cycle `raw` (see [`Fix::cycle`](super::Fix::cycle) and
/// [`Fix::edges`](super::Fix::edges)): each constraint edge followed by a shortest path from
/// its head to the next one's tail, the path holding the cycle's cross-thread ordering being
/// the first that can. `None` when some path is missing, which the reachability rows that
/// vouched for the cycle rule out.
pub(super) fn rebuild(g: &Graph<'_>, raw: &Raw) -> Option<(Vec<EventId>, Vec<CycleEdge>)> {
    let kk = raw.edges.len();
    // The segment that carries the cross-thread ordering.
    let seg = |i: usize| (raw.edges[i].1, raw.edges[(i + 1) % kk].0);
    let x_seg = (0..kk).find(|&i| {
        let (h, t) = seg(i);
        g.reaches_x(h, t)
    });
    let mut cycle: Vec<u32> = Vec::new();
    let mut edges: Vec<CycleEdge> = Vec::new();
    for i in 0..kk {
        let (tail, head, opt) = raw.edges[i];
        let (h, t) = seg(i);
        let path = segment(g, h, t, x_seg == Some(i))?;
        cycle.push(tail);
        edges.push(CycleEdge {
            from: g.ids[tail as usize],
            to: g.ids[head as usize],
            kind: opt.kind,
            weight: opt.weight,
        });
        for (j, &(kind, weight)) in path.edges.iter().enumerate() {
            cycle.push(path.nodes[j]);
            edges.push(CycleEdge {
                from: g.ids[path.nodes[j] as usize],
                to: g.ids[path.nodes[j + 1] as usize],
                kind,
                weight,
            });
        }
    }
    Some((cycle.iter().map(|&v| g.ids[v as usize]).collect(), edges))
}

/// A shortest path over no-constraint edges from `s` to `t`; `need_x` asks for a path
/// holding a cross-thread ordering. A path to a blocked step may end at any blocked step and
/// join `t` by a deadlock edge.
fn segment(g: &Graph<'_>, s: u32, t: u32, need_x: bool) -> Option<Path> {
    if s == t && !need_x {
        return Some(Path { nodes: vec![s], edges: Vec::new() });
    }
    let (s, t) = (s as usize, t as usize);
    let hi = if g.blocked[t] { g.n() - 1 } else { t };
    if s > hi {
        return None;
    }
    let distances = Distances::new(g, s, hi);
    let layers: &[usize] = if need_x { &[1] } else { &[0, 1] };
    let ends: Vec<usize> = if g.blocked[t] { (s..=hi).filter(|&v| g.blocked[v]).collect() } else { vec![t] };
    let mut best: Option<(u64, usize, usize)> = None;
    for &e in &ends {
        for &l in layers {
            let d = distances.dist[e - s][l];
            if d != INF && best.is_none_or(|(bd, _, _)| d < bd) {
                best = Some((d, e, l));
            }
        }
    }
    let (_, end, layer) = best?;
    let mut path = distances.path_to(end, layer)?;
    if end != t {
        path.nodes.push(t as u32);
        path.edges.push((EdgeKind::Deadlock, 0));
    }
    Some(path)
}

/// No path.
const INF: u64 = u64::MAX;

/// Shortest distances from one node `s` to the nodes from `s` to some `hi`, in two layers:
/// over paths without (0) and with (1) a cross-thread ordering.
struct Distances {
    s: usize,
    /// Per node from `s` on and layer, the distance, or INF.
    dist: Vec<[u64; 2]>,
    /// Per node from `s` on and layer, the predecessor on a shortest path: its node (NONE for
    /// none), its layer, the edge's weight, and whether the edge is a cross-thread ordering.
    pred: Vec<[(u32, u8, u64, bool); 2]>,
}

impl Distances {
    /// The distances from `s` over the nodes `s..=hi`: the no-constraint edges go from
    /// smaller to larger node indices, so one pass in index order settles them.
    fn new(g: &Graph<'_>, s: usize, hi: usize) -> Distances {
        let width = hi - s + 1;
        let mut dist = vec![[INF; 2]; width];
        let mut pred: Vec<[(u32, u8, u64, bool); 2]> = vec![[(NONE, 0, 0, false); 2]; width];
        dist[0][0] = 0;
        for u in s..=hi {
            for layer in 0..2 {
                let du = dist[u - s][layer];
                if du == INF {
                    continue;
                }
                for &v in &g.cross_out[u] {
                    let v = v as usize;
                    if v <= hi && du + 1 < dist[v - s][1] {
                        dist[v - s][1] = du + 1;
                        pred[v - s][1] = (u as u32, layer as u8, 1, true);
                    }
                }
                for &v in &g.forced_out[u] {
                    let v = v as usize;
                    let w = u64::from(g.tpos[v] - g.tpos[u]);
                    if v <= hi && du + w < dist[v - s][layer] {
                        dist[v - s][layer] = du + w;
                        pred[v - s][layer] = (u as u32, layer as u8, w, false);
                    }
                }
            }
        }
        Distances { s, dist, pred }
    }

    /// The shortest path from `s` to `v` in `layer`, walked back along the predecessors.
    fn path_to(&self, mut v: usize, mut layer: usize) -> Option<Path> {
        let s = self.s;
        let mut nodes = vec![v as u32];
        let mut edges = Vec::new();
        while v != s || layer != 0 {
            let (u, l, w, cross) = self.pred[v - s][layer];
            if u == NONE {
                return None;
            }
            edges.push((if cross { EdgeKind::Ordering } else { EdgeKind::Forced }, w));
            nodes.push(u);
            v = u as usize;
            layer = l as usize;
        }
        nodes.reverse();
        edges.reverse();
        Some(Path { nodes, edges })
    }
}
