//! "What can I do here?": the namespace's rules review as a table, resources as rows and verbs
//! as columns (what `kubectl auth can-i --list` says as rules), for every namespaced resource
//! and subresource the server serves in its preferred version.

use super::review::{Permission, RulesReview};
use super::rule::ResourceRequest;
use crate::api::tree::ApiTree;

/// The columns, in kubectl's order of reading before writing.
pub const VERBS: [&str; 8] = [
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
];

/// One cell: what the rules say, or that the server does not serve the verb there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    Allowed,
    /// Allowed only for the objects these names name.
    OnlyNamed(Vec<String>),
    Denied,
    /// The rules are incomplete and do not allow it: the server decides.
    Unknown,
    NotServed,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatrixRow {
    pub group: String,
    /// `pods`, or `pods/log` for a subresource.
    pub resource: String,
    pub kind: String,
    pub cells: Vec<Cell>,
}

impl MatrixRow {
    /// Whether any verb is allowed (for "show only what I may do").
    pub fn any_allowed(&self) -> bool {
        self.cells
            .iter()
            .any(|c| matches!(c, Cell::Allowed | Cell::OnlyNamed(_)))
    }
}

/// The rows for the namespaced resources of `tree` (preferred versions), sorted by group then
/// resource.
pub fn permission_matrix(tree: &ApiTree, rules: &RulesReview) -> Vec<MatrixRow> {
    let mut rows = Vec::new();
    for group in tree.groups.iter() {
        let Some(version) = group
            .versions
            .iter()
            .find(|v| Some(&v.version) == group.preferred_version.as_ref())
            .or_else(|| group.versions.first())
        else {
            continue;
        };
        for resource in version.resources.iter().filter(|r| r.namespaced) {
            rows.push(row(
                rules,
                &group.name,
                &resource.plural,
                "",
                &resource.kind,
                &resource.verbs,
            ));
            for sub in &resource.subresources {
                rows.push(row(
                    rules,
                    &group.name,
                    &resource.plural,
                    &sub.name,
                    &sub.kind,
                    &sub.verbs,
                ));
            }
        }
    }
    crate::list::stable_sort::sort_by(&mut rows, |a, b| {
        (&a.group, &a.resource).cmp(&(&b.group, &b.resource))
    });
    rows
}

fn row(
    rules: &RulesReview,
    group: &str,
    resource: &str,
    subresource: &str,
    kind: &str,
    served: &[String],
) -> MatrixRow {
    let cells = VERBS
        .iter()
        .map(|verb| {
            if !served.iter().any(|s| s == verb) {
                return Cell::NotServed;
            }
            let request = ResourceRequest::new(verb, group, resource).subresource(subresource);
            match rules.answer(&request) {
                Permission::Allowed(_) => Cell::Allowed,
                Permission::Unknown => Cell::Unknown,
                Permission::Denied => {
                    let names = named_grants(rules, &request);
                    if names.is_empty() {
                        Cell::Denied
                    } else {
                        Cell::OnlyNamed(names)
                    }
                }
            }
        })
        .collect();
    let resource = if subresource.is_empty() {
        resource.to_string()
    } else {
        format!("{resource}/{subresource}")
    };
    MatrixRow {
        group: group.to_string(),
        resource,
        kind: kind.to_string(),
        cells,
    }
}

/// Names the rules allow one by one (rules with `resourceNames`).
fn named_grants(rules: &RulesReview, request: &ResourceRequest) -> Vec<String> {
    let mut names: Vec<String> = rules
        .resource_rules
        .iter()
        .filter(|rule| !rule.resource_names.is_empty())
        .flat_map(|rule| {
            rule.resource_names
                .iter()
                .filter(|name| rule.allows(&request.named(name)))
                .cloned()
        })
        .collect();
    crate::list::stable_sort::sort(&mut names);
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::tests::sample_tree;
    use serde_json::json;

    #[test]
    fn rows_say_what_the_rules_allow_per_verb() {
        let rules = RulesReview::from_answer(&json!({"status": {"resourceRules": [
            {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods", "pods/status"]},
            {"verbs": ["update"], "apiGroups": [""], "resources": ["podtemplates"], "resourceNames": ["base"]},
        ], "incomplete": false}}))
        .unwrap();
        let rows = permission_matrix(&sample_tree(), &rules);
        let core: Vec<&str> = rows
            .iter()
            .filter(|r| r.group.is_empty())
            .map(|r| r.resource.as_str())
            .collect();
        // Cluster-scoped kinds (namespaces, nodes) are not in a namespace's rules.
        assert_eq!(
            core,
            [
                "events",
                "pods",
                "pods/eviction",
                "pods/status",
                "podtemplates"
            ]
        );
        let cells = |name: &str| &rows.iter().find(|r| r.resource == name).unwrap().cells;
        assert_eq!(
            &cells("pods")[..4],
            &[Cell::Allowed, Cell::Allowed, Cell::Allowed, Cell::Denied]
        );
        assert_eq!(cells("pods/status")[0], Cell::Allowed);
        assert_eq!(cells("pods/status")[1], Cell::NotServed);
        assert_eq!(cells("pods/eviction")[3], Cell::Denied);
        assert_eq!(
            cells("podtemplates")[4],
            Cell::OnlyNamed(vec!["base".into()])
        );
        assert!(!rows
            .iter()
            .find(|r| r.resource == "events")
            .unwrap()
            .any_allowed());
    }
}
