//! flowcontrol.apiserver.k8s.io/v1 FlowSchemas and PriorityLevelConfigurations (stored,
//! not enforced): kubectl's columns.

use serde_json::{json, Value};

use super::printing::{age, c, named, s, Col, Printer, NAME};
use super::Printed;

pub static FLOW_SCHEMAS: Printed = Printed(Printer::new(SCHEMA_COLUMNS, schema_cells));

const SCHEMA_COLUMNS: &[Col] = &[
    NAME,
    c("PriorityLevel", 0),
    c("MatchingPrecedence", 0),
    c("DistinguisherMethod", 0),
    c("Age", 0),
    c("MissingPL", 0),
];

fn schema_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let method = match &spec["distinguisherMethod"]["type"] {
        Value::Null => "<none>".to_string(),
        kind => s(kind),
    };
    // The Dangling condition says whether the priority level is missing; "?" before any.
    let missing = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Dangling")
        .map_or("?".to_string(), |c| s(&c["status"]));
    named(
        o,
        [
            json!(s(&spec["priorityLevelConfiguration"]["name"])),
            json!(spec["matchingPrecedence"].as_i64().unwrap_or(0)),
            json!(method),
            age(o),
            json!(missing),
        ],
    )
}

pub static PRIORITY_LEVELS: Printed = Printed(Printer::new(LEVEL_COLUMNS, level_cells));

const LEVEL_COLUMNS: &[Col] = &[
    NAME,
    c("Type", 0),
    c("NominalConcurrencyShares", 0),
    c("Queues", 0),
    c("HandSize", 0),
    c("QueueLengthLimit", 0),
    c("Age", 0),
];

fn level_cells(o: &Value) -> Vec<Value> {
    let limited = &o["spec"]["limited"];
    let queuing = &limited["limitResponse"]["queuing"];
    let or_none = |v: &Value| {
        if v.is_null() {
            json!("<none>")
        } else {
            v.clone()
        }
    };
    named(
        o,
        [
            json!(s(&o["spec"]["type"])),
            or_none(&limited["nominalConcurrencyShares"]),
            or_none(&queuing["queues"]),
            or_none(&queuing["handSize"]),
            or_none(&queuing["queueLengthLimit"]),
            age(o),
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

    #[test]
    fn priority_levels_print_queuing_or_none() {
        let limited = json!({"metadata": {"name": "workload-low"}, "spec": {"type": "Limited",
            "limited": {"nominalConcurrencyShares": 100, "limitResponse": {"type": "Queue",
                "queuing": {"queues": 128, "handSize": 6, "queueLengthLimit": 50}}}}});
        assert_eq!(
            level_cells(&limited)[1..6],
            [
                json!("Limited"),
                json!(100),
                json!(128),
                json!(6),
                json!(50)
            ]
        );
        let exempt = json!({"metadata": {"name": "exempt"}, "spec": {"type": "Exempt"}});
        assert_eq!(
            level_cells(&exempt)[1..6],
            [
                json!("Exempt"),
                json!("<none>"),
                json!("<none>"),
                json!("<none>"),
                json!("<none>")
            ]
        );
    }
}
