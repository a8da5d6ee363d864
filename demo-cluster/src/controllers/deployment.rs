//! The Deployment controller (`deployment-controller`): one ReplicaSet per pod-template hash,
//! RollingUpdate (maxSurge / maxUnavailable) and Recreate, revisions, status and conditions.
//! Follows `pkg/controller/deployment` (sync.go, rolling.go, recreate.go) in simplified form.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::task::JoinHandle;

use super::events::EventSpec;
use super::{
    claim, controller_ref, controller_uid, is_deleting, is_pod_terminal, name_of, namespace_of,
    set_condition, spawn_loop, uid_of, write_status, writer, Changes, Context, CONTROLLER_MANAGER,
};
use crate::registry::{now, DeleteOptions};
use crate::storage::watch_cache::EventType;

const COMPONENT: &str = "deployment-controller";
pub const HASH_LABEL: &str = "pod-template-hash";
pub const REVISION: &str = "deployment.kubernetes.io/revision";
const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    // A pod's deletion too: a Recreate rollout waits for the old pods to be gone, and the
    // last one going changes no ReplicaSet (as kube-controller-manager's deletePod handler).
    let changes = Changes::matching(&ctx.registry, |e| {
        let key = &e.key;
        (key.group == "apps" && (key.resource == "deployments" || key.resource == "replicasets"))
            || (key.group.is_empty()
                && key.resource == "pods"
                && e.event_type == EventType::Deleted)
    });
    spawn_loop(changes, Duration::from_secs(30), move || {
        reconcile_all(&ctx);
        None
    })
}

pub fn reconcile_all(ctx: &Context) {
    let (deployments, _) = ctx.registry.list(&ctx.def("apps", "deployments"), None);
    let rs_def = ctx.def("apps", "replicasets");
    let (sets, _) = ctx.registry.list(&rs_def, None);
    // Grouped once by controller, so a pass stays linear with thousands of Deployments.
    let mut orphans: Vec<Value> = vec![];
    let mut by_controller: HashMap<String, Vec<Value>> = HashMap::new();
    for rs in sets {
        match controller_uid(&rs) {
            Some(uid) => by_controller.entry(uid.to_string()).or_default().push(rs),
            None => orphans.push(rs),
        }
    }
    for d in deployments {
        let owned = by_controller.remove(uid_of(&d)).unwrap_or_default();
        let owned = claim(ctx, &rs_def, &d, owned, &mut orphans);
        sync_deployment(ctx, &d, owned);
    }
}

/// JSON with object keys sorted, so the hash does not depend on insertion order.
fn canonical_json(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let fields: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical_json(&m[k])))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical_json).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// `ComputeHash`: fnv32a of the template, its decimal form mapped through the alphabet of
/// `rand.SafeEncodeString` (no vowels, so no words).
pub fn template_hash(template: &Value) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut hash: u32 = 0x811c_9dc5;
    for byte in canonical_json(template).bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash.to_string()
        .bytes()
        .map(|b| ALPHABET[usize::from(b) % ALPHABET.len()] as char)
        .collect()
}

/// A percentage ("25%") or absolute value resolved against `total`.
fn resolve(value: &Value, total: i64, round_up: bool, default_percent: i64) -> i64 {
    let percent = match value {
        Value::Number(n) => return n.as_i64().unwrap_or(0).max(0),
        Value::String(s) => match s.strip_suffix('%').and_then(|p| p.parse::<i64>().ok()) {
            Some(p) => p,
            None => return s.parse::<i64>().unwrap_or(0).max(0),
        },
        _ => default_percent,
    };
    let scaled = total.saturating_mul(percent);
    if round_up {
        scaled.saturating_add(99) / 100
    } else {
        scaled / 100
    }
}

/// `ResolveFenceposts`: (maxSurge, maxUnavailable), never both zero.
pub fn fenceposts(d: &Value, replicas: i64) -> (i64, i64) {
    let rolling = &d["spec"]["strategy"]["rollingUpdate"];
    let surge = resolve(&rolling["maxSurge"], replicas, true, 25);
    let unavailable = resolve(&rolling["maxUnavailable"], replicas, false, 25);
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

fn revision_of(rs: &Value) -> i64 {
    rs["metadata"]["annotations"][REVISION]
        .as_str()
        .and_then(|r| r.parse().ok())
        .unwrap_or(0)
}

fn spec_replicas(rs: &Value) -> i64 {
    rs["spec"]["replicas"].as_i64().unwrap_or(0)
}

/// `oldPodsRunning` (recreate.go): a pod of an old ReplicaSet that is not terminal still
/// runs, terminating or not (a ReplicaSet's status no longer counts a terminating pod).
fn old_pods_running(ctx: &Context, d: &Value, olds: &[Value]) -> bool {
    if olds.is_empty() {
        return false;
    }
    let old_uids: HashSet<&str> = olds.iter().map(uid_of).collect();
    let (pods, _) = ctx
        .registry
        .list_shared(&ctx.def("", "pods"), Some(namespace_of(d)));
    pods.iter().any(|pod| {
        controller_uid(pod).is_some_and(|uid| old_uids.contains(uid)) && !is_pod_terminal(pod)
    })
}

fn status_count(rs: &Value, field: &str) -> i64 {
    rs["status"][field].as_i64().unwrap_or(0)
}

/// Drops nulls and empty maps/lists, which Go's semantic equality treats as absent
/// (`creationTimestamp: null` and friends, as clients send them in templates).
fn prune_empty(v: &Value) -> Option<Value> {
    match v {
        Value::Null => None,
        Value::Object(m) => {
            let kept: Map<String, Value> = m
                .iter()
                .filter_map(|(k, v)| prune_empty(v).map(|v| (k.clone(), v)))
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        Value::Array(a) => (!a.is_empty()).then(|| {
            Value::Array(
                a.iter()
                    .map(|v| prune_empty(v).unwrap_or(Value::Null))
                    .collect(),
            )
        }),
        other => Some(other.clone()),
    }
}

/// A pod template in comparable form: without the hash label, nulls and empty values
/// (`EqualIgnoreHash`), so a rollback to an old template finds its old ReplicaSet.
pub fn comparable_template(template: &Value) -> Value {
    let mut t = template.clone();
    if let Some(labels) = t["metadata"]["labels"].as_object_mut() {
        labels.remove(HASH_LABEL);
    }
    prune_empty(&t).unwrap_or(Value::Null)
}

/// The Deployment's pod template.
fn template_of(d: &Value) -> Value {
    d["spec"]["template"].clone()
}

/// Sets the ReplicaSet's replicas and records the ScalingReplicaSet event on the Deployment.
fn scale(ctx: &Context, d: &Value, rs: &mut Value, to: i64, max_surge: i64) {
    let from = spec_replicas(rs);
    if from == to {
        return;
    }
    let replicas = d["spec"]["replicas"].as_i64().unwrap_or(1);
    let updated = ctx.registry.update_with(
        &ctx.def("apps", "replicasets"),
        namespace_of(rs),
        name_of(rs),
        &writer(CONTROLLER_MANAGER, ""),
        |current| {
            current["spec"]["replicas"] = json!(to);
            current["metadata"]["annotations"][DESIRED_REPLICAS] = json!(replicas.to_string());
            current["metadata"]["annotations"][MAX_REPLICAS] =
                json!((replicas + max_surge).to_string());
            Ok(())
        },
    );
    if let Ok(updated) = updated {
        let direction = if to > from { "up" } else { "down" };
        ctx.recorder.record(
            d,
            EventSpec::normal(
                "ScalingReplicaSet",
                format!(
                    "Scaled {direction} replica set {} from {from} to {to}",
                    name_of(rs)
                ),
            )
            .by(COMPONENT, CONTROLLER_MANAGER),
        );
        *rs = updated;
    }
}

fn create_replica_set(
    ctx: &Context,
    d: &Value,
    hash: &str,
    revision: i64,
    replicas: i64,
    max_surge: i64,
) -> Option<Value> {
    let mut template = template_of(d);
    template["metadata"]["labels"][HASH_LABEL] = json!(hash);
    let mut selector = d["spec"]["selector"].clone();
    selector["matchLabels"][HASH_LABEL] = json!(hash);
    let mut annotations: Map<String, Value> = d["metadata"]["annotations"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    annotations.retain(|k, _| {
        k != "kubectl.kubernetes.io/last-applied-configuration"
            && !k.starts_with("deployment.kubernetes.io/")
    });
    let desired = d["spec"]["replicas"].as_i64().unwrap_or(1);
    annotations.insert(REVISION.into(), json!(revision.to_string()));
    annotations.insert(DESIRED_REPLICAS.into(), json!(desired.to_string()));
    annotations.insert(
        MAX_REPLICAS.into(),
        json!((desired + max_surge).to_string()),
    );
    let name = format!("{}-{hash}", name_of(d));
    let rs = json!({
        "apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": namespace_of(d), "labels": template["metadata"]["labels"],
                     "annotations": annotations, "ownerReferences": [controller_ref(d)]},
        "spec": {"replicas": replicas, "minReadySeconds": d["spec"]["minReadySeconds"].as_i64().unwrap_or(0),
                 "selector": selector, "template": template},
    });
    let created = ctx
        .registry
        .create(
            &ctx.def("apps", "replicasets"),
            namespace_of(d),
            rs,
            &writer(CONTROLLER_MANAGER, ""),
        )
        .ok()?;
    if replicas > 0 {
        ctx.recorder.record(
            d,
            EventSpec::normal(
                "ScalingReplicaSet",
                format!("Scaled up replica set {name} from 0 to {replicas}"),
            )
            .by(COMPONENT, CONTROLLER_MANAGER),
        );
    }
    Some(created)
}

fn sync_deployment(ctx: &Context, d: &Value, owned: Vec<Value>) {
    if is_deleting(d) {
        return;
    }
    let replicas = d["spec"]["replicas"].as_i64().unwrap_or(1).max(0);
    let wanted_template = comparable_template(&template_of(d));
    let hash = template_hash(&wanted_template);
    let (max_surge, max_unavailable) = fenceposts(d, replicas);
    let recreate = d["spec"]["strategy"]["type"] == "Recreate";
    let mut new_rs: Option<Value> = None;
    let mut olds: Vec<Value> = vec![];
    for rs in owned {
        if new_rs.is_none() && comparable_template(&rs["spec"]["template"]) == wanted_template {
            new_rs = Some(rs);
        } else {
            olds.push(rs);
        }
    }
    olds.sort_by_key(|rs| {
        rs["metadata"]["creationTimestamp"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    });
    let max_old_revision = olds.iter().map(revision_of).max().unwrap_or(0);
    let mut just_created = false;
    let paused = d["spec"]["paused"].as_bool() == Some(true);

    if paused {
        // `kubectl rollout pause`: no rollout step until resumed; status is still kept.
    } else if recreate {
        // Recreate: every old pod is gone before the new ReplicaSet gets any.
        for rs in olds.iter_mut() {
            scale(ctx, d, rs, 0, max_surge);
        }
        let old_pods_remain = olds.iter().any(|rs| status_count(rs, "replicas") > 0)
            || old_pods_running(ctx, d, &olds);
        match new_rs.as_mut() {
            Some(rs) if !old_pods_remain => scale(ctx, d, rs, replicas, max_surge),
            Some(_) => {}
            None => {
                let initial = if old_pods_remain { 0 } else { replicas };
                new_rs =
                    create_replica_set(ctx, d, &hash, max_old_revision + 1, initial, max_surge);
                just_created = new_rs.is_some();
            }
        }
    } else {
        let total_spec: i64 = olds.iter().map(spec_replicas).sum::<i64>()
            + new_rs.as_ref().map(spec_replicas).unwrap_or(0);
        let max_total = replicas + max_surge;
        match new_rs.as_mut() {
            None => {
                let initial = if olds.is_empty() {
                    replicas
                } else {
                    (max_total - total_spec).clamp(0, replicas)
                };
                new_rs =
                    create_replica_set(ctx, d, &hash, max_old_revision + 1, initial, max_surge);
                just_created = new_rs.is_some();
            }
            Some(rs) => {
                let current = spec_replicas(rs);
                if current > replicas {
                    scale(ctx, d, rs, replicas, max_surge);
                } else if current < replicas {
                    let room = if olds.iter().all(|o| spec_replicas(o) == 0) {
                        replicas - current
                    } else {
                        (max_total - total_spec).clamp(0, replicas - current)
                    };
                    if room > 0 {
                        scale(ctx, d, rs, current + room, max_surge);
                    }
                }
            }
        }
        scale_down_old(
            ctx,
            d,
            new_rs.as_ref(),
            &mut olds,
            replicas,
            max_unavailable,
            max_surge,
        );
    }

    // Rollback to an old template: the re-used ReplicaSet gets the newest revision.
    if let Some(rs) = new_rs.as_mut().filter(|_| !paused) {
        if revision_of(rs) <= max_old_revision {
            let next = (max_old_revision + 1).to_string();
            if let Ok(updated) = ctx.registry.update_with(
                &ctx.def("apps", "replicasets"),
                namespace_of(rs),
                name_of(rs),
                &writer(CONTROLLER_MANAGER, ""),
                |current| {
                    current["metadata"]["annotations"][REVISION] = json!(next.clone());
                    Ok(())
                },
            ) {
                *rs = updated;
            }
        }
    }
    clean_up_history(ctx, d, &olds);
    update_status(
        ctx,
        d,
        new_rs.as_ref(),
        &olds,
        just_created,
        max_unavailable,
    );
}

/// rolling.go `reconcileOldReplicaSets`: unhealthy old pods go first, healthy ones only while
/// at least `replicas - maxUnavailable` pods stay available.
fn scale_down_old(
    ctx: &Context,
    d: &Value,
    new_rs: Option<&Value>,
    olds: &mut [Value],
    replicas: i64,
    max_unavailable: i64,
    max_surge: i64,
) {
    let old_total: i64 = olds.iter().map(spec_replicas).sum();
    if old_total == 0 {
        return;
    }
    let new_spec = new_rs.map(spec_replicas).unwrap_or(0);
    let new_available = new_rs
        .map(|rs| status_count(rs, "availableReplicas"))
        .unwrap_or(0);
    let min_available = replicas - max_unavailable;
    let all_spec = old_total + new_spec;
    let new_unavailable = (new_spec - new_available).max(0);
    let mut budget = all_spec - min_available - new_unavailable;
    if budget <= 0 {
        return;
    }
    // Unhealthy replicas cost no availability.
    for rs in olds.iter_mut() {
        let unhealthy = spec_replicas(rs) - status_count(rs, "availableReplicas");
        let cut = unhealthy.min(budget).max(0);
        if cut > 0 {
            let to = spec_replicas(rs) - cut;
            scale(ctx, d, rs, to, max_surge);
            budget -= cut;
        }
    }
    let available: i64 = olds
        .iter()
        .map(|rs| status_count(rs, "availableReplicas").min(spec_replicas(rs)))
        .sum::<i64>()
        + new_available;
    let mut healthy_budget = (available - min_available).min(budget);
    for rs in olds.iter_mut() {
        if healthy_budget <= 0 {
            break;
        }
        let cut = spec_replicas(rs).min(healthy_budget);
        if cut > 0 {
            let to = spec_replicas(rs) - cut;
            scale(ctx, d, rs, to, max_surge);
            healthy_budget -= cut;
        }
    }
}

/// Old ReplicaSets at zero beyond `revisionHistoryLimit` are deleted, oldest revision first.
fn clean_up_history(ctx: &Context, d: &Value, olds: &[Value]) {
    let limit = d["spec"]["revisionHistoryLimit"]
        .as_i64()
        .unwrap_or(10)
        .max(0) as usize;
    let mut idle: Vec<&Value> = olds
        .iter()
        .filter(|rs| spec_replicas(rs) == 0 && status_count(rs, "replicas") == 0)
        .collect();
    if idle.len() <= limit {
        return;
    }
    idle.sort_by_key(|rs| revision_of(rs));
    let excess = idle.len() - limit;
    for rs in idle.into_iter().take(excess) {
        let _ = ctx.registry.delete(
            &ctx.def("apps", "replicasets"),
            namespace_of(rs),
            name_of(rs),
            &DeleteOptions::default(),
        );
    }
}

fn update_status(
    ctx: &Context,
    d: &Value,
    new_rs: Option<&Value>,
    olds: &[Value],
    just_created: bool,
    max_unavailable: i64,
) {
    let replicas = d["spec"]["replicas"].as_i64().unwrap_or(1);
    let all: Vec<&Value> = olds.iter().chain(new_rs).collect();
    let total: i64 = all.iter().map(|rs| status_count(rs, "replicas")).sum();
    let ready: i64 = all.iter().map(|rs| status_count(rs, "readyReplicas")).sum();
    let available: i64 = all
        .iter()
        .map(|rs| status_count(rs, "availableReplicas"))
        .sum();
    let updated = new_rs.map(|rs| status_count(rs, "replicas")).unwrap_or(0);
    let new_name = new_rs.map(name_of).unwrap_or_default().to_string();
    let revision = new_rs.map(revision_of).unwrap_or(0);
    let time = now();

    let mut status = json!({
        "observedGeneration": d["metadata"]["generation"],
        "replicas": total, "updatedReplicas": updated, "readyReplicas": ready,
        "availableReplicas": available,
    });
    if replicas - available > 0 {
        status["unavailableReplicas"] = json!(replicas - available);
    }
    let conditions = &d["status"]["conditions"];
    let (available_status, available_reason, available_message) =
        if available >= replicas - max_unavailable {
            (
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.",
            )
        } else {
            (
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
            )
        };
    let complete = new_rs.is_some()
        && updated == replicas
        && total == replicas
        && available >= replicas
        && new_rs.is_some_and(|rs| spec_replicas(rs) == replicas);
    let was_paused = conditions
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Progressing" && c["reason"] == "DeploymentPaused");
    let paused = d["spec"]["paused"].as_bool() == Some(true);
    let progress_status = if paused { "Unknown" } else { "True" };
    let (progress_reason, progress_message) = if paused {
        ("DeploymentPaused", "Deployment is paused".to_string())
    } else if was_paused {
        ("DeploymentResumed", "Deployment is resumed".to_string())
    } else if complete {
        (
            "NewReplicaSetAvailable",
            format!("ReplicaSet \"{new_name}\" has successfully progressed."),
        )
    } else if just_created {
        (
            "NewReplicaSetCreated",
            format!("Created new replica set \"{new_name}\""),
        )
    } else {
        (
            "ReplicaSetUpdated",
            format!("ReplicaSet \"{new_name}\" is progressing."),
        )
    };
    let condition = |conditions: &Value, ty: &str, status: &str, reason: &str, message: &str| {
        // lastUpdateTime moves only when something about the condition changed.
        let unchanged = conditions
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == ty)
            .filter(|c| c["status"] == status && c["reason"] == reason && c["message"] == message)
            .map(|c| c["lastUpdateTime"].clone());
        let updated_at = unchanged.unwrap_or(json!(time));
        set_condition(
            conditions,
            ty,
            status,
            json!({"lastUpdateTime": updated_at, "reason": reason, "message": message}),
            &time,
        )
    };
    let with_available = condition(
        conditions,
        "Available",
        available_status,
        available_reason,
        available_message,
    );
    let with_progress = condition(
        &with_available,
        "Progressing",
        progress_status,
        progress_reason,
        &progress_message,
    );
    status["conditions"] = with_progress;

    let def = ctx.def("apps", "deployments");
    let revision_text = revision.to_string();
    if revision > 0 && d["metadata"]["annotations"][REVISION] != revision_text.as_str() {
        let _ = ctx.registry.update_with(
            &def,
            namespace_of(d),
            name_of(d),
            // Through /status, as kube-controller-manager does: an annotation written to the
            // Deployment itself would move its generation on.
            &writer(CONTROLLER_MANAGER, "status"),
            |current| {
                current["metadata"]["annotations"][REVISION] = json!(revision_text.clone());
                Ok(())
            },
        );
    }
    write_status(ctx, &def, d, status);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenceposts_round_surge_up_and_unavailable_down() {
        let d = json!({"spec": {"strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}}});
        assert_eq!(fenceposts(&d, 3), (1, 0));
        assert_eq!(fenceposts(&d, 10), (3, 2));
        let zero =
            json!({"spec": {"strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}}});
        assert_eq!(fenceposts(&zero, 3), (0, 1));
    }

    #[test]
    fn template_hash_is_stable_and_uses_the_safe_alphabet() {
        let a = json!({"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
        let b = json!({"spec": {"containers": [{"image": "nginx", "name": "c"}]}, "metadata": {"labels": {"app": "x"}}});
        assert_eq!(template_hash(&a), template_hash(&b));
        let h = template_hash(&a);
        assert!((8..=10).contains(&h.len()), "{h}");
        assert!(h
            .bytes()
            .all(|c| b"bcdfghjklmnpqrstvwxz2456789".contains(&c)));
    }

    #[test]
    fn rollback_templates_compare_equal_ignoring_hash_and_nulls() {
        let original = json!({"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {}}]}});
        let from_rs = json!({"metadata": {"creationTimestamp": null, "labels": {"app": "x", "pod-template-hash": "abc"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
        assert_eq!(
            comparable_template(&original),
            comparable_template(&from_rs)
        );
        let changed = json!({"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "nginx:2"}]}});
        assert_ne!(
            comparable_template(&original),
            comparable_template(&changed)
        );
    }
}
