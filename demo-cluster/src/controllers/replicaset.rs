//! The ReplicaSet controller (`replicaset-controller`): keeps `spec.replicas` pods per
//! ReplicaSet, created from its template with a controller owner reference.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::events::EventSpec;
use super::{
    claim, controller_ref, controller_uid, is_deleting, is_pod_ready, is_pod_terminal, name_of,
    namespace_of, spawn_loop, uid_of, writer, Changes, Context, BURST_REPLICAS, CONTROLLER_MANAGER,
};
use crate::registry::DeleteOptions;
use crate::storage::selectors::LabelSelector;

const COMPONENT: &str = "replicaset-controller";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::of(&ctx.registry, &[("apps", "replicasets"), ("", "pods")]);
    spawn_loop(changes, Duration::from_secs(30), move || {
        reconcile_all(&ctx);
        None
    })
}

/// Pods that count towards a controller: not terminal, not being deleted.
pub fn is_active(pod: &Value) -> bool {
    !is_pod_terminal(pod) && !is_deleting(pod)
}

/// Pods grouped by the uid of their controller.
pub fn pods_by_controller(ctx: &Context) -> HashMap<String, Vec<Value>> {
    let (pods, _) = ctx.registry.list_shared(&ctx.def("", "pods"), None);
    let mut by_owner: HashMap<String, Vec<Value>> = HashMap::new();
    for pod in pods {
        if let Some(uid) = controller_uid(&pod) {
            by_owner
                .entry(uid.to_string())
                .or_default()
                .push(pod.value().clone());
        }
    }
    by_owner
}

pub fn reconcile_all(ctx: &Context) {
    let (sets, _) = ctx.registry.list(&ctx.def("apps", "replicasets"), None);
    let mut pods = pods_by_controller(ctx);
    let pods_def = ctx.def("", "pods");
    // Only orphans in a namespace with a ReplicaSet can be adopted (copied only then).
    let namespaces: HashSet<&str> = sets.iter().map(namespace_of).collect();
    let mut orphans: Vec<Value> = ctx
        .registry
        .list_shared(&pods_def, None)
        .0
        .iter()
        .filter(|p| {
            namespaces.contains(namespace_of(p)) && controller_uid(p).is_none() && is_active(p)
        })
        .map(|p| p.value().clone())
        .collect();
    for rs in sets {
        let owned = pods.remove(uid_of(&rs)).unwrap_or_default();
        let owned = claim(ctx, &pods_def, &rs, owned, &mut orphans);
        sync_replica_set(ctx, &rs, owned);
    }
}

/// A pod for `owner` from `template` (ReplicaSets and Jobs), named `<owner>-<suffix>`.
pub fn pod_from_template(owner: &Value, template: &Value, extra_labels: &[(&str, &str)]) -> Value {
    let mut labels = template["metadata"]["labels"].clone();
    if !labels.is_object() {
        labels = json!({});
    }
    for (k, v) in extra_labels {
        labels[*k] = json!(v);
    }
    let mut metadata = json!({
        "generateName": format!("{}-", name_of(owner)),
        "namespace": namespace_of(owner),
        "labels": labels,
        "ownerReferences": [controller_ref(owner)],
    });
    if template["metadata"]["annotations"].is_object() {
        metadata["annotations"] = template["metadata"]["annotations"].clone();
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]})
}

/// Creates one pod and records `SuccessfulCreate` (or `FailedCreate`) on the owner.
pub fn create_pod(ctx: &Context, owner: &Value, pod: Value, component: &'static str) {
    let pods = ctx.def("", "pods");
    match ctx.registry.create(
        &pods,
        namespace_of(owner),
        pod,
        &writer(CONTROLLER_MANAGER, ""),
    ) {
        Ok(created) => ctx.recorder.record(
            owner,
            EventSpec::normal(
                "SuccessfulCreate",
                format!("Created pod: {}", name_of(&created)),
            )
            .by(component, CONTROLLER_MANAGER),
        ),
        Err(e) => ctx.recorder.record(
            owner,
            EventSpec::warning("FailedCreate", format!("Error creating: {}", e.message))
                .by(component, CONTROLLER_MANAGER),
        ),
    }
}

/// Scale-down order: unscheduled, then pending, then not ready, then the newest.
fn deletion_rank(pod: &Value) -> (u8, u8, u8, std::cmp::Reverse<String>) {
    let scheduled = pod["spec"]["nodeName"]
        .as_str()
        .is_some_and(|n| !n.is_empty());
    let running = pod["status"]["phase"] == "Running";
    let created = pod["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (
        u8::from(scheduled),
        u8::from(running),
        u8::from(is_pod_ready(pod)),
        std::cmp::Reverse(created),
    )
}

fn sync_replica_set(ctx: &Context, rs: &Value, owned: Vec<Value>) {
    if is_deleting(rs) {
        return;
    }
    let selector = LabelSelector::from_structured(&rs["spec"]["selector"]).ok();
    let mut active: Vec<Value> = owned.into_iter().filter(is_active).collect();
    let wanted = rs["spec"]["replicas"].as_i64().unwrap_or(1).max(0) as usize;
    if active.len() < wanted {
        for _ in active.len()..wanted.min(active.len() + BURST_REPLICAS) {
            let pod = pod_from_template(rs, &rs["spec"]["template"], &[]);
            create_pod(ctx, rs, pod, COMPONENT);
        }
    } else if active.len() > wanted {
        active.sort_by_key(deletion_rank);
        let surplus = (active.len() - wanted).min(BURST_REPLICAS);
        let pods = ctx.def("", "pods");
        for victim in active.drain(..surplus) {
            if ctx
                .registry
                .delete(
                    &pods,
                    namespace_of(&victim),
                    name_of(&victim),
                    &DeleteOptions::default(),
                )
                .is_ok()
            {
                ctx.recorder.record(
                    rs,
                    EventSpec::normal(
                        "SuccessfulDelete",
                        format!("Deleted pod: {}", name_of(&victim)),
                    )
                    .by(COMPONENT, CONTROLLER_MANAGER),
                );
            }
        }
    }
    // Status from the pods as they are now (created pods show up on the next round).
    let (pods_now, _) = ctx
        .registry
        .list_shared(&ctx.def("", "pods"), Some(namespace_of(rs)));
    let mine: Vec<&Value> = pods_now
        .iter()
        .map(|p| p.value())
        .filter(|p| controller_uid(p) == Some(uid_of(rs)) && is_active(p))
        .collect();
    let ready = mine.iter().filter(|p| is_pod_ready(p)).count();
    let labeled = mine
        .iter()
        .filter(|p| selector.as_ref().is_none_or(|s| s.matches(p)))
        .count();
    let status = json!({
        "replicas": mine.len(),
        "fullyLabeledReplicas": labeled,
        "readyReplicas": ready,
        "availableReplicas": ready,
        "observedGeneration": rs["metadata"]["generation"],
    });
    if rs["status"] != status {
        let _ = ctx.registry.update_with(
            &ctx.def("apps", "replicasets"),
            namespace_of(rs),
            name_of(rs),
            &writer(CONTROLLER_MANAGER, "status"),
            |current| {
                current["status"] = status.clone();
                Ok(())
            },
        );
    }
}
