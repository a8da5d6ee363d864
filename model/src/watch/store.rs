//! Where a key's items live: written by its one watcher (the only writer), read by every view
//! of the key. [`ObjectCache`] holds whole objects keyed by uid; [`LiveTable`] holds the
//! server's Table rows, and remembers which cells changed when, so views can mark them.

use crate::time::clock::Monotonic;
use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use super::machine::StoreChange;
use crate::diagnosis::rows::row_health;
use crate::diagnosis::Health;
use crate::list::table::{
    decode_table_value, fallback_row, row_key_of_object, DecodeOptions, RowKey, Table, TablePage,
};
use crate::object::pointer::Pointer;

/// A store the watcher's changes are applied to.
pub trait WatchStore {
    fn apply(&mut self, change: StoreChange, now: impl Into<Monotonic>);
    /// Items held.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bumped on every change, so readers can tell cheaply whether to look again.
    fn revision(&self) -> u64;
}

/// (namespace, name); namespace is empty for cluster-scoped objects.
pub type ObjectKey = (String, String);

fn text<'a>(object: &'a Value, pointer: &str) -> Option<&'a str> {
    object.at(pointer).and_then(Value::as_str)
}

pub fn object_key(object: &Value) -> Option<ObjectKey> {
    let name = text(object, "/metadata/name")?;
    let namespace = text(object, "/metadata/namespace").unwrap_or_default();
    Some((namespace.to_string(), name.to_string()))
}

/// Whole objects in (namespace, name) order, found by uid too: an object deleted and created
/// again under the same name is a new object, and a late DELETED of the old one does not
/// remove the new one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectCache {
    objects: BTreeMap<ObjectKey, Value>,
    key_of_uid: HashMap<String, ObjectKey>,
    revision: u64,
    /// Keeps each object's `metadata` only (`Output::Metadata`).
    metadata_only: bool,
}

impl ObjectCache {
    /// A cache for a names-only watch (`Output::Metadata`): a browser's WebSocket cannot ask
    /// for `PartialObjectMetadata` (no Accept header), so whole objects may come, and only
    /// their kind, apiVersion and metadata are kept: a Secret's data is never held.
    pub fn metadata_only() -> ObjectCache {
        ObjectCache {
            metadata_only: true,
            ..ObjectCache::default()
        }
    }

    fn insert(&mut self, object: Value) {
        let object = if self.metadata_only {
            metadata_of(object)
        } else {
            object
        };
        let Some(key) = object_key(&object) else {
            return;
        };
        if let Some(old) = self.objects.get(&key) {
            if let Some(uid) = text(old, "/metadata/uid") {
                self.key_of_uid.remove(uid);
            }
        }
        if let Some(uid) = text(&object, "/metadata/uid") {
            self.key_of_uid.insert(uid.to_string(), key.clone());
        }
        self.objects.insert(key, object);
    }

    fn remove(&mut self, object: &Value) {
        let key = match text(object, "/metadata/uid") {
            Some(uid) => match self.key_of_uid.remove(uid) {
                Some(key) => key,
                // Not held, or held under another uid (a newer object of that name).
                None => return,
            },
            None => match object_key(object) {
                Some(key) => key,
                None => return,
            },
        };
        if let Some(old) = self.objects.remove(&key) {
            if let Some(uid) = text(&old, "/metadata/uid") {
                self.key_of_uid.remove(uid);
            }
        }
    }

    pub fn get(&self, namespace: &str, name: &str) -> Option<&Value> {
        self.objects.get(&(namespace.to_string(), name.to_string()))
    }

    pub fn get_by_uid(&self, uid: &str) -> Option<&Value> {
        self.key_of_uid
            .get(uid)
            .and_then(|key| self.objects.get(key))
    }

    /// Objects in (namespace, name) order.
    pub fn iter(&self) -> impl Iterator<Item = &Value> {
        self.objects.values()
    }
}

/// `object` as `PartialObjectMetadata` carries it: kind, apiVersion and metadata.
fn metadata_of(mut object: Value) -> Value {
    let Some(fields) = object.as_object_mut() else {
        return object;
    };
    fields.retain(|field, _| matches!(field.as_str(), "kind" | "apiVersion" | "metadata"));
    object
}

impl WatchStore for ObjectCache {
    fn apply(&mut self, change: StoreChange, _now: impl Into<Monotonic>) {
        self.revision += 1;
        match change {
            StoreChange::Replace(items) => {
                self.objects.clear();
                self.key_of_uid.clear();
                items.into_iter().for_each(|item| self.insert(item));
            }
            StoreChange::Append(items) => items.into_iter().for_each(|item| self.insert(item)),
            StoreChange::Apply(object) => self.insert(object),
            StoreChange::Delete(object) => self.remove(&object),
        }
    }

    fn len(&self) -> usize {
        self.objects.len()
    }

    fn revision(&self) -> u64 {
        self.revision
    }
}

/// How long a changed cell stays marked.
pub const CHANGE_MARK_MS: f64 = 2_000.0;

/// A row that changed recently: when, and which cells (all of them for a new row).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeMark {
    pub at_ms: f64,
    pub added: bool,
    pub cells: Vec<usize>,
}

/// The server's Table of a live list: pages and Table watch events applied by row uid
/// (plain objects too, when the server does not print Tables).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveTable {
    table: Table,
    options: DecodeOptions,
    marks: HashMap<RowKey, ChangeMark>,
    /// Each row's health from its cells (rows of tables without STATUS or READY have none),
    /// kept as rows change, so counts never walk the whole list.
    health: HashMap<RowKey, Health>,
    health_counts: BTreeMap<Health, usize>,
    /// Verdicts by uid from whole objects and what they control (`diagnosis::verdicts`):
    /// where one is known it is the row's health, so a list says what the object's page
    /// and the overview say; other rows go by their cells.
    verdicts: HashMap<String, Health>,
    revision: u64,
    /// Why the last item that could not be read was dropped.
    pub last_problem: Option<String>,
}

impl LiveTable {
    pub fn new(options: DecodeOptions) -> LiveTable {
        LiveTable {
            options,
            ..LiveTable::default()
        }
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    /// A row's health, when its table says (`diagnosis::rows::row_health`).
    pub fn health(&self, key: &RowKey) -> Option<Health> {
        self.health.get(key).copied()
    }

    /// How many rows are in each health (only healths some row has).
    pub fn health_counts(&self) -> &BTreeMap<Health, usize> {
        &self.health_counts
    }

    /// Sets the verdicts by uid (see the field); true when any row's health changed with them.
    pub fn set_verdicts(&mut self, verdicts: HashMap<String, Health>) -> bool {
        if verdicts == self.verdicts {
            return false;
        }
        let changed: Vec<String> = verdicts
            .iter()
            .filter(|(uid, health)| self.verdicts.get(*uid) != Some(health))
            .map(|(uid, _)| uid.clone())
            .chain(
                self.verdicts
                    .keys()
                    .filter(|uid| !verdicts.contains_key(*uid))
                    .cloned(),
            )
            .collect();
        self.verdicts = verdicts;
        let mut moved = false;
        for uid in changed {
            let key = RowKey::Uid(uid);
            let before = self.health.get(&key).copied();
            self.note_health(&key);
            moved |= self.health.get(&key).copied() != before;
        }
        if moved {
            self.revision += 1;
        }
        moved
    }

    /// Takes in row `key`'s health as its cells are now (None: the row is gone).
    fn note_health(&mut self, key: &RowKey) {
        let verdict = match key {
            RowKey::Uid(uid) => self.verdicts.get(uid).copied(),
            _ => None,
        };
        let now = self
            .table
            .row(key)
            .and_then(|row| verdict.or_else(|| row_health(self.table.columns(), &row.cells)));
        let before = match now {
            Some(health) => self.health.insert(key.clone(), health),
            None => self.health.remove(key),
        };
        if before == now {
            return;
        }
        if let Some(old) = before {
            if let Some(count) = self.health_counts.get_mut(&old) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    self.health_counts.remove(&old);
                }
            }
        }
        if let Some(new) = now {
            *self.health_counts.entry(new).or_default() += 1;
        }
    }

    /// Every row's health again (after the rows were replaced).
    fn note_all_health(&mut self) {
        self.health.clear();
        self.health_counts.clear();
        let keys: Vec<RowKey> = self
            .table
            .rows()
            .iter()
            .map(|row| row.key.clone())
            .collect();
        for key in keys {
            self.note_health(&key);
        }
    }

    /// Changes whenever rows were added or removed, not when one changed: a view in arrival
    /// order (or by name) only needs its order again then.
    pub fn membership(&self) -> (u64, usize) {
        self.table.rows().membership()
    }

    /// The mark of a row changed less than [`CHANGE_MARK_MS`] before `now_ms`.
    pub fn mark(&self, key: &RowKey, now: impl Into<Monotonic>) -> Option<&ChangeMark> {
        let now_ms = now.into().ms();
        self.marks
            .get(key)
            .filter(|mark| now_ms - mark.at_ms < CHANGE_MARK_MS)
    }

    fn page_of(&mut self, units: Vec<Value>) -> Vec<TablePage> {
        let (tables, objects): (Vec<Value>, Vec<Value>) = units
            .into_iter()
            .partition(|unit| unit.get("kind").and_then(Value::as_str) == Some("Table"));
        let mut pages = Vec::new();
        for unit in tables.into_iter().chain(
            (!objects.is_empty())
                .then(|| json!({"kind": "List", "metadata": {}, "items": objects})),
        ) {
            match decode_table_value(&unit, self.options) {
                Ok(page) => pages.push(page),
                Err(error) => self.last_problem = Some(error.to_string()),
            }
        }
        pages
    }

    fn upsert(&mut self, object: Value, now_ms: f64) {
        let is_table = object.get("kind").and_then(Value::as_str) == Some("Table");
        let page = if is_table {
            match decode_table_value(&object, self.options) {
                Ok(page) => page,
                Err(error) => {
                    self.last_problem = Some(error.to_string());
                    return;
                }
            }
        } else {
            TablePage {
                columns: Vec::new(),
                rows: vec![fallback_row(&object, self.options)],
                list_meta: Default::default(),
                source: crate::list::table::TableSource::Server,
            }
        };
        let before: Vec<(RowKey, Option<Vec<Value>>)> = page
            .rows
            .iter()
            .map(|row| {
                (
                    row.key.clone(),
                    self.table.row(&row.key).map(|r| r.cells.clone()),
                )
            })
            .collect();
        if is_table {
            self.table.upsert_rows(page);
        } else {
            for row in page.rows {
                self.table.upsert_row(row);
            }
        }
        for (key, _) in &before {
            self.note_health(key);
        }
        for (key, old_cells) in before {
            let Some(row) = self.table.row(&key) else {
                continue;
            };
            let mark = match old_cells {
                None => ChangeMark {
                    at_ms: now_ms,
                    added: true,
                    cells: (0..row.cells.len()).collect(),
                },
                Some(old) => {
                    let cells: Vec<usize> = (0..row.cells.len())
                        .filter(|&i| old.get(i) != row.cells.get(i))
                        .collect();
                    if cells.is_empty() {
                        continue;
                    }
                    ChangeMark {
                        at_ms: now_ms,
                        added: false,
                        cells,
                    }
                }
            };
            self.marks.insert(key, mark);
        }
    }

    fn delete(&mut self, object: &Value) {
        let keys: Vec<RowKey> = if object.get("kind").and_then(Value::as_str) == Some("Table") {
            match decode_table_value(object, self.options) {
                Ok(page) => page.rows.into_iter().map(|row| row.key).collect(),
                Err(error) => {
                    self.last_problem = Some(error.to_string());
                    Vec::new()
                }
            }
        } else {
            vec![row_key_of_object(object)]
        };
        for key in keys {
            self.table.remove_row(&key);
            self.marks.remove(&key);
            self.note_health(&key);
        }
    }

    /// Marks are only needed for a moment: old ones go once there are many.
    fn forget_old_marks(&mut self, now_ms: f64) {
        if self.marks.len() > 512 {
            self.marks
                .retain(|_, mark| now_ms - mark.at_ms < CHANGE_MARK_MS);
        }
    }
}

impl WatchStore for LiveTable {
    fn apply(&mut self, change: StoreChange, now: impl Into<Monotonic>) {
        let now_ms = now.into().ms();
        self.revision += 1;
        match change {
            StoreChange::Replace(units) => {
                let pages = self.page_of(units);
                self.table.clear_rows();
                self.marks.clear();
                for page in pages {
                    self.table.append_page(page);
                }
                self.note_all_health();
            }
            StoreChange::Append(units) => {
                for page in self.page_of(units) {
                    let keys: Vec<RowKey> = page.rows.iter().map(|row| row.key.clone()).collect();
                    self.table.append_page(page);
                    for key in &keys {
                        self.note_health(key);
                    }
                }
            }
            StoreChange::Apply(object) => self.upsert(object, now_ms),
            StoreChange::Delete(object) => self.delete(&object),
        }
        self.forget_old_marks(now_ms);
    }

    fn len(&self) -> usize {
        self.table.len()
    }

    fn revision(&self) -> u64 {
        self.revision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, uid: &str, phase: &str) -> Value {
        json!({"kind":"Pod","metadata":{"namespace":"ns","name":name,"uid":uid,"resourceVersion":"1"},"status":{"phase":phase}})
    }

    fn table_event(name: &str, uid: &str, status: &str, with_columns: bool) -> Value {
        let mut table = json!({"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"3"},
            "rows":[{"cells":[name, status],"object":{"kind":"PartialObjectMetadata","metadata":{"name":name,"namespace":"ns","uid":uid}}}]});
        if with_columns {
            table["columnDefinitions"] = json!([
                {"name":"Name","type":"string","format":"name","description":"","priority":0},
                {"name":"Status","type":"string","format":"","description":"","priority":0}]);
        }
        table
    }

    #[test]
    fn a_names_only_cache_keeps_no_secret_data() {
        let mut cache = ObjectCache::metadata_only();
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"namespace": "ns", "name": "db", "uid": "s1", "resourceVersion": "1"},
            "data": {"password": "aHVudGVyMg=="}, "stringData": {"token": "x"}});
        cache.apply(StoreChange::Replace(vec![secret.clone()]), 0.0);
        cache.apply(StoreChange::Apply(secret), 0.0);
        assert_eq!(
            cache.get("ns", "db"),
            Some(&json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": {"namespace": "ns", "name": "db", "uid": "s1", "resourceVersion": "1"}}))
        );
        // A whole-object cache keeps what came.
        let mut whole = ObjectCache::default();
        whole.apply(StoreChange::Apply(pod("a", "u1", "Running")), 0.0);
        assert_eq!(whole.get("ns", "a"), Some(&pod("a", "u1", "Running")));
    }

    #[test]
    fn object_cache_is_keyed_by_uid() {
        let mut cache = ObjectCache::default();
        cache.apply(StoreChange::Replace(vec![pod("a", "u1", "Pending")]), 0.0);
        // Re-created under the same name: the new object replaces the old one ...
        cache.apply(StoreChange::Apply(pod("a", "u2", "Running")), 0.0);
        assert_eq!(cache.len(), 1);
        // ... and a late DELETED of the old one leaves it alone.
        cache.apply(StoreChange::Delete(pod("a", "u1", "Pending")), 0.0);
        assert_eq!(
            cache.get("ns", "a").map(|o| o["metadata"]["uid"].clone()),
            Some(json!("u2"))
        );
        cache.apply(StoreChange::Delete(pod("a", "u2", "Running")), 0.0);
        assert!(cache.is_empty());
        assert_eq!(cache.revision(), 4);
    }

    #[test]
    fn live_table_applies_table_events_and_marks_changed_cells() {
        let mut live = LiveTable::new(DecodeOptions::default());
        live.apply(
            StoreChange::Replace(vec![table_event("a", "u1", "Pending", true)]),
            0.0,
        );
        assert_eq!(live.len(), 1);
        // Later events carry no columns; their cells are fitted to the table's.
        live.apply(
            StoreChange::Apply(table_event("a", "u1", "Running", false)),
            100.0,
        );
        let key = RowKey::Uid("u1".into());
        let row = live.table().row(&key).expect("row");
        assert_eq!(row.cells[1], json!("Running"));
        let mark = live.mark(&key, 200.0).expect("marked");
        assert_eq!((mark.added, mark.cells.clone()), (false, vec![1]));
        assert!(live.mark(&key, 100.0 + CHANGE_MARK_MS).is_none());
        live.apply(
            StoreChange::Apply(table_event("b", "u2", "Pending", false)),
            300.0,
        );
        assert!(live
            .mark(&RowKey::Uid("u2".into()), 300.0)
            .is_some_and(|m| m.added));
        live.apply(
            StoreChange::Delete(table_event("a", "u1", "Running", false)),
            400.0,
        );
        assert_eq!(live.len(), 1);
    }

    #[test]
    fn a_verdict_about_what_a_row_controls_is_its_health() {
        let mut live = LiveTable::new(DecodeOptions::default());
        live.apply(
            StoreChange::Replace(vec![
                table_event("a", "u1", "Running", true),
                table_event("b", "u2", "Running", false),
            ]),
            0.0,
        );
        let a = RowKey::Uid("u1".into());
        assert_eq!(live.health(&a), Some(Health::Progressing));
        let revision = live.revision();
        // Its pods cannot pull their image: the row says so, and is counted so.
        let verdicts = HashMap::from([("u1".to_string(), Health::Failing)]);
        assert!(live.set_verdicts(verdicts.clone()));
        assert_eq!(live.health(&a), Some(Health::Failing));
        assert_eq!(live.health_counts().get(&Health::Failing), Some(&1));
        assert!(live.revision() > revision, "the rows are drawn again");
        // The same verdicts again change nothing.
        assert!(!live.set_verdicts(verdicts));
        // A row's cells changing keeps its verdict.
        live.apply(
            StoreChange::Apply(table_event("a", "u1", "Pending", false)),
            10.0,
        );
        assert_eq!(live.health(&a), Some(Health::Failing));
        // The verdict gone, its cells speak again.
        assert!(live.set_verdicts(HashMap::new()));
        assert_eq!(live.health(&a), Some(Health::Progressing));
        assert_eq!(live.health_counts().get(&Health::Failing), None);
    }

    #[test]
    fn live_table_membership_changes_only_when_rows_come_or_go() {
        let mut live = LiveTable::new(DecodeOptions::default());
        live.apply(
            StoreChange::Replace(vec![table_event("a", "u1", "Pending", true)]),
            0.0,
        );
        let listed = live.membership();
        live.apply(
            StoreChange::Apply(table_event("a", "u1", "Running", false)),
            100.0,
        );
        assert_eq!(live.membership(), listed, "a row changed in place");
        live.apply(
            StoreChange::Apply(table_event("b", "u2", "Pending", false)),
            200.0,
        );
        let added = live.membership();
        assert_ne!(added, listed, "a row came");
        live.apply(
            StoreChange::Delete(table_event("a", "u1", "Running", false)),
            300.0,
        );
        assert_ne!(live.membership(), added, "a row went");
    }

    #[test]
    fn live_table_takes_plain_objects_from_servers_without_tables() {
        let mut live = LiveTable::new(DecodeOptions::default());
        live.apply(StoreChange::Replace(vec![pod("a", "u1", "Pending")]), 0.0);
        assert_eq!(live.table().columns()[0].name, "Name");
        live.apply(StoreChange::Apply(pod("b", "u2", "Pending")), 1.0);
        live.apply(StoreChange::Delete(pod("a", "u1", "Pending")), 2.0);
        assert_eq!(live.len(), 1);
        assert!(live.table().row(&RowKey::Uid("u2".into())).is_some());
    }
}
