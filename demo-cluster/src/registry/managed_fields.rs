//! Field ownership for server-side apply and `managedFields`.
//!
//! A simplified model of structured-merge-diff: an object's owned fields are the set of leaf
//! paths (FieldsV1 keys such as `f:spec`, `f:replicas`, `k:{"name":"nginx"}`); lists that
//! kube-apiserver's schema declares maps (`x-kubernetes-list-map-keys`) are tracked per item,
//! other lists as one atomic leaf. Update writes take ownership of the leaves they changed,
//! and of each map or keyed list they created (its `.`); apply takes ownership of the leaves
//! in its configuration, reports conflicts with other managers whose values differ, and
//! removes leaves it stopped applying.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::patch::merge_key;
use crate::errors::{ApiError, Cause};

/// The segment that marks a map or list node owned itself (FieldsV1's `.`).
const NODE: &str = ".";

pub type Path = Vec<String>;
pub type FieldSet = BTreeSet<Path>;

/// Metadata fields users own; everything else in metadata is system-managed.
const OWNED_METADATA: &[&str] = &["labels", "annotations", "finalizers", "ownerReferences"];

/// Leaf paths of an object, as ownership sees them. `status` only counts for status writes.
pub fn leaf_paths(obj: &Value, include_status: bool) -> FieldSet {
    let mut out = FieldSet::new();
    // An applied configuration owns its leaves and list items, not the maps around them.
    walk_leaves(obj, None, &mut |path, _, _| {
        if (include_status || !is_status(path)) && !is_map_node(path) {
            out.insert(path.clone());
        }
    });
    out
}

/// A map's or list's own node (`.`), which only an Update that creates it owns; a list
/// item's `.` is owned by whoever applies or adds the item.
fn is_map_node(path: &[String]) -> bool {
    match path {
        [.., parent, last] => last == NODE && !parent.starts_with("k:"),
        _ => false,
    }
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
    walk_object(obj, old, visit, false);
}

/// [`walk_leaves`], but subtrees equal in both objects are not walked: a write changes a few
/// leaves, and building every leaf's path was most of the usual write's cost.
fn walk_changed_leaves<'a>(
    obj: &'a Value,
    old: &'a Value,
    visit: &mut dyn FnMut(&Path, &'a Value, Option<&'a Value>),
) {
    walk_object(obj, Some(old), visit, true);
}

fn walk_object<'a>(
    obj: &'a Value,
    old: Option<&'a Value>,
    visit: &mut dyn FnMut(&Path, &'a Value, Option<&'a Value>),
    skip_equal: bool,
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
                        walk(mk, mv, before, &mut prefix, visit, skip_equal);
                    }
                }
            }
            _ => walk(k, v, before, &mut vec![], visit, skip_equal),
        }
    }
}

fn walk<'a>(
    field: &str,
    v: &'a Value,
    before: Option<&'a Value>,
    prefix: &mut Path,
    visit: &mut dyn FnMut(&Path, &'a Value, Option<&'a Value>),
    skip_equal: bool,
) {
    if skip_equal && before == Some(v) {
        return;
    }
    prefix.push(format!("f:{field}"));
    match v {
        // Atomic structs and maps (`+structType=atomic`, `+mapType=atomic`): label selectors
        // and a binding's roleRef are owned whole, as one leaf.
        Value::Object(m) if !m.is_empty() && is_atomic(field) => visit(prefix, v, before),
        Value::Object(m) if !m.is_empty() => {
            visit_node(v, before, prefix, visit);
            for (k, c) in m {
                walk(
                    k,
                    c,
                    before.and_then(|b| b.get(k)),
                    prefix,
                    visit,
                    skip_equal,
                );
            }
        }
        Value::Array(items) => match list_map_keys(field, items, prefix) {
            Some(keys) if !items.is_empty() => {
                visit_node(v, before, prefix, visit);
                let before_items = before.and_then(Value::as_array);
                for item in items {
                    let key = item_key(item, keys);
                    let item_before =
                        before_items.and_then(|list| list.iter().find(|b| item_matches(b, &key)));
                    prefix.push(format!("k:{}", Value::Object(key)));
                    visit_node(item, item_before, prefix, visit);
                    if let Some(m) = item.as_object() {
                        for (k, c) in m {
                            let before = item_before.and_then(|b| b.get(k));
                            walk(k, c, before, prefix, visit, skip_equal);
                        }
                    }
                    prefix.pop();
                }
            }
            _ => visit(prefix, v, before),
        },
        _ => visit(prefix, v, before),
    }
    prefix.pop();
}

/// Visits a map's or keyed list's own node (`.`): changed only when the write creates it,
/// which is how kube-apiserver's comparison of the old and new objects reads (a map or list
/// absent before is added as a whole, its `.` included). A node Go's zero value of the kind
/// always has (a non-pointer struct such as `spec.template`, a list without `omitempty` such
/// as `containers`) exists before any write.
fn visit_node<'a>(
    v: &'a Value,
    before: Option<&'a Value>,
    prefix: &mut Path,
    visit: &mut dyn FnMut(&Path, &'a Value, Option<&'a Value>),
) {
    let existed = before.is_some() || in_zero_value(prefix);
    prefix.push(NODE.to_string());
    visit(prefix, v, existed.then_some(v));
    prefix.pop();
}

/// Paths (from the root, through no list item) that Go's zero value of a built-in kind
/// holds: non-pointer structs and lists serialised without `omitempty`.
fn in_zero_value(path: &[String]) -> bool {
    const CHAINS: &[&[&str]] = &[
        &["spec"],
        &["status"],
        &["spec", "containers"],
        &["spec", "template"],
        &["spec", "template", "metadata"],
        &["spec", "template", "spec"],
        &["spec", "template", "spec", "containers"],
        &["spec", "strategy"],
        &["spec", "updateStrategy"],
        &["spec", "resources"],
        &["spec", "scaleTargetRef"],
        &["spec", "jobTemplate"],
        &["spec", "jobTemplate", "metadata"],
        &["spec", "jobTemplate", "spec"],
        &["spec", "jobTemplate", "spec", "template"],
        &["spec", "jobTemplate", "spec", "template", "metadata"],
        &["spec", "jobTemplate", "spec", "template", "spec"],
        &[
            "spec",
            "jobTemplate",
            "spec",
            "template",
            "spec",
            "containers",
        ],
        &["involvedObject"],
        &["source"],
        &["rules"],
        &["endpoints"],
    ];
    CHAINS.iter().any(|chain| {
        chain.len() == path.len()
            && chain
                .iter()
                .zip(path)
                .all(|(name, segment)| segment.strip_prefix("f:") == Some(*name))
    })
}

/// The key fields of a list kube-apiserver's schema declares a map
/// (`x-kubernetes-list-map-keys`), by the list's field name and where it is; `None` for the
/// atomic lists (tolerations, a Service's selector terms, EndpointSlice ports, ...).
fn list_map_keys(
    field: &str,
    items: &[Value],
    prefix: &[String],
) -> Option<&'static [&'static str]> {
    const NAME: &[&str] = &["name"];
    let at_root = prefix.len() == 1;
    let keys: &'static [&'static str] = match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "env"
        | "resourceClaims"
        | "schedulingGates"
        | "claims"
        | "webhooks"
        | "matchConditions"
        | "secrets" => NAME,
        // A PodSpec's are a map; a ServiceAccount's (at the root) are atomic.
        "imagePullSecrets" if !at_root => NAME,
        "ports" if items.iter().any(|i| i.get("containerPort").is_some()) => {
            &["containerPort", "protocol"]
        }
        // A Service's ports; EndpointSlices' and NetworkPolicy rules' are atomic.
        "ports" if prefix == ["f:spec".to_string(), "f:ports".to_string()] => &["port", "protocol"],
        "topologySpreadConstraints" => &["topologyKey", "whenUnsatisfiable"],
        "volumeMounts" => &["mountPath"],
        "volumeDevices" => &["devicePath"],
        "conditions" => &["type"],
        "ownerReferences" => &["uid"],
        "hostAliases" | "podIPs" => &["ip"],
        "addresses" if prefix == ["f:status".to_string(), "f:addresses".to_string()] => &["type"],
        _ => return None,
    };
    items
        .iter()
        .all(|item| {
            keys.iter()
                .all(|k| item.get(*k).is_some() || key_default(k).is_some())
        })
        .then_some(keys)
}

/// A key field's schema default, which counts when the item leaves it out (a port's
/// protocol is TCP unless said otherwise).
fn key_default(field: &str) -> Option<Value> {
    (field == "protocol").then(|| json!("TCP"))
}

/// An item's key (its key fields, defaults filled in, in name order as FieldsV1 writes them).
fn item_key(item: &Value, keys: &[&str]) -> Map<String, Value> {
    let mut names: Vec<&str> = keys.to_vec();
    names.sort_unstable();
    names
        .into_iter()
        .filter_map(|k| {
            let value = item.get(k).cloned().or_else(|| key_default(k))?;
            Some((k.to_string(), value))
        })
        .collect()
}

/// Whether `item` has the key `key` (a key field it leaves out takes its default).
fn item_matches(item: &Value, key: &Map<String, Value>) -> bool {
    key.iter().all(|(field, value)| match item.get(field) {
        Some(own) => own == value,
        None => key_default(field).as_ref() == Some(value),
    })
}

/// Fields kube-apiserver's schema declares atomic wherever they appear: LabelSelectors
/// (workloads', PDBs', Services' `selector`, NetworkPolicies' pod and namespace selectors)
/// and RBAC bindings' `roleRef`.
fn is_atomic(field: &str) -> bool {
    matches!(
        field,
        "selector"
            | "podSelector"
            | "namespaceSelector"
            | "labelSelector"
            | "roleRef"
            | "nodeSelector"
            | "requiredDuringSchedulingIgnoredDuringExecution"
    )
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
            cur = items.iter().find(|i| item_matches(i, &key))?;
        } else {
            return None;
        }
    }
    Some(cur)
}

/// Removes the value at a path (a map field or a keyed list item).
pub fn remove_at(obj: &mut Value, path: &[String]) {
    // A node's `.` stands for the node: an item no longer applied goes whole.
    if let Some((last, node)) = path.split_last() {
        if last == NODE {
            return remove_at(obj, node);
        }
    }
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
            cur.as_array_mut()
                .and_then(|items| items.iter_mut().find(|i| item_matches(i, &key)))
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
            items.retain(|i| !item_matches(i, &key));
        }
    }
}

/// Renders a field set as a FieldsV1 tree.
pub fn to_fields_v1(set: &FieldSet) -> Value {
    let mut root = Value::Object(Map::new());
    for path in set {
        insert_leaf(&mut root, path);
    }
    root
}

/// Parses FieldsV1 back into leaf paths.
pub fn from_fields_v1(v: &Value) -> FieldSet {
    fn walk(v: &Value, prefix: &mut Path, out: &mut FieldSet) {
        let Some(m) = v.as_object() else { return };
        // A `.` is the node owned itself (a map, a list, a list item).
        if m.contains_key(NODE) && !prefix.is_empty() {
            let mut node = prefix.clone();
            node.push(NODE.to_string());
            out.insert(node);
        }
        let children: Vec<_> = m.iter().filter(|(k, _)| k.as_str() != NODE).collect();
        if children.is_empty() {
            if !prefix.is_empty() && !m.contains_key(NODE) {
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
        .map(entry_json)
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

fn entry_json(e: &Entry) -> Value {
    let mut v = json!({
        "manager": e.manager, "operation": e.operation, "apiVersion": e.api_version,
        "time": e.time, "fieldsType": "FieldsV1", "fieldsV1": to_fields_v1(&e.fields),
    });
    if !e.subresource.is_empty() {
        v["subresource"] = json!(e.subresource);
    }
    v
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
        if let Some(entries) = entries_edited_in_place(old, new, w, include_status) {
            set_entries(new, entries);
            return;
        }
    }
    record_update_in_full(old, new, w, body_reset);
}

/// [`record_update`] for an update, as edits of `old`'s FieldsV1 trees: only the subtrees the
/// write changed are walked, and only the leaves that changed, came or went are moved between
/// entries, instead of parsing every entry into a field set, recomputing and writing all
/// back (most of a kubelet status write's cost). The entries are those the full computation
/// gives (a unit test holds the two equal). `Some(Value::Null)` for no entries; `None` when
/// `old`'s entries are not a list (the full computation decides).
fn entries_edited_in_place(
    old: &Value,
    new: &Value,
    w: &Writer,
    include_status: bool,
) -> Option<Value> {
    let entries = &old["metadata"]["managedFields"];
    if !(entries.is_null() || entries.is_array()) {
        return None;
    }
    // Leaves of the changed subtrees in each version: a leaf of `old` that `new` lacks is
    // gone (equal subtrees are skipped in both walks alike, so they hold the same leaves).
    let mut taken: Vec<Path> = Vec::new();
    let mut new_leaves = FieldSet::new();
    walk_changed_leaves(new, old, &mut |path, value, before| {
        if before != Some(value) && (include_status || !is_status(path)) {
            taken.push(path.clone());
        }
        new_leaves.insert(path.clone());
    });
    let mut gone: Vec<Path> = Vec::new();
    walk_changed_leaves(old, new, &mut |path, _, _| {
        if !new_leaves.contains(path) {
            gone.push(path.clone());
        }
    });
    if taken.is_empty() && gone.is_empty() {
        return Some(entries.clone());
    }
    let mut list = entries.as_array().cloned().unwrap_or_default();
    let is_writer = |e: &Value| {
        e["manager"].as_str() == Some(w.manager)
            && e["operation"].as_str().unwrap_or("Update") == "Update"
            && e["subresource"].as_str().unwrap_or_default() == w.subresource
    };
    let writer = list.iter().position(is_writer);
    for (i, entry) in list.iter_mut().enumerate() {
        let Some(tree) = entry.get_mut("fieldsV1") else {
            continue;
        };
        let others_lose = if Some(i) == writer {
            &[][..]
        } else {
            &taken[..]
        };
        for path in gone.iter().chain(others_lose) {
            remove_leaf(tree, path);
        }
    }
    if !taken.is_empty() {
        match writer {
            Some(i) => {
                let entry = &mut list[i];
                for path in &taken {
                    insert_leaf(&mut entry["fieldsV1"], path);
                }
                entry["time"] = json!(w.now);
                entry["apiVersion"] = json!(w.api_version);
            }
            None => {
                let fields: FieldSet = taken.into_iter().collect();
                list.push(entry_json(&Entry {
                    manager: w.manager.into(),
                    operation: "Update".into(),
                    api_version: w.api_version.into(),
                    subresource: w.subresource.into(),
                    time: w.now.into(),
                    fields,
                }));
            }
        }
    }
    list.retain(|e| e["fieldsV1"].as_object().is_some_and(|m| !m.is_empty()));
    Some(if list.is_empty() {
        Value::Null
    } else {
        Value::Array(list)
    })
}

/// Adds `path` to a FieldsV1 tree as a leaf.
fn insert_leaf(tree: &mut Value, path: &[String]) {
    let mut node = tree;
    for segment in path {
        let Some(map) = node.as_object_mut() else {
            return;
        };
        node = map
            .entry(segment.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
}

/// Whether a FieldsV1 node is a leaf or bare: no children (a `.` is ownership of the node
/// itself, which keeps it).
fn is_bare(node: &Value) -> bool {
    node.as_object().is_none_or(|m| m.is_empty())
}

/// Removes the leaf `path` from a FieldsV1 tree if the tree owns it, and the nodes left
/// without children above it (a bare node would read back as an owned leaf). Returns
/// whether the node at the path's first segment went.
fn remove_leaf(tree: &mut Value, path: &[String]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return false;
    };
    let Some(map) = tree.as_object_mut() else {
        return false;
    };
    let Some(child) = map.get_mut(first.as_str()) else {
        return false;
    };
    let goes = (rest.is_empty() || remove_leaf(child, rest)) && is_bare(child);
    if goes {
        map.remove(first.as_str());
    }
    goes
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
        // An item (its `.`) stays while anyone else owns something in it.
        let within = match p.split_last() {
            Some((last, node)) if last == NODE => node,
            _ => &p[..],
        };
        let owned_elsewhere = entries.iter().any(|e| {
            !(e.manager == w.manager && e.operation == "Apply")
                && e.fields.iter().any(|q| q.starts_with(within))
        });
        if !owned_elsewhere {
            remove_at(&mut result, p);
        }
    }
    let entry = entry_mut(&mut entries, w, "Apply");
    entry.fields = applied;
    write_entries(&mut result, &entries);
    Ok(result)
}

/// An apply that creates the object: `created` (its configuration as the create prepared
/// it) with one Apply entry owning what `config` says.
pub fn apply_created(mut created: Value, config: &Value, w: &Writer) -> Value {
    let mut entries = vec![];
    entry_mut(&mut entries, w, "Apply").fields = leaf_paths(config, w.subresource == "status");
    write_entries(&mut created, &entries);
    created
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
        // The editor keeps the map it created (`.`), as on kube-apiserver; the key is taken.
        let editor = &forced["metadata"]["managedFields"][0];
        assert_eq!(editor["manager"], "editor");
        assert_eq!(editor["fieldsV1"], json!({"f:data": {".": {}}}));
        assert_eq!(owned(&forced, "applier"), vec![".data.k".to_string()]);
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

    /// Records `next` over `prev` both ways and checks they agree; returns the result.
    fn record_both_ways(prev: &Value, mut next: Value, writer: &Writer, context: &str) -> Value {
        let mut in_full = next.clone();
        record_update_in_full(Some(prev), &mut in_full, writer, false);
        record_update(Some(prev), &mut next, writer, false);
        assert_eq!(
            next["metadata"]["managedFields"], in_full["metadata"]["managedFields"],
            "{context}"
        );
        next
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
        let (editor, creator) = (w("editor"), w("creator"));
        type Change = fn(&mut Value);
        let steps: Vec<(Change, &Writer)> = vec![
            (
                |p| {
                    p["status"] = json!({"phase": "Running", "containerStatuses": [
                        {"name": "web", "restartCount": 0, "lastState": {}}],
                        "conditions": [{"type": "Ready", "status": "True"}]});
                },
                &kubelet,
            ),
            (
                |p| p["status"]["conditions"][0]["status"] = json!("False"),
                &kubelet,
            ),
            // Leaves come and go inside a keyed item.
            (
                |p| p["status"]["conditions"][0]["reason"] = json!("ContainersNotReady"),
                &kubelet,
            ),
            (
                |p| {
                    p["status"]["conditions"][0]
                        .as_object_mut()
                        .map(|c| c.remove("reason"));
                },
                &kubelet,
            ),
            (|_| {}, &kubelet),
            // Someone else's leaf changes hands.
            (|p| p["spec"]["replicas"] = json!(2), &kubelet),
            (|p| p["metadata"]["labels"]["tier"] = json!("b"), &kubelet),
            // An empty object (a leaf) gains fields, then loses them.
            (|p| p["spec"]["securityContext"] = json!({}), &kubelet),
            (
                |p| p["spec"]["securityContext"] = json!({"runAsUser": 1}),
                &editor,
            ),
            (|p| p["spec"]["securityContext"] = json!({}), &creator),
            // A leaf goes.
            (
                |p| {
                    p["metadata"]["labels"]
                        .as_object_mut()
                        .map(|l| l.remove("app"));
                },
                &kubelet,
            ),
        ];
        for (i, (change, writer)) in steps.into_iter().enumerate() {
            let mut next = pod.clone();
            change(&mut next);
            pod = record_both_ways(&pod, next, writer, &format!("step {i}"));
        }
        assert!(owned(&pod, "kubelet").contains(&".spec.replicas".to_string()));
        assert!(owned(&pod, "creator").contains(&".spec.securityContext".to_string()));
        assert!(!owned(&pod, "editor").contains(&".spec.securityContext.runAsUser".to_string()));
    }

    /// A random change of a pod-like object: labels, keyed conditions, containers, a field
    /// that is an empty object or not, whole subtrees coming and going.
    fn random_change(obj: &mut Value, rng: &mut crate::load::rng::Rng) {
        let word = |rng: &mut crate::load::rng::Rng| ["a", "b", "c", "d"][rng.below(4)];
        match rng.below(9) {
            0 => obj["metadata"]["labels"][word(rng)] = json!(word(rng)),
            1 => {
                let key = word(rng);
                if let Some(labels) = obj["metadata"]["labels"].as_object_mut() {
                    labels.remove(key);
                }
            }
            2 | 3 => {
                let kind = ["Ready", "ContainersReady", "Initialized"][rng.below(3)];
                let mut condition = json!({"type": kind, "status": word(rng)});
                if rng.chance(0.5) {
                    condition["reason"] = json!(word(rng));
                }
                let conditions = obj["status"]["conditions"].as_array().cloned();
                let mut conditions = conditions.unwrap_or_default();
                match conditions.iter().position(|c| c["type"] == kind) {
                    Some(at) if rng.chance(0.2) => {
                        conditions.remove(at);
                    }
                    Some(at) => conditions[at] = condition,
                    None => conditions.push(condition),
                }
                obj["status"]["conditions"] = json!(conditions);
            }
            4 => {
                obj["status"]["containerStatuses"][0]["lastState"] = if rng.chance(0.5) {
                    json!({})
                } else {
                    json!({"terminated": {"exitCode": rng.below(3)}})
                }
            }
            5 => {
                let name = word(rng);
                let containers = obj["spec"]["containers"].as_array().cloned();
                let mut containers = containers.unwrap_or_default();
                match containers.iter().position(|c| c["name"] == name) {
                    Some(at) if containers.len() > 1 && rng.chance(0.3) => {
                        containers.remove(at);
                    }
                    Some(at) => containers[at]["image"] = json!(word(rng)),
                    None => containers.push(json!({"name": name, "image": word(rng)})),
                }
                obj["spec"]["containers"] = json!(containers);
            }
            6 => {
                obj["spec"]["securityContext"] = match rng.below(3) {
                    0 => json!({}),
                    1 => json!({"runAsUser": rng.below(3)}),
                    _ => json!({"runAsUser": 1, "fsGroup": rng.below(3)}),
                }
            }
            7 => {
                if rng.chance(0.5) {
                    obj["spec"]["nodeName"] = json!(word(rng));
                } else if let Some(spec) = obj["spec"].as_object_mut() {
                    spec.remove("nodeName");
                }
            }
            _ => obj["status"]["phase"] = json!(word(rng)),
        }
    }

    #[test]
    fn random_writes_by_several_managers_keep_the_entries_the_full_computation_gives() {
        let managers = ["creator", "kubelet", "scheduler", "editor"];
        for seed in 0..300u64 {
            let mut rng = crate::load::rng::Rng::new(seed);
            let mut pod = json!({"metadata": {"name": "p", "labels": {"a": "a"}},
                "spec": {"containers": [{"name": "a", "image": "a"}]},
                "status": {"containerStatuses": [{"name": "a", "lastState": {}}]}});
            record_update(None, &mut pod, &w("creator"), false);
            for step in 0..40 {
                let mut next = pod.clone();
                for _ in 0..rng.between(1, 3) {
                    random_change(&mut next, &mut rng);
                }
                let writer = Writer {
                    subresource: if rng.chance(0.5) { "status" } else { "" },
                    ..w(managers[rng.below(managers.len())])
                };
                let context = format!("seed {seed} step {step}");
                pod = record_both_ways(&pod, next, &writer, &context);
            }
        }
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
