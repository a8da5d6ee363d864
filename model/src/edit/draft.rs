//! Unsaved edits kept per object (in the browser's localStorage, as JSON strings), so a
//! reload or a closed tab loses nothing. The key names the object the same way on every
//! cluster; the base is the object the edit started from, for a three-way merge when the
//! object has changed since.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::tree::ResourceId;
use crate::object::pointer::Pointer;

/// An edit in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Draft {
    /// See [`draft_key`].
    pub key: String,
    /// The editor's text as typed, valid or not.
    pub text: String,
    /// The object the edit started from (`Null` when creating).
    pub base: Value,
    /// When it was last saved, in milliseconds since the epoch.
    pub saved_at_ms: f64,
}

impl Draft {
    pub fn to_json(&self) -> String {
        // A struct of strings, a number and a Value: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A stored draft; `Err` when the text is not one (another version's, or damaged).
    pub fn from_json(text: &str) -> Result<Draft, String> {
        serde_json::from_str(text).map_err(|e| format!("not a saved draft: {e}"))
    }

    /// The resourceVersion the edit started from.
    pub fn base_resource_version(&self) -> Option<&str> {
        resource_version(&self.base)
    }

    /// Whether `live` was written since the edit started, so saving needs a merge first.
    pub fn is_behind(&self, live: &Value) -> bool {
        self.base_resource_version() != resource_version(live)
    }
}

fn resource_version(object: &Value) -> Option<&str> {
    object.at("/metadata/resourceVersion")?.as_str()
}

/// Marks a cluster-scoped object's (absent) namespace; no namespace can be named `_`.
const NO_NAMESPACE: &str = "_";

/// The draft of editing `name` (or creating one, with `name` `None`) of `resource` in
/// `namespace`: `edit/apps/v1/deployments/default/web`, `create/core/v1/configmaps/default`.
pub fn draft_key(resource: &ResourceId, namespace: Option<&str>, name: Option<&str>) -> String {
    let namespace = namespace.filter(|n| !n.is_empty()).unwrap_or(NO_NAMESPACE);
    match name {
        Some(name) => format!("edit/{}/{namespace}/{name}", resource.key()),
        None => format!("create/{}/{namespace}", resource.key()),
    }
}

/// The draft of the create-from-YAML page, which is for no one resource.
pub const CREATE_FROM_YAML_DRAFT_KEY: &str = "create/yaml";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployments() -> ResourceId {
        ResourceId::new("apps", "v1", "deployments")
    }

    #[test]
    fn keys_name_the_object_and_the_kind_of_edit() {
        assert_eq!(
            draft_key(&deployments(), Some("default"), Some("web")),
            "edit/apps/v1/deployments/default/web"
        );
        assert_eq!(
            draft_key(
                &ResourceId::new("", "v1", "namespaces"),
                None,
                Some("team-a")
            ),
            "edit/core/v1/namespaces/_/team-a"
        );
        assert_eq!(
            draft_key(
                &ResourceId::new("", "v1", "configmaps"),
                Some("default"),
                None
            ),
            "create/core/v1/configmaps/default"
        );
        assert_ne!(
            draft_key(&deployments(), Some("a"), Some("web")),
            draft_key(&deployments(), Some("b"), Some("web"))
        );
    }

    #[test]
    fn drafts_survive_storage_as_json() {
        let draft = Draft {
            key: draft_key(&deployments(), Some("default"), Some("web")),
            text: "spec:\n  replicas: 3\n  # half typed: [\n".into(),
            base: json!({"metadata": {"name": "web", "resourceVersion": "41"}, "spec": {"replicas": 2}}),
            saved_at_ms: 1_764_000_000_123.5,
        };
        let stored = draft.to_json();
        assert!(stored.contains("\"savedAtMs\""), "{stored}");
        assert_eq!(Draft::from_json(&stored), Ok(draft.clone()));
        assert_eq!(draft.base_resource_version(), Some("41"));
        assert!(!draft.is_behind(&json!({"metadata": {"resourceVersion": "41"}})));
        assert!(draft.is_behind(&json!({"metadata": {"resourceVersion": "42"}})));
    }

    #[test]
    fn damaged_drafts_are_errors_not_panics() {
        assert!(Draft::from_json("").is_err());
        assert!(Draft::from_json("{\"key\": 1}").is_err());
        assert!(Draft::from_json("[]").is_err());
    }
}
