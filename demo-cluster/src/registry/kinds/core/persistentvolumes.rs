//! core/v1 PersistentVolumes: v1 defaults, Pending until the volume controller
//! (`controllers::volumes`) binds them, kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, ensure_object};
use crate::registry::strategy::printing::{
    age, column, named, reference, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::{CreateContext, Strategy};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::PersistentVolume;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("", "persistentvolumes", "PersistentVolume", false)
        .short(&["pv"])
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<PersistentVolume>(generator);

pub(crate) static STRATEGY: PersistentVolumes = PersistentVolumes;

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

/// kubectl's short access modes (RWO, ROX, RWX, RWOP).
pub(crate) fn access_modes(spec: &Value) -> String {
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
    column("Capacity", 0),
    column("Access Modes", 0),
    column("Reclaim Policy", 0),
    column("Status", 0),
    column("Claim", 0),
    column("StorageClass", 0),
    column("VolumeAttributesClass", 0),
    column("Reason", 0),
    column("Age", 0),
    column("VolumeMode", 1),
];

fn volume_cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let claim = reference(&spec["claimRef"], "namespace", "name").unwrap_or_default();
    named(
        o,
        [
            json!(value_text(&spec["capacity"]["storage"])),
            json!(access_modes(spec)),
            json!(value_text(&spec["persistentVolumeReclaimPolicy"])),
            json!(value_text(&st["phase"])),
            json!(claim),
            json!(value_text(&spec["storageClassName"])),
            unset_if_empty(value_text(&spec["volumeAttributesClassName"])),
            json!(value_text(&st["reason"])),
            age(o),
            json!(value_text(&spec["volumeMode"])),
        ],
    )
}

/// kube-apiserver prints an absent VolumeAttributesClass as `<unset>`.
pub(crate) fn unset_if_empty(name: String) -> Value {
    if name.is_empty() {
        json!("<unset>")
    } else {
        json!(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
