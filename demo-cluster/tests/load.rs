//! Load mode (`--pods`, `--crds`, `--churn`) seen through kube-rs: the loaded pods are all
//! listed (paged), spread over namespaces and nodes, owned and Running; the load CRDs are
//! discovered with their printer columns; churn writes pods and Events at about its rate; and
//! without churn a loaded cluster stays quiet (the controllers find nothing to do).
//!
//! Rates are checked with wide bounds: this is not a timing test.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{Event, Node, Pod};
use kube::api::{Api, DynamicObject, ListParams, WatchEvent, WatchParams};
use kube::core::GroupVersionKind;
use kube::discovery::Discovery;
use kube::Client;
use serde_json::Value;

mod common;

use demo_cluster::{start, Config, RunningCluster};

const PODS: usize = 2_000;
const CRDS: usize = 5;
const CHURN: u32 = 200;

/// The tests run one at a time: each loads a cluster of 2,000 pods, and measuring churn while
/// another test loads its own would measure the contention.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn loaded_cluster(churn: u32) -> (RunningCluster, Client) {
    let cluster = start(Config {
        pods: PODS,
        crds: CRDS,
        churn,
        // Terminating pods finish in 0.1 s instead of 2 s, so deletions show within the test.
        speed: 20.0,
        ..common::empty_cluster_config()
    })
    .await
    .expect("cluster starts");
    let client = common::kube_client(&cluster);
    (cluster, client)
}

/// Every pod, in pages of 500 (as kubectl and the dashboard list).
async fn list_all_pods(client: &Client) -> Vec<Pod> {
    let pods: Api<Pod> = Api::all(client.clone());
    let mut all = vec![];
    let mut params = ListParams::default().limit(500);
    loop {
        let page = pods.list(&params).await.expect("pods page");
        all.extend(page.items);
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => return all,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loaded_pods_are_listed_spread_over_namespaces_and_nodes_and_owned() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let (cluster, client) = loaded_cluster(0).await;
    let pods = list_all_pods(&client).await;
    assert_eq!(pods.len(), PODS);

    let mut per_namespace: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_node: BTreeMap<String, usize> = BTreeMap::new();
    let mut owners = BTreeSet::new();
    for pod in &pods {
        let meta = &pod.metadata;
        *per_namespace
            .entry(meta.namespace.clone().unwrap_or_default())
            .or_default() += 1;
        let spec = pod.spec.as_ref().expect("spec");
        *per_node
            .entry(spec.node_name.clone().unwrap_or_default())
            .or_default() += 1;
        let owner = meta
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true))
            .expect("a controller");
        assert_eq!(owner.kind, "ReplicaSet");
        owners.insert(owner.uid.clone());
        let labels = meta.labels.as_ref().expect("labels");
        assert!(labels.contains_key("pod-template-hash"), "{labels:?}");
        let status = pod.status.as_ref().expect("status");
        assert_eq!(status.phase.as_deref(), Some("Running"));
        assert!(status.pod_ip.is_some() && status.host_ip.is_some() && status.start_time.is_some());
        assert!(status.qos_class.is_some());
        assert!(status
            .conditions
            .iter()
            .flatten()
            .any(|c| c.type_ == "Ready" && c.status == "True"));
        let containers = &spec.containers;
        assert!(containers[0].resources.is_some() && containers[0].env.is_some());
        assert!(containers[0]
            .volume_mounts
            .as_ref()
            .is_some_and(|m| m.len() >= 2));
        assert_eq!(
            status.container_statuses.as_ref().map(Vec::len),
            Some(containers.len())
        );
        let managers: BTreeSet<(String, String)> = meta
            .managed_fields
            .iter()
            .flatten()
            .map(|m| {
                (
                    m.manager.clone().unwrap_or_default(),
                    m.subresource.clone().unwrap_or_default(),
                )
            })
            .collect();
        assert!(
            managers.contains(&("kube-controller-manager".into(), String::new()))
                && managers.contains(&("kubelet".into(), "status".into())),
            "{managers:?}"
        );
    }
    assert_eq!(per_namespace.len(), 2, "{per_namespace:?}");
    assert!(per_namespace.keys().all(|ns| ns.starts_with("load-")));
    assert_eq!(per_node.len(), PODS / 100, "{per_node:?}");
    assert!(per_node.values().all(|n| *n <= 110));
    // ReplicaSets of 10-50 pods, each under a Deployment that agrees on the count.
    assert!(
        (PODS / 50..=PODS / 10).contains(&owners.len()),
        "{}",
        owners.len()
    );
    let sets: Api<ReplicaSet> = Api::all(client.clone());
    let sets = sets.list(&ListParams::default()).await.unwrap().items;
    assert_eq!(sets.len(), owners.len());
    let deployments: Api<Deployment> = Api::all(client.clone());
    for d in deployments.list(&ListParams::default()).await.unwrap() {
        let status = d.status.expect("deployment status");
        assert_eq!(status.ready_replicas, d.spec.replicas);
    }
    let nodes: Api<Node> = Api::all(client.clone());
    let load_nodes: Vec<Node> = nodes
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|n| {
            n.metadata
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with("load-node-"))
        })
        .collect();
    assert_eq!(load_nodes.len(), PODS / 100);
    assert!(load_nodes.iter().all(|n| n
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))));
    cluster.shutdown().await.unwrap();
}

/// GET `path` with `accept`, as JSON.
async fn get_json(client: &Client, path: &str, accept: &str) -> Value {
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())
        .expect("request");
    let text = client.request_text(request).await.expect(path);
    serde_json::from_str(&text).expect("JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_crds_are_discovered_with_printer_columns_and_list_as_tables() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let (cluster, client) = loaded_cluster(0).await;
    for discovery in [
        Discovery::new(client.clone()).run().await.unwrap(),
        Discovery::new(client.clone())
            .run_aggregated()
            .await
            .unwrap(),
    ] {
        for i in 0..CRDS {
            let gvk =
                GroupVersionKind::gvk(&format!("load{i}.example.com"), "v1", &format!("Widget{i}"));
            let (ar, _) = discovery.resolve_gvk(&gvk).expect("load CRD discovered");
            assert_eq!(ar.plural, format!("widget{i}s"));
        }
    }
    let aggregated = get_json(
        &client,
        "/apis",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    )
    .await;
    let groups: Vec<&str> = aggregated["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["metadata"]["name"].as_str())
        .collect();
    assert!((0..CRDS).all(|i| groups.contains(&format!("load{i}.example.com").as_str())));

    let crd = get_json(
        &client,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widget3s.load3.example.com",
        "application/json",
    )
    .await;
    let columns: Vec<&str> = crd["spec"]["versions"][0]["additionalPrinterColumns"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(columns, ["Size", "Color", "Phase", "Age"]);

    let table = get_json(
        &client,
        "/apis/load3.example.com/v1/namespaces/default/widget3s",
        "application/json;as=Table;v=v1;g=meta.k8s.io",
    )
    .await;
    assert_eq!(table["kind"], "Table");
    let headers: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(headers, ["Name", "Size", "Color", "Phase", "Age"]);
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["cells"][1].is_i64()), "{rows:?}");
    assert!(rows.iter().any(|r| r["cells"][3] == "Ready"), "{rows:?}");

    let widgets: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "default",
        &kube::core::ApiResource::from_gvk(&GroupVersionKind::gvk(
            "load0.example.com",
            "v1",
            "Widget0",
        )),
    );
    assert_eq!(common::item_count(&widgets).await, 3);
    cluster.shutdown().await.unwrap();
}

/// Counts of a watch's events by type, collected for `window`.
async fn watch_counts<K>(api: &Api<K>, rv: &str, window: Duration) -> BTreeMap<&'static str, usize>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    let mut counts = BTreeMap::new();
    let stream = api
        .watch(
            &WatchParams::default().timeout(window.as_secs().max(1) as u32 + 1),
            rv,
        )
        .await
        .expect("watch");
    let mut stream = stream.boxed();
    let deadline = Instant::now() + window;
    while let Ok(next) = tokio::time::timeout(
        deadline.saturating_duration_since(Instant::now()),
        stream.try_next(),
    )
    .await
    {
        let Some(event) = next.expect("watch event") else {
            break;
        };
        let kind = match event {
            WatchEvent::Added(_) => "ADDED",
            WatchEvent::Modified(_) => "MODIFIED",
            WatchEvent::Deleted(_) => "DELETED",
            WatchEvent::Bookmark(_) => "BOOKMARK",
            WatchEvent::Error(e) => panic!("watch error {e:?}"),
        };
        *counts.entry(kind).or_default() += 1;
    }
    counts
}

/// Counts of a watch's events by type, until `enough` says so (at most a minute, as the
/// machine may be busy).
async fn watch_counts_until<K>(
    api: &Api<K>,
    rv: &str,
    enough: impl Fn(&BTreeMap<&'static str, usize>) -> bool,
) -> BTreeMap<&'static str, usize>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    let patience = Duration::from_secs(60);
    let mut counts = BTreeMap::new();
    let stream = api
        .watch(
            &WatchParams::default().timeout(patience.as_secs() as u32),
            rv,
        )
        .await
        .expect("watch");
    let mut stream = stream.boxed();
    let deadline = Instant::now() + patience;
    while !enough(&counts) {
        let next = tokio::time::timeout(
            deadline.saturating_duration_since(Instant::now()),
            stream.try_next(),
        )
        .await
        .unwrap_or_else(|_| panic!("still {counts:?} after {patience:?}"));
        let Some(event) = next.expect("watch event") else {
            panic!("watch ended at {counts:?}");
        };
        let kind = match event {
            WatchEvent::Added(_) => "ADDED",
            WatchEvent::Modified(_) => "MODIFIED",
            WatchEvent::Deleted(_) => "DELETED",
            WatchEvent::Bookmark(_) => "BOOKMARK",
            WatchEvent::Error(e) => panic!("watch error {e:?}"),
        };
        *counts.entry(kind).or_default() += 1;
    }
    counts
}

/// The current resourceVersion of a list of `api` (a cheap one-item page).
async fn list_rv<K>(api: &Api<K>) -> String
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let list = api
        .list(&ListParams::default().limit(1))
        .await
        .expect("list");
    list.metadata
        .resource_version
        .expect("list resourceVersion")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn churn_writes_pods_and_events_at_about_its_rate() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let (cluster, client) = loaded_cluster(CHURN).await;
    let pods: Api<Pod> = Api::all(client.clone());
    let events: Api<Event> = Api::all(client.clone());
    let rv = list_rv(&pods).await;
    let window = Duration::from_secs(2);
    let (pod_counts, event_counts) = tokio::join!(
        watch_counts(&pods, &rv, window),
        watch_counts(&events, &rv, window)
    );
    eprintln!("churn {CHURN}/s for {window:?}: pods {pod_counts:?}, events {event_counts:?}");
    // Pod writes and the Events recorded with them; a debug build on a busy machine reaches a
    // fraction of the rate, hence the wide bound.
    let writes: usize = pod_counts.values().sum::<usize>() + event_counts.values().sum::<usize>();
    assert!(
        writes >= CHURN as usize / 4,
        "{writes} pod and Event writes in {window:?} at {CHURN}/s"
    );
    // Every kind of pod write shows up (a slow debug build may need more than the window).
    let pod_counts = watch_counts_until(&pods, &rv, |counts| {
        ["MODIFIED", "ADDED", "DELETED"]
            .iter()
            .all(|kind| counts.get(kind).is_some_and(|n| *n > 0))
    })
    .await;
    eprintln!("until every kind was seen: pods {pod_counts:?}");
    assert!(
        event_counts.get("ADDED").is_some_and(|n| *n > 0),
        "{event_counts:?}"
    );
    let kubelet_events = events
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.reporting_component.as_deref() == Some("kubelet"))
        .map(|e| e.reason.unwrap_or_default())
        .collect::<BTreeSet<_>>();
    assert!(
        kubelet_events.contains("Started") && kubelet_events.contains("Unhealthy"),
        "{kubelet_events:?}"
    );
    // Replacements keep the count: every pod deleted has its successor.
    let live = list_all_pods(&client)
        .await
        .into_iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .count();
    assert!(live.abs_diff(PODS) <= 20, "{live} live pods");
    cluster.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_churn_a_loaded_cluster_stays_quiet() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let (cluster, client) = loaded_cluster(0).await;
    let pods: Api<Pod> = Api::all(client.clone());
    let sets: Api<ReplicaSet> = Api::all(client.clone());
    let deployments: Api<Deployment> = Api::all(client.clone());
    let events: Api<Event> = Api::all(client.clone());
    // From right after the load, so the controllers' first passes are included.
    let rv = list_rv(&pods).await;
    let window = Duration::from_secs(2);
    let (p, s, d, e) = tokio::join!(
        watch_counts(&pods, &rv, window),
        watch_counts(&sets, &rv, window),
        watch_counts(&deployments, &rv, window),
        watch_counts(&events, &rv, window),
    );
    // Nodes' heartbeats and Leases are what a quiet real cluster writes too; nothing else.
    for (what, counts) in [
        ("pods", p),
        ("replicasets", s),
        ("deployments", d),
        ("events", e),
    ] {
        let writes: usize = counts
            .iter()
            .filter(|(kind, _)| **kind != "BOOKMARK")
            .map(|(_, n)| n)
            .sum();
        assert_eq!(writes, 0, "{what} changed after load: {counts:?}");
    }
    cluster.shutdown().await.unwrap();
}

/// How long loading takes (printed, not asserted); run with `--release --ignored`.
#[tokio::test]
#[ignore = "measurement: cargo test --release -p demo-cluster --test load -- --ignored --nocapture"]
async fn load_timings() {
    for pods in [10_000, 100_000] {
        let config = Config {
            empty: true,
            ..Config::default()
        };
        let registry =
            demo_cluster::build_registry(&config, &demo_cluster::Tuning::default()).unwrap();
        let report = demo_cluster::load::populate(
            &registry,
            &demo_cluster::load::LoadConfig {
                pods,
                crds: 0,
                seed: demo_cluster::load::DEFAULT_SEED,
            },
        );
        eprintln!(
            "loaded {} pods ({} deployments, {} nodes) in {:.2?}",
            report.workloads.pods,
            report.workloads.deployments,
            report.workloads.nodes,
            report.elapsed
        );
        assert_eq!(report.workloads.pods, pods);
    }
}
