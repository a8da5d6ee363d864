//! Field paths inside an object, and the field sets of `managedFields` (`fieldsV1`), which
//! say which manager owns which field.
//!
//! A `fieldsV1` set is a tree of JSON objects whose keys name one step each: `f:<name>` a
//! field, `k:<json>` the list item whose merge-key fields equal that JSON, `v:<json>` the
//! set item equal to that value, `i:<n>` the item at that index, and `.` the node itself.
//! An empty object is a leaf: that path is owned. See "managedFields" in the API docs.

use std::collections::HashMap;
use std::fmt;

use crate::object::pointer::Pointer;
use serde_json::{Map, Value};

/// One step from a node to a child in an object: a map key or a list position.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Field(String),
    Index(usize),
}

/// Where a value is in one object (`spec.template.spec.containers[0].image`).
pub type ObjectPath = Vec<Step>;

/// A path as people read it: list items named by their merge key where they have one
/// (`containers[name=web].image`), by position otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Segment {
    Field(String),
    /// A list item found by its merge key, e.g. `("name", "web")`.
    Keyed(String, String),
    Index(usize),
}

/// A readable field path, the same for an item wherever it moved in its list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath(pub Vec<Segment>);

impl FieldPath {
    pub fn child(&self, segment: Segment) -> FieldPath {
        let mut segments = self.0.clone();
        segments.push(segment);
        FieldPath(segments)
    }

    pub fn starts_with(&self, prefix: &[Segment]) -> bool {
        self.0.starts_with(prefix)
    }

    /// The last field name on the path (`image` for `containers[name=web].image`).
    pub fn last_field(&self) -> Option<&str> {
        self.0.iter().rev().find_map(|s| match s {
            Segment::Field(name) => Some(name.as_str()),
            _ => None,
        })
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Field(name) if i == 0 => write!(f, "{name}")?,
                Segment::Field(name) => write!(f, ".{name}")?,
                Segment::Keyed(key, value) => write!(f, "[{key}={value}]")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// One step of a `fieldsV1` set.
#[derive(Debug, Clone, PartialEq)]
enum SetStep {
    Field(String),
    /// Merge-key fields and their values.
    Key(Map<String, Value>),
    Value(Value),
    Index(usize),
}

impl SetStep {
    fn parse(text: &str) -> Option<SetStep> {
        let (prefix, rest) = text.split_at_checked(2)?;
        match prefix {
            "f:" => Some(SetStep::Field(rest.to_string())),
            "k:" => match serde_json::from_str(rest) {
                Ok(Value::Object(map)) => Some(SetStep::Key(map)),
                _ => None,
            },
            "v:" => serde_json::from_str(rest).ok().map(SetStep::Value),
            "i:" => rest.parse().ok().map(SetStep::Index),
            _ => None,
        }
    }

    /// Whether this step leads from `parent` to its child at `step`.
    fn matches(&self, parent: &Value, step: &Step) -> bool {
        match (self, step) {
            (SetStep::Field(name), Step::Field(field)) => name == field,
            (SetStep::Index(i), Step::Index(index)) => i == index,
            (SetStep::Key(keys), Step::Index(index)) => parent
                .get(*index)
                .is_some_and(|item| keys.iter().all(|(k, v)| item.get(k) == Some(v))),
            (SetStep::Value(value), Step::Index(index)) => parent.get(*index) == Some(value),
            _ => false,
        }
    }
}

/// The fields one manager owns: a tree of steps. A node is owned when it is a leaf (`{}`)
/// or carries `.`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldSet {
    owned: bool,
    children: Vec<(SetStep, FieldSet)>,
}

impl FieldSet {
    /// Parses a `fieldsV1` value; steps it cannot read are skipped, never fatal.
    pub fn parse(fields: &Value) -> FieldSet {
        let Some(map) = fields.as_object() else {
            return FieldSet::default();
        };
        let mut set = FieldSet {
            owned: map.is_empty(),
            children: Vec::new(),
        };
        for (key, child) in map {
            if key == "." {
                set.owned = true;
            } else if let Some(step) = SetStep::parse(key) {
                set.children.push((step, FieldSet::parse(child)));
            }
        }
        set
    }

    /// Every path of `object` this set owns.
    pub fn owned_paths(&self, object: &Value) -> Vec<ObjectPath> {
        let mut out = Vec::new();
        self.collect(object, &mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, value: &Value, path: &mut ObjectPath, out: &mut Vec<ObjectPath>) {
        if self.owned && !path.is_empty() {
            out.push(path.clone());
        }
        for (set_step, child) in &self.children {
            let found = match (set_step, value) {
                (SetStep::Field(name), Value::Object(map)) => {
                    map.get(name).map(|v| (Step::Field(name.clone()), v))
                }
                (_, Value::Array(items)) => items.iter().enumerate().find_map(|(i, item)| {
                    set_step
                        .matches(value, &Step::Index(i))
                        .then_some((Step::Index(i), item))
                }),
                _ => None,
            };
            if let Some((step, child_value)) = found {
                path.push(step);
                child.collect(child_value, path, out);
                path.pop();
            }
        }
    }
}

/// One `managedFields` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ManagedEntry {
    pub manager: String,
    /// `Apply` (server-side apply) or `Update` (create, update, patch).
    pub operation: String,
    /// Empty for the main resource, `status`, `scale`, ... for a subresource.
    pub subresource: String,
    /// When this manager last wrote (RFC 3339, second resolution).
    pub time: Option<String>,
    pub fields: Value,
}

impl ManagedEntry {
    /// What makes two entries the same writer across revisions.
    pub fn identity(&self) -> (&str, &str, &str) {
        (&self.manager, &self.operation, &self.subresource)
    }

    pub fn is_apply(&self) -> bool {
        self.operation == "Apply"
    }
}

/// One `managedFields` entry as it stands in its object, nothing copied: what the writers of
/// every watched write are found from (a copy of each entry's field set, twice per write,
/// was most of a rollout's history recording).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ManagedEntryRef<'a> {
    pub manager: &'a str,
    pub operation: &'a str,
    pub subresource: &'a str,
    pub time: Option<&'a str>,
    pub fields: &'a Value,
}

impl ManagedEntryRef<'_> {
    /// What makes two entries the same writer across revisions.
    pub fn identity(&self) -> (&str, &str, &str) {
        (self.manager, self.operation, self.subresource)
    }
}

/// The object's `metadata.managedFields`, borrowed.
pub fn managed_entry_refs(object: &Value) -> Vec<ManagedEntryRef<'_>> {
    object
        .at("/metadata/managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|entry| ManagedEntryRef {
            manager: str_at(entry, "manager").unwrap_or_default(),
            operation: str_at(entry, "operation").unwrap_or_default(),
            subresource: str_at(entry, "subresource").unwrap_or_default(),
            time: str_at(entry, "time"),
            fields: entry.get("fieldsV1").unwrap_or(&Value::Null),
        })
        .collect()
}

fn str_at<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The object's `metadata.managedFields`, owned.
pub fn managed_entries(object: &Value) -> Vec<ManagedEntry> {
    managed_entry_refs(object)
        .into_iter()
        .map(|entry| ManagedEntry {
            manager: entry.manager.to_string(),
            operation: entry.operation.to_string(),
            subresource: entry.subresource.to_string(),
            time: entry.time.map(str::to_string),
            fields: entry.fields.clone(),
        })
        .collect()
}

/// For each owned path of `object`, the indexes (into `entries`) of the managers owning it.
pub fn owners_by_path(object: &Value, entries: &[ManagedEntry]) -> HashMap<ObjectPath, Vec<usize>> {
    let mut owners: HashMap<ObjectPath, Vec<usize>> = HashMap::new();
    for (index, entry) in entries.iter().enumerate() {
        for path in FieldSet::parse(&entry.fields).owned_paths(object) {
            owners.entry(path).or_default().push(index);
        }
    }
    owners
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({
            "metadata": {"name": "web", "labels": {"app": "web"}, "managedFields": [
                {"manager": "kubectl-client-side-apply", "operation": "Update", "time": "2026-11-23T10:00:00Z",
                 "fieldsType": "FieldsV1", "fieldsV1": {
                    "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                    "f:spec": {"f:template": {"f:spec": {"f:containers": {
                        "k:{\"name\":\"web\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}}},
                {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status",
                 "time": "2026-11-23T10:00:02Z", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:status": {"f:replicas": {}}}}
            ]},
            "spec": {"template": {"spec": {"containers": [
                {"name": "sidecar", "image": "envoy"},
                {"name": "web", "image": "nginx:1.25"}
            ]}}},
            "status": {"replicas": 3}
        })
    }

    fn path(steps: &[&str]) -> ObjectPath {
        steps
            .iter()
            .map(|s| match s.parse::<usize>() {
                Ok(i) => Step::Index(i),
                Err(_) => Step::Field(s.to_string()),
            })
            .collect()
    }

    #[test]
    fn keyed_items_are_found_wherever_they_are_in_the_list() {
        let object = deployment();
        let entries = managed_entries(&object);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].subresource, "status");
        let owned = FieldSet::parse(&entries[0].fields).owned_paths(&object);
        let image = path(&["spec", "template", "spec", "containers", "1", "image"]);
        assert!(owned.contains(&image), "{owned:?}");
        assert!(
            owned.contains(&path(&["metadata", "labels"])),
            "the map itself (.)"
        );
        assert!(owned.contains(&path(&["metadata", "labels", "app"])));
        // The sidecar was not written by this manager.
        assert!(!owned.iter().any(|p| p.get(4) == Some(&Step::Index(0))));
        let owners = owners_by_path(&object, &entries);
        assert_eq!(owners.get(&path(&["status", "replicas"])), Some(&vec![1]));
    }

    #[test]
    fn unreadable_steps_are_skipped() {
        let set = FieldSet::parse(&json!({"f:spec": {"k:not json": {}, "x:odd": {}, "f:a": {}}}));
        let owned = set.owned_paths(&json!({"spec": {"a": 1}}));
        assert_eq!(owned, vec![path(&["spec", "a"])]);
        assert_eq!(FieldSet::parse(&json!("garbage")), FieldSet::default());
    }

    #[test]
    fn set_values_and_indexes_match() {
        let set = FieldSet::parse(
            &json!({"f:metadata": {"f:finalizers": {"v:\"b\"": {}}}, "f:args": {"i:1": {}}}),
        );
        let object = json!({"metadata": {"finalizers": ["a", "b"]}, "args": ["x", "y"]});
        let owned = set.owned_paths(&object);
        assert!(owned.contains(&path(&["metadata", "finalizers", "1"])));
        assert!(owned.contains(&path(&["args", "1"])));
    }

    #[test]
    fn field_paths_read_as_people_write_them() {
        let p = FieldPath(vec![
            Segment::Field("spec".into()),
            Segment::Field("containers".into()),
            Segment::Keyed("name".into(), "web".into()),
            Segment::Field("image".into()),
        ]);
        assert_eq!(p.to_string(), "spec.containers[name=web].image");
        assert_eq!(p.last_field(), Some("image"));
    }
}
