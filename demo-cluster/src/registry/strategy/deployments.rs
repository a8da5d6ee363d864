//! apps/v1 Deployments: rolling-update defaults, workload checks, an immutable selector,
//! kubectl's deployment columns.

use serde_json::{json, Value};

use super::common::{default_field, ensure_object, Workload};
use super::printing::{
    age, c, count, fraction, int, named, selector_string, template_cells, Col, NAME,
};

pub static DEPLOYMENTS: Workload = Workload::new(defaults, COLUMNS, cells);

fn defaults(obj: &mut Value) {
    let spec = ensure_object(obj, "spec");
    default_field(spec, "replicas", json!(1));
    let strategy = ensure_object(&mut obj["spec"], "strategy");
    default_field(strategy, "type", json!("RollingUpdate"));
    if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
        let rolling = ensure_object(&mut obj["spec"]["strategy"], "rollingUpdate");
        default_field(rolling, "maxSurge", json!("25%"));
        default_field(rolling, "maxUnavailable", json!("25%"));
    }
    let spec = ensure_object(obj, "spec");
    default_field(spec, "revisionHistoryLimit", json!(10));
    default_field(spec, "progressDeadlineSeconds", json!(600));
}

const COLUMNS: &[Col] = &[
    NAME,
    c("Ready", 0),
    count("Up-to-date", 0),
    count("Available", 0),
    c("Age", 0),
    c("Containers", 1),
    c("Images", 1),
    c("Selector", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let mut cells = named(
        o,
        [
            fraction(int(&st["readyReplicas"]), int(&spec["replicas"])),
            json!(int(&st["updatedReplicas"])),
            json!(int(&st["availableReplicas"])),
            age(o),
        ],
    );
    cells.extend(template_cells(&spec["template"]["spec"]));
    cells.push(json!(selector_string(&spec["selector"])));
    cells
}
