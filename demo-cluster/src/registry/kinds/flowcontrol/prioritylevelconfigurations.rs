//! flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfigurations (stored, not enforced):
//! kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::flowcontrol::v1::PriorityLevelConfiguration;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "flowcontrol.apiserver.k8s.io",
        "prioritylevelconfigurations",
        "PriorityLevelConfiguration",
        false,
    )
    .status()
    .build()
}

pub(crate) const SCHEMA: SchemaOf =
    |generator, _| schema_of::<PriorityLevelConfiguration>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(LEVEL_COLUMNS, level_cells));

const LEVEL_COLUMNS: &[Col] = &[
    NAME,
    column("Type", 0),
    column("NominalConcurrencyShares", 0),
    column("Queues", 0),
    column("HandSize", 0),
    column("QueueLengthLimit", 0),
    column("Age", 0),
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
            json!(value_text(&o["spec"]["type"])),
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
