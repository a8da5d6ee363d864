//! storage.k8s.io/v1 VolumeAttachments: kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, boolean, column, name_format, named, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::storage::v1::VolumeAttachment;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "storage.k8s.io",
        "volumeattachments",
        "VolumeAttachment",
        false,
    )
    .status()
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<VolumeAttachment>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(ATTACHMENT_COLUMNS, attachment_cells));

const ATTACHMENT_COLUMNS: &[Col] = &[
    NAME,
    name_format("Attacher", 0),
    column("PV", 0),
    column("Node", 0),
    boolean("Attached", 0),
    column("Age", 0),
];

fn attachment_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    named(
        o,
        [
            json!(value_text(&spec["attacher"])),
            json!(value_text(&spec["source"]["persistentVolumeName"])),
            json!(value_text(&spec["nodeName"])),
            json!(o["status"]["attached"].as_bool().unwrap_or(false)),
            age(o),
        ],
    )
}
