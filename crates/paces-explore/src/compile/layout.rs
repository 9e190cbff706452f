//! Where each program variable lives: a global index or a slot of a thread's locals (every
//! thread has its own copy of its locals and of every procedure's locals), and the trace
//! variable ([`VarId`]) of each slot.

use paces_cwhile::ir::{Program, VarIdx, VarScope};
use paces_trace::VarId;
use rustc_hash::FxHashMap;

use crate::error::{Error, ErrorKind};

/// Where a variable lives in the state: a global index or a slot of the thread's locals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum VarRef {
    Global(u32),
    Local(u32),
}

/// How program variables map to state slots and to trace [`VarId`]s.
#[derive(Clone, Debug)]
pub(crate) struct VarLayout {
    pub n_globals: usize,
    /// For each thread: the first `VarId` of its locals.
    pub local_base: Vec<u32>,
    /// For each thread: the number of local slots (own locals, then every procedure's).
    pub local_len: Vec<u32>,
    /// For each thread: the number of its own locals.
    pub own_len: Vec<u32>,
    /// Slot of each thread-local variable (by `VarIdx`) within its thread.
    pub thread_slot: FxHashMap<VarIdx, (usize, u32)>,
    /// Slot offset of each procedure's locals within any thread (after the thread's own).
    pub proc_base: Vec<u32>,
    /// Slot of each procedure-local variable within its procedure's part.
    pub proc_slot: FxHashMap<VarIdx, u32>,
    /// Names for `var_name`: per `VarId`.
    pub names: Vec<String>,
}

impl VarLayout {
    pub(crate) fn new(program: &Program) -> Result<Self, Error> {
        let n_globals = program.vars.iter().take_while(|v| v.scope == VarScope::Global).count();
        if program.vars[n_globals..].iter().any(|v| v.scope == VarScope::Global) {
            return Err(Error::new(ErrorKind::InvalidProgram, "globals must come first in the variable list"));
        }
        let mut thread_locals: Vec<Vec<VarIdx>> = vec![Vec::new(); program.threads.len()];
        let mut proc_locals: Vec<Vec<VarIdx>> = vec![Vec::new(); program.procs.len()];
        for (i, v) in program.vars.iter().enumerate() {
            let idx = VarIdx::new(i).ok_or_else(|| Error::new(ErrorKind::TooLarge, "too many variables"))?;
            match v.scope {
                VarScope::Global => {}
                VarScope::Thread(t) => thread_locals
                    .get_mut(t.index())
                    .ok_or_else(|| {
                        Error::new(ErrorKind::InvalidProgram, format!("variable {} of unknown thread", v.name))
                    })?
                    .push(idx),
                VarScope::Proc(p) => proc_locals
                    .get_mut(p.index())
                    .ok_or_else(|| {
                        Error::new(ErrorKind::InvalidProgram, format!("variable {} of unknown procedure", v.name))
                    })?
                    .push(idx),
            }
        }
        let mut proc_base = Vec::new();
        let mut proc_slot = FxHashMap::default();
        let mut acc = 0u32;
        for locals in &proc_locals {
            proc_base.push(acc);
            for (k, &v) in locals.iter().enumerate() {
                proc_slot.insert(v, k as u32);
            }
            acc += locals.len() as u32;
        }
        let proc_total = acc;
        let mut names: Vec<String> = program.vars[..n_globals].iter().map(|v| v.name.clone()).collect();
        let mut local_base = Vec::new();
        let mut local_len = Vec::new();
        let mut own_len = Vec::new();
        let mut thread_slot = FxHashMap::default();
        for (t, locals) in thread_locals.iter().enumerate() {
            local_base.push(names.len() as u32);
            local_len.push(locals.len() as u32 + proc_total);
            own_len.push(locals.len() as u32);
            let tname = &program.threads[t].name;
            for (k, &v) in locals.iter().enumerate() {
                thread_slot.insert(v, (t, k as u32));
                names.push(format!("{tname}.{}", program.vars[v.index()].name));
            }
            for (p, pl) in proc_locals.iter().enumerate() {
                for &v in pl {
                    names.push(format!("{tname}.{}.{}", program.procs[p].name, program.vars[v.index()].name));
                }
            }
        }
        Ok(VarLayout { n_globals, local_base, local_len, own_len, thread_slot, proc_base, proc_slot, names })
    }

    /// The slot of `var` as seen from thread `t`.
    pub(crate) fn var_ref(&self, program: &Program, t: usize, var: VarIdx) -> Option<VarRef> {
        let v = program.vars.get(var.index())?;
        match v.scope {
            VarScope::Global => Some(VarRef::Global(var.as_u32())),
            VarScope::Thread(_) => {
                let &(owner, slot) = self.thread_slot.get(&var)?;
                (owner == t).then_some(VarRef::Local(slot))
            }
            VarScope::Proc(p) => {
                let own = *self.own_len.get(t)?;
                Some(VarRef::Local(own + self.proc_base.get(p.index())? + self.proc_slot.get(&var)?))
            }
        }
    }

    /// The trace variable of a slot of thread `t`.
    pub(crate) fn var_id(&self, t: usize, r: VarRef) -> VarId {
        match r {
            VarRef::Global(g) => VarId::from_u32(g),
            VarRef::Local(l) => VarId::from_u32(self.local_base[t] + l),
        }
    }
}
