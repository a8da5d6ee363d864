//! admissionregistration.k8s.io/v1 Validating- and MutatingAdmissionPolicies and their
//! bindings (stored, never evaluated): kubectl's columns.

use serde_json::{json, Value};

use super::printing::{age, c, count, named, s, Col, Printer, NAME};
use super::Printed;

pub static VALIDATING_POLICIES: Printed =
    Printed(Printer::new(VALIDATING_COLUMNS, validating_cells));
pub static MUTATING_POLICIES: Printed = Printed(Printer::new(MUTATING_COLUMNS, mutating_cells));
pub static POLICY_BINDINGS: Printed = Printed(Printer::new(BINDING_COLUMNS, binding_cells));

const VALIDATING_COLUMNS: &[Col] = &[
    NAME,
    count("Validations", 0),
    c("ParamKind", 0),
    c("Age", 0),
];
const MUTATING_COLUMNS: &[Col] = &[NAME, count("Mutations", 0), c("ParamKind", 0), c("Age", 0)];
const BINDING_COLUMNS: &[Col] = &[NAME, c("PolicyName", 0), c("ParamRef", 0), c("Age", 0)];

/// A policy's rule count (of `rules`) and its parameter kind as `apiVersion/kind`.
fn policy_cells(o: &Value, rules: &str) -> Vec<Value> {
    let spec = &o["spec"];
    let param_kind = &spec["paramKind"];
    let param_kind = if param_kind.is_object() {
        format!(
            "{}/{}",
            s(&param_kind["apiVersion"]),
            s(&param_kind["kind"])
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

fn mutating_cells(o: &Value) -> Vec<Value> {
    policy_cells(o, "mutations")
}

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
    named(o, [json!(s(&spec["policyName"])), json!(param), age(o)])
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
        let mutating = json!({"metadata": {"name": "labels"}, "spec": {
            "mutations": [{"patchType": "ApplyConfiguration"}]}});
        assert_eq!(
            mutating_cells(&mutating)[1..3],
            [json!(1), json!("<unset>")]
        );
    }

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
