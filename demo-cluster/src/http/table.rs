//! Server-side printing (meta.k8s.io/v1 Table) with kubectl's column sets for common kinds,
//! CRD additionalPrinterColumns, and PartialObjectMetadata conversion.

use serde_json::{json, Value};

use super::negotiate::IncludeObject;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy;
use crate::registry::strategy::printing::{age_of, value_text, Printer};
use crate::storage::object::{write_partial_metadata, StoredObject};

/// The printer of a built-in kind (custom resources print their CRD's columns).
fn builtin_printer(def: &ResourceDef) -> Option<Printer> {
    if def.builtin {
        strategy::of(def).printer()
    } else {
        None
    }
}

/// Evaluates the simple JSONPath of printer columns (`.spec.size`, `.status.conditions[0].type`,
/// `.status.conditions[?(@.type=="Ready")].status`).
pub fn simple_json_path(obj: &Value, path: &str) -> Value {
    let mut cur = obj.clone();
    let trimmed = path
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .trim_start_matches('.');
    let mut segments = vec![];
    let mut depth = 0;
    let mut cur_seg = String::new();
    for ch in trimmed.chars() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 => {
                segments.push(std::mem::take(&mut cur_seg));
                continue;
            }
            _ => {}
        }
        cur_seg.push(ch);
    }
    segments.push(cur_seg);
    for raw in &segments {
        if raw.is_empty() {
            continue;
        }
        let (field, index) = match raw.find('[') {
            Some(i) => (
                &raw[..i],
                Some(raw[i + 1..].strip_suffix(']').unwrap_or(&raw[i + 1..])),
            ),
            None => (raw.as_str(), None),
        };
        if !field.is_empty() {
            cur = cur[field].clone();
        }
        if let Some(idx) = index {
            if let Ok(n) = idx.parse::<usize>() {
                cur = cur[n].clone();
            } else if let Some(filter) = idx.strip_prefix("?(@.").and_then(|f| f.strip_suffix(')'))
            {
                let (k, v) = filter.split_once("==").unwrap_or((filter, ""));
                let v = v.trim_matches(|c| c == '"' || c == '\'');
                cur = cur
                    .as_array()
                    .and_then(|a| a.iter().find(|i| value_text(&i[k.trim()]) == v).cloned())
                    .unwrap_or(Value::Null);
            }
        }
    }
    cur
}

pub fn column_definitions(def: &ResourceDef) -> Vec<Value> {
    let to_json = |name: &str, kind: &str, format: &str, description: &str, priority: i64| json!({"name": name, "type": kind, "format": format, "description": description, "priority": priority});
    if !def.builtin {
        let mut cols = vec![to_json(
            "Name",
            "string",
            "name",
            "Name must be unique within a namespace.",
            0,
        )];
        for c in &def.printer_columns {
            cols.push(to_json(
                &c.name,
                &c.column_type,
                &c.format,
                &c.description,
                c.priority,
            ));
        }
        return cols;
    }
    match builtin_printer(def) {
        Some(printer) => printer
            .columns
            .iter()
            .map(|c| to_json(c.name, c.kind, c.format, c.name, c.priority))
            .collect(),
        None => vec![
            to_json("Name", "string", "name", "Name must be unique within a namespace.", 0),
            to_json("Created At", "date", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0),
        ],
    }
}

fn row_cells(def: &ResourceDef, obj: &Value) -> Vec<Value> {
    if !def.builtin {
        let mut cells = vec![obj["metadata"]["name"].clone()];
        for c in &def.printer_columns {
            let v = simple_json_path(obj, &c.json_path);
            cells.push(if c.column_type == "date" && !v.is_null() {
                age_of(&v)
            } else {
                v
            });
        }
        return cells;
    }
    if let Some(printer) = builtin_printer(def) {
        (printer.cells)(obj)
    } else {
        vec![
            obj["metadata"]["name"].clone(),
            obj["metadata"]["creationTimestamp"].clone(),
        ]
    }
}

pub fn partial_metadata(obj: &Value) -> Value {
    let metadata = crate::storage::object::without_internal_annotations(obj)
        .unwrap_or_else(|| obj["metadata"].clone());
    json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata})
}

pub fn row(def: &ResourceDef, obj: &Value, include: IncludeObject) -> Value {
    let mut r = json!({"cells": row_cells(def, obj)});
    match include {
        IncludeObject::None => {}
        IncludeObject::Metadata => r["object"] = partial_metadata(obj),
        IncludeObject::Object => r["object"] = obj.clone(),
    }
    if let Some(conditions) = row_conditions(def, obj) {
        r["conditions"] = conditions;
    }
    r
}

/// The row's `conditions` (kubectl greys out completed Jobs).
fn row_conditions(def: &ResourceDef, obj: &Value) -> Option<Value> {
    strategy::of(def).row_conditions(obj)
}

/// The same Table as [`table`], written straight into bytes: cells are serialized per row,
/// and the row object is borrowed — for items whose served form is the stored version
/// (`stored` is `Some`), its cached JSON or PartialObjectMetadata rendering is copied.
///
/// Without `with_columns`, `columnDefinitions` is null: a watch's events after its first, as
/// kube-apiserver sends them.
pub fn table_bytes<'a>(
    def: &ResourceDef,
    objs: impl IntoIterator<Item = (&'a Value, Option<&'a StoredObject>)>,
    include: IncludeObject,
    list_meta: &Value,
    with_columns: bool,
) -> Vec<u8> {
    let objs = objs.into_iter();
    let mut buf = Vec::with_capacity(256 + objs.size_hint().0 * 1536);
    let columns = if with_columns {
        Value::Array(column_definitions(def))
    } else {
        Value::Null
    };
    let head = json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta,
                      "columnDefinitions": columns});
    let head = head.to_string();
    // `head` is a JSON object: reopen it to append the rows.
    buf.extend_from_slice(&head.as_bytes()[..head.len() - 1]);
    buf.extend_from_slice(b",\"rows\":[");
    for (i, (obj, stored)) in objs.enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(b"{\"cells\":");
        // Writing `Value`s into a Vec cannot fail (their map keys are strings).
        let _ = serde_json::to_writer(&mut buf, &row_cells(def, obj));
        match (include, stored) {
            (IncludeObject::None, _) => {}
            (IncludeObject::Metadata, Some(stored)) => {
                buf.extend_from_slice(b",\"object\":");
                buf.extend_from_slice(stored.metadata_json());
            }
            (IncludeObject::Metadata, None) => {
                buf.extend_from_slice(b",\"object\":");
                write_partial_metadata(&mut buf, obj);
            }
            (IncludeObject::Object, Some(stored)) => {
                buf.extend_from_slice(b",\"object\":");
                buf.extend_from_slice(stored.json());
            }
            (IncludeObject::Object, None) => {
                buf.extend_from_slice(b",\"object\":");
                let _ = serde_json::to_writer(&mut buf, obj);
            }
        }
        if let Some(conditions) = row_conditions(def, obj) {
            buf.extend_from_slice(b",\"conditions\":");
            let _ = serde_json::to_writer(&mut buf, &conditions);
        }
        buf.push(b'}');
    }
    buf.extend_from_slice(b"]}");
    buf
}

pub fn table<'a>(
    def: &ResourceDef,
    objs: impl IntoIterator<Item = &'a Value>,
    include: IncludeObject,
    list_meta: Value,
) -> Value {
    let rows: Vec<Value> = objs.into_iter().map(|o| row(def, o, include)).collect();
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta,
           "columnDefinitions": column_definitions(def), "rows": rows})
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::registry::strategy::printing::human_duration;

    #[test]
    fn human_durations_match_kubectl() {
        assert_eq!(human_duration(5), "5s");
        assert_eq!(human_duration(150), "2m30s");
        assert_eq!(human_duration(600), "10m");
        assert_eq!(human_duration(3 * 3600 + 60 * 5), "3h5m");
        assert_eq!(human_duration(30 * 3600), "30h");
        assert_eq!(human_duration(3 * 86400 + 3600), "3d1h");
    }

    #[test]
    fn json_path_filters() {
        let o = json!({"status": {"conditions": [{"type": "A", "status": "x"}, {"type": "Ready", "status": "True"}]}});
        assert_eq!(
            simple_json_path(&o, ".status.conditions[?(@.type==\"Ready\")].status"),
            json!("True")
        );
        assert_eq!(
            simple_json_path(&o, ".status.conditions[0].type"),
            json!("A")
        );
        assert_eq!(simple_json_path(&o, ".spec.missing"), Value::Null);
    }

    #[test]
    fn table_bytes_equal_the_table_value() {
        let store = std::sync::Arc::new(crate::storage::store::Store::new(16));
        let registry = crate::registry::Registry::new(store);
        let def = registry.builtin("batch", "jobs").expect("jobs");
        let objs = [
            json!({"apiVersion": "batch/v1", "kind": "Job",
                   "metadata": {"name": "a", "namespace": "d", "creationTimestamp": "2020-01-01T00:00:00Z",
                                "managedFields": [{"manager": "m"}]},
                   "spec": {"completions": 1}, "status": {"succeeded": 1}}),
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "b"}}),
        ];
        let stored: Vec<StoredObject> = objs.iter().cloned().map(StoredObject::new).collect();
        let meta = json!({"resourceVersion": "7"});
        for include in [
            IncludeObject::None,
            IncludeObject::Metadata,
            IncludeObject::Object,
        ] {
            let expected = table(&def, objs.iter(), include, meta.clone());
            let borrowed = table_bytes(&def, objs.iter().map(|o| (o, None)), include, &meta, true);
            let cached = table_bytes(
                &def,
                objs.iter().zip(&stored).map(|(o, s)| (o, Some(s))),
                include,
                &meta,
                true,
            );
            for bytes in [borrowed, cached] {
                let got: Value = serde_json::from_slice(&bytes).expect("valid JSON");
                assert_eq!(got, expected);
            }
        }
        let headless = table_bytes(
            &def,
            objs.iter().map(|o| (o, None)),
            IncludeObject::None,
            &meta,
            false,
        );
        let got: Value = serde_json::from_slice(&headless).expect("valid JSON");
        assert_eq!(got["columnDefinitions"], Value::Null);
        assert_eq!(
            got["rows"],
            table(&def, objs.iter(), IncludeObject::None, meta)["rows"]
        );
    }
}
