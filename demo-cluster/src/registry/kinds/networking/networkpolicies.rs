//! networking.k8s.io/v1 NetworkPolicies: `policyTypes` defaulted as kube-apiserver does
//! (Ingress always, Egress when egress rules are given), kubectl's columns.

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{
    age, column, key_values, named, or_none, Col, Printer, NAME,
};
use crate::registry::strategy::Strategy;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::networking::v1::NetworkPolicy;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "networking.k8s.io",
        "networkpolicies",
        "NetworkPolicy",
        true,
    )
    .short(&["netpol"])
    .generation()
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<NetworkPolicy>(generator);

pub(crate) static STRATEGY: NetworkPolicies = NetworkPolicies;

pub struct NetworkPolicies;

impl Strategy for NetworkPolicies {
    fn default_fields(&self, obj: &mut Value) {
        if !obj["spec"].is_object() || obj["spec"]["policyTypes"].is_array() {
            return;
        }
        let mut types = vec![json!("Ingress")];
        if obj["spec"]["egress"]
            .as_array()
            .is_some_and(|e| !e.is_empty())
        {
            types.push(json!("Egress"));
        }
        obj["spec"]["policyTypes"] = json!(types);
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(POLICY_COLUMNS, policy_cells))
    }
}

const POLICY_COLUMNS: &[Col] = &[NAME, column("Pod-Selector", 0), column("Age", 0)];

fn policy_cells(o: &Value) -> Vec<Value> {
    let selector = key_values(&o["spec"]["podSelector"]["matchLabels"]);
    named(o, [or_none(selector), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_print_their_pod_selector() {
        let policy = json!({"metadata": {"name": "deny"}, "spec": {"podSelector": {}}});
        assert_eq!(policy_cells(&policy)[1], "<none>");
        let policy = json!({"metadata": {"name": "db"},
            "spec": {"podSelector": {"matchLabels": {"app": "db"}}}});
        assert_eq!(policy_cells(&policy)[1], "app=db");
    }
}
