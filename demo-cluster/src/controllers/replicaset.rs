//! The ReplicaSet controller (`replicaset-controller`): keeps `spec.replicas` pods per
//! ReplicaSet, created from its template with a controller owner reference.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::events::EventSpec;
use super::{
    claim, controller_ref, controller_uid, current, is_deleting, is_pod_ready, is_pod_terminal,
    name_of, namespace_of, pod_key, spawn_queue_loop, uid_of, write_status, writer, Batch, Changes,
    Context, OwnerIndex, BURST_REPLICAS, CONTROLLER_MANAGER,
};
use crate::registry::DeleteOptions;
use crate::storage::object::ObjectKey;
use crate::storage::selectors::LabelSelector;

const COMPONENT: &str = "replicaset-controller";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::of(&ctx.registry, &[("apps", "replicasets"), ("", "pods")]);
    let mut index = OwnerIndex::default();
    spawn_queue_loop(changes, ctx.resync(), move |batch| {
        reconcile(&ctx, &mut index, batch);
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

/// Calls `sync` with every object of `group`/`resource` and the pods it controls (for the
/// controllers that reconcile all their objects each pass).
pub fn sync_pod_owners(
    ctx: &Context,
    group: &str,
    resource: &str,
    mut sync: impl FnMut(&Value, Vec<Value>),
) {
    let (owners, _) = ctx.registry.list_shared(&ctx.def(group, resource), None);
    if owners.is_empty() {
        return;
    }
    let mut pods = pods_by_controller(ctx);
    for owner in owners {
        sync(&owner, pods.remove(uid_of(&owner)).unwrap_or_default());
    }
}

/// The active pods `owner` controls now, read from the store.
pub fn active_pods_of(ctx: &Context, owner: &Value) -> Vec<Value> {
    let (pods, _) = ctx
        .registry
        .list_shared(&ctx.def("", "pods"), Some(namespace_of(owner)));
    pods.iter()
        .map(|p| p.value())
        .filter(|p| controller_uid(p) == Some(uid_of(owner)) && is_active(p))
        .cloned()
        .collect()
}

/// Reconciles every ReplicaSet (the periodic resync does the same through the index).
pub fn reconcile_all(ctx: &Context) {
    reconcile(
        ctx,
        &mut OwnerIndex::default(),
        Batch {
            full: true,
            keys: Default::default(),
        },
    );
}

/// Syncs the ReplicaSets that changed, whose pods changed, or that may adopt a changed
/// orphan; every one of them on a full pass.
fn reconcile(ctx: &Context, index: &mut OwnerIndex, batch: Batch) {
    // Shared, not copied: with thousands of ReplicaSets this runs on every pod change.
    let (sets, _) = ctx
        .registry
        .list_shared(&ctx.def("apps", "replicasets"), None);
    let pods_def = ctx.def("", "pods");
    let mut dirty_owners: HashSet<String> = HashSet::new();
    let mut rescan: HashSet<String> = HashSet::new();
    let mut changed_orphans: HashMap<String, Vec<ObjectKey>> = HashMap::new();
    if batch.full {
        index.rebuild(&ctx.registry.list_shared(&pods_def, None).0, pod_key);
        rescan.extend(sets.iter().map(|rs| uid_of(rs).to_string()));
    } else {
        for key in &batch.keys {
            match key.resource.as_str() {
                "pods" => {
                    let pod = ctx.registry.store.get_ref(key);
                    let (owners, orphan) = index.update(key, pod.as_deref().map(|p| p.value()));
                    dirty_owners.extend(owners);
                    if orphan {
                        changed_orphans
                            .entry(key.namespace.clone())
                            .or_default()
                            .push(key.clone());
                    }
                }
                _ => {
                    if let Some(rs) = ctx.registry.store.get_ref(key) {
                        rescan.insert(uid_of(&rs).to_string());
                    }
                }
            }
        }
    }
    for rs in sets {
        let uid = uid_of(&rs);
        let namespace = namespace_of(&rs);
        // A changed ReplicaSet looks at every orphan in its namespace, others only at the
        // orphans that changed (only those can have started to match).
        let candidates: Vec<&ObjectKey> = if rescan.contains(uid) {
            index.orphans_in(namespace).collect()
        } else {
            changed_orphans
                .get(namespace)
                .into_iter()
                .flatten()
                .collect()
        };
        let mut orphans: Vec<Value> = current(&ctx.registry, candidates)
            .iter()
            .filter(|p| controller_uid(p).is_none() && is_active(p))
            .map(|p| p.value().clone())
            .collect();
        if !rescan.contains(uid) && !dirty_owners.contains(uid) && orphans.is_empty() {
            continue;
        }
        let owned: Vec<Value> = current(&ctx.registry, index.owned(uid))
            .iter()
            .filter(|p| controller_uid(p) == Some(uid))
            .map(|p| p.value().clone())
            .collect();
        let owned = claim(ctx, &pods_def, &rs, owned, &mut orphans);
        sync_replica_set(ctx, index, &rs, owned);
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
/// Returns the created pod.
pub fn create_pod(
    ctx: &Context,
    owner: &Value,
    pod: Value,
    component: &'static str,
) -> Option<Value> {
    let pods = ctx.def("", "pods");
    match ctx.registry.create(
        &pods,
        namespace_of(owner),
        pod,
        &writer(CONTROLLER_MANAGER, ""),
    ) {
        Ok(created) => {
            ctx.recorder.record(
                owner,
                EventSpec::normal(
                    "SuccessfulCreate",
                    format!("Created pod: {}", name_of(&created)),
                )
                .by(component, CONTROLLER_MANAGER),
            );
            Some(created)
        }
        Err(e) => {
            ctx.recorder.record(
                owner,
                EventSpec::warning("FailedCreate", format!("Error creating: {}", e.message))
                    .by(component, CONTROLLER_MANAGER),
            );
            None
        }
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

fn sync_replica_set(ctx: &Context, index: &OwnerIndex, rs: &Value, owned: Vec<Value>) {
    if is_deleting(rs) {
        return;
    }
    let selector = LabelSelector::from_structured(&rs["spec"]["selector"]).ok();
    let owned_keys: Vec<ObjectKey> = owned.iter().map(pod_key).collect();
    let mut created = vec![];
    let mut active: Vec<Value> = owned.into_iter().filter(is_active).collect();
    let wanted = rs["spec"]["replicas"].as_i64().unwrap_or(1).max(0) as usize;
    if active.len() < wanted {
        for _ in active.len()..wanted.min(active.len() + BURST_REPLICAS) {
            let pod = pod_from_template(rs, &rs["spec"]["template"], &[]);
            created.extend(create_pod(ctx, rs, pod, COMPONENT).as_ref().map(pod_key));
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
    // Status from the pods as they are now: the indexed ones, the claimed ones and the
    // ones created just now.
    let mut keys: BTreeSet<ObjectKey> = index.owned(uid_of(rs)).cloned().collect();
    keys.extend(owned_keys);
    keys.extend(created);
    let pods_now = current(&ctx.registry, &keys);
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
    write_status(ctx, &ctx.def("apps", "replicasets"), rs, status);
}
