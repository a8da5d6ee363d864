//! storage.k8s.io/v1 VolumeAttributesClasses: kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::storage::v1::VolumeAttributesClass;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "storage.k8s.io",
        "volumeattributesclasses",
        "VolumeAttributesClass",
        false,
    )
    .short(&["vac"])
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<VolumeAttributesClass>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(ATTRIBUTES_COLUMNS, attributes_cells));

const ATTRIBUTES_COLUMNS: &[Col] = &[NAME, column("DriverName", 0), column("Age", 0)];

fn attributes_cells(o: &Value) -> Vec<Value> {
    named(o, [json!(value_text(&o["driverName"])), age(o)])
}
