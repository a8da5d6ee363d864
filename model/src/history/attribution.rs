//! Who made a write, from what the object itself records. Every write through the API
//! updates the `managedFields` entry of its manager (its time, and its field set when the
//! fields it owns change), so the entries that changed between two versions name the
//! writer, its operation (Apply or Update) and whether it wrote the status subresource. Two
//! cases record no entry change: a binding (`pods/binding` sets `spec.nodeName` and adds no
//! entry; the scheduler does this), and a second write by the same manager within the same
//! second that owns no new field; for the latter, the managers owning the changed fields are
//! named as the likely writers, and said to be inferred.

use serde_json::Value;

use super::diff::FieldChange;
use super::fields::{managed_entry_refs, FieldSet, ManagedEntryRef, ObjectPath, Segment, Step};
use crate::object::pointer::Pointer;

/// How a writer was worked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Its managedFields entry is new, or its time or field set changed in this write.
    EntryChanged,
    /// No entry changed; it owns the changed fields (probably a repeated write).
    OwnsChangedFields,
    /// `spec.nodeName` was set with no managedFields change: a `pods/binding` write.
    Binding,
}

impl Evidence {
    pub fn explain(self) -> &'static str {
        match self {
            Evidence::EntryChanged => "its managedFields entry changed in this write",
            Evidence::OwnsChangedFields => {
                "no managedFields entry changed; it owns the changed fields"
            }
            Evidence::Binding => {
                "spec.nodeName was set through pods/binding, which records no managedFields entry"
            }
        }
    }
}

/// One writer of a revision.
#[derive(Debug, Clone, PartialEq)]
pub struct Writer {
    /// The field manager (empty for a binding, which names none).
    pub manager: String,
    /// `Apply` or `Update` (empty for a binding).
    pub operation: String,
    /// `status`, `scale`, ... or empty for the main resource.
    pub subresource: String,
    /// The entry's time (second resolution, server clock).
    pub time: Option<String>,
    pub evidence: Evidence,
}

impl Writer {
    fn from_entry(entry: &ManagedEntryRef, evidence: Evidence) -> Writer {
        Writer {
            manager: entry.manager.to_string(),
            operation: entry.operation.to_string(),
            subresource: entry.subresource.to_string(),
            time: entry.time.map(str::to_string),
            evidence,
        }
    }

    pub fn is_status_write(&self) -> bool {
        self.subresource == "status"
    }

    /// `kubelet (Update, status)`, `kubectl (Apply)`, `binding`.
    pub fn label(&self) -> String {
        if self.evidence == Evidence::Binding {
            return "binding (pods/binding)".into();
        }
        let mut parts = vec![self.operation.clone()];
        if !self.subresource.is_empty() {
            parts.push(format!("{} subresource", self.subresource));
        }
        format!("{} ({})", self.manager, parts.join(", "))
    }
}

/// The writers of the change from `old` to `new` (`old` None: the create).
pub fn writers(old: Option<&Value>, new: &Value, changes: &[FieldChange]) -> Vec<Writer> {
    let after = managed_entry_refs(new);
    let Some(old) = old else {
        return after
            .iter()
            .map(|e| Writer::from_entry(e, Evidence::EntryChanged))
            .collect();
    };
    let before = managed_entry_refs(old);
    let changed: Vec<Writer> = after
        .iter()
        .filter(
            |entry| match before.iter().find(|b| b.identity() == entry.identity()) {
                None => true,
                // A field set that only shrank lost fields to another manager's write.
                Some(previous) => {
                    previous.time != entry.time
                        || (previous.fields != entry.fields
                            && !contains(previous.fields, entry.fields))
                }
            },
        )
        .map(|e| Writer::from_entry(e, Evidence::EntryChanged))
        .collect();
    if !changed.is_empty() {
        return changed;
    }
    if is_binding(old, new) {
        return vec![Writer {
            manager: String::new(),
            operation: String::new(),
            subresource: "binding".into(),
            time: None,
            evidence: Evidence::Binding,
        }];
    }
    owners_of_changes(new, &after, changes)
}

/// Whether every path of field set `inner` is in field set `outer`.
fn contains(outer: &Value, inner: &Value) -> bool {
    match (outer, inner) {
        (Value::Object(o), Value::Object(i)) => i
            .iter()
            .all(|(key, child)| o.get(key).is_some_and(|oc| contains(oc, child))),
        (a, b) => a == b,
    }
}

fn node_name(object: &Value) -> &str {
    object
        .at("/spec/nodeName")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn is_binding(old: &Value, new: &Value) -> bool {
    node_name(old).is_empty() && !node_name(new).is_empty()
}

/// Whether a readable path (from the diff) names the same place as an object path.
fn same_place(object: &Value, readable: &[Segment], concrete: &ObjectPath) -> bool {
    if readable.len() != concrete.len() {
        return false;
    }
    let mut node = object;
    for (segment, step) in readable.iter().zip(concrete) {
        let matches = match (segment, step) {
            (Segment::Field(a), Step::Field(b)) => a == b,
            (Segment::Index(a), Step::Index(b)) => a == b,
            (Segment::Keyed(key, value), Step::Index(index)) => node
                .get(*index)
                .and_then(|item| item.get(key))
                .is_some_and(|v| v.as_str().map_or(v.to_string(), str::to_string) == *value),
            _ => false,
        };
        if !matches {
            return false;
        }
        node = match step {
            Step::Field(f) => node.get(f),
            Step::Index(i) => node.get(*i),
        }
        .unwrap_or(&Value::Null);
    }
    true
}

fn owners_of_changes(
    new: &Value,
    entries: &[ManagedEntryRef],
    changes: &[FieldChange],
) -> Vec<Writer> {
    entries
        .iter()
        .filter(|entry| {
            let owned = FieldSet::parse(entry.fields).owned_paths(new);
            changes.iter().any(|change| {
                owned
                    .iter()
                    .any(|path| same_place(new, &change.path.0, path))
            })
        })
        .map(|e| Writer::from_entry(e, Evidence::OwnsChangedFields))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::diff::diff_values;
    use serde_json::json;

    fn entry(
        manager: &str,
        operation: &str,
        subresource: &str,
        time: &str,
        fields: Value,
    ) -> Value {
        json!({"manager": manager, "operation": operation, "subresource": subresource,
               "time": time, "fieldsType": "FieldsV1", "fieldsV1": fields})
    }

    fn pod(entries: Vec<Value>, node: Option<&str>, phase: &str) -> Value {
        let mut spec = json!({"containers": [{"name": "web", "image": "nginx"}]});
        if let Some(node) = node {
            spec["nodeName"] = json!(node);
        }
        json!({"metadata": {"name": "web-1", "managedFields": entries}, "spec": spec,
               "status": {"phase": phase}})
    }

    fn controller_entry() -> Value {
        entry(
            "kube-controller-manager",
            "Update",
            "",
            "2026-11-23T10:00:00Z",
            json!({"f:spec": {"f:containers": {}}}),
        )
    }

    fn attribute(old: &Value, new: &Value) -> Vec<Writer> {
        writers(Some(old), new, &diff_values(old, new))
    }

    #[test]
    fn the_create_is_attributed_to_every_entry() {
        let created = pod(vec![controller_entry()], None, "Pending");
        let found = writers(None, &created, &[]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].manager, "kube-controller-manager");
        assert_eq!(found[0].label(), "kube-controller-manager (Update)");
    }

    #[test]
    fn a_binding_adds_no_entry_and_is_told_apart() {
        let before = pod(vec![controller_entry()], None, "Pending");
        let after = pod(vec![controller_entry()], Some("node-1"), "Pending");
        let found = attribute(&before, &after);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].evidence, Evidence::Binding);
    }

    #[test]
    fn a_status_write_names_the_status_subresource() {
        let before = pod(vec![controller_entry()], Some("node-1"), "Pending");
        let kubelet = entry(
            "kubelet",
            "Update",
            "status",
            "2026-11-23T10:00:05Z",
            json!({"f:status": {"f:phase": {}}}),
        );
        let after = pod(vec![controller_entry(), kubelet], Some("node-1"), "Running");
        let found = attribute(&before, &after);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].manager, "kubelet");
        assert!(found[0].is_status_write());
        assert_eq!(found[0].label(), "kubelet (Update, status subresource)");
    }

    #[test]
    fn apply_and_update_by_one_manager_are_two_writers() {
        let apply = |t: &str| {
            entry(
                "kubectl",
                "Apply",
                "",
                t,
                json!({"f:spec": {"f:containers": {}}}),
            )
        };
        let update = |t: &str| entry("kubectl", "Update", "", t, json!({"f:status": {}}));
        let before = pod(
            vec![
                apply("2026-11-23T10:00:00Z"),
                update("2026-11-23T10:00:00Z"),
            ],
            None,
            "A",
        );
        let after = pod(
            vec![
                apply("2026-11-23T10:00:09Z"),
                update("2026-11-23T10:00:00Z"),
            ],
            None,
            "B",
        );
        let found = attribute(&before, &after);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].operation, "Apply");
        // Several managers in one write (a new entry and a changed one).
        let both = pod(
            vec![
                apply("2026-11-23T10:00:09Z"),
                update("2026-11-23T10:00:10Z"),
            ],
            None,
            "C",
        );
        assert_eq!(attribute(&before, &both).len(), 2);
    }

    #[test]
    fn a_manager_that_loses_a_field_to_another_did_not_write() {
        let creator =
            |fields: Value| entry("kube-rs", "Update", "", "2026-11-23T10:00:00Z", fields);
        let both = json!({"f:spec": {"f:replicas": {}, "f:containers": {}}});
        let before = pod(vec![creator(both)], None, "A");
        let scale = entry(
            "kubectl",
            "Update",
            "scale",
            "2026-11-23T10:00:07Z",
            json!({"f:spec": {"f:replicas": {}}}),
        );
        let after = pod(
            vec![creator(json!({"f:spec": {"f:containers": {}}})), scale],
            None,
            "A",
        );
        let found = attribute(&before, &after);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].manager, "kubectl");
        // A field set that grew in the same second is a write.
        let grew = pod(
            vec![creator(
                json!({"f:spec": {"f:replicas": {}, "f:containers": {}, "f:x": {}}}),
            )],
            None,
            "A",
        );
        assert_eq!(attribute(&before, &grew).len(), 1);
    }

    #[test]
    fn a_repeated_write_in_the_same_second_falls_back_to_field_owners() {
        let kubelet = entry(
            "kubelet",
            "Update",
            "status",
            "2026-11-23T10:00:05Z",
            json!({"f:status": {"f:phase": {}}}),
        );
        let before = pod(
            vec![controller_entry(), kubelet.clone()],
            Some("n"),
            "Pending",
        );
        let after = pod(vec![controller_entry(), kubelet], Some("n"), "Running");
        let found = attribute(&before, &after);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].manager, "kubelet");
        assert_eq!(found[0].evidence, Evidence::OwnsChangedFields);
        // Nothing owns an unowned field: no writer is invented.
        let mut odd = before.clone();
        odd["metadata"]["annotations"] = json!({"x": "1"});
        assert!(attribute(&before, &odd).is_empty());
    }
}
