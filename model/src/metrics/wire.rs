//! PodMetricsList and NodeMetricsList read straight into their fields (no `serde_json::Value`
//! in between): a poll of 10,000 pods is read every 15 s on the page's main thread, and a
//! tree of values first took a long frame of its own.

use std::borrow::Cow;

use serde::Deserialize;

use super::decode::{parse_window, ContainerUsage, NodeMetrics, PodMetrics, Usage};
use super::quantity::{cpu_nanos, whole_units};
use crate::time::age::{parse_timestamp, EpochMillis};

#[derive(Deserialize, Default)]
struct Meta<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct UsageWire<'a> {
    #[serde(borrow, default)]
    cpu: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    memory: Option<Cow<'a, str>>,
}

impl UsageWire<'_> {
    fn usage(&self) -> Option<Usage> {
        Some(Usage::new(
            cpu_nanos(self.cpu.as_deref()?)?,
            whole_units(self.memory.as_deref()?)?,
        ))
    }
}

#[derive(Deserialize)]
struct ContainerWire<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    usage: Option<UsageWire<'a>>,
}

#[derive(Deserialize)]
struct ItemWire<'a> {
    #[serde(borrow, default)]
    metadata: Meta<'a>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    window: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    containers: Vec<ContainerWire<'a>>,
    #[serde(borrow, default)]
    usage: Option<UsageWire<'a>>,
}

#[derive(Deserialize)]
struct ListWire<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    items: Vec<ItemWire<'a>>,
}

/// Items of one poll mostly share their timestamp and window: each distinct text is parsed
/// once.
#[derive(Default)]
struct Times<'a> {
    timestamp: Option<(Cow<'a, str>, Option<EpochMillis>)>,
    window: Option<(Cow<'a, str>, Option<i64>)>,
}

impl<'a> Times<'a> {
    fn of(&mut self, item: &ItemWire<'a>) -> (Option<EpochMillis>, Option<i64>) {
        fn cached<'a, T: Copy>(
            slot: &mut Option<(Cow<'a, str>, Option<T>)>,
            text: &Option<Cow<'a, str>>,
            parse: fn(&str) -> Option<T>,
        ) -> Option<T> {
            let text = text.as_ref()?;
            match slot {
                Some((seen, value)) if seen == text => *value,
                _ => {
                    let value = parse(text);
                    *slot = Some((text.clone(), value));
                    value
                }
            }
        }
        (
            cached(&mut self.timestamp, &item.timestamp, parse_timestamp),
            cached(&mut self.window, &item.window, parse_window),
        )
    }
}

/// A `PodMetricsList`; None when the body is not one (the caller then reads it the slow way,
/// which also takes a single PodMetrics and says what was wrong).
pub(super) fn pod_metrics_list(body: &str) -> Option<Vec<PodMetrics>> {
    let list: ListWire = serde_json::from_str(body).ok()?;
    if list.kind.as_deref() != Some("PodMetricsList") {
        return None;
    }
    let mut times = Times::default();
    Some(
        list.items
            .iter()
            .filter_map(|item| {
                let (timestamp_ms, window_ms) = times.of(item);
                Some(PodMetrics {
                    namespace: item
                        .metadata
                        .namespace
                        .as_deref()
                        .unwrap_or_default()
                        .to_string(),
                    name: item.metadata.name.as_deref()?.to_string(),
                    timestamp_ms,
                    window_ms,
                    // A container whose usage cannot be read is left out, as the slow way.
                    containers: item
                        .containers
                        .iter()
                        .filter_map(|c| {
                            Some(ContainerUsage {
                                name: c.name.as_deref()?.to_string(),
                                usage: c.usage.as_ref()?.usage()?,
                            })
                        })
                        .collect(),
                })
            })
            .collect(),
    )
}

/// A `NodeMetricsList`, as [`pod_metrics_list`].
pub(super) fn node_metrics_list(body: &str) -> Option<Vec<NodeMetrics>> {
    let list: ListWire = serde_json::from_str(body).ok()?;
    if list.kind.as_deref() != Some("NodeMetricsList") {
        return None;
    }
    let mut times = Times::default();
    Some(
        list.items
            .iter()
            .filter_map(|item| {
                let (timestamp_ms, window_ms) = times.of(item);
                Some(NodeMetrics {
                    name: item.metadata.name.as_deref()?.to_string(),
                    timestamp_ms,
                    window_ms,
                    usage: item.usage.as_ref()?.usage()?,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::metrics::decode::{node_metrics, pod_metrics};

    #[test]
    fn the_direct_read_says_what_the_value_read_says() {
        let pods = r#"{"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[
            {"metadata":{"name":"a","namespace":"ns"},"timestamp":"2026-12-07T10:00:00Z","window":"10.5s",
             "containers":[{"name":"app","usage":{"cpu":"1234567n","memory":"2048Ki"}},{"name":"bad","usage":{"cpu":"x"}}]},
            {"metadata":{"name":"b\u0041","namespace":"ns"},"timestamp":"2026-12-07T10:00:15Z","window":"1m0s","containers":[]},
            {"metadata":{"namespace":"ns"}}]}"#;
        let value: Value = serde_json::from_str(pods).expect("JSON");
        let slow: Vec<PodMetrics> = value["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(pod_metrics)
            .collect();
        assert_eq!(slow.len(), 2);
        assert_eq!(pod_metrics_list(pods), Some(slow));
        let nodes = r#"{"kind":"NodeMetricsList","items":[
            {"metadata":{"name":"n1"},"timestamp":"2026-12-07T10:00:00Z","window":"20.05s","usage":{"cpu":"250m","memory":"1Gi"}},
            {"metadata":{"name":"n2"},"usage":{"cpu":"1"}}]}"#;
        let value: Value = serde_json::from_str(nodes).expect("JSON");
        let slow: Vec<NodeMetrics> = value["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(node_metrics)
            .collect();
        assert_eq!(slow.len(), 1);
        assert_eq!(node_metrics_list(nodes), Some(slow));
        assert_eq!(pod_metrics_list(nodes), None, "the kind is checked");
    }
}
