//! The demo cluster's metrics API (`metrics.k8s.io/v1beta1`): found through discovery, nodes
//! and pods listed and read as JSON and as a Table, read-only and unwatchable as
//! metrics-server is, absent with `metrics: false`, and `kubectl top` reading it. Its shapes
//! are held to kube-apiserver with the stand-in metrics-server in `metrics_differential.rs`.

mod common;

use std::time::Duration;

use demo_cluster::{start, Config};
use serde_json::Value;

use common::raw::{self, client_for, Reply};
use common::{Kubectl, TABLE};

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const BASE: &str = "/apis/metrics.k8s.io/v1beta1";

async fn request(url: &str, method: &str, path: &str, accept: Option<&str>) -> Reply {
    let client = client_for(url);
    let mut builder = http::Request::builder().method(method).uri(path);
    if let Some(accept) = accept {
        builder = builder.header("accept", accept);
    }
    let body = if method == "GET" {
        vec![]
    } else {
        b"{}".to_vec()
    };
    builder = builder.header("content-type", "application/json");
    raw::send(&client, builder, body, &format!("{method} {path}")).await
}

async fn get(url: &str, path: &str) -> Value {
    let reply = request(url, "GET", path, None).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply.json()
}

/// A seeded cluster, waited on until some pods run (they have metrics).
async fn seeded() -> demo_cluster::RunningCluster {
    let cluster = start(Config {
        speed: 50.0,
        empty: false,
        ..common::empty_cluster_config()
    })
    .await
    .expect("the cluster starts");
    let url = cluster.url();
    for _ in 0..120 {
        let pods = get(&url, &format!("{BASE}/pods")).await;
        if pods["items"]
            .as_array()
            .is_some_and(|items| items.len() >= 3)
        {
            return cluster;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("no pod metrics within 30 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_through_discovery_as_metrics_server() {
    let cluster = seeded().await;
    let url = cluster.url();
    // Legacy discovery: the group, last; its version's resources.
    let apis = get(&url, "/apis").await;
    let last = apis["groups"]
        .as_array()
        .and_then(|g| g.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(last["name"], "metrics.k8s.io");
    assert_eq!(last["preferredVersion"]["version"], "v1beta1");
    assert_eq!(get(&url, "/apis/metrics.k8s.io").await["kind"], "APIGroup");
    let list = get(&url, BASE).await;
    let names: Vec<(&str, &str, bool)> = list["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or(""),
                r["kind"].as_str().unwrap_or(""),
                r["namespaced"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("nodes", "NodeMetrics", false),
            ("pods", "PodMetrics", true)
        ]
    );
    // Aggregated discovery, through the model's own reading of it.
    let reply = request(&url, "GET", "/apis", Some(AGGREGATED)).await;
    let doc =
        kube_atlas_model::api::discovery::parse_aggregated(&reply.text()).expect("aggregated");
    let tree = kube_atlas_model::api::discovery::tree_from_aggregated(None, doc).tree;
    let api = kube_atlas_model::metrics::metrics_api(&tree);
    assert_eq!(
        api.pods_path(None).as_deref(),
        Some("/apis/metrics.k8s.io/v1beta1/pods")
    );
    assert_eq!(
        api.nodes_path().as_deref(),
        Some("/apis/metrics.k8s.io/v1beta1/nodes")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_and_pods_as_json_and_tables() {
    let cluster = seeded().await;
    let url = cluster.url();
    let nodes = get(&url, &format!("{BASE}/nodes")).await;
    assert_eq!(nodes["kind"], "NodeMetricsList");
    let decoded =
        kube_atlas_model::metrics::decode_node_metrics(&nodes.to_string()).expect("decodes");
    assert_eq!(decoded.len(), 3, "{nodes}");
    assert!(decoded
        .iter()
        .all(|n| n.usage.cpu_nanos > 0 && n.usage.memory_bytes > 0));
    let node = get(&url, &format!("{BASE}/nodes/{}", decoded[0].name)).await;
    assert_eq!(
        (node["kind"].as_str(), node["apiVersion"].as_str()),
        (Some("NodeMetrics"), Some("metrics.k8s.io/v1beta1"))
    );

    let pods = get(&url, &format!("{BASE}/pods")).await;
    assert_eq!(pods["kind"], "PodMetricsList");
    let all = kube_atlas_model::metrics::decode_pod_metrics(&pods.to_string()).expect("decodes");
    let first = all.first().expect("a pod").clone();
    assert!(first.usage().cpu_nanos > 0 && first.window_ms == Some(10_500));
    // One namespace; one pod; by label.
    let in_ns = get(&url, &format!("{BASE}/namespaces/{}/pods", first.namespace)).await;
    let in_ns = kube_atlas_model::metrics::decode_pod_metrics(&in_ns.to_string()).expect("decodes");
    assert!(!in_ns.is_empty() && in_ns.iter().all(|p| p.namespace == first.namespace));
    let one = get(
        &url,
        &format!("{BASE}/namespaces/{}/pods/{}", first.namespace, first.name),
    )
    .await;
    assert_eq!(one["kind"], "PodMetrics");
    let labels = pods["items"][0]["metadata"]["labels"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if let Some((key, value)) = labels.iter().next() {
        let selector = format!("{key}={}", value.as_str().unwrap_or(""));
        let path = format!(
            "{BASE}/pods?labelSelector={}",
            selector.replace('=', "%3D").replace('/', "%2F")
        );
        let chosen = get(&url, &path).await;
        let chosen = chosen["items"].as_array().cloned().unwrap_or_default();
        assert!(!chosen.is_empty());
        assert!(
            chosen
                .iter()
                .all(|p| p["metadata"]["labels"][key.as_str()] == *value),
            "{selector}"
        );
        assert!(chosen.len() <= all.len());
    }
    let none = get(
        &url,
        &format!("{BASE}/pods?labelSelector=app%3Dno-such-app"),
    )
    .await;
    assert_eq!(none["items"].as_array().map(Vec::len), Some(0));
    // Tables, with metrics-server's columns and kubectl top's units.
    for path in [format!("{BASE}/pods"), format!("{BASE}/nodes")] {
        let reply = request(&url, "GET", &path, Some(TABLE)).await;
        let table = reply.json();
        assert_eq!(table["kind"], "Table", "{path}");
        let columns: Vec<&str> = table["columnDefinitions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert_eq!(columns, ["Name", "CPU", "Memory", "Window"]);
        let cells = &table["rows"][0]["cells"];
        assert!(
            cells[1].as_str().is_some_and(|c| c.ends_with('m')),
            "{cells}"
        );
        assert!(
            cells[2].as_str().is_some_and(|c| c.ends_with("Mi")),
            "{cells}"
        );
        assert_eq!(table["rows"][0]["object"]["kind"], "PartialObjectMetadata");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_unwatchable_and_absent_when_off() {
    let cluster = seeded().await;
    let url = cluster.url();
    let watch = request(&url, "GET", &format!("{BASE}/pods?watch=1"), None).await;
    assert_eq!(watch.status, 405);
    assert_eq!(
        watch.json()["message"],
        "the server does not allow this method on the requested resource (watch)"
    );
    for (method, path) in [
        ("POST", format!("{BASE}/namespaces/default/pods")),
        ("PUT", format!("{BASE}/namespaces/default/pods/x")),
        ("DELETE", format!("{BASE}/nodes/x")),
        ("PATCH", format!("{BASE}/nodes/x")),
    ] {
        let reply = request(&url, method, &path, None).await;
        assert_eq!(reply.status, 405, "{method} {path}: {}", reply.text());
        assert_eq!(reply.json()["reason"], "MethodNotAllowed");
    }
    let missing = request(
        &url,
        "GET",
        &format!("{BASE}/namespaces/default/pods/nope"),
        None,
    )
    .await;
    assert_eq!(missing.status, 404);
    assert_eq!(
        missing.json()["message"],
        "podmetrics.metrics.k8s.io \"nope\" not found"
    );
    let missing = request(&url, "GET", &format!("{BASE}/nodes/nope"), None).await;
    assert_eq!(missing.status, 404);

    // Off: not in discovery, not served.
    let off = start(Config {
        metrics: false,
        ..common::empty_cluster_config()
    })
    .await
    .expect("the cluster starts");
    let off_url = off.url();
    let apis = get(&off_url, "/apis").await;
    assert!(!apis.to_string().contains("metrics.k8s.io"));
    let reply = request(&off_url, "GET", "/apis", Some(AGGREGATED)).await;
    assert!(!reply.text().contains("metrics.k8s.io"));
    assert_eq!(
        request(&off_url, "GET", &format!("{BASE}/nodes"), None)
            .await
            .status,
        404
    );
    assert_eq!(request(&off_url, "GET", BASE, None).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn kubectl_top_reads_it() {
    let cluster = seeded().await;
    let k = Kubectl::new(&cluster);
    let off = start(Config {
        metrics: false,
        ..common::empty_cluster_config()
    })
    .await
    .expect("the cluster starts");
    let k_off = Kubectl::new(&off);
    tokio::task::spawn_blocking(move || {
        let pods = k.ok(&["top", "pods", "-A"]);
        let header: Vec<&str> = pods
            .lines()
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        assert_eq!(
            header,
            ["NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"],
            "{pods}"
        );
        assert!(pods.lines().count() > 3, "{pods}");
        let nodes = k.ok(&["top", "nodes"]);
        let header: Vec<&str> = nodes
            .lines()
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        assert_eq!(
            header,
            ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"],
            "{nodes}"
        );
        assert_eq!(nodes.lines().count(), 4, "{nodes}");
        let containers = k.ok(&["top", "pods", "-A", "--containers"]);
        assert!(
            containers.contains("NAME") && containers.lines().count() > 3,
            "{containers}"
        );
        let (ok, _, err) = k_off.run(&["top", "nodes"], None);
        assert!(!ok);
        assert!(err.contains("Metrics API not available"), "{err}");
    })
    .await
    .expect("kubectl ran");
}
