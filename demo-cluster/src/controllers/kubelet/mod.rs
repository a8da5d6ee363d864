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
//!
//! By concern: [`node`] registers the Node and keeps its heartbeat and Lease, [`images`] pulls
//! (and fails to pull) images, [`probes`] runs failing readiness probes, [`pods`] moves each pod
//! through its stages, [`status`] writes the pod status those stages show.

mod images;
mod node;
mod pods;
mod probes;
mod status;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::task::JoinHandle;

use super::events::EventSpec;
use super::{pod_key, spawn_queue_loop, uid_of, Batch, Changes, Context};
use crate::storage::object::{ObjectKey, ObjectRef};
pub use images::{full_image, image_id, is_crashing_image, is_missing_image, is_unready_image};
use node::internal_ip;
pub use node::{node_labels, node_status, post_node_status, register_node, renew_lease};
pub use pods::run_seconds;
use pods::Runtime;

pub const COMPONENT: &str = "kubelet";

const MANAGER: &str = "kubelet";

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
}
