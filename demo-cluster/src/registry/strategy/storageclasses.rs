//! storage.k8s.io/v1 StorageClasses: v1 defaults, the provisioner and its parameters fixed
//! at creation, kubectl's columns.

use serde_json::{json, Value};

use super::common::{default_field, immutable_fields};
use super::printing::{age, c, named, s, Col, Printer, NAME};
use super::Strategy;
use crate::status::Cause;

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
    c("Provisioner", 0),
    c("ReclaimPolicy", 0),
    c("VolumeBindingMode", 0),
    c("AllowVolumeExpansion", 0),
    c("Age", 0),
];

fn cells(o: &Value) -> Vec<Value> {
    let mut cells = named(
        o,
        [
            json!(s(&o["provisioner"])),
            json!(s(&o["reclaimPolicy"])),
            json!(s(&o["volumeBindingMode"])),
            json!(o["allowVolumeExpansion"].as_bool().unwrap_or(false)),
            age(o),
        ],
    );
    // kubectl marks the cluster's default class by its name.
    let annotations = &o["metadata"]["annotations"];
    if annotations["storageclass.kubernetes.io/is-default-class"] == "true" {
        cells[0] = json!(format!("{} (default)", s(&o["metadata"]["name"])));
    }
    cells
}
