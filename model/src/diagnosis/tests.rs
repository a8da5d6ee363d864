//! Rules and chains on objects shaped as kube-apiserver, kube-controller-manager,
//! kube-scheduler and the kubelet write them.

use serde_json::{json, Value};

use super::*;
use crate::age::parse_timestamp;
use crate::events::event_record;

fn now() -> EpochMillis {
    parse_timestamp("2026-11-25T12:00:00Z").expect("a timestamp")
}

fn owner(kind: &str, name: &str, uid: &str) -> Value {
    json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": true}])
}

fn deployment(ready: i64, conditions: Value) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "demo", "uid": "d1"},
        "spec": {"replicas": 3},
        "status": {"replicas": 3, "readyReplicas": ready, "conditions": conditions},
    })
}

fn replica_set(ready: i64) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-5d8", "namespace": "demo", "uid": "rs1",
            "ownerReferences": owner("Deployment", "web", "d1")},
        "spec": {"replicas": 3},
        "status": {"replicas": 3, "readyReplicas": ready},
    })
}

fn pod(name: &str, status: Value) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "demo", "uid": format!("uid-{name}"),
            "ownerReferences": owner("ReplicaSet", "web-5d8", "rs1")},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]},
        "status": status,
    })
}

fn running() -> Value {
    json!({"phase": "Running", "conditions": [
        {"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}],
        "containerStatuses": [{"name": "web", "image": "nginx:1.27", "ready": true, "restartCount": 0,
            "state": {"running": {"startedAt": "2026-11-25T11:00:00Z"}}}]})
}

const UNSCHEDULABLE: &str =
    "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. \
    preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";

fn unschedulable() -> Value {
    json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
        "reason": "Unschedulable", "message": UNSCHEDULABLE,
        "lastTransitionTime": "2026-11-25T11:58:00Z"}]})
}

fn event(
    regarding_kind: &str,
    name: &str,
    uid: &str,
    kind: &str,
    reason: &str,
    message: &str,
) -> EventRecord {
    event_record(&json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{name}.1"), "namespace": "demo", "uid": format!("e-{name}-{reason}"),
            "resourceVersion": "1"},
        "involvedObject": {"kind": regarding_kind, "name": name, "namespace": "demo", "uid": uid},
        "type": kind, "reason": reason, "message": message, "count": 4,
        "lastTimestamp": "2026-11-25T11:59:00Z", "source": {"component": "default-scheduler"},
    }))
    .expect("an Event")
}

#[test]
fn pods_that_cannot_be_scheduled_are_the_root_cause_of_a_deployment_not_ready() {
    let loaded = vec![
        replica_set(1),
        pod("web-a", running()),
        pod("web-b", unschedulable()),
        pod("web-c", unschedulable()),
    ];
    let events = vec![event(
        "Pod",
        "web-b",
        "uid-web-b",
        "Warning",
        "FailedScheduling",
        UNSCHEDULABLE,
    )];
    let root = deployment(
        1,
        json!([
        {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
         "message": "Deployment does not have minimum availability."},
        {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}]),
    );
    let diagnosis = diagnose(&root, &loaded, &events, now());
    assert_eq!(diagnosis.health(), Health::Failing);
    let first = &diagnosis.causes[0];
    assert_eq!(
        first.headline(),
        "2 of 3 Pods of ReplicaSet demo/web-5d8 cannot be scheduled: no node of 3 fits: 3 do not match its node selector or affinity"
    );
    let chain: Vec<String> = first.chain.iter().map(Subject::describe).collect();
    assert_eq!(chain, ["ReplicaSet demo/web-5d8", "Deployment demo/web"]);
    assert!(first.finding.evidence.iter().any(
        |e| matches!(e, Evidence::Event { reason, count: 4, .. } if reason == "FailedScheduling")
    ));
    assert!(first.finding.check.contains("reason=FailedScheduling"));
    // "1 of 3 ready" on the workloads adds nothing to the pods' cause.
    assert!(
        diagnosis
            .causes
            .iter()
            .all(|c| c.finding.health != Health::Progressing),
        "{:#?}",
        diagnosis.causes
    );
}

#[test]
fn a_healthy_deployment_has_nothing_to_say() {
    let loaded = vec![
        replica_set(3),
        pod("web-a", running()),
        pod("web-b", running()),
        pod("web-c", running()),
    ];
    let root = deployment(
        3,
        json!([{"type": "Available", "status": "True"}, {"type": "Progressing", "status": "True"}]),
    );
    let diagnosis = diagnose(&root, &loaded, &[], now());
    assert!(diagnosis.is_clean(), "{:#?}", diagnosis.causes);
    assert_eq!(diagnosis.health(), Health::Ok);
    assert_eq!(health_of(&root, &[], now()), Health::Ok);
}

#[test]
fn a_rollout_on_its_way_is_progressing_not_a_failure() {
    let starting = json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}],
        "containerStatuses": [{"name": "web", "ready": false, "restartCount": 0,
            "state": {"waiting": {"reason": "ContainerCreating"}}}]});
    let loaded = vec![
        replica_set(2),
        pod("web-a", running()),
        pod("web-b", running()),
        pod("web-c", starting),
    ];
    let diagnosis = diagnose(&deployment(2, json!([])), &loaded, &[], now());
    assert_eq!(diagnosis.health(), Health::Progressing);
    assert_eq!(
        diagnosis.causes.len(),
        1,
        "said once: {:#?}",
        diagnosis.causes
    );
    assert_eq!(
        diagnosis.causes[0].headline(),
        "ReplicaSet demo/web-5d8 2 of 3 pods are ready"
    );
}

#[test]
fn a_crash_loop_says_the_exit_code_and_how_to_read_the_previous_log() {
    let crashing = pod(
        "web-a",
        json!({"phase": "Running", "containerStatuses": [{
        "name": "web", "image": "crash:1", "ready": false, "restartCount": 7,
        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}},
        "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}]}),
    );
    let findings = rules::object_findings(&crashing, &[], now());
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].sentence,
        "container web keeps crashing: it exited with code 137 (OOMKilled) and was restarted 7 times"
    );
    assert_eq!(
        findings[0].check,
        "kubectl logs web-a -n demo --previous -c web"
    );
    assert_eq!(health_of(&crashing, &[], now()), Health::Failing);
}

#[test]
fn an_image_that_cannot_be_pulled() {
    let pulling = pod(
        "web-a",
        json!({"phase": "Pending", "containerStatuses": [{
        "name": "web", "image": "nginx:doesnotexist", "ready": false, "restartCount": 0,
        "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image \"nginx:doesnotexist\""}}}]}),
    );
    let events = vec![event(
        "Pod",
        "web-a",
        "uid-web-a",
        "Warning",
        "Failed",
        "Failed to pull image \"nginx:doesnotexist\": not found",
    )];
    let findings = rules::object_findings(&pulling, &events, now());
    assert_eq!(
        findings[0].sentence,
        "container web cannot pull its image nginx:doesnotexist"
    );
    assert_eq!(findings[0].rule, "image-pull");
    assert_eq!(
        findings[0].evidence.len(),
        2,
        "the state and the kubelet's Event"
    );
}

#[test]
fn a_failing_readiness_probe_warns() {
    let mut status = running();
    status["conditions"][1]["status"] = json!("False");
    let unready = pod("web-a", status);
    let events = vec![event(
        "Pod",
        "web-a",
        "uid-web-a",
        "Warning",
        "Unhealthy",
        "Readiness probe failed: HTTP probe failed with statuscode: 503",
    )];
    let findings = rules::object_findings(&unready, &events, now());
    assert_eq!(findings[0].health, Health::Warning);
    assert!(findings[0].sentence.contains("statuscode: 503"));
    // Without the Event the pod is only not ready yet: nothing to say.
    assert!(rules::object_findings(&unready, &[], now()).is_empty());
}

#[test]
fn stuck_deletions_name_their_finalizers() {
    let mut held = pod("web-a", running());
    held["metadata"]["deletionTimestamp"] = json!("2026-11-25T11:50:00Z");
    held["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    held["metadata"]["finalizers"] = json!(["example.com/hold"]);
    let findings = rules::object_findings(&held, &[], now());
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].sentence,
        "is stuck terminating: finalizers hold it: example.com/hold"
    );
    // Within its grace period (and a minute), a deletion is on its way.
    held["metadata"]["deletionTimestamp"] = json!("2026-11-25T11:59:30Z");
    assert!(rules::object_findings(&held, &[], now()).is_empty());
}

#[test]
fn workload_conditions_jobs_claims_nodes_and_custom_resources() {
    let stuck = deployment(
        1,
        json!([{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
        "message": "ReplicaSet \"web-5d8\" has timed out progressing."}]),
    );
    assert_eq!(
        rules::object_findings(&stuck, &[], now())[0].sentence,
        "its rollout is stuck: ReplicaSet \"web-5d8\" has timed out progressing."
    );

    let mut quota = replica_set(0);
    quota["status"]["conditions"] = json!([{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
        "message": "pods \"web-5d8-x\" is forbidden: exceeded quota: pods"}]);
    assert!(rules::object_findings(&quota, &[], now())[0]
        .sentence
        .contains("exceeded quota"));

    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate", "namespace": "demo", "uid": "j1"},
        "status": {"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
            "message": "Job has reached the specified backoff limit"}]}});
    assert_eq!(
        rules::object_findings(&job, &[], now())[0].sentence,
        "failed (BackoffLimitExceeded): Job has reached the specified backoff limit"
    );

    let claim = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "demo", "uid": "c1"},
        "spec": {"storageClassName": "local"}, "status": {"phase": "Pending"}});
    let waiting = vec![event(
        "PersistentVolumeClaim",
        "data",
        "c1",
        "Normal",
        "WaitForFirstConsumer",
        "waiting for first consumer to be created before binding",
    )];
    let f = &rules::object_findings(&claim, &waiting, now())[0];
    assert_eq!(
        (f.health, f.rule),
        (Health::Progressing, "claim-waits-for-consumer")
    );
    let mut classless = claim.clone();
    classless["spec"] = json!({});
    assert_eq!(
        rules::object_findings(&classless, &[], now())[0].rule,
        "claim-no-class"
    );

    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "uid": "n1"},
        "spec": {"unschedulable": true},
        "status": {"conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
            "message": "Kubelet stopped posting node status."},
            {"type": "MemoryPressure", "status": "False"}]}});
    let rules_found: Vec<&str> = rules::object_findings(&node, &[], now())
        .iter()
        .map(|f| f.rule)
        .collect();
    assert_eq!(rules_found, ["node-not-ready", "node-cordoned"]);

    let at = json!({"apiVersion": "cnat.programming-kubernetes.info/v1alpha1", "kind": "At",
        "metadata": {"name": "ping", "namespace": "demo", "uid": "a1"},
        "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "PodFailed", "message": "the command failed"}]}});
    let f = &rules::object_findings(&at, &[], now())[0];
    assert_eq!(f.sentence, "is not ready: PodFailed the command failed");
    assert_eq!(f.check, "kubectl describe at ping -n demo");
}

#[test]
fn objects_outside_the_owner_chain_are_not_blamed() {
    let mut stranger = pod("other", unschedulable());
    stranger["metadata"]["ownerReferences"] = owner("ReplicaSet", "other-rs", "rs-other");
    let loaded = vec![replica_set(3), stranger];
    let diagnosis = diagnose(&deployment(3, json!([])), &loaded, &[], now());
    assert!(diagnosis.is_clean(), "{:#?}", diagnosis.causes);
}

#[test]
fn a_service_selecting_no_ready_pod_warns_and_one_with_ready_pods_is_fine() {
    let service = json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web", "namespace": "demo", "uid": "s1"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}});
    let mut unready = pod(
        "web-a",
        json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]}),
    );
    unready["metadata"]["labels"] = json!({"app": "web"});
    let diagnosis = diagnose(&service, &[unready.clone()], &[], now());
    assert_eq!(
        diagnosis.causes[0].headline(),
        "Service demo/web selects 1 pod, not ready: its traffic goes nowhere"
    );
    assert_eq!(
        diagnosis.causes[0].finding.check,
        "kubectl get pods -n demo -l app=web"
    );
    let nothing = diagnose(&service, &[], &[], now());
    assert!(nothing.causes[0]
        .finding
        .sentence
        .starts_with("selects no pod"));
    let mut ready = pod("web-b", running());
    ready["metadata"]["labels"] = json!({"app": "web"});
    assert!(diagnose(&service, &[unready, ready], &[], now()).is_clean());
}

#[test]
fn what_is_still_fine_is_counted_by_kind() {
    let loaded = vec![
        replica_set(1),
        pod("web-a", running()),
        pod("web-b", unschedulable()),
    ];
    let diagnosis = diagnose(&deployment(1, json!([])), &loaded, &[], now());
    assert_eq!(diagnosis.fine, [("Pod".to_string(), 1)]);
}
