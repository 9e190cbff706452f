//! Which cycles found become fixes: one per set of atoms, minimal (no fix's atoms contain
//! another's), the cheapest [`EliminateConfig::max_fixes`](super::EliminateConfig::max_fixes)
//! of them.

use paces_constraint::Atom;
use rustc_hash::FxHashSet;

use super::search::{Found, Raw};

/// The most atoms a fix may have for its minimality to be checked.
///
/// The check looks up every proper subset of the atoms among the cycles found, `2^n - 2`
/// lookups for `n` atoms: 4 094 at 12. A fix has at most K atoms (one per constraint edge),
/// so with the default K = 2 and any K up to 12 every fix is checked. A fix with more atoms
/// is kept unchecked: it may then contain another fix's atoms, which leaves the disjunction
/// of the fixes' constraints as it is whenever that other fix is kept too (the larger
/// conjunction implies the smaller), and only lengthens the list of fixes.
const MAX_ATOMS_CHECKED_FOR_MINIMALITY: usize = 12;

/// The cycles that become fixes, cheapest first (ties broken by their atoms), at most
/// `max_fixes` of them, and whether the result is complete: `found` was, and no minimal
/// cycle was dropped for the cap.
pub(super) fn select(mut found: Found, max_fixes: usize) -> (Vec<(Vec<Atom>, Raw)>, bool) {
    let keys: FxHashSet<Vec<Atom>> = found.order.iter().cloned().collect();
    let mut raws: Vec<(Vec<Atom>, Raw)> = Vec::new();
    for atoms in &found.order {
        if is_minimal(atoms, &keys) {
            if let Some(raw) = found.cycles.remove(atoms) {
                raws.push((atoms.clone(), raw));
            }
        }
    }
    raws.sort_by(|x, y| (x.1.weight, &x.0).cmp(&(y.1.weight, &y.0)));
    let mut complete = found.complete;
    if raws.len() > max_fixes {
        raws.truncate(max_fixes);
        complete = false;
    }
    (raws, complete)
}

/// Whether no proper subset of `atoms` is among `keys` (the atoms of every cycle found).
/// Fixes of more than [`MAX_ATOMS_CHECKED_FOR_MINIMALITY`] atoms count as minimal.
fn is_minimal(atoms: &[Atom], keys: &FxHashSet<Vec<Atom>>) -> bool {
    if atoms.len() < 2 || atoms.len() > MAX_ATOMS_CHECKED_FOR_MINIMALITY {
        return true;
    }
    (1..(1u32 << atoms.len()) - 1).all(|mask| {
        let sub: Vec<Atom> = atoms.iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, a)| *a).collect();
        !keys.contains(&sub)
    })
}
