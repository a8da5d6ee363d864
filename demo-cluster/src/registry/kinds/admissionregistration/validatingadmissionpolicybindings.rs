//! admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBindings (stored, never
//! evaluated): kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::admission;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicyBinding;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    admission(
        "validatingadmissionpolicybindings",
        "ValidatingAdmissionPolicyBinding",
    )
    .build()
}

pub(crate) const SCHEMA: SchemaOf =
    |generator, _| schema_of::<ValidatingAdmissionPolicyBinding>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(BINDING_COLUMNS, binding_cells));

const BINDING_COLUMNS: &[Col] = &[
    NAME,
    column("PolicyName", 0),
    column("ParamRef", 0),
    column("Age", 0),
];

fn binding_cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let param = &spec["paramRef"];
    let param = match (param["name"].as_str(), param["namespace"].as_str()) {
        _ if !param.is_object() => "<unset>".to_string(),
        (Some(name), Some(ns)) if !name.is_empty() && !ns.is_empty() => format!("{ns}/{name}"),
        (Some(name), _) if !name.is_empty() => name.to_string(),
        // Parameters chosen by a selector.
        _ => "*".to_string(),
    };
    named(
        o,
        [json!(value_text(&spec["policyName"])), json!(param), age(o)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_print_the_policy_and_the_param_reference() {
        let binding = json!({"metadata": {"name": "replicas-binding"}, "spec": {
            "policyName": "replicas",
            "paramRef": {"namespace": "default", "name": "limits"}}});
        assert_eq!(
            binding_cells(&binding)[1..3],
            [json!("replicas"), json!("default/limits")]
        );
        let unparameterised =
            json!({"metadata": {"name": "b"}, "spec": {"policyName": "replicas"}});
        assert_eq!(binding_cells(&unparameterised)[2], "<unset>");
    }
}
