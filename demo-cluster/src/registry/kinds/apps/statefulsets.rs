//! apps/v1 StatefulSets: update-strategy defaults, workload checks, an immutable selector,
//! kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, ensure_object, Workload};
use crate::registry::strategy::printing::{
    age, column, fraction, int, named, template_cells, Col, NAME,
};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::apps::v1::StatefulSet;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("apps", "statefulsets", "statefulset", "StatefulSet", true)
        .short(&["sts"])
        .workload()
        .scale()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<StatefulSet>(generator);

pub static STRATEGY: Workload = Workload::new(defaults, COLUMNS, cells);

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
    // v1.36 serialises an unset serviceName as "" (no longer omitted).
    default_field(spec, "serviceName", json!(""));
    default_field(
        spec,
        "persistentVolumeClaimRetentionPolicy",
        json!({"whenDeleted": "Retain", "whenScaled": "Retain"}),
    );
}

const COLUMNS: &[Col] = &[
    NAME,
    column("Ready", 0),
    column("Age", 0),
    column("Containers", 1),
    column("Images", 1),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::strategy::Strategy;

    #[test]
    fn defaults_are_ordered_ready_rolling_updates() {
        let mut set = json!({"metadata": {"name": "db"}, "spec": {
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}},
                         "spec": {"containers": [{"name": "pg", "image": "postgres:16"}]}}}});
        STRATEGY.default_fields(&mut set);
        let spec = &set["spec"];
        assert_eq!(spec["replicas"], 1);
        assert_eq!(spec["podManagementPolicy"], "OrderedReady");
        assert_eq!(
            spec["updateStrategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})
        );
        assert_eq!(spec["template"]["spec"]["restartPolicy"], "Always");
        assert!(STRATEGY.validate(&set).is_empty());
    }

    #[test]
    fn the_printer_shows_ready_of_desired_and_the_selector_is_immutable() {
        let set = json!({"metadata": {"name": "db"}, "spec": {"replicas": 3,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"spec": {"containers": [{"name": "pg", "image": "postgres:16"}]}}},
            "status": {"readyReplicas": 1}});
        let row = cells(&set);
        assert_eq!(row[..2], [json!("db"), json!("1/3")]);
        assert_eq!(row[3..], [json!("pg"), json!("postgres:16")]);
        let mut moved = set.clone();
        moved["spec"]["selector"] = json!({"matchLabels": {"app": "other"}});
        let causes = STRATEGY.validate_update(&set, &moved);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.selector");
    }
}
