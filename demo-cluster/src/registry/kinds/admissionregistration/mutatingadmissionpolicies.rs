//! admissionregistration.k8s.io/v1 MutatingAdmissionPolicies (stored, never evaluated):
//! kubectl's columns, as the validating policies' with the mutation count.

use serde_json::Value;

use crate::registry::strategy::printing::{column, count, Col, Printer, NAME};
use crate::registry::strategy::Printed;

use super::validatingadmissionpolicies::policy_cells;
use crate::registry::kinds::builder::admission;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::admissionregistration::v1::MutatingAdmissionPolicy;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    admission("mutatingadmissionpolicies", "MutatingAdmissionPolicy").build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<MutatingAdmissionPolicy>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(MUTATING_COLUMNS, mutating_cells));

const MUTATING_COLUMNS: &[Col] = &[
    NAME,
    count("Mutations", 0),
    column("ParamKind", 0),
    column("Age", 0),
];

fn mutating_cells(o: &Value) -> Vec<Value> {
    policy_cells(o, "mutations")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mutating_policies_print_their_mutation_count() {
        let mutating = json!({"metadata": {"name": "labels"}, "spec": {
            "mutations": [{"patchType": "ApplyConfiguration"}]}});
        assert_eq!(
            mutating_cells(&mutating)[1..3],
            [json!(1), json!("<unset>")]
        );
    }
}
