//! rbac.authorization.k8s.io/v1 RoleBindings and ClusterRoleBindings: kubectl's columns, `system:` names.

use serde_json::{json, Value};

use super::printing::{age, c, named, s, Col, Printer, NAME};
use super::RbacPrinted;

pub static ROLE_BINDINGS: RbacPrinted = RbacPrinted(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[
    NAME,
    c("Role", 0),
    c("Age", 0),
    c("Users", 1),
    c("Groups", 1),
    c("ServiceAccounts", 1),
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
                        format!("{namespace}/{}", s(&x["name"]))
                    }
                    _ => s(&x["name"]),
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
                s(&o["roleRef"]["kind"]),
                s(&o["roleRef"]["name"])
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
