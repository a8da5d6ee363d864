//! Object metadata as the Browse views read it (the part of `ObjectMeta` that Table rows,
//! owner graphs and object pages need), read leniently: a field of the wrong type is dropped,
//! never the whole object, because list bodies come from any server and any CRD.

use std::collections::BTreeMap;

use crate::object::pointer::Pointer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One `metadata.ownerReferences` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OwnerReference {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    /// At most one owner is the managing controller.
    pub controller: bool,
    pub block_owner_deletion: bool,
}

impl OwnerReference {
    /// Reads one reference; `None` without a uid, the only field owners are matched by.
    pub fn from_value(value: &Value) -> Option<OwnerReference> {
        let uid = text_field(value, "uid").filter(|uid| !uid.is_empty())?;
        Some(OwnerReference {
            api_version: text_field(value, "apiVersion").unwrap_or_default(),
            kind: text_field(value, "kind").unwrap_or_default(),
            name: text_field(value, "name").unwrap_or_default(),
            uid,
            controller: bool_field(value, "controller"),
            block_owner_deletion: bool_field(value, "blockOwnerDeletion"),
        })
    }
}

/// The metadata of one object (or `PartialObjectMetadata`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectMeta {
    pub name: String,
    /// `None` for cluster-scoped objects.
    pub namespace: Option<String>,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    /// RFC 3339; see [`crate::time::age::parse_timestamp`].
    pub creation_timestamp: Option<String>,
    pub deletion_timestamp: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub owner_references: Vec<OwnerReference>,
    pub finalizers: Vec<String>,
}

impl ObjectMeta {
    /// Reads `object.metadata`; a missing or odd metadata gives the default (empty) value.
    pub fn of_object(object: &Value) -> ObjectMeta {
        object
            .get("metadata")
            .map(ObjectMeta::from_metadata)
            .unwrap_or_default()
    }

    /// Reads a `metadata` value field by field, dropping what has the wrong type.
    pub fn from_metadata(metadata: &Value) -> ObjectMeta {
        let non_empty = |key: &str| text_field(metadata, key).filter(|s| !s.is_empty());
        ObjectMeta {
            name: text_field(metadata, "name").unwrap_or_default(),
            namespace: non_empty("namespace"),
            uid: non_empty("uid"),
            resource_version: non_empty("resourceVersion"),
            creation_timestamp: non_empty("creationTimestamp"),
            deletion_timestamp: non_empty("deletionTimestamp"),
            labels: string_map(metadata.get("labels")),
            annotations: string_map(metadata.get("annotations")),
            owner_references: metadata
                .get("ownerReferences")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(OwnerReference::from_value)
                .collect(),
            finalizers: metadata
                .get("finalizers")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect(),
        }
    }

    /// The owner reference marked `controller: true`, if any.
    pub fn controller(&self) -> Option<&OwnerReference> {
        self.owner_references.iter().find(|r| r.controller)
    }
}

/// A string field of a JSON object.
pub(crate) fn text_field(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

fn bool_field(value: &Value, key: &str) -> bool {
    value.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// A `map[string]string`; entries whose value is not a string are dropped.
fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
        .collect()
}

/// The uid of `object`'s controlling owner (the ownerReference with `controller: true`, else
/// its first owner).
pub fn controller_uid(object: &Value) -> Option<&str> {
    let owners = object
        .at("/metadata/ownerReferences")
        .and_then(Value::as_array)?;
    owners
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        .or_else(|| owners.first())?
        .get("uid")?
        .as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_metadata_and_owner_references() {
        let pod = json!({"metadata": {
        "name": "web-1", "namespace": "default", "uid": "u1", "resourceVersion": "42",
        "creationTimestamp": "2024-05-01T12:00:00Z",
        "labels": {"app": "web"}, "annotations": {"note": "x"},
        "finalizers": ["example.com/keep"],
        "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-rs", "uid": "rs1",
             "controller": true, "blockOwnerDeletion": true},
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "cm1"}
        ]}});
        let meta = ObjectMeta::of_object(&pod);
        assert_eq!(meta.name, "web-1");
        assert_eq!(meta.namespace.as_deref(), Some("default"));
        assert_eq!(meta.uid.as_deref(), Some("u1"));
        assert_eq!(meta.resource_version.as_deref(), Some("42"));
        assert_eq!(meta.labels.get("app").map(String::as_str), Some("web"));
        assert_eq!(meta.finalizers, ["example.com/keep"]);
        assert_eq!(meta.owner_references.len(), 2);
        assert_eq!(meta.controller().map(|r| r.name.as_str()), Some("web-rs"));
        assert!(meta.owner_references[0].block_owner_deletion);
        assert!(!meta.owner_references[1].controller);
    }

    #[test]
    fn odd_fields_are_dropped_not_fatal() {
        let odd = json!({"metadata": {
            "name": 7, "namespace": "", "uid": null,
            "labels": {"ok": "yes", "number": 3}, "annotations": "nope",
            "ownerReferences": [{"kind": "NoUid"}, 5, {"uid": "x", "controller": "yes"}]}});
        let meta = ObjectMeta::of_object(&odd);
        assert_eq!(meta.name, "");
        assert_eq!(meta.namespace, None);
        assert_eq!(meta.uid, None);
        assert_eq!(meta.labels.len(), 1);
        assert!(meta.annotations.is_empty());
        assert_eq!(meta.owner_references.len(), 1);
        assert!(!meta.owner_references[0].controller);
        assert_eq!(ObjectMeta::of_object(&json!("text")), ObjectMeta::default());
        assert_eq!(
            ObjectMeta::of_object(&json!({"metadata": []})),
            ObjectMeta::default()
        );
    }
}
