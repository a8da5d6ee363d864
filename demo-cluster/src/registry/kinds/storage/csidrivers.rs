//! storage.k8s.io/v1 CSIDrivers: kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, boolean, column, named, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::storage::v1::CSIDriver;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("storage.k8s.io", "csidrivers", "CSIDriver", false).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<CSIDriver>(generator);

/// `items` joined with commas, or `empty` when there are none.
fn joined(items: Vec<String>, empty: &str) -> String {
    if items.is_empty() {
        empty.to_string()
    } else {
        items.join(",")
    }
}

pub static STRATEGY: Printed = Printed(Printer::new(DRIVER_COLUMNS, driver_cells));

const DRIVER_COLUMNS: &[Col] = &[
    NAME,
    boolean("AttachRequired", 0),
    boolean("PodInfoOnMount", 0),
    boolean("StorageCapacity", 0),
    column("TokenRequests", 0),
    boolean("RequiresRepublish", 0),
    column("Modes", 0),
    column("Age", 0),
];

fn driver_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let strings = |v: &Value, field: &str| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|x| {
                if field.is_empty() {
                    value_text(x)
                } else {
                    value_text(&x[field])
                }
            })
            .collect()
    };
    named(
        o,
        [
            json!(spec["attachRequired"].as_bool().unwrap_or(true)),
            json!(spec["podInfoOnMount"].as_bool().unwrap_or(false)),
            json!(spec["storageCapacity"].as_bool().unwrap_or(false)),
            json!(joined(
                strings(&spec["tokenRequests"], "audience"),
                "<unset>"
            )),
            json!(spec["requiresRepublish"].as_bool().unwrap_or(false)),
            json!(joined(strings(&spec["volumeLifecycleModes"], ""), "<none>")),
            age(o),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drivers_print_defaults_and_lists_as_kubectl() {
        let driver = json!({"metadata": {"name": "csi.example.com"},
            "spec": {"tokenRequests": [{"audience": "a"}, {"audience": "b"}]}});
        let row = driver_cells(&driver);
        assert_eq!(
            row[1..7],
            [
                json!(true),
                json!(false),
                json!(false),
                json!("a,b"),
                json!(false),
                json!("<none>")
            ]
        );
        let bare =
            json!({"metadata": {"name": "x"}, "spec": {"volumeLifecycleModes": ["Persistent"]}});
        assert_eq!(driver_cells(&bare)[4], "<unset>");
        assert_eq!(driver_cells(&bare)[6], "Persistent");
    }
}
