//! How the options of a thread that enter atomic regions stop, gathered region by region
//! while a state is expanded.

/// How the options of one thread that enter atomic regions stop, region by region: a region
/// that no path gets through makes its thread wait before it when some path stopped at a
/// false `await` or `assume`, and cuts it when every path was cut by the loop bound.
#[derive(Clone, Debug, Default)]
pub(super) struct RegionStops {
    /// Per region entered: the region and whether some path was cut.
    regions: Vec<(u32, bool)>,
    /// The waiting options, with their region.
    waits: Vec<(u32, u16)>,
}

impl RegionStops {
    pub(super) fn clear(&mut self) {
        self.regions.clear();
        self.waits.clear();
    }

    fn entry(&mut self, r: u32) -> &mut (u32, bool) {
        let k = match self.regions.iter().position(|e| e.0 == r) {
            Some(k) => k,
            None => {
                self.regions.push((r, false));
                self.regions.len() - 1
            }
        };
        &mut self.regions[k]
    }

    /// Option `opt` waits (for a step outside regions: at once into `blocked`).
    pub(super) fn wait(&mut self, region: Option<u32>, opt: u16, blocked: &mut Vec<u16>) {
        match region {
            Some(r) => {
                self.entry(r);
                self.waits.push((r, opt));
            }
            None => blocked.push(opt),
        }
    }

    /// An option is cut (for a step outside regions: at once into `cut`).
    pub(super) fn cut(&mut self, region: Option<u32>, cut: &mut bool) {
        match region {
            Some(r) => self.entry(r).1 = true,
            None => *cut = true,
        }
    }

    /// Hands each region's verdict to the thread: its waiting options (appended to the
    /// thread's blocking options, `blocked[from..]`, which end sorted), or a cut.
    pub(super) fn settle(&self, blocked: &mut Vec<u16>, from: usize, cut: &mut bool) {
        for &(r, was_cut) in &self.regions {
            let before = blocked.len();
            blocked.extend(self.waits.iter().filter(|w| w.0 == r).map(|w| w.1));
            if blocked.len() == before && was_cut {
                *cut = true;
            }
        }
        blocked[from..].sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_stops_wait_when_some_option_waits_and_cut_otherwise() {
        let mut stops = RegionStops::default();
        let (mut blocked, mut cut) = (vec![9, 4], false);
        stops.wait(Some(1), 3, &mut blocked);
        stops.cut(Some(1), &mut cut);
        stops.wait(None, 2, &mut blocked);
        stops.cut(Some(5), &mut cut);
        assert!(!cut, "cuts inside regions wait for the settlement");
        stops.settle(&mut blocked, 1, &mut cut);
        assert_eq!(blocked, [9, 2, 3, 4], "the thread's own options end sorted");
        assert!(cut, "region 5 had no waiting option");
        stops.clear();
        let (mut blocked, mut cut) = (Vec::new(), false);
        stops.wait(Some(1), 0, &mut blocked);
        stops.settle(&mut blocked, 0, &mut cut);
        assert_eq!((blocked, cut), (vec![0], false));
    }
}
