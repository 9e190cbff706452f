//! Progress reports of a running check: what [`Config::on_progress`](crate::Config::on_progress)
//! receives, and the throttle that decides when.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How far a running [`check`](crate::check) has come, passed to the callback of
/// [`Config::on_progress`](crate::Config::on_progress).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// States stored so far (by every search of the check: see
    /// [`Config::unmerged_states`](crate::Config::unmerged_states),
    /// [`Config::unreduced_states`](crate::Config::unreduced_states) and
    /// [`Config::hunt_states`](crate::Config::hunt_states)).
    pub states: usize,
    /// Transitions executed so far (likewise).
    pub transitions: u64,
    /// The breadth-first level being expanded (by the search running: a later search starts
    /// again at 0); in the bug hunt ([`Config::hunt_states`](crate::Config::hunt_states)), the
    /// depth of the state it expands.
    pub depth: usize,
    /// Time since the check started.
    pub elapsed: Duration,
    /// Bytes the stored states and their parent links take (what
    /// [`Config::max_memory`](crate::Config::max_memory) bounds), in the search running.
    pub memory: usize,
}

impl Progress {
    /// States stored per second of [`Progress::elapsed`] (0 before any time has passed).
    pub fn states_per_second(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.states as f64 / secs
        } else {
            0.0
        }
    }
}

/// The callback of [`Config::on_progress`](crate::Config::on_progress), shared by the clones
/// of a configuration.
#[derive(Clone)]
pub(crate) struct ProgressCallback(pub(crate) Arc<dyn Fn(&Progress) + Send + Sync>);

impl fmt::Debug for ProgressCallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressCallback(set)")
    }
}

/// Calls a check's progress callback between batches, at most once per interval.
pub(crate) struct Ticker<'a> {
    callback: Option<&'a ProgressCallback>,
    every: Duration,
    last: Instant,
}

impl<'a> Ticker<'a> {
    /// A ticker for a check that started at `start`; the first report comes `every` after it.
    pub(crate) fn new(callback: Option<&'a ProgressCallback>, every: Duration, start: Instant) -> Self {
        Ticker { callback, every, last: start }
    }

    /// Calls the callback with `progress()` when one is set and the interval has passed
    /// since the last report (or the start).
    pub(crate) fn tick(&mut self, progress: impl FnOnce() -> Progress) {
        let Some(callback) = self.callback else { return };
        let now = Instant::now();
        if now.duration_since(self.last) >= self.every {
            self.last = now;
            (callback.0)(&progress());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn sample() -> Progress {
        Progress { states: 10, transitions: 20, depth: 3, elapsed: Duration::from_secs(2), memory: 100 }
    }

    fn counting() -> (Arc<AtomicUsize>, ProgressCallback) {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = calls.clone();
        let callback = ProgressCallback(Arc::new(move |_: &Progress| {
            seen.fetch_add(1, Ordering::SeqCst);
        }));
        (calls, callback)
    }

    #[test]
    fn a_zero_interval_reports_every_tick() {
        let (calls, callback) = counting();
        let mut ticker = Ticker::new(Some(&callback), Duration::ZERO, Instant::now());
        for _ in 0..3 {
            ticker.tick(sample);
        }
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_long_interval_holds_reports_back() {
        let (calls, callback) = counting();
        let mut ticker = Ticker::new(Some(&callback), Duration::from_secs(3600), Instant::now());
        ticker.tick(|| panic!("the progress is not computed when no report is due"));
        assert_eq!(calls.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn states_per_second_divides_by_the_elapsed_time() {
        assert_eq!(sample().states_per_second(), 5.0);
        let at_start = Progress { elapsed: Duration::ZERO, ..sample() };
        assert_eq!(at_start.states_per_second(), 0.0);
    }

    #[test]
    fn the_callback_debug_text_hides_the_closure() {
        let (_, callback) = counting();
        assert_eq!(format!("{callback:?}"), "ProgressCallback(set)");
    }
}
