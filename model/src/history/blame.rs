//! The blame view's lines: the object as YAML (without managedFields), each line with the
//! field it shows and the managers owning that field, as kubectl-blame shows them. Scalars
//! are written by the YAML crate (so quoting is the same as the YAML tab); the layout
//! (two-space indents, list items under their key) is `kubectl get -o yaml`'s.

use std::collections::HashMap;

use serde_json::Value;

use super::fields::{managed_entries, owners_by_path, ManagedEntry, ObjectPath, Segment, Step};

/// One manager owning a line's field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineOwner {
    pub manager: String,
    pub operation: String,
    pub subresource: String,
    pub time: Option<String>,
}

impl LineOwner {
    fn of(entry: &ManagedEntry) -> LineOwner {
        LineOwner {
            manager: entry.manager.clone(),
            operation: entry.operation.clone(),
            subresource: entry.subresource.clone(),
            time: entry.time.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlameLine {
    pub text: String,
    /// The field this line shows (None for continuation lines of a block string).
    pub path: Option<ObjectPath>,
    /// The same path as people read it (merge keys), to find its changes on a timeline.
    pub field_path: Vec<Segment>,
    pub owners: Vec<LineOwner>,
}

/// A scalar as the YAML crate writes it, on one line where it fits.
fn scalar(value: &Value) -> Vec<String> {
    let text = serde_saphyr::to_string(value).unwrap_or_else(|_| value.to_string());
    let text = text
        .strip_prefix("---")
        .unwrap_or(&text)
        .trim_end_matches('\n');
    text.trim_start_matches(' ')
        .lines()
        .map(str::to_string)
        .collect()
}

fn key_text(key: &str) -> String {
    scalar(&Value::String(key.to_string()))
        .into_iter()
        .next()
        .unwrap_or_default()
}

struct Writer<'a> {
    owners: HashMap<ObjectPath, Vec<usize>>,
    entries: &'a [ManagedEntry],
    lines: Vec<BlameLine>,
}

impl Writer<'_> {
    fn push(&mut self, text: String, path: &ObjectPath, readable: &[Segment]) {
        let owners = self
            .owners
            .get(path)
            .map(|indexes| {
                indexes
                    .iter()
                    .map(|i| LineOwner::of(&self.entries[*i]))
                    .collect()
            })
            .unwrap_or_default();
        self.lines.push(BlameLine {
            text,
            path: Some(path.clone()),
            field_path: readable.to_vec(),
            owners,
        });
    }

    fn continuation(&mut self, text: String) {
        self.lines.push(BlameLine {
            text,
            path: None,
            field_path: Vec::new(),
            owners: Vec::new(),
        });
    }

    /// `prefix` is what goes before the key on the first line (indent, or indent and `- `).
    fn entry(
        &mut self,
        prefix: &str,
        indent: usize,
        key: &str,
        value: &Value,
        path: &mut ObjectPath,
        readable: &mut Vec<Segment>,
    ) {
        path.push(Step::Field(key.to_string()));
        readable.push(Segment::Field(key.to_string()));
        let head = format!("{prefix}{}:", key_text(key));
        match value {
            Value::Object(map) if !map.is_empty() => {
                self.push(head, path, readable);
                self.map(indent + 2, map, path, readable);
            }
            Value::Array(items) if !items.is_empty() => {
                self.push(head, path, readable);
                self.list(indent, key, items, path, readable);
            }
            other => self.scalar_after(head, indent, other, path, readable),
        }
        path.pop();
        readable.pop();
    }

    fn scalar_after(
        &mut self,
        head: String,
        indent: usize,
        value: &Value,
        path: &ObjectPath,
        readable: &[Segment],
    ) {
        let mut parts = scalar(value).into_iter();
        let first = parts.next().unwrap_or_default();
        self.push(format!("{head} {first}"), path, readable);
        for rest in parts {
            self.continuation(format!("{}{rest}", " ".repeat(indent)));
        }
    }

    fn map(
        &mut self,
        indent: usize,
        map: &serde_json::Map<String, Value>,
        path: &mut ObjectPath,
        readable: &mut Vec<Segment>,
    ) {
        let pad = " ".repeat(indent);
        for (key, value) in map {
            self.entry(&pad, indent, key, value, path, readable);
        }
    }

    fn list(
        &mut self,
        indent: usize,
        field: &str,
        items: &[Value],
        path: &mut ObjectPath,
        readable: &mut Vec<Segment>,
    ) {
        let pad = " ".repeat(indent);
        let key = list_key(field, items);
        for (index, item) in items.iter().enumerate() {
            path.push(Step::Index(index));
            readable.push(match key.and_then(|k| item.get(k).map(|v| (k, v))) {
                Some((k, v)) => Segment::Keyed(
                    k.to_string(),
                    v.as_str().map_or(v.to_string(), str::to_string),
                ),
                None => Segment::Index(index),
            });
            match item {
                Value::Object(map) if !map.is_empty() => {
                    let mut entries = map.iter();
                    if let Some((first_key, first_value)) = entries.next() {
                        self.entry(
                            &format!("{pad}- "),
                            indent + 2,
                            first_key,
                            first_value,
                            path,
                            readable,
                        );
                    }
                    let inner = " ".repeat(indent + 2);
                    for (key, value) in entries {
                        self.entry(&inner, indent + 2, key, value, path, readable);
                    }
                }
                other => self.scalar_after(format!("{pad}-"), indent + 2, other, path, readable),
            }
            path.pop();
            readable.pop();
        }
    }
}

/// The key naming this list's items in readable paths: the diff's choice, so blame lines
/// and timeline changes name an item the same way.
fn list_key(field: &str, items: &[Value]) -> Option<&'static str> {
    let all: Vec<&Value> = items.iter().collect();
    if !all.iter().all(|v| v.is_object()) {
        return None;
    }
    super::diff::merge_key_for(Some(field), &all)
}

/// The blame lines of `object`.
pub fn blame_lines(object: &Value) -> Vec<BlameLine> {
    let entries = managed_entries(object);
    let owners = owners_by_path(object, &entries);
    let mut shown = object.clone();
    if let Some(meta) = shown.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    let mut writer = Writer {
        owners,
        entries: &entries,
        lines: Vec::new(),
    };
    if let Value::Object(map) = &shown {
        writer.map(0, map, &mut Vec::new(), &mut Vec::new());
    }
    writer.lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"app": "web"}, "managedFields": [
                {"manager": "kubectl-client-side-apply", "operation": "Update", "time": "2026-11-23T10:00:00Z",
                 "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                              "f:spec": {"f:template": {"f:spec": {"f:containers": {
                                  "k:{\"name\":\"web\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}}},
                {"manager": "kubectl", "operation": "Update", "subresource": "scale", "time": "2026-11-23T10:05:00Z",
                 "fieldsV1": {"f:spec": {"f:replicas": {}}}}
            ]},
            "spec": {"replicas": 5, "template": {"spec": {"containers": [
                {"name": "web", "image": "nginx:1.25", "args": ["--port", "80"]}
            ]}}},
            "status": {"message": "line 1\nline 2\n", "ready": "yes"}
        })
    }

    fn line<'a>(lines: &'a [BlameLine], text: &str) -> &'a BlameLine {
        lines
            .iter()
            .find(|l| l.text.trim_end() == text)
            .unwrap_or_else(|| panic!("no line {text:?} in {lines:#?}"))
    }

    #[test]
    fn lines_name_their_owners() {
        let lines = blame_lines(&deployment());
        let replicas = line(&lines, "  replicas: 5");
        assert_eq!(replicas.owners.len(), 1);
        assert_eq!(replicas.owners[0].manager, "kubectl");
        assert_eq!(replicas.owners[0].subresource, "scale");
        let image = line(&lines, "      - name: web");
        assert_eq!(image.owners[0].manager, "kubectl-client-side-apply");
        let image = line(&lines, "        image: nginx:1.25");
        assert_eq!(image.owners[0].manager, "kubectl-client-side-apply");
        assert_eq!(
            crate::history::fields::FieldPath(image.field_path.clone()).to_string(),
            "spec.template.spec.containers[name=web].image"
        );
        assert!(line(&lines, "  template:").owners.is_empty());
        assert!(!lines.iter().any(|l| l.text.contains("managedFields")));
    }

    #[test]
    fn scalars_keep_their_types_and_block_strings_continue() {
        let lines = blame_lines(&deployment());
        assert!(
            !lines.iter().any(|l| l.text.trim_end() == "  ready: yes"),
            "{lines:#?}"
        );
        assert!(lines
            .iter()
            .any(|l| l.text.contains("ready:") && l.text.contains("yes")));
        let message = lines
            .iter()
            .position(|l| l.text.starts_with("  message:"))
            .expect("message");
        assert!(lines[message + 1].path.is_none(), "{lines:#?}");
        assert!(lines
            .iter()
            .any(|l| l.text.trim_end() == "        - --port"));
    }
}
