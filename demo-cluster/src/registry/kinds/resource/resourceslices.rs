//! resource.k8s.io/v1 ResourceSlices: kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::resource::v1::ResourceSlice;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("resource.k8s.io", "resourceslices", "ResourceSlice", false).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ResourceSlice>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(SLICE_COLUMNS, slice_cells));

const SLICE_COLUMNS: &[Col] = &[
    NAME,
    column("Node", 0),
    column("Driver", 0),
    column("Pool", 0),
    column("Age", 0),
];

fn slice_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    named(
        o,
        [
            json!(value_text(&spec["nodeName"])),
            json!(value_text(&spec["driver"])),
            json!(value_text(&spec["pool"]["name"])),
            age(o),
        ],
    )
}
