//! node.k8s.io/v1 RuntimeClasses: the handler fixed at creation, kubectl's columns.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::immutable_fields;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::node::v1::RuntimeClass;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("node.k8s.io", "runtimeclasses", "RuntimeClass", false).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<RuntimeClass>(generator);

pub(crate) static STRATEGY: RuntimeClasses = RuntimeClasses;

pub struct RuntimeClasses;

impl Strategy for RuntimeClasses {
    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutable_fields(old, new, &[&["handler"]])
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

const COLUMNS: &[Col] = &[NAME, column("Handler", 0), column("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    named(o, [json!(value_text(&o["handler"])), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handler_is_printed_and_fixed_at_creation() {
        let old = json!({"metadata": {"name": "gvisor"}, "handler": "runsc"});
        assert_eq!(cells(&old)[..2], [json!("gvisor"), json!("runsc")]);
        let mut new = old.clone();
        new["overhead"] = json!({"podFixed": {"memory": "120Mi"}});
        assert!(RuntimeClasses.validate_update(&old, &new).is_empty());
        new["handler"] = json!("kata");
        let causes = RuntimeClasses.validate_update(&old, &new);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "handler");
    }
}
