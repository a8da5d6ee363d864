//! rbac.authorization.k8s.io/v1 ClusterRoles: the Roles' strategy (their printer, `system:`
//! names).

pub(crate) use super::roles::STRATEGY;
use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::rbac::v1::ClusterRole;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new(
        "rbac.authorization.k8s.io",
        "clusterroles",
        "clusterrole",
        "ClusterRole",
        false,
    )
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ClusterRole>(generator);
