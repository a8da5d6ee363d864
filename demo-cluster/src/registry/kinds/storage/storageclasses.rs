//! storage.k8s.io/v1 StorageClasses: v1 defaults, the provisioner and its parameters fixed
//! at creation, kubectl's columns.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, immutable_fields};
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::storage::v1::StorageClass;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("storage.k8s.io", "storageclasses", "StorageClass", false)
        .short(&["sc"])
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<StorageClass>(generator);

pub(crate) static STRATEGY: StorageClasses = StorageClasses;

pub struct StorageClasses;

impl Strategy for StorageClasses {
    fn default_fields(&self, obj: &mut Value) {
        if let Some(m) = obj.as_object_mut() {
            default_field(m, "reclaimPolicy", json!("Delete"));
            default_field(m, "volumeBindingMode", json!("Immediate"));
        }
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        if obj["provisioner"].as_str().is_none_or(str::is_empty) {
            vec![Cause::required("provisioner")]
        } else {
            vec![]
        }
    }

    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutable_fields(
            old,
            new,
            &[
                &["provisioner"],
                &["parameters"],
                &["reclaimPolicy"],
                &["volumeBindingMode"],
            ],
        )
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

const COLUMNS: &[Col] = &[
    NAME,
    column("Provisioner", 0),
    column("ReclaimPolicy", 0),
    column("VolumeBindingMode", 0),
    column("AllowVolumeExpansion", 0),
    column("Age", 0),
];

fn cells(o: &Value) -> Vec<Value> {
    let mut cells = named(
        o,
        [
            json!(value_text(&o["provisioner"])),
            json!(value_text(&o["reclaimPolicy"])),
            json!(value_text(&o["volumeBindingMode"])),
            json!(o["allowVolumeExpansion"].as_bool().unwrap_or(false)),
            age(o),
        ],
    );
    // kubectl marks the cluster's default class by its name.
    let annotations = &o["metadata"]["annotations"];
    if annotations["storageclass.kubernetes.io/is-default-class"] == "true" {
        cells[0] = json!(format!("{} (default)", value_text(&o["metadata"]["name"])));
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class() -> Value {
        let mut sc = json!({"metadata": {"name": "standard",
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
            "provisioner": "rancher.io/local-path", "parameters": {"type": "ssd"}});
        StorageClasses.default_fields(&mut sc);
        sc
    }

    #[test]
    fn defaults_and_a_provisioner_fixed_at_creation() {
        let sc = class();
        assert_eq!(sc["reclaimPolicy"], "Delete");
        assert_eq!(sc["volumeBindingMode"], "Immediate");
        assert!(StorageClasses.validate(&sc).is_empty());
        let missing = json!({"metadata": {"name": "x"}});
        assert_eq!(StorageClasses.validate(&missing)[0].field, "provisioner");
        let mut changed = sc.clone();
        changed["provisioner"] = json!("ebs.csi.aws.com");
        changed["parameters"] = json!({"type": "gp3"});
        changed["allowVolumeExpansion"] = json!(true);
        let fields: Vec<String> = StorageClasses
            .validate_update(&sc, &changed)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(fields, ["provisioner", "parameters"]);
    }

    #[test]
    fn the_default_class_is_marked_in_the_name_cell() {
        let row = cells(&class());
        assert_eq!(
            row[..4],
            [
                json!("standard (default)"),
                json!("rancher.io/local-path"),
                json!("Delete"),
                json!("Immediate")
            ]
        );
        let mut other = class();
        other["metadata"]["annotations"] = json!({});
        assert_eq!(cells(&other)[0], "standard");
    }
}
