//! The day-two actions' requests against what kubectl v1.32 sent to kube-apiserver v1.36.2
//! (`fixtures/actions`, recorded with `kubectl -v=8` against `../shared/kubernetes`; each
//! file's `command` is the kubectl command that sent it, `input` the object kubectl read).
//! Everything is compared: method, path and query, content type and body (the restartedAt
//! time is the model's argument, given the recorded one).

use kube_atlas_model::api::errors::ApiError;
use kube_atlas_model::api::request::{ApiRequest, PropagationPolicy};
use kube_atlas_model::edit::actions::{
    plan_drain, Action, ActionOptions, Consent, DrainProgress, MetadataEdit, PodProgress, Skip,
    Target, RESTARTED_AT,
};
use serde_json::{json, Value};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/actions");

fn fixture(name: &str) -> Value {
    let path = format!("{DIR}/{name}.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} in {value}"))
}

/// Compares the model's request with kubectl's `index`th request of the fixture.
fn assert_sends(name: &str, index: usize, request: &ApiRequest) {
    let recorded = &fixture(name)["requests"][index];
    assert_eq!(request.method(), text(recorded, "method"), "{name}: method");
    assert_eq!(
        request.url(),
        text(recorded, "url"),
        "{name}: path and query"
    );
    assert_eq!(
        request.content_type(),
        Some(text(recorded, "contentType")),
        "{name}: content type"
    );
    let body = request.body.as_deref().expect("a body");
    let expected = text(recorded, "body");
    if recorded["method"] == "POST" && expected.contains("\"Job\"") {
        // A Job goes whole: compared as JSON (kubectl's key order is Go's field order).
        let sent: Value = serde_json::from_str(body).expect("JSON");
        let wanted: Value = serde_json::from_str(expected).expect("JSON");
        assert_eq!(sent, wanted, "{name}: body");
    } else {
        assert_eq!(body, expected, "{name}: body, byte for byte");
    }
}

fn object(kind_version: (&str, &str), name: &str, namespace: Option<&str>) -> Value {
    let mut metadata = json!({"name": name});
    if let Some(ns) = namespace {
        metadata["namespace"] = json!(ns);
    }
    json!({"apiVersion": kind_version.1, "kind": kind_version.0, "metadata": metadata})
}

fn send(action: &Action, object: &Value) -> ApiRequest {
    let target = Target::of(object).expect("a built-in kind");
    action
        .request(&target, object, &ActionOptions::kubectl())
        .unwrap_or_else(|e| panic!("{action:?}: {e:?}"))
}

#[test]
fn rollout_restart_pause_and_resume_send_what_kubectl_sends() {
    for (name, kind, object_name) in [
        ("restart-deployment", "Deployment", "web"),
        ("restart-statefulset", "StatefulSet", "db"),
        ("restart-daemonset", "DaemonSet", "agent"),
    ] {
        let recorded: Value =
            serde_json::from_str(text(&fixture(name)["requests"][0], "body")).expect("JSON");
        let at = recorded["spec"]["template"]["metadata"]["annotations"][RESTARTED_AT]
            .as_str()
            .expect("kubectl's time");
        let action = Action::Restart { at: at.into() };
        assert_sends(
            name,
            0,
            &send(
                &action,
                &object((kind, "apps/v1"), object_name, Some("default")),
            ),
        );
    }
    let web = object(("Deployment", "apps/v1"), "web", Some("default"));
    assert_sends("pause-deployment", 0, &send(&Action::Pause, &web));
    assert_sends("resume-deployment", 0, &send(&Action::Resume, &web));
}

#[test]
fn cronjob_trigger_suspend_and_resume_send_what_kubectl_sends() {
    let cronjob = fixture("trigger-cronjob")["input"].clone();
    let trigger = Action::Trigger {
        job_name: "nightly-manual-x7k2p".into(),
    };
    assert_sends("trigger-cronjob", 0, &send(&trigger, &cronjob));
    assert_sends("suspend-cronjob", 0, &send(&Action::Suspend, &cronjob));
    assert_sends("resume-cronjob", 0, &send(&Action::Unsuspend, &cronjob));
}

#[test]
fn a_job_rerun_is_the_copy_made_by_hand() {
    let job = fixture("rerun-job")["input"].clone();
    let rerun = Action::Rerun {
        job_name: "once-rerun-4c9tq".into(),
    };
    assert_sends("rerun-job", 0, &send(&rerun, &job));
}

#[test]
fn cordon_uncordon_scale_labels_annotations_and_deletes_send_what_kubectl_sends() {
    let node = object(("Node", "v1"), "node-2", None);
    assert_sends("cordon-node", 0, &send(&Action::Cordon, &node));
    assert_sends("uncordon-node", 0, &send(&Action::Uncordon, &node));
    let web = object(("Deployment", "apps/v1"), "web", Some("default"));
    assert_sends(
        "scale-deployment",
        0,
        &send(&Action::Scale { replicas: 3 }, &web),
    );
    let mut lonely = object(("Pod", "v1"), "lonely", Some("default"));
    let set = |key: &str, value: &str| (key.to_string(), value.to_string());
    let (key, value) = set("tier", "backend");
    assert_sends(
        "label-add",
        0,
        &send(&Action::Label(MetadataEdit::Add { key, value }), &lonely),
    );
    lonely["metadata"]["labels"] = json!({"tier": "backend"});
    let (key, value) = set("tier", "frontend");
    assert_sends(
        "label-change",
        0,
        &send(&Action::Label(MetadataEdit::Change { key, value }), &lonely),
    );
    assert_sends(
        "label-remove",
        0,
        &send(
            &Action::Label(MetadataEdit::Remove { key: "tier".into() }),
            &lonely,
        ),
    );
    let (key, value) = set("owner", "team-a");
    assert_sends(
        "annotate-add",
        0,
        &send(&Action::Annotate(MetadataEdit::Add { key, value }), &lonely),
    );
    lonely["metadata"]["annotations"] = json!({"owner": "team-a"});
    assert_sends(
        "annotate-remove",
        0,
        &send(
            &Action::Annotate(MetadataEdit::Remove {
                key: "owner".into(),
            }),
            &lonely,
        ),
    );
    let victim = object(("Pod", "v1"), "victim", Some("default"));
    let foreground = Action::Delete {
        propagation: PropagationPolicy::Foreground,
    };
    assert_sends("delete-foreground", 0, &send(&foreground, &victim));
    let victim2 = object(("Pod", "v1"), "victim2", Some("default"));
    let background = Action::Delete {
        propagation: PropagationPolicy::Background,
    };
    assert_sends("delete-background", 0, &send(&background, &victim2));
}

#[test]
fn a_drain_plans_and_sends_what_kubectl_drain_does() {
    let recorded = fixture("drain-node");
    let pods = recorded["input"]
        .as_array()
        .expect("the node's pods")
        .clone();
    let plan = plan_drain("node-1", &pods);
    let skipped: Vec<&str> = plan.skipped.iter().map(|(t, _)| t.name.as_str()).collect();
    let expected: Vec<&str> = recorded["skipped"]
        .as_array()
        .expect("skipped")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(skipped, expected);
    assert!(plan.skipped.iter().all(|(_, why)| *why == Skip::DaemonSet));
    // Without --force kubectl refused, in these words.
    let refusal = plan
        .refusal(&[Consent::LocalData])
        .expect("refused without --force");
    assert!(
        text(&recorded, "withoutForce").ends_with(&refusal),
        "{refusal}"
    );
    let refusal = plan
        .refusal(&[Consent::Unmanaged])
        .expect("refused without --delete-emptydir-data");
    assert!(
        text(&recorded, "withoutDeleteEmptydirData").ends_with(&refusal),
        "{refusal}"
    );
    assert_eq!(
        plan.kubectl(&[Consent::Unmanaged, Consent::LocalData]),
        "kubectl drain node-1 --ignore-daemonsets --delete-emptydir-data --force"
    );
    // The cordon, then one eviction per pod, as kubectl sent them.
    let node = object(("Node", "v1"), "node-1", None);
    assert_sends("drain-node", 0, &send(&Action::Cordon, &node));
    let evictions = plan.evictions(&[Consent::Unmanaged, Consent::LocalData]);
    let requests = recorded["requests"].as_array().expect("requests");
    assert_eq!(evictions.len(), requests.len() - 1);
    for target in &evictions {
        let index = requests
            .iter()
            .position(|r| {
                r["url"]
                    .as_str()
                    .is_some_and(|u| u.ends_with(&format!("/pods/{}/eviction", target.name)))
            })
            .unwrap_or_else(|| panic!("kubectl evicted {}", target.name));
        let request = Action::Evict
            .request(target, &Value::Null, &ActionOptions::kubectl())
            .expect("a pod");
        assert_sends("drain-node", index, &request);
    }
    // The PDB's 429 as kube-apiserver answered it: retried, named, never forced.
    let answer = recorded["eviction429"].to_string();
    let error = ApiError::from_response(429, &answer);
    let mut progress = DrainProgress::start("node-1", evictions.clone());
    let due = progress.due(0.0);
    let web = due
        .iter()
        .find(|t| t.name.starts_with("web-"))
        .expect("the web pod")
        .clone();
    progress.answered(&web, Err(&error), 0.0);
    let state = &progress
        .pods
        .iter()
        .find(|(t, _)| *t == web)
        .expect("tracked")
        .1;
    assert!(
        matches!(state, PodProgress::RefusedByBudget { budget: Some(b), .. } if b == "web-pdb"),
        "{state:?}"
    );
}
