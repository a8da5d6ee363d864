//! Jobs made by hand: *Trigger now* on a CronJob (`kubectl create job NAME
//! --from=cronjob/x`: its job template, owned by the CronJob as its controller, annotated
//! `cronjob.kubernetes.io/instantiate: manual`) and *Re-run* of a Job (a copy without what
//! the job controller set: its selector, `manualSelector` and the controller-uid and job-name
//! labels, under a new name; kubectl has no command for it, users do it by hand).

use serde_json::{json, Map, Value};

/// The annotation kubectl puts on a Job made from a CronJob by hand.
pub const INSTANTIATE_ANNOTATION: &str = "cronjob.kubernetes.io/instantiate";

/// The labels the job controller sets on a Job and its pod template (and selects by).
pub const CONTROLLER_LABELS: [&str; 4] = [
    "controller-uid",
    "batch.kubernetes.io/controller-uid",
    "batch.kubernetes.io/job-name",
    "job-name",
];

/// Longest Job name that still fits the `job-name` label value its pods get.
const MAX_JOB_NAME: usize = 63;

/// A name for a Job made by hand: `{base}-{word}-{suffix}`, the base shortened so the whole
/// fits in a label value (the caller gives a random suffix, as `generateName` would).
pub fn hand_made_job_name(base: &str, word: &str, suffix: &str) -> String {
    let tail = format!("-{word}-{suffix}");
    let room = MAX_JOB_NAME.saturating_sub(tail.len());
    let mut head: String = base.chars().take(room).collect();
    while head.ends_with(['-', '.']) {
        head.pop();
    }
    format!("{head}{tail}")
}

/// The Job kubectl makes from `cronjob` (`kubectl create job {name} --from=cronjob/x`), in
/// kubectl's field order; Err with why when the CronJob has no job template or uid.
pub fn job_from_cronjob(cronjob: &Value, name: &str) -> Result<Value, String> {
    let template = cronjob
        .pointer("/spec/jobTemplate")
        .filter(|t| t.is_object())
        .ok_or("the CronJob has no spec.jobTemplate")?;
    let uid = cronjob
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .filter(|uid| !uid.is_empty())
        .ok_or("the CronJob has no uid (read it from the server first)")?;
    let cronjob_name = cronjob
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut annotations = Map::new();
    annotations.insert(INSTANTIATE_ANNOTATION.into(), json!("manual"));
    // The template's annotations are copied over kubectl's own (a template may override it).
    if let Some(given) = template
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
    {
        for (key, value) in given {
            annotations.insert(key.clone(), value.clone());
        }
    }
    let mut metadata = Map::new();
    metadata.insert("name".into(), json!(name));
    metadata.insert("creationTimestamp".into(), Value::Null);
    if let Some(labels) = template
        .pointer("/metadata/labels")
        .filter(|l| is_non_empty(l))
    {
        metadata.insert("labels".into(), labels.clone());
    }
    metadata.insert("annotations".into(), Value::Object(annotations));
    metadata.insert(
        "ownerReferences".into(),
        json!([{"apiVersion": "batch/v1", "kind": "CronJob", "name": cronjob_name,
                "uid": uid, "controller": true}]),
    );
    let mut spec = template.get("spec").cloned().unwrap_or_else(|| json!({}));
    if let Some(template_metadata) = spec
        .pointer_mut("/template/metadata")
        .and_then(Value::as_object_mut)
    {
        template_metadata
            .entry("creationTimestamp")
            .or_insert(Value::Null);
    }
    Ok(json!({
        "kind": "Job",
        "apiVersion": "batch/v1",
        "metadata": metadata,
        "spec": spec,
        "status": {},
    }))
}

/// Metadata the server set on the original and a copy must not carry.
const SERVER_METADATA: [&str; 10] = [
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "ownerReferences",
    "selfLink",
    "generateName",
];

/// `kubectl apply`'s record of the original's configuration: not the copy's.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// A copy of `job` to run again under `name`: the server's metadata, its owners (a copy is
/// nobody's: a CronJob would count it against its history), its status, `spec.selector`,
/// `spec.manualSelector` and the job controller's labels removed, so the server selects the
/// copy's own pods. Err with why when it is not a Job with a pod template.
pub fn rerun_job(job: &Value, name: &str) -> Result<Value, String> {
    if job.get("kind").and_then(Value::as_str) != Some("Job") {
        return Err("not a Job".into());
    }
    if job.pointer("/spec/template").is_none_or(|t| !t.is_object()) {
        return Err("the Job has no spec.template".into());
    }
    let mut copy = job.clone();
    if let Some(object) = copy.as_object_mut() {
        object.shift_remove("status");
    }
    if let Some(metadata) = copy.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in SERVER_METADATA {
            metadata.shift_remove(field);
        }
        metadata.insert("name".into(), json!(name));
        remove_keys(metadata, "annotations", &[LAST_APPLIED]);
        remove_keys(metadata, "labels", &CONTROLLER_LABELS);
    }
    if let Some(spec) = copy.get_mut("spec").and_then(Value::as_object_mut) {
        spec.shift_remove("selector");
        spec.shift_remove("manualSelector");
    }
    if let Some(template_metadata) = copy
        .pointer_mut("/spec/template/metadata")
        .and_then(Value::as_object_mut)
    {
        remove_keys(template_metadata, "labels", &CONTROLLER_LABELS);
    }
    Ok(copy)
}

fn is_non_empty(value: &Value) -> bool {
    value.as_object().is_some_and(|m| !m.is_empty())
}

/// Removes `keys` from the string map `field` of `metadata`, and the map when left empty.
fn remove_keys(metadata: &mut Map<String, Value>, field: &str, keys: &[&str]) {
    let Some(map) = metadata.get_mut(field).and_then(Value::as_object_mut) else {
        return;
    };
    for key in keys {
        map.shift_remove(*key);
    }
    if map.is_empty() {
        metadata.shift_remove(field);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_made_names_fit_a_label_value() {
        assert_eq!(
            hand_made_job_name("nightly", "manual", "x7k2p"),
            "nightly-manual-x7k2p"
        );
        let long = "a".repeat(60);
        let name = hand_made_job_name(&long, "rerun", "abcde");
        assert_eq!(name.len(), 63);
        assert!(name.ends_with("-rerun-abcde"));
        assert_eq!(
            hand_made_job_name(&format!("{}-b", "x".repeat(50)), "rerun", "abcde").len(),
            62
        );
    }

    #[test]
    fn a_cronjob_without_a_template_or_uid_makes_no_job() {
        let no_template = json!({"metadata": {"name": "c", "uid": "u"}, "spec": {}});
        assert!(job_from_cronjob(&no_template, "j").is_err());
        let no_uid = json!({"metadata": {"name": "c"}, "spec": {"jobTemplate": {"spec": {}}}});
        assert!(job_from_cronjob(&no_uid, "j").is_err());
    }

    #[test]
    fn the_template_may_override_the_manual_annotation_as_in_kubectl() {
        let cronjob = json!({"metadata": {"name": "c", "uid": "u"},
            "spec": {"jobTemplate": {"metadata": {"annotations": {INSTANTIATE_ANNOTATION: "x"}},
                                     "spec": {"template": {"spec": {}}}}}});
        let job = job_from_cronjob(&cronjob, "j").expect("a job");
        assert_eq!(job["metadata"]["annotations"][INSTANTIATE_ANNOTATION], "x");
        assert!(job["metadata"].get("labels").is_none());
        assert_eq!(job["metadata"]["ownerReferences"][0]["controller"], true);
    }

    #[test]
    fn a_rerun_keeps_the_users_labels_and_a_manual_selector_is_dropped_too() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "once", "namespace": "d", "uid": "u",
                         "labels": {"team": "ops", "job-name": "once", "controller-uid": "u"}},
            "spec": {"manualSelector": true, "selector": {"matchLabels": {"team": "ops"}},
                     "template": {"metadata": {"labels": {"team": "ops", "batch.kubernetes.io/job-name": "once"}},
                                  "spec": {"containers": []}}},
            "status": {"succeeded": 1}});
        let copy = rerun_job(&job, "once-rerun-a").expect("a copy");
        assert_eq!(
            copy["metadata"],
            json!({"name": "once-rerun-a", "namespace": "d", "labels": {"team": "ops"}})
        );
        assert_eq!(
            copy["spec"],
            json!({"template": {"metadata": {"labels": {"team": "ops"}}, "spec": {"containers": []}}})
        );
        assert!(copy.get("status").is_none());
        assert!(rerun_job(&json!({"kind": "Pod"}), "x").is_err());
    }
}
