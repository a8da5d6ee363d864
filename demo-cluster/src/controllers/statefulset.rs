//! The StatefulSet controller (`statefulset-controller`): pods with stable names `<set>-<n>`,
//! one PersistentVolumeClaim per volumeClaimTemplate and pod, created in ordinal order one at
//! a time (`OrderedReady`: the next only once the previous is Running and Ready), removed
//! from the highest ordinal, updated from the highest ordinal down (`RollingUpdate`).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::deployment::{comparable_template, template_hash};
use super::events::EventSpec;
use super::replicaset::{active_pods_of, sync_pod_owners};
use super::revisions::REVISION_LABEL;
use super::{
    controller_ref, is_deleting, is_pod_ready, is_pod_terminal, name_of, namespace_of,
    spawn_reconciler, write_status, writer, Context, CONTROLLER_MANAGER,
};
use crate::registry::DeleteOptions;

const COMPONENT: &str = "statefulset-controller";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    spawn_reconciler(
        ctx,
        &[
            ("apps", "statefulsets"),
            ("", "pods"),
            ("", "persistentvolumeclaims"),
        ],
        reconcile_all,
    )
}

/// Syncs every StatefulSet.
pub fn reconcile_all(ctx: &Context) {
    sync_pod_owners(ctx, "apps", "statefulsets", |set, owned| {
        sync_stateful_set(ctx, set, owned)
    });
}

/// The revision name of the set's current template: `<set>-<hash>`, as ControllerRevisions
/// are named.
fn update_revision(set: &Value) -> String {
    let hash = template_hash(&comparable_template(&set["spec"]["template"]));
    format!("{}-{hash}", name_of(set))
}

/// The ordinal of a pod named `<set>-<n>`, if it is one of the set's.
fn ordinal_of(set: &Value, pod: &Value) -> Option<usize> {
    name_of(pod)
        .strip_prefix(name_of(set))?
        .strip_prefix('-')?
        .parse()
        .ok()
}

fn is_running_and_ready(pod: &Value) -> bool {
    pod["status"]["phase"] == "Running" && is_pod_ready(pod)
}

fn claim_name(template: &Value, set: &Value, ordinal: usize) -> String {
    format!("{}-{}-{ordinal}", name_of(template), name_of(set))
}

fn claim_templates(set: &Value) -> Vec<Value> {
    set["spec"]["volumeClaimTemplates"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|t| !name_of(t).is_empty())
        .collect()
}

/// The pod of ordinal `ordinal`: the template with the identity labels, a stable hostname
/// under the governing service, and its claims mounted in place of the template volumes.
fn pod_for(set: &Value, ordinal: usize, revision: &str) -> Value {
    let template = &set["spec"]["template"];
    let name = format!("{}-{ordinal}", name_of(set));
    let mut labels = template["metadata"]["labels"].clone();
    if !labels.is_object() {
        labels = json!({});
    }
    labels[REVISION_LABEL] = json!(revision);
    labels["statefulset.kubernetes.io/pod-name"] = json!(name);
    labels["apps.kubernetes.io/pod-index"] = json!(ordinal.to_string());
    let mut metadata = json!({
        "name": name,
        "namespace": namespace_of(set),
        "labels": labels,
        "ownerReferences": [controller_ref(set)],
    });
    if template["metadata"]["annotations"].is_object() {
        metadata["annotations"] = template["metadata"]["annotations"].clone();
    }
    let mut spec = template["spec"].clone();
    if !spec.is_object() {
        spec = json!({});
    }
    spec["hostname"] = json!(name);
    if let Some(service) = set["spec"]["serviceName"]
        .as_str()
        .filter(|s| !s.is_empty())
    {
        spec["subdomain"] = json!(service);
    }
    let claims = claim_templates(set);
    if !claims.is_empty() {
        let mut volumes: Vec<Value> = spec["volumes"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|v| !claims.iter().any(|t| name_of(t) == v["name"]))
            .collect();
        for claim in &claims {
            volumes.push(json!({
                "name": name_of(claim),
                "persistentVolumeClaim": {"claimName": claim_name(claim, set, ordinal)},
            }));
        }
        spec["volumes"] = json!(volumes);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
}

/// Creates the claims of ordinal `ordinal` that do not exist yet. They are kept when the pod
/// or the set goes (the default `Retain` policy), so they carry no owner reference. The
/// volume controller binds them.
fn ensure_claims(ctx: &Context, set: &Value, ordinal: usize) -> bool {
    let claims_def = ctx.def("", "persistentvolumeclaims");
    let namespace = namespace_of(set);
    let pod_name = format!("{}-{ordinal}", name_of(set));
    let selector_labels = set["spec"]["selector"]["matchLabels"].clone();
    for template in claim_templates(set) {
        let name = claim_name(&template, set, ordinal);
        if ctx.registry.get(&claims_def, namespace, &name).is_ok() {
            continue;
        }
        let mut labels = template["metadata"]["labels"].clone();
        if !labels.is_object() {
            labels = json!({});
        }
        if let Some(selector) = selector_labels.as_object() {
            for (k, v) in selector {
                labels[k] = v.clone();
            }
        }
        let claim = json!({
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": template["spec"],
        });
        let opts = writer(CONTROLLER_MANAGER, "");
        match ctx.registry.create(&claims_def, namespace, claim, &opts) {
            Ok(_) => {
                ctx.recorder.record(
                    set,
                    EventSpec::normal(
                        "SuccessfulCreate",
                        format!(
                            "create Claim {name} Pod {pod_name} in StatefulSet {} success",
                            name_of(set)
                        ),
                    )
                    .by(COMPONENT, CONTROLLER_MANAGER),
                );
            }
            Err(e) => {
                ctx.recorder.record(
                    set,
                    EventSpec::warning(
                        "FailedCreate",
                        format!(
                            "create Claim {name} for Pod {pod_name} in StatefulSet {} failed \
                             error: {}",
                            name_of(set),
                            e.message
                        ),
                    )
                    .by(COMPONENT, CONTROLLER_MANAGER),
                );
                return false;
            }
        }
    }
    true
}

fn create_pod(ctx: &Context, set: &Value, ordinal: usize, revision: &str) {
    if !ensure_claims(ctx, set, ordinal) {
        return;
    }
    let pod = pod_for(set, ordinal, revision);
    let pod_name = name_of(&pod).to_string();
    let event = match ctx.registry.create(
        &ctx.def("", "pods"),
        namespace_of(set),
        pod,
        &writer(CONTROLLER_MANAGER, ""),
    ) {
        Ok(_) => EventSpec::normal(
            "SuccessfulCreate",
            format!(
                "create Pod {pod_name} in StatefulSet {} successful",
                name_of(set)
            ),
        ),
        Err(e) => EventSpec::warning(
            "FailedCreate",
            format!(
                "create Pod {pod_name} in StatefulSet {} failed error: {}",
                name_of(set),
                e.message
            ),
        ),
    };
    ctx.recorder
        .record(set, event.by(COMPONENT, CONTROLLER_MANAGER));
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
            EventSpec::normal(
                "SuccessfulDelete",
                format!(
                    "delete Pod {} in StatefulSet {} successful",
                    name_of(pod),
                    name_of(set)
                ),
            )
            .by(COMPONENT, CONTROLLER_MANAGER),
        );
    }
}

/// One step towards the wanted state: at most one pod created or deleted per pass, as each
/// step waits for the previous pod to be Running and Ready (or gone).
fn step(ctx: &Context, set: &Value, pods: &BTreeMap<usize, Value>, revision: &str) {
    let wanted = set["spec"]["replicas"].as_i64().unwrap_or(1).max(0) as usize;
    // Pods being deleted (or terminated, which are deleted and recreated) block every step.
    if pods.values().any(is_deleting) {
        return;
    }
    for ordinal in 0..wanted {
        match pods.get(&ordinal) {
            None => return create_pod(ctx, set, ordinal, revision),
            Some(pod) if is_pod_terminal(pod) => return delete_pod(ctx, set, pod),
            Some(pod) if !is_running_and_ready(pod) => return,
            Some(_) => {}
        }
    }
    if let Some((_, surplus)) = pods.range(wanted..).next_back() {
        return delete_pod(ctx, set, surplus);
    }
    if set["spec"]["updateStrategy"]["type"] == "OnDelete" {
        return;
    }
    let partition = set["spec"]["updateStrategy"]["rollingUpdate"]["partition"]
        .as_i64()
        .unwrap_or(0)
        .max(0) as usize;
    let outdated = pods
        .range(partition..)
        .rev()
        .find(|(_, pod)| pod["metadata"]["labels"][REVISION_LABEL] != revision);
    if let Some((_, pod)) = outdated {
        delete_pod(ctx, set, pod);
    }
}

fn sync_stateful_set(ctx: &Context, set: &Value, owned: Vec<Value>) {
    if is_deleting(set) {
        return;
    }
    let revision = update_revision(set);
    super::revisions::record(ctx, set, &revision, &revision);
    let pods: BTreeMap<usize, Value> = owned
        .into_iter()
        .filter_map(|pod| ordinal_of(set, &pod).map(|ordinal| (ordinal, pod)))
        .collect();
    step(ctx, set, &pods, &revision);
    update_status(ctx, set, &revision);
}

fn update_status(ctx: &Context, set: &Value, revision: &str) {
    let owned = active_pods_of(ctx, set);
    let mine: Vec<&Value> = owned.iter().collect();
    let ready = mine.iter().filter(|p| is_pod_ready(p)).count();
    let updated = mine
        .iter()
        .filter(|p| p["metadata"]["labels"][REVISION_LABEL] == revision)
        .count();
    let wanted = set["spec"]["replicas"].as_i64().unwrap_or(1).max(0) as usize;
    // The current revision catches up with the update revision once every pod runs it.
    let current_revision = match set["status"]["currentRevision"].as_str() {
        Some(previous) if updated < wanted || mine.len() != wanted => previous.to_string(),
        _ => revision.to_string(),
    };
    let current = mine
        .iter()
        .filter(|p| p["metadata"]["labels"][REVISION_LABEL] == current_revision.as_str())
        .count();
    let status = json!({
        "replicas": mine.len(),
        "readyReplicas": ready,
        "currentReplicas": current,
        "updatedReplicas": updated,
        "availableReplicas": ready,
        "currentRevision": current_revision,
        "updateRevision": revision,
        "collisionCount": 0,
        "observedGeneration": set["metadata"]["generation"],
    });
    write_status(ctx, &ctx.def("apps", "statefulsets"), set, status);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pods_get_ordinal_names_identity_labels_and_their_claims() {
        let set = json!({
            "metadata": {"name": "web", "namespace": "ns", "uid": "u1"},
            "spec": {
                "serviceName": "nginx",
                "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": []}},
                "volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {}}],
            },
        });
        let pod = pod_for(&set, 2, "web-1");
        assert_eq!(name_of(&pod), "web-2");
        assert_eq!(ordinal_of(&set, &pod), Some(2));
        assert_eq!(pod["spec"]["hostname"], "web-2");
        assert_eq!(pod["spec"]["subdomain"], "nginx");
        assert_eq!(
            pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"],
            "2"
        );
        assert_eq!(
            pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"],
            "www-web-2"
        );
        // Another set whose name starts the same owns none of these.
        let other = json!({"metadata": {"name": "we"}});
        assert_eq!(ordinal_of(&other, &pod), None);
    }
}
