//! rbac.authorization.k8s.io/v1 RoleBindings and ClusterRoleBindings: kubectl's columns, `system:` names.

use serde_json::{json, Value};

use super::RbacPrinted;
use crate::registry::kinds::builder::ResourceDefBuilder;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::rbac::v1::RoleBinding;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    ResourceDefBuilder::new(
        "rbac.authorization.k8s.io",
        "rolebindings",
        "rolebinding",
        "RoleBinding",
        true,
    )
    .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<RoleBinding>(generator);

pub static STRATEGY: RbacPrinted = RbacPrinted(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[
    NAME,
    column("Role", 0),
    column("Age", 0),
    column("Users", 1),
    column("Groups", 1),
    column("ServiceAccounts", 1),
];

fn cells(o: &Value) -> Vec<Value> {
    let subjects = o["subjects"].as_array().cloned().unwrap_or_default();
    let of = |kind: &str| {
        subjects
            .iter()
            .filter(|x| x["kind"] == kind)
            // Service accounts as namespace/name (rbac.SubjectsStrings).
            .map(
                |x| match x["namespace"].as_str().filter(|n| !n.is_empty()) {
                    Some(namespace) if kind == "ServiceAccount" => {
                        format!("{namespace}/{}", value_text(&x["name"]))
                    }
                    _ => value_text(&x["name"]),
                },
            )
            .collect::<Vec<_>>()
            .join(", ")
    };
    named(
        o,
        [
            json!(format!(
                "{}/{}",
                value_text(&o["roleRef"]["kind"]),
                value_text(&o["roleRef"]["name"])
            )),
            age(o),
            json!(of("User")),
            json!(of("Group")),
            json!(of("ServiceAccount")),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_printer_shows_the_role_and_subjects_by_kind() {
        let binding = json!({"metadata": {"name": "system:controller:job-controller"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": "system:controller:job-controller"},
            "subjects": [
                {"kind": "User", "name": "alice"},
                {"kind": "User", "name": "bob"},
                {"kind": "Group", "name": "system:masters"},
                {"kind": "ServiceAccount", "namespace": "kube-system", "name": "job-controller"}]});
        let row = cells(&binding);
        assert_eq!(row[1], "ClusterRole/system:controller:job-controller");
        assert_eq!(
            row[3..],
            [
                json!("alice, bob"),
                json!("system:masters"),
                json!("kube-system/job-controller")
            ]
        );
        let names: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
        assert_eq!(names[3..], ["Users", "Groups", "ServiceAccounts"]);
    }
}
