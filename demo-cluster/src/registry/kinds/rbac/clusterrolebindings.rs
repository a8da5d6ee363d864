//! rbac.authorization.k8s.io/v1 ClusterRoleBindings: the RoleBindings' strategy (kubectl's
//! columns, `system:` names).

pub(crate) use super::rolebindings::STRATEGY;
use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::rbac::v1::ClusterRoleBinding;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new(
        "rbac.authorization.k8s.io",
        "clusterrolebindings",
        "clusterrolebinding",
        "ClusterRoleBinding",
        false,
    )
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ClusterRoleBinding>(generator);
