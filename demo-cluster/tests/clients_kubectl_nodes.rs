//! A Node created later through the API, with kubectl and nothing but a name and a label, as
//! one registers a machine by hand: it gets a podCIDR, a kubelet that reports it Ready (with
//! addresses and nodeInfo) and renews its Lease, and pods scheduled to it run there. Ignored
//! without kubectl, except under CI.

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
    let node = k.home.path().join("node.yaml");
    std::fs::write(&node, NODE).expect("manifest");
    let pod = k.home.path().join("pod.yaml");
    std::fs::write(&pod, POD).expect("manifest");
    tokio::task::spawn_blocking(move || {
        let created = k.ok(&["create", "-f", node.to_str().expect("utf-8 path")]);
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
        k.ok(&["create", "-f", pod.to_str().expect("utf-8 path")]);
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
