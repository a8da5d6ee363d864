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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::strategy::Strategy;

    fn replica_set(tier: &str) -> Value {
        json!({
            "metadata": {"name": "frontend"},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"tier": tier}},
                "template": {"metadata": {"labels": {"tier": tier}},
                             "spec": {"containers": [{"name": "php", "image": "php:8"}]}},
            },
            "status": {"replicas": 2, "readyReplicas": 1},
        })
    }

    #[test]
    fn the_printer_shows_desired_current_and_ready() {
        let row = cells(&replica_set("frontend"));
        assert_eq!(row[..4], [json!("frontend"), json!(3), json!(2), json!(1)]);
        assert_eq!(
            row[5..],
            [json!("php"), json!("php:8"), json!("tier=frontend")]
        );
    }

    #[test]
    fn replicas_default_to_one_and_the_selector_is_immutable() {
        let mut rs = replica_set("frontend");
        rs["spec"].as_object_mut().unwrap().remove("replicas");
        REPLICA_SETS.default_fields(&mut rs);
        assert_eq!(rs["spec"]["replicas"], 1);
        assert!(REPLICA_SETS.validate(&rs).is_empty());
        let causes = REPLICA_SETS.validate_update(&rs, &replica_set("backend"));
        let fields: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["spec.selector"]);
        assert!(REPLICA_SETS.field_selectors().contains(&"status.replicas"));
    }
}
