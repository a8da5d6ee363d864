use serde_json::{json, Value};

use super::*;
use crate::object::events::event_record;

const T0: &str = "2026-11-23T10:00:00Z";

fn ms(text: &str) -> EpochMillis {
    parse_timestamp(text).expect("a timestamp")
}

fn entry(manager: &str, subresource: &str, time: &str, fields: Value) -> Value {
    json!({"manager": manager, "operation": "Update", "subresource": subresource,
           "time": time, "fieldsType": "FieldsV1", "fieldsV1": fields})
}

fn controlled_by_ref(kind: &str, name: &str, uid: &str) -> Value {
    json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid,
            "controller": true, "blockOwnerDeletion": true}])
}

/// A Pod as kube-apiserver v1.36 shows it once the kubelet runs it.
fn running_pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": "web-abc-1", "namespace": "demo", "uid": "p1",
            "creationTimestamp": T0,
            "ownerReferences": controlled_by_ref("ReplicaSet", "web-abc", "rs1"),
            "managedFields": [
                entry("kube-controller-manager", "", T0,
                      json!({"f:metadata": {"f:ownerReferences": {}}, "f:spec": {"f:containers": {}}})),
                entry("kubelet", "status", "2026-11-23T10:00:03Z", json!({"f:status": {
                    "f:conditions": {
                        "k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}, "f:type": {}},
                        "k:{\"type\":\"PodScheduled\"}": {".": {}, "f:status": {}, "f:type": {}}
                    },
                    "f:containerStatuses": {}, "f:phase": {}, "f:podIP": {}
                }})),
            ]
        },
        "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "nginx:1.27"}]},
        "status": {
            "phase": "Running", "podIP": "10.244.0.3",
            "conditions": [
                {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-23T10:00:03Z"},
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": T0}
            ],
            "containerStatuses": [{
                "name": "web", "image": "nginx:1.27", "ready": true, "restartCount": 0,
                "state": {"running": {"startedAt": "2026-11-23T10:00:03Z"}}
            }]
        }
    })
}

/// A core/v1 Event about (kind, name, uid), reported by (component, host).
fn core_event(
    uid: &str,
    reason: &str,
    about: (&str, &str, &str),
    reporter: (&str, &str),
    message: &str,
    (first, last, count): (&str, &str, u32),
) -> EventRecord {
    event_record(&json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{}.{uid}", about.1), "namespace": "demo", "uid": uid},
        "involvedObject": {"kind": about.0, "name": about.1, "namespace": "demo", "uid": about.2},
        "reason": reason, "message": message, "type": "Normal", "count": count,
        "source": {"component": reporter.0, "host": reporter.1},
        "firstTimestamp": first, "lastTimestamp": last
    }))
    .expect("an Event")
}

/// The scheduler's Event, written through events.k8s.io/v1 (eventTime, no counts).
fn scheduled_event(api_version: &str) -> EventRecord {
    let body = if api_version == "v1" {
        json!({"apiVersion": "v1", "kind": "Event",
               "involvedObject": {"kind": "Pod", "name": "web-abc-1", "namespace": "demo", "uid": "p1"},
               "message": "Successfully assigned demo/web-abc-1 to node-1",
               "reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-host",
               "firstTimestamp": null, "lastTimestamp": null})
    } else {
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
               "regarding": {"kind": "Pod", "name": "web-abc-1", "namespace": "demo", "uid": "p1"},
               "note": "Successfully assigned demo/web-abc-1 to node-1",
               "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-host"})
    };
    let mut body = body;
    body["metadata"] = json!({"name": "web-abc-1.sched", "namespace": "demo", "uid": "e-sched"});
    body["reason"] = json!("Scheduled");
    body["action"] = json!("Binding");
    body["type"] = json!("Normal");
    body["eventTime"] = json!("2026-11-23T10:00:00.412000Z");
    event_record(&body).expect("an Event")
}

fn at(t: &str) -> (&str, &str, u32) {
    (t, t, 1)
}

fn pod_events() -> Vec<EventRecord> {
    vec![
        core_event(
            "e-create",
            "SuccessfulCreate",
            ("ReplicaSet", "web-abc", "rs1"),
            ("replicaset-controller", ""),
            "Created pod: web-abc-1",
            at(T0),
        ),
        core_event(
            "e-create-other",
            "SuccessfulCreate",
            ("ReplicaSet", "web-abc", "rs1"),
            ("replicaset-controller", ""),
            "Created pod: web-abc-12",
            at(T0),
        ),
        scheduled_event("v1"),
        scheduled_event("events.k8s.io/v1"),
        core_event(
            "e-pulled",
            "Pulled",
            ("Pod", "web-abc-1", "p1"),
            ("kubelet", "node-1"),
            "Container image \"nginx:1.27\" already present on machine",
            at("2026-11-23T10:00:02Z"),
        ),
        core_event(
            "e-started",
            "Started",
            ("Pod", "web-abc-1", "p1"),
            ("kubelet", "node-1"),
            "Started container web",
            at("2026-11-23T10:00:03Z"),
        ),
        core_event(
            "e-elsewhere",
            "Started",
            ("Pod", "other", "p9"),
            ("kubelet", "node-2"),
            "Started container web",
            at(T0),
        ),
    ]
}

fn pod_past() -> Vec<PastEntry> {
    let pod = running_pod();
    let events = pod_events();
    past_entries(&Loaded {
        events: &events,
        ..Loaded::object(&pod)
    })
}

fn find(entries: &[PastEntry], wanted: impl Fn(&PastKind) -> bool) -> &PastEntry {
    entries
        .iter()
        .find(|e| wanted(&e.kind))
        .unwrap_or_else(|| panic!("no such entry in {entries:#?}"))
}

fn actor_names(entry: &PastEntry) -> Vec<&str> {
    entry.actors.iter().map(|a| a.name.as_str()).collect()
}

fn evidence(entry: &PastEntry) -> Vec<String> {
    entry.evidence.iter().map(PastEvidence::describe).collect()
}

#[test]
fn a_pod_is_created_by_its_manager_and_the_controller_that_reported_it() {
    let past = pod_past();
    let created = find(&past, |k| *k == PastKind::Created);
    assert_eq!(created.time, PastTime::At(ms(T0)));
    assert_eq!(
        actor_names(created),
        vec!["kube-controller-manager", "replicaset-controller"]
    );
    assert_eq!(created.actors[0].source, ActorSource::ManagedFieldsEntry);
    assert_eq!(created.actors[1].source, ActorSource::EventReporter);
    assert_eq!(
        evidence(created),
        vec![
            "metadata.creationTimestamp = 2026-11-23T10:00:00Z".to_string(),
            "managedFields[manager=kube-controller-manager,operation=Update].time = 2026-11-23T10:00:00Z".into(),
            "Event SuccessfulCreate (replicaset-controller)".into(),
        ]
    );
    assert!(created.unknown.is_empty(), "{:?}", created.unknown);
    // Its creator's last write was the create: no separate write entry.
    assert!(!past.iter().any(|e| matches!(&e.kind,
        PastKind::Written { manager, .. } if manager == "kube-controller-manager")));
    // "Created pod: web-abc-12" is another pod's.
    assert!(!past.iter().any(|e| e
        .evidence
        .iter()
        .any(|ev| matches!(ev, PastEvidence::Event { uid, .. } if uid == "e-create-other"))));
}

#[test]
fn a_pod_is_scheduled_by_the_scheduler_to_the_node_its_event_names() {
    let past = pod_past();
    let scheduled = find(&past, |k| matches!(k, PastKind::Scheduled { .. }));
    assert_eq!(
        scheduled.kind,
        PastKind::Scheduled {
            node: Some("node-1".into())
        }
    );
    assert_eq!(scheduled.time, PastTime::At(ms("2026-11-23T10:00:00.412Z")));
    // One Event, however many APIs it was read through.
    assert_eq!(actor_names(scheduled), vec!["default-scheduler"]);
    let lines = evidence(scheduled);
    assert_eq!(lines[0], "Event Scheduled (default-scheduler)");
    assert!(lines.contains(&"spec.nodeName = node-1".to_string()));
    assert!(lines.contains(
        &"status.conditions[type=PodScheduled].lastTransitionTime = 2026-11-23T10:00:00Z"
            .to_string()
    ));
    // The condition is the same fact: not repeated as its own entry.
    assert!(!past.iter().any(|e| matches!(&e.kind,
        PastKind::ConditionChanged { condition, .. } if condition == "PodScheduled")));
}

#[test]
fn without_the_scheduled_event_the_binder_is_unknown() {
    let pod = running_pod();
    let past = past_entries(&Loaded::object(&pod));
    let scheduled = find(&past, |k| matches!(k, PastKind::Scheduled { .. }));
    assert!(scheduled.actors.is_empty());
    assert_eq!(scheduled.time, PastTime::At(ms(T0)), "the condition's time");
    assert!(
        scheduled.unknown[0].contains("who bound it is not recorded"),
        "{scheduled:?}"
    );
    assert_eq!(scheduled.actors.len(), 0);
    assert_eq!(
        find(&past, |k| matches!(k, PastKind::Scheduled { .. })).actor_label(),
        "unknown"
    );
}

#[test]
fn the_kubelet_writes_status_and_starts_the_container() {
    let past = pod_past();
    let status = find(&past, |k| matches!(k, PastKind::StatusWritten { .. }));
    assert_eq!(
        status.kind,
        PastKind::StatusWritten {
            manager: "kubelet".into(),
            operation: "Update".into(),
            fields: vec![
                "status.conditions".into(),
                "status.containerStatuses".into(),
                "status.phase".into(),
                "status.podIP".into()
            ],
        }
    );
    assert_eq!(status.time, PastTime::At(ms("2026-11-23T10:00:03Z")));
    assert_eq!(
        evidence(status),
        vec!["managedFields[manager=kubelet,operation=Update,subresource=status].time = 2026-11-23T10:00:03Z"]
    );
    let started = find(&past, |k| matches!(k, PastKind::ContainerStarted { .. }));
    assert_eq!(started.actor_label(), "kubelet on node-1");
    assert_eq!(
        evidence(started),
        vec![
            "status.containerStatuses[name=web].state.running.startedAt = 2026-11-23T10:00:03Z",
            "Event Started (kubelet)"
        ]
    );
    // The Ready transition: its writer is not recorded, only who owns the condition now.
    let ready = find(
        &past,
        |k| matches!(k, PastKind::ConditionChanged { condition, .. } if condition == "Ready"),
    );
    assert!(ready.actors.is_empty());
    assert!(
        ready.unknown[0].contains("now owned by kubelet"),
        "{ready:?}"
    );
    // Events no entry explains are kept as they are; another pod's are not.
    let pulled = find(
        &past,
        |k| matches!(k, PastKind::EventSeen { reason, .. } if reason == "Pulled"),
    );
    assert_eq!(pulled.actor_label(), "kubelet on node-1");
    assert_eq!(
        past.iter()
            .filter(|e| matches!(e.kind, PastKind::EventSeen { .. }))
            .count(),
        1
    );
}

#[test]
fn entries_in_one_second_are_marked_and_untimed_ones_come_last() {
    let past = pod_past();
    let placements: Vec<(String, Placement)> = past
        .iter()
        .map(|e| (e.kind.describe(), e.placement))
        .collect();
    assert_eq!(placements[0], ("created".into(), Placement::Later));
    assert_eq!(
        placements[1],
        (
            "scheduled to node-1".into(),
            Placement::SameSecondAsPrevious
        )
    );
    assert!(past
        .windows(2)
        .all(|w| w[0].time.second() <= w[1].time.second() || w[1].time.second().is_none()));
    // A restart without lastState has no time: last, and said to be unordered.
    let mut pod = running_pod();
    pod["status"]["containerStatuses"][0]["restartCount"] = json!(2);
    let past = past_entries(&Loaded::object(&pod));
    let last = past.last().expect("entries");
    assert!(matches!(last.kind, PastKind::ContainerRestarted { .. }));
    assert_eq!(last.time, PastTime::Unknown);
    assert_eq!(last.placement, Placement::Untimed);
}

#[test]
fn a_crash_loop_keeps_the_last_exit_code_and_says_the_earlier_are_gone() {
    let mut pod = running_pod();
    pod["status"]["containerStatuses"][0] = json!({
        "name": "web", "image": "crash", "ready": false, "restartCount": 3,
        "state": {"waiting": {"reason": "CrashLoopBackOff"}},
        "lastState": {"terminated": {"exitCode": 1, "reason": "Error",
                      "startedAt": "2026-11-23T10:01:00Z", "finishedAt": "2026-11-23T10:01:01Z"}}
    });
    let past = past_entries(&Loaded::object(&pod));
    let restarted = find(&past, |k| matches!(k, PastKind::ContainerRestarted { .. }));
    assert_eq!(
        restarted.kind.describe(),
        "container web ended with exit code 1 (Error) and was restarted (3 restarts in all)"
    );
    assert_eq!(restarted.time, PastTime::At(ms("2026-11-23T10:01:01Z")));
    assert!(restarted.unknown[0].contains("earlier 2 are not recorded"));
    assert_eq!(restarted.actors[0].source, ActorSource::FieldOwner);
    assert!(!past
        .iter()
        .any(|e| matches!(e.kind, PastKind::ContainerStarted { .. })));
}

#[test]
fn a_terminated_container_starts_and_ends() {
    let mut pod = running_pod();
    pod["status"]["containerStatuses"][0]["state"] = json!({"terminated": {
        "exitCode": 137, "reason": "OOMKilled",
        "startedAt": "2026-11-23T10:00:03Z", "finishedAt": "2026-11-23T10:05:00Z"}});
    let past = past_entries(&Loaded::object(&pod));
    let ended = find(&past, |k| matches!(k, PastKind::ContainerTerminated { .. }));
    assert_eq!(
        ended.kind.describe(),
        "container web terminated with exit code 137 (OOMKilled)"
    );
    assert!(evidence(find(&past, |k| matches!(
        k,
        PastKind::ContainerStarted { .. }
    )))[0]
        .contains("state.terminated.startedAt"));
}

#[test]
fn deletion_starts_a_grace_period_before_its_timestamp() {
    let mut pod = running_pod();
    pod["metadata"]["deletionTimestamp"] = json!("2026-11-23T10:10:30Z");
    pod["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    let deleted = core_event(
        "e-delete",
        "SuccessfulDelete",
        ("ReplicaSet", "web-abc", "rs1"),
        ("replicaset-controller", ""),
        "Deleted pod: web-abc-1",
        ("2026-11-23T10:10:00Z", "2026-11-23T10:10:00Z", 1),
    );
    let events = [deleted];
    let past = past_entries(&Loaded {
        events: &events,
        ..Loaded::object(&pod)
    });
    let deletion = past.last().expect("entries");
    assert_eq!(
        deletion.kind,
        PastKind::DeletionStarted {
            grace_period_seconds: Some(30),
            finalizers: vec![]
        }
    );
    assert_eq!(deletion.time, PastTime::At(ms("2026-11-23T10:10:00Z")));
    assert_eq!(deletion.actor_label(), "replicaset-controller");
    // Without the Event nobody is named.
    let alone = past_entries(&Loaded::object(&pod));
    let deletion = find(&alone, |k| matches!(k, PastKind::DeletionStarted { .. }));
    assert!(deletion.actors.is_empty());
    assert!(deletion.unknown[0].contains("records no manager"));
}

fn deployment(entries: Vec<Value>) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "demo", "uid": "d1", "creationTimestamp": T0,
                     "annotations": {"deployment.kubernetes.io/revision": "2"},
                     "managedFields": entries},
        "spec": {"replicas": 3, "template": template("nginx:1.27", None)}
    })
}

#[test]
fn the_creator_is_named_only_as_far_as_managed_fields_support_it() {
    let create = entry(
        "kubectl-create",
        "",
        T0,
        json!({"f:spec": {"f:replicas": {}}}),
    );
    let set = entry(
        "kubectl-set",
        "",
        "2026-11-23T10:02:00Z",
        json!({"f:spec": {"f:template": {}}}),
    );
    let annotate = entry(
        "kube-controller-manager",
        "",
        T0,
        json!({"f:metadata": {"f:annotations": {"f:deployment.kubernetes.io/revision": {}}}}),
    );
    // One manager in the second of creation, one later that may also have created it.
    let d = deployment(vec![create.clone(), set.clone()]);
    let past = past_entries(&Loaded::object(&d));
    let created = find(&past, |k| *k == PastKind::Created);
    assert_eq!(actor_names(created), vec!["kubectl-create"]);
    assert!(
        created.unknown[0].contains("kubectl-set wrote later"),
        "{created:?}"
    );
    let written = find(&past, |k| matches!(k, PastKind::Written { .. }));
    assert_eq!(
        written.kind.describe(),
        "last write by kubectl-set (spec.template)"
    );
    // Two in that second: both named, neither chosen, and both writes kept.
    let d = deployment(vec![create.clone(), annotate]);
    let past = past_entries(&Loaded::object(&d));
    let created = find(&past, |k| *k == PastKind::Created);
    assert_eq!(
        actor_names(created),
        vec!["kubectl-create", "kube-controller-manager"]
    );
    assert!(created.unknown[0].contains("which of them created it is not recorded"));
    assert_eq!(
        past.iter()
            .filter(|e| matches!(e.kind, PastKind::Written { .. }))
            .count(),
        2
    );
    // Nobody at creation: nobody named.
    let mut late = create;
    late["time"] = json!("2026-11-23T10:09:00Z");
    let d = deployment(vec![late, set]);
    let past = past_entries(&Loaded::object(&d));
    let created = find(&past, |k| *k == PastKind::Created);
    assert!(created.actors.is_empty());
    assert!(created.unknown[0].contains("the creator wrote again later"));
}

fn template(image: &str, hash: Option<&str>) -> Value {
    let mut labels = json!({"app": "web"});
    if let Some(hash) = hash {
        labels["pod-template-hash"] = json!(hash);
    }
    json!({"metadata": {"labels": labels},
           "spec": {"containers": [{"name": "web", "image": image}], "restartPolicy": "Always"}})
}

fn replica_set(name: &str, revision: &str, image: &str, replicas: u64, created: &str) -> Value {
    let hash = name.rsplit('-').next().unwrap_or_default();
    json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "demo", "uid": format!("uid-{name}"),
                     "creationTimestamp": created,
                     "annotations": {"deployment.kubernetes.io/revision": revision,
                                     "deployment.kubernetes.io/desired-replicas": "3",
                                     "kubernetes.io/change-cause": format!("image {image}")},
                     "ownerReferences": controlled_by_ref("Deployment", "web", "d1"),
                     "managedFields": [entry("kube-controller-manager", "", created,
                                             json!({"f:spec": {"f:replicas": {}}}))]},
        "spec": {"replicas": replicas, "template": template(image, Some(hash))}
    })
}

fn replica_sets() -> Vec<Value> {
    let mut foreign = replica_set("api-zzz", "1", "api:1", 1, T0);
    foreign["metadata"]["ownerReferences"] = controlled_by_ref("Deployment", "api", "d9");
    vec![
        replica_set("web-bbb", "2", "nginx:1.27", 3, "2026-11-23T10:02:00Z"),
        replica_set("web-aaa", "1", "nginx:1.25", 0, T0),
        foreign,
    ]
}

#[test]
fn rollout_history_diffs_each_revision_from_the_one_before() {
    let history = rollout_history(&deployment(vec![]), &replica_sets());
    let numbers: Vec<(u64, &str, bool)> = history
        .iter()
        .map(|r| (r.revision, r.name.as_str(), r.current))
        .collect();
    assert_eq!(numbers, vec![(1, "web-aaa", false), (2, "web-bbb", true)]);
    assert!(history[0].changes.is_empty());
    assert_eq!(history[0].previous, None);
    assert_eq!(history[1].previous, Some(1));
    assert_eq!(
        history[1].change_lines(),
        vec!["containers[name=web].image: nginx:1.25 → nginx:1.27"]
    );
    assert_eq!(history[1].replicas, Some(3));
    assert_eq!(history[1].created_ms, Some(ms("2026-11-23T10:02:00Z")));
    assert_eq!(history[1].change_cause.as_deref(), Some("image nginx:1.27"));
    assert_eq!(history[0].template, template("nginx:1.25", None));
    // Template metadata changes read under metadata.
    let mut sets = replica_sets();
    sets[0]["spec"]["template"]["metadata"]["labels"]["tier"] = json!("front");
    let history = rollout_history(&deployment(vec![]), &sets);
    assert_eq!(
        history[1].change_lines()[1],
        "metadata.labels.tier: + front"
    );
}

#[test]
fn without_the_revision_annotation_the_running_template_is_current() {
    let mut d = deployment(vec![]);
    d["metadata"]["annotations"] = json!({});
    let history = rollout_history(&d, &replica_sets());
    assert_eq!(
        history.iter().map(|r| r.current).collect::<Vec<_>>(),
        vec![false, true]
    );
}

#[test]
fn a_deployments_past_has_its_revisions_and_scalings() {
    let d = deployment(vec![]);
    let sets = replica_sets();
    let events = vec![
        core_event(
            "s1",
            "ScalingReplicaSet",
            ("Deployment", "web", "d1"),
            ("deployment-controller", ""),
            "Scaled up replica set web-aaa from 0 to 2",
            at(T0),
        ),
        core_event(
            "s2",
            "ScalingReplicaSet",
            ("Deployment", "web", "d1"),
            ("deployment-controller", ""),
            "Scaled up replica set web-aaa from 2 to 3",
            at("2026-11-23T10:01:00Z"),
        ),
        core_event(
            "s3",
            "ScalingReplicaSet",
            ("Deployment", "web", "d1"),
            ("deployment-controller", ""),
            "Scaled down replica set web-aaa to 0",
            at("2026-11-23T10:02:05Z"),
        ),
    ];
    let past = past_entries(&Loaded {
        events: &events,
        owned: &sets,
        ..Loaded::object(&d)
    });
    let lines: Vec<String> = past.iter().map(|e| e.kind.describe()).collect();
    assert_eq!(
        lines,
        vec![
            "created",
            "revision 1 (web-aaa)",
            "scaled up web-aaa from 0 to 2",
            "scaled up web-aaa from 2 to 3",
            "revision 1 → 2 (web-bbb): containers[name=web].image: nginx:1.25 → nginx:1.27",
            "scaled down web-aaa to 0",
        ]
    );
    let revision = &past[4];
    assert_eq!(actor_names(revision), vec!["kube-controller-manager"]);
    assert_eq!(
        evidence(revision),
        vec![
            "ReplicaSet web-bbb: metadata.annotations[deployment.kubernetes.io/revision] = 2",
            "ReplicaSet web-bbb: metadata.creationTimestamp = 2026-11-23T10:02:00Z"
        ]
    );
    assert_eq!(past[2].actor_label(), "deployment-controller");
    assert!(past[5].unknown[0].contains("count before"));
    // A ReplicaSet's own past has the scalings that name it, from its Deployment's Events.
    let mut other = events[0].clone();
    other.uid = "s4".into();
    other.message = "Scaled up replica set web-bbb from 0 to 1".into();
    let events: Vec<EventRecord> = events.into_iter().chain([other]).collect();
    let rs_past = past_entries(&Loaded {
        events: &events,
        owners: std::slice::from_ref(&d),
        ..Loaded::object(&sets[1])
    });
    let scalings = rs_past
        .iter()
        .filter(|e| matches!(e.kind, PastKind::Scaled { .. }))
        .count();
    assert_eq!(scalings, 3);
}

#[test]
fn repeated_events_span_their_first_and_last_time() {
    let pod = running_pod();
    let events = [core_event(
        "b",
        "BackOff",
        ("Pod", "web-abc-1", "p1"),
        ("kubelet", "node-1"),
        "Back-off restarting failed container web",
        ("2026-11-23T10:01:00Z", "2026-11-23T10:05:00Z", 7),
    )];
    let past = past_entries(&Loaded {
        events: &events,
        ..Loaded::object(&pod)
    });
    let backoff = find(&past, |k| matches!(k, PastKind::EventSeen { .. }));
    assert_eq!(
        backoff.time,
        PastTime::Span {
            first: ms("2026-11-23T10:01:00Z"),
            last: ms("2026-11-23T10:05:00Z"),
            count: 7
        }
    );
    assert_eq!(evidence(backoff), vec!["Event BackOff (kubelet) ×7"]);
}

#[test]
fn a_rollback_restores_the_template_as_kubectl_rollout_undo_does() {
    let mut d = deployment(vec![]);
    d["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = json!("{}");
    d["metadata"]["annotations"]["team"] = json!("a");
    let sets = replica_sets();
    let old = &sets[1];
    let rolled_back = rollback_template(&d, old);
    assert_eq!(
        rolled_back["spec"]["template"],
        template("nginx:1.25", None)
    );
    assert_eq!(rolled_back["spec"]["replicas"], 3, "the rest stays");
    assert_eq!(
        rolled_back["metadata"]["annotations"],
        json!({"deployment.kubernetes.io/revision": "2",
               "kubectl.kubernetes.io/last-applied-configuration": "{}",
               "kubernetes.io/change-cause": "image nginx:1.25"})
    );
    let patch = rollback_patch(&d, old);
    assert_eq!(patch[0]["op"], "replace");
    assert_eq!(patch[0]["path"], "/spec/template");
    assert_eq!(patch[0]["value"], template("nginx:1.25", None));
    assert_eq!(patch[1]["path"], "/metadata/annotations");
    assert_eq!(patch[1]["value"], rolled_back["metadata"]["annotations"]);
}

#[test]
fn renumbered_and_pruned_revisions_say_so() {
    let mut sets = replica_sets();
    // Rolled back to the first template: it is revision 3 now, was 1.
    sets[1]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = json!("3");
    sets[1]["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"] = json!("1");
    let history = rollout_history(&deployment(vec![]), &sets);
    assert_eq!(history[1].earlier_numbers, vec![1]);
    assert_eq!(
        history[1].change_lines(),
        vec!["containers[name=web].image: nginx:1.27 → nginx:1.25"]
    );
    let d = deployment(vec![]);
    let past = past_entries(&Loaded {
        owned: &sets,
        ..Loaded::object(&d)
    });
    let renumbered = find(&past, |k| {
        matches!(k, PastKind::RolloutRevision { revision: 3, .. })
    });
    assert!(renumbered.unknown[0].contains("was revision 1"));
    let first = find(&past, |k| {
        matches!(k, PastKind::RolloutRevision { revision: 2, .. })
    });
    assert!(first.unknown[0].contains("revisions before 2 are gone"));
}

fn controller_revision(name: &str, revision: u64, image: &str, owner: (&str, &str)) -> Value {
    let mut template = template(image, None);
    template["$patch"] = json!("replace");
    json!({
        "apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": name, "namespace": "demo", "uid": format!("uid-{name}"),
                     "creationTimestamp": T0,
                     "ownerReferences": controlled_by_ref(owner.0, "db", owner.1)},
        "data": {"spec": {"template": template}},
        "revision": revision
    })
}

#[test]
fn statefulset_and_daemonset_revisions_come_from_controller_revisions() {
    let revisions = vec![
        controller_revision("db-2", 2, "postgres:17", ("StatefulSet", "s1")),
        controller_revision("db-1", 1, "postgres:16", ("StatefulSet", "s1")),
    ];
    let statefulset = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "demo", "uid": "s1"},
        "status": {"updateRevision": "db-1", "currentRevision": "db-1"}});
    let history = controller_revision_history(&statefulset, &revisions);
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].name, "db-1");
    assert!(history[0].current, "the update revision");
    assert!(!history[1].current);
    assert_eq!(
        history[1].change_lines(),
        vec!["containers[name=web].image: postgres:16 → postgres:17"]
    );
    assert!(history[1].template.get("$patch").is_none());
    let past = past_entries(&Loaded {
        controller_revisions: &revisions,
        ..Loaded::object(&statefulset)
    });
    assert_eq!(
        past.iter()
            .filter(|e| matches!(e.kind, PastKind::RolloutRevision { .. }))
            .count(),
        2
    );
    // A DaemonSet names no revision: the highest is the one it runs.
    let daemon_revisions = vec![
        controller_revision("db-1", 1, "agent:1", ("DaemonSet", "ds1")),
        controller_revision("db-4", 4, "agent:2", ("DaemonSet", "ds1")),
    ];
    let daemonset = json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "db", "namespace": "demo", "uid": "ds1"}});
    let history = controller_revision_history(&daemonset, &daemon_revisions);
    assert_eq!(
        history
            .iter()
            .map(|r| (r.revision, r.current))
            .collect::<Vec<_>>(),
        vec![(1, false), (4, true)]
    );
    assert!(controller_revision_history(&daemonset, &revisions).is_empty());
}

#[test]
fn scaling_messages_of_both_releases_are_read() {
    assert_eq!(
        parse_scaling_message("Scaled up replica set web-7d4b9c from 2 to 3"),
        Some((ScaleDirection::Up, "web-7d4b9c".into(), Some(2), 3))
    );
    assert_eq!(
        parse_scaling_message("Scaled down replica set web-7d4b9c to 0"),
        Some((ScaleDirection::Down, "web-7d4b9c".into(), None, 0))
    );
    assert_eq!(parse_scaling_message("Scaled sideways"), None);
    assert_eq!(
        parse_scaling_message("Scaled up replica set x from two to 3"),
        None
    );
}

#[test]
fn names_are_matched_as_whole_words() {
    assert!(names("Created pod: web-1", "web-1"));
    assert!(names("Deleted pod web-1.", "web-1"));
    assert!(!names("Created pod: web-12", "web-1"));
    assert!(!names("Created pod: web-1.example", "web-1"));
    assert!(!names("Created pod: aweb-1", "web-1"));
    assert!(!names("anything", ""));
}

#[test]
fn odd_input_gives_unknowns_never_a_panic() {
    for object in [
        json!(null),
        json!({}),
        json!({"kind": "Pod", "metadata": {"creationTimestamp": "not a time", "managedFields": "x"},
               "status": {"conditions": [{"status": "True"}, 3], "containerStatuses": [{"name": 1}, {}]}}),
        json!({"kind": "Deployment", "metadata": {"annotations": {"deployment.kubernetes.io/revision": "x"}}}),
    ] {
        let past = past_entries(&Loaded::object(&object));
        let created = find(&past, |k| *k == PastKind::Created);
        assert_eq!(created.time, PastTime::Unknown);
        assert_eq!(created.placement, Placement::Untimed);
        assert!(!created.unknown.is_empty());
    }
    assert!(rollout_history(&json!({}), &[json!({}), json!(1)]).is_empty());
}
