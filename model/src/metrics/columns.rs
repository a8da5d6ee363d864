//! The CPU and MEMORY columns of the pods and nodes lists (as `kubectl top`), beside the
//! server's Table columns: each row's usage against its limit (or its request), or a node's
//! against its allocatable, and the order of the rows when sorted by them.

use std::collections::HashMap;

use serde_json::Value;

use super::decode::{NodeMetrics, PodMetrics};
use super::resources::{node_allocatable, usage_cell, Against, Amounts, PodResources};
use super::resources::{Resource, UsageCell};
use crate::list::table::{RowPosition, SortDirection, Table};
use crate::object::pointer::Pointer;

/// A row's usage cells.
#[derive(Debug, Clone, PartialEq)]
pub struct RowUsage {
    pub cpu: UsageCell,
    pub memory: UsageCell,
}

impl RowUsage {
    pub fn cell(&self, resource: Resource) -> &UsageCell {
        match resource {
            Resource::Cpu => &self.cpu,
            Resource::Memory => &self.memory,
        }
    }
}

/// The usage cells of a list's rows, by namespace (empty for nodes) and name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageColumns {
    rows: HashMap<(String, String), RowUsage>,
}

fn name_of(object: &Value) -> (String, String) {
    let text = |pointer: &str| {
        object
            .at(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    (text("/metadata/namespace"), text("/metadata/name"))
}

impl UsageColumns {
    /// Pods' usage against the requests and limits of `pods` (whole objects; any subset,
    /// even none: a pod not among them shows its usage alone).
    pub fn of_pods<'a>(
        metrics: &[PodMetrics],
        pods: impl IntoIterator<Item = &'a Value>,
    ) -> UsageColumns {
        let resources: HashMap<(String, String), PodResources> = pods
            .into_iter()
            .map(|pod| (name_of(pod), PodResources::of(pod)))
            .collect();
        let rows = metrics
            .iter()
            .map(|m| {
                let name = (m.namespace.clone(), m.name.clone());
                let (requests, limits) = resources
                    .get(&name)
                    .map(|r| (r.requests, r.limits))
                    .unwrap_or_default();
                let usage = m.usage();
                let cell = |resource| usage_cell(resource, usage, requests, limits, Against::Limit);
                let row = RowUsage {
                    cpu: cell(Resource::Cpu),
                    memory: cell(Resource::Memory),
                };
                (name, row)
            })
            .collect();
        UsageColumns { rows }
    }

    /// Nodes' usage against the allocatable of `nodes` (whole objects).
    pub fn of_nodes<'a>(
        metrics: &[NodeMetrics],
        nodes: impl IntoIterator<Item = &'a Value>,
    ) -> UsageColumns {
        let allocatable: HashMap<String, Amounts> = nodes
            .into_iter()
            .map(|node| (name_of(node).1, node_allocatable(node)))
            .collect();
        let rows = metrics
            .iter()
            .map(|m| {
                let total = allocatable.get(&m.name).copied().unwrap_or_default();
                let cell = |resource| {
                    usage_cell(
                        resource,
                        m.usage,
                        Amounts::default(),
                        total,
                        Against::Allocatable,
                    )
                };
                let row = RowUsage {
                    cpu: cell(Resource::Cpu),
                    memory: cell(Resource::Memory),
                };
                ((String::new(), m.name.clone()), row)
            })
            .collect();
        UsageColumns { rows }
    }

    /// The usage of the row of `name` in `namespace` (None for nodes).
    pub fn row(&self, namespace: Option<&str>, name: &str) -> Option<&RowUsage> {
        // Borrowed lookups of a tuple key need owned strings; rows are few per frame.
        self.rows
            .get(&(namespace.unwrap_or_default().to_string(), name.to_string()))
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// The resource a column sorts by, when `column` (a sort's column name) is a usage column.
pub fn usage_column(column: &str) -> Option<Resource> {
    [Resource::Cpu, Resource::Memory]
        .into_iter()
        .find(|r| r.label().eq_ignore_ascii_case(column))
}

/// Sorts `positions` of `table`'s rows by their usage of `resource`; rows without usage go
/// last whichever the direction (as empty cells do), ties keep their order.
pub fn sort_by_usage(
    positions: &mut [RowPosition],
    table: &Table,
    usage: &UsageColumns,
    resource: Resource,
    direction: SortDirection,
) {
    let value = |position: &RowPosition| -> Option<f64> {
        let row = table.at(*position)?;
        let name = row.name(table.columns());
        usage
            .row(row.meta.namespace.as_deref(), name)
            .map(|u| u.cell(resource).value)
    };
    let mut keyed: Vec<(Option<f64>, RowPosition)> =
        positions.iter().map(|p| (value(p), *p)).collect();
    keyed.sort_by(|(a, _), (b, _)| match (a, b) {
        (Some(a), Some(b)) => match direction {
            SortDirection::Ascending => a.total_cmp(b),
            SortDirection::Descending => b.total_cmp(a),
        },
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    for (slot, (_, position)) in positions.iter_mut().zip(keyed) {
        *slot = position;
    }
}
