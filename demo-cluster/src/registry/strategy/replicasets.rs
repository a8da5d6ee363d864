//! apps/v1 ReplicaSets: workload checks, an immutable selector, kubectl's columns.

use serde_json::{json, Value};

use super::common::{default_field, ensure_object, Workload};
use super::printing::{age, c, count, int, named, selector_string, template_cells, Col, NAME};

pub static REPLICA_SETS: Workload =
    Workload::new(defaults, COLUMNS, cells).selectable(&["status.replicas"]);

fn defaults(obj: &mut Value) {
    default_field(ensure_object(obj, "spec"), "replicas", json!(1));
}

/// Also ReplicationControllers' columns.
pub const COLUMNS: &[Col] = &[
    NAME,
    count("Desired", 0),
    count("Current", 0),
    count("Ready", 0),
    c("Age", 0),
    c("Containers", 1),
    c("Images", 1),
    c("Selector", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    replica_cells(o, selector_string(&o["spec"]["selector"]))
}

/// The cells of COLUMNS, given the selector as printed (ReplicationControllers have a
/// plain label map).
pub fn replica_cells(o: &Value, selector: String) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let mut cells = named(
        o,
        [
            json!(int(&spec["replicas"])),
            json!(int(&st["replicas"])),
            json!(int(&st["readyReplicas"])),
            age(o),
        ],
    );
    cells.extend(template_cells(&spec["template"]["spec"]));
    cells.push(json!(selector));
    cells
}
