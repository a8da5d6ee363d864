//! networking.k8s.io/v1 IngressClasses: the controller fixed at creation, kubectl's columns.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::immutable_fields;
use crate::registry::strategy::printing::{
    age, column, named, or_none, reference, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::networking::v1::IngressClass;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("networking.k8s.io", "ingressclasses", "IngressClass", false).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<IngressClass>(generator);

pub(crate) static STRATEGY: IngressClasses = IngressClasses;

pub struct IngressClasses;

impl Strategy for IngressClasses {
    fn validate_update(&self, old: &Value, new: &Value) -> Vec<Cause> {
        immutable_fields(old, new, &[&["spec", "controller"]])
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(CLASS_COLUMNS, class_cells))
    }
}

const CLASS_COLUMNS: &[Col] = &[
    NAME,
    column("Controller", 0),
    column("Parameters", 0),
    column("Age", 0),
];

fn class_cells(o: &Value) -> Vec<Value> {
    let parameters = reference(&o["spec"]["parameters"], "kind", "name").unwrap_or_default();
    named(
        o,
        [
            json!(value_text(&o["spec"]["controller"])),
            or_none(parameters),
            age(o),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ingress_class_controller_is_immutable() {
        let old = json!({"metadata": {"name": "nginx"},
            "spec": {"controller": "k8s.io/ingress-nginx"}});
        let mut new = old.clone();
        new["spec"]["parameters"] = json!({"kind": "IngressParameters", "name": "p"});
        assert!(IngressClasses.validate_update(&old, &new).is_empty());
        assert_eq!(
            class_cells(&new)[1..3],
            [json!("k8s.io/ingress-nginx"), json!("IngressParameters/p")]
        );
        new["spec"]["controller"] = json!("example.com/other");
        let causes = IngressClasses.validate_update(&old, &new);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.controller");
    }
}
