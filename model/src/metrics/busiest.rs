//! The overview's usage: what each node uses of its allocatable, the cluster's sum, and the
//! busiest pods.

use std::cmp::Reverse;

use serde_json::Value;

use super::decode::{NodeMetrics, PodMetrics, Usage};
use super::resources::{node_allocatable, Amounts, Resource};
use crate::object::pointer::Pointer;

/// One node's usage against its allocatable.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeUsage {
    pub node: String,
    pub usage: Usage,
    pub allocatable: Amounts,
}

/// Each node's usage with its allocatable (from `nodes`, whole objects), by name.
pub fn node_usage<'a>(
    metrics: &[NodeMetrics],
    nodes: impl IntoIterator<Item = &'a Value>,
) -> Vec<NodeUsage> {
    let nodes: Vec<&Value> = nodes.into_iter().collect();
    let mut rows: Vec<NodeUsage> = metrics
        .iter()
        .map(|m| NodeUsage {
            node: m.name.clone(),
            usage: m.usage,
            allocatable: nodes
                .iter()
                .find(|n| n.at("/metadata/name").and_then(Value::as_str) == Some(&m.name))
                .map(|n| node_allocatable(n))
                .unwrap_or_default(),
        })
        .collect();
    rows.sort_by(|a, b| a.node.cmp(&b.node));
    rows
}

/// The cluster's sum of [`node_usage`] rows (allocatable of the nodes that reported).
pub fn cluster_usage(rows: &[NodeUsage]) -> NodeUsage {
    NodeUsage {
        node: "the cluster".to_string(),
        usage: rows.iter().map(|r| r.usage).sum(),
        allocatable: rows
            .iter()
            .fold(Amounts::default(), |sum, r| sum.add_requests(r.allocatable)),
    }
}

/// The `count` pods using the most of `resource`, most first (ties by namespace and name).
pub fn busiest_pods(metrics: &[PodMetrics], resource: Resource, count: usize) -> Vec<&PodMetrics> {
    let mut pods: Vec<&PodMetrics> = metrics.iter().collect();
    pods.sort_by_key(|p| {
        let value = resource.of_usage(p.usage());
        (
            Reverse(value.max(0.0) as u64),
            p.namespace.clone(),
            p.name.clone(),
        )
    });
    pods.truncate(count);
    pods
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::metrics::decode::ContainerUsage;

    fn pod(name: &str, millis: i64, mib: i64) -> PodMetrics {
        PodMetrics {
            namespace: "default".into(),
            name: name.into(),
            timestamp_ms: None,
            window_ms: None,
            containers: vec![ContainerUsage {
                name: "app".into(),
                usage: Usage::new(millis * 1_000_000, mib << 20),
            }],
        }
    }

    #[test]
    fn the_busiest_pods_come_first_by_the_resource_asked() {
        let pods = [pod("a", 10, 300), pod("b", 900, 20), pod("c", 400, 100)];
        let names = |r| -> Vec<&str> {
            busiest_pods(&pods, r, 2)
                .iter()
                .map(|p| p.name.as_str())
                .collect()
        };
        assert_eq!(names(Resource::Cpu), ["b", "c"]);
        assert_eq!(names(Resource::Memory), ["a", "c"]);
    }

    #[test]
    fn nodes_sum_to_the_cluster_against_their_allocatable() {
        let metrics = [
            NodeMetrics {
                name: "n2".into(),
                timestamp_ms: None,
                window_ms: None,
                usage: Usage::new(500_000_000, 1 << 30),
            },
            NodeMetrics {
                name: "n1".into(),
                timestamp_ms: None,
                window_ms: None,
                usage: Usage::new(250_000_000, 1 << 29),
            },
        ];
        let nodes = [
            json!({"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "2", "memory": "4Gi"}}}),
            json!({"metadata": {"name": "n2"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}}),
        ];
        let rows = node_usage(&metrics, &nodes);
        assert_eq!(rows[0].node, "n1");
        assert_eq!(rows[0].allocatable.cpu_millis, Some(2000));
        let total = cluster_usage(&rows);
        assert_eq!(total.usage.cpu_millis(), 750);
        assert_eq!(total.allocatable.cpu_millis, Some(6000));
        assert_eq!(total.allocatable.memory_bytes, Some(12 << 30));
    }
}
