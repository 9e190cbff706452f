//! The incremental solver: constraints in, cheapest candidates (or conflicts) out.

use std::fmt;
use std::time::Instant;

use paces_constraint::{Arena, Candidate, Cost, Loc, NodeId, Space, Transformation};
use rustc_hash::FxHashMap;
use rustsat::encodings::card::{BoundUpper as _, BoundUpperIncremental as _, Totalizer};
use rustsat::encodings::pb::{BoundUpper as _, BoundUpperIncremental as _, GeneralizedTotalizer};
use rustsat::instances::{Cnf, ManageVars as _};
use rustsat::types::{Lit, Var};

use crate::encode::{estimate_clauses, Encoder, Val};
use crate::{backend, Error, ErrorKind, SolverConfig};

paces_constraint::define_id!(
    /// A constraint added to a [`Solver`], numbered in the order of [`Solver::add`].
    ConstraintId,
    "c"
);

/// One cheapest candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The candidate program.
    pub candidate: Candidate,
    /// Its cost (the minimum over all candidates satisfying the constraints).
    pub cost: Cost,
    /// The transformations leading from the original program to it.
    pub transformations: Vec<Transformation>,
}

impl Solution {
    fn new(space: &Space, candidate: Candidate) -> Solution {
        let cost = candidate.cost(space);
        let transformations = candidate.transformations(space);
        Solution { candidate, cost, transformations }
    }

    /// Displays the transformations, one per line (`swap A <-> B`, `atomic [A; B]`), or
    /// `(the original program)` when there are none.
    pub fn display<'a>(&'a self, space: &'a Space) -> impl fmt::Display + 'a {
        DisplaySolution { solution: self, space }
    }
}

struct DisplaySolution<'a> {
    solution: &'a Solution,
    space: &'a Space,
}

impl fmt::Display for DisplaySolution<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.solution.transformations.is_empty() {
            return f.write_str("(the original program)");
        }
        for (k, t) in self.solution.transformations.iter().enumerate() {
            if k > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{}", t.display(self.space))?;
        }
        Ok(())
    }
}

/// One constraint taking part in a conflict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The constraint.
    pub id: ConstraintId,
    /// The name it was added under.
    pub name: String,
    /// The constraint in the paper's notation (cut after 120 characters).
    pub text: String,
}

/// The constraints admit no candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsat {
    /// A set of added constraints that no candidate satisfies together, by id. When core
    /// minimisation is on (the default), dropping any one of them makes the rest satisfiable.
    pub conflict: Vec<Conflict>,
    /// The conflict in words, one constraint per line.
    pub explanation: String,
}

/// The answer of [`Solver::solve`]: a solution or a conflict, nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A cheapest candidate satisfying every added constraint.
    Solution(Solution),
    /// No candidate satisfies the added constraints together.
    Unsat(Unsat),
}

impl Outcome {
    /// The solution, if there is one.
    pub fn solution(&self) -> Option<&Solution> {
        match self {
            Outcome::Solution(s) => Some(s),
            Outcome::Unsat(_) => None,
        }
    }

    /// The solution, taken out, if there is one.
    pub fn into_solution(self) -> Option<Solution> {
        match self {
            Outcome::Solution(s) => Some(s),
            Outcome::Unsat(_) => None,
        }
    }

    /// The conflict, if no candidate satisfies the constraints.
    pub fn unsat(&self) -> Option<&Unsat> {
        match self {
            Outcome::Solution(_) => None,
            Outcome::Unsat(u) => Some(u),
        }
    }

    /// The conflict, taken out, if no candidate satisfies the constraints.
    pub fn into_unsat(self) -> Option<Unsat> {
        match self {
            Outcome::Solution(_) => None,
            Outcome::Unsat(u) => Some(u),
        }
    }
}

/// What a solver holds and did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SolverStats {
    /// Variables of the encoding.
    pub vars: u32,
    /// Clauses given to the backend.
    pub clauses: u64,
    /// Constraints added and not retracted.
    pub constraints: usize,
    /// Arena nodes encoded (each at most once).
    pub encoded_nodes: usize,
    /// Calls to the backend.
    pub sat_calls: u64,
}

struct Entry {
    name: String,
    text: String,
    act: Lit,
    /// False once retracted.
    active: bool,
}

/// The cost of a first model past which a component's search starts from a lower bound
/// found by disjoint cores ([`Solver::lower_bound`]).
const CORE_BOUND_ABOVE: u64 = 32;

/// Which cost component a bound talks about.
#[derive(Clone, Copy)]
enum Component {
    Weight,
    Inversions,
}

impl Component {
    fn of(self, cost: Cost) -> u64 {
        match self {
            Component::Weight => cost.atomic_weight,
            Component::Inversions => cost.inversions,
        }
    }
}

/// The SAT facade: encodes a [`Space`] once, takes constraints one by one, and answers with
/// the cheapest candidate satisfying all of them (or the constraints that conflict).
///
/// Clauses are only ever added: each constraint is guarded by an activation literal assumed
/// true in every call, and cost bounds are assumptions on totalizer outputs, so one backend
/// instance (and everything it learned) serves the whole repair loop.
///
/// All constraints of one solver must come from one [`Arena`] (which only grows): the
/// solver remembers the encoding of every node by its id.
pub struct Solver {
    space: Space,
    config: SolverConfig,
    enc: Encoder,
    constraints: Vec<Entry>,
    weight: GeneralizedTotalizer,
    inversions: Totalizer,
    sat_calls: u64,
    deadline: Option<Instant>,
}

impl fmt::Debug for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Solver").field("config", &self.config).field("stats", &self.stats()).finish_non_exhaustive()
    }
}

impl Solver {
    /// Encodes the space.
    ///
    /// # Errors
    /// [`ErrorKind::BackendUnavailable`] when the configured backend is not compiled in;
    /// [`ErrorKind::SpaceTooLarge`] when the encoding would exceed
    /// [`SolverConfig::max_clauses`].
    pub fn new(space: &Space, config: SolverConfig) -> Result<Solver, Error> {
        let estimate = estimate_clauses(space, config.get_lazy_above());
        if estimate > config.get_max_clauses() {
            return Err(Error::new(
                ErrorKind::SpaceTooLarge,
                format!(
                    "encoding the space takes up to {estimate} clauses, more than the limit of {} (see SolverConfig::max_clauses)",
                    config.get_max_clauses()
                ),
            ));
        }
        let backend = backend::make(config.get_backend())?;
        let enc = Encoder::new(space, backend, config.get_lazy_above())?;
        let weight = enc.weight_lits.iter().copied().collect();
        let inversions = enc.inversion_lits.iter().copied().collect();
        Ok(Solver {
            space: space.clone(),
            config,
            enc,
            constraints: Vec::new(),
            weight,
            inversions,
            sat_calls: 0,
            deadline: None,
        })
    }

    /// The space this solver was made for.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The configuration.
    pub fn config(&self) -> &SolverConfig {
        &self.config
    }

    /// Size and work counters.
    pub fn stats(&self) -> SolverStats {
        SolverStats {
            vars: self.enc.vars.n_used(),
            clauses: self.enc.clauses,
            constraints: self.constraints.iter().filter(|c| c.active).count(),
            encoded_nodes: self.enc.encoded_nodes,
            sat_calls: self.sat_calls,
        }
    }

    /// Adds the constraint `constraint` of `arena`; `name` says where it came from (a trace,
    /// a fix) and is how an unsatisfiable answer refers to it.
    ///
    /// Nodes shared with constraints added before are not encoded again.
    ///
    /// # Errors
    /// [`ErrorKind::UnknownNode`] when the node is not in the arena, or the arena is smaller
    /// than one passed before.
    pub fn add(&mut self, arena: &Arena, constraint: NodeId, name: &str) -> Result<ConstraintId, Error> {
        let id = ConstraintId::new(self.constraints.len())
            .ok_or_else(|| Error::new(ErrorKind::UnknownNode, "too many constraints"))?;
        let root = self.enc.constraint(&self.space, arena, constraint)?;
        let act = self.enc.new_lit();
        self.enc.clause(&[Val::Lit(!act), root])?;
        let text = arena.display(constraint, &self.space, 120).to_string();
        self.constraints.push(Entry { name: name.to_owned(), text, act, active: true });
        Ok(id)
    }

    /// Takes back a constraint added before: later answers ignore it (its activation literal
    /// is fixed to false, so the clauses stay but no longer bind). Retracting twice is fine.
    ///
    /// # Errors
    /// [`ErrorKind::UnknownNode`] when no constraint has this id; a backend failure.
    pub fn retract(&mut self, id: ConstraintId) -> Result<(), Error> {
        let entry = self
            .constraints
            .get_mut(id.index())
            .ok_or_else(|| Error::new(ErrorKind::UnknownNode, format!("no constraint {id} was added")))?;
        if entry.active {
            entry.active = false;
            let act = entry.act;
            self.enc.lits_clause(&[!act])?;
        }
        Ok(())
    }

    fn active_lits(&self) -> Vec<Lit> {
        self.constraints.iter().filter(|c| c.active).map(|c| c.act).collect()
    }

    /// The cheapest candidate satisfying every added constraint, or the constraints that
    /// conflict.
    ///
    /// # Errors
    /// A backend failure, or [`ErrorKind::Internal`] if a model does not decode.
    pub fn solve(&mut self) -> Result<Outcome, Error> {
        let base = self.active_lits();
        match self.optimize(base.clone())? {
            Some(solution) => Ok(Outcome::Solution(solution)),
            None => Ok(Outcome::Unsat(self.explain(&base)?)),
        }
    }

    /// The `k` cheapest distinct candidates satisfying every added constraint, cheapest
    /// first (ties in a deterministic but unspecified order); fewer when there are fewer,
    /// none when the constraints conflict ([`Solver::solve`] says why).
    ///
    /// The clauses that exclude the candidates already found are switched off afterwards,
    /// so later calls see every candidate again.
    ///
    /// # Errors
    /// As for [`Solver::solve`].
    pub fn k_best(&mut self, k: usize) -> Result<Vec<Solution>, Error> {
        let mut out = Vec::new();
        if k == 0 {
            return Ok(out);
        }
        let guard = self.enc.new_lit();
        let mut base = self.active_lits();
        base.push(guard);
        let result = (|| {
            while out.len() < k {
                let Some(solution) = self.optimize(base.clone())? else { break };
                self.block(guard, &solution.candidate)?;
                out.push(solution);
            }
            Ok::<(), Error>(())
        })();
        // Release the blocking clauses for good, whatever happened above.
        self.enc.lits_clause(&[!guard])?;
        result.map(|()| out)
    }

    /// Adds `guard -> (the model differs from this candidate)`: an inverted pair, the `sec`
    /// of two neighbours in the candidate's order, or an item alone in a section differs.
    /// Within one order the neighbours' `sec` decide the sections, so this is exact.
    fn block(&mut self, guard: Lit, candidate: &Candidate) -> Result<(), Error> {
        let mut clause = vec![!guard];
        for block in 0..self.enc.blocks.len() {
            let b = &self.enc.blocks[block];
            let items = b.items.clone();
            let pos = |l: Loc| candidate.position(l).unwrap_or(usize::MAX);
            for (i, j, l) in b.inversions() {
                clause.push(if pos(items[j]) < pos(items[i]) { !l } else { l });
            }
            let index: FxHashMap<Loc, usize> = items.iter().enumerate().map(|(i, l)| (*l, i)).collect();
            let mut order = items.clone();
            order.sort_by_key(|&l| pos(l));
            for pair in order.windows(2) {
                let (x, y) = (index[&pair[0]], index[&pair[1]]);
                if let Val::Lit(l) = self.enc.sec_var(block, x, y)? {
                    clause.push(if candidate.in_one_section(pair[0], pair[1]) { !l } else { l });
                }
            }
            let b = &self.enc.blocks[block];
            for (i, &a) in items.iter().enumerate() {
                if let Val::Lit(l) = b.one(i) {
                    let alone = candidate.section_of(a).is_some_and(|s| s.first == s.last);
                    clause.push(if alone { !l } else { l });
                }
            }
        }
        self.enc.lits_clause(&clause)
    }

    /// Makes every later answer stop with [`ErrorKind::Deadline`] once `deadline` passes (the
    /// backend is asked to stop, and no new call starts after it); `None` lifts it. The
    /// solver stays usable after such a stop: everything added stays, and a later call with a
    /// later deadline resumes the search.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
        self.enc.backend.set_deadline(deadline);
    }

    fn sat(&mut self, assumptions: &[Lit]) -> Result<bool, Error> {
        if let Some(max) = self.enc.max_var() {
            self.enc.backend.reserve(max)?;
        }
        // Blocks too large for all their per-triple clauses up front get the ones a model
        // violates, until a model violates none (counter-example guided refinement). Every
        // added clause holds for all candidates, so an unsatisfiable answer stays final.
        loop {
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::new(ErrorKind::Deadline, "the deadline passed before the search ended"));
            }
            self.sat_calls += 1;
            if !self.enc.backend.solve(assumptions)? {
                return Ok(false);
            }
            if self.enc.refine()? == 0 {
                return Ok(true);
            }
        }
    }

    /// Lexicographic minimisation under `base`: the atomic weight, then (with the weight
    /// held at its optimum) the inversions.
    fn optimize(&mut self, mut base: Vec<Lit>) -> Result<Option<Solution>, Error> {
        let mut best: Option<Solution> = None;
        for component in [Component::Weight, Component::Inversions] {
            // The bound 0 needs no cardinality encoding: it is "no item in a section", or
            // "no pair inverted", as plain assumptions. Trying it first also keeps the first
            // model near the original program when the constraints allow.
            let zero: Vec<Lit> = match component {
                Component::Weight => self.enc.weight_lits.iter().map(|&(l, _)| !l).collect(),
                Component::Inversions => self.enc.inversion_lits.iter().map(|&l| !l).collect(),
            };
            let mut assumptions = base.clone();
            assumptions.extend(&zero);
            if self.sat(&assumptions)? {
                best = Some(self.decode()?);
                base = assumptions;
                continue;
            }
            let mut current = match best.take() {
                Some(b) => b,
                None if self.sat(&base)? => self.decode()?,
                // The last call ran under `base` alone: its core explains the conflict.
                None => return Ok(None),
            };
            // Galloping from 1, then bisection: probe the bounds 1, 2, 4, 8, ... until one is
            // satisfiable (or reaches the cost of the best model), then bisect. Repairs are
            // small, so the optimum is usually near zero while the first model may be far
            // from it; probing from below keeps the cardinality encodings (which grow with
            // the bound) small. Every satisfiable call moves `hi` down to the cost of the
            // model it found.
            let mut hi = component.of(current.cost);
            // Galloping needs few probes below a small cost; past it, a lower bound from
            // disjoint cores saves the hard unsatisfiable probes.
            let mut lo = if hi > CORE_BOUND_ABOVE { self.lower_bound(&base, component)?.max(1) } else { 1 };
            let mut step = 1u64;
            let mut galloping = true;
            while lo < hi {
                let probe = if galloping { lo.saturating_add(step - 1).min(hi - 1) } else { lo + (hi - lo) / 2 };
                let mut assumptions = base.clone();
                assumptions.extend(self.bound(component, probe)?);
                if self.sat(&assumptions)? {
                    current = self.decode()?;
                    hi = component.of(current.cost);
                    if hi > probe {
                        return Err(Error::new(
                            ErrorKind::Internal,
                            "a model exceeds the cost bound it was found under",
                        ));
                    }
                    galloping = false;
                } else {
                    lo = probe + 1;
                    step = step.saturating_mul(2);
                }
            }
            base.extend(self.bound(component, hi)?);
            best = Some(current);
        }
        Ok(best)
    }

    /// A lower bound of `component` under `base` (known satisfiable) from disjoint cores: with
    /// every cost literal assumed false, each unsatisfiable call's core holds cost literals of
    /// which at least one must be true; its literals are set free and the cheapest of them
    /// counted, until the rest may all be false. A block that must move an item past many
    /// others yields one small core per item passed, so the bound is found by easy calls
    /// where bounding the cost from below with a cardinality encoding is hard.
    fn lower_bound(&mut self, base: &[Lit], component: Component) -> Result<u64, Error> {
        let mut free: FxHashMap<Var, (Lit, u64)> = match component {
            Component::Weight => self.enc.weight_lits.iter().map(|&(l, w)| (l.var(), (!l, w as u64))).collect(),
            Component::Inversions => self.enc.inversion_lits.iter().map(|&l| (l.var(), (!l, 1))).collect(),
        };
        // The assumptions in a fixed order (the map is for lookups only).
        let mut zero: Vec<Lit> = match component {
            Component::Weight => self.enc.weight_lits.iter().map(|&(l, _)| !l).collect(),
            Component::Inversions => self.enc.inversion_lits.iter().map(|&l| !l).collect(),
        };
        let mut bound = 0u64;
        loop {
            let mut assumptions = base.to_vec();
            assumptions.extend(&zero);
            if self.sat(&assumptions)? {
                return Ok(bound);
            }
            let core: Vec<(Lit, u64)> =
                self.enc.backend.failed()?.into_iter().filter_map(|v| free.remove(&v)).collect();
            let Some(cheapest) = core.iter().map(|&(_, w)| w).min() else { return Ok(bound) };
            bound += cheapest;
            zero.retain(|l| free.contains_key(&l.var()));
        }
    }

    /// Assumptions enforcing `component <= bound`, encoding what the bound needs first.
    fn bound(&mut self, component: Component, bound: u64) -> Result<Vec<Lit>, Error> {
        let ub = usize::try_from(bound).unwrap_or(usize::MAX);
        let mut cnf = Cnf::new();
        let oom = |_| Error::new(ErrorKind::Backend, "out of memory while encoding a cost bound");
        let assumptions = match component {
            Component::Weight => {
                self.weight.encode_ub_change(ub..=ub, &mut cnf, &mut self.enc.vars).map_err(oom)?;
                self.weight
                    .enforce_ub(ub)
                    .map_err(|e| Error::new(ErrorKind::Internal, format!("weight bound {ub}: {e}")))?
            }
            Component::Inversions => {
                self.inversions.encode_ub_change(ub..=ub, &mut cnf, &mut self.enc.vars).map_err(oom)?;
                self.inversions
                    .enforce_ub(ub)
                    .map_err(|e| Error::new(ErrorKind::Internal, format!("inversion bound {ub}: {e}")))?
            }
        };
        for clause in cnf.iter() {
            self.enc.lits_clause(&clause[..])?;
        }
        Ok(assumptions)
    }

    fn value(&self, v: Val) -> Result<bool, Error> {
        match v {
            Val::Const(b) => Ok(b),
            Val::Lit(l) => self.enc.backend.value(l),
        }
    }

    /// The candidate of the backend's current model.
    fn decode(&mut self) -> Result<Solution, Error> {
        let mut orders = Vec::with_capacity(self.enc.blocks.len());
        let mut sections = Vec::new();
        for b in &self.enc.blocks {
            let n = b.items.len();
            // An item's position: its original index, one less per earlier item it now
            // precedes, one more per later item that now precedes it.
            let mut position: Vec<usize> = (0..n).collect();
            for (i, j, l) in b.inversions() {
                if self.enc.backend.value(l)? {
                    position[i] += 1;
                    position[j] = position[j].wrapping_sub(1);
                }
            }
            let mut order: Vec<Option<Loc>> = vec![None; n];
            for (i, &p) in position.iter().enumerate() {
                match order.get_mut(p) {
                    Some(slot @ None) => *slot = Some(b.items[i]),
                    _ => return Err(Error::new(ErrorKind::Internal, "the model's order is not a total order")),
                }
            }
            let order: Vec<Loc> = order.into_iter().flatten().collect();
            let index: FxHashMap<Loc, usize> = b.items.iter().enumerate().map(|(i, l)| (*l, i)).collect();
            // Sections: maximal runs of neighbours in one section, and items alone in one.
            let mut start = 0;
            for p in 1..=n {
                let joined = p < n && self.value(b.sec(index[&order[p - 1]], index[&order[p]]))?;
                if !joined {
                    if p - start >= 2 || self.value(b.one(index[&order[start]]))? {
                        sections.push((order[start], order[p - 1]));
                    }
                    start = p;
                }
            }
            orders.push(order);
        }
        let candidate = Candidate::new(&self.space, orders, &sections)
            .map_err(|e| Error::new(ErrorKind::Internal, format!("the model is not a candidate: {e}")))?;
        if cfg!(debug_assertions) {
            self.check_atoms(&candidate)?;
        }
        Ok(Solution::new(&self.space, candidate))
    }

    /// Every encoded atom has the value the candidate gives it (debug builds).
    fn check_atoms(&self, candidate: &Candidate) -> Result<(), Error> {
        for (atom, val) in self.enc.atom_values() {
            if self.value(val)? != atom.holds(candidate) {
                return Err(Error::new(
                    ErrorKind::Internal,
                    format!("atom `{}` disagrees with the decoded candidate", atom.display(&self.space)),
                ));
            }
        }
        Ok(())
    }

    /// The constraints of the last unsatisfiable call under `base`, minimised if configured.
    fn explain(&mut self, base: &[Lit]) -> Result<Unsat, Error> {
        let by_var: FxHashMap<Var, usize> =
            self.constraints.iter().enumerate().filter(|(_, c)| c.active).map(|(i, c)| (c.act.var(), i)).collect();
        let failed = |s: &mut Self| -> Result<Vec<usize>, Error> {
            let mut core: Vec<usize> =
                s.enc.backend.failed()?.into_iter().filter_map(|v| by_var.get(&v).copied()).collect();
            core.sort_unstable();
            core.dedup();
            Ok(core)
        };
        let mut core = failed(self)?;
        if core.is_empty() && !base.is_empty() {
            // A backend that reports no core: fall back to every constraint.
            core = (0..self.constraints.len()).filter(|&i| self.constraints[i].active).collect();
        }
        if self.config.get_minimize_core() {
            let mut i = 0;
            while i < core.len() {
                let trial: Vec<usize> = core.iter().copied().filter(|&c| c != core[i]).collect();
                let assumptions: Vec<Lit> = trial.iter().map(|&c| self.constraints[c].act).collect();
                if self.sat(&assumptions)? {
                    i += 1;
                } else {
                    let smaller = failed(self)?;
                    core =
                        if smaller.is_empty() || smaller.iter().any(|c| !trial.contains(c)) { trial } else { smaller };
                }
            }
        }
        let conflict: Vec<Conflict> = core
            .iter()
            .map(|&i| Conflict {
                id: ConstraintId::from_u32(i as u32),
                name: self.constraints[i].name.clone(),
                text: self.constraints[i].text.clone(),
            })
            .collect();
        let mut explanation = match conflict.len() {
            0 => String::from("the space has no candidate program"),
            1 => String::from("no candidate program satisfies this constraint:"),
            _ => String::from("no candidate program satisfies these constraints together:"),
        };
        for c in &conflict {
            explanation.push_str(&format!("\n  {} `{}`: {}", c.id, c.name, c.text));
        }
        Ok(Unsat { conflict, explanation })
    }
}
