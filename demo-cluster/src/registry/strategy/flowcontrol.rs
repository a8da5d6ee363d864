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
