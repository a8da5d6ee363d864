use serde_json::{json, Value};

use super::histogram::{warning_histogram, BUCKETS, BUCKET_MS, TOP_REASONS};
use super::*;
use crate::object::events::event_record;

/// 2024-05-01T10:07:30Z.
const NOW: EpochMillis = 1_714_558_050_000;

fn node(name: &str, ready: &str, pressure: &[&str], cordoned: bool) -> Value {
    let mut conditions = vec![json!({"type": "Ready", "status": ready})];
    for p in PRESSURES {
        let status = if pressure.contains(&p) {
            "True"
        } else {
            "False"
        };
        conditions.push(json!({"type": p, "status": status}));
    }
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("uid-{name}")},
        "spec": {"unschedulable": cordoned},
        "status": {"conditions": conditions,
                   "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    })
}

#[test]
fn nodes_counted_ready_not_ready_pressure_and_cordoned() {
    let nodes = [
        node("a", "True", &[], false),
        node("b", "False", &[], false),
        node("c", "Unknown", &["DiskPressure"], false),
        node("d", "True", &["MemoryPressure", "DiskPressure"], true),
    ];
    let summary = node_summary(&nodes);
    assert_eq!((summary.total, summary.ready, summary.not_ready), (4, 2, 2));
    assert_eq!(
        summary.pressure,
        vec![
            ("MemoryPressure", 1),
            ("DiskPressure", 2),
            ("PIDPressure", 0),
            ("NetworkUnavailable", 0)
        ]
    );
    assert_eq!(summary.cordoned, 1);
    let troubled: Vec<(&str, Vec<&str>)> = summary
        .troubled
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                t.problems.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        troubled,
        vec![
            ("b", vec!["not ready"]),
            (
                "c",
                vec![
                    "not ready (its kubelet stopped posting status)",
                    "DiskPressure"
                ]
            ),
            ("d", vec!["MemoryPressure", "DiskPressure", "cordoned"]),
        ]
    );
    // A node that has not posted status yet is not ready.
    let fresh = json!({"kind": "Node", "metadata": {"name": "new"}});
    assert_eq!(node_summary([&fresh]).not_ready, 1);
}

fn pod(name: &str, phase: &str, waiting: &[&str]) -> Value {
    let statuses: Vec<Value> = waiting
        .iter()
        .enumerate()
        .map(|(i, reason)| {
            json!({"name": format!("c{i}"), "restartCount": 3, "image": "crash:1",
                   "state": {"waiting": {"reason": reason}},
                   "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}})
        })
        .collect();
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "demo", "uid": format!("uid-{name}")},
        "spec": {"containers": [{"name": "c0", "image": "crash:1"}]},
        "status": {"phase": phase, "containerStatuses": statuses},
    })
}

#[test]
fn pods_by_phase_and_waiting_reason() {
    let pods = [
        pod("a", "Running", &[]),
        pod("b", "Running", &["CrashLoopBackOff", "CrashLoopBackOff"]),
        pod("c", "Pending", &["ImagePullBackOff"]),
        pod("d", "Pending", &["ContainerCreating"]),
        pod("e", "Succeeded", &[]),
        pod("f", "Failed", &[]),
        pod("g", "Strange", &[]),
        pod("h", "Running", &["CrashLoopBackOff"]),
    ];
    let summary = pod_summary(&pods);
    assert_eq!(summary.total, 8);
    assert_eq!(
        summary.phases,
        vec![
            ("Pending", 2),
            ("Running", 3),
            ("Succeeded", 1),
            ("Failed", 1),
            ("Unknown", 1)
        ]
    );
    // Once per pod; routine waits left out; most first.
    assert_eq!(
        summary.waiting,
        vec![
            ("CrashLoopBackOff".to_string(), 2),
            ("ImagePullBackOff".to_string(), 1)
        ]
    );
}

fn owned_by(mut object: Value, kind: &str, owner: &str) -> Value {
    object["metadata"]["ownerReferences"] = json!([{
        "apiVersion": "apps/v1", "kind": kind, "name": owner,
        "uid": format!("uid-{owner}"), "controller": true,
    }]);
    object
}

fn deployment(name: &str, desired: i64, ready: i64) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "demo", "uid": format!("uid-{name}"),
                     "annotations": {"deployment.kubernetes.io/revision": "2"}},
        "spec": {"replicas": desired},
        "status": {"replicas": desired, "readyReplicas": ready, "updatedReplicas": desired,
                   "conditions": [{"type": "Progressing", "status": "True",
                                   "reason": "NewReplicaSetAvailable",
                                   "message": format!("ReplicaSet \"{name}-5d\" has successfully progressed."),
                                   "lastUpdateTime": "2024-05-01T10:00:00Z",
                                   "lastTransitionTime": "2024-05-01T09:00:00Z"}]},
    })
}

fn replica_set(name: &str, owner: &str, desired: i64, ready: i64) -> Value {
    owned_by(
        json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "demo", "uid": format!("uid-{name}")},
            "spec": {"replicas": desired},
            "status": {"replicas": desired, "readyReplicas": ready},
        }),
        "Deployment",
        owner,
    )
}

fn backoff_event(pod: &str, count: u64, first: &str, last: &str) -> EventRecord {
    event_record(&json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{pod}.1"), "namespace": "demo", "uid": format!("ev-{pod}-{last}")},
        "involvedObject": {"kind": "Pod", "namespace": "demo", "name": pod, "uid": format!("uid-{pod}")},
        "reason": "BackOff", "type": "Warning", "count": count,
        "message": "Back-off restarting failed container",
        "firstTimestamp": first, "lastTimestamp": last,
    }))
    .expect("an Event")
}

#[test]
fn workloads_take_the_worst_health_of_what_they_control() {
    let workloads = [
        deployment("web", 2, 2),
        deployment("flaky", 1, 0),
        deployment("starting", 1, 0),
        json!({"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": "pi", "namespace": "demo", "uid": "uid-pi"},
               "status": {"conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "demo"}}),
    ];
    let owned = [
        replica_set("web-1", "web", 2, 2),
        replica_set("flaky-1", "flaky", 1, 0),
        replica_set("starting-1", "starting", 1, 0),
        owned_by(pod("web-1-a", "Running", &[]), "ReplicaSet", "web-1"),
        owned_by(
            pod("flaky-1-a", "Running", &["CrashLoopBackOff"]),
            "ReplicaSet",
            "flaky-1",
        ),
        owned_by(
            pod("starting-1-a", "Pending", &["ContainerCreating"]),
            "ReplicaSet",
            "starting-1",
        ),
        // An orphan pod in trouble belongs to no workload.
        pod("orphan", "Running", &["CrashLoopBackOff"]),
    ];
    let events = [backoff_event(
        "flaky-1-a",
        3,
        "2024-05-01T10:00:00Z",
        "2024-05-01T10:06:00Z",
    )];
    let summary = workload_summary(&workloads, &owned, &events, NOW);
    assert_eq!(summary.total(), 4);
    assert_eq!(
        summary.kinds,
        vec![
            (
                "Deployment",
                BTreeMap::from([
                    (Health::Ok, 1),
                    (Health::Progressing, 1),
                    (Health::Failing, 1)
                ])
            ),
            ("Job", BTreeMap::from([(Health::Failing, 1)])),
        ]
    );
    assert_eq!(summary.count(Health::Failing), 2);
    assert_eq!(summary.unhealthy_of("Deployment"), 1);
    let unhealthy: Vec<(&str, &str, &str)> = summary
        .unhealthy
        .iter()
        .map(|w| {
            (
                w.workload.name.as_str(),
                w.about.kind.as_str(),
                w.about.name.as_str(),
            )
        })
        .collect();
    // The Deployment's finding is its pod's, which says why.
    assert_eq!(
        unhealthy,
        vec![("flaky", "Pod", "flaky-1-a"), ("pi", "Job", "pi")]
    );
    assert!(
        summary.unhealthy[0].sentence.contains("keeps crashing"),
        "{}",
        summary.unhealthy[0].sentence
    );
}

#[test]
fn requests_as_the_scheduler_counts_them() {
    let pod = json!({"spec": {
        "initContainers": [
            {"name": "migrate", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}},
            {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
            {"name": "warm", "resources": {"requests": {"cpu": "500m"}}},
        ],
        "containers": [
            {"name": "app", "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}}},
            {"name": "log", "resources": {"requests": {"cpu": "0.25", "memory": "128Mi"}}},
            {"name": "bare"},
        ],
        "overhead": {"cpu": "10m"},
    }});
    // CPU: apps 500m + sidecar 100m = 600m < init peak 2000m; + 10m overhead.
    // Memory: apps 256Mi + sidecar 64Mi = 320Mi < 1Gi.
    assert_eq!(pod_requests(&pod), (2010, 1 << 30));
    let no_init = json!({"spec": {"containers": [
        {"resources": {"requests": {"cpu": "1", "memory": "1e3"}}},
        {"resources": {"requests": {"cpu": "1k"}}},
    ]}});
    assert_eq!(pod_requests(&no_init), (1_001_000, 1000));
    assert_eq!(pod_requests(&json!({})), (0, 0));
}

#[test]
fn node_requests_count_bound_pods_that_still_run() {
    let nodes = [
        node("n1", "True", &[], false),
        node("n2", "True", &[], false),
    ];
    let bound = |name: &str, node: &str, phase: &str, cpu: &str| {
        json!({"metadata": {"name": name},
               "spec": {"nodeName": node, "containers": [{"resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]},
               "status": {"phase": phase}})
    };
    let pods = [
        bound("a", "n1", "Running", "1"),
        bound("b", "n1", "Pending", "500m"),
        bound("done", "n1", "Succeeded", "2"),
        bound("failed", "n1", "Failed", "2"),
        bound("elsewhere", "gone", "Running", "2"),
        json!({"metadata": {"name": "unbound"}, "spec": {"containers": [{"resources": {"requests": {"cpu": "3"}}}]},
               "status": {"phase": "Pending"}}),
    ];
    let requests = node_requests(&nodes, &pods);
    assert_eq!(
        requests[0],
        NodeRequests {
            node: "n1".into(),
            cpu_requested_millis: 1500,
            cpu_allocatable_millis: Some(4000),
            memory_requested_bytes: 2 << 30,
            memory_allocatable_bytes: Some(8 << 30),
            pods: 2,
            pods_allocatable: Some(110),
        }
    );
    assert_eq!((requests[1].node.as_str(), requests[1].pods), ("n2", 0));
}

#[test]
fn recent_rollouts_newest_first() {
    let mut rolling = deployment("rolling", 3, 1);
    rolling["status"]["conditions"][0]["reason"] = json!("ReplicaSetUpdated");
    rolling["status"]["conditions"][0]["lastUpdateTime"] = json!("2024-05-01T10:05:00Z");
    let mut stuck = deployment("stuck", 1, 0);
    stuck["status"]["conditions"][0]["status"] = json!("False");
    stuck["status"]["conditions"][0]["reason"] = json!("ProgressDeadlineExceeded");
    stuck["status"]["conditions"][0]["lastUpdateTime"] = json!("2024-05-01T09:30:00Z");
    let mut old = deployment("old", 1, 1);
    old["status"]["conditions"][0]["lastUpdateTime"] = json!("2024-04-20T10:00:00Z");
    let deployments = [deployment("web", 2, 2), rolling, stuck, old];
    let rollouts = recent_rollouts(&deployments, NOW, 10);
    let shown: Vec<(&str, RolloutState, Option<&str>)> = rollouts
        .iter()
        .map(|r| (r.name.as_str(), r.state, r.revision.as_deref()))
        .collect();
    assert_eq!(
        shown,
        vec![
            ("rolling", RolloutState::InProgress, Some("2")),
            ("web", RolloutState::Complete, Some("2")),
            ("stuck", RolloutState::Stuck, Some("2")),
        ]
    );
    assert_eq!((rollouts[0].ready, rollouts[0].desired), (1, 3));
    assert_eq!(recent_rollouts(&deployments, NOW, 1).len(), 1);
}

fn warning(reason: &str, at: &str, count: u64) -> EventRecord {
    let mut event = backoff_event("p", count, at, at);
    event.reason = reason.to_string();
    event.uid = format!("{reason}-{at}");
    event
}

#[test]
fn warnings_of_the_last_hour_by_reason() {
    // Buckets 09:10 … 10:10 (the last one holds 10:07:30).
    let crash = backoff_event("flaky", 3, "2024-05-01T10:00:00Z", "2024-05-01T10:06:00Z");
    let mut normal = warning("Pulled", "2024-05-01T10:06:00Z", 1);
    normal.event_type = crate::object::events::EventType::Normal;
    let records = [
        crash,
        normal,
        warning("FailedScheduling", "2024-05-01T09:20:00Z", 2),
        // Before the window, and after it (a clock ahead of ours).
        warning("FailedScheduling", "2024-05-01T09:00:00Z", 5),
        warning("FailedScheduling", "2024-05-01T10:20:00Z", 5),
        warning("Unhealthy", "2024-05-01T10:01:00Z", 1),
    ];
    let h = warning_histogram(&records, NOW);
    assert_eq!(
        Some(h.start_ms),
        crate::time::age::parse_timestamp("2024-05-01T09:10:00Z")
    );
    assert_eq!(
        h.bucket_span(BUCKETS - 1).1 - h.start_ms,
        BUCKET_MS * BUCKETS as i64
    );
    let labels: Vec<&str> = h.series.iter().map(|s| s.label()).collect();
    assert_eq!(labels, ["BackOff", "FailedScheduling", "Unhealthy"]);
    // BackOff 3 times over 10:00 - 10:06: at 10:00 and 10:03 (bucket 10), 10:06 (bucket 11).
    assert_eq!(h.series[0].counts[10], 2);
    assert_eq!(h.series[0].counts[11], 1);
    assert_eq!(h.series[1].counts[2], 2);
    assert_eq!(h.total, 6);
    let chart = super::chart::histogram_chart(&h, 0);
    assert!(chart
        .bars
        .iter()
        .any(|b| b.label == "BackOff: 1 Warning between 10:05 and 10:10"));
}

#[test]
fn many_reasons_keep_the_top_ones_and_other() {
    let reasons = ["A", "B", "C", "D", "E", "F"];
    let records: Vec<EventRecord> = reasons
        .iter()
        .enumerate()
        .map(|(i, r)| warning(r, "2024-05-01T10:01:00Z", 10 - i as u64))
        .collect();
    let h = warning_histogram(&records, NOW);
    assert_eq!(h.series.len(), TOP_REASONS + 1);
    assert_eq!(h.series[TOP_REASONS].reason, None);
    assert_eq!(h.series[TOP_REASONS].total, 6 + 5);
    assert_eq!(h.other_reasons, ["E", "F"]);
    // Five reasons fit without an "Other".
    let h = warning_histogram(&records[..5], NOW);
    assert_eq!(h.series.len(), 5);
    assert!(h.series.iter().all(|s| s.reason.is_some()));
}
