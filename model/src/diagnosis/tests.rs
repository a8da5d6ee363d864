//! Rules and chains on objects shaped as kube-apiserver, kube-controller-manager,
//! kube-scheduler and the kubelet write them.

use serde_json::{json, Value};

use super::*;
use crate::object::events::event_record;
use crate::time::age::parse_timestamp;

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

// One verdict everywhere: `controller_health` on many controllers at once says what
// `diagnose` says of each.

/// `object` controlled by `kind name` (uid `uid`) instead.
fn controlled_by(mut object: Value, kind: &str, name: &str, uid: &str) -> Value {
    let api_version = match kind {
        "Job" | "CronJob" => "batch/v1",
        _ => "apps/v1",
    };
    object["metadata"]["ownerReferences"] = json!([{"apiVersion": api_version, "kind": kind,
        "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}]);
    object
}

fn uid(object: &Value) -> &str {
    object["metadata"]["uid"].as_str().expect("a uid")
}

/// `controller`'s verdict among `loaded`, asserted to be what `diagnose` says of it: its
/// health, and its first cause's subject and sentence (or itself, with nothing to say).
fn verdict_agrees(controller: &Value, loaded: &[Value], events: &[EventRecord]) -> Verdict {
    let verdicts = controller_health([controller], loaded, events, now());
    let verdict = verdicts
        .get(uid(controller))
        .cloned()
        .expect("a verdict on the controller");
    assert_eq!(
        verdicts.len(),
        1,
        "only controllers are judged: {verdicts:#?}"
    );
    let diagnosis = diagnose(controller, loaded, events, now());
    assert_eq!(
        verdict.health,
        diagnosis.health(),
        "{:#?}",
        diagnosis.causes
    );
    match diagnosis.causes.first() {
        Some(cause) => assert_eq!(
            (&verdict.about, verdict.sentence.as_str()),
            (&cause.finding.subject, cause.finding.sentence.as_str()),
            "the first cause on its page"
        ),
        None => assert_eq!(
            (Some(&verdict.about), verdict.sentence.as_str()),
            (Subject::of(controller).as_ref(), ""),
        ),
    }
    verdict
}

fn rolling_out() -> Value {
    deployment(
        2,
        json!([
        {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
         "message": "Deployment does not have minimum availability."},
        {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
         "message": "ReplicaSet \"web-5d8\" is progressing."}]),
    )
}

#[test]
fn a_pod_that_cannot_pull_its_image_fails_its_deployment_everywhere() {
    let pulling = json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"},
        {"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
        "containerStatuses": [{"name": "web", "image": "nginx:doesnotexist", "ready": false,
            "restartCount": 0, "state": {"waiting": {"reason": "ImagePullBackOff",
                "message": "Back-off pulling image \"nginx:doesnotexist\""}}}]});
    let mut err_pull = pulling.clone();
    err_pull["containerStatuses"][0]["state"]["waiting"]["reason"] = json!("ErrImagePull");
    let loaded = vec![
        replica_set(1),
        pod("web-a", running()),
        pod("web-b", pulling),
        pod("web-c", err_pull),
    ];
    let events = vec![
        event(
            "Pod",
            "web-b",
            "uid-web-b",
            "Warning",
            "Failed",
            "Failed to pull image \"nginx:doesnotexist\": not found",
        ),
        event(
            "Pod",
            "web-b",
            "uid-web-b",
            "Normal",
            "BackOff",
            "Back-off pulling image \"nginx:doesnotexist\"",
        ),
    ];
    let verdict = verdict_agrees(&rolling_out(), &loaded, &events);
    assert_eq!(verdict.health, Health::Failing);
    assert_eq!(verdict.about.name, "web-b");
    assert_eq!(
        verdict.sentence,
        "container web cannot pull its image nginx:doesnotexist"
    );
}

#[test]
fn a_crash_loop_fails_its_deployment_everywhere() {
    let crashing = json!({"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"},
        {"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
        "containerStatuses": [{"name": "web", "image": "crash:1", "ready": false, "restartCount": 6,
            "state": {"waiting": {"reason": "CrashLoopBackOff",
                "message": "back-off 2m40s restarting failed container=web pod=web-c_demo(uid-web-c)"}},
            "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                "finishedAt": "2026-11-25T11:58:00Z"}}}]});
    let loaded = vec![
        replica_set(2),
        pod("web-a", running()),
        pod("web-b", running()),
        pod("web-c", crashing),
    ];
    let events = vec![event(
        "Pod",
        "web-c",
        "uid-web-c",
        "Warning",
        "BackOff",
        "Back-off restarting failed container web in pod web-c_demo(uid-web-c)",
    )];
    let verdict = verdict_agrees(&rolling_out(), &loaded, &events);
    assert_eq!(verdict.health, Health::Failing);
    assert_eq!(
        verdict.sentence,
        "container web keeps crashing: it exited with code 1 (Error) and was restarted 6 times"
    );
}

#[test]
fn unschedulable_pods_fail_their_deployment_everywhere() {
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
        json!([{"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}]),
    );
    let verdict = verdict_agrees(&root, &loaded, &events);
    assert_eq!(verdict.health, Health::Failing);
    // Of the two siblings the first met, as the page's "2 of 3 Pods" headline names it.
    assert_eq!(verdict.about.name, "web-b");
    assert!(
        verdict
            .sentence
            .starts_with("cannot be scheduled: no node of 3 fits"),
        "{}",
        verdict.sentence
    );
    // Listed in another order, the verdict is still the page's.
    let reversed: Vec<Value> = loaded.into_iter().rev().collect();
    assert_eq!(
        verdict_agrees(&root, &reversed, &events).about.name,
        "web-c"
    );
}

#[test]
fn a_rollout_stuck_behind_an_unschedulable_new_replica_set_is_not_ok() {
    // `kubectl set image` then a nodeSelector no node has: the old pod keeps serving, so the
    // Deployment's own status reads 1 of 1 ready (its list row said OK).
    let root = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "demo", "uid": "d1", "generation": 2,
            "annotations": {"deployment.kubernetes.io/revision": "2"}},
        "spec": {"replicas": 1, "template": {"spec": {"nodeSelector": {"disktype": "nvme"},
            "containers": [{"name": "web", "image": "nginx:1.28"}]}}},
        "status": {"observedGeneration": 2, "replicas": 2, "updatedReplicas": 1, "readyReplicas": 1,
            "availableReplicas": 1, "unavailableReplicas": 1, "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
             "message": "Deployment has minimum availability."},
            {"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
             "message": "ReplicaSet \"web-7c9\" is progressing."}]},
    });
    let set = |name: &str, revision: &str, ready: i64| {
        let mut set = replica_set(ready);
        set["metadata"]["name"] = json!(name);
        set["metadata"]["uid"] = json!(format!("uid-{name}"));
        set["metadata"]["annotations"] = json!({"deployment.kubernetes.io/revision": revision});
        set["spec"]["replicas"] = json!(1);
        set["status"] = json!({"replicas": 1, "readyReplicas": ready, "availableReplicas": ready});
        set
    };
    let old_pod = controlled_by(
        pod("web-5d8-a", running()),
        "ReplicaSet",
        "web-5d8",
        "uid-web-5d8",
    );
    let mut new_pod = controlled_by(
        pod("web-7c9-a", unschedulable()),
        "ReplicaSet",
        "web-7c9",
        "uid-web-7c9",
    );
    new_pod["spec"]["nodeSelector"] = json!({"disktype": "nvme"});
    let events = vec![event(
        "Pod",
        "web-7c9-a",
        "uid-web-7c9-a",
        "Warning",
        "FailedScheduling",
        UNSCHEDULABLE,
    )];
    let sets = vec![set("web-5d8", "1", 1), set("web-7c9", "2", 0)];
    let everything = [sets.clone(), vec![old_pod, new_pod]].concat();
    let verdict = verdict_agrees(&root, &everything, &events);
    assert_eq!(verdict.health, Health::Failing);
    assert_eq!(verdict.about.name, "web-7c9-a");
    // With only the ReplicaSets loaded, the new one's 0 of 1 ready is still not OK.
    let sets_only = verdict_agrees(&root, &sets, &events);
    assert_eq!(sets_only.health, Health::Progressing);
    assert_eq!(sets_only.about.name, "web-7c9");
}

#[test]
fn a_failing_readiness_probe_warns_on_its_deployment_everywhere() {
    let mut unready = running();
    unready["conditions"][1] = json!({"type": "Ready", "status": "False", "reason": "ContainersNotReady",
        "message": "containers with unready status: [web]"});
    unready["containerStatuses"][0]["ready"] = json!(false);
    let loaded = vec![
        replica_set(2),
        pod("web-a", running()),
        pod("web-b", running()),
        pod("web-c", unready),
    ];
    let events = vec![event(
        "Pod",
        "web-c",
        "uid-web-c",
        "Warning",
        "Unhealthy",
        "Readiness probe failed: HTTP probe failed with statuscode: 503",
    )];
    let verdict = verdict_agrees(&rolling_out(), &loaded, &events);
    assert_eq!(verdict.health, Health::Warning);
    assert_eq!(
        verdict.sentence,
        "is not ready: Readiness probe failed: HTTP probe failed with statuscode: 503"
    );
}

#[test]
fn a_healthy_deployment_is_ok_everywhere() {
    let loaded = vec![
        replica_set(3),
        pod("web-a", running()),
        pod("web-b", running()),
        pod("web-c", running()),
    ];
    let root = deployment(
        3,
        json!([{"type": "Available", "status": "True"}, {"type": "Progressing", "status": "True",
            "reason": "NewReplicaSetAvailable"}]),
    );
    let events = vec![event(
        "Pod",
        "web-a",
        "uid-web-a",
        "Normal",
        "Pulled",
        "Container image \"nginx:1.27\" already present on machine",
    )];
    let verdict = verdict_agrees(&root, &loaded, &events);
    assert_eq!(verdict.health, Health::Ok);
}

fn stateful_set(ready: i64) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "demo", "uid": "ss1"},
        "spec": {"replicas": 2, "serviceName": "db"},
        "status": {"replicas": 2, "readyReplicas": ready, "currentReplicas": 2, "updatedReplicas": 2},
    })
}

#[test]
fn a_stateful_set_takes_the_health_of_the_pods_it_owns_directly() {
    let crashing = json!({"phase": "Running", "containerStatuses": [{"name": "web", "image": "postgres:17",
        "ready": false, "restartCount": 3, "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        "lastState": {"terminated": {"exitCode": 2, "reason": "Error"}}}]});
    let db =
        |name: &str, status: Value| controlled_by(pod(name, status), "StatefulSet", "db", "ss1");
    let loaded = vec![db("db-0", running()), db("db-1", crashing)];
    let verdict = verdict_agrees(&stateful_set(1), &loaded, &[]);
    assert_eq!(verdict.health, Health::Failing);
    assert_eq!(verdict.about.name, "db-1");

    // db-0 recreated under the same name: the probe failures of the pod it replaced (another
    // uid) are not about it.
    let mut unready = running();
    unready["conditions"][1]["status"] = json!("False");
    let loaded = vec![db("db-0", unready), db("db-1", running())];
    let old = vec![event(
        "Pod",
        "db-0",
        "uid-db-0-before",
        "Warning",
        "Unhealthy",
        "Readiness probe failed: connection refused",
    )];
    assert_eq!(
        verdict_agrees(&stateful_set(1), &loaded, &old).health,
        Health::Progressing
    );
    let current = vec![event(
        "Pod",
        "db-0",
        "uid-db-0",
        "Warning",
        "Unhealthy",
        "Readiness probe failed: connection refused",
    )];
    assert_eq!(
        verdict_agrees(&stateful_set(1), &loaded, &current).health,
        Health::Warning
    );
}

#[test]
fn a_cron_job_takes_the_health_of_its_jobs_pods() {
    let cron_job = json!({
        "apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "report", "namespace": "demo", "uid": "cj1"},
        "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "report", "image": "report:missing"}]}}}}},
        "status": {"active": [{"kind": "Job", "name": "report-29400000", "namespace": "demo",
            "uid": "job1", "apiVersion": "batch/v1"}]},
    });
    let job = controlled_by(
        json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "report-29400000", "namespace": "demo", "uid": "job1"},
            "spec": {"backoffLimit": 6, "completions": 1, "parallelism": 1},
            "status": {"active": 1, "ready": 0, "startTime": "2026-11-25T11:55:00Z"}}),
        "CronJob",
        "report",
        "cj1",
    );
    let mut job_pod = controlled_by(
        pod(
            "report-29400000-x7k",
            json!({"phase": "Pending", "containerStatuses": [{"name": "report", "image": "report:missing",
                "ready": false, "restartCount": 0, "state": {"waiting": {"reason": "ErrImagePull",
                    "message": "failed to pull and unpack image"}}}]}),
        ),
        "Job",
        "report-29400000",
        "job1",
    );
    job_pod["metadata"]["labels"] = json!({"batch.kubernetes.io/job-name": "report-29400000"});
    let verdict = verdict_agrees(&cron_job, &[job.clone(), job_pod.clone()], &[]);
    assert_eq!(verdict.health, Health::Failing);
    assert_eq!(verdict.about.kind, "Pod");
    assert_eq!(
        verdict.sentence,
        "container report cannot pull its image report:missing"
    );

    // The CronJobs list and the Jobs list at once: each as its own page says.
    let both = controller_health([&cron_job, &job], [&job_pod], &[], now());
    assert_eq!(both.len(), 2);
    for (controller, others) in [(&cron_job, [&job, &job_pod]), (&job, [&cron_job, &job_pod])] {
        let loaded: Vec<Value> = others.into_iter().cloned().collect();
        let page = diagnose(controller, &loaded, &[], now());
        assert_eq!(both[uid(controller)].health, page.health());
        assert_eq!(both[uid(controller)].about, page.causes[0].finding.subject);
    }
}

#[test]
fn many_controllers_at_once_each_get_their_own_verdict() {
    // 300 Deployments, each with a ReplicaSet and two pods; every third has a crashing pod.
    let crashing = json!({"phase": "Running", "containerStatuses": [{"name": "web", "image": "crash:1",
        "ready": false, "restartCount": 2, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]});
    let mut deployments = Vec::new();
    let mut owned = Vec::new();
    for i in 0..300 {
        let name = format!("web{i}");
        let mut d = deployment(2, json!([]));
        d["metadata"]["name"] = json!(name);
        d["metadata"]["uid"] = json!(format!("d-{i}"));
        d["spec"]["replicas"] = json!(2);
        let mut rs = controlled_by(replica_set(2), "Deployment", &name, &format!("d-{i}"));
        rs["metadata"]["name"] = json!(format!("{name}-rs"));
        rs["metadata"]["uid"] = json!(format!("rs-{i}"));
        rs["spec"]["replicas"] = json!(2);
        owned.push(rs);
        for p in 0..2 {
            let status = if i % 3 == 0 && p == 1 {
                crashing.clone()
            } else {
                running()
            };
            let pod = pod(&format!("{name}-{p}"), status);
            owned.push(controlled_by(
                pod,
                "ReplicaSet",
                &format!("{name}-rs"),
                &format!("rs-{i}"),
            ));
        }
        deployments.push(d);
    }
    // A crashing pod of no controller counts for none.
    owned.push(controlled_by(
        pod("stray", crashing.clone()),
        "ReplicaSet",
        "gone",
        "rs-gone",
    ));
    let verdicts = controller_health(&deployments, &owned, &[], now());
    assert_eq!(verdicts.len(), 300);
    let failing = verdicts
        .values()
        .filter(|v| v.health == Health::Failing)
        .count();
    assert_eq!(failing, 100);
    for i in [0, 1, 2, 3, 299] {
        let d = &deployments[i];
        let page = diagnose(d, &owned, &[], now());
        assert_eq!(verdicts[uid(d)].health, page.health(), "web{i}");
    }
    // The ReplicaSets list of the same objects: pods one link up.
    let sets: Vec<&Value> = owned.iter().filter(|o| o["kind"] == "ReplicaSet").collect();
    let by_set = controller_health(sets.iter().copied(), &owned, &[], now());
    assert_eq!(by_set.len(), 300);
    assert_eq!(by_set["rs-3"].health, Health::Failing);
    assert_eq!(by_set["rs-4"].health, Health::Ok);
}

#[test]
fn usage_findings_join_the_diagnosis_in_health_order() {
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "busy", "namespace": "demo", "uid": "p1"},
        "spec": {"containers": [{"name": "app", "resources": {"limits": {"cpu": "100m"}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                   "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0,
                                          "state": {"running": {}}}]},
    });
    let metrics = crate::metrics::decode::decode_pod_metrics(
        &json!({"kind": "PodMetricsList", "apiVersion": "metrics.k8s.io/v1beta1", "items": [
            {"metadata": {"name": "busy", "namespace": "demo"}, "timestamp": "2026-11-25T12:00:00Z",
             "window": "15s", "containers": [{"name": "app", "usage": {"cpu": "99m", "memory": "10Mi"}}]}
        ]})
        .to_string(),
    )
    .expect("decoded");
    let found = usage::pod_usage_findings(&pod, &metrics[0]);
    assert_eq!(found.len(), 1, "{found:?}");
    let plain = diagnose(&pod, &[], &[], now());
    assert!(plain.is_clean(), "{plain:?}");
    let with_usage = plain.with_findings(found);
    assert_eq!(with_usage.health(), Health::Warning);
    assert_eq!(
        with_usage.causes[0].headline(),
        "Pod demo/busy container app uses 99m of its 100m CPU limit (99%): it is likely throttled"
    );
}
