//! The garbage collector and the namespace controller of kube-controller-manager.
//!
//! Garbage collection follows `ownerReferences` by uid: dependents whose owners are all gone
//! are deleted (Background); an owner carrying the `orphan` finalizer has its references
//! stripped from its dependents; one carrying `foregroundDeletion` has its dependents deleted
//! (recursively in the foreground) and loses the finalizer once no blocking dependent is left.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::{set_condition, spawn_loop, writer, Changes, Context, CONTROLLER_MANAGER};
use crate::registry::kinds::ResourceDef;
use crate::registry::{
    now, string_list, DeleteOptions, Registry, FINALIZER_FOREGROUND, FINALIZER_ORPHAN,
};
use crate::storage::object::ObjectKey;
use crate::storage::watch_cache::EventType;

/// Resources that never take part in garbage collection and change often.
fn is_noise(resource: &str) -> bool {
    matches!(resource, "events" | "leases")
}

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::matching(&ctx.registry, |e| {
        let meta = &e.object["metadata"];
        !is_noise(&e.key.resource)
            && (e.event_type == EventType::Deleted
                || meta["deletionTimestamp"].is_string()
                || (e.event_type == EventType::Added && meta["ownerReferences"].is_array()))
    });
    spawn_loop(changes, Duration::from_secs(5), move || {
        collect_garbage(&ctx.registry);
        None
    })
}

/// The served definition whose storage holds `key` (its own group, not an alias view).
pub fn def_for_key(registry: &Registry, key: &ObjectKey) -> Option<Arc<ResourceDef>> {
    registry.defs().into_iter().find(|d| {
        d.storage_group == key.group && d.group == key.group && d.resource == key.resource
    })
}

struct Node {
    key: ObjectKey,
    uid: String,
    /// (owner uid, blockOwnerDeletion)
    owners: Vec<(String, bool)>,
    deleting: bool,
    finalizers: Vec<String>,
}

fn snapshot(registry: &Registry) -> Vec<Node> {
    let mut nodes = vec![];
    registry.store.for_each(|key, obj| {
        if is_noise(&key.resource) {
            return;
        }
        let meta = &obj["metadata"];
        nodes.push(Node {
            key: key.clone(),
            uid: meta["uid"].as_str().unwrap_or_default().to_string(),
            owners: meta["ownerReferences"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| {
                    Some((
                        r["uid"].as_str()?.to_string(),
                        r["blockOwnerDeletion"].as_bool() == Some(true),
                    ))
                })
                .collect(),
            deleting: meta["deletionTimestamp"].is_string(),
            finalizers: string_list(&meta["finalizers"]),
        });
    });
    nodes
}

fn update(
    registry: &Registry,
    key: &ObjectKey,
    change: impl FnMut(&mut Value) -> crate::errors::ApiResult<()>,
) {
    if let Some(def) = def_for_key(registry, key) {
        let _ = registry.update_with(
            &def,
            &key.namespace,
            &key.name,
            &writer(CONTROLLER_MANAGER, ""),
            change,
        );
    }
}

fn remove_finalizer(registry: &Registry, key: &ObjectKey, finalizer: &str) {
    update(registry, key, |obj| {
        let kept: Vec<String> = string_list(&obj["metadata"]["finalizers"])
            .into_iter()
            .filter(|f| f != finalizer)
            .collect();
        obj["metadata"]["finalizers"] = json!(kept);
        Ok(())
    });
}

fn strip_owner(registry: &Registry, key: &ObjectKey, owner_uid: &str) {
    update(registry, key, |obj| {
        let kept: Vec<Value> = obj["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["uid"] != owner_uid)
            .cloned()
            .collect();
        if kept.is_empty() {
            if let Some(m) = obj["metadata"].as_object_mut() {
                m.remove("ownerReferences");
            }
        } else {
            obj["metadata"]["ownerReferences"] = json!(kept);
        }
        Ok(())
    });
}

/// One full garbage-collection pass.
pub fn collect_garbage(registry: &Registry) {
    let nodes = snapshot(registry);
    let by_uid: HashMap<&str, &Node> = nodes.iter().map(|n| (n.uid.as_str(), n)).collect();
    let dependents_of = |uid: &str| -> Vec<&Node> {
        nodes
            .iter()
            .filter(|n| n.owners.iter().any(|(o, _)| o == uid))
            .collect()
    };
    let waits_for_dependents =
        |n: &Node| n.deleting && n.finalizers.iter().any(|f| f == FINALIZER_FOREGROUND);

    for owner in nodes.iter().filter(|n| n.deleting) {
        if owner.finalizers.iter().any(|f| f == FINALIZER_ORPHAN) {
            for dependent in dependents_of(&owner.uid) {
                strip_owner(registry, &dependent.key, &owner.uid);
            }
            remove_finalizer(registry, &owner.key, FINALIZER_ORPHAN);
        }
        if waits_for_dependents(owner) {
            let dependents = dependents_of(&owner.uid);
            for dependent in &dependents {
                // A dependent kept alive by another owner only loses this reference.
                let other_solid_owner = dependent.owners.iter().any(|(o, _)| {
                    o != &owner.uid
                        && by_uid
                            .get(o.as_str())
                            .is_some_and(|n| !waits_for_dependents(n))
                });
                if other_solid_owner {
                    strip_owner(registry, &dependent.key, &owner.uid);
                }
            }
            let blocked = dependents
                .iter()
                .any(|d| d.owners.iter().any(|(o, block)| o == &owner.uid && *block));
            if !blocked {
                remove_finalizer(registry, &owner.key, FINALIZER_FOREGROUND);
            }
        }
    }

    for dependent in nodes.iter().filter(|n| !n.owners.is_empty() && !n.deleting) {
        let owners: Vec<Option<&&Node>> = dependent
            .owners
            .iter()
            .map(|(o, _)| by_uid.get(o.as_str()))
            .collect();
        let all_gone = owners
            .iter()
            .all(|o| o.is_none_or(|n| waits_for_dependents(n)));
        if !all_gone {
            continue;
        }
        let foreground = owners.iter().any(Option::is_some);
        let Some(def) = def_for_key(registry, &dependent.key) else {
            continue;
        };
        let policy = if foreground {
            "Foreground"
        } else {
            "Background"
        };
        let _ = registry.delete(
            &def,
            &dependent.key.namespace,
            &dependent.key.name,
            &DeleteOptions {
                propagation_policy: Some(policy.into()),
                precondition_uid: Some(dependent.uid.clone()),
                ..Default::default()
            },
        );
    }
}

pub fn spawn_namespaces(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::matching(&ctx.registry, |e| !is_noise(&e.key.resource));
    spawn_loop(changes, Duration::from_secs(30), move || {
        let terminating = finalize_namespaces(&ctx);
        terminating.then(|| Duration::from_millis(500))
    })
}

/// Deletes the content of terminating namespaces and removes those that became empty;
/// returns whether some namespace is still terminating.
pub fn finalize_namespaces(ctx: &Context) -> bool {
    let ns_def = ctx.def("", "namespaces");
    let (namespaces, _) = ctx.registry.list(&ns_def, None);
    let mut still_terminating = false;
    for ns in namespaces.iter().filter(|n| super::is_deleting(n)) {
        let name = super::name_of(ns).to_string();
        let mut content: Vec<(ObjectKey, bool)> = vec![];
        ctx.registry.store.for_each(|key, obj| {
            if key.namespace == name {
                content.push((
                    key.clone(),
                    obj["metadata"]["deletionTimestamp"].is_string(),
                ));
            }
        });
        for (key, deleting) in &content {
            if *deleting {
                continue;
            }
            if let Some(def) = def_for_key(&ctx.registry, key) {
                let _ =
                    ctx.registry
                        .delete(&def, &key.namespace, &key.name, &DeleteOptions::default());
            }
        }
        let mut remaining: BTreeMap<String, usize> = BTreeMap::new();
        ctx.registry.store.for_each(|key, _| {
            if key.namespace == name {
                let label = if key.group.is_empty() {
                    key.resource.clone()
                } else {
                    format!("{}.{}", key.resource, key.group)
                };
                *remaining.entry(label).or_default() += 1;
            }
        });
        let opts = writer(CONTROLLER_MANAGER, "");
        if remaining.is_empty() {
            // `PUT /finalize` without "kubernetes": the namespace disappears.
            let _ = ctx.registry.update_with(&ns_def, "", &name, &opts, |n| {
                n["spec"]["finalizers"] = json!([]);
                Ok(())
            });
            continue;
        }
        still_terminating = true;
        let summary: Vec<String> = remaining
            .iter()
            .map(|(r, n)| format!("{r} has {n} resource instances"))
            .collect();
        let time = now();
        let mut conditions = ns["status"]["conditions"].clone();
        for (ty, status, reason, message) in [
            (
                "NamespaceDeletionDiscoveryFailure",
                "False",
                "ResourcesDiscovered",
                "All resources successfully discovered".to_string(),
            ),
            (
                "NamespaceDeletionGroupVersionParsingFailure",
                "False",
                "ParsedGroupVersions",
                "All legacy kube types successfully parsed".to_string(),
            ),
            (
                "NamespaceDeletionContentFailure",
                "False",
                "ContentDeleted",
                "All content successfully deleted, may be waiting on finalization".to_string(),
            ),
            (
                "NamespaceContentRemaining",
                "True",
                "SomeResourcesRemain",
                format!("Some resources are remaining: {}", summary.join(", ")),
            ),
            (
                "NamespaceFinalizersRemaining",
                "False",
                "ContentHasNoFinalizers",
                "All content-preserving finalizers finished".to_string(),
            ),
        ] {
            conditions = set_condition(
                &conditions,
                ty,
                status,
                json!({"reason": reason, "message": message}),
                &time,
            );
        }
        if ns["status"]["conditions"] != conditions {
            let _ = ctx.registry.update_with(
                &ns_def,
                "",
                &name,
                &writer(CONTROLLER_MANAGER, "status"),
                |n| {
                    n["status"]["conditions"] = conditions.clone();
                    Ok(())
                },
            );
        }
    }
    still_terminating
}
