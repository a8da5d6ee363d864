//! flowcontrol.apiserver.k8s.io/v1 FlowSchemas (stored, not enforced): kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::flowcontrol::v1::FlowSchema;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "flowcontrol.apiserver.k8s.io",
        "flowschemas",
        "FlowSchema",
        false,
    )
    .status()
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<FlowSchema>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(SCHEMA_COLUMNS, schema_cells));

const SCHEMA_COLUMNS: &[Col] = &[
    NAME,
    column("PriorityLevel", 0),
    column("MatchingPrecedence", 0),
    column("DistinguisherMethod", 0),
    column("Age", 0),
    column("MissingPL", 0),
];

fn schema_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let method = match &spec["distinguisherMethod"]["type"] {
        Value::Null => "<none>".to_string(),
        kind => value_text(kind),
    };
    // The Dangling condition says whether the priority level is missing; "?" before any.
    let missing = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Dangling")
        .map_or("?".to_string(), |c| value_text(&c["status"]));
    named(
        o,
        [
            json!(value_text(&spec["priorityLevelConfiguration"]["name"])),
            json!(spec["matchingPrecedence"].as_i64().unwrap_or(0)),
            json!(method),
            age(o),
            json!(missing),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_schemas_print_their_level_precedence_and_dangling_state() {
        let mut schema = json!({"metadata": {"name": "system-leader-election"}, "spec": {
            "priorityLevelConfiguration": {"name": "leader-election"},
            "matchingPrecedence": 100, "distinguisherMethod": {"type": "ByUser"}}});
        let row = schema_cells(&schema);
        assert_eq!(
            row[1..4],
            [json!("leader-election"), json!(100), json!("ByUser")]
        );
        assert_eq!(row[5], "?");
        schema["status"] = json!({"conditions": [{"type": "Dangling", "status": "False"}]});
        assert_eq!(schema_cells(&schema)[5], "False");
        schema["spec"]
            .as_object_mut()
            .unwrap()
            .remove("distinguisherMethod");
        assert_eq!(schema_cells(&schema)[3], "<none>");
    }
}
