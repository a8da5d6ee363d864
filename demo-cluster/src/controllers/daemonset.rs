//! The DaemonSet controller (`daemonset-controller`): one pod per Ready, schedulable node
//! matching the template's nodeSelector, bound to its node by the controller (node affinity
//! on `metadata.name`, as the real one sets, plus `spec.nodeName`, as the scheduler would
//! then bind it); surplus and misplaced pods deleted; RollingUpdate one pod at a time.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::deployment::{comparable_template, template_hash};
use super::events::EventSpec;
use super::replicaset::{
    active_pods_of, create_pod, is_active, pod_from_template, sync_pod_owners,
};
use super::revisions::REVISION_LABEL;
use super::{
    condition_true, is_deleting, is_pod_ready, is_pod_terminal, name_of, namespace_of,
    spawn_reconciler, write_status, Context, CONTROLLER_MANAGER,
};
use crate::registry::DeleteOptions;

const COMPONENT: &str = "daemonset-controller";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    spawn_reconciler(
        ctx,
        &[("apps", "daemonsets"), ("", "pods"), ("", "nodes")],
        reconcile_all,
    )
}

/// Syncs every DaemonSet.
pub fn reconcile_all(ctx: &Context) {
    let (nodes, _) = ctx.registry.list(&ctx.def("", "nodes"), None);
    sync_pod_owners(ctx, "apps", "daemonsets", |set, owned| {
        sync_daemon_set(ctx, set, &nodes, owned)
    });
}

/// Whether the set's pods belong on `node`: Ready, labels matching the template's
/// nodeSelector. A cordoned node keeps them (its daemon pods tolerate
/// `node.kubernetes.io/unschedulable`, and `kubectl drain` leaves them), as kube-controller-manager
/// does.
fn should_run_on(set: &Value, node: &Value) -> bool {
    let ready = condition_true(node, "Ready");
    let selected = set["spec"]["template"]["spec"]["nodeSelector"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| node["metadata"]["labels"][k] == *v);
    ready && selected && !is_deleting(node)
}

/// The tolerations the real controller adds to every daemon pod, so node conditions do not
/// evict them.
fn daemon_tolerations(template_spec: &Value) -> Value {
    let mut tolerations = template_spec["tolerations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let added = [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    for (key, effect) in added {
        if !tolerations.iter().any(|t| t["key"] == key) {
            tolerations.push(json!({"key": key, "operator": "Exists", "effect": effect}));
        }
    }
    Value::Array(tolerations)
}

fn pod_for(set: &Value, node: &str, revision: &str) -> Value {
    let generation = set["metadata"]["generation"]
        .as_i64()
        .unwrap_or(1)
        .to_string();
    let mut pod = pod_from_template(
        set,
        &set["spec"]["template"],
        &[
            (REVISION_LABEL, revision),
            ("pod-template-generation", &generation),
        ],
    );
    let spec = &mut pod["spec"];
    if !spec.is_object() {
        *spec = json!({});
    }
    spec["tolerations"] = daemon_tolerations(spec);
    spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json!({
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node]}
        ]}]
    });
    spec["nodeName"] = json!(node);
    pod
}

fn delete_pod(ctx: &Context, set: &Value, pod: &Value) {
    let deleted = ctx.registry.delete(
        &ctx.def("", "pods"),
        namespace_of(pod),
        name_of(pod),
        &DeleteOptions::default(),
    );
    if deleted.is_ok() {
        ctx.recorder.record(
            set,
            EventSpec::normal("SuccessfulDelete", format!("Deleted pod: {}", name_of(pod)))
                .by(COMPONENT, CONTROLLER_MANAGER),
        );
    }
}

fn node_of(pod: &Value) -> &str {
    pod["spec"]["nodeName"].as_str().unwrap_or_default()
}

fn sync_daemon_set(ctx: &Context, set: &Value, nodes: &[Value], owned: Vec<Value>) {
    if is_deleting(set) {
        return;
    }
    let revision = template_hash(&comparable_template(&set["spec"]["template"]));
    super::revisions::record(ctx, set, &format!("{}-{revision}", name_of(set)), &revision);
    let wanted: Vec<&str> = nodes
        .iter()
        .filter(|n| should_run_on(set, n))
        .map(name_of)
        .collect();
    let mut by_node: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
    for pod in &owned {
        // Failed daemon pods are replaced, as the real controller does.
        if is_pod_terminal(pod) && !is_deleting(pod) {
            delete_pod(ctx, set, pod);
        } else if is_active(pod) {
            by_node.entry(node_of(pod)).or_default().push(pod);
        }
    }
    for node in &wanted {
        match by_node.get(node).map(Vec::as_slice) {
            None | Some([]) => {
                create_pod(ctx, set, pod_for(set, node, &revision), COMPONENT);
            }
            Some([_, extra @ ..]) => {
                for pod in extra {
                    delete_pod(ctx, set, pod);
                }
            }
        }
    }
    for (node, pods) in &by_node {
        if !wanted.contains(node) {
            for pod in pods {
                delete_pod(ctx, set, pod);
            }
        }
    }
    rolling_update(ctx, set, &wanted, &by_node, &owned, &revision);
    update_status(ctx, set, &wanted, &revision);
}

/// RollingUpdate with the default `maxUnavailable: 1`: an outdated pod is replaced only when
/// every other daemon pod is ready (and none is terminating).
fn rolling_update(
    ctx: &Context,
    set: &Value,
    wanted: &[&str],
    by_node: &BTreeMap<&str, Vec<&Value>>,
    owned: &[Value],
    revision: &str,
) {
    if set["spec"]["updateStrategy"]["type"] == "OnDelete" || owned.iter().any(is_deleting) {
        return;
    }
    let placed: Vec<&Value> = wanted
        .iter()
        .filter_map(|node| by_node.get(node).and_then(|pods| pods.first().copied()))
        .collect();
    if placed.len() < wanted.len() || !placed.iter().all(|p| is_pod_ready(p)) {
        return;
    }
    if let Some(outdated) = placed
        .iter()
        .find(|p| p["metadata"]["labels"][REVISION_LABEL] != revision)
    {
        delete_pod(ctx, set, outdated);
    }
}

fn update_status(ctx: &Context, set: &Value, wanted: &[&str], revision: &str) {
    let owned = active_pods_of(ctx, set);
    let mine: Vec<&Value> = owned.iter().collect();
    let on_wanted: Vec<&Value> = wanted
        .iter()
        .filter_map(|node| mine.iter().copied().find(|p| node_of(p) == *node))
        .collect();
    let misscheduled = mine
        .iter()
        .filter(|p| !wanted.contains(&node_of(p)))
        .count();
    let ready = on_wanted.iter().filter(|p| is_pod_ready(p)).count();
    let updated = on_wanted
        .iter()
        .filter(|p| p["metadata"]["labels"][REVISION_LABEL] == revision)
        .count();
    let status = json!({
        "desiredNumberScheduled": wanted.len(),
        "currentNumberScheduled": on_wanted.len(),
        "numberMisscheduled": misscheduled,
        "numberReady": ready,
        "updatedNumberScheduled": updated,
        "numberAvailable": ready,
        "numberUnavailable": wanted.len() - ready,
        "observedGeneration": set["metadata"]["generation"],
    });
    write_status(ctx, &ctx.def("apps", "daemonsets"), set, status);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn daemon_pods_are_pinned_to_their_node_and_tolerate_node_conditions() {
        let set = json!({
            "metadata": {"name": "agent", "namespace": "kube-system", "uid": "u1", "generation": 2},
            "spec": {"template": {"metadata": {"labels": {"app": "agent"}},
                                  "spec": {"containers": [], "nodeSelector": {"role": "edge"}}}},
        });
        let pod = pod_for(&set, "node-1", "abc");
        assert_eq!(pod["spec"]["nodeName"], "node-1");
        assert_eq!(pod["metadata"]["labels"]["pod-template-generation"], "2");
        let terms = &pod["spec"]["affinity"]["nodeAffinity"]
            ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
        assert_eq!(terms[0]["matchFields"][0]["values"][0], "node-1");
        assert_eq!(pod["spec"]["tolerations"].as_array().map(Vec::len), Some(6));
        let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "True"}]}});
        let mut edge = ready.clone();
        edge["metadata"] = json!({"labels": {"role": "edge"}});
        assert!(should_run_on(&set, &edge));
        assert!(!should_run_on(&set, &ready));
        edge["spec"] = json!({"unschedulable": true});
        assert!(
            should_run_on(&set, &edge),
            "a cordoned node keeps its daemon pods"
        );
    }
}
