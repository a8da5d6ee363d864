//! core/v1 ComponentStatuses (`kubectl get cs`): kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::ComponentStatus;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    // Read-only: the registry seeds them healthy (kube-apiserver probes its components).
    kind("", "componentstatuses", "ComponentStatus", false)
        .short(&["cs"])
        .verbs(&["get", "list"])
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ComponentStatus>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[
    NAME,
    column("Status", 0),
    column("Message", 0),
    column("Error", 0),
];

fn cells(o: &Value) -> Vec<Value> {
    let healthy = o["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Healthy");
    let status = match healthy {
        Some(c) if c["status"] == "True" => "Healthy",
        _ => "Unhealthy",
    };
    let condition = healthy.cloned().unwrap_or(Value::Null);
    named(
        o,
        [
            json!(status),
            json!(value_text(&condition["message"])),
            json!(value_text(&condition["error"])),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_healthy_only_with_a_true_healthy_condition() {
        let ok = json!({"metadata": {"name": "etcd-0"}, "conditions": [
            {"type": "Healthy", "status": "True", "message": "ok"}]});
        assert_eq!(
            cells(&ok),
            [json!("etcd-0"), json!("Healthy"), json!("ok"), json!("")]
        );
        let down = json!({"metadata": {"name": "scheduler"}, "conditions": [
            {"type": "Healthy", "status": "False", "error": "connection refused"}]});
        assert_eq!(cells(&down)[1], "Unhealthy");
        assert_eq!(cells(&down)[3], "connection refused");
        assert_eq!(cells(&json!({"metadata": {"name": "x"}}))[1], "Unhealthy");
    }
}
