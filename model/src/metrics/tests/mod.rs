//! Unit tests of the metrics domain too long to sit beside their code.

mod poll;
mod resources;

/// A version aggregated discovery marked Stale is missing even when it still lists its
/// resources.
#[test]
fn a_stale_version_is_missing() {
    use crate::api::tree::{ApiGroup, ApiResource, ApiTree, GroupVersion};
    use crate::metrics::discovery::{metrics_api, MetricsApi};
    let resource = |plural: &str, kind: &str, namespaced: bool| ApiResource {
        plural: plural.into(),
        singular: String::new(),
        kind: kind.into(),
        namespaced,
        verbs: vec!["get".into(), "list".into()],
        short_names: vec![],
        categories: vec![],
        subresources: vec![],
    };
    let tree = |stale: bool| {
        ApiTree::new(vec![ApiGroup::new(
            "metrics.k8s.io",
            vec![GroupVersion::new(
                "v1beta1",
                stale,
                vec![
                    resource("nodes", "NodeMetrics", false),
                    resource("pods", "PodMetrics", true),
                ],
            )],
            Some("v1beta1"),
        )])
    };
    assert_eq!(
        metrics_api(&tree(false)),
        MetricsApi::Served {
            version: "v1beta1".into(),
            pods: true,
            nodes: true
        }
    );
    assert_eq!(
        metrics_api(&tree(true)).reason(),
        Some("no metrics API: install metrics-server (metrics.k8s.io/v1beta1 is unavailable)")
    );
}
