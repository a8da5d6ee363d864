//! The order of the boxes in each column: first as the view sorts them (namespace, kind,
//! name), then moved by the barycenter heuristic (each box to the mean position of its
//! neighbours in the column before, then after, twice), ties kept in the first order. Few sweeps: enough to untangle a namespace, and cheap.

use std::collections::HashMap;

use super::group::MapView;

/// What occupies a place in a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    Node(usize),
    /// An edge crossing the column (`edge` by index of the view).
    Passage {
        edge: usize,
        column: usize,
    },
}

/// Down, up, down, up: more changed nothing on the fixtures.
pub(crate) const SWEEPS: usize = 4;

/// Orders `layers` (their slots in first order) to reduce crossings.
pub(crate) fn order_layers(
    view: &MapView,
    columns: &[usize],
    forward: &[bool],
    mut layers: Vec<Vec<Slot>>,
    sweeps: usize,
) -> Vec<Vec<Slot>> {
    // Each slot's neighbours in the column before (`before`) and after (`after`).
    let mut before: HashMap<Slot, Vec<Slot>> = HashMap::new();
    let mut after: HashMap<Slot, Vec<Slot>> = HashMap::new();
    for (at, edge) in view.edges.iter().enumerate() {
        if !forward[at] {
            continue;
        }
        let (left, right) = super::layout::ends(edge);
        let mut chain = vec![Slot::Node(left)];
        for column in columns[left] + 1..columns[right] {
            chain.push(Slot::Passage { edge: at, column });
        }
        chain.push(Slot::Node(right));
        for pair in chain.windows(2) {
            after.entry(pair[0]).or_default().push(pair[1]);
            before.entry(pair[1]).or_default().push(pair[0]);
        }
    }
    let mut position: HashMap<Slot, usize> = HashMap::new();
    for layer in &layers {
        for (at, slot) in layer.iter().enumerate() {
            position.insert(*slot, at);
        }
    }
    for sweep in 0..sweeps {
        let downward = sweep % 2 == 0;
        let (neighbours, sequence): (&HashMap<Slot, Vec<Slot>>, Vec<usize>) = if downward {
            (&before, (1..layers.len()).collect())
        } else {
            (&after, (0..layers.len().saturating_sub(1)).rev().collect())
        };
        for layer in sequence {
            let slots = &mut layers[layer];
            let centre = |slot: &Slot| -> f64 {
                let own = position.get(slot).copied().unwrap_or(0) as f64;
                match neighbours.get(slot) {
                    Some(list) if !list.is_empty() => {
                        let sum: usize = list.iter().filter_map(|n| position.get(n)).sum();
                        sum as f64 / list.len() as f64
                    }
                    // Unlinked this way: it keeps its place.
                    _ => own,
                }
            };
            let keys: HashMap<Slot, f64> = slots.iter().map(|s| (*s, centre(s))).collect();
            crate::list::stable_sort::sort_by(slots, |a, b| {
                let (ka, kb) = (keys.get(a).copied(), keys.get(b).copied());
                ka.unwrap_or(0.0).total_cmp(&kb.unwrap_or(0.0))
            });
            for (at, slot) in slots.iter().enumerate() {
                position.insert(*slot, at);
            }
        }
    }
    layers
}
