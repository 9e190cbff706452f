//! serde support (the `serde` feature). A [`Trace`] is written as
//! `{"events": [...], "blocked": [...], "pending": [...], "locals": [v, ...], "stops_short": bool}`
//! (`locals`: the variables declared local, see [`TraceBuilder::local`]; `stops_short`, written
//! only when true: see [`Trace::stops_short`]) and read back through a
//! [`TraceBuilder`], so a trace read from JSON is checked like one built in code. An event is
//! `{"thread": t, "loc": l, "scope": [{"block": b, "instance": i, "item": l}, ...],
//! "kind": "plain" | "assume" | "await" | "assert", "failed": bool, "reads": [...],
//! "writes": [{"var": v, "value": n}, ...]}`; `kind`, `failed`, `reads` and `writes` may be
//! left out (a plain step that did not fail and touches nothing). A read is
//! `{"var": v, "from": e}` (`from` an earlier event, or `null` for the initial state) or just
//! the variable `v`, which reads the latest write (resolved when read back).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use paces_constraint::{BlockId, Loc};

use crate::{BlockInstance, Event, EventId, EventKind, ScopeEntry, ThreadId, Trace, TraceBuilder, VarId};

paces_constraint::serde_ids!(EventId, VarId);

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceWire {
    events: Vec<EventWire>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    blocked: Vec<EventWire>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pending: Vec<EventWire>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    locals: Vec<VarId>,
    #[serde(default, skip_serializing_if = "is_false")]
    stops_short: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventWire {
    thread: ThreadId,
    loc: Loc,
    scope: Vec<ScopeWire>,
    #[serde(default = "plain")]
    kind: EventKind,
    #[serde(default)]
    failed: bool,
    #[serde(default)]
    reads: Vec<ReadWire>,
    #[serde(default)]
    writes: Vec<WriteWire>,
}

fn plain() -> EventKind {
    EventKind::Plain
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScopeWire {
    block: BlockId,
    instance: u32,
    item: Loc,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum ReadWire {
    /// Reads the latest write of the variable.
    Latest(VarId),
    /// Reads from the given event (`None`: the initial state).
    From { var: VarId, from: Option<EventId> },
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteWire {
    var: VarId,
    value: i64,
}

impl EventWire {
    fn of(e: &Event) -> EventWire {
        EventWire {
            thread: e.thread,
            loc: e.loc,
            scope: e
                .scope
                .iter()
                .map(|s| ScopeWire { block: s.instance.block, instance: s.instance.instance, item: s.item })
                .collect(),
            kind: e.kind,
            failed: e.failed,
            reads: e.reads.iter().map(|r| ReadWire::From { var: r.var, from: r.from }).collect(),
            writes: e.writes.iter().map(|w| WriteWire { var: w.var, value: w.value }).collect(),
        }
    }

    fn scope(&self) -> Vec<ScopeEntry> {
        let instance = |s: &ScopeWire| BlockInstance { block: s.block, instance: s.instance };
        self.scope.iter().map(|s| ScopeEntry { instance: instance(s), item: s.item }).collect()
    }
}

impl Serialize for Trace {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        TraceWire {
            events: self.events().iter().map(EventWire::of).collect(),
            blocked: self.blocked().iter().map(EventWire::of).collect(),
            pending: self.pending().iter().map(EventWire::of).collect(),
            locals: self.locals().to_vec(),
            stops_short: self.stops_short(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Trace {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = TraceWire::deserialize(deserializer)?;
        build(&wire).map_err(|e| D::Error::custom(format!("not a valid trace: {e}")))
    }
}

/// Where an event of the wire form goes.
#[derive(Clone, Copy)]
enum Part {
    Events,
    Blocked,
    Pending,
}

/// The trace a wire form describes, through the builder's checks.
fn build(wire: &TraceWire) -> Result<Trace, crate::Error> {
    let mut b = TraceBuilder::new();
    for &var in &wire.locals {
        b.local(var);
    }
    if wire.stops_short {
        b.stops_short();
    }
    let parts = [(Part::Events, &wire.events), (Part::Blocked, &wire.blocked), (Part::Pending, &wire.pending)];
    for (part, events) in parts {
        for e in events {
            let mut step = b.step(e.thread, e.loc, e.scope()).kind(e.kind).failed(e.failed);
            for read in &e.reads {
                step = match *read {
                    ReadWire::Latest(var) => step.read(var),
                    ReadWire::From { var, from } => step.read_from(var, from),
                };
            }
            for w in &e.writes {
                step = step.write(w.var, w.value);
            }
            match part {
                Part::Events => {
                    step.push()?;
                }
                Part::Blocked => step.push_blocked()?,
                Part::Pending => step.push_pending(),
            }
        }
    }
    Ok(b.finish())
}

impl Serialize for EventKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            EventKind::Plain => "plain",
            EventKind::Assume => "assume",
            EventKind::Await => "await",
            EventKind::Assert => "assert",
        })
    }
}

impl<'de> Deserialize<'de> for EventKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match String::deserialize(deserializer)?.as_str() {
            "plain" => Ok(EventKind::Plain),
            "assume" => Ok(EventKind::Assume),
            "await" => Ok(EventKind::Await),
            "assert" => Ok(EventKind::Assert),
            other => Err(D::Error::custom(format!("unknown event kind `{other}` (plain, assume, await, assert)"))),
        }
    }
}
