//! Field ownership for server-side apply and `managedFields`.
//!
//! A simplified model of structured-merge-diff: an object's owned fields are the set of leaf
//! paths (FieldsV1 keys such as `f:spec`, `f:replicas`, `k:{"name":"nginx"}`); lists with a merge
//! key are tracked per item, other lists as one atomic leaf. Update writes take ownership of the
//! leaves they changed; apply takes ownership of the leaves in its configuration, reports
//! conflicts with other managers whose values differ, and removes leaves it stopped applying.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::patch::merge_key;
use crate::status::{ApiError, Cause};

pub type Path = Vec<String>;
pub type FieldSet = BTreeSet<Path>;

/// Metadata fields users own; everything else in metadata is system-managed.
const OWNED_METADATA: &[&str] = &["labels", "annotations", "finalizers", "ownerReferences"];

/// Leaf paths of an object, as ownership sees them. `status` only counts for status writes.
pub fn leaf_paths(obj: &Value, include_status: bool) -> FieldSet {
    let mut out = FieldSet::new();
    walk_leaves(obj, None, &mut |path, _, _| {
        if include_status || !is_status(path) {
            out.insert(path.clone());
        }
    });
    out
}

fn is_status(path: &[String]) -> bool {
    path.first().is_some_and(|first| first == "f:status")
}

/// Visits every leaf of `obj` (status included) with its path, its value and the value at
/// the same path in `old`, found as the walk goes: one pass over both objects instead of a
/// lookup per leaf in each object, which parsed every `k:` segment again.
fn walk_leaves<'a>(
    obj: &'a Value,
    old: Option<&'a Value>,
    visit: &mut dyn FnMut(&Path, &'a Value, Option<&'a Value>),
) {
    walk_object(obj, old, visit, &mut None);
}

/// [`walk_leaves`], but subtrees equal in both objects are not walked: their leaves are only
/// counted into `unchanged` (building every leaf's path was most of the usual write's cost).
fn walk_changed_leaves<'a>(
    obj: &'a Value,
    old: &'a Value,
    visit: &mut dyn FnMut(&Path, &'a Value, Option<&'a Value>),
) -> usize {
    let mut unchanged = Some(0);
    walk_object(obj, Some(old), visit, &mut unchanged);
    unchanged.unwrap_or_default()
}

fn walk_object<'a>(
    obj: &'a Value,
    old: Option<&'a Value>,
    visit: &mut dyn FnMut(&Path, &'a Value, Option<&'a Value>),
    unchanged: &mut Option<usize>,
) {
    let Some(root) = obj.as_object() else {
        return;
    };
    for (k, v) in root {
        let before = old.and_then(|o| o.get(k));
        match k.as_str() {
            "apiVersion" | "kind" => {}
            "metadata" => {
                for mk in OWNED_METADATA {
                    if let Some(mv) = v.get(*mk) {
                        let mut prefix = vec!["f:metadata".to_string()];
                        let before = before.and_then(|b| b.get(*mk));
                        walk(mk, mv, before, &mut prefix, visit, unchanged);
                    }
                }
            }
            _ => walk(k, v, before, &mut vec![], visit, unchanged),
        }
    }
}

fn walk<'a>(
    field: &str,
    v: &'a Value,
    before: Option<&'a Value>,
    prefix: &mut Path,
    visit: &mut dyn FnMut(&Path, &'a Value, Option<&'a Value>),
    unchanged: &mut Option<usize>,
) {
    if let Some(count) = unchanged {
        if before == Some(v) {
            *count += count_field_leaves(field, v);
            return;
        }
    }
    prefix.push(format!("f:{field}"));
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, c) in m {
                walk(
                    k,
                    c,
                    before.and_then(|b| b.get(k)),
                    prefix,
                    visit,
                    unchanged,
                );
            }
        }
        Value::Array(items) => match merge_key(field, items) {
            Some(key) if items.iter().all(|i| i.get(key).is_some()) => {
                let before_items = before.and_then(Value::as_array);
                for item in items {
                    let key_json = json!({ key: item[key] }).to_string();
                    let item_before = before_items
                        .and_then(|list| list.iter().find(|b| b.get(key) == Some(&item[key])));
                    prefix.push(format!("k:{key_json}"));
                    if let Some(m) = item.as_object() {
                        for (k, c) in m {
                            let before = item_before.and_then(|b| b.get(k));
                            walk(k, c, before, prefix, visit, unchanged);
                        }
                    }
                    prefix.pop();
                }
                if items.is_empty() {
                    visit(prefix, v, before);
                }
            }
            _ => visit(prefix, v, before),
        },
        _ => visit(prefix, v, before),
    }
    prefix.pop();
}

/// The value at a FieldsV1 path, if present.
pub fn value_at<'a>(obj: &'a Value, path: &[String]) -> Option<&'a Value> {
    let mut cur = obj;
    let mut parent_field = "";
    for seg in path {
        if let Some(f) = seg.strip_prefix("f:") {
            cur = cur.get(f)?;
            parent_field = f;
        } else if let Some(k) = seg.strip_prefix("k:") {
            let key: Map<String, Value> = serde_json::from_str(k).ok()?;
            let items = cur.as_array()?;
            let _ = parent_field;
            cur = items
                .iter()
                .find(|i| key.iter().all(|(kk, kv)| i.get(kk) == Some(kv)))?;
        } else {
            return None;
        }
    }
    Some(cur)
}

/// Removes the value at a path (a map field or a keyed list item).
pub fn remove_at(obj: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = obj;
    for seg in parents {
        let next = if let Some(f) = seg.strip_prefix("f:") {
            cur.get_mut(f)
        } else if let Some(k) = seg.strip_prefix("k:") {
            let Ok(key) = serde_json::from_str::<Map<String, Value>>(k) else {
                return;
            };
            cur.as_array_mut().and_then(|items| {
                items
                    .iter_mut()
                    .find(|i| key.iter().all(|(kk, kv)| i.get(kk) == Some(kv)))
            })
        } else {
            None
        };
        match next {
            Some(n) => cur = n,
            None => return,
        }
    }
    if let Some(f) = last.strip_prefix("f:") {
        if let Some(m) = cur.as_object_mut() {
            m.remove(f);
        }
    } else if let Some(k) = last.strip_prefix("k:") {
        if let (Ok(key), Some(items)) = (
            serde_json::from_str::<Map<String, Value>>(k),
            cur.as_array_mut(),
        ) {
            items.retain(|i| !key.iter().all(|(kk, kv)| i.get(kk) == Some(kv)));
        }
    }
}

/// Renders a field set as a FieldsV1 tree.
pub fn to_fields_v1(set: &FieldSet) -> Value {
    let mut root = Map::new();
    for path in set {
        let mut cur = &mut root;
        for seg in path {
            let is_item = seg.starts_with("k:");
            let entry = cur
                .entry(seg.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(m) = entry else { break };
            if is_item {
                m.entry(".".to_string()).or_insert_with(|| json!({}));
            }
            cur = m;
        }
    }
    Value::Object(root)
}

/// Parses FieldsV1 back into leaf paths.
pub fn from_fields_v1(v: &Value) -> FieldSet {
    fn walk(v: &Value, prefix: &mut Path, out: &mut FieldSet) {
        let Some(m) = v.as_object() else { return };
        let children: Vec<_> = m.iter().filter(|(k, _)| k.as_str() != ".").collect();
        if children.is_empty() {
            if !prefix.is_empty() {
                out.insert(prefix.clone());
            }
            return;
        }
        for (k, c) in children {
            prefix.push(k.clone());
            walk(c, prefix, out);
            prefix.pop();
        }
    }
    let mut out = FieldSet::new();
    walk(v, &mut vec![], &mut out);
    out
}

/// `.spec.replicas`, `.spec.containers[name="nginx"].image` style for conflict messages.
pub fn display_path(path: &[String]) -> String {
    let mut s = String::new();
    for seg in path {
        if let Some(f) = seg.strip_prefix("f:") {
            s.push('.');
            s.push_str(f);
        } else if let Some(k) = seg.strip_prefix("k:") {
            if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(k) {
                let inner: Vec<String> = m.iter().map(|(kk, vv)| format!("{kk}={vv}")).collect();
                s.push_str(&format!("[{}]", inner.join(",")));
            }
        }
    }
    s
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub manager: String,
    pub operation: String,
    pub api_version: String,
    pub subresource: String,
    pub time: String,
    pub fields: FieldSet,
}

pub fn read_entries(obj: &Value) -> Vec<Entry> {
    obj["metadata"]["managedFields"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| {
                    Some(Entry {
                        manager: e["manager"].as_str()?.into(),
                        operation: e["operation"].as_str().unwrap_or("Update").into(),
                        api_version: e["apiVersion"].as_str().unwrap_or_default().into(),
                        subresource: e["subresource"].as_str().unwrap_or_default().into(),
                        time: e["time"].as_str().unwrap_or_default().into(),
                        fields: from_fields_v1(&e["fieldsV1"]),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn write_entries(obj: &mut Value, entries: &[Entry]) {
    let list: Vec<Value> = entries
        .iter()
        .filter(|e| !e.fields.is_empty())
        .map(|e| {
            let mut v = json!({
                "manager": e.manager, "operation": e.operation, "apiVersion": e.api_version,
                "time": e.time, "fieldsType": "FieldsV1", "fieldsV1": to_fields_v1(&e.fields),
            });
            if !e.subresource.is_empty() {
                v["subresource"] = json!(e.subresource);
            }
            v
        })
        .collect();
    if obj.is_object() && !obj["metadata"].is_object() {
        obj["metadata"] = json!({});
    }
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        if list.is_empty() {
            meta.remove("managedFields");
        } else {
            meta.insert("managedFields".into(), Value::Array(list));
        }
    }
}

/// Who is writing and how.
pub struct Writer<'a> {
    pub manager: &'a str,
    pub api_version: &'a str,
    pub subresource: &'a str,
    pub now: &'a str,
}

fn entry_mut<'e>(entries: &'e mut Vec<Entry>, w: &Writer, operation: &str) -> &'e mut Entry {
    let pos = entries.iter().position(|e| {
        e.manager == w.manager && e.operation == operation && e.subresource == w.subresource
    });
    let idx = match pos {
        Some(i) => i,
        None => {
            entries.push(Entry {
                manager: w.manager.into(),
                operation: operation.into(),
                api_version: w.api_version.into(),
                subresource: w.subresource.into(),
                time: w.now.into(),
                fields: FieldSet::new(),
            });
            entries.len() - 1
        }
    };
    let e = &mut entries[idx];
    e.time = w.now.into();
    e.api_version = w.api_version.into();
    e
}

/// Records a non-apply write: the writer takes the leaves whose values changed.
/// `old` is None on create. Entries are read from `old` (a client cannot forge them), except
/// that a body sending `managedFields: [{}]` resets the list.
pub fn record_update(old: Option<&Value>, new: &mut Value, w: &Writer, body_reset: bool) {
    let include_status = w.subresource == "status";
    if let (Some(old), false) = (old, body_reset) {
        if let Some(entries) = entries_if_ownership_stands(old, new, w, include_status) {
            set_entries(new, entries);
            return;
        }
    }
    record_update_in_full(old, new, w, body_reset);
}

/// The usual write (a kubelet's status update, a controller's replica count): no leaf came or
/// went, and every changed leaf already belongs to this writer's entry alone. Then every
/// entry stands as it was, but the writer's time and apiVersion: they are copied from `old`
/// instead of being parsed into field sets, recomputed and written out again. `None` when
/// that does not hold (the full computation decides); `Some(Value::Null)` for no entries.
fn entries_if_ownership_stands(
    old: &Value,
    new: &Value,
    w: &Writer,
    include_status: bool,
) -> Option<Value> {
    let mut changed: Vec<Path> = Vec::new();
    let mut new_leaves = 0usize;
    let mut leaf_added = false;
    let unchanged_leaves = walk_changed_leaves(new, old, &mut |path, value, before| {
        new_leaves += 1;
        match before {
            None => leaf_added = true,
            Some(before) if before != value && (include_status || !is_status(path)) => {
                changed.push(path.clone());
            }
            Some(_) => {}
        }
    });
    // Every leaf of `new` is in `old`; as many leaves in both means none went either.
    if leaf_added || new_leaves + unchanged_leaves != count_leaves(old) {
        return None;
    }
    let entries = &old["metadata"]["managedFields"];
    if changed.is_empty() {
        return Some(entries.clone());
    }
    let list = entries.as_array()?;
    let is_writer = |e: &Value| {
        e["manager"].as_str() == Some(w.manager)
            && e["operation"].as_str().unwrap_or("Update") == "Update"
            && e["subresource"].as_str().unwrap_or_default() == w.subresource
    };
    let writer = list.iter().position(is_writer)?;
    for (i, entry) in list.iter().enumerate() {
        let mine = i == writer;
        if changed
            .iter()
            .any(|path| owns(&entry["fieldsV1"], path) != mine)
        {
            return None;
        }
    }
    let mut list = list.clone();
    list[writer]["time"] = json!(w.now);
    list[writer]["apiVersion"] = json!(w.api_version);
    Some(Value::Array(list))
}

/// Whether a FieldsV1 tree lists `path` as a leaf (the node is there, with no children but
/// the `.` of an item).
fn owns(fields_v1: &Value, path: &[String]) -> bool {
    let node = path
        .iter()
        .try_fold(fields_v1, |node, segment| node.get(segment.as_str()));
    node.and_then(Value::as_object)
        .is_some_and(|m| m.keys().all(|k| k == "."))
}

/// How many leaves [`walk_leaves`] visits in `obj`, counted without building their paths.
fn count_leaves(obj: &Value) -> usize {
    let Some(root) = obj.as_object() else {
        return 0;
    };
    root.iter()
        .map(|(k, v)| match k.as_str() {
            "apiVersion" | "kind" => 0,
            "metadata" => OWNED_METADATA
                .iter()
                .filter_map(|mk| v.get(*mk).map(|mv| count_field_leaves(mk, mv)))
                .sum(),
            _ => count_field_leaves(k, v),
        })
        .sum()
}

/// The leaves [`walk`] visits under one field.
fn count_field_leaves(field: &str, v: &Value) -> usize {
    let fields =
        |m: &Map<String, Value>| -> usize { m.iter().map(|(k, c)| count_field_leaves(k, c)).sum() };
    match v {
        Value::Object(m) if !m.is_empty() => fields(m),
        Value::Array(items) => match merge_key(field, items) {
            Some(key) if items.iter().all(|i| i.get(key).is_some()) => {
                if items.is_empty() {
                    1
                } else {
                    items.iter().filter_map(Value::as_object).map(fields).sum()
                }
            }
            _ => 1,
        },
        _ => 1,
    }
}

fn set_entries(obj: &mut Value, entries: Value) {
    if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
        if entries.is_null() {
            meta.remove("managedFields");
        } else {
            meta.insert("managedFields".into(), entries);
        }
    }
}

/// [`record_update`] computed from the field sets of every entry.
fn record_update_in_full(old: Option<&Value>, new: &mut Value, w: &Writer, body_reset: bool) {
    let include_status = w.subresource == "status";
    let mut entries = if body_reset {
        vec![]
    } else {
        old.map(read_entries).unwrap_or_default()
    };
    // The writer takes the leaves whose values changed (status ones only for status writes).
    let mut all_leaves = FieldSet::new();
    let mut changed = FieldSet::new();
    walk_leaves(new, old, &mut |path, value, before| {
        if before != Some(value) && (include_status || !is_status(path)) {
            changed.insert(path.clone());
        }
        all_leaves.insert(path.clone());
    });
    for e in entries.iter_mut() {
        e.fields
            .retain(|p| all_leaves.contains(p) && !changed.contains(p));
    }
    if !changed.is_empty() {
        let e = entry_mut(&mut entries, w, "Update");
        e.fields.extend(changed);
    }
    write_entries(new, &entries);
}

/// Merges an apply configuration into `current` (None when creating) and updates ownership.
pub fn apply(
    current: Option<&Value>,
    config: &Value,
    w: &Writer,
    force: bool,
) -> Result<Value, ApiError> {
    let include_status = w.subresource == "status";
    let mut entries = current.map(read_entries).unwrap_or_default();
    let applied = leaf_paths(config, include_status);
    let mut result = current.cloned().unwrap_or_else(|| json!({}));
    apply_merge(&mut result, config);

    let mut causes = vec![];
    for e in entries.iter_mut() {
        if e.manager == w.manager {
            continue;
        }
        let overlapping: Vec<Path> = e.fields.intersection(&applied).cloned().collect();
        for p in overlapping {
            let differs = current.and_then(|c| value_at(c, &p)) != value_at(config, &p);
            if !differs {
                continue;
            }
            if force {
                e.fields.remove(&p);
            } else {
                causes.push(Cause::new(
                    "FieldManagerConflict",
                    &display_path(&p),
                    format!("conflict with {:?} using {}", e.manager, e.api_version),
                ));
            }
        }
    }
    if !causes.is_empty() {
        return Err(ApiError::apply_conflict(causes));
    }
    // Fields this manager applied before but dropped now are removed unless someone else owns them.
    let previously: FieldSet = entries
        .iter()
        .filter(|e| {
            e.manager == w.manager && e.operation == "Apply" && e.subresource == w.subresource
        })
        .flat_map(|e| e.fields.iter().cloned())
        .collect();
    for p in previously.difference(&applied) {
        let owned_elsewhere = entries
            .iter()
            .any(|e| !(e.manager == w.manager && e.operation == "Apply") && e.fields.contains(p));
        if !owned_elsewhere {
            remove_at(&mut result, p);
        }
    }
    let entry = entry_mut(&mut entries, w, "Apply");
    entry.fields = applied;
    write_entries(&mut result, &entries);
    Ok(result)
}

/// Apply's merge: maps merge, keyed lists merge by key, other lists and scalars replace.
fn apply_merge(target: &mut Value, config: &Value) {
    match (target, config) {
        (Value::Object(t), Value::Object(c)) => {
            for (k, v) in c {
                if k == "managedFields" {
                    continue;
                }
                match (t.get_mut(k), v) {
                    (Some(existing @ Value::Object(_)), Value::Object(_)) => {
                        apply_merge(existing, v)
                    }
                    (Some(Value::Array(existing)), Value::Array(items)) => {
                        let all: Vec<Value> =
                            existing.iter().chain(items.iter()).cloned().collect();
                        match merge_key(k, &all) {
                            Some(key) if all.iter().all(|i| i.get(key).is_some()) => {
                                let mut out = vec![];
                                for item in items {
                                    match existing.iter().find(|e| e.get(key) == item.get(key)) {
                                        Some(old) => {
                                            let mut merged = old.clone();
                                            apply_merge(&mut merged, item);
                                            out.push(merged);
                                        }
                                        None => out.push(item.clone()),
                                    }
                                }
                                // Items applied by others stay, after the applied ones.
                                for old in existing.iter() {
                                    if !items.iter().any(|i| i.get(key) == old.get(key)) {
                                        out.push(old.clone());
                                    }
                                }
                                *existing = out;
                            }
                            _ => *existing = items.clone(),
                        }
                    }
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (t, c) => *t = c.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w<'a>(m: &'a str) -> Writer<'a> {
        Writer {
            manager: m,
            api_version: "v1",
            subresource: "",
            now: "2024-01-01T00:00:00Z",
        }
    }

    #[test]
    fn fields_v1_round_trip() {
        let obj = json!({"metadata": {"labels": {"a": "1"}}, "spec": {"replicas": 1,
            "containers": [{"name": "x", "image": "i"}]}});
        let set = leaf_paths(&obj, false);
        assert_eq!(from_fields_v1(&to_fields_v1(&set)), set);
        assert!(
            to_fields_v1(&set)["f:spec"]["f:containers"]["k:{\"name\":\"x\"}"]["."].is_object()
        );
    }

    #[test]
    fn apply_conflicts_then_force_takes_over() {
        let mut obj = json!({"metadata": {"name": "c"}, "data": {"k": "1"}});
        record_update(None, &mut obj, &w("editor"), false);
        let err = apply(
            Some(&obj),
            &json!({"data": {"k": "2"}}),
            &w("applier"),
            false,
        )
        .unwrap_err();
        assert_eq!(err.code, 409);
        assert!(
            err.message.contains("conflict with \"editor\""),
            "{}",
            err.message
        );
        let forced = apply(
            Some(&obj),
            &json!({"data": {"k": "2"}}),
            &w("applier"),
            true,
        )
        .unwrap();
        assert_eq!(forced["data"]["k"], "2");
        let entries = read_entries(&forced);
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].manager, "applier");
    }

    #[test]
    fn apply_removes_fields_it_stopped_applying() {
        let first = apply(None, &json!({"data": {"a": "1", "b": "2"}}), &w("m"), false).unwrap();
        let second = apply(Some(&first), &json!({"data": {"a": "1"}}), &w("m"), false).unwrap();
        assert_eq!(second["data"], json!({"a": "1"}));
    }

    /// The fields a manager owns, as display paths.
    fn owned(obj: &Value, manager: &str) -> Vec<String> {
        read_entries(obj)
            .into_iter()
            .filter(|e| e.manager == manager)
            .flat_map(|e| e.fields.into_iter().map(|p| display_path(&p)))
            .collect()
    }

    #[test]
    fn the_usual_write_keeps_the_entries_the_full_computation_gives() {
        let kubelet = Writer {
            subresource: "status",
            ..w("kubelet")
        };
        let mut pod = json!({"metadata": {"name": "p", "labels": {"app": "web", "tier": "a"}},
            "spec": {"containers": [{"name": "web", "image": "a"}], "replicas": 1}});
        record_update(None, &mut pod, &w("creator"), false);
        // (change, writer, whether the entries stand as they were but the writer's time)
        type Change = fn(&mut Value);
        let steps: Vec<(Change, &Writer, bool)> = vec![
            (
                |p| {
                    p["status"] = json!({"phase": "Running", "containerStatuses": [
                        {"name": "web", "restartCount": 0}],
                        "conditions": [{"type": "Ready", "status": "True"}]});
                },
                &kubelet,
                false,
            ),
            (
                |p| p["status"]["conditions"][0]["status"] = json!("False"),
                &kubelet,
                true,
            ),
            (
                |p| p["status"]["containerStatuses"][0]["restartCount"] = json!(3),
                &kubelet,
                true,
            ),
            (|_| {}, &kubelet, true),
            // Someone else's leaf changes hands.
            (|p| p["spec"]["replicas"] = json!(2), &kubelet, false),
            (
                |p| p["metadata"]["labels"]["tier"] = json!("b"),
                &kubelet,
                false,
            ),
            // A leaf goes.
            (
                |p| {
                    p["metadata"]["labels"]
                        .as_object_mut()
                        .map(|l| l.remove("app"));
                },
                &kubelet,
                false,
            ),
        ];
        for (i, (change, writer, stands)) in steps.into_iter().enumerate() {
            let mut next = pod.clone();
            change(&mut next);
            let include_status = writer.subresource == "status";
            assert_eq!(
                entries_if_ownership_stands(&pod, &next, writer, include_status).is_some(),
                stands,
                "step {i}"
            );
            let mut in_full = next.clone();
            record_update_in_full(Some(&pod), &mut in_full, writer, false);
            record_update(Some(&pod), &mut next, writer, false);
            assert_eq!(next, in_full, "step {i}");
            pod = next;
        }
        assert!(owned(&pod, "kubelet").contains(&".spec.replicas".to_string()));
    }

    #[test]
    fn a_status_write_takes_the_leaves_it_changed_in_keyed_lists_and_no_others() {
        let created = json!({"metadata": {"name": "p", "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "a"}]}});
        let mut pod = created.clone();
        record_update(None, &mut pod, &w("creator"), false);
        let kubelet = Writer {
            subresource: "status",
            ..w("kubelet")
        };
        let mut running = pod.clone();
        running["status"] = json!({"phase": "Running", "conditions": [
            {"type": "Ready", "status": "True"}, {"type": "Initialized", "status": "True"}],
            "containerStatuses": [{"name": "web", "restartCount": 0}]});
        record_update(Some(&pod), &mut running, &kubelet, false);
        let mut restarted = running.clone();
        restarted["status"]["containerStatuses"][0]["restartCount"] = json!(1);
        restarted["status"]["conditions"][0]["status"] = json!("False");
        // A status write's body may change the spec; it does not take the spec's leaves.
        restarted["spec"]["containers"][0]["image"] = json!("b");
        record_update(Some(&running), &mut restarted, &w("scheduler"), false);
        let mut status_only = running.clone();
        status_only["status"]["containerStatuses"][0]["restartCount"] = json!(1);
        status_only["status"]["conditions"][0]["status"] = json!("False");
        let writer = Writer {
            subresource: "status",
            ..w("restarter")
        };
        record_update(Some(&running), &mut status_only, &writer, false);
        assert_eq!(
            owned(&status_only, "restarter"),
            vec![
                ".status.conditions[type=\"Ready\"].status",
                // Atomic, as kube-apiserver's schema has it: the writer owns the whole list.
                ".status.containerStatuses"
            ]
        );
        let kubelet_kept = owned(&status_only, "kubelet");
        assert!(
            kubelet_kept.contains(&".status.phase".to_string()),
            "{kubelet_kept:?}"
        );
        assert!(
            kubelet_kept.contains(&".status.conditions[type=\"Initialized\"].status".to_string())
        );
        assert!(!kubelet_kept.contains(&".status.conditions[type=\"Ready\"].status".to_string()));
        // A spec write (no subresource) takes what it changed outside status, not status.
        assert_eq!(
            owned(&restarted, "scheduler"),
            vec![".spec.containers[name=\"web\"].image"]
        );
        // Leaves that are gone leave every entry.
        let mut without_label = status_only.clone();
        without_label["metadata"]["labels"] = json!({});
        record_update(Some(&status_only), &mut without_label, &w("editor"), false);
        assert!(!owned(&without_label, "creator").contains(&".metadata.labels.app".to_string()));
    }
}
