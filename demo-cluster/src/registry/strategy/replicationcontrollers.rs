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
