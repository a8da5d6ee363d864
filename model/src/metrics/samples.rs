//! The samples taken since a page opened, kept in memory for an hour at most, per object
//! (a pod, a node) and per container. A poll that returns the sample already kept (the
//! metrics server has not scraped since) adds nothing.

use std::collections::{BTreeMap, VecDeque};

use super::decode::{NodeMetrics, PodMetrics, Usage};
use crate::time::age::EpochMillis;
use crate::time::clock::Wall;

/// How long samples are kept.
pub const RETENTION_MS: EpochMillis = 3_600_000;

/// One sample: usage at a time (the sample's own timestamp, else when it was received).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub at_ms: EpochMillis,
    pub usage: Usage,
}

/// Which series a sample belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeriesKey {
    /// `Node`, `Pod`.
    pub kind: &'static str,
    /// Empty for nodes.
    pub namespace: String,
    pub name: String,
    /// A container of a pod; None for the object's own total.
    pub container: Option<String>,
}

impl SeriesKey {
    pub fn pod(namespace: &str, name: &str) -> SeriesKey {
        SeriesKey {
            kind: "Pod",
            namespace: namespace.to_string(),
            name: name.to_string(),
            container: None,
        }
    }

    pub fn container(namespace: &str, pod: &str, container: &str) -> SeriesKey {
        SeriesKey {
            container: Some(container.to_string()),
            ..SeriesKey::pod(namespace, pod)
        }
    }

    pub fn node(name: &str) -> SeriesKey {
        SeriesKey {
            kind: "Node",
            namespace: String::new(),
            name: name.to_string(),
            container: None,
        }
    }
}

/// Samples by series, oldest first, none older than [`RETENTION_MS`] before the newest
/// recording.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleHistory {
    series: BTreeMap<SeriesKey, VecDeque<Sample>>,
}

impl SampleHistory {
    pub fn new() -> SampleHistory {
        SampleHistory::default()
    }

    fn push(&mut self, key: SeriesKey, sample: Sample) {
        let series = self.series.entry(key).or_default();
        match series.back() {
            // The same sample again, or one older than the newest: nothing new.
            Some(last) if last.at_ms >= sample.at_ms => {}
            _ => series.push_back(sample),
        }
    }

    /// Keeps a poll of pods (each pod's total and each container's), received at `now`.
    pub fn record_pods(&mut self, pods: &[PodMetrics], now: impl Into<Wall>) {
        let now = now.into().epoch_millis();
        for pod in pods {
            let at_ms = pod.timestamp_ms.unwrap_or(now);
            self.push(
                SeriesKey::pod(&pod.namespace, &pod.name),
                Sample {
                    at_ms,
                    usage: pod.usage(),
                },
            );
            for container in &pod.containers {
                self.push(
                    SeriesKey::container(&pod.namespace, &pod.name, &container.name),
                    Sample {
                        at_ms,
                        usage: container.usage,
                    },
                );
            }
        }
        self.prune_at(now);
    }

    /// Keeps a poll of nodes, received at `now`.
    pub fn record_nodes(&mut self, nodes: &[NodeMetrics], now: impl Into<Wall>) {
        let now = now.into().epoch_millis();
        for node in nodes {
            self.push(
                SeriesKey::node(&node.name),
                Sample {
                    at_ms: node.timestamp_ms.unwrap_or(now),
                    usage: node.usage,
                },
            );
        }
        self.prune_at(now);
    }

    /// Drops what is older than an hour before `now`, and series left empty.
    pub fn prune(&mut self, now: impl Into<Wall>) {
        self.prune_at(now.into().epoch_millis());
    }

    fn prune_at(&mut self, now: EpochMillis) {
        let oldest = now - RETENTION_MS;
        self.series.retain(|_, samples| {
            while samples.front().is_some_and(|s| s.at_ms < oldest) {
                samples.pop_front();
            }
            !samples.is_empty()
        });
    }

    /// One series, oldest first.
    pub fn series(&self, key: &SeriesKey) -> Vec<Sample> {
        self.series
            .get(key)
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The containers of a pod that have samples, by name.
    pub fn containers_of(&self, namespace: &str, pod: &str) -> Vec<String> {
        self.series
            .keys()
            .filter(|k| k.kind == "Pod" && k.namespace == namespace && k.name == pod)
            .filter_map(|k| k.container.clone())
            .collect()
    }

    /// The newest sample of a series.
    pub fn latest(&self, key: &SeriesKey) -> Option<Sample> {
        self.series.get(key).and_then(|s| s.back().copied())
    }

    /// Samples kept in all.
    pub fn len(&self) -> usize {
        self.series.values().map(VecDeque::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.series.is_empty()
    }

    /// The sum of several pods' series (a Deployment's page sums its pods): at each time any
    /// of them has a sample, the sum of each one's latest sample at or before it (a pod that
    /// had no sample yet adds nothing).
    pub fn summed(&self, keys: &[SeriesKey]) -> Vec<Sample> {
        let all: Vec<Vec<Sample>> = keys.iter().map(|k| self.series(k)).collect();
        let mut times: Vec<EpochMillis> = all.iter().flatten().map(|s| s.at_ms).collect();
        times.sort_unstable();
        times.dedup();
        let mut cursors = vec![0usize; all.len()];
        times
            .into_iter()
            .map(|at_ms| {
                let mut usage = Usage::default();
                for (series, cursor) in all.iter().zip(cursors.iter_mut()) {
                    while *cursor < series.len() && series[*cursor].at_ms <= at_ms {
                        *cursor += 1;
                    }
                    if *cursor > 0 {
                        usage += series[*cursor - 1].usage;
                    }
                }
                Sample { at_ms, usage }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::decode::ContainerUsage;

    fn pod(name: &str, at_ms: EpochMillis, cpu: i64) -> PodMetrics {
        PodMetrics {
            namespace: "ns".into(),
            name: name.into(),
            timestamp_ms: Some(at_ms),
            window_ms: Some(10_500),
            containers: vec![
                ContainerUsage {
                    name: "app".into(),
                    usage: Usage::new(cpu, 100),
                },
                ContainerUsage {
                    name: "proxy".into(),
                    usage: Usage::new(1, 10),
                },
            ],
        }
    }

    #[test]
    fn per_object_and_per_container_for_an_hour() {
        let mut history = SampleHistory::new();
        for minute in 0..90 {
            let at = minute * 60_000;
            history.record_pods(&[pod("a", at, minute)], at as f64);
        }
        let total = history.series(&SeriesKey::pod("ns", "a"));
        // 60 minutes and the newest: nothing older than an hour before the last recording.
        assert_eq!(total.len(), 61);
        assert_eq!(total[0].at_ms, 29 * 60_000);
        assert_eq!(total[60].usage, Usage::new(89 + 1, 110));
        let app = history.series(&SeriesKey::container("ns", "a", "app"));
        assert_eq!(app.len(), 61);
        assert_eq!(app[60].usage, Usage::new(89, 100));
        assert_eq!(history.containers_of("ns", "a"), ["app", "proxy"]);
        // Three series of 61.
        assert_eq!(history.len(), 183);
        // Once every sample is older than an hour, the series go.
        history.prune(200.0 * 60_000.0);
        assert!(history.is_empty());
    }

    #[test]
    fn the_same_sample_polled_twice_is_kept_once() {
        let mut history = SampleHistory::new();
        history.record_pods(&[pod("a", 1_000, 5)], 2_000.0);
        history.record_pods(&[pod("a", 1_000, 5)], 17_000.0);
        history.record_pods(&[pod("a", 500, 5)], 18_000.0);
        assert_eq!(history.series(&SeriesKey::pod("ns", "a")).len(), 1);
        // Without a timestamp, the time received.
        let mut node = NodeMetrics {
            name: "n".into(),
            timestamp_ms: None,
            window_ms: None,
            usage: Usage::new(3, 4),
        };
        history.record_nodes(std::slice::from_ref(&node), 20_000.0);
        node.usage = Usage::new(5, 6);
        history.record_nodes(&[node], 35_000.0);
        let series = history.series(&SeriesKey::node("n"));
        assert_eq!(
            series.iter().map(|s| s.at_ms).collect::<Vec<_>>(),
            [20_000, 35_000]
        );
        assert_eq!(
            history.latest(&SeriesKey::node("n")).map(|s| s.usage),
            Some(Usage::new(5, 6))
        );
    }

    #[test]
    fn a_deployment_sums_its_pods() {
        let mut history = SampleHistory::new();
        history.record_pods(&[pod("a", 1_000, 10)], 1_000.0);
        history.record_pods(&[pod("b", 2_000, 20)], 2_000.0);
        history.record_pods(&[pod("a", 3_000, 30)], 3_000.0);
        let keys = [SeriesKey::pod("ns", "a"), SeriesKey::pod("ns", "b")];
        let summed: Vec<(EpochMillis, i64)> = history
            .summed(&keys)
            .iter()
            .map(|s| (s.at_ms, s.usage.cpu_nanos))
            .collect();
        assert_eq!(summed, [(1_000, 11), (2_000, 11 + 21), (3_000, 31 + 21)]);
    }
}
