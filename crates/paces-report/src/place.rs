//! Where an edge's label goes: a free spot near a point of its edge, clear of every node box,
//! every edge and every label placed before; failing that, a margin beside the drawing that
//! nothing else uses. Shared by the charts and the graphs.

/// An axis-aligned box: its top-left corner and its size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rect {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) w: f64,
    pub(crate) h: f64,
}

impl Rect {
    pub(crate) fn new(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }

    fn right(&self) -> f64 {
        self.x + self.w
    }

    fn bottom(&self) -> f64 {
        self.y + self.h
    }

    /// Whether the two boxes share more than an edge.
    pub(crate) fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.right() && o.x < self.right() && self.y < o.bottom() && o.y < self.bottom()
    }

    /// Whether the point lies inside (borders included).
    fn contains(&self, (x, y): (f64, f64)) -> bool {
        x >= self.x && x <= self.right() && y >= self.y && y <= self.bottom()
    }

    /// Whether the segment from `a` to `b` meets the box.
    pub(crate) fn meets_segment(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        if self.contains(a) || self.contains(b) {
            return true;
        }
        let corners =
            [(self.x, self.y), (self.right(), self.y), (self.right(), self.bottom()), (self.x, self.bottom())];
        (0..4).any(|i| segments_cross(a, b, corners[i], corners[(i + 1) % 4]))
    }

    /// The smallest box holding both.
    pub(crate) fn union(&self, o: &Rect) -> Rect {
        let (x, y) = (self.x.min(o.x), self.y.min(o.y));
        Rect::new(x, y, self.right().max(o.right()) - x, self.bottom().max(o.bottom()) - y)
    }
}

/// Whether the segments `a`-`b` and `c`-`d` cross or touch.
fn segments_cross(a: (f64, f64), b: (f64, f64), c: (f64, f64), d: (f64, f64)) -> bool {
    let side = |p: (f64, f64), q: (f64, f64), r: (f64, f64)| (q.0 - p.0) * (r.1 - p.1) - (q.1 - p.1) * (r.0 - p.0);
    let (d1, d2) = (side(c, d, a), side(c, d, b));
    let (d3, d4) = (side(a, b, c), side(a, b, d));
    let on = |p: (f64, f64), q: (f64, f64), r: (f64, f64)| {
        r.0 >= p.0.min(q.0) && r.0 <= p.0.max(q.0) && r.1 >= p.1.min(q.1) && r.1 <= p.1.max(q.1)
    };
    ((d1 > 0.0) != (d2 > 0.0) && (d3 > 0.0) != (d4 > 0.0) && d1 != 0.0 && d2 != 0.0 && d3 != 0.0 && d4 != 0.0)
        || (d1 == 0.0 && on(c, d, a))
        || (d2 == 0.0 && on(c, d, b))
        || (d3 == 0.0 && on(a, b, c))
        || (d4 == 0.0 && on(a, b, d))
}

/// The points of a cubic Bézier curve from `p0` to `p3`, `n` segments' worth.
pub(crate) fn bezier(p0: (f64, f64), p1: (f64, f64), p2: (f64, f64), p3: (f64, f64), n: usize) -> Vec<(f64, f64)> {
    (0..=n)
        .map(|i| {
            let t = i as f64 / n as f64;
            let u = 1.0 - t;
            let (a, b, c, d) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
            (a * p0.0 + b * p1.0 + c * p2.0 + d * p3.0, a * p0.1 + b * p1.1 + c * p2.1 + d * p3.1)
        })
        .collect()
}

/// What a label must keep clear of: node boxes, edges (as polylines) and the labels already
/// placed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Obstacles {
    pub(crate) boxes: Vec<Rect>,
    pub(crate) lines: Vec<Vec<(f64, f64)>>,
}

/// The gap between a label and the point of its edge it names.
const GAP: f64 = 4.0;

impl Obstacles {
    /// Whether `r` is clear of every obstacle.
    pub(crate) fn free(&self, r: &Rect) -> bool {
        !self.boxes.iter().any(|b| b.overlaps(r))
            && !self.lines.iter().any(|l| l.windows(2).any(|s| r.meets_segment(s[0], s[1])))
    }

    /// The bounding box of every obstacle, `None` when there is none.
    fn extent(&self) -> Option<Rect> {
        let points = self.lines.iter().flatten().map(|&(x, y)| Rect::new(x, y, 0.0, 0.0));
        self.boxes.iter().copied().chain(points).reduce(|a, b| a.union(&b))
    }

    /// A box of `w` by `h` for the label of the edge through `points` (its polyline, start to
    /// end): beside a point near the edge's middle, on either side, at growing distances,
    /// the first spot clear of everything; else in the margin right of everything, level with
    /// the edge's middle. The box is added to the obstacles.
    pub(crate) fn place(&mut self, points: &[(f64, f64)], w: f64, h: f64) -> Rect {
        let n = points.len();
        let spot = if n == 0 { None } else { self.near(points, w, h) };
        let rect = spot.unwrap_or_else(|| {
            let mid = points.get(n / 2).copied().unwrap_or_default();
            let x = self.extent().map_or(mid.0, |e| e.right()) + 2.0 * GAP;
            let mut r = Rect::new(x, mid.1 - h / 2.0, w, h);
            while !self.free(&r) {
                r.y += h / 2.0;
            }
            r
        });
        self.boxes.push(rect);
        rect
    }

    /// A free spot beside a point of the polyline `points`, if one is near.
    fn near(&self, points: &[(f64, f64)], w: f64, h: f64) -> Option<Rect> {
        // Points every few pixels along the line, tried from its middle outwards.
        let mut along = vec![points[0]];
        for s in points.windows(2) {
            let steps = ((s[1].0 - s[0].0).hypot(s[1].1 - s[0].1) / 6.0).ceil().max(1.0) as usize;
            for k in 1..=steps {
                let t = k as f64 / steps as f64;
                along.push((s[0].0 + t * (s[1].0 - s[0].0), s[0].1 + t * (s[1].1 - s[0].1)));
            }
        }
        let points = along;
        let n = points.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (2 * i).abs_diff(n - 1));
        for distance in [GAP, 3.0 * GAP, 8.0 * GAP] {
            for &i in &order {
                let (x, y) = points[i];
                let candidates = [
                    Rect::new(x + distance, y - h / 2.0, w, h),
                    Rect::new(x - distance - w, y - h / 2.0, w, h),
                    Rect::new(x - w / 2.0, y - distance - h, w, h),
                    Rect::new(x - w / 2.0, y + distance, w, h),
                ];
                if let Some(r) = candidates.into_iter().find(|r| r.x >= 0.0 && r.y >= 0.0 && self.free(r)) {
                    return Some(r);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_keeps_clear_of_boxes_lines_and_other_labels() {
        // Two boxes joined by a vertical edge, and a second edge crossing it.
        let a = Rect::new(0.0, 0.0, 80.0, 20.0);
        let b = Rect::new(0.0, 100.0, 80.0, 20.0);
        let edge = vec![(40.0, 20.0), (40.0, 100.0)];
        let cross = vec![(0.0, 60.0), (120.0, 60.0)];
        let mut o = Obstacles { boxes: vec![a, b], lines: vec![edge.clone(), cross.clone()] };
        let first = o.place(&edge, 30.0, 12.0);
        let second = o.place(&edge, 30.0, 12.0);
        for r in [first, second] {
            assert!(!r.overlaps(&a) && !r.overlaps(&b), "{r:?}");
            assert!(![&edge, &cross].iter().any(|l| r.meets_segment(l[0], l[1])), "{r:?}");
        }
        assert!(!first.overlaps(&second));
        // Near its edge: within a few gaps of the line.
        assert!((first.x - 40.0).abs() < 3.0 * GAP + 30.0, "{first:?}");
    }

    #[test]
    fn a_crowded_label_goes_to_the_margin() {
        // The edge runs inside a box that covers everything near it.
        let wall = Rect::new(0.0, 0.0, 400.0, 400.0);
        let edge = vec![(100.0, 150.0), (100.0, 250.0)];
        let mut o = Obstacles { boxes: vec![wall], lines: vec![edge.clone()] };
        let r = o.place(&edge, 40.0, 12.0);
        assert!(r.x > 400.0 && !r.overlaps(&wall), "{r:?}");
        let s = o.place(&edge, 40.0, 12.0);
        assert!(!s.overlaps(&r) && s.x > 400.0, "{s:?}");
    }

    #[test]
    fn segments_and_boxes_meet_as_drawn() {
        let r = Rect::new(10.0, 10.0, 10.0, 10.0);
        assert!(r.meets_segment((0.0, 15.0), (30.0, 15.0)));
        assert!(!r.meets_segment((0.0, 0.0), (30.0, 5.0)));
        assert!(r.meets_segment((12.0, 12.0), (13.0, 13.0)));
        assert!(!r.meets_segment((0.0, 30.0), (30.0, 30.0)));
        let curve = bezier((0.0, 0.0), (0.0, 10.0), (10.0, 10.0), (10.0, 0.0), 4);
        assert_eq!(curve.first(), Some(&(0.0, 0.0)));
        assert_eq!(curve.last(), Some(&(10.0, 0.0)));
        assert!(curve[2].1 > 5.0);
    }
}
