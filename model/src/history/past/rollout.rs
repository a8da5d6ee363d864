//! Rollout history as `kubectl rollout history` reads it: a Deployment's revisions are its
//! ReplicaSets (revision in the `deployment.kubernetes.io/revision` annotation, the pod
//! template in `spec.template` with the `pod-template-hash` label added), a StatefulSet's or
//! DaemonSet's are its ControllerRevisions (`.revision`, the template in
//! `.data.spec.template`). Each revision carries the template diff from the one before, and
//! [`rollback_template`] / [`rollback_patch`] say what `kubectl rollout undo --to-revision`
//! would write.

use serde_json::{json, Map, Value};

use crate::history::diff::{diff_values, FieldChange};
use crate::history::fields::{FieldPath, Segment};
use crate::object::pointer::Pointer;
use crate::time::age::{parse_timestamp, EpochMillis};

pub const REVISION_ANNOTATION: &str = "deployment.kubernetes.io/revision";
/// Earlier revision numbers of a ReplicaSet a rollback brought back.
pub const REVISION_HISTORY_ANNOTATION: &str = "deployment.kubernetes.io/revision-history";
/// What `kubectl rollout history` shows as CHANGE-CAUSE.
pub const CHANGE_CAUSE_ANNOTATION: &str = "kubernetes.io/change-cause";
/// The label the deployment controller adds to a ReplicaSet's template (and so its pods).
pub const POD_TEMPLATE_HASH_LABEL: &str = "pod-template-hash";

/// Annotations `kubectl rollout undo` keeps from the Deployment rather than take from the
/// ReplicaSet (kubectl's `polymorphichelpers/rollback.go`, `annotationsToSkip`).
const ANNOTATIONS_KEPT_ON_ROLLBACK: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION_ANNOTATION,
    REVISION_HISTORY_ANNOTATION,
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.deployment.rollback.to",
];

/// Which object holds a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevisionSource {
    ReplicaSet,
    ControllerRevision,
}

/// One revision of a workload's pod template.
#[derive(Debug, Clone, PartialEq)]
pub struct RolloutRevision {
    pub revision: u64,
    pub source: RevisionSource,
    /// The ReplicaSet or ControllerRevision holding it.
    pub name: String,
    pub uid: Option<String>,
    /// Its `metadata.creationTimestamp`: when this template first became a revision (a
    /// rollback to it gives it a new number, not a new time).
    pub created: Option<String>,
    pub created_ms: Option<EpochMillis>,
    /// The ReplicaSet's `spec.replicas` now (None for a ControllerRevision).
    pub replicas: Option<u64>,
    /// The pod template, without the `pod-template-hash` label.
    pub template: Value,
    /// The revision the diff is from: the next lower one still kept.
    pub previous: Option<u64>,
    /// From `previous`'s template to this one's; paths relative to the pod template with
    /// `spec.` left out (`containers[name=web].image`, `metadata.labels.tier`).
    pub changes: Vec<FieldChange>,
    /// The revision the workload runs now.
    pub current: bool,
    pub change_cause: Option<String>,
    /// Numbers this template had before a rollback renumbered it.
    pub earlier_numbers: Vec<u64>,
}

impl RolloutRevision {
    /// The changes, one line each (`containers[name=web].image: nginx:1.25 → nginx:1.27`).
    pub fn change_lines(&self) -> Vec<String> {
        self.changes.iter().map(FieldChange::describe).collect()
    }
}

fn text<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.at(pointer).and_then(Value::as_str)
}

fn annotation<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object
        .at("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
}

/// Whether `object`'s controller is `owner` (by uid; by kind and name when either has none).
pub fn controlled_by(object: &Value, owner: &Value) -> bool {
    let references = object
        .at("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let controller = references
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        .or_else(|| references.first());
    let Some(reference) = controller else {
        return false;
    };
    match (
        text(reference, "/uid"),
        text(owner, "/metadata/uid").filter(|u| !u.is_empty()),
    ) {
        (Some(uid), Some(owner_uid)) => uid == owner_uid,
        _ => {
            text(reference, "/kind") == text(owner, "/kind")
                && text(reference, "/name") == text(owner, "/metadata/name")
        }
    }
}

/// A template with the labels the controller adds removed.
fn without_hash_label(template: &Value) -> Value {
    let mut template = template.clone();
    if let Some(labels) = template
        .pointer_mut("/metadata/labels")
        .and_then(Value::as_object_mut)
    {
        labels.remove(POD_TEMPLATE_HASH_LABEL);
    }
    template
}

/// The changes between two pod templates: the spec's with `spec.` left out, then the
/// metadata's under `metadata` (a PodSpec has no `metadata` field, so neither is ambiguous).
pub fn template_changes(old: &Value, new: &Value) -> Vec<FieldChange> {
    let part = |t: &Value, key: &str| t.get(key).cloned().unwrap_or_else(|| json!({}));
    let mut changes = diff_values(&part(old, "spec"), &part(new, "spec"));
    let metadata = FieldPath(vec![Segment::Field("metadata".into())]);
    changes.extend(
        diff_values(&part(old, "metadata"), &part(new, "metadata"))
            .into_iter()
            .map(|change| FieldChange {
                path: FieldPath(metadata.0.iter().chain(&change.path.0).cloned().collect()),
                ..change
            }),
    );
    changes
}

fn revision_numbers(text: &str) -> Vec<u64> {
    text.split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect()
}

/// Orders revisions and fills in each one's diff from the revision before.
fn with_diffs(mut revisions: Vec<RolloutRevision>) -> Vec<RolloutRevision> {
    crate::list::stable_sort::sort_by_key(&mut revisions, |r| r.revision);
    for index in 1..revisions.len() {
        let (before, after) = revisions.split_at_mut(index);
        if let (Some(previous), Some(this)) = (before.last(), after.first_mut()) {
            this.previous = Some(previous.revision);
            this.changes = template_changes(&previous.template, &this.template);
        }
    }
    revisions
}

/// A Deployment's revisions from its ReplicaSets (those it controls with a readable revision
/// annotation), oldest first.
pub fn rollout_history(deployment: &Value, replica_sets: &[Value]) -> Vec<RolloutRevision> {
    let current_number: Option<u64> =
        annotation(deployment, REVISION_ANNOTATION).and_then(|r| r.parse().ok());
    let deployment_template = deployment.at("/spec/template").map(without_hash_label);
    let revisions = replica_sets
        .iter()
        .filter(|rs| controlled_by(rs, deployment))
        .filter_map(|rs| {
            let revision: u64 = annotation(rs, REVISION_ANNOTATION)?.parse().ok()?;
            let template = without_hash_label(rs.at("/spec/template")?);
            let created = text(rs, "/metadata/creationTimestamp").map(str::to_string);
            Some(RolloutRevision {
                revision,
                source: RevisionSource::ReplicaSet,
                name: text(rs, "/metadata/name").unwrap_or_default().to_string(),
                uid: text(rs, "/metadata/uid").map(str::to_string),
                created_ms: created.as_deref().and_then(parse_timestamp),
                created,
                replicas: rs.at("/spec/replicas").and_then(Value::as_u64),
                // Without the Deployment's annotation, the template it runs says which.
                current: match current_number {
                    Some(number) => number == revision,
                    None => deployment_template.as_ref() == Some(&template),
                },
                template,
                previous: None,
                changes: Vec::new(),
                change_cause: annotation(rs, CHANGE_CAUSE_ANNOTATION).map(str::to_string),
                earlier_numbers: annotation(rs, REVISION_HISTORY_ANNOTATION)
                    .map(revision_numbers)
                    .unwrap_or_default(),
            })
        })
        .collect();
    with_diffs(revisions)
}

/// A StatefulSet's or DaemonSet's revisions from its ControllerRevisions, oldest first. The
/// current one is a StatefulSet's `status.updateRevision`, else the highest number (the
/// controllers renumber a template they return to as the highest).
pub fn controller_revision_history(owner: &Value, revisions: &[Value]) -> Vec<RolloutRevision> {
    let update_revision = text(owner, "/status/updateRevision");
    let mut found: Vec<RolloutRevision> = revisions
        .iter()
        .filter(|r| controlled_by(r, owner))
        .filter_map(|r| {
            let revision = r.get("revision").and_then(Value::as_u64)?;
            let mut template = r.at("/data/spec/template")?.clone();
            // The stored form is a strategic merge patch that replaces the whole template.
            if let Some(map) = template.as_object_mut() {
                map.remove("$patch");
            }
            let created = text(r, "/metadata/creationTimestamp").map(str::to_string);
            let name = text(r, "/metadata/name").unwrap_or_default().to_string();
            Some(RolloutRevision {
                revision,
                source: RevisionSource::ControllerRevision,
                current: update_revision == Some(name.as_str()),
                name,
                uid: text(r, "/metadata/uid").map(str::to_string),
                created_ms: created.as_deref().and_then(parse_timestamp),
                created,
                replicas: None,
                template,
                previous: None,
                changes: Vec::new(),
                change_cause: annotation(r, CHANGE_CAUSE_ANNOTATION).map(str::to_string),
                earlier_numbers: Vec::new(),
            })
        })
        .collect();
    if update_revision.is_none() {
        if let Some(highest) = found.iter_mut().max_by_key(|r| r.revision) {
            highest.current = true;
        }
    }
    with_diffs(found)
}

/// The annotations `kubectl rollout undo` sets on the Deployment: its own revision
/// bookkeeping and last-applied configuration, and every other annotation of the ReplicaSet.
fn rollback_annotations(deployment: &Value, replica_set: &Value) -> Map<String, Value> {
    let empty = Map::new();
    let of = |object: &Value| {
        object
            .at("/metadata/annotations")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_else(|| empty.clone())
    };
    let mut annotations = Map::new();
    for (key, value) in of(deployment) {
        if ANNOTATIONS_KEPT_ON_ROLLBACK.contains(&key.as_str()) {
            annotations.insert(key, value);
        }
    }
    for (key, value) in of(replica_set) {
        if !ANNOTATIONS_KEPT_ON_ROLLBACK.contains(&key.as_str()) {
            annotations.insert(key, value);
        }
    }
    annotations
}

fn rollback_pod_template(replica_set: &Value) -> Value {
    replica_set
        .at("/spec/template")
        .map(without_hash_label)
        .unwrap_or_else(|| json!({}))
}

/// The Deployment as `kubectl rollout undo --to-revision` leaves it when rolling back to
/// `replica_set`: `spec.template` replaced by the ReplicaSet's without `pod-template-hash`,
/// and `metadata.annotations` as that command sets them.
pub fn rollback_template(deployment: &Value, replica_set: &Value) -> Value {
    let mut rolled_back = deployment.clone();
    if let Some(spec) = rolled_back.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("template".into(), rollback_pod_template(replica_set));
    }
    if let Some(metadata) = rolled_back
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
    {
        metadata.insert(
            "annotations".into(),
            Value::Object(rollback_annotations(deployment, replica_set)),
        );
    }
    rolled_back
}

/// The JSON Patch `kubectl rollout undo --to-revision` sends (Content-Type
/// `application/json-patch+json`) for the same rollback.
pub fn rollback_patch(deployment: &Value, replica_set: &Value) -> Value {
    json!([
        {"op": "replace", "path": "/spec/template", "value": rollback_pod_template(replica_set)},
        {"op": "replace", "path": "/metadata/annotations",
         "value": Value::Object(rollback_annotations(deployment, replica_set))},
    ])
}
