//! Synthetic CRD groups for benchmarks (e.g. the real fixture plus 300 CRD groups): benchmark
//! data, kept out of the product crate. Included by path by the tests and the examples that use
//! it (`#[path = ...] mod synthetic_crds;`: the model's discovery fixtures and benchmark, the
//! app's `tests/bench_ui.rs`); each uses only part of it.

#![allow(dead_code)]

use kube_atlas_model::api::discovery::{
    ApiGroupDiscovery, ApiGroupDiscoveryList, ApiResourceDiscovery, ApiSubresourceDiscovery,
    ApiVersionDiscovery, GroupMetadata, GroupVersionKindDoc,
};

const CRUD_VERBS: [&str; 8] = [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn gvk(group: &str, version: &str, kind: &str) -> Option<GroupVersionKindDoc> {
    Some(GroupVersionKindDoc {
        group: group.to_string(),
        version: version.to_string(),
        kind: kind.to_string(),
    })
}

/// `n` CRD-like groups `group{i}.synthetic.example.com`, each serving `v1` and `v1beta1`
/// with two resources (one namespaced with status and scale, one cluster-scoped), shaped
/// like what kube-apiserver emits for CRDs.
pub fn synthetic_crd_list(n: usize) -> ApiGroupDiscoveryList {
    let items = (0..n)
        .map(|i| {
            let versions = ["v1", "v1beta1"]
                .iter()
                .map(|v| ApiVersionDiscovery {
                    version: v.to_string(),
                    freshness: Some("Current".to_string()),
                    resources: vec![
                        ApiResourceDiscovery {
                            resource: format!("widget{i}s"),
                            response_kind: gvk("", "", &format!("Widget{i}")),
                            scope: "Namespaced".to_string(),
                            singular_resource: format!("widget{i}"),
                            verbs: strings(&CRUD_VERBS),
                            short_names: vec![format!("wg{i}")],
                            categories: strings(&["all", "synthetic"]),
                            subresources: vec![
                                ApiSubresourceDiscovery {
                                    subresource: "scale".to_string(),
                                    response_kind: gvk("autoscaling", "v1", "Scale"),
                                    accepted_types: vec![],
                                    verbs: strings(&["get", "patch", "update"]),
                                },
                                ApiSubresourceDiscovery {
                                    subresource: "status".to_string(),
                                    response_kind: gvk("", "", &format!("Widget{i}")),
                                    accepted_types: vec![],
                                    verbs: strings(&["get", "patch", "update"]),
                                },
                            ],
                        },
                        ApiResourceDiscovery {
                            resource: format!("gadget{i}s"),
                            response_kind: gvk("", "", &format!("Gadget{i}")),
                            scope: "Cluster".to_string(),
                            singular_resource: format!("gadget{i}"),
                            verbs: strings(&CRUD_VERBS),
                            short_names: vec![],
                            categories: vec![],
                            subresources: vec![],
                        },
                    ],
                })
                .collect();
            ApiGroupDiscovery {
                metadata: GroupMetadata {
                    name: format!("group{i}.synthetic.example.com"),
                },
                versions,
            }
        })
        .collect();
    ApiGroupDiscoveryList {
        kind: "APIGroupDiscoveryList".to_string(),
        api_version: "apidiscovery.k8s.io/v2".to_string(),
        metadata: serde_json::json!({}),
        items,
    }
}

/// [`synthetic_crd_list`] as the JSON body a server would send.
pub fn synthetic_crd_groups(n: usize) -> String {
    // Serialising plain strings/vecs/maps cannot fail; fall back to an empty list regardless.
    serde_json::to_string(&synthetic_crd_list(n)).unwrap_or_else(|_| {
        r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[]}"#
            .to_string()
    })
}

/// Appends `n` synthetic CRD groups to a real aggregated body (benchmark input).
pub fn with_synthetic_crds(
    aggregated_body: &str,
    n: usize,
) -> Result<String, kube_atlas_model::api::discovery::DiscoveryError> {
    let mut list = kube_atlas_model::api::discovery::parse_aggregated(aggregated_body)?;
    list.items.extend(synthetic_crd_list(n).items);
    serde_json::to_string(&list).map_err(|e| kube_atlas_model::api::discovery::DiscoveryError {
        context: "synthetic discovery".to_string(),
        message: e.to_string(),
    })
}
