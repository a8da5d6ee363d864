//! The metrics API's answers read into usage: `PodMetrics` per pod and per container,
//! `NodeMetrics` per node, in nanocores and bytes, as metrics-server writes them
//! (`{"cpu":"24091116n","memory":"18664Ki"}`), with the sample's time and window.

use std::ops::{Add, AddAssign};

use serde_json::Value;

use super::quantity::{cpu_nanos, whole_units};
use crate::object::pointer::Pointer;
use crate::time::age::{parse_timestamp, EpochMillis};

/// CPU and memory in use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Usage {
    pub cpu_nanos: i64,
    pub memory_bytes: i64,
}

impl Usage {
    pub fn new(cpu_nanos: i64, memory_bytes: i64) -> Usage {
        Usage {
            cpu_nanos,
            memory_bytes,
        }
    }

    /// CPU in cores (`0.024`).
    pub fn cores(&self) -> f64 {
        self.cpu_nanos as f64 / 1e9
    }

    /// CPU in millicores, rounded up as `kubectl top` shows it.
    pub fn cpu_millis(&self) -> i64 {
        super::quantity::nanos_to_millis(self.cpu_nanos)
    }

    /// Reads a `usage` map; a missing or malformed value is `None` (no guess of 0).
    pub fn of(usage: &Value) -> Option<Usage> {
        let cpu = usage
            .at("/cpu")
            .and_then(Value::as_str)
            .and_then(cpu_nanos)?;
        let memory = usage
            .at("/memory")
            .and_then(Value::as_str)
            .and_then(whole_units)?;
        Some(Usage::new(cpu, memory))
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(self, other: Usage) -> Usage {
        Usage::new(
            self.cpu_nanos.saturating_add(other.cpu_nanos),
            self.memory_bytes.saturating_add(other.memory_bytes),
        )
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = *self + other;
    }
}

impl std::iter::Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Usage {
        iter.fold(Usage::default(), Add::add)
    }
}

/// One container's usage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerUsage {
    pub name: String,
    pub usage: Usage,
}

/// One pod's sample (a `PodMetrics`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodMetrics {
    pub namespace: String,
    pub name: String,
    /// When the sample was taken (the end of its window).
    pub timestamp_ms: Option<EpochMillis>,
    /// Over how long usage was averaged (`10.5s`).
    pub window_ms: Option<i64>,
    pub containers: Vec<ContainerUsage>,
}

impl PodMetrics {
    /// The pod's usage: the sum of its containers', as `kubectl top pods` prints it.
    pub fn usage(&self) -> Usage {
        self.containers.iter().map(|c| c.usage).sum()
    }

    pub fn container(&self, name: &str) -> Option<&ContainerUsage> {
        self.containers.iter().find(|c| c.name == name)
    }
}

/// One node's sample (a `NodeMetrics`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeMetrics {
    pub name: String,
    pub timestamp_ms: Option<EpochMillis>,
    pub window_ms: Option<i64>,
    pub usage: Usage,
}

/// Why an answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A Go duration as metrics-server writes a window: `10.5s`, `1m0s`, `500ms`, `1h2m3.5s`.
pub fn parse_window(text: &str) -> Option<i64> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let number_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        let (number, after) = rest.split_at(number_len);
        let value: f64 = number.parse().ok()?;
        let unit_len = after
            .bytes()
            .take_while(|b| !b.is_ascii_digit() && *b != b'.')
            .count();
        let (unit, next) = after.split_at(unit_len);
        let scale = match unit {
            "h" => 3_600_000.0,
            "m" => 60_000.0,
            "s" => 1000.0,
            "ms" => 1.0,
            "us" | "µs" => 1e-3,
            "ns" => 1e-6,
            _ => return None,
        };
        total += value * scale;
        rest = next;
    }
    Some(total.round() as i64)
}

fn document(body: &str, kinds: &[&str]) -> Result<Value, DecodeError> {
    let value: Value =
        serde_json::from_str(body).map_err(|e| DecodeError(format!("not JSON: {e}")))?;
    let kind = value.at("/kind").and_then(Value::as_str).unwrap_or("");
    if !kinds.contains(&kind) {
        return Err(DecodeError(format!(
            "expected {}, got kind {kind:?}",
            kinds.join(" or ")
        )));
    }
    Ok(value)
}

fn items(value: &Value) -> Vec<&Value> {
    match value.at("/items").and_then(Value::as_array) {
        Some(items) => items.iter().collect(),
        // A single object (a `get`).
        None => vec![value],
    }
}

fn sample_time(item: &Value) -> (Option<EpochMillis>, Option<i64>) {
    (
        item.at("/timestamp")
            .and_then(Value::as_str)
            .and_then(parse_timestamp),
        item.at("/window")
            .and_then(Value::as_str)
            .and_then(parse_window),
    )
}

/// One PodMetrics read; `None` when it names no pod. A container whose usage cannot be read
/// is left out (a half-reported sample would read as a drop).
pub fn pod_metrics(item: &Value) -> Option<PodMetrics> {
    let (timestamp_ms, window_ms) = sample_time(item);
    let containers = item
        .at("/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            Some(ContainerUsage {
                name: c.at("/name").and_then(Value::as_str)?.to_string(),
                usage: Usage::of(c.at("/usage")?)?,
            })
        })
        .collect();
    Some(PodMetrics {
        namespace: item
            .at("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        name: item
            .at("/metadata/name")
            .and_then(Value::as_str)?
            .to_string(),
        timestamp_ms,
        window_ms,
        containers,
    })
}

/// One NodeMetrics read; `None` when it names no node or its usage cannot be read.
pub fn node_metrics(item: &Value) -> Option<NodeMetrics> {
    let (timestamp_ms, window_ms) = sample_time(item);
    Some(NodeMetrics {
        name: item
            .at("/metadata/name")
            .and_then(Value::as_str)?
            .to_string(),
        timestamp_ms,
        window_ms,
        usage: Usage::of(item.at("/usage")?)?,
    })
}

/// A `PodMetricsList` (or one `PodMetrics`) as the server sent it.
pub fn decode_pod_metrics(body: &str) -> Result<Vec<PodMetrics>, DecodeError> {
    if let Some(pods) = super::wire::pod_metrics_list(body) {
        return Ok(pods);
    }
    let value = document(body, &["PodMetricsList", "PodMetrics"])?;
    Ok(items(&value).into_iter().filter_map(pod_metrics).collect())
}

/// A `NodeMetricsList` (or one `NodeMetrics`) as the server sent it.
pub fn decode_node_metrics(body: &str) -> Result<Vec<NodeMetrics>, DecodeError> {
    if let Some(nodes) = super::wire::node_metrics_list(body) {
        return Ok(nodes);
    }
    let value = document(body, &["NodeMetricsList", "NodeMetrics"])?;
    Ok(items(&value).into_iter().filter_map(node_metrics).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_as_go_writes_durations() {
        assert_eq!(parse_window("10.5s"), Some(10_500));
        assert_eq!(parse_window("20.05s"), Some(20_050));
        assert_eq!(parse_window("1m0s"), Some(60_000));
        assert_eq!(parse_window("1h2m3.5s"), Some(3_723_500));
        assert_eq!(parse_window("500ms"), Some(500));
        for bad in ["", "s", "10", "10x", "1.2.3s"] {
            assert_eq!(parse_window(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn hostile_answers_are_errors_not_panics() {
        assert!(decode_pod_metrics("not json").is_err());
        assert!(decode_pod_metrics(r#"{"kind":"Status","code":503}"#).is_err());
        assert!(decode_node_metrics(r#"{"kind":"PodMetricsList","items":[]}"#).is_err());
        // Items without names or with unreadable usage are left out, not guessed.
        let pods = decode_pod_metrics(
            r#"{"kind":"PodMetricsList","items":[{"metadata":{}},
                {"metadata":{"name":"a","namespace":"n"},"containers":[
                    {"name":"x","usage":{"cpu":"lots","memory":"1Ki"}},
                    {"name":"y","usage":{"cpu":"1m","memory":"1Ki"}}]}]}"#,
        )
        .expect("a list");
        assert_eq!(pods.len(), 1);
        assert_eq!(pods[0].containers.len(), 1);
        assert_eq!(pods[0].usage(), Usage::new(1_000_000, 1024));
        let nodes = decode_node_metrics(
            r#"{"kind":"NodeMetricsList","items":[{"metadata":{"name":"n"}}]}"#,
        )
        .expect("a list");
        assert!(nodes.is_empty());
    }
}
