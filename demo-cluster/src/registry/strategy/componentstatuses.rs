//! core/v1 ComponentStatuses (`kubectl get cs`): kubectl's columns.

use serde_json::{json, Value};

use super::printing::{c, named, s, Col, Printer, NAME};
use super::Printed;

pub static COMPONENT_STATUSES: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, c("Status", 0), c("Message", 0), c("Error", 0)];

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
            json!(s(&condition["message"])),
            json!(s(&condition["error"])),
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
