//! The field-level difference between two versions of one object, for any kind: every
//! changed leaf with its path, old and new value. List items are matched by their merge key
//! where the list has one (`containers` by `name`, `conditions` by `type`, as strategic merge
//! patch does), so a reordered or inserted container is not reported as every later container
//! changing. Lists of a kind this module does not know (custom resources) are matched by
//! `name` when every item has a distinct one, by position otherwise.

use serde_json::Value;

use super::fields::{FieldPath, Segment};

/// One changed value. `old` None: added; `new` None: removed.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChange {
    pub path: FieldPath,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

impl FieldChange {
    pub fn describe(&self) -> String {
        match (&self.old, &self.new) {
            (None, Some(new)) => format!("{}: + {}", self.path, short(new)),
            (Some(old), None) => format!("{}: - {}", self.path, short(old)),
            (Some(old), Some(new)) => format!("{}: {} → {}", self.path, short(old), short(new)),
            (None, None) => self.path.to_string(),
        }
    }
}

/// A value on one line, cut at 80 characters.
pub fn short(value: &Value) -> String {
    const MAX: usize = 80;
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// Merge keys of the built-in kinds' lists, by field name (`x-kubernetes-patch-merge-key`).
/// Ports are keyed by `containerPort` in containers and by `port` in Services, so both are
/// tried in order.
const MERGE_KEYS: &[(&str, &[&str])] = &[
    ("containers", &["name"]),
    ("initContainers", &["name"]),
    ("ephemeralContainers", &["name"]),
    ("containerStatuses", &["name"]),
    ("initContainerStatuses", &["name"]),
    ("ephemeralContainerStatuses", &["name"]),
    ("env", &["name"]),
    ("volumes", &["name"]),
    ("volumeMounts", &["mountPath"]),
    ("volumeDevices", &["devicePath"]),
    ("imagePullSecrets", &["name"]),
    ("conditions", &["type"]),
    ("ownerReferences", &["uid"]),
    ("ports", &["containerPort", "port"]),
    ("hostAliases", &["ip"]),
    ("podIPs", &["ip"]),
    ("hostIPs", &["ip"]),
    ("addresses", &["type"]),
    ("resourceClaims", &["name"]),
    ("topologySpreadConstraints", &["topologyKey"]),
];

/// The field that identifies items of `items` (a list under `field`), when every item has a
/// distinct scalar value for it.
pub fn merge_key_for(field: Option<&str>, items: &[&Value]) -> Option<&'static str> {
    let known = field
        .and_then(|f| MERGE_KEYS.iter().find(|(name, _)| *name == f))
        .map(|(_, keys)| *keys)
        .unwrap_or(&["name"]);
    known.iter().copied().find(|key| {
        let mut seen = std::collections::HashSet::new();
        items.iter().all(|item| {
            item.get(*key)
                .filter(|v| !v.is_object() && !v.is_array())
                .is_some_and(|v| seen.insert(v.to_string()))
        })
    })
}

fn key_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every changed leaf from `old` to `new`.
pub fn diff_values(old: &Value, new: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    diff_at(&FieldPath::default(), old, new, &mut out);
    out
}

/// Every changed leaf from object `old` to object `new`, but for the `metadata` fields
/// `ignored_metadata` names (bookkeeping such as `managedFields` and `resourceVersion`),
/// without copying either object.
pub fn diff_values_ignoring_metadata(
    old: &Value,
    new: &Value,
    ignored_metadata: &[&str],
) -> Vec<FieldChange> {
    let mut out = Vec::new();
    let root = FieldPath::default();
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => diff_maps(
            &root,
            a,
            b,
            &mut |path, key, old_value, new_value, out| match (key, old_value, new_value) {
                ("metadata", Value::Object(old_meta), Value::Object(new_meta)) => diff_maps(
                    path,
                    old_meta,
                    new_meta,
                    &mut |path, key, old_value, new_value, out| {
                        if !ignored_metadata.contains(&key) {
                            diff_at(path, old_value, new_value, out);
                        }
                    },
                    &mut |key| !ignored_metadata.contains(&key),
                    out,
                ),
                _ => diff_at(path, old_value, new_value, out),
            },
            &mut |_| true,
            &mut out,
        ),
        _ => diff_at(&root, old, new, &mut out),
    }
    out
}

fn diff_at(path: &FieldPath, old: &Value, new: &Value, out: &mut Vec<FieldChange>) {
    if old == new {
        return;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => diff_maps(
            path,
            a,
            b,
            &mut |path, _, old_value, new_value, out| diff_at(path, old_value, new_value, out),
            &mut |_| true,
            out,
        ),
        (Value::Array(a), Value::Array(b)) => diff_lists(path, a, b, out),
        _ => out.push(FieldChange {
            path: path.clone(),
            old: Some(old.clone()),
            new: Some(new.clone()),
        }),
    }
}

/// Diffs one field found in both objects (at its path, with its name).
type FieldsDiffer<'a> = dyn FnMut(&FieldPath, &str, &Value, &Value, &mut Vec<FieldChange>) + 'a;

/// The fields of two objects: `both` for a field in both that differs (at its path),
/// added and removed ones for the rest; `kept` says which fields count at all.
fn diff_maps(
    path: &FieldPath,
    old: &serde_json::Map<String, Value>,
    new: &serde_json::Map<String, Value>,
    both: &mut FieldsDiffer,
    kept: &mut dyn FnMut(&str) -> bool,
    out: &mut Vec<FieldChange>,
) {
    for (key, old_value) in old.iter().filter(|(key, _)| kept(key)) {
        match new.get(key) {
            // Equal fields (most of them) cost no path.
            Some(new_value) if new_value == old_value => {}
            Some(new_value) => both(
                &path.child(Segment::Field(key.clone())),
                key,
                old_value,
                new_value,
                out,
            ),
            None => removed(path.child(Segment::Field(key.clone())), old_value, out),
        }
    }
    for (key, new_value) in new.iter().filter(|(key, _)| !old.contains_key(*key)) {
        if kept(key) {
            added(path.child(Segment::Field(key.clone())), new_value, out);
        }
    }
}

fn diff_lists(path: &FieldPath, old: &[Value], new: &[Value], out: &mut Vec<FieldChange>) {
    let objects = |items: &[Value]| items.iter().all(Value::is_object);
    let field = path.last_field();
    // Items pair up by a key only when it identifies them in both lists.
    let key = (!old.is_empty() || !new.is_empty()) && objects(old) && objects(new);
    let key = key
        .then(|| {
            let in_old = merge_key_for(field, &old.iter().collect::<Vec<_>>());
            let in_new = merge_key_for(field, &new.iter().collect::<Vec<_>>());
            match (old.is_empty(), new.is_empty()) {
                (true, _) => in_new,
                (_, true) => in_old,
                _ => in_old.filter(|k| in_new == Some(*k)),
            }
        })
        .flatten();
    match key {
        Some(key) => {
            let id = |item: &Value| item.get(key).map(key_text).unwrap_or_default();
            for old_item in old {
                let child = path.child(Segment::Keyed(key.to_string(), id(old_item)));
                match new.iter().find(|n| id(n) == id(old_item)) {
                    Some(new_item) => diff_at(&child, old_item, new_item, out),
                    None => removed(child, old_item, out),
                }
            }
            for new_item in new.iter().filter(|n| !old.iter().any(|o| id(o) == id(n))) {
                added(
                    path.child(Segment::Keyed(key.to_string(), id(new_item))),
                    new_item,
                    out,
                );
            }
        }
        None if old.len() == new.len() => {
            for (index, (a, b)) in old.iter().zip(new).enumerate() {
                diff_at(&path.child(Segment::Index(index)), a, b, out);
            }
        }
        // Scalar lists of another length (args, finalizers): the list, before and after.
        None => out.push(FieldChange {
            path: path.clone(),
            old: Some(Value::Array(old.to_vec())),
            new: Some(Value::Array(new.to_vec())),
        }),
    }
}

fn added(path: FieldPath, value: &Value, out: &mut Vec<FieldChange>) {
    out.push(FieldChange {
        path,
        old: None,
        new: Some(value.clone()),
    });
}

fn removed(path: FieldPath, value: &Value, out: &mut Vec<FieldChange>) {
    out.push(FieldChange {
        path,
        old: Some(value.clone()),
        new: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(changes: &[FieldChange]) -> Vec<String> {
        changes.iter().map(|c| c.path.to_string()).collect()
    }

    #[test]
    fn containers_are_matched_by_name_not_position() {
        let old = json!({"spec": {"containers": [
            {"name": "web", "image": "nginx:1.25"},
            {"name": "log", "image": "fluent:1"}
        ]}});
        let new = json!({"spec": {"containers": [
            {"name": "init", "image": "busybox"},
            {"name": "web", "image": "nginx:1.26"},
            {"name": "log", "image": "fluent:1"}
        ]}});
        let changes = diff_values(&old, &new);
        assert_eq!(
            paths(&changes),
            vec![
                "spec.containers[name=web].image",
                "spec.containers[name=init]"
            ]
        );
        assert_eq!(
            changes[0].describe(),
            "spec.containers[name=web].image: nginx:1.25 → nginx:1.26"
        );
        assert_eq!(changes[1].old, None);
    }

    #[test]
    fn conditions_by_type_and_ports_by_container_port() {
        let old = json!({"status": {"conditions": [
            {"type": "Ready", "status": "False"}, {"type": "Scheduled", "status": "True"}
        ]}, "ports": [{"containerPort": 80, "name": "http"}]});
        let new = json!({"status": {"conditions": [
            {"type": "Scheduled", "status": "True"}, {"type": "Ready", "status": "True"}
        ]}, "ports": [{"containerPort": 80, "name": "web"}]});
        assert_eq!(
            paths(&diff_values(&old, &new)),
            vec![
                "status.conditions[type=Ready].status",
                "ports[containerPort=80].name"
            ]
        );
    }

    #[test]
    fn custom_lists_use_name_when_distinct_and_position_otherwise() {
        let old = json!({"spec": {"targets": [{"name": "a", "w": 1}, {"name": "b", "w": 1}],
                                   "steps": [{"run": "x"}, {"run": "y"}]}});
        let new = json!({"spec": {"targets": [{"name": "b", "w": 2}, {"name": "a", "w": 1}],
                                   "steps": [{"run": "x"}, {"run": "z"}]}});
        assert_eq!(
            paths(&diff_values(&old, &new)),
            vec!["spec.targets[name=b].w", "spec.steps[1].run"]
        );
    }

    #[test]
    fn duplicate_keys_fall_back_to_positions_and_scalar_lists_to_whole_lists() {
        let old = json!({"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}],
                         "args": ["--a"]});
        let new = json!({"env": [{"name": "A", "value": "1"}, {"name": "A", "value": "3"}],
                         "args": ["--a", "--b"]});
        let changes = diff_values(&old, &new);
        assert_eq!(paths(&changes), vec!["env[1].value", "args"]);
        assert_eq!(changes[1].new, Some(json!(["--a", "--b"])));
    }

    #[test]
    fn equal_values_have_no_changes_and_long_values_are_cut() {
        let v = json!({"a": [1, 2], "b": {"c": null}});
        assert!(diff_values(&v, &v).is_empty());
        let long = Value::String("x".repeat(200));
        assert_eq!(short(&long).chars().count(), 81);
    }
}
