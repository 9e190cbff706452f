//! All the glue between the toy language and `paces-learn`: the space, candidates as the
//! toy's schedules, runs as traces, and the loop through the crate's driver.

use std::collections::BTreeMap;

use paces_learn::constraint::{Candidate, ItemInfo, Space, SpaceBuilder};
use paces_learn::trace::{EventKind, ThreadId, Trace, TraceBuilder, VarId};
use paces_learn::{LearnerConfig, Report, Runner, Verdict};

use crate::toy::{self, Op, Program, Schedule, Step};

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// A block per thread; statements that conflict keep their order.
pub fn space(p: &Program) -> Result<Space> {
    let mut b = SpaceBuilder::new();
    for (name, stmts) in &p.threads {
        let (block, mut locs) = (b.open_block(), Vec::new());
        for (i, s) in stmts.iter().enumerate() {
            let info = if matches!(s.op, Op::Await(..)) { ItemInfo::AWAIT } else { ItemInfo::SIMPLE };
            let loc = b.add_item(block, &s.label, info)?;
            for j in (0..i).filter(|&j| stmts[j].conflicts(s)) {
                b.fix(locs[j], loc)?;
            }
            locs.push(loc);
        }
        b.thread(name, block)?;
    }
    Ok(b.build()?)
}

/// A candidate as the toy's schedule: each thread's statements in the candidate's order, a
/// section one unit.
fn schedule(p: &Program, space: &Space, c: &Candidate) -> Schedule {
    let unit = |t: usize| {
        let order = c.order(space.thread(ThreadId::from_u32(t as u32)).expect("a declared thread").1);
        let mut units: Vec<Vec<usize>> = Vec::new();
        for (i, &loc) in order.iter().enumerate() {
            let index = space.item_position(loc).expect("an item").1;
            match units.last_mut() {
                Some(unit) if c.in_one_section(order[i - 1], loc) => unit.push(index),
                _ => units.push(vec![index]),
            }
        }
        units
    };
    (0..p.threads.len()).map(unit).collect()
}

/// A run of the toy's checker as a trace: registers are locals of their thread; `finally`
/// is the trace's final check.
fn trace(space: &Space, run: &[Step]) -> Result<Trace> {
    let (mut tb, mut ids) = (TraceBuilder::for_space(space), BTreeMap::new());
    for step in run {
        let mut var = |name: &String| {
            let next = VarId::from_u32(ids.len() as u32);
            let var = *ids.entry(name.clone()).or_insert(next);
            if toy::is_register(name) {
                tb.local(var);
            }
            var
        };
        let reads: Vec<VarId> = step.reads.iter().map(&mut var).collect();
        let write = step.write.as_ref().map(|(name, value)| (var(name), *value));
        let kind = [EventKind::Plain, EventKind::Await, EventKind::Assert][step.kind as usize];
        let event = match space.loc(&step.label) {
            Some(loc) => tb.flat(ThreadId::from_u32(step.thread as u32), loc).kind(kind),
            None => tb.final_check(), // `finally`, the one label that is no statement's
        };
        let mut event = reads.into_iter().fold(event.failed(step.failed), |event, v| event.read(v));
        if let Some((v, value)) = write {
            event = event.write(v, value);
        }
        event.push()?;
    }
    Ok(tb.finish())
}

/// Repairs `p` through the driver, in its default configuration; good traces are the original
/// program's.
pub fn repair(p: &Program) -> Result<(Space, Report)> {
    let space = space(p)?;
    let report = Runner::new(&space, LearnerConfig::new())?.run(|c| {
        let found = toy::check(p, &schedule(p, &space, c));
        let good = match (c.is_original(&space), &found.good) {
            (true, Some(run)) => vec![trace(&space, run)?],
            _ => Vec::new(),
        };
        Ok(match found.bad {
            Some(run) => Verdict::wrong(vec![trace(&space, &run)?], good),
            None => Verdict::correct(good),
        })
    })?;
    Ok((space, report))
}
