//! core/v1 PersistentVolumes and PersistentVolumeClaims: v1 defaults, Pending until the
//! volume controller (`controllers::volumes`) binds them, a claim's spec fixed at creation
//! but for its requests, kubectl's columns.

use serde_json::{json, Value};

use super::common::{default_field, ensure_object, immutable_fields};
use super::printing::{age, c, named, reference, s, Col, Printer, NAME};
use super::{CreateContext, Strategy};
use crate::status::Cause;

pub struct PersistentVolumes;

impl Strategy for PersistentVolumes {
    fn default_fields(&self, obj: &mut Value) {
        let spec = ensure_object(obj, "spec");
        default_field(spec, "persistentVolumeReclaimPolicy", json!("Retain"));
        default_field(spec, "volumeMode", json!("Filesystem"));
    }

    fn prepare_for_create(&self, obj: &mut Value, _: &CreateContext) {
        obj["status"] = json!({"phase": "Pending"});
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(VOLUME_COLUMNS, volume_cells))
    }
}

pub struct PersistentVolumeClaims;

impl Strategy for PersistentVolumeClaims {
    fn default_fields(&self, obj: &mut Value) {
        default_field(
            ensure_object(obj, "spec"),
            "volumeMode",
            json!("Filesystem"),
        );
    }

    fn prepare_for_create(&self, obj: &mut Value, _: &CreateContext) {
        obj["status"] = json!({"phase": "Pending"});
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        let spec = &obj["spec"];
        let mut causes = vec![];
        if spec["accessModes"].as_array().is_none_or(Vec::is_empty) {
            causes.push(Cause::required("spec.accessModes"));
        }
        if spec["resources"]["requests"]["storage"].is_null() {
            causes.push(Cause::required("spec.resources[storage]"));
        }
        causes
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        // Only the requests may grow (volume expansion); the rest is the claim's contract,
        // but for what the volume controller fills in once: the class of a claim made
        // without one (retroactive default class) and the volume it binds.
        let mut fixed: Vec<&[&str]> = vec![
            &["spec", "accessModes"],
            &["spec", "selector"],
            &["spec", "volumeMode"],
            &["spec", "dataSource"],
        ];
        if !old["spec"]["storageClassName"].is_null() {
            fixed.push(&["spec", "storageClassName"]);
        }
        if old["spec"]["volumeName"]
            .as_str()
            .is_some_and(|v| !v.is_empty())
        {
            fixed.push(&["spec", "volumeName"]);
        }
        immutable_fields(old, new, &fixed)
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(CLAIM_COLUMNS, claim_cells))
    }
}

/// kubectl's short access modes (RWO, ROX, RWX, RWOP).
fn access_modes(spec: &Value) -> String {
    spec["accessModes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|mode| match mode.as_str().unwrap_or_default() {
            "ReadWriteOnce" => "RWO".to_string(),
            "ReadOnlyMany" => "ROX".to_string(),
            "ReadWriteMany" => "RWX".to_string(),
            "ReadWriteOncePod" => "RWOP".to_string(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

const VOLUME_COLUMNS: &[Col] = &[
    NAME,
    c("Capacity", 0),
    c("Access Modes", 0),
    c("Reclaim Policy", 0),
    c("Status", 0),
    c("Claim", 0),
    c("StorageClass", 0),
    c("VolumeAttributesClass", 0),
    c("Reason", 0),
    c("Age", 0),
    c("VolumeMode", 1),
];

fn volume_cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let claim = reference(&spec["claimRef"], "namespace", "name").unwrap_or_default();
    named(
        o,
        [
            json!(s(&spec["capacity"]["storage"])),
            json!(access_modes(spec)),
            json!(s(&spec["persistentVolumeReclaimPolicy"])),
            json!(s(&st["phase"])),
            json!(claim),
            json!(s(&spec["storageClassName"])),
            unset_if_empty(s(&spec["volumeAttributesClassName"])),
            json!(s(&st["reason"])),
            age(o),
            json!(s(&spec["volumeMode"])),
        ],
    )
}

const CLAIM_COLUMNS: &[Col] = &[
    NAME,
    c("Status", 0),
    c("Volume", 0),
    c("Capacity", 0),
    c("Access Modes", 0),
    c("StorageClass", 0),
    c("VolumeAttributesClass", 0),
    c("Age", 0),
    c("VolumeMode", 1),
];

fn claim_cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let bound = st["phase"] == "Bound";
    let (capacity, modes) = if bound {
        (s(&st["capacity"]["storage"]), access_modes(st))
    } else {
        (String::new(), String::new())
    };
    named(
        o,
        [
            json!(s(&st["phase"])),
            json!(s(&spec["volumeName"])),
            json!(capacity),
            json!(modes),
            json!(s(&spec["storageClassName"])),
            unset_if_empty(s(&spec["volumeAttributesClassName"])),
            age(o),
            json!(s(&spec["volumeMode"])),
        ],
    )
}

/// kube-apiserver prints an absent VolumeAttributesClass as `<unset>`.
fn unset_if_empty(name: String) -> Value {
    if name.is_empty() {
        json!("<unset>")
    } else {
        json!(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(causes: Vec<Cause>) -> Vec<String> {
        causes.into_iter().map(|c| c.field).collect()
    }

    fn claim() -> Value {
        json!({"metadata": {"name": "data"}, "spec": {
            "accessModes": ["ReadWriteOnce"], "storageClassName": "standard",
            "resources": {"requests": {"storage": "1Gi"}}}})
    }

    #[test]
    fn a_claim_needs_access_modes_and_storage_and_only_its_requests_change() {
        let mut pvc = claim();
        PersistentVolumeClaims.default_fields(&mut pvc);
        assert_eq!(pvc["spec"]["volumeMode"], "Filesystem");
        assert!(PersistentVolumeClaims.validate(&pvc).is_empty());
        let empty = json!({"metadata": {"name": "data"}, "spec": {}});
        assert_eq!(
            fields(PersistentVolumeClaims.validate(&empty)),
            ["spec.accessModes", "spec.resources[storage]"]
        );

        let mut grown = pvc.clone();
        grown["spec"]["resources"]["requests"]["storage"] = json!("2Gi");
        assert!(PersistentVolumeClaims
            .validate_update(&pvc, &grown)
            .is_empty());
        let mut changed = pvc.clone();
        changed["spec"]["accessModes"] = json!(["ReadWriteMany"]);
        changed["spec"]["storageClassName"] = json!("fast");
        assert_eq!(
            fields(PersistentVolumeClaims.validate_update(&pvc, &changed)),
            ["spec.accessModes", "spec.storageClassName"]
        );
    }

    #[test]
    fn the_volume_controller_may_fill_in_the_class_and_volume_once() {
        let mut unbound = claim();
        unbound["spec"]
            .as_object_mut()
            .unwrap()
            .remove("storageClassName");
        let mut bound = unbound.clone();
        bound["spec"]["storageClassName"] = json!("standard");
        bound["spec"]["volumeName"] = json!("pv-1");
        assert!(PersistentVolumeClaims
            .validate_update(&unbound, &bound)
            .is_empty());
        let mut rebound = bound.clone();
        rebound["spec"]["volumeName"] = json!("pv-2");
        assert_eq!(
            fields(PersistentVolumeClaims.validate_update(&bound, &rebound)),
            ["spec.volumeName"]
        );
    }

    #[test]
    fn the_claim_printer_shows_status_volume_capacity_modes_and_class() {
        let names: Vec<&str> = CLAIM_COLUMNS.iter().map(|c| c.name).collect();
        assert_eq!(
            names[..6],
            [
                "Name",
                "Status",
                "Volume",
                "Capacity",
                "Access Modes",
                "StorageClass"
            ]
        );
        let mut pvc = claim();
        pvc["status"] = json!({"phase": "Pending"});
        let row = claim_cells(&pvc);
        assert_eq!(
            row[..7],
            [
                json!("data"),
                json!("Pending"),
                json!(""),
                json!(""),
                json!(""),
                json!("standard"),
                json!("<unset>")
            ]
        );
        pvc["spec"]["volumeName"] = json!("pv-1");
        pvc["status"] = json!({"phase": "Bound", "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce", "ReadOnlyMany"]});
        let row = claim_cells(&pvc);
        assert_eq!(
            row[1..6],
            [
                json!("Bound"),
                json!("pv-1"),
                json!("1Gi"),
                json!("RWO,ROX"),
                json!("standard")
            ]
        );
    }

    #[test]
    fn a_volume_defaults_to_retain_and_prints_its_claim() {
        let mut pv = json!({"metadata": {"name": "pv-1"}, "spec": {
            "capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteOncePod"],
            "storageClassName": "standard",
            "claimRef": {"namespace": "default", "name": "data"}},
            "status": {"phase": "Bound"}});
        PersistentVolumes.default_fields(&mut pv);
        assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
        let row = volume_cells(&pv);
        assert_eq!(
            row[..7],
            [
                json!("pv-1"),
                json!("5Gi"),
                json!("RWOP"),
                json!("Retain"),
                json!("Bound"),
                json!("default/data"),
                json!("standard")
            ]
        );
        assert_eq!(row[10], "Filesystem");
    }
}
