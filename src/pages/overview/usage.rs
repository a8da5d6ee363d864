//! The overview's usage, where the metrics API is served: what the cluster and each node use
//! of their allocatable (beside what pods request of them, in the requests card), and the
//! busiest pods. Where it is not, the card says why in one sentence.

use leptos::prelude::*;

use crate::components::charts::UsageMeter;
use crate::model::metrics::busiest::{busiest_pods, cluster_usage, node_usage, NodeUsage};
use crate::model::metrics::quantity::{format_bytes, format_cpu};
use crate::model::metrics::{PodMetrics, Resource};
use crate::model::navigation::route::{ObjectRoute, Page};
use crate::model::overview::chart::used_bar;
use crate::model::ResourceId;
use crate::pages::overview::{stores, with_objects};
use crate::state::metrics::{use_node_metrics, use_pod_metrics, MetricsHub, Reading};
use crate::state::overview::Watched;

/// Busiest pods named per resource.
const BUSIEST_SHOWN: usize = 5;

fn meters(row: &NodeUsage) -> impl IntoView {
    let cpu = used_bar(
        "CPU",
        &row.node,
        row.usage.cpu_millis(),
        row.allocatable.cpu_millis,
        format_cpu,
        "cores",
    );
    let memory = used_bar(
        "Memory",
        &row.node,
        row.usage.memory_bytes,
        row.allocatable.memory_bytes,
        format_bytes,
        "",
    );
    view! {
        <UsageMeter bar=cpu what="CPU"/>
        <UsageMeter bar=memory what="Memory"/>
    }
}

fn busiest_list(pods: &[PodMetrics], resource: Resource) -> impl IntoView {
    let items = busiest_pods(pods, resource, BUSIEST_SHOWN)
        .into_iter()
        .map(|pod| {
            let href = Page::Object(ObjectRoute::new(
                ResourceId::new("", "v1", "pods"),
                Some(pod.namespace.clone()),
                pod.name.clone(),
            ))
            .to_hash();
            let amount = resource.format(resource.of_usage(pod.usage()));
            view! {
                <li class="busiest-pod">
                    <a href=href>{format!("{}/{}", pod.namespace, pod.name)}</a>
                    " "
                    <span class="overview-muted">{amount}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="busiest" data-resource=resource.label()>
            <h3>{format!("Busiest pods by {}", resource.label().to_lowercase())}</h3>
            <ol class="overview-list">{items}</ol>
        </div>
    }
}

pub(super) fn usage_card(nodes: Option<Watched>, namespace: Option<String>) -> impl IntoView {
    let hub = MetricsHub::get();
    let node_metrics = use_node_metrics();
    let pod_metrics = use_pod_metrics(namespace.as_deref(), "");
    let node_stores = stores(&[nodes]);
    let rows = Memo::new(move |_| {
        let Some(Some(Reading::Nodes(metrics))) = node_metrics.map(|m| m.reading.get()) else {
            return Vec::new();
        };
        with_objects(&node_stores, Vec::new(), |nodes| {
            node_usage(&metrics, nodes)
        })
    });
    let pods = Signal::derive(move || match pod_metrics.and_then(|m| m.reading.get()) {
        Some(Reading::Pods(pods)) => Some(pods),
        _ => None,
    });
    let denied = Signal::derive(move || match node_metrics.and_then(|m| m.reading.get()) {
        Some(Reading::Denied(reason)) => Some(reason),
        _ => None,
    });
    let body = move || {
        if let Some(reason) = hub.missing().or_else(|| denied.get()) {
            return view! { <p class="usage-missing" role="note">{reason}</p> }.into_any();
        }
        let rows = rows.get();
        if rows.is_empty() {
            return view! { <p class="loading">"Asking the metrics API…"</p> }.into_any();
        }
        let total = cluster_usage(&rows);
        let per_node = rows
            .iter()
            .map(|row| {
                view! {
                    <li class="node-usage" data-node=row.node.clone()>
                        <div class="node-requests-head">{row.node.clone()}</div>
                        {meters(row)}
                    </li>
                }
            })
            .collect_view();
        let busiest = pods.get().map(|pods| {
            view! {
                <div class="busiest-pods">
                    {busiest_list(&pods, Resource::Cpu)}
                    {busiest_list(&pods, Resource::Memory)}
                </div>
            }
        });
        view! {
            <div class="cluster-usage">{meters(&total)}</div>
            <ul class="overview-list">{per_node}</ul>
            {busiest}
        }
        .into_any()
    };
    view! {
        <article class="overview-card" aria-labelledby="overview-usage">
            <h2 id="overview-usage">"Usage"</h2>
            <p class="overview-note">
                "What is used now (the metrics API, as kubectl top), against each node's allocatable; what pods reserve is under Requests per node."
            </p>
            {body}
        </article>
    }
}
