//! apps/v1 ReplicaSets: workload checks, an immutable selector, kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, ensure_object, Workload};
use crate::registry::strategy::printing::{
    age, column, count, int, named, selector_string, template_cells, Col, NAME,
};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::apps::v1::ReplicaSet;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("apps", "replicasets", "replicaset", "ReplicaSet", true)
        .short(&["rs"])
        .workload()
        .scale()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ReplicaSet>(generator);

pub static STRATEGY: Workload =
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
    column("Age", 0),
    column("Containers", 1),
    column("Images", 1),
    column("Selector", 1),
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
        STRATEGY.default_fields(&mut rs);
        assert_eq!(rs["spec"]["replicas"], 1);
        assert!(STRATEGY.validate(&rs).is_empty());
        let causes = STRATEGY.validate_update(&rs, &replica_set("backend"));
        let fields: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["spec.selector"]);
        assert!(STRATEGY.field_selectors().contains(&"status.replicas"));
    }
}
