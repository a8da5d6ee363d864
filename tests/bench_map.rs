//! Map benchmark (`cargo xtask bench map`): the release build in headless Chromium on the
//! demo cluster, a namespace of about 2,000 objects made by its controllers (Deployments, their
//! ReplicaSets and pods, Services and their EndpointSlices, the ConfigMaps and Secrets the pods
//! mount):
//! - the map drawn: from the route's change (the app already started) until every node is on
//!   screen, the map's own code, its watches' lists and the layout included;
//! - a rollout of a 100-pod Deployment in that namespace while the map is shown: the longest
//!   frame and the longest long-animation-frame.
//!
//! (The graph and layout of 2,000 objects natively: `model/tests/map_scale.rs`, part `model`.)
//! Prints figures and writes `target/bench/map.json`; asserts only that it really ran. Quick
//! mode (`KUBE_ATLAS_BENCH_QUICK=1`, run by `cargo xtask test`): 3 small apps, 6 pods rolled.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::bench::{self, Figures};
use common::{deployment, wait_until, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret, Service};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

const NAMESPACE: &str = "big";

/// Changes the route to the map and resolves with the ms until its nodes are drawn and it no
/// longer says it is loading (`arguments[0]`: the nodes expected at least).
const DRAWN_SCRIPT: &str = r#"
const done = arguments[arguments.length - 1];
const want = arguments[0];
const start = performance.now();
// The bench's marks: when the map's watch sockets opened (a socket waits for the browser,
// and for the page's share of sockets).
const sockets = [];
const Original = window.WebSocket;
window.WebSocket = function(url, protocols) {
  const socket = new Original(url, protocols);
  const opened = {at: -1};
  sockets.push(opened);
  socket.addEventListener('open', () => { opened.at = performance.now() - start; });
  return socket;
};
window.WebSocket.prototype = Original.prototype;
location.hash = '#/map?ns=big';
function look() {
  const nodes = document.querySelectorAll('.map-svg .map-node').length;
  if (nodes >= want && !document.querySelector('.map-page .loading')) {
    const open = sockets.map(s => s.at).filter(at => at >= 0);
    window.WebSocket = Original;
    done([performance.now() - start, nodes, sockets.length, open.length ? Math.max(...open) : 0]);
    return;
  }
  if (performance.now() - start > 60000) { done([-1, nodes, sockets.length, 0]); return; }
  requestAnimationFrame(look);
}
requestAnimationFrame(look);
"#;

/// One application: a Deployment of `pods` mounting its ConfigMap and reading its Secret, and
/// the Service in front of it (the controllers add the ReplicaSet, pods and EndpointSlice).
async fn create_app(harness: &Harness, name: &str, pods: i32) {
    let client = harness.kube_client();
    let post = PostParams::default();
    let config: ConfigMap = serde_json::from_value(
        json!({"metadata": {"name": format!("{name}-config")}, "data": {"mode": "bench"}}),
    )
    .expect("a ConfigMap");
    Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE)
        .create(&post, &config)
        .await
        .expect("ConfigMap created");
    let secret: Secret = serde_json::from_value(
        json!({"metadata": {"name": format!("{name}-secret")}, "stringData": {"key": "x"}}),
    )
    .expect("a Secret");
    Api::<Secret>::namespaced(client.clone(), NAMESPACE)
        .create(&post, &secret)
        .await
        .expect("Secret created");
    let service: Service = serde_json::from_value(json!({"metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80}]}}))
    .expect("a Service");
    Api::<Service>::namespaced(client.clone(), NAMESPACE)
        .create(&post, &service)
        .await
        .expect("Service created");
    let spec = json!({
        "containers": [{"name": "app", "image": "nginx:1.27",
            "envFrom": [{"secretRef": {"name": format!("{name}-secret")}}],
            "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}]}],
        "volumes": [{"name": "config", "configMap": {"name": format!("{name}-config")}}]
    });
    Api::<Deployment>::namespaced(client, NAMESPACE)
        .create(&post, &deployment(name, pods, spec))
        .await
        .expect("Deployment created");
}

async fn objects_in_namespace(harness: &Harness) -> usize {
    let client = harness.kube_client();
    let params = ListParams::default();
    let pods = Api::<Pod>::namespaced(client.clone(), NAMESPACE)
        .list_metadata(&params)
        .await
        .map_or(0, |l| l.items.len());
    let deployments = Api::<Deployment>::namespaced(client.clone(), NAMESPACE)
        .list_metadata(&params)
        .await
        .map_or(0, |l| l.items.len());
    let replica_sets =
        Api::<k8s_openapi::api::apps::v1::ReplicaSet>::namespaced(client.clone(), NAMESPACE)
            .list_metadata(&params)
            .await
            .map_or(0, |l| l.items.len());
    let slices = Api::<k8s_openapi::api::discovery::v1::EndpointSlice>::namespaced(
        client.clone(),
        NAMESPACE,
    )
    .list_metadata(&params)
    .await
    .map_or(0, |l| l.items.len());
    let configs = Api::<ConfigMap>::namespaced(client.clone(), NAMESPACE)
        .list_metadata(&params)
        .await
        .map_or(0, |l| l.items.len());
    let secrets = Api::<Secret>::namespaced(client.clone(), NAMESPACE)
        .list_metadata(&params)
        .await
        .map_or(0, |l| l.items.len());
    let services = Api::<Service>::namespaced(client, NAMESPACE)
        .list_metadata(&params)
        .await
        .map_or(0, |l| l.items.len());
    pods + deployments + replica_sets + slices + configs + secrets + services
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_thousand_object_namespace_on_the_map() {
    let mut figures = Figures::new("map");
    let harness = Harness::start().await;
    let driver = &harness.driver;
    harness.create_namespace(NAMESPACE).await;
    let apps = bench::pick(60, 3);
    let pods_per_app = bench::pick(25, 3);
    let rolled = bench::pick(100, 6);
    for app in 0..apps {
        create_app(&harness, &format!("app-{app:02}"), pods_per_app).await;
    }
    create_app(&harness, "roller", rolled).await;
    let pods_wanted = (apps * pods_per_app + rolled) as usize;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), NAMESPACE);
    let pods: Api<Pod> = Api::namespaced(harness.kube_client(), NAMESPACE);
    wait_until(
        "every pod is created",
        async || {
            pods.list_metadata(&ListParams::default())
                .await
                .map_or(0, |l| l.items.len())
        },
        |count| *count >= pods_wanted,
    )
    .await;
    let objects = objects_in_namespace(&harness).await;

    harness.open("#/").await;
    common::wait_for(driver, ".overview-page").await;
    // Each application is drawn as at least its Service, Deployment, ReplicaSet, pod group,
    // ConfigMap and Secret.
    let nodes_wanted = (apps + 1) * 6;
    let drawn = driver
        .execute_async(DRAWN_SCRIPT, vec![json!(nodes_wanted)])
        .await
        .expect("the map drawn")
        .json()
        .clone();
    let drawn_ms = drawn[0].as_f64().unwrap_or(f64::NAN);
    let nodes = drawn[1].as_f64().unwrap_or(0.0);
    let sockets = drawn[2].as_f64().unwrap_or(0.0);
    let last_socket_ms = drawn[3].as_f64().unwrap_or(0.0);
    assert!(drawn_ms >= 0.0, "the map was not drawn in 60 s: {drawn}");
    println!(
        "bench map: objects={objects} nodes={nodes:.0} drawn_ms={drawn_ms:.0} (from the route's \
         change, the app started; the map's code, its lists and layout included; \
         {sockets:.0} watch sockets opened, the last at {last_socket_ms:.0} ms)"
    );
    figures.add(
        format!("objects={objects} drawn_ms"),
        Some("≤ 300 ms"),
        drawn_ms,
        "ms",
    );
    harness.screenshot("map-big-namespace").await;

    // A rollout while the map is shown: a new ReplicaSet and its pods come, the old go.
    deployments
        .patch(
            "roller",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"template": {"metadata": {"annotations": {
                "kubectl.kubernetes.io/restartedAt": "2026-12-07T00:00:00Z"}}}}})),
        )
        .await
        .expect("rollout restarted");
    let seconds = bench::pick(12, 3);
    let frames = driver
        .execute_async(bench::FRAMES_SCRIPT, vec![json!(seconds * 1000)])
        .await
        .expect("frames")
        .json()
        .clone();
    let longest_frame = frames["worst"].as_f64().unwrap_or(f64::NAN);
    let longest_loaf = frames["longest_loaf"].as_f64().unwrap_or(0.0);
    assert!(
        frames["frames"].as_f64().unwrap_or(0.0) > 0.0,
        "frames seen: {frames}"
    );
    wait_until(
        "the rollout's new ReplicaSet is on the map beside the old",
        async || {
            driver
                .execute(
                    "return Array.from(document.querySelectorAll('.map-svg .map-node'))
                        .filter(n => n.dataset.kind == 'ReplicaSet' && n.dataset.name.startsWith('roller'))
                        .map(n => n.dataset.kind + '/' + n.dataset.name + '/' + (n.dataset.members || ''));",
                    vec![],
                )
                .await
                .ok()
                .and_then(|r| r.convert::<Vec<String>>().ok())
                .unwrap_or_default()
        },
        // Two ReplicaSets of one Deployment are one group node named after it.
        |nodes| nodes.iter().any(|n| n == "ReplicaSet/roller/2") || nodes.len() >= 2,
    )
    .await;

    println!(
        "bench map: rolled_pods={rolled} seconds={seconds} longest_frame_ms={longest_frame:.1} \
         longest_long_animation_frame_ms={longest_loaf:.1}"
    );
    figures.add(
        format!("rolled_pods={rolled} longest_frame_ms"),
        Some("≤ 50 ms"),
        longest_frame,
        "ms",
    );
    figures.add(
        format!("rolled_pods={rolled} longest_long_animation_frame_ms"),
        None,
        longest_loaf,
        "ms",
    );
    harness.stop().await;
    figures.save();
}
