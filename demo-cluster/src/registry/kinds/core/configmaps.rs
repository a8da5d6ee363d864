//! core/v1 ConfigMaps: kubectl's columns (data count).

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::ConfigMap;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("", "configmaps", "configmap", "ConfigMap", true)
        .short(&["cm"])
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ConfigMap>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, column("Data", 0), column("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    let entries = o["data"].as_object().map(|m| m.len()).unwrap_or(0)
        + o["binaryData"].as_object().map(|m| m.len()).unwrap_or(0);
    named(o, [json!(entries), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_counts_both_text_and_binary_entries() {
        let cm = json!({"metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"},
            "binaryData": {"c": "AA=="}});
        assert_eq!(cells(&cm)[..2], [json!("cfg"), json!(3)]);
        assert_eq!(cells(&json!({"metadata": {"name": "empty"}}))[1], 0);
        // Declared `string` by kube-apiserver's printer, the cell a number all the same.
        assert_eq!(COLUMNS[1].kind, "string");
    }
}
