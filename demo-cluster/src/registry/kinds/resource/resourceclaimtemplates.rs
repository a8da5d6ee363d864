//! resource.k8s.io/v1 ResourceClaimTemplates: the DeviceClasses' strategy (Name and Age).

pub(crate) use super::deviceclasses::STRATEGY;
use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::resource::v1::ResourceClaimTemplate;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "resource.k8s.io",
        "resourceclaimtemplates",
        "ResourceClaimTemplate",
        true,
    )
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ResourceClaimTemplate>(generator);
