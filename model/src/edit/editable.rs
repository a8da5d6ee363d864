//! What the editor shows of an object, and which of its fields are the server's bookkeeping
//! rather than anything a person edits.

use serde_json::Value;

use crate::api::tree::ApiResource;
use crate::history::{diff_values, FieldChange};

/// Whether the kind's `status` is written through `/status` only, so the main resource
/// ignores it in a PUT and the editor leaves it out.
pub fn has_status_subresource(resource: &ApiResource) -> bool {
    resource.subresource("status").is_some()
}

/// The object as the editor shows it: without `metadata.managedFields` (the server's record,
/// thousands of lines nobody edits) and without `status` when the kind has a status
/// subresource (a PUT ignores it). `metadata.resourceVersion` stays: it is the concurrency
/// token that makes a save fail instead of overwriting someone else's write.
pub fn editable(object: &Value, status_is_subresource: bool) -> Value {
    let mut shown = object.clone();
    if let Some(metadata) = shown.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    if status_is_subresource {
        if let Some(fields) = shown.as_object_mut() {
            fields.remove("status");
        }
    }
    shown
}

/// Metadata the server writes on every change, never a person's edit.
const BOOKKEEPING: &[&str] = &["managedFields", "resourceVersion", "generation"];

/// The object without the server's bookkeeping, for comparing two versions by what people
/// and controllers changed.
pub(crate) fn without_bookkeeping(object: &Value, status_is_subresource: bool) -> Value {
    let mut stripped = editable(object, status_is_subresource);
    if let Some(metadata) = stripped.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in BOOKKEEPING {
            metadata.remove(*field);
        }
    }
    stripped
}

/// What a save would change, from the live object to what the server would store (a
/// dry-run's answer): every changed field, without the bookkeeping every write changes.
pub fn review_diff(live: &Value, would_store: &Value) -> Vec<FieldChange> {
    diff_values(
        &without_bookkeeping(live, false),
        &without_bookkeeping(would_store, false),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::tests::sample_tree;
    use serde_json::json;

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "resourceVersion": "41",
                         "generation": 3, "uid": "u-1",
                         "managedFields": [{"manager": "kubectl", "operation": "Update"}]},
            "spec": {"replicas": 2},
            "status": {"replicas": 2}
        })
    }

    #[test]
    fn the_editor_hides_managed_fields_and_subresource_status() {
        let shown = editable(&deployment(), true);
        assert_eq!(shown.pointer("/metadata/managedFields"), None);
        assert_eq!(shown.get("status"), None);
        assert_eq!(
            shown.pointer("/metadata/resourceVersion"),
            Some(&json!("41"))
        );
        assert_eq!(shown.pointer("/spec/replicas"), Some(&json!(2)));
        // Without a status subresource, status is the object's own field.
        let shown = editable(&deployment(), false);
        assert_eq!(shown.pointer("/status/replicas"), Some(&json!(2)));
        // Odd shapes are left alone.
        assert_eq!(editable(&json!([1, 2]), true), json!([1, 2]));
        assert_eq!(
            editable(&json!({"metadata": "x"}), true),
            json!({"metadata": "x"})
        );
    }

    #[test]
    fn status_subresources_come_from_discovery() {
        let tree = sample_tree();
        let core = tree.core().expect("core");
        let v1 = core.version("v1").expect("v1");
        assert!(has_status_subresource(v1.resource("pods").expect("pods")));
        assert!(!has_status_subresource(
            v1.resource("namespaces").expect("namespaces")
        ));
    }

    #[test]
    fn review_shows_the_change_not_the_bookkeeping() {
        let live = deployment();
        let mut stored = deployment();
        stored["spec"]["replicas"] = json!(5);
        stored["metadata"]["resourceVersion"] = json!("42");
        stored["metadata"]["generation"] = json!(4);
        stored["metadata"]["managedFields"] = json!([]);
        let changes = review_diff(&live, &stored);
        let described: Vec<String> = changes.iter().map(FieldChange::describe).collect();
        assert_eq!(described, vec!["spec.replicas: 2 → 5"]);
        assert!(review_diff(&live, &live).is_empty());
    }
}
