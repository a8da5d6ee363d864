//! Records the fixtures of the diagnosis model's tests (`model/tests/diagnosis_fixtures.rs`)
//! from both backends: on a real control plane (kube-apiserver, kube-controller-manager and
//! kube-scheduler v1.36 with the stand-in kubelet) and on the demo cluster, the same four
//! Deployments (pods no node can take, a missing image, a crash loop, a healthy one) are
//! created, left to settle, and saved with their ReplicaSets, Pods and the namespace's Event
//! objects as `model/tests/fixtures/diagnosis/{real,demo}/<case>.json`.
//!
//! Run by hand when a backend's wording changes, then commit the fixtures (an example, not an
//! ignored test: CI fails on ignored tests beyond its deliberate few):
//! `cargo run -p demo-cluster --example record_diagnosis_fixtures [real] [demo]` (both when
//! none is named; `real` needs the control-plane binaries of `cargo xtask setup`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../tests/common/mod.rs"]
mod common;
mod recorder;

/// How long a case may take to settle (the stand-in kubelet's crash loop restarts every
/// 10 s; kube-scheduler reports within a second or two).
const SETTLE_LIMIT: Duration = Duration::from_secs(120);

/// One failure (or none) to record.
struct Case {
    /// The fixture's name and the namespace it is recorded in.
    name: &'static str,
    image: &'static str,
    replicas: u32,
    /// A `nodeSelector` label (key, value); no node of either backend has one.
    node_selector: Option<(&'static str, &'static str)>,
    /// Whether the namespace, as read, shows what the case is about.
    settled: fn(&Recorded) -> bool,
}

const CASES: [Case; 4] = [
    Case {
        name: "unschedulable",
        image: "nginx:1.27",
        replicas: 2,
        node_selector: Some(("disktype", "ssd")),
        settled: all_pods_unschedulable,
    },
    Case {
        name: "missing-image",
        image: "nginx:doesnotexist",
        replicas: 1,
        node_selector: None,
        settled: image_pull_backing_off,
    },
    Case {
        name: "crash-loop",
        image: "ghcr.io/kube-atlas/crash-loop:0.1",
        replicas: 1,
        node_selector: None,
        settled: crash_looping,
    },
    Case {
        name: "healthy",
        image: "nginx:1.27",
        replicas: 2,
        node_selector: None,
        settled: all_ready,
    },
];

/// A Deployment, its ReplicaSets and Pods, and the Event objects of its namespace.
struct Recorded {
    root: Value,
    owned: Vec<Value>,
    events: Vec<Value>,
}

impl Recorded {
    fn pods(&self) -> impl Iterator<Item = &Value> {
        self.owned.iter().filter(|o| o["kind"] == "Pod")
    }

    fn has_event(&self, reason: &str) -> bool {
        self.events.iter().any(|e| e["reason"] == reason)
    }

    fn to_fixture(&self) -> Value {
        json!({"root": self.root, "owned": self.owned, "events": self.events})
    }
}

fn waiting_reason(pod: &Value) -> &str {
    pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"]
        .as_str()
        .unwrap_or_default()
}

fn all_pods_unschedulable(recorded: &Recorded) -> bool {
    let unschedulable = |pod: &Value| {
        pod["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "PodScheduled" && c["reason"] == "Unschedulable")
    };
    recorded.pods().count() == 2
        && recorded.pods().all(unschedulable)
        && recorded.has_event("FailedScheduling")
}

fn image_pull_backing_off(recorded: &Recorded) -> bool {
    recorded.pods().count() == 1
        && recorded
            .pods()
            .all(|p| waiting_reason(p) == "ImagePullBackOff")
        && recorded.has_event("Failed")
}

fn crash_looping(recorded: &Recorded) -> bool {
    let restarted = |pod: &Value| {
        waiting_reason(pod) == "CrashLoopBackOff"
            && pod["status"]["containerStatuses"][0]["restartCount"]
                .as_i64()
                .unwrap_or(0)
                >= 1
    };
    recorded.pods().count() == 1 && recorded.pods().all(restarted) && recorded.has_event("BackOff")
}

fn all_ready(recorded: &Recorded) -> bool {
    let status = &recorded.root["status"];
    status["observedGeneration"] == recorded.root["metadata"]["generation"]
        && status["readyReplicas"] == 2
        && status["availableReplicas"] == 2
        && recorded.pods().count() == 2
}

fn manifest(case: &Case) -> Value {
    let mut pod_spec = json!({"containers": [{"name": "web", "image": case.image}]});
    if let Some((key, value)) = case.node_selector {
        pod_spec["nodeSelector"] = json!({ key: value });
    }
    json!({
        "apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": case.name}},
            {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": "web", "namespace": case.name},
             "spec": {"replicas": case.replicas, "selector": {"matchLabels": {"app": "web"}},
                      "template": {"metadata": {"labels": {"app": "web"}}, "spec": pod_spec}}},
        ],
    })
}

/// Runs kubectl against one backend: its standard output, or kubectl's words.
type Kubectl<'a> = &'a dyn Fn(&[&str]) -> Result<String, String>;

fn items(kubectl: Kubectl, namespace: &str, resource: &str) -> Result<Vec<Value>, String> {
    let listed: Value =
        serde_json::from_str(&kubectl(&["get", resource, "-n", namespace, "-o", "json"])?)
            .map_err(|e| format!("{resource} list: {e}"))?;
    let mut items = listed["items"].as_array().cloned().unwrap_or_default();
    // A list's items carry no kind; the model reads it.
    let kind = match resource {
        "replicasets" => ("apps/v1", "ReplicaSet"),
        "pods" => ("v1", "Pod"),
        _ => ("v1", "Event"),
    };
    for item in &mut items {
        item["apiVersion"] = json!(kind.0);
        item["kind"] = json!(kind.1);
        without_managed_fields(item);
    }
    Ok(items)
}

/// Who wrote which field: nothing the diagnosis reads, and most of a fixture's size.
fn without_managed_fields(object: &mut Value) {
    if let Some(metadata) = object["metadata"].as_object_mut() {
        metadata.remove("managedFields");
    }
}

fn read(kubectl: Kubectl, namespace: &str) -> Result<Recorded, String> {
    let mut root: Value = serde_json::from_str(&kubectl(&[
        "get",
        "deployment",
        "web",
        "-n",
        namespace,
        "-o",
        "json",
    ])?)
    .map_err(|e| format!("deployment: {e}"))?;
    without_managed_fields(&mut root);
    let mut owned = items(kubectl, namespace, "replicasets")?;
    owned.extend(items(kubectl, namespace, "pods")?);
    Ok(Recorded {
        root,
        owned,
        events: items(kubectl, namespace, "events")?,
    })
}

fn fixture_dir(backend: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../model/tests/fixtures/diagnosis")
        .join(backend)
}

/// Creates every case, waits until each settles, and writes its fixture.
fn record_all(kubectl: Kubectl, backend: &str) {
    let scratch = tempfile::tempdir().expect("a scratch directory");
    for case in &CASES {
        let path = scratch.path().join(format!("{}.json", case.name));
        std::fs::write(&path, manifest(case).to_string()).expect("manifest written");
        let path = path.to_str().expect("a UTF-8 path");
        kubectl(&["create", "-f", path]).unwrap_or_else(|e| panic!("{e}"));
    }
    let dir = fixture_dir(backend);
    std::fs::create_dir_all(&dir).expect("fixture directory");
    let deadline = Instant::now() + SETTLE_LIMIT;
    for case in &CASES {
        let recorded = loop {
            let read = read(kubectl, case.name);
            if let Some(recorded) = read.as_ref().ok().filter(|r| (case.settled)(r)) {
                break recorded.to_fixture();
            }
            assert!(
                Instant::now() < deadline,
                "{backend}/{}: not settled within {SETTLE_LIMIT:?}: {:#}",
                case.name,
                read.map(|r| r.to_fixture()).unwrap_or_else(|e| json!(e))
            );
            std::thread::sleep(Duration::from_millis(500));
        };
        let file = dir.join(format!("{}.json", case.name));
        let text = serde_json::to_string_pretty(&recorded).expect("fixture JSON");
        std::fs::write(&file, text + "\n").expect("fixture written");
        eprintln!("recorded {}", file.display());
    }
}

/// Records on a real control plane: kube-apiserver, kube-controller-manager and
/// kube-scheduler, with the stand-in kubelet's nodes.
fn record_on_the_real_control_plane() -> Result<(), String> {
    let plane = recorder::real_control_plane_with_three_nodes(SETTLE_LIMIT)?;
    let kubectl = |args: &[&str]| plane.kubectl_ok(args);
    record_all(&kubectl, "real");
    Ok(())
}

/// Records on an empty demo cluster (its three nodes only).
fn record_on_the_demo_cluster() -> Result<(), String> {
    let config = demo_cluster::Config {
        // Ten times as fast: the crash loop's first back-off is a second.
        speed: 10.0,
        ..common::empty_cluster_config()
    };
    recorder::with_demo_cluster(config, common::Kubectl::new, |client| {
        let kubectl = |args: &[&str]| {
            let (ok, out, err) = client.run(args, None);
            if ok {
                Ok(out)
            } else {
                Err(format!("kubectl {}: {err}", args.join(" ")))
            }
        };
        record_all(&kubectl, "demo");
        Ok(())
    })
}

fn main() -> ExitCode {
    recorder::run_backends(
        "record_diagnosis_fixtures",
        record_on_the_real_control_plane,
        record_on_the_demo_cluster,
    )
}
