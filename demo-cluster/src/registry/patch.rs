//! Patch semantics: JSON merge patch (RFC 7386) and strategic merge patch for built-in kinds.

use serde_json::{Map, Value};

/// RFC 7386: objects merge recursively, `null` deletes, everything else replaces.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch_map) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        for (k, v) in patch_map {
            if v.is_null() {
                t.remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// The merge key of a list field in built-in types (the `patchMergeKey` struct tags), or None
/// for lists that are replaced atomically. Decided by field name, with `ports` disambiguated by
/// the items (container ports merge on containerPort, service ports on port).
pub fn merge_key(field: &str, items: &[Value]) -> Option<&'static str> {
    match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "imagePullSecrets"
        | "env" => Some("name"),
        "ports" => {
            if items.iter().any(|i| i.get("containerPort").is_some()) {
                Some("containerPort")
            } else {
                Some("port")
            }
        }
        "volumeMounts" => Some("mountPath"),
        "volumeDevices" => Some("devicePath"),
        "conditions" => Some("type"),
        "ownerReferences" => Some("uid"),
        "hostAliases" => Some("ip"),
        _ => None,
    }
}

/// Lists of scalars merged as sets.
fn is_primitive_set(field: &str) -> bool {
    field == "finalizers"
}

fn is_directive(k: &str) -> bool {
    k.starts_with('$')
}

fn strip_directives(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !is_directive(k))
                .map(|(k, v)| (k.clone(), strip_directives(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .filter(|i| i.get("$patch").is_none())
                .map(strip_directives)
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Applies a strategic merge patch. Returns Err(message) for malformed directives.
pub fn strategic_merge(target: &mut Value, patch: &Value) -> Result<(), String> {
    let Value::Object(p) = patch else {
        return Err("strategic merge patch body must be a JSON object".into());
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        if merge_map(t, p)? == MapOutcome::Delete {
            *target = Value::Object(Map::new());
        }
    }
    Ok(())
}

#[derive(PartialEq)]
enum MapOutcome {
    Keep,
    Delete,
}

fn merge_map(
    orig: &mut Map<String, Value>,
    patch: &Map<String, Value>,
) -> Result<MapOutcome, String> {
    match patch.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            if let Value::Object(m) = strip_directives(&Value::Object(patch.clone())) {
                *orig = m;
            }
            return Ok(MapOutcome::Keep);
        }
        Some("delete") => return Ok(MapOutcome::Delete),
        Some("merge") | None => {}
        Some(other) => return Err(format!("unknown patch type: {other:?}")),
    }
    for (k, v) in patch {
        if let Some(field) = k.strip_prefix("$deleteFromPrimitiveList/") {
            if let (Some(Value::Array(list)), Some(remove)) = (orig.get_mut(field), v.as_array()) {
                list.retain(|x| !remove.contains(x));
            }
            continue;
        }
        if is_directive(k) {
            // $setElementOrder/* only orders items; $retainKeys is handled below.
            continue;
        }
        match v {
            Value::Null => {
                orig.remove(k);
            }
            Value::Object(pm) => match orig.get_mut(k) {
                Some(Value::Object(om)) => {
                    if merge_map(om, pm)? == MapOutcome::Delete {
                        orig.remove(k);
                    }
                }
                _ => {
                    if pm.get("$patch").and_then(Value::as_str) == Some("delete") {
                        orig.remove(k);
                    } else {
                        orig.insert(k.clone(), strip_directives(v));
                    }
                }
            },
            Value::Array(pa) => {
                let merged = merge_list(k, orig.get(k), pa)?;
                orig.insert(k.clone(), merged);
            }
            scalar => {
                orig.insert(k.clone(), scalar.clone());
            }
        }
    }
    if let Some(Value::Array(retain)) = patch.get("$retainKeys") {
        let keep: Vec<&str> = retain.iter().filter_map(Value::as_str).collect();
        orig.retain(|k, _| keep.contains(&k.as_str()));
    }
    Ok(MapOutcome::Keep)
}

fn merge_list(field: &str, orig: Option<&Value>, patch: &[Value]) -> Result<Value, String> {
    let orig_items: Vec<Value> = orig.and_then(Value::as_array).cloned().unwrap_or_default();
    if patch
        .iter()
        .any(|i| i.get("$patch").and_then(Value::as_str) == Some("replace"))
    {
        return Ok(strip_directives(&Value::Array(patch.to_vec())));
    }
    if is_primitive_set(field) {
        let mut out = orig_items;
        for item in patch {
            if !out.contains(item) {
                out.push(item.clone());
            }
        }
        return Ok(Value::Array(out));
    }
    let all: Vec<Value> = orig_items.iter().chain(patch.iter()).cloned().collect();
    let Some(key) = merge_key(field, &all) else {
        return Ok(strip_directives(&Value::Array(patch.to_vec())));
    };
    let mut out = orig_items;
    for item in patch {
        let Some(item_map) = item.as_object() else {
            return Err(format!(
                "list {field} with merge key {key} has a non-object item"
            ));
        };
        let Some(key_value) = item_map.get(key) else {
            return Err(format!(
                "map: {item} does not contain declared merge key: {key}"
            ));
        };
        let pos = out.iter().position(|o| o.get(key) == Some(key_value));
        let delete = item_map.get("$patch").and_then(Value::as_str) == Some("delete");
        match (pos, delete) {
            (Some(i), true) => {
                out.remove(i);
            }
            (None, true) => {}
            (Some(i), false) => {
                if let Value::Object(om) = &mut out[i] {
                    merge_map(om, item_map)?;
                }
            }
            (None, false) => out.push(strip_directives(item)),
        }
    }
    Ok(Value::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_patch_follows_rfc7386() {
        let mut t = json!({"a": "b", "c": {"d": "e", "f": "g"}, "l": [1, 2]});
        merge_patch(&mut t, &json!({"a": "z", "c": {"f": null}, "l": [3]}));
        assert_eq!(t, json!({"a": "z", "c": {"d": "e"}, "l": [3]}));
    }

    #[test]
    fn strategic_merges_containers_by_name_and_honours_directives() {
        let mut t = json!({"spec": {"containers": [
            {"name": "a", "image": "a:1", "env": [{"name": "X", "value": "1"}]},
            {"name": "b", "image": "b:1"}]}});
        let p = json!({"spec": {
            "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
            "containers": [
                {"name": "a", "image": "a:2", "env": [{"name": "Y", "value": "2"}]},
                {"name": "b", "$patch": "delete"},
                {"name": "c", "image": "c:1"}]}});
        strategic_merge(&mut t, &p).unwrap();
        assert_eq!(
            t,
            json!({"spec": {"containers": [
                {"name": "a", "image": "a:2", "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "2"}]},
                {"name": "c", "image": "c:1"}]}})
        );
    }

    #[test]
    fn strategic_replace_directive_and_atomic_lists() {
        let mut t = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"args": ["x"]}});
        let p = json!({"metadata": {"labels": {"$patch": "replace", "c": "3"}}, "spec": {"args": ["y"]}});
        strategic_merge(&mut t, &p).unwrap();
        assert_eq!(
            t,
            json!({"metadata": {"labels": {"c": "3"}}, "spec": {"args": ["y"]}})
        );
    }
}
