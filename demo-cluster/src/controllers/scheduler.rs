//! The scheduler (`default-scheduler`): binds pending pods to the least-loaded Ready node
//! through `pods/binding`, or reports `FailedScheduling` when no node is Ready.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::events::EventSpec;
use super::{
    condition_true, is_deleting, is_pod_terminal, name_of, namespace_of, pod_key, set_condition,
    spawn_queue_loop, writer, Batch, Changes, Context,
};
use crate::registry::now;
use crate::storage::object::ObjectKey;

pub const COMPONENT: &str = "default-scheduler";
pub const MANAGER: &str = "kube-scheduler";
/// How long kube-scheduler keeps a pod among the unschedulable before trying it again
/// without a cluster change (`podMaxInUnschedulablePodsDuration`).
const UNSCHEDULABLE_RETRY_SECONDS: f64 = 300.0;

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::of(&ctx.registry, &[("", "pods"), ("", "nodes")]);
    let mut queue = Queue::default();
    spawn_queue_loop(changes, ctx.resync(), move |batch| {
        let unschedulable = queue.schedule(&ctx, batch);
        // Retry unschedulable pods a little later, as the scheduler's backoff queue does.
        unschedulable.then(|| ctx.scaled(5.0).max(Duration::from_millis(200)))
    })
}

/// The scheduler's view, kept from change batches: pods waiting for a node, and the node
/// each bound, running pod occupies (the load used to spread pods).
#[derive(Default)]
struct Queue {
    pending: BTreeSet<ObjectKey>,
    bound: HashMap<ObjectKey, String>,
    load: HashMap<String, usize>,
}

impl Queue {
    fn forget(&mut self, key: &ObjectKey) {
        self.pending.remove(key);
        if let Some(node) = self.bound.remove(key) {
            if let Some(count) = self.load.get_mut(&node) {
                *count = count.saturating_sub(1);
            }
        }
    }

    /// Records the current state of the pod at `key` (`None`: gone).
    fn update(&mut self, key: &ObjectKey, pod: Option<&Value>) {
        self.forget(key);
        let Some(pod) = pod else { return };
        if is_pod_terminal(pod) {
            return;
        }
        match pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
            Some(node) => {
                *self.load.entry(node.to_string()).or_default() += 1;
                self.bound.insert(key.clone(), node.to_string());
            }
            None if is_pending(pod) => {
                self.pending.insert(key.clone());
            }
            None => {}
        }
    }

    /// Takes in the changes, then tries every pending pod; returns whether some pod could not
    /// be scheduled.
    fn schedule(&mut self, ctx: &Context, batch: Batch) -> bool {
        if batch.full {
            *self = Queue::default();
            for pod in ctx.registry.list_shared(&ctx.def("", "pods"), None).0 {
                self.update(&pod_key(&pod), Some(&pod));
            }
        } else {
            for key in batch.keys.iter().filter(|k| k.resource == "pods") {
                let pod = ctx.registry.store.get_ref(key);
                self.update(key, pod.as_deref().map(|p| p.value()));
            }
        }
        if self.pending.is_empty() {
            return false;
        }
        let (nodes, _) = ctx.registry.list(&ctx.def("", "nodes"), None);
        let ready: Vec<&Value> = nodes.iter().filter(|n| is_node_ready(n)).collect();
        let mut load: HashMap<String, usize> = ready
            .iter()
            .map(|n| {
                let name = name_of(n);
                (name.to_string(), self.load.get(name).copied().unwrap_or(0))
            })
            .collect();
        let pending: Vec<ObjectKey> = self.pending.iter().cloned().collect();
        let mut unschedulable = false;
        for key in pending {
            // Bound pods leave the queue when their binding's change arrives.
            let Some(pod) = ctx.registry.store.get_ref(&key) else {
                self.forget(&key);
                continue;
            };
            if !is_pending(&pod) {
                continue;
            }
            if !schedule_one(ctx, &pod, &ready, &nodes, &mut load) {
                unschedulable = true;
            }
        }
        unschedulable
    }
}

/// Unbound, for this scheduler, and neither deleting nor finished.
fn is_pending(pod: &Value) -> bool {
    let unbound = pod["spec"]["nodeName"].as_str().is_none_or(str::is_empty);
    let ours = pod["spec"]["schedulerName"]
        .as_str()
        .is_none_or(|s| s == COMPONENT);
    unbound && ours && !is_deleting(pod) && !is_pod_terminal(pod)
}

/// Binds `pod` to the least loaded fitting node; returns false when none fits.
fn schedule_one(
    ctx: &Context,
    pod: &Value,
    ready: &[&Value],
    nodes: &[Value],
    load: &mut HashMap<String, usize>,
) -> bool {
    // Least loaded among the nodes matching spec.nodeSelector, ties broken by name, so
    // pods spread round-robin over equal nodes.
    let fits = |node: &str| {
        ready
            .iter()
            .find(|n| name_of(n) == node)
            .is_some_and(|n| matches_node_selector(pod, n))
    };
    let choice = load
        .iter()
        .filter(|(name, _)| fits(name))
        .min_by(|a, b| a.1.cmp(b.1).then_with(|| a.0.cmp(b.0)))
        .map(|(name, _)| name.clone());
    match choice {
        Some(node) => {
            bind(ctx, pod, &node, load);
            true
        }
        None => {
            report_unschedulable(ctx, pod, nodes);
            false
        }
    }
}

fn is_node_ready(node: &Value) -> bool {
    condition_true(node, "Ready") && node["spec"]["unschedulable"].as_bool() != Some(true)
}

/// Binds every pending pod it can (a full pass); returns whether some pod could not be
/// scheduled.
pub fn schedule_pending(ctx: &Context) -> bool {
    Queue::default().schedule(
        ctx,
        Batch {
            full: true,
            keys: Default::default(),
        },
    )
}

/// Every `spec.nodeSelector` entry is one of the node's labels.
fn matches_node_selector(pod: &Value, node: &Value) -> bool {
    pod["spec"]["nodeSelector"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| node["metadata"]["labels"][k] == *v)
}

fn bind(ctx: &Context, pod: &Value, node: &str, load: &mut HashMap<String, usize>) {
    let binding = json!({
        "apiVersion": "v1", "kind": "Binding",
        "metadata": {"name": name_of(pod), "namespace": namespace_of(pod)},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    });
    let bound = ctx.registry.bind_pod(
        namespace_of(pod),
        name_of(pod),
        &binding,
        &writer(MANAGER, "binding"),
    );
    if bound.is_ok() {
        if let Some(count) = load.get_mut(node) {
            *count += 1;
        }
        ctx.recorder.record(
            pod,
            EventSpec::normal(
                "Scheduled",
                format!(
                    "Successfully assigned {}/{} to {node}",
                    namespace_of(pod),
                    name_of(pod)
                ),
            )
            .by(COMPONENT, MANAGER)
            .with_action("Binding"),
        );
    }
}

fn report_unschedulable(ctx: &Context, pod: &Value, nodes: &[Value]) {
    let total = nodes.len();
    let cordoned = nodes
        .iter()
        .filter(|n| n["spec"]["unschedulable"].as_bool() == Some(true))
        .count();
    let mismatched = nodes
        .iter()
        .filter(|n| n["spec"]["unschedulable"].as_bool() != Some(true))
        .filter(|n| !matches_node_selector(pod, n))
        .count();
    let not_ready = total - cordoned - mismatched;
    let mut reasons = vec![];
    if mismatched > 0 {
        reasons.push(format!(
            "{mismatched} node(s) didn't match Pod's node affinity/selector"
        ));
    }
    if cordoned > 0 {
        reasons.push(format!("{cordoned} node(s) were unschedulable"));
    }
    if not_ready > 0 {
        reasons.push(format!(
            "{not_ready} node(s) had untolerated taint {{node.kubernetes.io/not-ready: }}"
        ));
    }
    // kube-scheduler's FitError sorts the "<count> <reason>" strings before joining them,
    // then adds what its PostFilter plugins said, in the default profile's order: dynamic
    // resources (on by default since v1.34) before preemption.
    reasons.sort();
    let message = format!(
        "0/{total} nodes are available: {}. no new claims to deallocate, preemption: 0/{total} nodes are available: {total} Preemption is not helpful for scheduling.",
        reasons.join(", ")
    );
    let time = now();
    let conditions = set_condition(
        &pod["status"]["conditions"],
        "PodScheduled",
        "False",
        json!({"lastProbeTime": null, "reason": "Unschedulable", "message": message,
               "observedGeneration": pod["metadata"]["generation"]}),
        &time,
    );
    if pod["status"]["conditions"] != conditions {
        let _ = ctx.registry.update_with(
            &ctx.def("", "pods"),
            namespace_of(pod),
            name_of(pod),
            &writer(MANAGER, "status"),
            |current| {
                current["status"]["conditions"] = conditions.clone();
                Ok(())
            },
        );
    }
    // This scheduler retries every few seconds (and on any pod change); kube-scheduler
    // parks an unschedulable pod until a node changes or five minutes pass, so its Event
    // repeats that often, not on every retry here.
    ctx.recorder.record_unless_within(
        pod,
        EventSpec::warning("FailedScheduling", message)
            .by(COMPONENT, MANAGER)
            .with_action("Scheduling"),
        ctx.scaled(UNSCHEDULABLE_RETRY_SECONDS),
    );
}
