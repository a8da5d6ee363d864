//! apps/v1 Deployments: rolling-update defaults, workload checks, an immutable selector,
//! kubectl's deployment columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::{default_field, ensure_object, Workload};
use crate::registry::strategy::printing::{
    age, column, fraction, int, named, selector_string, template_cells, Col, NAME,
};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::apps::v1::Deployment;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("apps", "deployments", "deployment", "Deployment", true)
        .short(&["deploy"])
        .workload()
        .scale()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Deployment>(generator);

pub static STRATEGY: Workload = Workload::new(defaults, COLUMNS, cells).annotations_are_spec();

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
    column("Ready", 0),
    column("Up-to-date", 0),
    column("Available", 0),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Cause;
    use crate::registry::kinds::ResourceDef;
    use crate::registry::strategy::{prepare_for_update, validate, validate_update, Strategy};

    fn deployments_def() -> ResourceDef {
        crate::registry::strategy::builtin_def("apps", "deployments")
    }

    fn deployment(app: &str) -> Value {
        json!({
            "metadata": {"name": "web", "namespace": "default", "resourceVersion": "5"},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": app}},
                "template": {"metadata": {"labels": {"app": app}},
                             "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}]}},
            },
            "status": {"replicas": 3, "readyReplicas": 2, "updatedReplicas": 3,
                       "availableReplicas": 2},
        })
    }

    fn fields(causes: Vec<Cause>) -> Vec<String> {
        causes.into_iter().map(|c| c.field).collect()
    }

    #[test]
    fn defaults_fill_a_rolling_update_strategy() {
        let mut d = json!({"metadata": {"name": "web"}, "spec": {"template": {"spec": {
            "containers": [{"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}]}]}}}});
        STRATEGY.default_fields(&mut d);
        let spec = &d["spec"];
        assert_eq!(spec["replicas"], 1);
        assert_eq!(
            spec["strategy"],
            json!({"type": "RollingUpdate",
                   "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})
        );
        assert_eq!(spec["revisionHistoryLimit"], 10);
        assert_eq!(spec["progressDeadlineSeconds"], 600);
        let container = &spec["template"]["spec"]["containers"][0];
        assert_eq!(container["imagePullPolicy"], "IfNotPresent");
        assert_eq!(container["ports"][0]["protocol"], "TCP");
        let mut recreate =
            json!({"metadata": {"name": "web"}, "spec": {"strategy": {"type": "Recreate"}}});
        STRATEGY.default_fields(&mut recreate);
        assert_eq!(recreate["spec"]["strategy"], json!({"type": "Recreate"}));
    }

    #[test]
    fn the_selector_must_match_the_template_and_is_immutable() {
        let def = deployments_def();
        let old = deployment("web");
        assert!(validate(&def, &old).is_empty());
        let mut mismatched = old.clone();
        mismatched["spec"]["template"]["metadata"]["labels"] = json!({"app": "other"});
        assert_eq!(
            fields(validate(&def, &mismatched)),
            ["spec.template.metadata.labels"]
        );
        let mut negative = old.clone();
        negative["spec"]["replicas"] = json!(-1);
        assert_eq!(fields(validate(&def, &negative)), ["spec.replicas"]);
        let relabelled = deployment("api");
        assert_eq!(
            fields(validate_update(&def, &old, &relabelled)),
            ["spec.selector"]
        );
        let mut scaled = old.clone();
        scaled["spec"]["replicas"] = json!(5);
        assert!(validate_update(&def, &old, &scaled).is_empty());
    }

    #[test]
    fn writes_keep_the_status_and_status_writes_keep_the_spec() {
        let def = deployments_def();
        let old = deployment("web");
        let mut new = deployment("web");
        new["spec"]["replicas"] = json!(5);
        new["status"] = json!({"replicas": 0});
        prepare_for_update(&def, &old, &mut new, "");
        assert_eq!(new["spec"]["replicas"], 5);
        assert_eq!(new["status"], old["status"]);

        let mut status_write = deployment("web");
        status_write["spec"]["replicas"] = json!(9);
        status_write["status"] = json!({"replicas": 3, "readyReplicas": 3});
        status_write["metadata"]["resourceVersion"] = json!("6");
        prepare_for_update(&def, &old, &mut status_write, "status");
        assert_eq!(status_write["spec"], old["spec"]);
        assert_eq!(status_write["status"]["readyReplicas"], 3);
        assert_eq!(status_write["metadata"]["resourceVersion"], "6");
    }

    #[test]
    fn the_printer_shows_ready_up_to_date_and_available() {
        let row = cells(&deployment("web"));
        assert_eq!(row[..4], [json!("web"), json!("2/3"), json!(3), json!(2)]);
        assert_eq!(
            row[5..],
            [json!("nginx"), json!("nginx:1.25"), json!("app=web")]
        );
        assert_eq!(COLUMNS.len(), row.len());
    }
}
