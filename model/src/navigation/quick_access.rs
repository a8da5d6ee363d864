//! The kinds people open most, one click away: a short list above the full API tree, grouped
//! as the familiar dashboards group them, showing only what discovery says is served (in the
//! group's preferred version) plus the cluster's custom resources.

use crate::api::tree::{ApiTree, ResourceId};

/// One section (`Workloads`, `Network`...) and its entries in display order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuickSection {
    pub title: &'static str,
    pub entries: Vec<QuickEntry>,
    /// How many entries show before a "more" button: all of a familiar section, the first
    /// [`CUSTOM_SHOWN_FIRST`] of the custom resources (a cluster with 300 CRDs would otherwise
    /// push the API tree below a wall of links).
    pub shown_first: usize,
}

/// Custom resources shown before the section's "more" button.
pub const CUSTOM_SHOWN_FIRST: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuickEntry {
    /// Plural display label (`Pods`, `CronJobs`), from the resource's kind.
    pub label: String,
    pub id: ResourceId,
    pub namespaced: bool,
}

/// (section, [(group, plural)]) in display order.
const DAILY: &[(&str, &[(&str, &str)])] = &[
    (
        "Workloads",
        &[
            ("", "pods"),
            ("apps", "deployments"),
            ("apps", "replicasets"),
            ("apps", "statefulsets"),
            ("apps", "daemonsets"),
            ("batch", "jobs"),
            ("batch", "cronjobs"),
        ],
    ),
    (
        "Network",
        &[
            ("", "services"),
            ("networking.k8s.io", "ingresses"),
            ("discovery.k8s.io", "endpointslices"),
            ("networking.k8s.io", "networkpolicies"),
        ],
    ),
    ("Config", &[("", "configmaps"), ("", "secrets")]),
    (
        "Storage",
        &[
            ("", "persistentvolumeclaims"),
            ("", "persistentvolumes"),
            ("storage.k8s.io", "storageclasses"),
        ],
    ),
    (
        "Cluster",
        &[("", "nodes"), ("", "namespaces"), ("", "events")],
    ),
];

/// Groups that come with Kubernetes itself: everything else is a custom (or aggregated) API.
fn is_built_in_group(group: &str) -> bool {
    group.is_empty() || !group.contains('.') || group.ends_with(".k8s.io") || group == "k8s.io"
}

/// `Pod` -> `Pods`, `Ingress` -> `Ingresses`, `NetworkPolicy` -> `NetworkPolicies`.
pub fn plural_label(kind: &str) -> String {
    if let Some(stem) = kind.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if kind.ends_with('s') || kind.ends_with("ch") || kind.ends_with("sh") || kind.ends_with('x') {
        return format!("{kind}es");
    }
    format!("{kind}s")
}

/// The quick-access sections for this tree; sections with nothing served are left out.
pub fn quick_sections(tree: &ApiTree) -> Vec<QuickSection> {
    let preferred_entry = |group: &str, plural: &str| {
        let group = tree.group(group)?;
        let version = group.preferred()?;
        let resource = version.resource(plural)?;
        resource.supports("list").then(|| QuickEntry {
            label: plural_label(&resource.kind),
            id: ResourceId::new(group.name.clone(), version.version.clone(), plural),
            namespaced: resource.namespaced,
        })
    };
    let mut sections: Vec<QuickSection> = DAILY
        .iter()
        .map(|(title, entries)| {
            let entries: Vec<QuickEntry> = entries
                .iter()
                .filter_map(|(group, plural)| preferred_entry(group, plural))
                .collect();
            QuickSection {
                title,
                shown_first: entries.len(),
                entries,
            }
        })
        .collect();
    let mut custom: Vec<QuickEntry> = tree
        .groups
        .iter()
        .filter(|g| !is_built_in_group(&g.name))
        .filter_map(|g| g.preferred().map(|v| (g, v)))
        .flat_map(|(g, v)| {
            v.resources
                .iter()
                .filter(|r| r.supports("list"))
                .map(|r| QuickEntry {
                    label: plural_label(&r.kind),
                    id: ResourceId::new(g.name.clone(), v.version.clone(), r.plural.clone()),
                    namespaced: r.namespaced,
                })
        })
        .collect();
    crate::list::stable_sort::sort_by(&mut custom, |a, b| {
        a.label
            .cmp(&b.label)
            .then_with(|| a.id.group.cmp(&b.id.group))
    });
    // Kinds of the same name from different groups (providers often share kind names): the
    // group tells them apart.
    let shared: Vec<bool> = (0..custom.len())
        .map(|i| {
            let same = |j: usize| custom.get(j).is_some_and(|o| o.label == custom[i].label);
            same(i + 1) || (i > 0 && same(i - 1))
        })
        .collect();
    for (entry, shared) in custom.iter_mut().zip(shared) {
        if shared {
            entry.label = format!("{} ({})", entry.label, entry.id.group);
        }
    }
    sections.push(QuickSection {
        title: "Custom resources",
        shown_first: custom.len().min(CUSTOM_SHOWN_FIRST),
        entries: custom,
    });
    sections.retain(|s| !s.entries.is_empty());
    sections
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::{ApiGroup, ApiResource, GroupVersion};

    fn resource(plural: &str, kind: &str, verbs: &[&str]) -> ApiResource {
        ApiResource {
            plural: plural.into(),
            singular: kind.to_lowercase(),
            kind: kind.into(),
            namespaced: true,
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
            short_names: vec![],
            categories: vec![],
            subresources: vec![],
        }
    }

    fn group(name: &str, versions: Vec<(&str, bool, Vec<ApiResource>)>) -> ApiGroup {
        let preferred = versions.iter().find(|(_, p, _)| *p).map(|(v, _, _)| *v);
        ApiGroup::new(
            name,
            versions
                .iter()
                .map(|(v, _, resources)| GroupVersion::new(*v, false, resources.clone()))
                .collect(),
            preferred,
        )
    }

    #[test]
    fn only_served_kinds_in_their_preferred_version() {
        let list = ["get", "list", "watch"];
        let tree = ApiTree::new(vec![
            group(
                "",
                vec![(
                    "v1",
                    true,
                    vec![
                        resource("pods", "Pod", &list),
                        resource("configmaps", "ConfigMap", &list),
                        // Not listable: not offered.
                        resource("bindings", "Binding", &["create"]),
                    ],
                )],
            ),
            group(
                "batch",
                vec![
                    ("v1", true, vec![resource("cronjobs", "CronJob", &list)]),
                    ("v1beta1", false, vec![resource("jobs", "Job", &list)]),
                ],
            ),
            group(
                "networking.k8s.io",
                vec![("v1", true, vec![resource("ingresses", "Ingress", &list)])],
            ),
            group(
                "cnat.programming-kubernetes.info",
                vec![("v1alpha1", true, vec![resource("ats", "At", &list)])],
            ),
        ]);
        let sections = quick_sections(&tree);
        let titles: Vec<&str> = sections.iter().map(|s| s.title).collect();
        assert_eq!(
            titles,
            ["Workloads", "Network", "Config", "Custom resources"]
        );
        let workloads: Vec<&str> = sections[0]
            .entries
            .iter()
            .map(|e| e.label.as_str())
            .collect();
        // Jobs are only served in a non-preferred version here: left out.
        assert_eq!(workloads, ["Pods", "CronJobs"]);
        assert_eq!(
            sections[0].entries[1].id,
            ResourceId::new("batch", "v1", "cronjobs")
        );
        assert_eq!(sections[1].entries[0].label, "Ingresses");
        assert_eq!(
            sections[3].entries[0].id,
            ResourceId::new("cnat.programming-kubernetes.info", "v1alpha1", "ats")
        );
        assert!(quick_sections(&ApiTree::default()).is_empty());
    }

    #[test]
    fn many_custom_resources_show_a_few_first_and_shared_kinds_name_their_group() {
        let list = ["get", "list", "watch"];
        let mut groups: Vec<ApiGroup> = (0..20)
            .map(|i| {
                let kind = format!("Thing{i:02}");
                group(
                    &format!("g{i:02}.example.com"),
                    vec![("v1", true, vec![resource("things", &kind, &list)])],
                )
            })
            .collect();
        for provider in ["aws.example.org", "gcp.example.org"] {
            groups.push(group(
                provider,
                vec![("v1", true, vec![resource("buckets", "Bucket", &list)])],
            ));
        }
        let sections = quick_sections(&ApiTree::new(groups));
        let custom = sections.last().unwrap();
        assert_eq!(custom.title, "Custom resources");
        assert_eq!(custom.entries.len(), 22);
        assert_eq!(custom.shown_first, CUSTOM_SHOWN_FIRST);
        let labels: Vec<&str> = custom.entries[..3]
            .iter()
            .map(|e| e.label.as_str())
            .collect();
        assert_eq!(
            labels,
            [
                "Buckets (aws.example.org)",
                "Buckets (gcp.example.org)",
                "Thing00s"
            ]
        );
    }

    #[test]
    fn plural_labels_read_naturally() {
        assert_eq!(plural_label("Pod"), "Pods");
        assert_eq!(plural_label("Ingress"), "Ingresses");
        assert_eq!(plural_label("NetworkPolicy"), "NetworkPolicies");
        assert_eq!(plural_label("Gateway"), "Gateways");
        assert_eq!(plural_label("StorageClass"), "StorageClasses");
        assert_eq!(plural_label("At"), "Ats");
    }
}
