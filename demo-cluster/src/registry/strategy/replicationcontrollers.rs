//! core/v1 ReplicationControllers (stored; no controller runs them): kubectl's columns,
//! selectable by `status.replicas`.

use serde_json::Value;

use super::printing::{key_values, Printer};
use super::replicasets::{replica_cells, COLUMNS};
use super::Strategy;

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
