//! A Node created later through the API, with kubectl and nothing but a name and a label, as
//! one registers a machine by hand: it gets a podCIDR, a kubelet that reports it Ready (with
//! addresses and nodeInfo) and renews its Lease, and pods scheduled to it run there. Ignored
//! without kubectl, except under CI.

use std::time::Duration;

use futures_util::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::runtime::{reflector, watcher};
use kube::Api;

mod common;

use common::Kubectl;

const NODE: &str = r#"apiVersion: v1
kind: Node
metadata:
  name: late-node
  labels: {pool: late}
"#;

const POD: &str = r#"apiVersion: v1
kind: Pod
metadata:
  name: pinned
  namespace: default
spec:
  nodeSelector: {pool: late}
  containers:
  - name: web
    image: nginx
"#;

fn jsonpath(k: &Kubectl, args: &[&str], path: &str) -> String {
    let mut all = args.to_vec();
    let output = format!("jsonpath={path}");
    all.extend(["-o", &output]);
    k.ok(&all)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn a_node_created_later_gets_a_kubelet_and_runs_pods() {
    let cluster = common::start_for_cli_clients().await;
    let k = Kubectl::new(&cluster);
    let node = k.manifest("node.yaml", NODE);
    let pod = k.manifest("pod.yaml", POD);
    tokio::task::spawn_blocking(move || {
        let created = k.ok(&["create", "-f", &node]);
        assert!(created.contains("node/late-node created"), "{created}");
        k.wait_for("condition=Ready", "node/late-node");

        // What the kubelet registered: `get nodes` shows it Ready with its kubelet version.
        let nodes = k.ok(&["get", "nodes"]);
        let row = nodes
            .lines()
            .find(|l| l.starts_with("late-node "))
            .unwrap_or_else(|| panic!("no late-node row:\n{nodes}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[1], "Ready", "{row}");
        assert_eq!(cells.last(), Some(&"v1.34.0"), "{row}");
        let cidr = jsonpath(&k, &["get", "node", "late-node"], "{.spec.podCIDR}");
        let prefix = cidr
            .strip_suffix(".0/24")
            .unwrap_or_else(|| panic!("a /24 podCIDR: {cidr:?}"))
            .to_string();
        let node_ip = jsonpath(
            &k,
            &["get", "node", "late-node"],
            "{.status.addresses[?(@.type==\"InternalIP\")].address}",
        );
        assert!(node_ip.starts_with("172.18."), "{node_ip}");
        let other_ips = jsonpath(
            &k,
            &["get", "nodes", "-l", "!pool"],
            "{.items[*].status.addresses[?(@.type==\"InternalIP\")].address}",
        );
        assert_eq!(other_ips.split_whitespace().count(), 3, "{other_ips}");
        assert!(
            !other_ips.split_whitespace().any(|ip| ip == node_ip),
            "{node_ip} is another node's"
        );
        let labels = jsonpath(&k, &["get", "node", "late-node"], "{.metadata.labels}");
        assert!(
            labels.contains("\"kubernetes.io/hostname\":\"late-node\"")
                && labels.contains("\"pool\":\"late\""),
            "{labels}"
        );
        let holder = jsonpath(
            &k,
            &["get", "lease", "late-node", "-n", "kube-node-lease"],
            "{.spec.holderIdentity}",
        );
        assert_eq!(holder, "late-node");

        // A pod that only this node matches runs there.
        k.ok(&["create", "-f", &pod]);
        k.wait_for("condition=Ready", "pod/pinned");
        let placed = jsonpath(
            &k,
            &["get", "pod", "pinned"],
            "{.spec.nodeName} {.status.hostIP} {.status.podIP} {.status.phase}",
        );
        let placed: Vec<&str> = placed.split_whitespace().collect();
        assert_eq!(placed.len(), 4, "{placed:?}");
        assert_eq!(placed[0], "late-node");
        assert_eq!(placed[1], node_ip);
        assert!(
            placed[2].starts_with(&format!("{prefix}.")),
            "{placed:?} in {cidr}"
        );
        assert_eq!(placed[3], "Running");
        let logs = k.ok(&["logs", "pinned"]);
        assert!(logs.contains("Configuration complete"), "{logs}");
    })
    .await
    .expect("kubectl steps");
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn drain_moves_pods_off_nodes_by_eviction_or_deletion() {
    let cluster = common::start_for_cli_clients().await;
    let pods: Api<Pod> = Api::namespaced(common::kube_client(&cluster), "default");
    let k = Kubectl::new(&cluster);
    let web = k.manifest("web.yaml", common::WEB_DEPLOYMENT);
    let (k, first) = tokio::task::spawn_blocking(move || {
        k.ok(&["apply", "-f", &web]);
        k.wait_for("condition=Available", "deployment/web");
        let first = node_of_a_web_pod(&k);
        // kubectl finds pods/eviction (policy/v1) in discovery and evicts.
        let drained = k.ok(&["drain", &first, "--timeout=60s"]);
        assert!(drained.contains("evicting pod default/web-"), "{drained}");
        assert!(
            drained.contains(&format!("node/{first} drained")),
            "{drained}"
        );
        let row = k.ok(&["get", "node", &first, "--no-headers"]);
        assert!(row.contains("Ready,SchedulingDisabled"), "{row}");
        (k, first)
    })
    .await
    .expect("kubectl steps");
    let placed = two_running_web_pods(&pods).await;
    assert!(placed.iter().all(|on| *on != first), "{placed:?}");

    let (k, second) = tokio::task::spawn_blocking(move || {
        let second = node_of_a_web_pod(&k);
        assert_ne!(second, first);
        // Without eviction kubectl deletes the pods itself (a protobuf DeleteOptions body).
        let drained = k.ok(&["drain", &second, "--disable-eviction", "--timeout=60s"]);
        assert!(!drained.contains("evicting"), "{drained}");
        assert!(
            drained.contains(&format!("node/{second} drained")),
            "{drained}"
        );
        (k, [first, second])
    })
    .await
    .expect("kubectl steps");
    let placed = two_running_web_pods(&pods).await;
    assert!(
        placed.iter().all(|on| !second.contains(on)),
        "{placed:?} on {second:?}"
    );
    tokio::task::spawn_blocking(move || {
        for node in &second {
            k.ok(&["uncordon", node]);
            let row = k.ok(&["get", "node", node, "--no-headers"]);
            assert!(!row.contains("SchedulingDisabled"), "{row}");
        }
    })
    .await
    .expect("kubectl steps");
    cluster.shutdown().await.expect("shutdown");
}

fn node_of_a_web_pod(k: &Kubectl) -> String {
    let node = jsonpath(
        k,
        &["get", "pods", "-l", "app=web"],
        "{.items[0].spec.nodeName}",
    );
    assert!(node.starts_with("demo-node-"), "{node:?}");
    node
}

/// Waits (on a watch) for the web Deployment's two pods to run; returns their nodes.
async fn two_running_web_pods(pods: &Api<Pod>) -> Vec<String> {
    let (reader, writer) = reflector::store();
    let mut events = reflector(
        writer,
        watcher(pods.clone(), watcher::Config::default().labels("app=web")),
    )
    .boxed();
    tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            events
                .next()
                .await
                .expect("the watch goes on")
                .expect("no watch error");
            let running: Vec<String> = reader
                .state()
                .iter()
                .filter(|p| p.metadata.deletion_timestamp.is_none())
                .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
                .filter_map(|p| p.spec.as_ref()?.node_name.clone())
                .collect();
            if running.len() == 2 && reader.state().len() == 2 {
                break running;
            }
        }
    })
    .await
    .expect("two running pods in time")
}
