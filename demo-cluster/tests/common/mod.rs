//! Helpers shared by the demo cluster's integration tests.

#![allow(dead_code)]

pub mod portforward;
pub mod raw;
pub mod terminal;

use std::time::Duration;

use demo_cluster::{start, Config, RunningCluster};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams};
use kube::Client;
use serde_json::json;

/// Outer bound for anything a test waits for: generous, as the machine may be busy; a healthy
/// run never comes near it.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Simulated delays of [`start_fast`] clusters run 100 times faster (a 2 s image pull takes
/// 20 ms).
pub const SPEED: f64 = 100.0;

/// The Table media type (`as=Table;v=v1;g=meta.k8s.io`) an Accept header asks for.
pub const TABLE: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";

/// On a free loopback port, with only nodes and system namespaces (tests count what they see).
pub fn empty_cluster_config() -> Config {
    Config {
        listen: "127.0.0.1:0".parse().expect("loopback address"),
        empty: true,
        ..Config::default()
    }
}

/// An empty cluster for command-line clients (kubectl, Python): fast simulated kubelets, as
/// deleting a namespace waits for its pods to terminate.
pub async fn start_for_cli_clients() -> RunningCluster {
    start(Config {
        speed: 50.0,
        ..empty_cluster_config()
    })
    .await
    .expect("cluster starts")
}

/// A seeded cluster (the demo workloads) for command-line clients, simulated 50 times as
/// fast.
pub async fn start_seeded_for_cli_clients() -> RunningCluster {
    start(Config {
        speed: 50.0,
        empty: false,
        ..empty_cluster_config()
    })
    .await
    .expect("cluster starts")
}

/// A cluster simulated [`SPEED`] times as fast, empty or with the demo workloads, and a client
/// of it.
pub async fn start_fast(empty: bool) -> (RunningCluster, Client) {
    let cluster = start(Config {
        speed: SPEED,
        empty,
        ..empty_cluster_config()
    })
    .await
    .expect("the cluster starts");
    let client = kube_client(&cluster);
    (cluster, client)
}

/// Waits until the count of the store's subscribers (watches and controllers) satisfies
/// `enough`, failing after [`PATIENCE`] with `what`.
pub async fn wait_for_subscribers(
    registry: &demo_cluster::registry::Registry,
    enough: impl Fn(usize) -> bool,
    what: &str,
) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let count = registry.store.subscriber_count();
        if enough(count) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited {PATIENCE:?} for {what}: {count} store subscribers"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// How many objects `api` lists.
pub async fn item_count<K>(api: &Api<K>) -> usize
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.list(&ListParams::default())
        .await
        .expect("a list")
        .items
        .len()
}

/// A kube-rs client for the cluster (plain HTTP on loopback).
pub fn kube_client(cluster: &RunningCluster) -> Client {
    let config = kube::Config::new(cluster.url().parse().expect("cluster URL"));
    Client::try_from(config).expect("kube client")
}

pub fn configmap(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}))
        .expect("valid ConfigMap")
}

/// The real `kubectl`, pointed at a cluster with its own home, kubeconfig and cache.
pub struct Kubectl {
    pub server: String,
    pub home: tempfile::TempDir,
}

impl Kubectl {
    pub fn new(cluster: &RunningCluster) -> Kubectl {
        Kubectl {
            server: cluster.url(),
            home: tempfile::tempdir().expect("a temporary home"),
        }
    }

    /// The command with the server and the isolated home set, not started.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new("kubectl");
        cmd.arg("--server")
            .arg(&self.server)
            .arg("--cache-dir")
            .arg(self.home.path().join("cache"))
            .args(args)
            .env("KUBECONFIG", self.home.path().join("kubeconfig"))
            .env("HOME", self.home.path());
        cmd
    }

    /// Runs to the end: (success, stdout, stderr).
    pub fn run(
        &self,
        args: &[&str],
        stdin_file: Option<&std::path::Path>,
    ) -> (bool, String, String) {
        let mut cmd = self.command(args);
        if let Some(f) = stdin_file {
            cmd.stdin(std::fs::File::open(f).expect("stdin file"));
        }
        let out = cmd.output().expect("kubectl runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let (ok, out, err) = self.run(args, None);
        assert!(ok, "kubectl {args:?} failed: {err}\n{out}");
        out
    }
}

/// A two-replica nginx Deployment in `default`, as kubectl users write one.
pub const WEB_DEPLOYMENT: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
"#;

impl Kubectl {
    /// `kubectl wait --for=<condition> <target>` within 60 s; fails unless it is met.
    pub fn wait_for(&self, condition: &str, target: &str) {
        self.wait_for_in("default", condition, target);
    }

    /// [`Kubectl::wait_for`] a target in `namespace`.
    pub fn wait_for_in(&self, namespace: &str, condition: &str, target: &str) {
        let waited = self.ok(&[
            "wait",
            "-n",
            namespace,
            &format!("--for={condition}"),
            target,
            "--timeout=60s",
        ]);
        assert!(waited.contains("condition met"), "{waited}");
    }
}

impl Kubectl {
    /// Writes `text` to `name` in kubectl's home; returns the path for `-f`.
    pub fn manifest(&self, name: &str, text: &str) -> String {
        let path = self.home.path().join(name);
        std::fs::write(&path, text).expect("manifest written");
        path.to_str().expect("utf-8 path").to_string()
    }
}

/// A one-container nginx Pod (the simulated kubelet runs it and logs nginx's lines).
pub fn nginx_pod(name: &str) -> k8s_openapi::api::core::v1::Pod {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]}
    }))
    .expect("valid Pod")
}

/// Starts a demo cluster on a runtime of its own, on a thread that keeps it serving until
/// the test process ends (it outlives every test's runtime, and a test may block on a
/// command-line client meanwhile); its URL, or why it did not start.
pub fn start_on_own_runtime(config: Config) -> Result<String, String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("the demo cluster's runtime");
        runtime.block_on(async move {
            match start(config).await {
                Ok(cluster) => {
                    sender.send(Ok(cluster.url())).ok();
                    std::future::pending::<()>().await;
                    drop(cluster);
                }
                Err(e) => {
                    sender.send(Err(format!("demo cluster: {e}"))).ok();
                }
            }
        });
    });
    receiver
        .recv_timeout(std::time::Duration::from_secs(60))
        .map_err(|e| format!("demo cluster did not start: {e}"))?
}
