//! core/v1 PersistentVolumeClaims: v1 defaults, Pending until the volume controller
//! (`controllers::volumes`) binds them, a claim's spec fixed at creation but for its
//! requests, kubectl's columns.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::strategy::common::{default_field, ensure_object, immutable_fields};
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::{CreateContext, Strategy};

use super::persistentvolumes::{access_modes, unset_if_empty};
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::PersistentVolumeClaim;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("", "persistentvolumeclaims", "PersistentVolumeClaim", true)
        .short(&["pvc"])
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<PersistentVolumeClaim>(generator);

pub(crate) static STRATEGY: PersistentVolumeClaims = PersistentVolumeClaims;

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

const CLAIM_COLUMNS: &[Col] = &[
    NAME,
    column("Status", 0),
    column("Volume", 0),
    column("Capacity", 0),
    column("Access Modes", 0),
    column("StorageClass", 0),
    column("VolumeAttributesClass", 0),
    column("Age", 0),
    column("VolumeMode", 1),
];

fn claim_cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let bound = st["phase"] == "Bound";
    let (capacity, modes) = if bound {
        (value_text(&st["capacity"]["storage"]), access_modes(st))
    } else {
        (String::new(), String::new())
    };
    named(
        o,
        [
            json!(value_text(&st["phase"])),
            json!(value_text(&spec["volumeName"])),
            json!(capacity),
            json!(modes),
            json!(value_text(&spec["storageClassName"])),
            unset_if_empty(value_text(&spec["volumeAttributesClassName"])),
            age(o),
            json!(value_text(&spec["volumeMode"])),
        ],
    )
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
}
