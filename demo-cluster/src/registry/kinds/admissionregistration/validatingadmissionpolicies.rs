//! admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies (stored, never evaluated):
//! kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::admission;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, column, count, named, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicy;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    admission("validatingadmissionpolicies", "ValidatingAdmissionPolicy")
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf =
    |generator, _| schema_of::<ValidatingAdmissionPolicy>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(VALIDATING_COLUMNS, validating_cells));

const VALIDATING_COLUMNS: &[Col] = &[
    NAME,
    count("Validations", 0),
    column("ParamKind", 0),
    column("Age", 0),
];

/// A policy's rule count (of `rules`) and its parameter kind as `apiVersion/kind`.
pub(crate) fn policy_cells(o: &Value, rules: &str) -> Vec<Value> {
    let spec = &o["spec"];
    let param_kind = &spec["paramKind"];
    let param_kind = if param_kind.is_object() {
        format!(
            "{}/{}",
            value_text(&param_kind["apiVersion"]),
            value_text(&param_kind["kind"])
        )
    } else {
        "<unset>".to_string()
    };
    let rules = spec[rules].as_array().map_or(0, Vec::len);
    named(o, [json!(rules), json!(param_kind), age(o)])
}

fn validating_cells(o: &Value) -> Vec<Value> {
    policy_cells(o, "validations")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_print_their_rule_count_and_param_kind() {
        let policy = json!({"metadata": {"name": "replicas"}, "spec": {
            "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "validations": [{"expression": "object.spec.replicas <= 5"},
                            {"expression": "has(object.spec.selector)"}]}});
        assert_eq!(
            validating_cells(&policy)[..3],
            [json!("replicas"), json!(2), json!("v1/ConfigMap")]
        );
    }
}
