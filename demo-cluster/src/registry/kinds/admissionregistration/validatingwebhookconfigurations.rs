//! admissionregistration.k8s.io/v1 ValidatingWebhookConfigurations: stored, never called (no
//! admission runs here); the mutating ones' strategy (kubectl's columns).

pub(crate) use super::mutatingwebhookconfigurations::STRATEGY;
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "admissionregistration.k8s.io",
        "validatingwebhookconfigurations",
        "ValidatingWebhookConfiguration",
        false,
    )
    .categories(&["api-extensions"])
    .build()
}

pub(crate) const SCHEMA: SchemaOf =
    |generator, _| schema_of::<ValidatingWebhookConfiguration>(generator);
