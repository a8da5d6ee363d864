//! What an object page shows, computed from the object's JSON alone: identity and age,
//! labels and annotations (long ones folded), status conditions, owners, and the object as
//! pretty JSON with the noisy `managedFields` folded away unless asked for.

use serde_json::Value;

use crate::object::meta::{text_field, ObjectMeta, OwnerReference};
use crate::object::pointer::Pointer;
use crate::time::age::{age_of, EpochMillis};

/// Values longer than this (in characters), or on several lines, start folded.
pub const FOLD_AFTER_CHARS: usize = 80;

/// One label or annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataEntry {
    pub key: String,
    pub value: String,
    /// Show folded (first line, shortened) until opened: long or multi-line, such as
    /// `kubectl.kubernetes.io/last-applied-configuration`.
    pub fold: bool,
}

impl MetadataEntry {
    fn new(key: &str, value: &str) -> MetadataEntry {
        MetadataEntry {
            key: key.to_string(),
            value: value.to_string(),
            fold: value.contains('\n') || value.chars().count() > FOLD_AFTER_CHARS,
        }
    }

    /// The folded form: the first line cut to [`FOLD_AFTER_CHARS`], with `…` when cut.
    pub fn folded_value(&self) -> String {
        let first_line = self.value.lines().next().unwrap_or_default();
        let mut text: String = first_line.chars().take(FOLD_AFTER_CHARS).collect();
        if text.len() < self.value.len() {
            text.push('…');
        }
        text
    }
}

/// One `status.conditions` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConditionRow {
    /// `Ready`, `Available`, `Progressing`…
    pub condition_type: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    pub reason: String,
    pub message: String,
    /// `lastTransitionTime`, else `lastUpdateTime` (Deployments), else `lastProbeTime`.
    pub last_transition_time: Option<String>,
    /// Since [`ConditionRow::last_transition_time`], as kubectl prints ages.
    pub age: Option<String>,
}

impl ConditionRow {
    fn from_value(condition: &Value, now: EpochMillis) -> Option<ConditionRow> {
        condition.as_object()?;
        let text = |key: &str| match condition.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let last_transition_time = ["lastTransitionTime", "lastUpdateTime", "lastProbeTime"]
            .into_iter()
            .find_map(|key| text_field(condition, key).filter(|t| !t.is_empty()));
        Some(ConditionRow {
            condition_type: text("type"),
            status: text("status"),
            reason: text("reason"),
            message: text("message"),
            age: last_transition_time
                .as_deref()
                .and_then(|time| age_of(time, now)),
            last_transition_time,
        })
    }

    /// `True` for most types, but for "bad news" types (`*Pressure`, `Failed`…) `False` is
    /// the healthy value; the view should show the status text, not guess colours from it.
    pub fn is_true(&self) -> bool {
        self.status == "True"
    }
}

/// The top of an object page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectOverview {
    pub kind: String,
    pub api_version: String,
    pub name: String,
    pub namespace: Option<String>,
    pub uid: Option<String>,
    pub resource_version: Option<String>,
    pub creation_timestamp: Option<String>,
    /// Since creation, as kubectl prints ages.
    pub age: Option<String>,
    /// Set while the object is being deleted (finalizers pending).
    pub deletion_timestamp: Option<String>,
    pub generation: Option<i64>,
    /// `status.observedGeneration`: below `generation` means "not reconciled yet".
    pub observed_generation: Option<i64>,
    /// Sorted by key.
    pub labels: Vec<MetadataEntry>,
    /// Sorted by key.
    pub annotations: Vec<MetadataEntry>,
    pub conditions: Vec<ConditionRow>,
    pub owner_references: Vec<OwnerReference>,
    pub finalizers: Vec<String>,
    /// How many `managedFields` entries the object has (shown folded in the JSON).
    pub managed_fields: usize,
}

impl ObjectOverview {
    /// The controller has not acted on the latest spec yet.
    pub fn reconciling(&self) -> bool {
        matches!((self.generation, self.observed_generation), (Some(g), Some(o)) if o < g)
    }
}

/// Reads the page's facts from an object; odd or missing fields are left empty, never fatal.
pub fn object_overview(object: &Value, now: EpochMillis) -> ObjectOverview {
    let meta = ObjectMeta::of_object(object);
    let entries = |map: &std::collections::BTreeMap<String, String>| {
        map.iter()
            .map(|(k, v)| MetadataEntry::new(k, v))
            .collect::<Vec<_>>()
    };
    ObjectOverview {
        kind: text_field(object, "kind").unwrap_or_default(),
        api_version: text_field(object, "apiVersion").unwrap_or_default(),
        name: meta.name.clone(),
        namespace: meta.namespace.clone(),
        uid: meta.uid.clone(),
        resource_version: meta.resource_version.clone(),
        age: meta
            .creation_timestamp
            .as_deref()
            .and_then(|created| age_of(created, now)),
        creation_timestamp: meta.creation_timestamp.clone(),
        deletion_timestamp: meta.deletion_timestamp.clone(),
        generation: object.at("/metadata/generation").and_then(Value::as_i64),
        observed_generation: object
            .at("/status/observedGeneration")
            .and_then(Value::as_i64),
        labels: entries(&meta.labels),
        annotations: entries(&meta.annotations),
        conditions: object
            .at("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| ConditionRow::from_value(c, now))
            .collect(),
        owner_references: meta.owner_references,
        finalizers: meta.finalizers,
        managed_fields: managed_fields_count(object),
    }
}

fn managed_fields_count(object: &Value) -> usize {
    object
        .at("/metadata/managedFields")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// An object whose deletion was asked for but is not done (`kubectl get` says Terminating).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terminating {
    /// The `deletionTimestamp`.
    pub since: String,
    /// What holds it: "finalizers: a, b", or "its grace period".
    pub waiting_for: String,
}

/// Whether `object` is being deleted, and what it waits for.
pub fn terminating(object: &Value) -> Option<Terminating> {
    let since = object
        .at("/metadata/deletionTimestamp")?
        .as_str()?
        .to_string();
    let finalizers: Vec<&str> = object
        .at("/metadata/finalizers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let waiting_for = if finalizers.is_empty() {
        "its grace period".to_string()
    } else {
        format!("finalizers: {}", finalizers.join(", "))
    };
    Some(Terminating { since, waiting_for })
}

/// The JSON tab's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrettyJson {
    /// Two-space indented JSON. Keys come in serde_json's map order: alphabetical in the
    /// app's build (no `preserve_order`), which happens to keep `apiVersion`, `kind`,
    /// `metadata`, `spec`, `status` in their usual order.
    pub text: String,
    /// How many `managedFields` entries were left out (0 when shown or absent), so the view
    /// can offer "show 4 managedFields entries".
    pub managed_fields_folded: usize,
}

/// The object as shown: without `metadata.managedFields` unless `show_managed_fields`, with
/// how many entries were left out (for the YAML and JSON views alike).
pub fn shown_object(object: &Value, show_managed_fields: bool) -> (Value, usize) {
    let mut shown = object.clone();
    let mut folded = 0;
    if !show_managed_fields {
        if let Some(metadata) = shown.get_mut("metadata").and_then(Value::as_object_mut) {
            if let Some(removed) = metadata.remove("managedFields") {
                folded = removed.as_array().map_or(1, Vec::len);
            }
        }
    }
    (shown, folded)
}

/// The object as pretty JSON; `metadata.managedFields` is removed unless `show_managed_fields`.
pub fn pretty_json(object: &Value, show_managed_fields: bool) -> PrettyJson {
    let (shown, managed_fields_folded) = shown_object(object, show_managed_fields);
    // Serializing a Value cannot fail (its keys are strings); the fallback is never used.
    let text = serde_json::to_string_pretty(&shown).unwrap_or_else(|_| shown.to_string());
    PrettyJson {
        text,
        managed_fields_folded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CREATED_MS: i64 = 1_714_564_800_000; // 2024-05-01T12:00:00Z

    #[test]
    fn terminating_objects_say_what_holds_them() {
        assert_eq!(terminating(&json!({"metadata": {"name": "a"}})), None);
        let held = json!({"metadata": {"deletionTimestamp": "2026-11-25T10:00:00Z",
            "finalizers": ["example.com/hold", "kubernetes"]}});
        assert_eq!(
            terminating(&held),
            Some(Terminating {
                since: "2026-11-25T10:00:00Z".into(),
                waiting_for: "finalizers: example.com/hold, kubernetes".into()
            })
        );
        let graceful = json!({"metadata": {"deletionTimestamp": "2026-11-25T10:00:00Z"}});
        assert_eq!(
            terminating(&graceful).map(|t| t.waiting_for),
            Some("its grace period".into())
        );
    }

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {
                "name": "web", "namespace": "default", "uid": "d-uid", "resourceVersion": "77",
                "generation": 3, "creationTimestamp": "2024-05-01T12:00:00Z",
                "labels": {"app": "web"},
                "annotations": {
                    "deployment.kubernetes.io/revision": "2",
                    "kubectl.kubernetes.io/last-applied-configuration": format!("{{\"spec\":{}}}\n", "x".repeat(100)),
                    "note": "line one\nline two"
                },
                "ownerReferences": [{"apiVersion": "example.com/v1", "kind": "App", "name": "shop",
                                     "uid": "app-uid", "controller": true}],
                "finalizers": ["example.com/cleanup"],
                "managedFields": [
                    {"manager": "kubectl", "operation": "Apply"},
                    {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status"}
                ]
            },
            "spec": {"replicas": 2},
            "status": {
                "observedGeneration": 2,
                "conditions": [
                    {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                     "message": "Deployment has minimum availability.",
                     "lastUpdateTime": "2024-05-01T12:01:00Z", "lastTransitionTime": "2024-05-01T12:00:30Z"},
                    {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
                     "lastUpdateTime": "2024-05-01T12:02:00Z"},
                    {"type": "Odd", "status": true, "message": null},
                    "not a condition"
                ]
            }
        })
    }

    #[test]
    fn overview_reads_identity_metadata_and_conditions() {
        let now = CREATED_MS + 190_000;
        let view = object_overview(&deployment(), now);
        assert_eq!(view.kind, "Deployment");
        assert_eq!(view.api_version, "apps/v1");
        assert_eq!(view.name, "web");
        assert_eq!(view.namespace.as_deref(), Some("default"));
        assert_eq!(view.uid.as_deref(), Some("d-uid"));
        assert_eq!(view.resource_version.as_deref(), Some("77"));
        assert_eq!(view.age.as_deref(), Some("3m10s"));
        assert!(view.reconciling());
        assert_eq!(view.labels, [MetadataEntry::new("app", "web")]);
        assert!(!view.labels[0].fold);
        let folds: Vec<(&str, bool)> = view
            .annotations
            .iter()
            .map(|a| (a.key.as_str(), a.fold))
            .collect();
        assert_eq!(
            folds,
            [
                ("deployment.kubernetes.io/revision", false),
                ("kubectl.kubernetes.io/last-applied-configuration", true),
                ("note", true),
            ]
        );
        assert_eq!(view.annotations[2].folded_value(), "line one…");
        assert_eq!(
            view.annotations[1].folded_value().chars().count(),
            FOLD_AFTER_CHARS + 1
        );
        assert_eq!(view.annotations[0].folded_value(), "2");
        assert_eq!(view.owner_references[0].kind, "App");
        assert_eq!(view.finalizers, ["example.com/cleanup"]);
        assert_eq!(view.managed_fields, 2);

        assert_eq!(view.conditions.len(), 3);
        let available = &view.conditions[0];
        assert_eq!(
            (available.condition_type.as_str(), available.status.as_str()),
            ("Available", "True")
        );
        assert!(available.is_true());
        assert_eq!(
            available.last_transition_time.as_deref(),
            Some("2024-05-01T12:00:30Z")
        );
        assert_eq!(available.age.as_deref(), Some("2m40s"));
        // Without lastTransitionTime, lastUpdateTime is used.
        assert_eq!(view.conditions[1].age.as_deref(), Some("70s"));
        assert!(!view.conditions[1].is_true());
        assert_eq!(view.conditions[1].message, "");
        assert_eq!(view.conditions[2].status, "true");
        assert_eq!(view.conditions[2].age, None);
    }

    #[test]
    fn odd_objects_give_an_empty_overview() {
        for odd in [
            json!(null),
            json!([1]),
            json!({"metadata": 5, "status": {"conditions": {}}}),
        ] {
            let view = object_overview(&odd, 0);
            assert_eq!(view, ObjectOverview::default());
            assert!(!view.reconciling());
        }
    }

    #[test]
    fn json_folds_managed_fields_unless_asked() {
        let object = deployment();
        let folded = pretty_json(&object, false);
        assert_eq!(folded.managed_fields_folded, 2);
        assert!(!folded.text.contains("managedFields"));
        assert!(folded.text.contains("\n  \"kind\": \"Deployment\""));
        let parsed: Value = serde_json::from_str(&folded.text).expect("valid JSON");
        assert_eq!(parsed["spec"]["replicas"], 2);
        // The original object is untouched.
        assert!(object["metadata"]["managedFields"].is_array());
        let full = pretty_json(&object, true);
        assert_eq!(full.managed_fields_folded, 0);
        assert!(full.text.contains("kube-controller-manager"));
        // No managedFields, or no metadata at all.
        assert_eq!(
            pretty_json(&json!({"kind": "X"}), false).managed_fields_folded,
            0
        );
        assert_eq!(pretty_json(&json!("text"), false).text, "\"text\"");
    }
}
