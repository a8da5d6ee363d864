//! The metrics domain against answers recorded from kube-apiserver v1.36 with the stand-in
//! metrics-server behind its aggregator (`fixtures/metrics/README.md` says how each was
//! produced).

use std::path::PathBuf;

use serde_json::{json, Value};

use kube_atlas_model::api::discovery::{
    parse_aggregated, parse_group_list, tree_from_aggregated, LegacyWalkPlan,
};
use kube_atlas_model::diagnosis::usage::{node_usage_findings, pod_usage_findings};
use kube_atlas_model::diagnosis::{Evidence, Health};
use kube_atlas_model::history::{PastEntry, PastKind, PastTime, Placement};
use kube_atlas_model::metrics::chart::{marks_from_past, MarkSource};
use kube_atlas_model::metrics::decode::ContainerUsage;
use kube_atlas_model::metrics::quantity::{format_cpu_top, format_memory_top};
use kube_atlas_model::metrics::resources::node_allocatable;
use kube_atlas_model::metrics::{
    decode_node_metrics, decode_pod_metrics, metrics_api, metrics_api_in, usage_cell, usage_chart,
    Against, Amounts, ChartInput, MetricsApi, PodMetrics, PodResources, Resource, Sample, Usage,
    NO_METRICS_API,
};

fn read(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests/fixtures/metrics", name]
        .iter()
        .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_of(name: &str) -> Value {
    serde_json::from_str(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn found_in_aggregated_discovery_and_missing_when_stale() {
    let served = tree_from_aggregated(
        None,
        parse_aggregated(&read("discovery-apis-aggregated.json")).expect("parses"),
    );
    let api = metrics_api(&served.tree);
    assert_eq!(
        api,
        MetricsApi::Served {
            version: "v1beta1".into(),
            pods: true,
            nodes: true
        }
    );
    assert_eq!(
        api.pods_path(Some("usage")).as_deref(),
        Some("/apis/metrics.k8s.io/v1beta1/namespaces/usage/pods")
    );
    assert_eq!(
        api.pods_path(None).as_deref(),
        Some("/apis/metrics.k8s.io/v1beta1/pods")
    );
    assert_eq!(
        api.nodes_path().as_deref(),
        Some("/apis/metrics.k8s.io/v1beta1/nodes")
    );
    assert_eq!(
        api.pod_path("usage", "web-1").as_deref(),
        Some("/apis/metrics.k8s.io/v1beta1/namespaces/usage/pods/web-1")
    );
    // The APIService without its server: still listed, its version Stale.
    let stale = tree_from_aggregated(
        None,
        parse_aggregated(&read("discovery-apis-aggregated-unavailable.json")).expect("parses"),
    );
    assert!(!metrics_api(&stale.tree).is_served());
    let missing = metrics_api_in(&stale);
    let reason = missing.reason().expect("missing");
    assert!(reason.starts_with(NO_METRICS_API), "{reason}");
    assert!(reason.contains("unavailable"), "{reason}");
    assert_eq!(missing.pods_path(None), None);
    assert_eq!(missing.nodes_path(), None);
}

#[test]
fn found_by_the_legacy_walk_and_missing_when_its_document_answers_503() {
    let apis = parse_group_list(&read("discovery-apis-legacy.json")).expect("parses");
    let plan = LegacyWalkPlan::new(None, &apis);
    let mut builder = plan.builder();
    builder.add_body(
        "metrics.k8s.io",
        "v1beta1",
        &read("discovery-group-version.json"),
    );
    let api = metrics_api_in(&builder.finish());
    assert_eq!(
        api.base_path().as_deref(),
        Some("/apis/metrics.k8s.io/v1beta1")
    );
    // The same walk when the APIService answers 503: missing, said why.
    let apis = parse_group_list(&read("discovery-apis-legacy-unavailable.json")).expect("parses");
    let mut builder = LegacyWalkPlan::new(None, &apis).builder();
    builder.add_failure(
        "metrics.k8s.io",
        "v1beta1",
        format!("503: {}", read("pods-503.json")),
    );
    let api = metrics_api_in(&builder.finish());
    assert!(!api.is_served());
    assert_eq!(
        api.reason(),
        Some("no metrics API: install metrics-server (metrics.k8s.io/v1beta1 is unavailable)")
    );
    // A tree without the group at all: the sentence alone.
    let without = tree_from_aggregated(
        None,
        parse_aggregated(
            r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[]}"#,
        )
        .expect("parses"),
    );
    assert_eq!(metrics_api(&without.tree).reason(), Some(NO_METRICS_API));
}

#[test]
fn pod_and_node_metrics_decode_as_kubectl_top_reads_them() {
    let pods = decode_pod_metrics(&read("pods.json")).expect("decodes");
    assert_eq!(pods.len(), 9);
    let agent = &pods[0];
    assert_eq!(
        (agent.namespace.as_str(), agent.name.as_str()),
        ("default", "agent-d8tft")
    );
    assert_eq!(agent.usage(), Usage::new(24_091_116, 18_664 * 1024));
    assert_eq!(agent.window_ms, Some(10_500));
    assert_eq!(agent.timestamp_ms, Some(1_796_617_276_000));
    assert_eq!(agent.containers[0].name, "agent");
    // One pod (a get) and a namespace's list decode the same way.
    let one = decode_pod_metrics(&read("pod.json")).expect("decodes");
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].usage(), Usage::new(25_215_855, 90_587 * 1024));
    assert_eq!(
        decode_pod_metrics(&read("namespace-pods.json"))
            .expect("decodes")
            .len(),
        2
    );
    assert_eq!(
        decode_pod_metrics(&read("pods-label-selector.json"))
            .expect("decodes")
            .len(),
        2
    );
    let nodes = decode_node_metrics(&read("nodes.json")).expect("decodes");
    assert_eq!(nodes.len(), 2);
    assert_eq!(
        decode_node_metrics(&read("node.json"))
            .expect("decodes")
            .len(),
        1
    );
    // kubectl top nodes printed this very sample: the same text and percentages.
    let top = read("top-nodes.txt");
    let node_objects = json_of("nodes-objects.json");
    for node in &nodes {
        let object = node_objects["items"]
            .as_array()
            .and_then(|items| {
                items
                    .iter()
                    .find(|n| n["metadata"]["name"] == node.name.as_str())
            })
            .expect("the node object");
        let allocatable = node_allocatable(object);
        let cpu_percent = node.usage.cpu_millis() * 100 / allocatable.cpu_millis.expect("cpu");
        let memory_percent =
            node.usage.memory_bytes * 100 / allocatable.memory_bytes.expect("memory");
        let line = format!(
            "{} {} {cpu_percent}% {} {memory_percent}%",
            node.name,
            format_cpu_top(node.usage.cpu_nanos),
            format_memory_top(node.usage.memory_bytes)
        );
        let printed: Vec<String> = top
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert!(printed.contains(&line), "{line:?} in {printed:?}");
    }
    // Errors are not metrics.
    assert!(decode_pod_metrics(&read("pods-watch-405.json")).is_err());
    assert!(decode_pod_metrics(&read("pods-503.json")).is_err());
    assert!(decode_pod_metrics(&read("pod-404.json")).is_err());
}

#[test]
fn usage_against_the_recorded_pods_requests_and_limits() {
    let pods = json_of("usage-pods-objects.json");
    let metrics = decode_pod_metrics(&read("namespace-pods.json")).expect("decodes");
    let pod = pods["items"]
        .as_array()
        .and_then(|items| {
            items
                .iter()
                .find(|p| p["metadata"]["name"] == "web-7b9689b665-ltxcj")
        })
        .expect("the pod");
    let resources = PodResources::of(pod);
    assert_eq!(
        resources.requests,
        Amounts {
            cpu_millis: Some(100),
            memory_bytes: Some(64 << 20)
        }
    );
    assert_eq!(
        resources.limits,
        Amounts {
            cpu_millis: Some(500),
            memory_bytes: Some(128 << 20)
        }
    );
    let usage = metrics
        .iter()
        .find(|m| m.name == "web-7b9689b665-ltxcj")
        .expect("its metrics")
        .usage();
    let cpu = usage_cell(
        Resource::Cpu,
        usage,
        resources.requests,
        resources.limits,
        Against::Limit,
    );
    assert_eq!(cpu.text, "26m / 500m limit");
    let memory = usage_cell(
        Resource::Memory,
        usage,
        resources.requests,
        resources.limits,
        Against::Limit,
    );
    assert_eq!(memory.text, "88.5Mi / 128Mi limit");
    assert!(memory.percent.is_some_and(|p| (p - 69.12).abs() < 0.01));
    assert!(!memory.marked);
}

fn oom_killed_pod(limit: &str) -> Value {
    let mut pod = json_of("usage-pods-objects.json")["items"][0].clone();
    pod["kind"] = json!("Pod");
    pod["apiVersion"] = json!("v1");
    pod["spec"]["containers"][0]["resources"]["limits"]["memory"] = json!(limit);
    pod["status"]["containerStatuses"][0]["restartCount"] = json!(3);
    pod["status"]["containerStatuses"][0]["lastState"] = json!({"terminated": {
        "exitCode": 137, "reason": "OOMKilled",
        "startedAt": "2026-12-07T04:20:11Z", "finishedAt": "2026-12-07T04:21:01Z"}});
    pod
}

fn sample(pod: &Value, cpu: i64, memory: i64) -> PodMetrics {
    PodMetrics {
        namespace: pod["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .into(),
        name: pod["metadata"]["name"].as_str().unwrap_or_default().into(),
        timestamp_ms: None,
        window_ms: None,
        containers: vec![ContainerUsage {
            name: "nginx".into(),
            usage: Usage::new(cpu, memory),
        }],
    }
}

#[test]
fn oom_killed_near_its_memory_limit_and_cpu_at_its_limit() {
    let pod = oom_killed_pod("128Mi");
    // 120Mi of 128Mi (94 %), OOMKilled before: found.
    let findings = pod_usage_findings(&pod, &sample(&pod, 20_000_000, 120 << 20));
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let oom = &findings[0];
    assert_eq!((oom.rule, oom.health), ("oom-near-limit", Health::Warning));
    assert!(
        oom.sentence.starts_with(
            "container nginx was OOMKilled and uses 120Mi of its 128Mi memory limit (94%) again"
        ),
        "{}",
        oom.sentence
    );
    assert!(oom.evidence.iter().any(|e| matches!(
        e,
        Evidence::ContainerState {
            exit_code: Some(137),
            restarts: 3,
            ..
        }
    )));
    assert!(oom.evidence.contains(&Evidence::Field {
        path: "containers[nginx].usage.memory".into(),
        value: "120Mi / 128Mi limit".into()
    }));
    assert_eq!(
        oom.check,
        "kubectl top pod web-7b9689b665-ltxcj -n usage --containers"
    );
    // Near the limit after an ordinary crash (not OOMKilled): nothing.
    let mut crashed = pod.clone();
    crashed["status"]["containerStatuses"][0]["lastState"]["terminated"]["reason"] = json!("Error");
    assert!(pod_usage_findings(&crashed, &sample(&crashed, 20_000_000, 120 << 20)).is_empty());
    // Far from the limit, or near it but never OOMKilled: nothing.
    assert!(pod_usage_findings(&pod, &sample(&pod, 20_000_000, 64 << 20)).is_empty());
    let never_killed = json_of("usage-pods-objects.json")["items"][0].clone();
    let mut never_killed = never_killed;
    never_killed["kind"] = json!("Pod");
    assert!(pod_usage_findings(&never_killed, &sample(&never_killed, 1, 127 << 20)).is_empty());
    // CPU at its limit (500m): a throttling candidate; under 95 % it is not.
    let at_limit = pod_usage_findings(&never_killed, &sample(&never_killed, 499_000_000, 1));
    assert_eq!(at_limit.len(), 1);
    assert_eq!(at_limit[0].rule, "cpu-throttling");
    assert_eq!(
        at_limit[0].sentence,
        "container nginx uses 499m of its 500m CPU limit (100%): it is likely throttled"
    );
    assert!(pod_usage_findings(&never_killed, &sample(&never_killed, 450_000_000, 1)).is_empty());
}

#[test]
fn a_node_under_pressure_names_its_top_consumers() {
    let mut node = json_of("nodes-objects.json")["items"][0].clone();
    node["kind"] = json!("Node");
    let nodes = decode_node_metrics(&read("nodes.json")).expect("decodes");
    let pods: Vec<Value> = json_of("usage-pods-objects.json")["items"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let metrics = decode_pod_metrics(&read("pods.json")).expect("decodes");
    // As recorded: 4 % of CPU, 2 % of memory, no pressure condition: nothing.
    assert!(node_usage_findings(&node, &nodes[0], &pods, &metrics).is_empty());
    // The kubelet reports MemoryPressure: found, with the pods on node-1 that use most.
    node["status"]["conditions"] = json!([{"type": "MemoryPressure", "status": "True"}]);
    let findings = node_usage_findings(&node, &nodes[0], &pods, &metrics);
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].rule, "node-usage-pressure");
    assert_eq!(
        findings[0].sentence,
        "is under memory pressure, 936.7Mi / 32Gi allocatable (3%); its top consumers: usage/web-7b9689b665-ltxcj 88.5Mi"
    );
    // Usage over 90 % of allocatable CPU, without a condition: found for CPU.
    node["status"]["conditions"] = json!([]);
    let mut busy = nodes[0].clone();
    busy.usage = Usage::new(7_500_000_000, busy.usage.memory_bytes);
    let cpu = node_usage_findings(&node, &busy, &pods, &metrics);
    assert_eq!(cpu.len(), 1);
    assert!(
        cpu[0]
            .sentence
            .starts_with("is under cpu pressure, 7.5 / 8 allocatable (94%)"),
        "{}",
        cpu[0].sentence
    );
}

fn past(at: i64, kind: PastKind) -> PastEntry {
    PastEntry {
        time: PastTime::At(at),
        placement: Placement::Later,
        kind,
        actors: Vec::new(),
        evidence: Vec::new(),
        unknown: Vec::new(),
    }
}

#[test]
fn a_chart_of_recorded_samples_with_its_lines_and_marks() {
    let entries = vec![
        past(1_000, PastKind::Created),
        past(
            40_000,
            PastKind::ContainerRestarted {
                container: "nginx".into(),
                init: false,
                restart_count: 1,
                exit_code: Some(137),
                reason: Some("OOMKilled".into()),
            },
        ),
        past(
            70_000,
            PastKind::EventSeen {
                reason: "BackOff".into(),
                warning: true,
                message: "Back-off restarting failed container".into(),
                regarding: "Pod usage/web".into(),
            },
        ),
        past(
            500_000,
            PastKind::EventSeen {
                reason: "Pulled".into(),
                warning: false,
                message: String::new(),
                regarding: String::new(),
            },
        ),
    ];
    let marks = marks_from_past(&entries);
    // Created and a Normal Event are not marks.
    assert_eq!(marks.len(), 2);
    assert_eq!(marks[0].source, MarkSource::Past(1));
    assert!(marks[0].warning);
    let samples: Vec<Sample> = [(0, 32), (30_000, 64), (60_000, 96), (90_000, 200)]
        .into_iter()
        .map(|(at, mi)| Sample {
            at_ms: at,
            usage: Usage::new(0, mi << 20),
        })
        .collect();
    let chart = usage_chart(&ChartInput {
        resource: Resource::Memory,
        samples: &samples[..3],
        requests: Amounts {
            cpu_millis: None,
            memory_bytes: Some(64 << 20),
        },
        limits: Amounts {
            cpu_millis: None,
            memory_bytes: Some(128 << 20),
        },
        limit_word: "limit",
        marks: &marks,
        span: (0, 60_000),
        width: 356.0,
        height: 128.0,
        utc_offset_minutes: 60,
    });
    // The plot is 300 × 100 inside margins of 48/8 and 8/20.
    assert_eq!(
        (
            chart.plot.x,
            chart.plot.y,
            chart.plot.width,
            chart.plot.height
        ),
        (48.0, 8.0, 300.0, 100.0)
    );
    let top = 200_000_000.0; // the nice ceiling over 128Mi
    let y = |bytes: f64| 8.0 + 100.0 - bytes / top * 100.0;
    let points: Vec<(f64, f64)> = chart.points.iter().map(|p| (p.x, p.y)).collect();
    assert_eq!(
        points,
        [
            (48.0, y(32.0 * 1048576.0)),
            (198.0, y(64.0 * 1048576.0)),
            (348.0, y(96.0 * 1048576.0))
        ]
    );
    let limit = chart.limit.as_ref().expect("a limit line");
    assert_eq!(
        (limit.y, limit.label.as_str()),
        (y(128.0 * 1048576.0), "limit 128Mi")
    );
    let request = chart.request.as_ref().expect("a request line");
    assert_eq!(
        (request.y, request.label.as_str()),
        (y(64.0 * 1048576.0), "request 64Mi")
    );
    // The marks inside the span, at their times: the restart at 40 s; the BackOff at 70 s is
    // outside.
    assert_eq!(chart.marks.len(), 1);
    assert_eq!(chart.marks[0].x, 48.0 + 40_000.0 / 60_000.0 * 300.0);
    assert_eq!(chart.marks[0].mark.label, entries[1].kind.describe());
    assert_eq!(
        chart
            .x_ticks
            .iter()
            .map(|t| t.label.as_str())
            .collect::<Vec<_>>(),
        ["01:00", "01:01"]
    );
    assert_eq!(
        chart.y_ticks.last().map(|t| (t.position, t.label.as_str())),
        Some((8.0, "190.7Mi"))
    );
    assert_eq!(
        chart.label,
        "Memory: 96Mi now, request 64Mi, limit 128Mi, 3 samples"
    );
    // A sample above the limit raises the scale; none at all says so.
    let all = usage_chart(&ChartInput {
        samples: &samples,
        span: (0, 90_000),
        ..chart_input_defaults(&marks)
    });
    assert!(all.points.iter().all(|p| p.y >= all.plot.y));
    let empty = usage_chart(&ChartInput {
        samples: &[],
        ..chart_input_defaults(&marks)
    });
    assert!(empty.points.is_empty());
    assert!(empty.label.contains("no samples yet"));
}

fn chart_input_defaults(marks: &[kube_atlas_model::metrics::Mark]) -> ChartInput<'_> {
    ChartInput {
        resource: Resource::Cpu,
        samples: &[],
        requests: Amounts::default(),
        limits: Amounts::default(),
        limit_word: "allocatable",
        marks,
        span: (0, 60_000),
        width: 200.0,
        height: 80.0,
        utc_offset_minutes: 0,
    }
}

#[test]
fn a_rollout_seen_while_the_page_was_open_is_a_mark() {
    use kube_atlas_model::history::{HistoryStore, RevisionKind};
    use kube_atlas_model::metrics::chart::marks_from_timeline;
    let deployment = |image: &str, rv: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "namespace": "usage", "uid": "d-1", "resourceVersion": rv},
               "spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": image}]}}}})
    };
    let mut store = HistoryStore::default();
    store.record(
        RevisionKind::Listed,
        &deployment("nginx:1.25", "1"),
        1_000.0,
    );
    store.record(
        RevisionKind::Modified,
        &deployment("nginx:1.25", "2"),
        2_000.0,
    );
    store.record(
        RevisionKind::Modified,
        &deployment("nginx:1.27", "3"),
        30_000.0,
    );
    let timeline = store.timeline("d-1").expect("a timeline");
    let marks = marks_from_timeline(timeline);
    // The listed version and the bookkeeping-only write are not marks; the image change is.
    assert_eq!(marks.len(), 1, "{marks:#?}");
    assert_eq!(marks[0].at_ms, 30_000);
    assert!(marks[0].label.starts_with("MODIFIED"), "{}", marks[0].label);
    assert!(marks[0].label.contains("nginx:1.27"), "{}", marks[0].label);
    assert!(matches!(marks[0].source, MarkSource::Revision(_)));
}
