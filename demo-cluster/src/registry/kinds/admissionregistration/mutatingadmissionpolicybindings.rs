//! admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBindings (stored, never
//! evaluated): the validating policy bindings' strategy (kubectl's columns).

pub(crate) use super::validatingadmissionpolicybindings::STRATEGY;
use crate::registry::kinds::builder::admission;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::admissionregistration::v1::MutatingAdmissionPolicyBinding;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    admission(
        "mutatingadmissionpolicybindings",
        "MutatingAdmissionPolicyBinding",
    )
    .build()
}

pub(crate) const SCHEMA: SchemaOf =
    |generator, _| schema_of::<MutatingAdmissionPolicyBinding>(generator);
