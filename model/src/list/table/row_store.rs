//! Rows in arrival order, found by key: the store a [`Table`](super::Table) keeps its rows in.

use std::collections::{BTreeMap, HashMap};

use super::{RowKey, TableRow};

/// Rows in arrival order, found by key in O(log n): a replaced row keeps its place, a new one
/// goes last, a removed one leaves no gap.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowStore {
    by_position: BTreeMap<u64, TableRow>,
    position_of: HashMap<RowKey, u64>,
    next_position: u64,
    /// The positions in arrival order, kept as rows come and go: a list in arrival order
    /// copies this instead of walking every row (positions only grow, so it stays sorted).
    in_order: Vec<RowPosition>,
}

impl RowStore {
    /// Inserts or replaces the row with the same key. An anonymous row is always new (its key
    /// is renumbered). Returns the key it is stored under.
    pub fn upsert(&mut self, mut row: TableRow) -> RowKey {
        if let RowKey::Anonymous(_) = row.key {
            row.key = RowKey::Anonymous(self.next_position);
        }
        let key = row.key.clone();
        match self.position_of.get(&key) {
            Some(&position) => {
                self.by_position.insert(position, row);
            }
            None => {
                let position = self.next_position;
                self.next_position += 1;
                self.position_of.insert(key.clone(), position);
                self.by_position.insert(position, row);
                self.in_order.push(position);
            }
        }
        key
    }

    pub fn remove(&mut self, key: &RowKey) -> Option<TableRow> {
        let position = self.position_of.remove(key)?;
        if let Ok(index) = self.in_order.binary_search(&position) {
            self.in_order.remove(index);
        }
        self.by_position.remove(&position)
    }

    pub fn get(&self, key: &RowKey) -> Option<&TableRow> {
        self.position_of
            .get(key)
            .and_then(|p| self.by_position.get(p))
    }

    pub fn len(&self) -> usize {
        self.by_position.len()
    }

    /// Changes whenever a row is added or removed, never when one is replaced in place: every
    /// new row takes the next position, and a removal lowers the count.
    pub fn membership(&self) -> (u64, usize) {
        (self.next_position, self.by_position.len())
    }

    pub fn is_empty(&self) -> bool {
        self.by_position.is_empty()
    }

    pub fn clear(&mut self) {
        self.by_position.clear();
        self.position_of.clear();
        self.in_order.clear();
    }

    /// Rows in arrival order.
    pub fn iter(&self) -> impl Iterator<Item = &TableRow> {
        self.by_position.values()
    }

    /// Rows in arrival order with their positions.
    pub fn iter_positioned(&self) -> impl Iterator<Item = (RowPosition, &TableRow)> {
        self.by_position.iter().map(|(p, row)| (*p, row))
    }

    /// The row at a position (from [`Table::view_positions`](super::Table::view_positions)); `None` once it is gone.
    pub fn at(&self, position: RowPosition) -> Option<&TableRow> {
        self.by_position.get(&position)
    }

    /// Every row's position, in arrival order.
    pub fn positions(&self) -> &[RowPosition] {
        &self.in_order
    }
}

/// Where a row stands in arrival order: a number that stays with the row while it is
/// replaced in place, so a view's order can be kept as numbers rather than copied keys.
pub type RowPosition = u64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::table::*;
    use crate::object::meta::ObjectMeta;

    use crate::test_rng::TestRng;
    use serde_json::json;

    #[test]
    fn many_rows_keep_store_and_index_consistent() {
        let mut store = RowStore::default();
        let mut truth: BTreeMap<String, i64> = BTreeMap::new();
        let mut rng = TestRng::new(0x2545_F491_4F6C_DD1D);
        for step in 0..5_000i64 {
            let uid = format!("u{}", rng.below(300));
            if rng.below(4) == 0 {
                assert_eq!(
                    store.remove(&RowKey::Uid(uid.clone())).is_some(),
                    truth.remove(&uid).is_some()
                );
            } else {
                store.upsert(TableRow {
                    key: RowKey::Uid(uid.clone()),
                    cells: vec![json!(step)],
                    meta: ObjectMeta::default(),
                    problems: Vec::new(),
                });
                truth.insert(uid, step);
            }
        }
        assert_eq!(store.len(), truth.len());
        for (uid, step) in &truth {
            let row = store.get(&RowKey::Uid(uid.clone())).expect("present");
            assert_eq!(row.cells[0], json!(step));
        }
        assert_eq!(store.iter().count(), truth.len());
        // The kept arrival order is the walked one, and each position finds its row.
        let walked: Vec<RowPosition> = store.iter_positioned().map(|(p, _)| p).collect();
        assert_eq!(store.positions(), walked.as_slice());
        for (position, row) in store.iter_positioned() {
            assert_eq!(store.at(position), Some(row));
        }
        store.clear();
        assert!(store.positions().is_empty());
    }
}
