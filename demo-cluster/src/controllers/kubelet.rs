//! One simulated kubelet per node: runs the pods bound to it through the phases a real
//! kubelet reports (no containers exist), terminates deleted pods gracefully, restarts
//! crashing containers with CrashLoopBackOff, and keeps the node's heartbeat and Lease fresh.
//!
//! An image whose name contains `crash` exits with code 1 shortly after every start; one whose
//! name contains `doesnotexist` never pulls (ErrImagePull, then ImagePullBackOff, retried with
//! a growing back-off); one whose name contains `unready` runs but fails its readiness probe,
//! if it has one (Unhealthy Events every `periodSeconds`), so its pod stays not Ready, as the
//! stand-in kubelet of the real control plane's tests (`fake_kubelet.py`) plays them. Pods
//! with `restartPolicy` Never/OnFailure run to completion after a simulated run time (`sleep
//! N` in the command sets it).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::task::JoinHandle;

use super::events::EventSpec;
use super::{
    is_deleting, is_pod_terminal, name_of, namespace_of, now_micro, pod_key, set_condition,
    spawn_queue_loop, uid_of, writer, Batch, Changes, Context,
};
use crate::registry::{now, DeleteOptions};
use crate::storage::object::{ObjectKey, ObjectRef};

pub const COMPONENT: &str = "kubelet";
const MANAGER: &str = "kubelet";
/// How long a crashing container runs before it exits (simulated seconds).
const CRASH_AFTER_SECONDS: f64 = 1.5;
/// How long a run-to-completion container runs without a `sleep N` hint.
const DEFAULT_RUN_SECONDS: f64 = 3.0;
/// Longest simulated stop time, whatever the grace period.
const MAX_STOP_SECONDS: f64 = 2.0;
/// How long a failed pull shows as ErrImagePull before the kubelet's next sync reports the
/// back-off (simulated seconds).
const PULL_ERROR_SHOWN_SECONDS: f64 = 1.0;

/// Both kubelet tasks for `node`: pod lifecycle and heartbeat.
pub fn spawn(ctx: Arc<Context>, node: &str) -> Vec<JoinHandle<()>> {
    let mut kubelet = Kubelet::new(ctx.clone(), node);
    // Only this node's pods (before or after the change): with hundreds of nodes, a kubelet
    // that took every pod change fell behind the broadcast and resynced again and again.
    let own_node = node.to_string();
    let changes = Changes::matching(&ctx.registry, move |event| {
        let on_node = |pod: &Value| pod["spec"]["nodeName"].as_str() == Some(own_node.as_str());
        event.key.group.is_empty()
            && event.key.resource == "pods"
            && (on_node(&event.object) || event.prev.as_ref().is_some_and(|prev| on_node(prev)))
    });
    let pods = spawn_queue_loop(changes, ctx.resync(), move |batch| {
        if batch.full {
            kubelet.sync()
        } else {
            kubelet.sync_changes(batch)
        }
    });
    let heartbeat_ctx = ctx.clone();
    let node_name = node.to_string();
    let heartbeat = tokio::spawn(async move {
        // The real kubelet renews its Lease every 10 s and re-posts unchanged node status
        // every 5 min; at high speed at most once a second.
        let lease_period = heartbeat_ctx.scaled(10.0).max(Duration::from_secs(1));
        let status_period = heartbeat_ctx.scaled(300.0).max(Duration::from_secs(1));
        let mut last_status: Option<tokio::time::Instant> = None;
        loop {
            let now = tokio::time::Instant::now();
            if last_status.is_none_or(|t| now - t >= status_period) {
                post_node_status(&heartbeat_ctx, &node_name);
                last_status = Some(now);
            }
            renew_lease(&heartbeat_ctx, &node_name);
            tokio::time::sleep(lease_period).await;
        }
    });
    vec![pods, heartbeat]
}

/// Refreshes the heartbeat times of the Node's conditions.
pub fn post_node_status(ctx: &Context, node: &str) {
    let nodes = ctx.def("", "nodes");
    let _ = ctx
        .registry
        .update_with(&nodes, "", node, &writer(MANAGER, "status"), |current| {
            let time = now();
            let conditions = current
                .pointer_mut("/status/conditions")
                .and_then(Value::as_array_mut);
            for c in conditions.into_iter().flatten() {
                c["lastHeartbeatTime"] = json!(time);
            }
            Ok(())
        });
}

/// What a kubelet and the node IPAM controller add to a Node created with less (through the
/// API, with only a name): a podCIDR (`kube-controller-manager`), then the kubelet's default
/// labels and status — conditions, addresses, capacity, nodeInfo — where missing (`kubelet`).
/// Fields already there are kept, so a Node written NotReady stays NotReady.
pub fn register_node(ctx: &Context, node: &Value, all: &[Value]) {
    let nodes = ctx.def("", "nodes");
    let name = name_of(node);
    if node["spec"]["podCIDR"].as_str().is_none_or(str::is_empty) {
        let used: HashSet<&str> = all
            .iter()
            .filter_map(|n| n["spec"]["podCIDR"].as_str())
            .collect();
        let free = (0..=255)
            .map(|i| format!("10.244.{i}.0/24"))
            .find(|cidr| !used.contains(cidr.as_str()));
        if let Some(cidr) = free {
            let _ = ctx.registry.update_with(
                &nodes,
                "",
                name,
                &writer("kube-controller-manager", ""),
                |current| {
                    if current["spec"]["podCIDR"]
                        .as_str()
                        .is_none_or(str::is_empty)
                    {
                        current["spec"]["podCIDR"] = json!(cidr);
                        current["spec"]["podCIDRs"] = json!([cidr]);
                    }
                    Ok(())
                },
            );
        }
    }
    let labels = node_labels(name);
    let labelled = labels
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, _)| node["metadata"]["labels"][k].is_string());
    if !labelled {
        let _ = ctx
            .registry
            .update_with(&nodes, "", name, &writer(MANAGER, ""), |current| {
                if let Some(have) = current
                    .get_mut("metadata")
                    .and_then(|m| ensure_object(m, "labels"))
                {
                    for (k, v) in labels.as_object().into_iter().flatten() {
                        have.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                Ok(())
            });
    }
    let has_ready = node["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| c["type"] == "Ready"));
    let lift_not_ready = |ctx: &Context| {
        // The node lifecycle controller's part: a Ready node loses the not-ready taint that
        // kube-apiserver's admission gave it at creation.
        let _ = ctx.registry.update_with(
            &nodes,
            "",
            name,
            &writer("kube-controller-manager", ""),
            |current| {
                let ready = current["status"]["conditions"]
                    .as_array()
                    .is_some_and(|cs| {
                        cs.iter()
                            .any(|c| c["type"] == "Ready" && c["status"] == "True")
                    });
                if let (true, Some(taints)) = (ready, current["spec"]["taints"].as_array_mut()) {
                    taints.retain(|t| t["key"] != NOT_READY_TAINT);
                    if taints.is_empty() {
                        if let Some(spec) = current["spec"].as_object_mut() {
                            spec.remove("taints");
                        }
                    }
                }
                Ok(())
            },
        );
    };
    let not_ready_taint = node["spec"]["taints"]
        .as_array()
        .is_some_and(|ts| ts.iter().any(|t| t["key"] == NOT_READY_TAINT));
    if has_ready && !is_zero_value(&node["status"]["nodeInfo"]) {
        if not_ready_taint {
            lift_not_ready(ctx);
        }
        return;
    }
    let used: HashSet<&str> = all.iter().filter_map(internal_ip).collect();
    let ip = (2..=254)
        .map(|i| format!("172.18.0.{i}"))
        .find(|ip| !used.contains(ip.as_str()))
        .unwrap_or_else(|| "172.18.1.2".into());
    let reported = node_status(name, &ip);
    let _ = ctx
        .registry
        .update_with(&nodes, "", name, &writer(MANAGER, "status"), |current| {
            let Some(status) = ensure_object(current, "status") else {
                return Ok(());
            };
            for (field, value) in reported.as_object().into_iter().flatten() {
                // kube-apiserver stores a Node written without status with zero values.
                let present = status.get(field).is_some_and(|v| !is_zero_value(v));
                if field == "conditions" && present {
                    // Add the condition types the Node lacks, keep those it has.
                    if let Some(conditions) = status[field].as_array_mut() {
                        for c in value.as_array().into_iter().flatten() {
                            if !conditions.iter().any(|have| have["type"] == c["type"]) {
                                conditions.push(c.clone());
                            }
                        }
                    }
                } else if !present {
                    status.insert(field.clone(), value.clone());
                }
            }
            Ok(())
        });
    lift_not_ready(ctx);
}

const NOT_READY_TAINT: &str = "node.kubernetes.io/not-ready";

/// The labels a kubelet puts on the Node it registers.
pub fn node_labels(name: &str) -> Value {
    json!({
        "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
    })
}

/// The status a kubelet reports for its node (capacity, Ready and pressure conditions,
/// addresses, nodeInfo), at registration and then kept fresh by its heartbeats.
pub fn node_status(name: &str, internal_ip: &str) -> Value {
    let t = now();
    let cond = |ty: &str, status: &str, reason: &str, message: &str| json!({"type": ty, "status": status, "lastHeartbeatTime": t, "lastTransitionTime": t, "reason": reason, "message": message});
    // Stable per-name identifiers, as a machine keeps its own.
    let id: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
    json!({
        "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"},
        "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"},
        "conditions": [
            cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
            cond("Ready", "True", "KubeletReady", "kubelet is posting ready status")],
        "addresses": [{"type": "InternalIP", "address": internal_ip}, {"type": "Hostname", "address": name}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {"machineID": id, "systemUUID": name, "bootID": format!("boot-{name}"),
            "kernelVersion": "6.1.0", "osImage": "Demo Linux", "containerRuntimeVersion": "containerd://1.7.0",
            "kubeletVersion": "v1.34.0", "kubeProxyVersion": "v1.34.0", "operatingSystem": "linux", "architecture": "amd64"}
    })
}

/// Null, or only empty strings, zeros, falses and empty collections all the way down.
fn is_zero_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.values().all(is_zero_value),
    }
}

fn internal_ip(node: &Value) -> Option<&str> {
    node["status"]["addresses"]
        .as_array()?
        .iter()
        .find(|a| a["type"] == "InternalIP")?["address"]
        .as_str()
}

/// `obj[field]` as an object, made one if it is missing or null; None if it is something else.
fn ensure_object<'a>(
    obj: &'a mut Value,
    field: &str,
) -> Option<&'a mut serde_json::Map<String, Value>> {
    let map = obj.as_object_mut()?;
    let entry = map.entry(field).or_insert_with(|| json!({}));
    if entry.is_null() {
        *entry = json!({});
    }
    entry.as_object_mut()
}

/// Renews (or creates) the node's Lease in kube-node-lease, owned by the Node.
pub fn renew_lease(ctx: &Context, node: &str) {
    let Ok(node_obj) = ctx.registry.get(&ctx.def("", "nodes"), "", node) else {
        return;
    };
    let leases = ctx.def("coordination.k8s.io", "leases");
    let renewed = ctx.registry.update_with(
        &leases,
        "kube-node-lease",
        node,
        &writer(MANAGER, ""),
        |lease| {
            lease["spec"]["renewTime"] = json!(now_micro());
            Ok(())
        },
    );
    if renewed.is_err() {
        let lease = json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": node, "namespace": "kube-node-lease",
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node, "uid": node_obj["metadata"]["uid"]}]},
            "spec": {"holderIdentity": node, "leaseDurationSeconds": 40, "renewTime": now_micro()},
        });
        let _ = ctx
            .registry
            .create(&leases, "kube-node-lease", lease, &writer(MANAGER, ""));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Images are being pulled (status: ContainerCreating).
    Pulling,
    /// A pull failed (status: ErrImagePull); `due` is when the back-off is reported.
    PullFailed,
    /// Waiting to pull again (status: ImagePullBackOff); `due` is the next attempt.
    PullBackOff,
    /// Containers run; `due` is when a crashing or finite container exits.
    Running,
    /// A crashed container waits for its restart (CrashLoopBackOff).
    BackOff,
    /// The pod reached Succeeded or Failed.
    Completed,
    /// Deleted: containers are being stopped; `due` is the final DELETE.
    Terminating,
}

/// What the kubelet remembers about one of its pods.
#[derive(Debug, Clone)]
struct Runtime {
    stage: Stage,
    due: Option<Instant>,
    pod_ip: String,
    start_time: String,
    /// When the current container instances started.
    started_at: String,
    restarts: i64,
    /// `lastState.terminated` of crashing containers after their first exit.
    last_terminated: Option<Value>,
    /// Failed pulls of a missing image so far (the back-off grows with them).
    failed_pulls: i64,
    /// When a failing readiness probe runs next.
    next_probe: Option<Instant>,
}

impl Runtime {
    /// The earlier of the stage's timer and the next probe.
    fn next_timer(&self) -> Option<Instant> {
        match (self.due, self.next_probe) {
            (Some(due), Some(probe)) => Some(due.min(probe)),
            (due, probe) => due.or(probe),
        }
    }
}

/// The state a container is shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Creating,
    Running,
    CrashLoop,
    Exited,
    /// The last pull failed (waiting ErrImagePull).
    PullError,
    /// Waiting to pull again (waiting ImagePullBackOff).
    PullBackOff,
}

struct Kubelet {
    ctx: Arc<Context>,
    node: String,
    host_ip: String,
    pod_ip_prefix: String,
    next_ip: u32,
    pulled: HashSet<String>,
    pods: HashMap<String, Runtime>,
    /// Store key → uid of the pods bound here that it has seen (to find due and gone pods).
    keys: HashMap<ObjectKey, String>,
}

/// A number in 0..modulo derived from `seed` (stable pseudo-randomness for pull times).
fn spread(seed: &str, modulo: u64) -> u64 {
    let digest = Sha256::digest(seed.as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes) % modulo.max(1)
}

fn hex_digest(seed: &str) -> String {
    Sha256::digest(seed.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `nginx` → `docker.io/library/nginx:latest`, as container runtimes report images.
pub fn full_image(image: &str) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    let with_tag = if last.contains(':') || image.contains('@') {
        image.to_string()
    } else {
        format!("{image}:latest")
    };
    let first = image.split('/').next().unwrap_or_default();
    if !image.contains('/') {
        format!("docker.io/library/{with_tag}")
    } else if first.contains('.') || first.contains(':') || first == "localhost" {
        with_tag
    } else {
        format!("docker.io/{with_tag}")
    }
}

pub fn image_id(image: &str) -> String {
    let full = full_image(image);
    let repo = full.split([':', '@']).next().unwrap_or(&full).to_string();
    format!("{repo}@sha256:{}", hex_digest(&full))
}

pub fn is_crashing_image(image: &str) -> bool {
    image.contains("crash")
}

/// An image no registry has: its pulls fail with containerd's "not found".
pub fn is_missing_image(image: &str) -> bool {
    image.contains("doesnotexist")
}

/// An image whose readiness probe (if it has one) never passes.
pub fn is_unready_image(image: &str) -> bool {
    image.contains("unready")
}

/// The image as the kubelet names it in pull messages: with the default tag `latest` added
/// when it has neither tag nor digest (the kubelet's `applyDefaultImageTag`), not qualified.
fn image_with_tag(image: &str) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    if last.contains(':') || image.contains('@') {
        image.to_string()
    } else {
        format!("{image}:latest")
    }
}

/// What containerd answers for a missing image, as the kubelet wraps it (the gRPC status).
fn pull_error(image: &str) -> String {
    let full = full_image(image);
    format!(
        "rpc error: code = NotFound desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": {full}: not found"
    )
}

fn has_missing_image(pod: &Value) -> bool {
    containers(pod).iter().any(|(_, i)| is_missing_image(i))
}

/// The containers whose readiness probe fails, with the probe's failure output.
fn failing_readiness_probes(pod: &Value, pod_ip: &str) -> Vec<(String, String)> {
    pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["image"].as_str().is_some_and(is_unready_image))
        .filter(|c| c["readinessProbe"].is_object())
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                probe_failure(c, pod_ip),
            )
        })
        .collect()
}

/// The prober's output for a failed probe of `container`, by the probe's kind (an exec
/// probe's is its command's output, empty here).
fn probe_failure(container: &Value, pod_ip: &str) -> String {
    let probe = &container["readinessProbe"];
    // A named port is the container's port of that name, as the prober resolves it.
    let port = |handler: &Value| match &handler["port"] {
        Value::String(name) => container["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"] == name.as_str())
            .map(|p| p["containerPort"].to_string())
            .unwrap_or_else(|| name.clone()),
        number => number.to_string(),
    };
    if probe["httpGet"].is_object() {
        "HTTP probe failed with statuscode: 503".to_string()
    } else if probe["tcpSocket"].is_object() {
        format!(
            "dial tcp {pod_ip}:{}: connect: connection refused",
            port(&probe["tcpSocket"])
        )
    } else if probe["grpc"].is_object() {
        format!(
            "timeout: failed to connect service \"{pod_ip}:{}\" within 1s",
            port(&probe["grpc"])
        )
    } else {
        String::new()
    }
}

/// The spec of the pod's container `name`.
fn container_spec<'a>(pod: &'a Value, name: &str) -> Option<&'a Value> {
    pod["spec"]["containers"]
        .as_array()?
        .iter()
        .find(|c| c["name"] == name)
}

/// A readiness probe's period (the API's default: 10 s).
fn probe_period_seconds(pod: &Value, container: &str) -> f64 {
    container_spec(pod, container)
        .and_then(|c| c["readinessProbe"]["periodSeconds"].as_f64())
        .unwrap_or(10.0)
        .max(1.0)
}

fn containers(pod: &Value) -> Vec<(String, String)> {
    pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                c["image"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn has_crashing_container(pod: &Value) -> bool {
    containers(pod).iter().any(|(_, i)| is_crashing_image(i))
}

/// Simulated run time of a run-to-completion pod: `sleep N` in its command, else a default.
pub fn run_seconds(pod: &Value) -> f64 {
    let words: Vec<String> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| {
            ["command", "args"].into_iter().flat_map(move |f| {
                c[f].as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|w| w.as_str())
                    .flat_map(|w| w.split_whitespace())
                    .map(|w| {
                        w.trim_matches(|ch: char| ch == ';' || ch == '\'' || ch == '"')
                            .to_string()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    words
        .windows(2)
        .find(|w| w[0] == "sleep")
        .and_then(|w| w[1].parse::<f64>().ok())
        .unwrap_or(DEFAULT_RUN_SECONDS)
        .max(0.5)
}

fn restarts_always(pod: &Value) -> bool {
    pod["spec"]["restartPolicy"].as_str().unwrap_or("Always") == "Always"
}

fn restarts_on_failure(pod: &Value) -> bool {
    pod["spec"]["restartPolicy"].as_str().unwrap_or("Always") != "Never"
}

/// CrashLoopBackOff delay after `restarts` exits, and the image pull back-off after as many
/// failed pulls (the kubelet's two back-offs have the same shape): 10 s doubling up to 5 min.
fn back_off_seconds(restarts: i64) -> f64 {
    let exponent = (restarts - 1).clamp(0, 5) as i32;
    (10.0 * 2f64.powi(exponent)).min(300.0)
}

impl Kubelet {
    fn new(ctx: Arc<Context>, node: &str) -> Self {
        let node_obj = ctx
            .registry
            .get(&ctx.def("", "nodes"), "", node)
            .unwrap_or(Value::Null);
        let host_ip = internal_ip(&node_obj).unwrap_or("172.18.0.2").to_string();
        // "10.244.1.0/24" → "10.244.1."
        let pod_ip_prefix = node_obj["spec"]["podCIDR"]
            .as_str()
            .and_then(|cidr| cidr.split('/').next())
            .and_then(|ip| ip.rsplit_once('.'))
            .map(|(prefix, _)| format!("{prefix}."))
            .unwrap_or_else(|| "10.244.0.".into());
        Kubelet {
            ctx,
            node: node.to_string(),
            host_ip,
            pod_ip_prefix,
            next_ip: 2,
            pulled: HashSet::new(),
            pods: HashMap::new(),
            keys: HashMap::new(),
        }
    }

    fn record(&self, pod: &Value, container: &str, spec: EventSpec) {
        self.ctx.recorder.record(
            pod,
            spec.by(COMPONENT, MANAGER)
                .on_host(&self.node)
                .at_field(format!("spec.containers{{{container}}}")),
        );
    }

    fn allocate_ip(&mut self) -> String {
        let ip = format!("{}{}", self.pod_ip_prefix, self.next_ip);
        self.next_ip = if self.next_ip >= 254 {
            2
        } else {
            self.next_ip + 1
        };
        ip
    }

    /// One pass over this node's pods; returns when the next timer fires.
    fn sync(&mut self) -> Option<Duration> {
        let mine: Vec<ObjectRef> = self.ctx.registry.store.pods_on_node(&self.node);
        let present: HashSet<String> = mine.iter().map(|p| uid_of(p).to_string()).collect();
        self.pods.retain(|uid, _| present.contains(uid));
        self.keys = mine
            .iter()
            .map(|p| (pod_key(p), uid_of(p).to_string()))
            .collect();
        for pod in &mine {
            self.sync_pod(pod);
        }
        self.next_due()
    }

    /// A pass over the pods that changed and those whose timer is due.
    fn sync_changes(&mut self, batch: Batch) -> Option<Duration> {
        let now = Instant::now();
        let mut todo: BTreeSet<ObjectKey> = batch
            .keys
            .into_iter()
            .filter(|k| k.resource == "pods")
            .collect();
        for (key, uid) in &self.keys {
            if self
                .pods
                .get(uid)
                .and_then(Runtime::next_timer)
                .is_some_and(|due| due <= now)
            {
                todo.insert(key.clone());
            }
        }
        for key in todo {
            let pod = self
                .ctx
                .registry
                .store
                .get_ref(&key)
                .filter(|p| p["spec"]["nodeName"].as_str() == Some(self.node.as_str()));
            let uid = pod.as_ref().map(|p| uid_of(p).to_string());
            // Gone (or replaced by a namesake): forget the old one.
            if let Some(old) = self
                .keys
                .get(&key)
                .filter(|old| Some(*old) != uid.as_ref())
                .cloned()
            {
                self.pods.remove(&old);
                self.keys.remove(&key);
            }
            if let (Some(pod), Some(uid)) = (pod, uid) {
                self.keys.insert(key, uid);
                self.sync_pod(&pod);
            }
        }
        self.next_due()
    }

    /// How long until the next timer of a pod fires.
    fn next_due(&self) -> Option<Duration> {
        let now = Instant::now();
        self.pods
            .values()
            .filter_map(Runtime::next_timer)
            .min()
            .map(|due| due.saturating_duration_since(now))
    }

    fn sync_pod(&mut self, pod: &Value) {
        let uid = uid_of(pod).to_string();
        let Some(mut rt) = self.pods.get(&uid).cloned() else {
            self.admit(pod);
            return;
        };
        if is_deleting(pod) && rt.stage != Stage::Terminating {
            self.start_termination(pod, &mut rt);
        }
        if rt.next_probe.is_some_and(|due| due <= Instant::now()) {
            self.probe_readiness(pod, &mut rt);
        }
        if rt.due.is_some_and(|due| due <= Instant::now()) {
            rt.due = None;
            match rt.stage {
                Stage::Pulling if has_missing_image(pod) => self.pull_failed(pod, &mut rt),
                Stage::Pulling => self.start_containers(pod, &mut rt, true),
                Stage::PullFailed => self.report_pull_back_off(pod, &mut rt),
                Stage::PullBackOff => self.pull_again(pod, &mut rt),
                Stage::Running => self.containers_exited(pod, &mut rt),
                Stage::BackOff => self.start_containers(pod, &mut rt, false),
                Stage::Terminating => {
                    self.finish_termination(pod);
                    self.pods.remove(&uid);
                    return;
                }
                Stage::Completed => {}
            }
        }
        self.pods.insert(uid, rt);
    }

    /// A pod seen for the first time: start it, or adopt it after a restart of the simulation.
    fn admit(&mut self, pod: &Value) {
        let uid = uid_of(pod).to_string();
        let status = &pod["status"];
        let mut rt = Runtime {
            stage: Stage::Pulling,
            due: None,
            pod_ip: status["podIP"]
                .as_str()
                .map(String::from)
                .unwrap_or_default(),
            start_time: status["startTime"]
                .as_str()
                .map(String::from)
                .unwrap_or_else(now),
            started_at: now(),
            restarts: status["containerStatuses"][0]["restartCount"]
                .as_i64()
                .unwrap_or(0),
            last_terminated: None,
            failed_pulls: 0,
            next_probe: None,
        };
        if is_deleting(pod) {
            // Nothing runs for it here: finish the deletion right away.
            self.finish_termination(pod);
            return;
        }
        if is_pod_terminal(pod) {
            rt.stage = Stage::Completed;
            self.pods.insert(uid, rt);
            return;
        }
        if status["phase"] == "Running" && !rt.pod_ip.is_empty() {
            rt.stage = Stage::Running;
            rt.due = self.exit_timer(pod);
            rt.next_probe = self.first_probe(pod, &rt);
            self.pods.insert(uid, rt);
            return;
        }
        rt.pod_ip = self.allocate_ip();
        self.write_status(pod, &rt, "Pending", |_| Shown::Creating);
        let mut slowest = 0.2f64;
        for (name, image) in containers(pod) {
            if self.pulled.contains(&image) && pod_pull_policy(pod, &name) != "Always" {
                continue;
            }
            self.record_pulling(pod, &name, &image);
            slowest = slowest.max(pull_seconds(&uid, &image));
        }
        rt.due = Some(Instant::now() + self.ctx.scaled(slowest));
        self.pods.insert(uid, rt);
    }

    /// When the running containers exit on their own, if ever.
    fn exit_timer(&self, pod: &Value) -> Option<Instant> {
        let seconds = if has_crashing_container(pod) {
            CRASH_AFTER_SECONDS
        } else if !restarts_always(pod) {
            run_seconds(pod)
        } else {
            return None;
        };
        Some(Instant::now() + self.ctx.scaled(seconds))
    }

    /// Pulled (first start only) / Created / Started, then phase Running.
    fn start_containers(&mut self, pod: &Value, rt: &mut Runtime, first: bool) {
        let uid = uid_of(pod).to_string();
        for (name, image) in containers(pod) {
            let restarting = !first && !is_crashing_image(&image);
            if restarting {
                continue;
            }
            let tagged = image_with_tag(&image);
            let message = if first && !self.pulled.contains(&image) {
                let seconds = pull_seconds(&uid, &image);
                let size = 10_000_000 + spread(&image, 190_000_000);
                format!("Successfully pulled image \"{tagged}\" in {seconds:.3}s ({seconds:.3}s including waiting). Image size: {size} bytes.")
            } else {
                format!("Container image \"{tagged}\" already present on machine")
            };
            self.pulled.insert(image.clone());
            self.record(pod, &name, EventSpec::normal("Pulled", message));
            self.record(
                pod,
                &name,
                EventSpec::normal("Created", format!("Created container: {name}")),
            );
            self.record(
                pod,
                &name,
                EventSpec::normal("Started", format!("Started container {name}")),
            );
        }
        rt.stage = Stage::Running;
        rt.started_at = now();
        rt.due = self.exit_timer(pod);
        rt.next_probe = self.first_probe(pod, rt);
        self.write_status(pod, rt, "Running", |_| Shown::Running);
    }

    fn record_pulling(&self, pod: &Value, container: &str, image: &str) {
        self.record(
            pod,
            container,
            EventSpec::normal(
                "Pulling",
                format!("Pulling image \"{}\"", image_with_tag(image)),
            ),
        );
    }

    /// The pull of a missing image failed: the image manager's Failed Event with
    /// containerd's words, then the container manager's "Error: ErrImagePull".
    fn pull_failed(&mut self, pod: &Value, rt: &mut Runtime) {
        self.record_for_missing_images(pod, |image| {
            [
                EventSpec::warning(
                    "Failed",
                    format!("Failed to pull image \"{image}\": {}", pull_error(image)),
                ),
                EventSpec::warning("Failed", "Error: ErrImagePull"),
            ]
        });
        rt.failed_pulls += 1;
        rt.stage = Stage::PullFailed;
        rt.due = Some(Instant::now() + self.ctx.scaled(PULL_ERROR_SHOWN_SECONDS));
        self.write_status(pod, rt, "Pending", pull_view(Shown::PullError));
    }

    /// The next sync finds the image in back-off: a Normal BackOff Event (the image
    /// manager's), then "Error: ImagePullBackOff"; the next pull after the back-off.
    fn report_pull_back_off(&mut self, pod: &Value, rt: &mut Runtime) {
        self.record_for_missing_images(pod, |image| {
            [
                EventSpec::normal("BackOff", format!("Back-off pulling image \"{image}\"")),
                EventSpec::warning("Failed", "Error: ImagePullBackOff"),
            ]
        });
        rt.stage = Stage::PullBackOff;
        rt.due = Some(Instant::now() + self.ctx.scaled(back_off_seconds(rt.failed_pulls)));
        self.write_status(pod, rt, "Pending", pull_view(Shown::PullBackOff));
    }

    /// Records, for each container whose image is missing, the Events `events` makes of the
    /// image (named with its default tag, as the kubelet names it).
    fn record_for_missing_images(&self, pod: &Value, events: impl Fn(&str) -> [EventSpec; 2]) {
        for (name, image) in containers(pod) {
            if is_missing_image(&image) {
                for spec in events(&image_with_tag(&image)) {
                    self.record(pod, &name, spec);
                }
            }
        }
    }

    /// The back-off is over: pull again (and fail again, after a pull's time).
    fn pull_again(&mut self, pod: &Value, rt: &mut Runtime) {
        let uid = uid_of(pod).to_string();
        let mut slowest = 0.2f64;
        for (name, image) in containers(pod) {
            if is_missing_image(&image) {
                self.record_pulling(pod, &name, &image);
                slowest = slowest.max(pull_seconds(&uid, &image));
            }
        }
        rt.stage = Stage::Pulling;
        rt.due = Some(Instant::now() + self.ctx.scaled(slowest));
    }

    /// When a failing readiness probe first runs: after its `initialDelaySeconds`.
    fn first_probe(&self, pod: &Value, rt: &Runtime) -> Option<Instant> {
        let (container, _) = failing_readiness_probes(pod, &rt.pod_ip)
            .into_iter()
            .next()?;
        let delay = container_spec(pod, &container)
            .and_then(|c| c["readinessProbe"]["initialDelaySeconds"].as_f64())
            .unwrap_or(0.0);
        Some(Instant::now() + self.ctx.scaled(delay.max(0.5)))
    }

    /// A failing readiness probe ran: the prober's Unhealthy Event (aggregated into a count
    /// as it repeats), and the next run a period later.
    fn probe_readiness(&mut self, pod: &Value, rt: &mut Runtime) {
        let failing = failing_readiness_probes(pod, &rt.pod_ip);
        let mut period = f64::MAX;
        for (container, output) in &failing {
            self.record(
                pod,
                container,
                EventSpec::warning("Unhealthy", format!("Readiness probe failed: {output}")),
            );
            period = period.min(probe_period_seconds(pod, container));
        }
        rt.next_probe = (!failing.is_empty()).then(|| Instant::now() + self.ctx.scaled(period));
    }

    /// The timer of a running pod fired: crashing containers exit 1, finite pods complete.
    fn containers_exited(&mut self, pod: &Value, rt: &mut Runtime) {
        let finished_at = now();
        rt.next_probe = None;
        let crashing_name = containers(pod)
            .into_iter()
            .find(|(_, image)| is_crashing_image(image))
            .map(|(name, _)| name);
        if let Some(crashing_name) = crashing_name {
            rt.last_terminated = Some(json!({"terminated": {
                "exitCode": 1, "reason": "Error", "startedAt": rt.started_at, "finishedAt": finished_at,
                "containerID": container_id(pod, &crashing_name, rt.restarts)}}));
            if restarts_on_failure(pod) {
                rt.restarts += 1;
                rt.stage = Stage::BackOff;
                let delay = back_off_seconds(rt.restarts);
                rt.due = Some(Instant::now() + self.ctx.scaled(delay));
                for (name, image) in containers(pod) {
                    if is_crashing_image(&image) {
                        self.record(
                            pod,
                            &name,
                            EventSpec::warning(
                                "BackOff",
                                format!(
                                    "Back-off restarting failed container {name} in pod {}_{}({})",
                                    name_of(pod),
                                    namespace_of(pod),
                                    uid_of(pod)
                                ),
                            ),
                        );
                    }
                }
                self.write_status(pod, rt, "Running", |image| {
                    if is_crashing_image(image) {
                        Shown::CrashLoop
                    } else {
                        Shown::Running
                    }
                });
                return;
            }
            rt.stage = Stage::Completed;
            self.write_status(pod, rt, "Failed", |_| Shown::Exited);
            return;
        }
        rt.stage = Stage::Completed;
        self.write_status(pod, rt, "Succeeded", |_| Shown::Exited);
    }

    fn start_termination(&mut self, pod: &Value, rt: &mut Runtime) {
        if matches!(rt.stage, Stage::Running | Stage::BackOff) {
            for (name, _) in containers(pod) {
                self.record(
                    pod,
                    &name,
                    EventSpec::normal("Killing", format!("Stopping container {name}")),
                );
            }
        }
        let grace = pod["metadata"]["deletionGracePeriodSeconds"]
            .as_i64()
            .unwrap_or(30) as f64;
        let stop = if rt.stage == Stage::Running {
            grace.min(MAX_STOP_SECONDS)
        } else {
            0.1
        };
        rt.stage = Stage::Terminating;
        rt.next_probe = None;
        rt.due = Some(Instant::now() + self.ctx.scaled(stop));
    }

    /// The final DELETE with grace 0 and a uid precondition, as the kubelet's status manager.
    fn finish_termination(&self, pod: &Value) {
        let _ = self.ctx.registry.delete(
            &self.ctx.def("", "pods"),
            namespace_of(pod),
            name_of(pod),
            &DeleteOptions {
                grace_period_seconds: Some(0),
                precondition_uid: Some(uid_of(pod).to_string()),
                ..Default::default()
            },
        );
    }

    fn write_status(&self, pod: &Value, rt: &Runtime, phase: &str, shown: impl Fn(&str) -> Shown) {
        let time = now();
        let mut statuses = vec![];
        let mut unready = vec![];
        // A failed pull comes after the sandbox (and its IP) was set up.
        let mut sandbox_up = false;
        for (name, image) in containers(pod) {
            let crashing = is_crashing_image(&image);
            let probed_unready = is_unready_image(&image)
                && container_spec(pod, &name).is_some_and(|c| c["readinessProbe"].is_object());
            let view = shown(&image);
            let pulled = !matches!(
                view,
                Shown::Creating | Shown::PullError | Shown::PullBackOff
            );
            sandbox_up |= matches!(view, Shown::PullError | Shown::PullBackOff);
            let restarts = if crashing { rt.restarts } else { 0 };
            let id = container_id(pod, &name, restarts);
            let succeeded = phase == "Succeeded" || !crashing;
            let (state, ready, started) = match view {
                Shown::Creating => (
                    json!({"waiting": {"reason": "ContainerCreating"}}),
                    false,
                    false,
                ),
                // A crashing container is up but never becomes ready, nor one whose
                // readiness probe fails.
                Shown::Running => (
                    json!({"running": {"startedAt": rt.started_at}}),
                    !crashing && !probed_unready,
                    true,
                ),
                Shown::PullError => (
                    json!({"waiting": {"reason": "ErrImagePull",
                        "message": pull_error(&image_with_tag(&image))}}),
                    false,
                    false,
                ),
                // The back-off's message carries the last pull's error, as the kubelet's
                // image manager wraps it.
                Shown::PullBackOff => {
                    let tagged = image_with_tag(&image);
                    (
                        json!({"waiting": {"reason": "ImagePullBackOff",
                            "message": format!("Back-off pulling image \"{tagged}\": ErrImagePull: {}", pull_error(&tagged))}}),
                        false,
                        false,
                    )
                }
                Shown::CrashLoop => (
                    json!({"waiting": {"reason": "CrashLoopBackOff",
                    "message": format!("back-off {}s restarting failed container={name} pod={}_{}({})",
                        back_off_seconds(rt.restarts), name_of(pod), namespace_of(pod), uid_of(pod))}}),
                    false,
                    false,
                ),
                Shown::Exited => {
                    let (code, reason) = if succeeded {
                        (0, "Completed")
                    } else {
                        (1, "Error")
                    };
                    (
                        json!({"terminated": {"exitCode": code, "reason": reason, "startedAt": rt.started_at,
                        "finishedAt": time, "containerID": id}}),
                        false,
                        false,
                    )
                }
            };
            if !ready {
                unready.push(name.clone());
            }
            // An image never pulled is reported as the spec names it (no runtime has it).
            let reported_image = if matches!(view, Shown::PullError | Shown::PullBackOff) {
                image.clone()
            } else {
                full_image(&image)
            };
            let mut status = json!({
                "name": name, "image": reported_image, "imageID": "", "ready": ready,
                "restartCount": restarts, "started": started, "state": state, "lastState": {},
            });
            if pulled {
                status["imageID"] = json!(image_id(&image));
                status["containerID"] = json!(id);
            }
            if crashing {
                if let Some(last) = &rt.last_terminated {
                    status["lastState"] = last.clone();
                }
            }
            statuses.push(status);
        }
        let completed = matches!(phase, "Succeeded" | "Failed");
        let creating = phase == "Pending";
        let all_ready = unready.is_empty();
        let not_ready = |kind: &str| {
            if completed {
                json!({"reason": "PodCompleted"})
            } else {
                json!({"reason": "ContainersNotReady",
                       "message": format!("{kind} with unready status: [{}]", unready.join(" "))})
            }
        };
        let mut conditions = pod["status"]["conditions"].clone();
        let bool_text = |b: bool| if b { "True" } else { "False" };
        for (ty, ok, extra) in [
            (
                "PodReadyToStartContainers",
                (!creating || sandbox_up) && !completed,
                json!({}),
            ),
            ("Initialized", true, json!({})),
            (
                "Ready",
                all_ready,
                if all_ready {
                    json!({})
                } else {
                    not_ready("containers")
                },
            ),
            (
                "ContainersReady",
                all_ready,
                if all_ready {
                    json!({})
                } else {
                    not_ready("containers")
                },
            ),
            ("PodScheduled", true, json!({})),
        ] {
            let mut extra = extra;
            extra["lastProbeTime"] = Value::Null;
            conditions = set_condition(&conditions, ty, bool_text(ok), extra, &time);
        }
        let mut status = json!({
            "phase": phase, "conditions": conditions,
            "hostIP": self.host_ip, "hostIPs": [{"ip": self.host_ip}],
            "startTime": rt.start_time, "containerStatuses": statuses,
            "qosClass": pod["status"]["qosClass"].as_str().unwrap_or("BestEffort"),
        });
        if !creating || sandbox_up {
            status["podIP"] = json!(rt.pod_ip);
            status["podIPs"] = json!([{"ip": rt.pod_ip}]);
        }
        let _ = self.ctx.registry.update_with(
            &self.ctx.def("", "pods"),
            namespace_of(pod),
            name_of(pod),
            &writer(MANAGER, "status"),
            |current| {
                current["status"] = status.clone();
                Ok(())
            },
        );
    }
}

/// How a pod with a missing image is shown: its missing images as `failed`, the others still
/// being created.
fn pull_view(failed: Shown) -> impl Fn(&str) -> Shown {
    move |image| {
        if is_missing_image(image) {
            failed
        } else {
            Shown::Creating
        }
    }
}

fn pod_pull_policy(pod: &Value, container: &str) -> String {
    container_spec(pod, container)
        .and_then(|c| c["imagePullPolicy"].as_str())
        .unwrap_or("IfNotPresent")
        .to_string()
}

/// Simulated pull time between 1 and 3 seconds.
fn pull_seconds(uid: &str, image: &str) -> f64 {
    1.0 + spread(&format!("{uid}/{image}"), 2000) as f64 / 1000.0
}

fn container_id(pod: &Value, container: &str, restarts: i64) -> String {
    format!(
        "containerd://{}",
        hex_digest(&format!("{}/{container}/{restarts}", uid_of(pod)))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_reported_fully_qualified() {
        assert_eq!(full_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(full_image("nginx:1.27"), "docker.io/library/nginx:1.27");
        assert_eq!(
            full_image("bitnami/redis"),
            "docker.io/bitnami/redis:latest"
        );
        assert_eq!(full_image("ghcr.io/x/y:2"), "ghcr.io/x/y:2");
        assert!(image_id("nginx").starts_with("docker.io/library/nginx@sha256:"));
    }

    #[test]
    fn run_time_comes_from_sleep_in_the_command() {
        let pod = json!({"spec": {"containers": [{"command": ["sh", "-c", "echo hi; sleep 7"]}]}});
        assert_eq!(run_seconds(&pod), 7.0);
        assert_eq!(run_seconds(&json!({"spec": {}})), DEFAULT_RUN_SECONDS);
    }

    #[test]
    fn back_off_doubles_up_to_five_minutes() {
        assert_eq!(back_off_seconds(1), 10.0);
        assert_eq!(back_off_seconds(3), 40.0);
        assert_eq!(back_off_seconds(20), 300.0);
    }
}
