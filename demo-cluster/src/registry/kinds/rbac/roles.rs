//! rbac.authorization.k8s.io/v1 Roles and ClusterRoles: kubectl's columns, `system:` names.

use super::RbacPrinted;
use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::CREATED_AT;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::rbac::v1::Role;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new("rbac.authorization.k8s.io", "roles", "role", "Role", true).build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<Role>(generator);

pub static STRATEGY: RbacPrinted = RbacPrinted(CREATED_AT);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::ResourceDef;
    use serde_json::json;

    fn def(resource: &str) -> ResourceDef {
        crate::registry::strategy::builtin_def("rbac.authorization.k8s.io", resource)
    }

    #[test]
    fn system_names_are_accepted_and_printed_with_their_creation_time() {
        let role = json!({"metadata": {"name": "system:controller:job-controller",
            "creationTimestamp": "2024-01-01T00:00:00Z"}, "rules": []});
        for resource in ["roles", "clusterroles"] {
            assert!(crate::registry::strategy::validate(&def(resource), &role).is_empty());
            let bad = json!({"metadata": {"name": "a/b"}});
            let causes = crate::registry::strategy::validate(&def(resource), &bad);
            assert_eq!(causes.len(), 1);
            assert_eq!(causes[0].field, "metadata.name");
        }
        let printer = crate::registry::strategy::Strategy::printer(&STRATEGY).unwrap();
        let names: Vec<&str> = printer.columns.iter().map(|c| c.name).collect();
        assert_eq!(names, ["Name", "Created At"]);
        assert_eq!(
            (printer.cells)(&role),
            [
                json!("system:controller:job-controller"),
                json!("2024-01-01T00:00:00Z")
            ]
        );
    }
}
