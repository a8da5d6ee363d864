//! node.k8s.io/v1 RuntimeClasses: the handler fixed at creation, kubectl's columns.

use serde_json::{json, Value};

use super::common::immutable_fields;
use super::printing::{age, c, named, s, Col, Printer, NAME};
use super::Strategy;
use crate::status::Cause;

pub struct RuntimeClasses;

impl Strategy for RuntimeClasses {
    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutable_fields(old, new, &[&["handler"]])
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

const COLUMNS: &[Col] = &[NAME, c("Handler", 0), c("Age", 0)];

fn cells(o: &Value) -> Vec<Value> {
    named(o, [json!(s(&o["handler"])), age(o)])
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
