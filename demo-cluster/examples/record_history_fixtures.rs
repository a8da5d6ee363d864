//! Records the fixtures of the reconstructed-history tests (`model/tests/history_fixtures.rs`)
//! from both backends: on a real control plane (kube-apiserver, kube-controller-manager and
//! kube-scheduler v1.36 with the stand-in kubelet) and on the demo cluster, a Deployment `web`
//! is created with nginx:1.25 and 2 replicas, scaled to 3, then set to nginx:1.27; once the
//! rollout has finished, the Deployment, its ReplicaSets, its Pods (managedFields kept: the
//! history reads them) and the namespace's Event objects through both Event APIs are saved
//! as `model/tests/fixtures/history/{real,demo}/rollout.json`.
//!
//! Run by hand when a backend changes, then commit the fixtures:
//! `cargo run -p demo-cluster --example record_history_fixtures [real] [demo]` (both when none
//! is named; `real` needs the control-plane binaries of `cargo xtask setup`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../tests/common/mod.rs"]
mod common;
mod recorder;

const NAMESPACE: &str = "history";

/// How long one step (create, scale, new image) may take to settle.
const SETTLE_LIMIT: Duration = Duration::from_secs(120);

/// Between steps: managedFields and Event times have second resolution, so steps a couple of
/// seconds apart are told apart by their times, as they would be when a person types them.
const BETWEEN_STEPS: Duration = Duration::from_secs(2);

/// kubectl leaves managedFields out unless asked; the history reads them.
const SHOW_MANAGED_FIELDS: &str = "--show-managed-fields";

/// Runs kubectl against one backend: its standard output, or kubectl's words.
type Kubectl<'a> = &'a dyn Fn(&[&str]) -> Result<String, String>;

/// The Deployment, its ReplicaSets and Pods, and the namespace's Event objects.
struct Recorded {
    root: Value,
    replica_sets: Vec<Value>,
    pods: Vec<Value>,
    events: Vec<Value>,
    events_v1: Vec<Value>,
}

impl Recorded {
    fn to_fixture(&self) -> Value {
        let owned: Vec<&Value> = self.replica_sets.iter().chain(&self.pods).collect();
        json!({"root": self.root, "owned": owned, "events": self.events,
               "events_v1": self.events_v1})
    }

    /// The rollout to `image` with `replicas` is over: the Deployment reports it complete (as
    /// `kubectl rollout status` checks), every older ReplicaSet is at 0, and exactly
    /// `replicas` pods run the image, none of them terminating.
    fn rolled_out(&self, image: &str, replicas: u64) -> bool {
        let status = &self.root["status"];
        let complete = status["observedGeneration"] == self.root["metadata"]["generation"]
            && status["updatedReplicas"] == replicas
            && status["replicas"] == replicas
            && status["availableReplicas"] == replicas;
        let running = |pod: &&Value| {
            pod["status"]["phase"] == "Running"
                && pod["metadata"]["deletionTimestamp"].is_null()
                && pod["spec"]["containers"][0]["image"] == image
        };
        let old_sets_empty = self
            .replica_sets
            .iter()
            .filter(|rs| rs["spec"]["template"]["spec"]["containers"][0]["image"] != image)
            .all(|rs| rs["spec"]["replicas"] == 0 && rs["status"]["replicas"] == 0);
        complete
            && old_sets_empty
            && self.pods.len() as u64 == replicas
            && self.pods.iter().filter(running).count() as u64 == replicas
    }
}

/// `kubectl get <what> -n history -o json`, managedFields included.
fn get(kubectl: Kubectl, what: &[&str]) -> Result<Value, String> {
    let mut args = vec!["get"];
    args.extend(what);
    args.extend(["-n", NAMESPACE, "-o", "json", SHOW_MANAGED_FIELDS]);
    serde_json::from_str(&kubectl(&args)?).map_err(|e| format!("{}: {e}", what.join(" ")))
}

fn items(kubectl: Kubectl, resource: &str, kind: (&str, &str)) -> Result<Vec<Value>, String> {
    let listed = get(kubectl, &[resource])?;
    let mut items = listed["items"].as_array().cloned().unwrap_or_default();
    // A list's items carry no kind; the model reads it.
    for item in &mut items {
        item["apiVersion"] = json!(kind.0);
        item["kind"] = json!(kind.1);
    }
    Ok(items)
}

fn read(kubectl: Kubectl) -> Result<Recorded, String> {
    let root = get(kubectl, &["deployment", "web"])?;
    Ok(Recorded {
        root,
        replica_sets: items(kubectl, "replicasets", ("apps/v1", "ReplicaSet"))?,
        pods: items(kubectl, "pods", ("v1", "Pod"))?,
        events: items(kubectl, "events", ("v1", "Event"))?,
        events_v1: items(
            kubectl,
            "events.v1.events.k8s.io",
            ("events.k8s.io/v1", "Event"),
        )?,
    })
}

/// Reads until the rollout to `image` with `replicas` is over.
fn wait_for_rollout(
    kubectl: Kubectl,
    backend: &str,
    image: &str,
    replicas: u64,
) -> Result<Recorded, String> {
    let deadline = Instant::now() + SETTLE_LIMIT;
    loop {
        let read = read(kubectl);
        if let Ok(recorded) = &read {
            if recorded.rolled_out(image, replicas) {
                return read;
            }
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{backend}: {image} x{replicas} not rolled out within {SETTLE_LIMIT:?}: {:#}",
                read.map(|r| r.to_fixture()).unwrap_or_else(|e| json!(e))
            ));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn manifest() -> Value {
    json!({
        "apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
            {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": "web", "namespace": NAMESPACE},
             "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                      "template": {"metadata": {"labels": {"app": "web"}},
                                   "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}},
        ],
    })
}

/// Creates, scales and rolls out `web`, then writes the fixture.
fn record(kubectl: Kubectl, backend: &str) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("a scratch directory: {e}"))?;
    let path = scratch.path().join("web.json");
    std::fs::write(&path, manifest().to_string()).map_err(|e| format!("manifest: {e}"))?;
    let path = path.to_str().ok_or("a UTF-8 path")?;
    kubectl(&["create", "-f", path])?;
    wait_for_rollout(kubectl, backend, "nginx:1.25", 2)?;
    std::thread::sleep(BETWEEN_STEPS);
    kubectl(&[
        "scale",
        "deployment",
        "web",
        "-n",
        NAMESPACE,
        "--replicas=3",
    ])?;
    wait_for_rollout(kubectl, backend, "nginx:1.25", 3)?;
    std::thread::sleep(BETWEEN_STEPS);
    kubectl(&[
        "set",
        "image",
        "deployment/web",
        "-n",
        NAMESPACE,
        "web=nginx:1.27",
    ])?;
    let recorded = wait_for_rollout(kubectl, backend, "nginx:1.27", 3)?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../model/tests/fixtures/history")
        .join(backend);
    std::fs::create_dir_all(&dir).map_err(|e| format!("fixture directory: {e}"))?;
    let file: PathBuf = dir.join("rollout.json");
    let text = serde_json::to_string_pretty(&recorded.to_fixture())
        .map_err(|e| format!("fixture JSON: {e}"))?;
    std::fs::write(&file, text + "\n").map_err(|e| format!("{}: {e}", file.display()))?;
    eprintln!("recorded {}", file.display());
    Ok(())
}

/// Records on a real control plane: kube-apiserver, kube-controller-manager and
/// kube-scheduler, with the stand-in kubelet's nodes.
fn record_on_the_real_control_plane() -> Result<(), String> {
    let plane = recorder::real_control_plane_with_three_nodes(SETTLE_LIMIT)?;
    let kubectl = |args: &[&str]| plane.kubectl_ok(args);
    record(&kubectl, "real")
}

/// Records on an empty demo cluster (its three nodes only), at its own pace.
fn record_on_the_demo_cluster() -> Result<(), String> {
    let config = demo_cluster::Config {
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
        record(&kubectl, "demo")
    })
}

fn main() -> ExitCode {
    recorder::run_backends(
        "record_history_fixtures",
        record_on_the_real_control_plane,
        record_on_the_demo_cluster,
    )
}
