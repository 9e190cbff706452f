//! What a running repair tells the observer of [`Repair::on_event`](super::Repair::on_event).

use std::fmt;
use std::sync::Arc;

use paces_explore::Progress;

use super::report::Iteration;

/// Something a running repair reports to the observer of
/// [`Repair::on_event`](super::Repair::on_event), as it happens.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RepairEvent {
    /// A check of the loop is running (reported as [`Config::on_progress`] reports it, a
    /// few times a second, so a short check reports nothing).
    ///
    /// [`Config::on_progress`]: paces_explore::Config::on_progress
    #[non_exhaustive]
    Progress {
        /// The iterations ended before this check: 0 while the original program is judged,
        /// `n` while the candidate iteration `n` proposed is judged (and in the optimisation
        /// phase, the loop's last).
        iteration: usize,
        /// How far the check has come.
        progress: Progress,
    },
    /// An iteration ended: what it learned from and the candidate it proposed.
    #[non_exhaustive]
    IterationEnded {
        /// Its number (1 for the first), its place in [`Report::history`](super::Report::history).
        iteration: usize,
        /// The record [`Report::history`](super::Report::history) keeps of it.
        record: Box<Iteration>,
    },
}

/// The observer of [`Repair::on_event`](super::Repair::on_event), shared by the clones of a
/// configuration.
#[derive(Clone)]
pub(super) struct Observer(Arc<dyn Fn(&RepairEvent) + Send + Sync>);

impl Observer {
    pub(super) fn new(observer: impl Fn(&RepairEvent) + Send + Sync + 'static) -> Self {
        Observer(Arc::new(observer))
    }

    pub(super) fn tell(&self, event: &RepairEvent) {
        (self.0)(event);
    }

    /// The checker's configuration with its progress reported to this observer as the
    /// progress of a check made after `iteration` iterations.
    pub(super) fn watch(&self, config: paces_explore::Config, iteration: usize) -> paces_explore::Config {
        let observer = self.clone();
        config.on_progress(move |p| observer.tell(&RepairEvent::Progress { iteration, progress: *p }))
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer(set)")
    }
}
