//! apps/v1 StatefulSets: update-strategy defaults, workload checks, an immutable selector,
//! kubectl's columns.

use serde_json::{json, Value};

use super::common::{default_field, ensure_object, Workload};
use super::printing::{age, c, fraction, int, named, template_cells, Col, NAME};

pub static STATEFUL_SETS: Workload = Workload::new(defaults, COLUMNS, cells);

fn defaults(obj: &mut Value) {
    let spec = ensure_object(obj, "spec");
    default_field(spec, "replicas", json!(1));
    default_field(spec, "podManagementPolicy", json!("OrderedReady"));
    default_field(
        spec,
        "updateStrategy",
        json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}),
    );
    default_field(spec, "revisionHistoryLimit", json!(10));
}

const COLUMNS: &[Col] = &[
    NAME,
    c("Ready", 0),
    c("Age", 0),
    c("Containers", 1),
    c("Images", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let mut cells = named(
        o,
        [
            fraction(int(&st["readyReplicas"]), int(&spec["replicas"])),
            age(o),
        ],
    );
    cells.extend(template_cells(&spec["template"]["spec"]));
    cells
}
