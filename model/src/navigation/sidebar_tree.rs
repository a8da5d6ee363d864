//! What the sidebar tree shows and how the keyboard moves through it (WAI-ARIA tree pattern):
//! the visible rows for a tree, a filter and the expanded set, and the effect of a key press.

use std::collections::HashSet;

use crate::api::tree::{group_display_name, ApiTree, ResourceId};
use crate::navigation::resource_search::TreeFilter;

/// A node of the sidebar tree, identified by value so it survives tree rebuilds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NodeKey {
    Group(String),
    Version { group: String, version: String },
    Resource(ResourceId),
    Subresource { resource: ResourceId, name: String },
}

impl NodeKey {
    /// A DOM-safe, stable string form (`g:apps`, `v:apps/v1`, `r:apps/v1/deployments`,
    /// `s:apps/v1/deployments/scale`).
    pub fn dom_key(&self) -> String {
        match self {
            NodeKey::Group(g) => format!("g:{}", group_display_name(g)),
            NodeKey::Version { group, version } => {
                format!("v:{}/{version}", group_display_name(group))
            }
            NodeKey::Resource(id) => format!("r:{}", id.key()),
            NodeKey::Subresource { resource, name } => format!("s:{}/{name}", resource.key()),
        }
    }

    pub fn depth(&self) -> u8 {
        match self {
            NodeKey::Group(_) => 0,
            NodeKey::Version { .. } => 1,
            NodeKey::Resource(_) => 2,
            NodeKey::Subresource { .. } => 3,
        }
    }

    /// The resource a selection of this node means, if any.
    pub fn resource(&self) -> Option<&ResourceId> {
        match self {
            NodeKey::Resource(id) | NodeKey::Subresource { resource: id, .. } => Some(id),
            _ => None,
        }
    }
}

/// One row the tree currently shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisibleRow {
    pub key: NodeKey,
    pub parent: Option<NodeKey>,
    pub expandable: bool,
    pub expanded: bool,
}

/// Rows in display order. With an active filter, everything that matched is shown expanded
/// (the user is searching); otherwise the `expanded` set decides.
pub fn visible_rows(
    tree: &ApiTree,
    filter: &TreeFilter,
    filtering: bool,
    expanded: &HashSet<NodeKey>,
) -> Vec<VisibleRow> {
    let is_open = |key: &NodeKey| filtering || expanded.contains(key);
    let mut rows = Vec::new();
    for gf in &filter.groups {
        let Some(group) = tree.groups.get(gf.group) else {
            continue;
        };
        let group_key = NodeKey::Group(group.name.clone());
        let group_open = is_open(&group_key);
        rows.push(VisibleRow {
            key: group_key.clone(),
            parent: None,
            expandable: !gf.versions.is_empty(),
            expanded: group_open,
        });
        if !group_open {
            continue;
        }
        for vf in &gf.versions {
            let Some(version) = group.versions.get(vf.version) else {
                continue;
            };
            let version_key = NodeKey::Version {
                group: group.name.clone(),
                version: version.version.clone(),
            };
            let version_open = is_open(&version_key);
            rows.push(VisibleRow {
                key: version_key.clone(),
                parent: Some(group_key.clone()),
                expandable: !vf.resources.is_empty(),
                expanded: version_open,
            });
            if !version_open {
                continue;
            }
            for &ri in &vf.resources {
                let Some(resource) = version.resources.get(ri) else {
                    continue;
                };
                let id = ResourceId::new(&group.name, &version.version, &resource.plural);
                let resource_key = NodeKey::Resource(id.clone());
                // Subresources are shown only on request, even while filtering: they are
                // detail, and would triple the rows.
                let resource_open = expanded.contains(&resource_key);
                rows.push(VisibleRow {
                    key: resource_key.clone(),
                    parent: Some(version_key.clone()),
                    expandable: !resource.subresources.is_empty(),
                    expanded: resource_open && !resource.subresources.is_empty(),
                });
                if resource_open {
                    for sub in &resource.subresources {
                        rows.push(VisibleRow {
                            key: NodeKey::Subresource {
                                resource: id.clone(),
                                name: sub.name.clone(),
                            },
                            parent: Some(resource_key.clone()),
                            expandable: false,
                            expanded: false,
                        });
                    }
                }
            }
        }
    }
    rows
}

/// What a key press in the tree asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NavAction {
    Focus(NodeKey),
    Expand(NodeKey),
    Collapse(NodeKey),
    /// Select (and focus) a node: Enter or Space.
    Activate(NodeKey),
    None,
}

/// The WAI-ARIA tree keyboard model: Up/Down move, Right expands or enters, Left collapses
/// or goes to the parent, Home/End jump, Enter/Space activate.
pub fn key_action(rows: &[VisibleRow], focused: Option<&NodeKey>, key: &str) -> NavAction {
    if rows.is_empty() {
        return NavAction::None;
    }
    let index = focused.and_then(|f| rows.iter().position(|r| &r.key == f));
    let Some(i) = index else {
        // Nothing focused yet: any navigation key lands on the first row.
        return match key {
            "ArrowDown" | "ArrowUp" | "Home" | "End" | "ArrowRight" | "ArrowLeft" => {
                NavAction::Focus(rows[0].key.clone())
            }
            _ => NavAction::None,
        };
    };
    let row = &rows[i];
    match key {
        "ArrowDown" => rows
            .get(i + 1)
            .map(|r| NavAction::Focus(r.key.clone()))
            .unwrap_or(NavAction::None),
        "ArrowUp" if i > 0 => NavAction::Focus(rows[i - 1].key.clone()),
        "Home" => NavAction::Focus(rows[0].key.clone()),
        "End" => NavAction::Focus(rows[rows.len() - 1].key.clone()),
        "ArrowRight" if row.expandable && !row.expanded => NavAction::Expand(row.key.clone()),
        "ArrowRight" if row.expandable => rows
            .get(i + 1)
            .map(|r| NavAction::Focus(r.key.clone()))
            .unwrap_or(NavAction::None),
        "ArrowLeft" if row.expandable && row.expanded => NavAction::Collapse(row.key.clone()),
        "ArrowLeft" => row
            .parent
            .clone()
            .map(NavAction::Focus)
            .unwrap_or(NavAction::None),
        "Enter" | " " => NavAction::Activate(row.key.clone()),
        _ => NavAction::None,
    }
}

/// The ancestors to expand so that a resource's row is visible (for deep links).
pub fn ancestors_of(id: &ResourceId) -> [NodeKey; 2] {
    [
        NodeKey::Group(id.group.clone()),
        NodeKey::Version {
            group: id.group.clone(),
            version: id.version.clone(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::{ApiGroup, ApiResource, GroupVersion, Subresource};
    use crate::navigation::resource_search::filter_tree;

    fn resource(plural: &str, kind: &str, subs: &[&str]) -> ApiResource {
        ApiResource {
            plural: plural.into(),
            singular: plural.trim_end_matches('s').into(),
            kind: kind.into(),
            namespaced: true,
            verbs: vec!["get".into(), "list".into()],
            short_names: vec![],
            categories: vec![],
            subresources: subs
                .iter()
                .map(|s| Subresource {
                    name: (*s).into(),
                    kind: kind.into(),
                    kind_group_version: None,
                    verbs: vec!["get".into()],
                })
                .collect(),
        }
    }

    fn sample() -> ApiTree {
        ApiTree::new(vec![
            ApiGroup::new(
                "",
                vec![GroupVersion::new(
                    "v1",
                    false,
                    vec![resource("pods", "Pod", &["log", "status"])],
                )],
                Some("v1"),
            ),
            ApiGroup::new(
                "apps",
                vec![GroupVersion::new(
                    "v1",
                    false,
                    vec![resource("deployments", "Deployment", &["scale"])],
                )],
                Some("v1"),
            ),
        ])
    }

    #[test]
    fn collapsed_tree_shows_only_groups() {
        let tree = sample();
        let rows = visible_rows(&tree, &filter_tree(&tree, ""), false, &HashSet::new());
        let keys: Vec<String> = rows.iter().map(|r| r.key.dom_key()).collect();
        assert_eq!(keys, ["g:core", "g:apps"]);
    }

    #[test]
    fn filtering_expands_matches_down_to_resources() {
        let tree = sample();
        let rows = visible_rows(&tree, &filter_tree(&tree, "deploy"), true, &HashSet::new());
        let keys: Vec<String> = rows.iter().map(|r| r.key.dom_key()).collect();
        assert_eq!(keys, ["g:apps", "v:apps/v1", "r:apps/v1/deployments"]);
    }

    #[test]
    fn keyboard_moves_expands_and_returns_to_parent() {
        let tree = sample();
        let filter = filter_tree(&tree, "");
        let mut expanded = HashSet::new();
        let rows = visible_rows(&tree, &filter, false, &expanded);
        let core = NodeKey::Group(String::new());
        assert_eq!(
            key_action(&rows, None, "ArrowDown"),
            NavAction::Focus(core.clone())
        );
        assert_eq!(
            key_action(&rows, Some(&core), "ArrowRight"),
            NavAction::Expand(core.clone())
        );
        expanded.insert(core.clone());
        let rows = visible_rows(&tree, &filter, false, &expanded);
        let v1 = NodeKey::Version {
            group: String::new(),
            version: "v1".into(),
        };
        assert_eq!(
            key_action(&rows, Some(&core), "ArrowRight"),
            NavAction::Focus(v1.clone())
        );
        assert_eq!(
            key_action(&rows, Some(&v1), "ArrowLeft"),
            NavAction::Focus(core.clone())
        );
        assert_eq!(
            key_action(&rows, Some(&core), "ArrowLeft"),
            NavAction::Collapse(core.clone())
        );
        assert_eq!(
            key_action(&rows, Some(&v1), "Enter"),
            NavAction::Activate(v1.clone())
        );
        assert_eq!(
            key_action(&rows, Some(&core), "End"),
            NavAction::Focus(NodeKey::Group("apps".into()))
        );
    }

    #[test]
    fn subresources_appear_under_an_expanded_resource() {
        let tree = sample();
        let pods = ResourceId::new("", "v1", "pods");
        let mut expanded: HashSet<NodeKey> = ancestors_of(&pods).into_iter().collect();
        expanded.insert(NodeKey::Resource(pods.clone()));
        let rows = visible_rows(&tree, &filter_tree(&tree, ""), false, &expanded);
        let keys: Vec<String> = rows.iter().map(|r| r.key.dom_key()).collect();
        assert_eq!(
            keys,
            [
                "g:core",
                "v:core/v1",
                "r:core/v1/pods",
                "s:core/v1/pods/log",
                "s:core/v1/pods/status",
                "g:apps"
            ]
        );
        assert_eq!(rows[3].key.resource(), Some(&pods));
    }
}
