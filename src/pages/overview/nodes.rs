//! The overview's nodes: how many are ready, and what pods request of each.

use leptos::prelude::*;

use crate::components::charts::UsageMeter;
use crate::model::metrics::quantity::{format_bytes, format_cpu};
use crate::model::navigation::route::{ListRoute, ObjectRoute, Page};
use crate::model::overview::chart::usage_bar;
use crate::model::overview::{node_requests, node_summary};
use crate::model::ResourceId;
use crate::pages::overview::{list_href, loading, stores, with_objects, Stat, UNHEALTHY_SHOWN};
use crate::state::overview::Watched;

pub(super) fn nodes_card(
    nodes: Option<Watched>,
    notice: Option<impl IntoView + 'static>,
) -> impl IntoView {
    let summary = Memo::new(move |_| match nodes {
        Some(w) => w.store.with(|cache| node_summary(cache.iter())),
        None => Default::default(),
    });
    let list = Page::ResourceList(list_href("", "v1", "nodes", None)).to_hash();
    let not_ready = Page::ResourceList(ListRoute {
        unhealthy: true,
        ..list_href("", "v1", "nodes", None)
    })
    .to_hash();
    let pressure = move || {
        summary.with(|s| {
            let reported: Vec<String> = s
                .pressure
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(p, n)| format!("{p}: {n}"))
                .collect();
            if reported.is_empty() {
                view! { <p class="overview-note" data-stat="pressure">"No node reports memory, disk or PID pressure."</p> }
                    .into_any()
            } else {
                view! { <p class="overview-note overview-bad" data-stat="pressure">{reported.join(" · ")}</p> }
                    .into_any()
            }
        })
    };
    let troubled = move || {
        summary.with(|s| {
            s.troubled
                .iter()
                .take(UNHEALTHY_SHOWN)
                .map(|t| {
                    let href = Page::Object(ObjectRoute::new(
                        ResourceId::new("", "v1", "nodes"),
                        None,
                        t.name.clone(),
                    ))
                    .to_hash();
                    view! {
                        <li>
                            <a href=href>{t.name.clone()}</a>
                            " "
                            <span class="overview-bad">{t.problems.join(", ")}</span>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <article class="overview-card" aria-labelledby="overview-nodes">
            <h2 id="overview-nodes"><a href=list.clone()>"Nodes"</a></h2>
            {notice}
            {loading(nodes)}
            <div class="stats">
                <Stat name="nodes-total" value=Signal::derive(move || summary.with(|s| s.total)) label="nodes" href=list/>
                <Stat name="nodes-ready" value=Signal::derive(move || summary.with(|s| s.ready)) label="ready" tone="ok"/>
                <Stat
                    name="nodes-not-ready"
                    value=Signal::derive(move || summary.with(|s| s.not_ready))
                    label="not ready"
                    tone="bad"
                    href=not_ready
                />
                <Stat name="nodes-cordoned" value=Signal::derive(move || summary.with(|s| s.cordoned)) label="cordoned" tone="warn"/>
            </div>
            {pressure}
            <ul class="overview-list">{troubled}</ul>
        </article>
    }
}

pub(super) fn requests_card(
    nodes: Option<Watched>,
    pods: Option<Watched>,
    namespace: Option<String>,
) -> impl IntoView {
    let both = stores(&[nodes]);
    let pod_stores = stores(&[pods]);
    let requests = Memo::new(move |_| {
        with_objects(&both, Vec::new(), |nodes| {
            with_objects(&pod_stores, Vec::new(), |pods| node_requests(nodes, pods))
        })
    });
    let whose = match &namespace {
        Some(ns) => format!("Requested by the pods of namespace {ns} (other namespaces' pods not counted), from pod specs, against each node's allocatable."),
        None => "Requested by the pods bound to each node, from their specs (as the scheduler counts them), against the node's allocatable.".to_string(),
    };
    let rows = move || {
        requests.with(|all| {
            all.iter()
                .map(|r| {
                    let href = Page::Object(ObjectRoute::new(
                        ResourceId::new("", "v1", "nodes"),
                        None,
                        r.node.clone(),
                    ))
                    .to_hash();
                    let cpu = usage_bar(
                        "CPU",
                        &r.node,
                        r.cpu_requested_millis,
                        r.cpu_allocatable_millis,
                        format_cpu,
                        "cores",
                    );
                    let memory = usage_bar(
                        "Memory",
                        &r.node,
                        r.memory_requested_bytes,
                        r.memory_allocatable_bytes,
                        format_bytes,
                        "",
                    );
                    let pods = match r.pods_allocatable {
                        Some(max) => format!("{} of {max} pods", r.pods),
                        None => format!("{} pods", r.pods),
                    };
                    view! {
                        <li class="node-requests" data-node=r.node.clone()>
                            <div class="node-requests-head">
                                <a href=href>{r.node.clone()}</a>
                                <span class="overview-muted">{pods}</span>
                            </div>
                            <UsageMeter bar=cpu what="CPU"/>
                            <UsageMeter bar=memory what="Memory"/>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <article class="overview-card" aria-labelledby="overview-requests">
            <h2 id="overview-requests">"Requests per node"</h2>
            <p class="overview-note">{whose}</p>
            {loading(nodes)}
            <ul class="overview-list">{rows}</ul>
        </article>
    }
}
