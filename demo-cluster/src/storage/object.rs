//! What the store and its watch cache share: an object's key, and one immutable stored
//! version of an object with its JSON rendered once.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use axum::body::Bytes;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub group: String,
    pub resource: String,
    pub namespace: String,
    pub name: String,
}

impl ObjectKey {
    pub fn new(group: &str, resource: &str, namespace: &str, name: &str) -> Self {
        ObjectKey {
            group: group.into(),
            resource: resource.into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }
}

/// One immutable version of a stored object, shared (not copied) by the map, the watch cache,
/// lists and watchers, with its JSON rendered at most once.
#[derive(Debug)]
pub struct StoredObject {
    value: Value,
    json: OnceLock<Bytes>,
    /// Its PartialObjectMetadata form, for Table rows and metadata lists (rendered on demand).
    metadata_json: OnceLock<Bytes>,
}

impl StoredObject {
    pub fn new(value: Value) -> Self {
        StoredObject {
            value,
            json: OnceLock::new(),
            metadata_json: OnceLock::new(),
        }
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The object serialized as stored, rendered on first use.
    pub fn json(&self) -> &Bytes {
        self.json.get_or_init(|| {
            // Serializing a `Value` cannot fail (its map keys are strings).
            Bytes::from(serde_json::to_vec(&self.value).unwrap_or_default())
        })
    }
}

impl StoredObject {
    /// `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":...}` of the
    /// object as stored, rendered on first use.
    pub fn metadata_json(&self) -> &Bytes {
        self.metadata_json.get_or_init(|| {
            let mut buf = Vec::with_capacity(1024);
            write_partial_metadata(&mut buf, &self.value);
            Bytes::from(buf)
        })
    }
}

/// Writes the PartialObjectMetadata of `obj` from borrowed data (no copy of the metadata).
pub fn write_partial_metadata(buf: &mut Vec<u8>, obj: &Value) {
    buf.extend_from_slice(
        br#"{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":"#,
    );
    // Writing a `Value` into a Vec cannot fail (its map keys are strings).
    match without_internal_annotations(obj) {
        Some(metadata) => {
            let _ = serde_json::to_writer(&mut *buf, &metadata);
        }
        None => {
            let _ = serde_json::to_writer(&mut *buf, &obj["metadata"]);
        }
    }
    buf.push(b'}');
}

/// A DaemonSet's `deprecated.daemonset.template.generation` annotation is how apps/v1 carries
/// kube-apiserver's internal `spec.templateGeneration`: its metadata-only forms (Table rows,
/// PartialObjectMetadata), made from the internal object, do not have it. The metadata
/// without it, or `None` when there is nothing to take out.
pub fn without_internal_annotations(obj: &Value) -> Option<Value> {
    const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";
    let is_daemon_set = obj["kind"] == "DaemonSet" && obj["apiVersion"] == "apps/v1";
    if !is_daemon_set
        || obj["metadata"]["annotations"]
            .get(TEMPLATE_GENERATION)
            .is_none()
    {
        return None;
    }
    let mut metadata = obj["metadata"].clone();
    if let Some(annotations) = metadata["annotations"].as_object_mut() {
        annotations.remove(TEMPLATE_GENERATION);
        if annotations.is_empty() {
            metadata.as_object_mut().map(|m| m.remove("annotations"));
        }
    }
    Some(metadata)
}

impl Deref for StoredObject {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.value
    }
}

pub type ObjectRef = Arc<StoredObject>;
