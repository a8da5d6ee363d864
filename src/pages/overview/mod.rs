//! The cluster overview (`#/`, the landing page): is my cluster fine? Nodes, workloads by
//! health, pods by phase, the last hour's Warning Events by reason, what pods request of
//! each node, recent rollouts; live, from the shared watches, each section linking to the
//! list it sums up. A section whose watch the server forbids says so on its own.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::ForbiddenNotice;
use crate::model::navigation::route::{ListRoute, OverviewRoute, Page, Route};
use crate::model::watch::{ObjectCache, StreamPhase};
use crate::model::ResourceId;
use crate::state::discovery::DiscoveryState;
use crate::state::overview::{use_overview, UseOverviewOptions, Watched};

/// Rollouts listed, and unhealthy workloads named.
pub(crate) const ROLLOUTS_SHOWN: usize = 6;
pub(crate) const UNHEALTHY_SHOWN: usize = 6;

/// Runs `f` with the objects of every store in `stores`, borrowed (no copies).
pub(crate) fn with_objects<R>(
    stores: &[Signal<ObjectCache>],
    found: Vec<&Value>,
    f: impl for<'b> FnOnce(Vec<&'b Value>) -> R,
) -> R {
    match stores.split_first() {
        None => f(found),
        Some((first, rest)) => first.with(|cache| {
            let found: Vec<&Value> = found.into_iter().chain(cache.iter()).collect();
            with_objects(rest, found, f)
        }),
    }
}

pub(crate) fn stores(watches: &[Option<Watched>]) -> Vec<Signal<ObjectCache>> {
    watches.iter().flatten().map(|w| w.store).collect()
}

pub(crate) fn list_href(
    group: &str,
    version: &str,
    plural: &str,
    namespace: Option<String>,
) -> ListRoute {
    ListRoute::new(ResourceId::new(group, version, plural), namespace)
}

/// A count with its word, for the big numbers: `data-stat` names it for tests.
#[component]
pub(crate) fn Stat(
    name: &'static str,
    #[prop(into)] value: Signal<usize>,
    label: &'static str,
    #[prop(optional)] tone: Option<&'static str>,
    #[prop(optional)] href: Option<String>,
) -> impl IntoView {
    let tone = move || {
        let n = value.get();
        match tone {
            Some(tone) if n > 0 => tone,
            _ => "plain",
        }
    };
    let inner = view! {
        <span class="stat-value" data-stat=name>{move || value.get()}</span>
        <span class="stat-label">{label}</span>
    };
    match href {
        Some(href) => view! { <a class="stat" data-tone=tone href=href>{inner}</a> }.into_any(),
        None => view! { <span class="stat" data-tone=tone>{inner}</span> }.into_any(),
    }
}

/// "Loading…" until the watch has listed once.
pub(crate) fn loading(watch: Option<Watched>) -> impl Fn() -> Option<AnyView> + Send + Sync {
    move || {
        let watch = watch?;
        let waiting = watch
            .status
            .with(|s| s.resource_version.is_none() && s.phase != StreamPhase::Forbidden);
        waiting.then(|| view! { <p class="loading">"Loading…"</p> }.into_any())
    }
}

mod nodes;
mod pods;
mod usage;
mod workloads;

#[component]
pub fn OverviewPage(namespace: Option<String>) -> impl IntoView {
    let discovery = expect_context::<DiscoveryState>();
    let tree = discovery
        .loaded
        .with_untracked(|loaded| loaded.as_ref().map(|l| l.discovery.tree.clone()));
    let Some(tree) = tree else {
        return view! { <p class="loading">"Loading discovery…"</p> }.into_any();
    };
    let scope = namespace.clone().map_or_else(
        || "the whole cluster".to_string(),
        |ns| format!("namespace {ns}"),
    );
    let hierarchy = Page::Home(Route {
        resource: None,
        namespace: namespace.clone(),
    })
    .to_hash();
    let watched = use_overview(UseOverviewOptions {
        tree: &tree,
        namespace: namespace.clone(),
    });

    let elsewhere = Some(Callback::new(|namespace: String| {
        Page::Overview(OverviewRoute {
            namespace: Some(namespace),
        })
        .to_hash()
    }));
    let notice = move |watch: Option<Watched>| {
        watch.map(|w| {
            view! {
                <ForbiddenNotice
                    status=w.status
                    namespaced=w.namespaced
                    elsewhere=if w.namespaced { elsewhere } else { None }
                />
            }
        })
    };

    let nodes_section = nodes::nodes_card(watched.nodes, notice(watched.nodes));
    let workloads_section = workloads::workloads_card(
        &watched.workloads,
        [watched.replica_sets, watched.pods],
        watched.warnings,
        watched.now,
        &tree,
        namespace.clone(),
        notice(watched.workloads[0]),
    );
    let pods_section = pods::pods_card(watched.pods, namespace.clone(), notice(watched.pods));
    let events_section = pods::events_card(
        watched.events,
        watched.warnings,
        watched.clock,
        namespace.clone(),
        notice(watched.events),
    );
    let requests_section = nodes::requests_card(watched.nodes, watched.pods, namespace.clone());
    let rollouts_section = workloads::rollouts_card(watched.deployments(), watched.now);
    let usage_section = usage::usage_card(watched.nodes, namespace.clone());

    view! {
        <section class="overview-page" aria-label="Cluster overview">
            <h1>"Overview " <span class="kind">{scope}</span></h1>
            <p class="subtitle">
                "Live from the cluster's own objects, and usage where the metrics API is served. Learning the API? The "
                <a href=hierarchy>"API hierarchy"</a>
                " shows every group, version and resource the server serves."
            </p>
            <div class="overview-grid">
                {nodes_section}
                {events_section}
                {workloads_section}
                {pods_section}
                {requests_section}
                {usage_section}
                {rollouts_section}
            </div>
        </section>
    }
    .into_any()
}
