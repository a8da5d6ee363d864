//! The cnat operator from "Programming Kubernetes": the `At` custom resource runs a command
//! once at a given time. Its controller creates a busybox Pod owned by the At at
//! `spec.schedule`, and moves `status.phase` PENDING → RUNNING → DONE.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::{
    controller_ref, is_deleting, is_pod_terminal, name_of, namespace_of, parse_time, spawn_loop,
    writer, Changes, Context,
};
use crate::registry::kinds::ResourceDef;
use crate::registry::{Registry, WriteOptions};

pub const GROUP: &str = "cnat.programming-kubernetes.info";
pub const VERSION: &str = "v1alpha1";
pub const PLURAL: &str = "ats";
pub const MANAGER: &str = "cnat-controller";
pub const PHASE_PENDING: &str = "PENDING";
pub const PHASE_RUNNING: &str = "RUNNING";
pub const PHASE_DONE: &str = "DONE";

/// The `At` CustomResourceDefinition (apiextensions.k8s.io/v1; the book ships v1beta1).
pub fn at_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{PLURAL}.{GROUP}")},
        "spec": {
            "group": GROUP, "scope": "Namespaced",
            "names": {"kind": "At", "listKind": "AtList", "plural": PLURAL, "singular": "at"},
            "versions": [{
                "name": VERSION, "served": true, "storage": true,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": "Schedule", "type": "string", "jsonPath": ".spec.schedule"},
                    {"name": "Command", "type": "string", "jsonPath": ".spec.command", "priority": 1},
                    {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
                "schema": {"openAPIV3Schema": {
                    "description": "At runs a command once at a given time.",
                    "type": "object",
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": {"type": "object", "properties": {
                            "schedule": {"type": "string", "description": "When to run the command, as an RFC 3339 UTC time (e.g. 2019-04-12T10:12:00Z)."},
                            "command": {"type": "string", "description": "The command to run (in `sh -c`)."}}},
                        "status": {"type": "object", "properties": {
                            "phase": {"type": "string", "description": "PENDING until the schedule, RUNNING while the command runs, then DONE."}}}}}}
            }]
        }
    })
}

/// Creates the At CRD unless it exists (e.g. reloaded from a state file).
pub fn install_crd(registry: &Registry) {
    let Some(def) = registry.builtin(crate::registry::CRD_GROUP, crate::registry::CRD_RESOURCE)
    else {
        return;
    };
    if registry
        .get(&def, "", &format!("{PLURAL}.{GROUP}"))
        .is_err()
    {
        let opts = WriteOptions {
            field_manager: "demo-cluster".into(),
            ..Default::default()
        };
        if let Err(e) = registry.create(&def, "", at_crd(), &opts) {
            tracing::warn!("could not install the At CRD: {}", e.message);
        }
    }
}

fn at_def(registry: &Registry) -> Option<Arc<ResourceDef>> {
    registry.resolve(GROUP, VERSION, PLURAL)
}

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::of(&ctx.registry, &[(GROUP, PLURAL), ("", "pods")]);
    spawn_loop(changes, Duration::from_secs(30), move || reconcile(&ctx))
}

/// The pod an At runs: `<at>-pod`, busybox, `sh -c <command>`.
fn pod_for(at: &Value) -> Value {
    let command = at["spec"]["command"].as_str().unwrap_or_default();
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("{}-pod", name_of(at)), "namespace": namespace_of(at),
                     "labels": {"app": name_of(at)}, "ownerReferences": [controller_ref(at)]},
        "spec": {"restartPolicy": "OnFailure",
                 "containers": [{"name": "busybox", "image": "busybox", "command": ["sh", "-c", command]}]},
    })
}

/// Reconciles every At; returns when the next schedule is due. A schedule is a time on the
/// At's simulated clock (from its creation), so it follows `--speed`.
pub fn reconcile(ctx: &Context) -> Option<Duration> {
    let def = at_def(&ctx.registry)?;
    let pods_def = ctx.def("", "pods");
    let (ats, _) = ctx.registry.list(&def, None);
    let now = chrono::Utc::now();
    let mut next: Option<Duration> = None;
    for at in ats {
        if is_deleting(&at) {
            continue;
        }
        let phase = at["status"]["phase"].as_str().unwrap_or_default();
        let target = match phase {
            "" => Some(PHASE_PENDING),
            PHASE_PENDING => {
                let created = at["metadata"]["creationTimestamp"]
                    .as_str()
                    .and_then(parse_time)
                    .unwrap_or(now);
                let schedule = at["spec"]["schedule"]
                    .as_str()
                    .and_then(parse_time)
                    .map(|when| ctx.real_since(created, when));
                match schedule {
                    Some(when) if when > now => {
                        let wait = (when - now).to_std().unwrap_or_default();
                        next = Some(next.map_or(wait, |n| n.min(wait)));
                        None
                    }
                    // Unparseable schedules stay PENDING, as in the original operator.
                    None => None,
                    Some(_) => Some(PHASE_RUNNING),
                }
            }
            PHASE_RUNNING => {
                let pod_name = format!("{}-pod", name_of(&at));
                match ctx.registry.get(&pods_def, namespace_of(&at), &pod_name) {
                    Ok(pod) if is_pod_terminal(&pod) => Some(PHASE_DONE),
                    Ok(_) => None,
                    Err(_) => {
                        let _ = ctx.registry.create(
                            &pods_def,
                            namespace_of(&at),
                            pod_for(&at),
                            &writer(MANAGER, ""),
                        );
                        None
                    }
                }
            }
            _ => None,
        };
        if let Some(phase) = target {
            let _ = ctx.registry.update_with(
                &def,
                namespace_of(&at),
                name_of(&at),
                &writer(MANAGER, "status"),
                |current| {
                    current["status"]["phase"] = json!(phase);
                    Ok(())
                },
            );
        }
    }
    next
}
