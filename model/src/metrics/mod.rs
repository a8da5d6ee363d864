//! Usage you can see: CPU and memory from the metrics API (`metrics.k8s.io`, served by
//! metrics-server behind the aggregator), found in discovery and never assumed.
//!
//! One concern a file: [`quantity`] (Kubernetes quantities: parsing, arithmetic, formats),
//! [`discovery`] (whether and where the API is served, and the sentence when it is not),
//! [`decode`] (`PodMetrics`/`NodeMetrics` into usage per pod, container and node),
//! [`resources`] (requests, limits, allocatable; percentages, the near-limit mark, cell text),
//! [`poll`] (when to ask: the window, shared polls, hidden tabs, a missing API), [`samples`]
//! (an hour of samples per object and container) and [`chart`] (a usage chart's geometry with
//! the object's timeline as marks). The usage rules of the diagnosis are
//! `crate::diagnosis::usage`.

pub mod busiest;
pub mod chart;
pub mod columns;
pub mod decode;
pub mod discovery;
pub mod poll;
pub mod quantity;
pub mod resources;
pub mod samples;
#[cfg(test)]
mod tests;
mod wire;

pub use chart::{usage_chart, ChartInput, Mark, MarkSource, UsageChart};
pub use decode::{decode_node_metrics, decode_pod_metrics, NodeMetrics, PodMetrics, Usage};
pub use discovery::{metrics_api, metrics_api_in, MetricsApi, NO_METRICS_API};
pub use poll::{Outcome, PollKey, Poller};
pub use resources::{usage_cell, Against, Amounts, PodResources, Resource, UsageCell};
pub use samples::{Sample, SampleHistory, SeriesKey};
