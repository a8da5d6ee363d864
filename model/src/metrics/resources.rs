//! Usage against what was asked and what there is: a pod's requests and limits (per
//! container, and summed over its containers as `kubectl describe` does), a node's
//! allocatable, the percentage shown beside usage, the mark of a row over 90 % of its memory
//! limit, and the cell text (`120m / 500m limit`, `64Mi / 128Mi limit`).

use serde_json::Value;

use super::decode::Usage;
use super::quantity::{cpu_millis, format_bytes, format_cpu, whole_units};
use crate::object::pointer::Pointer;

/// Over this share of its memory limit a row is marked: the kernel's OOM killer is near.
pub const MEMORY_MARK_PERCENT: f64 = 90.0;

/// CPU (millicores) and memory (bytes) asked for, each absent when not set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Amounts {
    pub cpu_millis: Option<i64>,
    pub memory_bytes: Option<i64>,
}

impl Amounts {
    fn of(resources: Option<&Value>) -> Amounts {
        let read = |name: &str, parse: fn(&str) -> Option<i64>| {
            resources
                .and_then(|r| r.at(&format!("/{name}")))
                .and_then(Value::as_str)
                .and_then(parse)
        };
        Amounts {
            cpu_millis: read("cpu", cpu_millis),
            memory_bytes: read("memory", whole_units),
        }
    }

    /// Sums requests: a missing one counts as 0 (`kubectl describe node`'s sum), absent only
    /// when no container set it.
    pub fn add_requests(self, other: Amounts) -> Amounts {
        let add = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        Amounts {
            cpu_millis: add(self.cpu_millis, other.cpu_millis),
            memory_bytes: add(self.memory_bytes, other.memory_bytes),
        }
    }

    /// Sums limits: one container without a limit leaves the pod without one (it may use
    /// what the node has), so the sum would claim a bound that is not there.
    fn add_limits(self, other: Amounts) -> Amounts {
        let add = |a: Option<i64>, b: Option<i64>| Some(a? + b?);
        Amounts {
            cpu_millis: add(self.cpu_millis, other.cpu_millis),
            memory_bytes: add(self.memory_bytes, other.memory_bytes),
        }
    }
}

/// One container's requests and limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerResources {
    pub name: String,
    pub requests: Amounts,
    pub limits: Amounts,
}

/// A pod's requests and limits: per container that runs beside the others (app containers
/// and sidecars, init containers with `restartPolicy: Always`, which metrics report too),
/// and their sums.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodResources {
    pub containers: Vec<ContainerResources>,
    pub requests: Amounts,
    pub limits: Amounts,
}

impl PodResources {
    pub fn of(pod: &Value) -> PodResources {
        let list = |pointer: &str| -> Vec<&Value> {
            pod.at(pointer)
                .and_then(Value::as_array)
                .map(|a| a.iter().collect())
                .unwrap_or_default()
        };
        let sidecars = list("/spec/initContainers")
            .into_iter()
            .filter(|c| c.at("/restartPolicy").and_then(Value::as_str) == Some("Always"));
        let containers: Vec<ContainerResources> = list("/spec/containers")
            .into_iter()
            .chain(sidecars)
            .map(|c| ContainerResources {
                name: c
                    .at("/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                requests: Amounts::of(c.at("/resources/requests")),
                // A limit without a request defaults the request to it (the API server does
                // so on create; a pod read back has both).
                limits: Amounts::of(c.at("/resources/limits")),
            })
            .collect();
        let mut requests = Amounts::default();
        let mut limits: Option<Amounts> = None;
        for c in &containers {
            requests = requests.add_requests(c.requests);
            limits = Some(match limits {
                None => c.limits,
                Some(sum) => sum.add_limits(c.limits),
            });
        }
        PodResources {
            containers,
            requests,
            limits: limits.unwrap_or_default(),
        }
    }

    pub fn container(&self, name: &str) -> Option<&ContainerResources> {
        self.containers.iter().find(|c| c.name == name)
    }
}

/// A node's allocatable CPU and memory (what pods may be given).
pub fn node_allocatable(node: &Value) -> Amounts {
    Amounts::of(node.at("/status/allocatable"))
}

/// `part` of `whole` in percent; `None` without a positive whole.
pub fn percent(part: f64, whole: Option<f64>) -> Option<f64> {
    whole.filter(|w| *w > 0.0).map(|w| part * 100.0 / w)
}

/// Which resource a cell or chart shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    Cpu,
    Memory,
}

impl Resource {
    /// The value compared: millicores (fractional) or bytes.
    pub fn of_usage(self, usage: Usage) -> f64 {
        match self {
            Resource::Cpu => usage.cpu_nanos as f64 / 1e6,
            Resource::Memory => usage.memory_bytes as f64,
        }
    }

    /// The same unit as [`Resource::of_usage`].
    pub fn of_amounts(self, amounts: Amounts) -> Option<f64> {
        match self {
            Resource::Cpu => amounts.cpu_millis.map(|m| m as f64),
            Resource::Memory => amounts.memory_bytes.map(|b| b as f64),
        }
    }

    /// A value in this unit as people write it (`120m`, `64Mi`).
    pub fn format(self, value: f64) -> String {
        match self {
            Resource::Cpu => format_cpu(value.ceil() as i64),
            Resource::Memory => format_bytes(value.round() as i64),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Resource::Cpu => "CPU",
            Resource::Memory => "Memory",
        }
    }
}

/// What the usage is held against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// A pod's or container's limit (percent of it), its request shown when there is no
    /// limit.
    Limit,
    /// A node's allocatable.
    Allocatable,
}

/// One usage cell of a list, and what it sorts by.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageCell {
    /// `120m / 500m limit`, `64Mi / 128Mi limit`, `40m / 100m request`, `344m / 8 allocatable`
    /// or just `120m`.
    pub text: String,
    /// The usage, in the resource's unit (sort key).
    pub value: f64,
    /// Percent of the limit or of allocatable.
    pub percent: Option<f64>,
    /// Over [`MEMORY_MARK_PERCENT`] of a memory limit: marked (icon and word).
    pub marked: bool,
}

impl UsageCell {
    /// The mark's word beside its icon, never colour alone.
    pub const MARK_WORD: &'static str = "Near limit";
}

/// The cell for `usage` of `resource` against `requests` and `limits` (a pod or container), or
/// against allocatable (`limits` holds it, `against` says so).
pub fn usage_cell(
    resource: Resource,
    usage: Usage,
    requests: Amounts,
    limits: Amounts,
    against: Against,
) -> UsageCell {
    let value = resource.of_usage(usage);
    let used = resource.format(value);
    let limit = resource.of_amounts(limits);
    let request = resource.of_amounts(requests);
    let (text, percent) = match (against, limit, request) {
        (Against::Allocatable, Some(total), _) => (
            format!("{used} / {} allocatable", resource.format(total)),
            percent(value, Some(total)),
        ),
        (Against::Limit, Some(total), _) => (
            format!("{used} / {} limit", resource.format(total)),
            percent(value, Some(total)),
        ),
        (Against::Limit, None, Some(asked)) => {
            (format!("{used} / {} request", resource.format(asked)), None)
        }
        _ => (used, None),
    };
    let marked = resource == Resource::Memory
        && against == Against::Limit
        && percent.is_some_and(|p| p > MEMORY_MARK_PERCENT);
    UsageCell {
        text,
        value,
        percent,
        marked,
    }
}
