//! Counterexamples of one assertion that are distinct in the threads their failure reads
//! through ([`Config::failures_per_assertion`](super::Config::failures_per_assertion)).

use std::collections::{BTreeMap, BTreeSet};

use paces_trace::{ThreadId, Trace};

use super::Counterexample;
use crate::error::Error;

/// How many failing states are looked at per further counterexample asked for.
pub(super) const MORE_LOOKED_AT: usize = 16;

impl Counterexample {
    /// The threads of the failure's data flow: the failing step's, and those of the writes
    /// it reads from, of the writes those read from, and so on. Two counterexamples of one
    /// assertion with different sets show the failure through different threads
    /// ([`Config::failures_per_assertion`](super::Config::failures_per_assertion)). Empty
    /// for a deadlock or livelock.
    pub fn flow_threads(&self) -> BTreeSet<ThreadId> {
        flow_threads(&self.trace)
    }
}

fn flow_threads(trace: &Trace) -> BTreeSet<ThreadId> {
    let mut threads = BTreeSet::new();
    let Some(failing) = trace.first_failure() else { return threads };
    let mut seen = vec![false; trace.len()];
    let mut work = vec![failing];
    while let Some(id) = work.pop() {
        if std::mem::replace(&mut seen[id.index()], true) {
            continue;
        }
        let event = trace.event(id);
        threads.insert(event.thread);
        work.extend(event.reads.iter().filter_map(|r| r.from));
    }
    threads
}

/// Up to `wanted` counterexamples among the witnesses of `states` (in their order) whose
/// failures' data flows run through other threads than `first`'s and each other's.
pub(super) fn distinct_failures<S>(
    first: &Counterexample,
    states: &[S],
    wanted: usize,
    witness: impl Fn(&S) -> Result<Counterexample, Error>,
) -> Result<Vec<Counterexample>, Error> {
    let mut out = Vec::new();
    if wanted == 0 || states.is_empty() {
        return Ok(out);
    }
    let mut seen = BTreeSet::from([flow_threads(&first.trace)]);
    for state in states {
        let cex = witness(state)?;
        if seen.insert(flow_threads(&cex.trace)) {
            out.push(cex);
            if out.len() == wanted {
                break;
            }
        }
    }
    Ok(out)
}

/// The failures a hunt met, per label: how many it looked at and the data flows' threads of
/// those it kept.
pub(super) struct Distinct {
    per_label: usize,
    labels: BTreeMap<String, (usize, BTreeSet<BTreeSet<ThreadId>>)>,
    first: Option<String>,
}

impl Distinct {
    /// Up to `per_label` counterexamples per label.
    pub(super) fn new(per_label: usize) -> Self {
        Distinct { per_label: per_label.max(1), labels: BTreeMap::new(), first: None }
    }

    /// Whether a failure of `label` is looked at: the first always, then at most
    /// [`MORE_LOOKED_AT`] per further counterexample asked for.
    pub(super) fn looks_at(&mut self, label: &str) -> bool {
        let limit = 1 + MORE_LOOKED_AT * (self.per_label - 1);
        let entry = self.labels.entry(label.to_owned()).or_default();
        let keep = entry.0 < limit && entry.1.len() < self.per_label;
        entry.0 += 1;
        keep
    }

    /// Whether `cex`, a failure of `label`, runs through other threads than those kept.
    pub(super) fn is_new(&mut self, label: &str, cex: &Counterexample) -> bool {
        self.first.get_or_insert_with(|| label.to_owned());
        let entry = self.labels.entry(label.to_owned()).or_default();
        entry.1.insert(flow_threads(&cex.trace))
    }

    /// Whether the hunt may stop: it has the counterexamples asked for of the first failing
    /// label (a hunt for one stops at the first failure).
    pub(super) fn enough(&self) -> bool {
        let Some(first) = &self.first else { return false };
        self.labels.get(first).is_some_and(|(looked, kept)| {
            kept.len() >= self.per_label || *looked > MORE_LOOKED_AT * (self.per_label - 1)
        })
    }
}
