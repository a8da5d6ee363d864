//! The PersistentVolume controller (`persistentvolume-binder`) with a simulated dynamic
//! provisioner, as kube-controller-manager and a CSI/local-path provisioner do together:
//! a claim gets the default StorageClass when it names none, binds the smallest Available
//! volume that fits, or else a volume provisioned for it (`pvc-<claim uid>`; for classes
//! with `WaitForFirstConsumer` once a pod using it is scheduled). Volumes are Available,
//! Bound, or when their claim goes, deleted (`Delete`) or Released (`Retain`).

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::events::EventSpec;
use super::{
    is_deleting, name_of, namespace_of, spawn_reconciler, uid_of, write_status, writer, Context,
    CONTROLLER_MANAGER,
};
use crate::registry::DeleteOptions;

/// The annotation marking a StorageClass as the cluster's default.
const DEFAULT_CLASS: &str = "storageclass.kubernetes.io/is-default-class";
/// A class whose volumes are all created by an administrator.
const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";
/// The Event source of kube-controller-manager's PersistentVolume controller.
const VOLUME_CONTROLLER: &str = "persistentvolume-controller";
/// How often the real controller syncs each claim (its resync period).
const CLAIM_RESYNC_SECONDS: f64 = 15.0;

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    spawn_reconciler(
        ctx,
        &[
            ("", "persistentvolumeclaims"),
            ("", "persistentvolumes"),
            ("storage.k8s.io", "storageclasses"),
            ("", "pods"),
        ],
        reconcile,
    )
}

/// What one pass knows of the cluster's storage.
struct Cluster {
    classes: Vec<Value>,
    volumes: Vec<Value>,
}

impl Cluster {
    fn class(&self, name: &str) -> Option<&Value> {
        self.classes.iter().find(|c| name_of(c) == name)
    }

    /// The newest class marked default (the real admission plugin's choice among several).
    fn default_class(&self) -> Option<&Value> {
        self.classes
            .iter()
            .filter(|c| c["metadata"]["annotations"][DEFAULT_CLASS] == "true")
            .max_by_key(|c| {
                c["metadata"]["creationTimestamp"]
                    .as_str()
                    .unwrap_or_default()
            })
    }
}

pub fn reconcile(ctx: &Context) {
    let registry = &ctx.registry;
    let (classes, _) = registry.list(&ctx.def("storage.k8s.io", "storageclasses"), None);
    let (volumes, _) = registry.list(&ctx.def("", "persistentvolumes"), None);
    let (claims, _) = registry.list(&ctx.def("", "persistentvolumeclaims"), None);
    let mut cluster = Cluster { classes, volumes };
    for claim in &claims {
        if !is_deleting(claim) {
            sync_claim(ctx, &mut cluster, claim);
        }
    }
    for volume in &cluster.volumes {
        sync_volume(ctx, volume, &claims);
    }
}

fn sync_claim(ctx: &Context, cluster: &mut Cluster, claim: &Value) {
    let spec = &claim["spec"];
    let bound_to = spec["volumeName"].as_str().unwrap_or_default();
    if claim["status"]["phase"] == "Bound" && !bound_to.is_empty() {
        return;
    }
    if spec["storageClassName"].is_null() {
        if let Some(class) = cluster.default_class() {
            let class = name_of(class).to_string();
            let _ = ctx.registry.update_with(
                &ctx.def("", "persistentvolumeclaims"),
                namespace_of(claim),
                name_of(claim),
                &writer(CONTROLLER_MANAGER, ""),
                |current| {
                    current["spec"]["storageClassName"] = json!(class);
                    Ok(())
                },
            );
            // The update wakes the next pass, which binds the claim as it now reads.
            return;
        }
    }
    let volume = if bound_to.is_empty() {
        match best_fit(&cluster.volumes, claim) {
            Some(found) => Some(found),
            None => provision(ctx, cluster, claim),
        }
    } else {
        cluster
            .volumes
            .iter()
            .find(|v| name_of(v) == bound_to)
            .cloned()
    };
    if let Some(volume) = volume {
        bind(ctx, cluster, claim, &volume);
    }
}

/// The smallest Available volume of the claim's class with its access modes and room for
/// its request (or the one reserved for it by a `claimRef`).
fn best_fit(volumes: &[Value], claim: &Value) -> Option<Value> {
    let wanted = storage_bytes(&claim["spec"]["resources"]["requests"]["storage"])?;
    let class = claim["spec"]["storageClassName"]
        .as_str()
        .unwrap_or_default();
    let modes = claim["spec"]["accessModes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    volumes
        .iter()
        .filter(|v| !is_deleting(v))
        .filter(|v| {
            let reserved = &v["spec"]["claimRef"];
            if reserved.is_object() {
                reserved["name"] == claim["metadata"]["name"]
                    && reserved["namespace"] == claim["metadata"]["namespace"]
                    && (reserved["uid"].is_null() || reserved["uid"] == claim["metadata"]["uid"])
            } else {
                v["status"]["phase"] == "Available"
            }
        })
        .filter(|v| v["spec"]["storageClassName"].as_str().unwrap_or_default() == class)
        .filter(|v| {
            let offered = v["spec"]["accessModes"].as_array();
            modes.iter().all(|m| offered.is_some_and(|o| o.contains(m)))
        })
        .filter_map(|v| Some((storage_bytes(&v["spec"]["capacity"]["storage"])?, v)))
        .filter(|(size, _)| *size >= wanted)
        .min_by(|(a, _), (b, _)| a.total_cmp(b))
        .map(|(_, v)| v.clone())
}

/// The node of a scheduled pod mounting `claim`, which `WaitForFirstConsumer` waits for.
fn consumer_node(ctx: &Context, claim: &Value) -> Option<String> {
    let (pods, _) = ctx
        .registry
        .list(&ctx.def("", "pods"), Some(namespace_of(claim)));
    pods.iter()
        .filter(|pod| {
            pod["spec"]["volumes"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|v| v["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"])
        })
        .find_map(|pod| pod["spec"]["nodeName"].as_str().map(String::from))
}

/// Creates the claim's volume as its class's provisioner would, when it has one.
fn provision(ctx: &Context, cluster: &mut Cluster, claim: &Value) -> Option<Value> {
    let class_name = claim["spec"]["storageClassName"].as_str()?;
    let class = cluster.class(class_name)?;
    let provisioner = class["provisioner"].as_str().unwrap_or(NO_PROVISIONER);
    if provisioner == NO_PROVISIONER {
        return None;
    }
    let node = if class["volumeBindingMode"] == "WaitForFirstConsumer" {
        let Some(node) = consumer_node(ctx, claim) else {
            // The real controller says so on each sync of the claim (every 15 s).
            ctx.recorder.record_unless_within(
                claim,
                EventSpec::normal(
                    "WaitForFirstConsumer",
                    "waiting for first consumer to be created before binding",
                )
                .by(VOLUME_CONTROLLER, CONTROLLER_MANAGER),
                ctx.scaled(CLAIM_RESYNC_SECONDS),
            );
            return None;
        };
        Some(node)
    } else {
        None
    };
    let name = format!("pvc-{}", uid_of(claim));
    let mut spec = json!({
        "capacity": {"storage": claim["spec"]["resources"]["requests"]["storage"]},
        "accessModes": claim["spec"]["accessModes"],
        "persistentVolumeReclaimPolicy": class["reclaimPolicy"].as_str().unwrap_or("Delete"),
        "storageClassName": class_name,
        "volumeMode": claim["spec"]["volumeMode"],
        "claimRef": claim_ref(claim),
        "hostPath": {
            "path": format!("/var/local-path-provisioner/{name}_{}_{}", namespace_of(claim), name_of(claim)),
            "type": "DirectoryOrCreate",
        },
    });
    if let Some(node) = node {
        spec["nodeAffinity"] = json!({"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}});
    }
    let volume = json!({
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {"pv.kubernetes.io/provisioned-by": provisioner}},
        "spec": spec,
    });
    let created = ctx
        .registry
        .create(
            &ctx.def("", "persistentvolumes"),
            "",
            volume,
            &writer(provisioner, ""),
        )
        .ok()?;
    cluster.volumes.push(created.clone());
    Some(created)
}

fn claim_ref(claim: &Value) -> Value {
    json!({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "namespace": namespace_of(claim), "name": name_of(claim), "uid": uid_of(claim),
        "resourceVersion": claim["metadata"]["resourceVersion"],
    })
}

/// Binds both ways: the volume's `claimRef` and Bound phase, then the claim's `volumeName`,
/// annotations and Bound status with the volume's capacity and access modes.
fn bind(ctx: &Context, cluster: &mut Cluster, claim: &Value, volume: &Value) {
    let volumes_def = ctx.def("", "persistentvolumes");
    let reference = claim_ref(claim);
    let volume = if volume["spec"]["claimRef"]["uid"] == reference["uid"] {
        volume.clone()
    } else {
        let updated = ctx.registry.update_with(
            &volumes_def,
            "",
            name_of(volume),
            &writer(CONTROLLER_MANAGER, ""),
            |current| {
                current["spec"]["claimRef"] = reference.clone();
                Ok(())
            },
        );
        match updated {
            Ok(updated) => updated,
            Err(_) => return,
        }
    };
    write_status(ctx, &volumes_def, &volume, json!({"phase": "Bound"}));
    if let Some(known) = cluster
        .volumes
        .iter_mut()
        .find(|v| name_of(v) == name_of(&volume))
    {
        // So this pass's volume sync sees it taken.
        *known = volume.clone();
        known["status"] = json!({"phase": "Bound"});
    }
    let claims_def = ctx.def("", "persistentvolumeclaims");
    let provisioner = volume["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"].clone();
    let pre_bound = claim["spec"]["volumeName"]
        .as_str()
        .is_some_and(|v| !v.is_empty());
    let bound = ctx.registry.update_with(
        &claims_def,
        namespace_of(claim),
        name_of(claim),
        &writer(CONTROLLER_MANAGER, ""),
        |current| {
            current["spec"]["volumeName"] = json!(name_of(&volume));
            let annotations = &mut current["metadata"]["annotations"];
            if !annotations.is_object() {
                *annotations = json!({});
            }
            annotations["pv.kubernetes.io/bind-completed"] = json!("yes");
            if !pre_bound {
                annotations["pv.kubernetes.io/bound-by-controller"] = json!("yes");
            }
            if let Some(provisioner) = provisioner.as_str() {
                annotations["volume.kubernetes.io/storage-provisioner"] = json!(provisioner);
                annotations["volume.beta.kubernetes.io/storage-provisioner"] = json!(provisioner);
            }
            Ok(())
        },
    );
    if let Ok(bound) = bound {
        let status = json!({
            "phase": "Bound",
            "accessModes": volume["spec"]["accessModes"],
            "capacity": volume["spec"]["capacity"],
        });
        write_status(ctx, &claims_def, &bound, status);
    }
}

/// A volume's phase from its claim: Available without one, Bound to it, and once it is gone
/// deleted or Released as its reclaim policy says.
fn sync_volume(ctx: &Context, volume: &Value, claims: &[Value]) {
    if is_deleting(volume) {
        return;
    }
    let volumes_def = ctx.def("", "persistentvolumes");
    let reference = &volume["spec"]["claimRef"];
    if !reference.is_object() {
        write_status(ctx, &volumes_def, volume, json!({"phase": "Available"}));
        return;
    }
    let claim = claims.iter().find(|c| {
        c["metadata"]["name"] == reference["name"]
            && c["metadata"]["namespace"] == reference["namespace"]
    });
    let claim_gone = match claim {
        None => reference["uid"].is_string(),
        Some(claim) => reference["uid"].is_string() && reference["uid"] != claim["metadata"]["uid"],
    };
    if !claim_gone {
        let bound = claim.is_some_and(|c| c["spec"]["volumeName"] == volume["metadata"]["name"]);
        if bound {
            write_status(ctx, &volumes_def, volume, json!({"phase": "Bound"}));
        } else if volume["status"]["phase"]
            .as_str()
            .is_none_or(|p| p == "Pending")
        {
            // Reserved for a claim not bound yet: Available until the claim's pass binds it.
            write_status(ctx, &volumes_def, volume, json!({"phase": "Available"}));
        }
        return;
    }
    if volume["spec"]["persistentVolumeReclaimPolicy"] == "Delete" {
        let _ = ctx
            .registry
            .delete(&volumes_def, "", name_of(volume), &DeleteOptions::default());
    } else {
        write_status(ctx, &volumes_def, volume, json!({"phase": "Released"}));
    }
}

/// A storage quantity in bytes (`1Gi`, `500M`, `1e9`, `1024`).
pub fn storage_bytes(quantity: &Value) -> Option<f64> {
    let text = quantity.as_str().map(str::trim)?;
    const SUFFIXES: &[(&str, f64)] = &[
        ("Ki", 1024.0),
        ("Mi", 1048576.0),
        ("Gi", 1073741824.0),
        ("Ti", 1099511627776.0),
        ("Pi", 1125899906842624.0),
        ("Ei", 1152921504606846976.0),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("P", 1e15),
        ("E", 1e18),
        ("m", 1e-3),
    ];
    let (number, factor) = SUFFIXES
        .iter()
        .find_map(|(suffix, factor)| Some((text.strip_suffix(suffix)?, *factor)))
        .unwrap_or((text, 1.0));
    let value: f64 = number.parse().ok()?;
    (value.is_finite() && value >= 0.0).then_some(value * factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_quantities_compare_across_suffixes() {
        let bytes = |q: &str| storage_bytes(&json!(q));
        assert_eq!(bytes("1Gi"), Some(1073741824.0));
        assert_eq!(bytes("1024Mi"), bytes("1Gi"));
        assert!(bytes("2G") < bytes("2Gi"));
        assert_eq!(bytes("1e3"), bytes("1k"));
        assert_eq!(bytes("lots"), None);
        assert_eq!(bytes("-1Gi"), None);
    }

    #[test]
    fn the_smallest_fitting_available_volume_of_the_class_is_chosen() {
        let volume = |name: &str, size: &str, class: &str, phase: &str| {
            json!({"metadata": {"name": name},
                   "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                            "storageClassName": class},
                   "status": {"phase": phase}})
        };
        let volumes = [
            volume("big", "10Gi", "fast", "Available"),
            volume("small", "1Gi", "fast", "Available"),
            volume("fits", "2Gi", "fast", "Available"),
            volume("taken", "2Gi", "fast", "Bound"),
            volume("other-class", "2Gi", "slow", "Available"),
        ];
        let claim = json!({"metadata": {"name": "data", "namespace": "ns", "uid": "u"},
            "spec": {"storageClassName": "fast", "accessModes": ["ReadWriteOnce"],
                     "resources": {"requests": {"storage": "1500Mi"}}}});
        let chosen = best_fit(&volumes, &claim);
        assert_eq!(chosen.as_ref().map(name_of), Some("fits"));
        let mut many = claim.clone();
        many["spec"]["accessModes"] = json!(["ReadWriteMany"]);
        assert!(best_fit(&volumes, &many).is_none());
    }
}
