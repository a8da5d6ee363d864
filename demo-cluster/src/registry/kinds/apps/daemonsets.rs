//! apps/v1 DaemonSets: update-strategy defaults, workload checks, an immutable selector,
//! kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, ensure_object, Workload};
use crate::registry::strategy::printing::{
    age, column, count, int, key_values, named, or_none, selector_string, template_cells, Col, NAME,
};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::apps::v1::DaemonSet;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("apps", "daemonsets", "daemonset", "DaemonSet", true)
        .short(&["ds"])
        .workload()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<DaemonSet>(generator);

pub static STRATEGY: Workload = Workload::new(defaults, COLUMNS, cells);

fn defaults(obj: &mut Value) {
    let spec = ensure_object(obj, "spec");
    default_field(
        spec,
        "updateStrategy",
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}),
    );
    default_field(spec, "revisionHistoryLimit", json!(10));
    // kube-apiserver's strategy records the template generation (1 at creation, one more
    // with each template change) in this annotation.
    let generation = obj["metadata"]["annotations"][TEMPLATE_GENERATION].clone();
    if generation.is_null() && obj["metadata"].is_object() {
        let annotations = ensure_object(&mut obj["metadata"], "annotations");
        annotations.insert(TEMPLATE_GENERATION.into(), json!("1"));
    }
}

const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

const COLUMNS: &[Col] = &[
    NAME,
    count("Desired", 0),
    count("Current", 0),
    count("Ready", 0),
    count("Up-to-date", 0),
    count("Available", 0),
    column("Node Selector", 0),
    column("Age", 0),
    column("Containers", 1),
    column("Images", 1),
    column("Selector", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let (spec, st) = (&o["spec"], &o["status"]);
    let mut cells = named(
        o,
        [
            json!(int(&st["desiredNumberScheduled"])),
            json!(int(&st["currentNumberScheduled"])),
            json!(int(&st["numberReady"])),
            json!(int(&st["updatedNumberScheduled"])),
            json!(int(&st["numberAvailable"])),
            or_none(key_values(&spec["template"]["spec"]["nodeSelector"])),
            age(o),
        ],
    );
    cells.extend(template_cells(&spec["template"]["spec"]));
    cells.push(json!(selector_string(&spec["selector"])));
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::strategy::Strategy;

    #[test]
    fn defaults_roll_one_node_at_a_time_without_replicas() {
        let mut set = json!({"metadata": {"name": "agent"}, "spec": {}});
        STRATEGY.default_fields(&mut set);
        assert_eq!(
            set["spec"]["updateStrategy"],
            json!({"type": "RollingUpdate",
                   "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}})
        );
        assert_eq!(set["spec"]["revisionHistoryLimit"], 10);
        assert!(set["spec"].get("replicas").is_none());
    }

    #[test]
    fn the_printer_shows_scheduling_counts_and_the_node_selector() {
        let mut set = json!({"metadata": {"name": "agent"}, "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {"spec": {"containers": [{"name": "a", "image": "agent:1"}]}}},
            "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3,
                       "numberReady": 2, "updatedNumberScheduled": 1, "numberAvailable": 2}});
        let row = cells(&set);
        assert_eq!(
            row[..7],
            [
                json!("agent"),
                json!(3),
                json!(3),
                json!(2),
                json!(1),
                json!(2),
                json!("<none>")
            ]
        );
        assert_eq!(row[8..], [json!("a"), json!("agent:1"), json!("app=agent")]);
        set["spec"]["template"]["spec"]["nodeSelector"] = json!({"disktype": "ssd"});
        assert_eq!(cells(&set)[6], "disktype=ssd");
    }
}
