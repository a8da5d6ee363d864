//! The usage charts of an object's page: a pod's per container, a node's against its
//! allocatable and what its pods request, a workload's as the sum of its pods. Samples are
//! the page's own (kept by `state::metrics` from the polls this hook subscribes to).

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::model::diagnosis::usage::{node_usage_findings, pod_usage_findings};
use crate::model::diagnosis::Finding;
use crate::model::list::selector::LabelSelector;
use crate::model::metrics::resources::node_allocatable;
use crate::model::metrics::{Amounts, PodResources, Resource, Sample, SeriesKey};
use crate::model::object::pointer::Pointer;
use crate::model::watch::{ObjectCache, Output, WatchKey};
use crate::state::metrics::{use_metrics, use_node_metrics, use_pod_metrics, MetricsHub, Reading};
use crate::state::watch::use_watch_objects;

/// One chart to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageSeries {
    pub title: String,
    pub resource: Resource,
    pub samples: Vec<Sample>,
    pub requests: Amounts,
    pub limits: Amounts,
    /// "limit" or "allocatable".
    pub limit_word: &'static str,
}

/// What [`use_object_usage`] gives the page.
#[derive(Clone, Copy)]
pub struct UseObjectUsageReturn {
    pub series: Signal<Vec<UsageSeries>>,
    /// Why there is no usage, in words.
    pub missing: Signal<Option<String>>,
    /// What the usage says is wrong (a pod at its CPU limit, OOMKilled near its memory
    /// limit; a node under pressure), for the page's Diagnosis.
    pub findings: Signal<Vec<Finding>>,
}

/// Usage of the object of `kind` (Pod, Node, Deployment, StatefulSet, DaemonSet,
/// ReplicaSet); None for kinds without usage.
pub fn use_object_usage(
    kind: &str,
    namespace: Option<&str>,
    name: &str,
    object: Signal<Option<Value>>,
) -> Option<UseObjectUsageReturn> {
    let hub = MetricsHub::get();
    let missing = Signal::derive(move || hub.missing());
    let empty = |missing| UseObjectUsageReturn {
        series: Signal::derive(Vec::new),
        missing,
        findings: Signal::derive(Vec::new),
    };
    let samples = hub.samples;
    let name = name.to_string();
    match kind {
        "Pod" => {
            let namespace = namespace?.to_string();
            let Some(metrics) = use_pod_metrics(Some(&namespace), "") else {
                return Some(empty(missing));
            };
            hub.chart_pod(&namespace, &name);
            let findings = {
                let name = name.clone();
                let reading = metrics.reading;
                Signal::derive(move || {
                    let Some(Reading::Pods(pods)) = reading.get() else {
                        return Vec::new();
                    };
                    let Some(sample) = pods.iter().find(|p| p.name == name) else {
                        return Vec::new();
                    };
                    object.with(|o| {
                        o.as_ref()
                            .map(|pod| pod_usage_findings(pod, sample))
                            .unwrap_or_default()
                    })
                })
            };
            let series = Signal::derive(move || {
                let resources = object.with(|o| o.as_ref().map(PodResources::of))?;
                samples.with(|s| {
                    let containers = s.containers_of(&namespace, &name);
                    Some(
                        containers
                            .iter()
                            .flat_map(|container| {
                                let limits = resources.container(container);
                                let data =
                                    s.series(&SeriesKey::container(&namespace, &name, container));
                                [Resource::Cpu, Resource::Memory].map(|resource| UsageSeries {
                                    title: format!("{} · {container}", resource.label()),
                                    resource,
                                    samples: data.clone(),
                                    requests: limits.map(|c| c.requests).unwrap_or_default(),
                                    limits: limits.map(|c| c.limits).unwrap_or_default(),
                                    limit_word: "limit",
                                })
                            })
                            .collect(),
                    )
                })
            });
            Some(UseObjectUsageReturn {
                series: Signal::derive(move || series.get().unwrap_or_default()),
                missing,
                findings,
            })
        }
        "Node" => {
            let Some(node_metrics) = use_node_metrics() else {
                return Some(empty(missing));
            };
            // Every pod's usage, to name the node's top consumers when it is under pressure.
            let pod_metrics = use_pod_metrics(None, "");
            // What the pods placed on the node request, as `kubectl describe node` sums it.
            let pods: ReadSignal<ObjectCache> = use_watch_objects(
                WatchKey::new("/api/v1/pods", Output::Objects)
                    .with_fields(format!("spec.nodeName={name}")),
            )
            .store
            .into();
            let series = Signal::derive({
                let name = name.clone();
                move || {
                    let allocatable = object.with(|o| o.as_ref().map(node_allocatable))?;
                    let requested = pods.with(|cache| {
                        cache
                            .iter()
                            .filter(|p| !finished(p))
                            .map(|p| PodResources::of(p).requests)
                            .fold(Amounts::default(), Amounts::add_requests)
                    });
                    let data = samples.with(|s| s.series(&SeriesKey::node(&name)));
                    Some(
                        [Resource::Cpu, Resource::Memory]
                            .map(|resource| UsageSeries {
                                title: format!("{} · node", resource.label()),
                                resource,
                                samples: data.clone(),
                                requests: requested,
                                limits: allocatable,
                                limit_word: "allocatable",
                            })
                            .to_vec(),
                    )
                }
            });
            let findings = {
                let name = name.clone();
                Signal::derive(move || {
                    let Some(Reading::Nodes(nodes)) = node_metrics.reading.get() else {
                        return Vec::new();
                    };
                    let Some(usage) = nodes.iter().find(|n| n.name == name) else {
                        return Vec::new();
                    };
                    let pod_samples = match pod_metrics.and_then(|m| m.reading.get()) {
                        Some(Reading::Pods(pods)) => pods,
                        _ => Default::default(),
                    };
                    let placed: Vec<Value> = pods.with(|cache| cache.iter().cloned().collect());
                    object.with(|o| {
                        o.as_ref()
                            .map(|node| node_usage_findings(node, usage, &placed, &pod_samples))
                            .unwrap_or_default()
                    })
                })
            };
            Some(UseObjectUsageReturn {
                series: Signal::derive(move || series.get().unwrap_or_default()),
                missing,
                findings,
            })
        }
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" => {
            let namespace = namespace?.to_string();
            let selector = object.with_untracked(|o| {
                let selector = o.as_ref()?.at("/spec/selector")?;
                LabelSelector::from_api(selector).ok()
            })?;
            let Some(key) = hub.pod_metrics_key(Some(&namespace), &selector.to_string()) else {
                return Some(empty(missing));
            };
            // Every pod of the workload keeps its samples: the chart sums them.
            hub.chart_key(key.clone());
            let metrics = use_metrics(key);
            let reading = metrics.reading;
            let series = Signal::derive(move || {
                let Some(Reading::Pods(pods)) = reading.get() else {
                    return Vec::new();
                };
                // The template's requests and limits, once per pod that reports usage.
                let template = object.with(|o| {
                    let spec = o.as_ref()?.at("/spec/template/spec")?.clone();
                    Some(PodResources::of(&json!({ "spec": spec })))
                });
                let times = |amounts: Amounts| Amounts {
                    cpu_millis: amounts.cpu_millis.map(|m| m * pods.len() as i64),
                    memory_bytes: amounts.memory_bytes.map(|b| b * pods.len() as i64),
                };
                let keys: Vec<SeriesKey> = pods
                    .iter()
                    .map(|p| SeriesKey::pod(&p.namespace, &p.name))
                    .collect();
                let data = samples.with(|s| s.summed(&keys));
                [Resource::Cpu, Resource::Memory]
                    .map(|resource| UsageSeries {
                        title: format!("{} · {} pods", resource.label(), pods.len()),
                        resource,
                        samples: data.clone(),
                        requests: template
                            .as_ref()
                            .map(|t| times(t.requests))
                            .unwrap_or_default(),
                        limits: template
                            .as_ref()
                            .map(|t| times(t.limits))
                            .unwrap_or_default(),
                        limit_word: "limit",
                    })
                    .to_vec()
            });
            Some(UseObjectUsageReturn {
                series,
                missing,
                findings: Signal::derive(Vec::new),
            })
        }
        _ => None,
    }
}

/// A pod that ended requests nothing of its node any more.
fn finished(pod: &Value) -> bool {
    matches!(
        pod.at("/status/phase").and_then(Value::as_str),
        Some("Succeeded" | "Failed")
    )
}
