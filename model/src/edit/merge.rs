//! Reapplying an edit after a 409 Conflict: someone wrote the object while it was being
//! edited. Your changes (base -> yours) are replayed onto the latest object from the server
//! (theirs) wherever the two touched different fields, as `kubectl edit` users do by hand.
//! List items are matched by their merge key where the list has one (containers by `name`,
//! conditions by `type`, see [`merge_key_for`]); other lists are replaced whole, so both
//! sides changing one is a conflict. Where both changed the same field differently, the
//! merged object keeps theirs and a [`Conflict`] says so; [`resolve`] applies the picks.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::editable::without_bookkeeping;
use crate::history::diff::merge_key_for;
use crate::history::{diff_values, FieldChange, FieldPath, Segment};
use crate::object::pointer::Pointer;

/// The result of replaying your edit onto the latest object.
#[derive(Debug, Clone, PartialEq)]
pub struct Merge {
    /// Theirs with your changes, theirs' value where you conflict, and theirs'
    /// `metadata.resourceVersion`, so the next PUT is made against the latest version.
    /// In editor form (see [`super::editable`]).
    pub merged: Value,
    /// What you changed since the edit started.
    pub yours: Vec<FieldChange>,
    /// What was written meanwhile.
    pub theirs: Vec<FieldChange>,
    pub conflicts: Vec<Conflict>,
}

impl Merge {
    pub fn is_clean(&self) -> bool {
        self.conflicts.is_empty()
    }
}

/// One field both sides changed, to different values. `None`: the field is absent there.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub path: FieldPath,
    /// The path as people read it: `spec.template.spec.containers[name=web].image`.
    pub path_text: String,
    pub base: Option<Value>,
    pub yours: Option<Value>,
    pub theirs: Option<Value>,
}

/// Which side wins a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    Yours,
    Theirs,
}

/// Replays `base -> yours` onto `theirs`. The server's bookkeeping (`managedFields`,
/// `resourceVersion`, `generation`, and `status` when it is a subresource) is never taken as
/// a change of yours.
pub fn three_way(
    base: &Value,
    yours: &Value,
    theirs: &Value,
    status_is_subresource: bool,
) -> Merge {
    let strip = |object: &Value| without_bookkeeping(object, status_is_subresource);
    let (base_fields, your_fields, their_fields) = (strip(base), strip(yours), strip(theirs));
    let mut conflicts = Vec::new();
    let mut merged = merge_at(
        &FieldPath::default(),
        Some(&base_fields),
        Some(&your_fields),
        Some(&their_fields),
        &mut conflicts,
    )
    .unwrap_or(Value::Null);
    if let Some(version) = theirs.at("/metadata/resourceVersion") {
        if let Some(metadata) = merged.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert("resourceVersion".into(), version.clone());
        }
    }
    Merge {
        merged,
        yours: diff_values(&base_fields, &your_fields),
        theirs: diff_values(&base_fields, &their_fields),
        conflicts,
    }
}

/// The merged object with each conflict decided: `picks[i]` for `merge.conflicts[i]`;
/// conflicts without a pick keep theirs.
pub fn resolve(merge: &Merge, picks: &[Pick]) -> Value {
    let mut resolved = merge.merged.clone();
    for (conflict, pick) in merge.conflicts.iter().zip(picks) {
        if *pick == Pick::Yours {
            set_at(&mut resolved, &conflict.path.0, conflict.yours.clone());
        }
    }
    resolved
}

/// The merged value at `path`; `None` when it is absent.
fn merge_at(
    path: &FieldPath,
    base: Option<&Value>,
    yours: Option<&Value>,
    theirs: Option<&Value>,
    conflicts: &mut Vec<Conflict>,
) -> Option<Value> {
    if yours == base {
        return theirs.cloned();
    }
    if theirs == base || yours == theirs {
        return yours.cloned();
    }
    match (base, yours, theirs) {
        (None | Some(Value::Object(_)), Some(Value::Object(y)), Some(Value::Object(t))) => {
            let base = base.and_then(Value::as_object);
            Some(merge_maps(path, base, y, t, conflicts))
        }
        (None | Some(Value::Array(_)), Some(Value::Array(y)), Some(Value::Array(t))) => {
            let base_items = base
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            merge_keyed_lists(path, base_items, y, t, conflicts)
                .or_else(|| conflict(path, base.cloned(), yours, theirs, conflicts))
        }
        _ => conflict(path, base.cloned(), yours, theirs, conflicts),
    }
}

/// Records a conflict; the merged object keeps theirs until it is resolved.
fn conflict(
    path: &FieldPath,
    base: Option<Value>,
    yours: Option<&Value>,
    theirs: Option<&Value>,
    conflicts: &mut Vec<Conflict>,
) -> Option<Value> {
    conflicts.push(Conflict {
        path: path.clone(),
        path_text: path.to_string(),
        base,
        yours: yours.cloned(),
        theirs: theirs.cloned(),
    });
    theirs.cloned()
}

fn merge_maps(
    path: &FieldPath,
    base: Option<&Map<String, Value>>,
    yours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    conflicts: &mut Vec<Conflict>,
) -> Value {
    let base_keys = base.into_iter().flat_map(Map::keys);
    let keys: BTreeSet<&String> = base_keys.chain(yours.keys()).chain(theirs.keys()).collect();
    let mut merged = Map::new();
    for key in keys {
        let child = path.child(Segment::Field(key.clone()));
        let base_value = base.and_then(|b| b.get(key));
        if let Some(value) = merge_at(
            &child,
            base_value,
            yours.get(key),
            theirs.get(key),
            conflicts,
        ) {
            merged.insert(key.clone(), value);
        }
    }
    Value::Object(merged)
}

/// Item by item, for lists whose items all have distinct merge keys in every version;
/// `None` for other lists (replaced whole, so the caller reports a conflict).
fn merge_keyed_lists<'a>(
    path: &FieldPath,
    base: &'a [Value],
    yours: &'a [Value],
    theirs: &'a [Value],
    conflicts: &mut Vec<Conflict>,
) -> Option<Value> {
    let key = shared_merge_key(path.last_field(), &[base, yours, theirs])?;
    let find = |items: &'a [Value], id: &str| find_item(items, key, id);
    let mut merged: Vec<Value> = Vec::new();
    // Theirs' order first: it is what the server has now.
    for their_item in theirs {
        let id = item_id(their_item, key);
        let child = path.child(Segment::Keyed(key.to_string(), id.clone()));
        let yours = find(yours, &id);
        if let Some(item) = merge_at(&child, find(base, &id), yours, Some(their_item), conflicts) {
            merged.push(item);
        }
    }
    for (position, your_item) in yours.iter().enumerate() {
        let id = item_id(your_item, key);
        if find(theirs, &id).is_some() {
            continue;
        }
        let child = path.child(Segment::Keyed(key.to_string(), id.clone()));
        if let Some(item) = merge_at(&child, find(base, &id), Some(your_item), None, conflicts) {
            // After the item it follows in yours (order matters: env vars refer to earlier
            // ones), or first.
            let at = yours[..position]
                .iter()
                .rev()
                .find_map(|earlier| {
                    let earlier = item_id(earlier, key);
                    merged.iter().position(|m| item_id(m, key) == earlier)
                })
                .map_or(0, |index| index + 1);
            merged.insert(at, item);
        }
    }
    Some(Value::Array(merged))
}

/// The merge key identifying items in every non-empty version of the list.
fn shared_merge_key(field: Option<&str>, versions: &[&[Value]]) -> Option<&'static str> {
    let mut shared = None;
    for items in versions.iter().filter(|items| !items.is_empty()) {
        if !items.iter().all(Value::is_object) {
            return None;
        }
        let key = merge_key_for(field, &items.iter().collect::<Vec<_>>())?;
        if shared.is_some_and(|k| k != key) {
            return None;
        }
        shared = Some(key);
    }
    shared
}

fn find_item<'a>(items: &'a [Value], key: &str, id: &str) -> Option<&'a Value> {
    items.iter().find(|item| item_id(item, key) == id)
}

/// An item's merge-key value as it reads in a path (`[name=web]`), as the diff writes it.
fn item_id(item: &Value, key: &str) -> String {
    match item.get(key) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// Sets (or with `None` removes) the value at `path`, creating missing maps on the way.
fn set_at(target: &mut Value, path: &[Segment], value: Option<Value>) {
    let Some((first, rest)) = path.split_first() else {
        *target = value.unwrap_or(Value::Null);
        return;
    };
    match first {
        Segment::Field(name) => {
            let Some(fields) = target.as_object_mut() else {
                return;
            };
            match (rest.is_empty(), value) {
                (true, Some(value)) => {
                    fields.insert(name.clone(), value);
                }
                (true, None) => {
                    fields.remove(name);
                }
                (false, None) if !fields.contains_key(name) => {}
                (false, value) => {
                    let empty = match rest.first() {
                        Some(Segment::Field(_)) => Value::Object(Map::new()),
                        _ => Value::Array(Vec::new()),
                    };
                    set_at(fields.entry(name.clone()).or_insert(empty), rest, value);
                }
            }
        }
        Segment::Keyed(key, id) => {
            let Some(items) = target.as_array_mut() else {
                return;
            };
            let position = items.iter().position(|item| item_id(item, key) == *id);
            set_item(items, position, rest, value);
        }
        Segment::Index(index) => {
            let Some(items) = target.as_array_mut() else {
                return;
            };
            let position = (*index < items.len()).then_some(*index);
            set_item(items, position, rest, value);
        }
    }
}

fn set_item(
    items: &mut Vec<Value>,
    position: Option<usize>,
    rest: &[Segment],
    value: Option<Value>,
) {
    match (position, rest.is_empty(), value) {
        (Some(at), true, Some(value)) => items[at] = value,
        (Some(at), true, None) => {
            items.remove(at);
        }
        (None, true, Some(value)) => items.push(value),
        (Some(at), false, value) => set_at(&mut items[at], rest, value),
        // Nothing there to remove, or to set a field of.
        (None, _, _) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config_map(data: Value, resource_version: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "cfg", "namespace": "default",
                            "resourceVersion": resource_version},
               "data": data})
    }

    fn conflict_paths(merge: &Merge) -> Vec<&str> {
        merge
            .conflicts
            .iter()
            .map(|c| c.path_text.as_str())
            .collect()
    }

    #[test]
    fn disjoint_keys_merge_onto_the_latest_version() {
        let base = config_map(json!({"a": "1", "b": "1"}), "10");
        let yours = config_map(json!({"a": "2", "b": "1"}), "10");
        let theirs = config_map(json!({"a": "1", "b": "1", "c": "3"}), "12");
        let merge = three_way(&base, &yours, &theirs, false);
        assert!(merge.is_clean(), "{:?}", merge.conflicts);
        assert_eq!(
            merge.merged,
            config_map(json!({"a": "2", "b": "1", "c": "3"}), "12")
        );
        let described = |changes: &[FieldChange]| -> Vec<String> {
            changes.iter().map(FieldChange::describe).collect()
        };
        assert_eq!(described(&merge.yours), vec!["data.a: 1 → 2"]);
        assert_eq!(described(&merge.theirs), vec!["data.c: + 3"]);
    }

    #[test]
    fn the_same_key_changed_differently_is_a_conflict() {
        let base = config_map(json!({"a": "1", "b": "1"}), "10");
        let yours = config_map(json!({"a": "2", "b": "5"}), "10");
        let theirs = config_map(json!({"a": "3", "b": "1"}), "12");
        let merge = three_way(&base, &yours, &theirs, false);
        assert_eq!(conflict_paths(&merge), vec!["data.a"]);
        let conflict = &merge.conflicts[0];
        assert_eq!(conflict.path.0.len(), 2);
        assert_eq!(
            (&conflict.base, &conflict.yours, &conflict.theirs),
            (&Some(json!("1")), &Some(json!("2")), &Some(json!("3")))
        );
        // Unresolved, the merged object keeps theirs; your other change is in.
        assert_eq!(merge.merged["data"], json!({"a": "3", "b": "5"}));
        assert_eq!(resolve(&merge, &[Pick::Yours])["data"]["a"], json!("2"));
        assert_eq!(resolve(&merge, &[Pick::Theirs])["data"]["a"], json!("3"));
        assert_eq!(resolve(&merge, &[])["data"]["a"], json!("3"));
    }

    #[test]
    fn the_same_change_on_both_sides_is_no_conflict() {
        let base = config_map(json!({"a": "1"}), "10");
        let both = config_map(json!({"a": "2"}), "10");
        let merge = three_way(&base, &both, &config_map(json!({"a": "2"}), "11"), false);
        assert!(merge.is_clean());
        assert_eq!(merge.merged, config_map(json!({"a": "2"}), "11"));
    }

    #[test]
    fn a_field_you_deleted_and_they_changed_is_a_conflict() {
        let base = config_map(json!({"a": "1", "b": "1"}), "10");
        let yours = config_map(json!({"b": "1"}), "10");
        let theirs = config_map(json!({"a": "2", "b": "1"}), "11");
        let merge = three_way(&base, &yours, &theirs, false);
        assert_eq!(conflict_paths(&merge), vec!["data.a"]);
        assert_eq!(merge.conflicts[0].yours, None);
        assert_eq!(resolve(&merge, &[Pick::Yours])["data"], json!({"b": "1"}));
        assert_eq!(
            resolve(&merge, &[Pick::Theirs])["data"],
            json!({"a": "2", "b": "1"})
        );
        // Deleted in yours and untouched in theirs: deleted.
        let theirs = config_map(json!({"a": "1", "b": "1", "c": "1"}), "11");
        let merge = three_way(&base, &yours, &theirs, false);
        assert!(merge.is_clean());
        assert_eq!(merge.merged["data"], json!({"b": "1", "c": "1"}));
    }

    fn deployment(containers: Value, resource_version: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "resourceVersion": resource_version, "generation": 1},
               "spec": {"template": {"spec": {"containers": containers}}},
               "status": {"replicas": 1}})
    }

    #[test]
    fn one_container_changed_on_both_sides_merges_by_name() {
        let base = deployment(
            json!([{"name": "web", "image": "nginx:1.25"}, {"name": "log", "image": "fluent"}]),
            "5",
        );
        let yours = deployment(
            json!([{"name": "web", "image": "nginx:1.26"}, {"name": "log", "image": "fluent"}]),
            "5",
        );
        let mut theirs = deployment(
            json!([{"name": "log", "image": "fluent"},
                   {"name": "web", "image": "nginx:1.25", "env": [{"name": "A", "value": "1"}]}]),
            "9",
        );
        theirs["metadata"]["generation"] = json!(2);
        theirs["status"] = json!({"replicas": 3});
        let merge = three_way(&base, &yours, &theirs, true);
        assert!(merge.is_clean(), "{:?}", merge.conflicts);
        assert_eq!(
            merge.merged["spec"]["template"]["spec"]["containers"],
            json!([{"name": "log", "image": "fluent"},
                   {"name": "web", "image": "nginx:1.26", "env": [{"name": "A", "value": "1"}]}])
        );
        assert_eq!(merge.merged["metadata"]["resourceVersion"], json!("9"));
        // Bookkeeping and subresource status are neither changes nor in the editor's copy.
        assert_eq!(merge.merged.get("status"), None);
        assert_eq!(merge.merged.at("/metadata/generation"), None);
        let theirs_paths: Vec<String> = merge.theirs.iter().map(|c| c.path.to_string()).collect();
        assert_eq!(
            theirs_paths,
            vec!["spec.template.spec.containers[name=web].env"]
        );
    }

    #[test]
    fn new_items_on_both_sides_merge_and_keep_your_order() {
        let base = deployment(json!([{"name": "web", "image": "nginx"}]), "5");
        let yours = deployment(
            json!([{"name": "init", "image": "busybox"}, {"name": "web", "image": "nginx"},
                   {"name": "proxy", "image": "envoy"}]),
            "5",
        );
        let theirs = deployment(
            json!([{"name": "web", "image": "nginx"}, {"name": "log", "image": "fluent"}]),
            "6",
        );
        let merge = three_way(&base, &yours, &theirs, true);
        assert!(merge.is_clean(), "{:?}", merge.conflicts);
        let names: Vec<&str> = merge.merged["spec"]["template"]["spec"]["containers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert_eq!(names, vec!["init", "web", "proxy", "log"]);
    }

    #[test]
    fn an_item_you_changed_and_they_removed_is_a_conflict() {
        let base = deployment(
            json!([{"name": "web", "image": "a"}, {"name": "log", "image": "b"}]),
            "5",
        );
        let yours = deployment(
            json!([{"name": "web", "image": "a"}, {"name": "log", "image": "c"}]),
            "5",
        );
        let theirs = deployment(json!([{"name": "web", "image": "a"}]), "6");
        let merge = three_way(&base, &yours, &theirs, true);
        assert_eq!(
            conflict_paths(&merge),
            vec!["spec.template.spec.containers[name=log]"]
        );
        assert_eq!(merge.conflicts[0].theirs, None);
        let containers = |object: &Value| object["spec"]["template"]["spec"]["containers"].clone();
        assert_eq!(
            containers(&merge.merged),
            json!([{"name": "web", "image": "a"}])
        );
        assert_eq!(
            containers(&resolve(&merge, &[Pick::Yours])),
            json!([{"name": "web", "image": "a"}, {"name": "log", "image": "c"}])
        );
    }

    #[test]
    fn lists_without_a_merge_key_are_replaced_whole() {
        let args = |list: Value| json!({"metadata": {"name": "p"}, "spec": {"args": list}});
        let base = args(json!(["--a"]));
        let merge = three_way(
            &base,
            &args(json!(["--a", "--b"])),
            &args(json!(["--c"])),
            false,
        );
        assert_eq!(conflict_paths(&merge), vec!["spec.args"]);
        assert_eq!(
            resolve(&merge, &[Pick::Yours])["spec"]["args"],
            json!(["--a", "--b"])
        );
        // One side only: no conflict.
        let merge = three_way(&base, &args(json!(["--a", "--b"])), &base, false);
        assert!(merge.is_clean());
        assert_eq!(merge.merged["spec"]["args"], json!(["--a", "--b"]));
    }

    #[test]
    fn maps_added_on_both_sides_merge_key_by_key() {
        let base = json!({"metadata": {"name": "x"}});
        let yours = json!({"metadata": {"name": "x", "labels": {"team": "a"}}});
        let theirs = json!({"metadata": {"name": "x", "labels": {"app": "web"}}});
        let merge = three_way(&base, &yours, &theirs, false);
        assert!(merge.is_clean());
        assert_eq!(
            merge.merged["metadata"]["labels"],
            json!({"app": "web", "team": "a"})
        );
    }

    #[test]
    fn one_sided_edits_come_through_whole() {
        let base = deployment(
            json!([{"name": "web", "image": "a", "env": [{"name": "A", "value": "1"}]}]),
            "5",
        );
        let mut yours = deployment(
            json!([{"name": "web", "image": "b", "env": [{"name": "B", "value": "2"}]}]),
            "5",
        );
        // Removing the concurrency token in the editor is not a change to replay.
        yours["metadata"]
            .as_object_mut()
            .map(|metadata| metadata.remove("resourceVersion"));
        let merge = three_way(
            &base,
            &yours,
            &deployment(base["spec"]["template"]["spec"]["containers"].clone(), "6"),
            true,
        );
        assert!(merge.is_clean());
        let mut expected = editable_copy(&yours);
        expected["metadata"]["resourceVersion"] = json!("6");
        assert_eq!(merge.merged, expected);
        let merge = three_way(&base, &base, &yours, true);
        assert!(merge.is_clean() && merge.yours.is_empty());
        assert_eq!(merge.merged, editable_copy(&yours));
    }

    /// What the editor holds of `object`: no bookkeeping but the resourceVersion.
    fn editable_copy(object: &Value) -> Value {
        let mut copy = without_bookkeeping(object, true);
        if let Some(version) = object.at("/metadata/resourceVersion") {
            copy["metadata"]["resourceVersion"] = version.clone();
        }
        copy
    }

    #[test]
    fn several_conflicts_resolve_independently() {
        let base = config_map(json!({"a": "1", "b": "1"}), "1");
        let yours = config_map(json!({"a": "2", "b": "2"}), "1");
        let theirs = config_map(json!({"a": "3", "b": "3"}), "2");
        let merge = three_way(&base, &yours, &theirs, false);
        assert_eq!(conflict_paths(&merge), vec!["data.a", "data.b"]);
        let resolved = resolve(&merge, &[Pick::Theirs, Pick::Yours]);
        assert_eq!(resolved["data"], json!({"a": "3", "b": "2"}));
        assert_eq!(resolved["metadata"]["resourceVersion"], json!("2"));
    }
}
