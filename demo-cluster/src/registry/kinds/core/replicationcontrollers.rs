//! core/v1 ReplicationControllers (stored; no controller runs them): kubectl's columns,
//! selectable by `status.replicas`.

use serde_json::Value;

use crate::registry::kinds::apps::replicasets::{replica_cells, COLUMNS};
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{key_values, Printer};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::ReplicationController;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("", "replicationcontrollers", "ReplicationController", true)
        .short(&["rc"])
        .all()
        .generation()
        .scale()
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ReplicationController>(generator);

pub(crate) static STRATEGY: ReplicationControllers = ReplicationControllers;

pub struct ReplicationControllers;

impl Strategy for ReplicationControllers {
    fn field_selectors(&self) -> &'static [&'static str] {
        &["status.replicas"]
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

fn cells(o: &Value) -> Vec<Value> {
    replica_cells(o, key_values(&o["spec"]["selector"]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_printer_shows_replica_counts_and_the_plain_selector() {
        let rc = json!({"metadata": {"name": "nginx"}, "spec": {"replicas": 3,
            "selector": {"app": "nginx"},
            "template": {"metadata": {"labels": {"app": "nginx"}},
                         "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}}},
            "status": {"replicas": 3, "readyReplicas": 2}});
        let printer = ReplicationControllers.printer().unwrap();
        let row = (printer.cells)(&rc);
        assert_eq!(row[..4], [json!("nginx"), json!(3), json!(3), json!(2)]);
        assert_eq!(
            row[5..],
            [json!("nginx"), json!("nginx"), json!("app=nginx")]
        );
        assert_eq!(printer.columns.len(), row.len());
        assert_eq!(
            ReplicationControllers.field_selectors(),
            ["status.replicas"]
        );
    }
}
