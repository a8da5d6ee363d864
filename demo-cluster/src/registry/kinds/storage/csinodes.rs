//! storage.k8s.io/v1 CSINodes: kubectl's columns (the driver count).

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, count, named, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::storage::v1::CSINode;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("storage.k8s.io", "csinodes", "CSINode", false).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<CSINode>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(NODE_COLUMNS, node_cells));

const NODE_COLUMNS: &[Col] = &[NAME, count("Drivers", 0), column("Age", 0)];

fn node_cells(o: &Value) -> Vec<Value> {
    let drivers = o["spec"]["drivers"].as_array().map_or(0, Vec::len);
    named(o, [json!(drivers), age(o)])
}
