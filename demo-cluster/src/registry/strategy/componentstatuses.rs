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
