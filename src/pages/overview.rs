//! The cluster overview (`#/`, the landing page): is my cluster fine? Nodes, workloads by
//! health, pods by phase, the last hour's Warning Events by reason, what pods request of
//! each node, recent rollouts; live, from the shared watches, each section linking to the
//! list it sums up. A section whose watch the server forbids says so on its own.

use leptos::prelude::*;
use serde_json::Value;

use crate::browser::utc_offset_minutes;
use crate::components::charts::{HealthStack, UsageMeter, WarningHistogramChart};
use crate::components::diagnosis::subject_href;
use crate::components::{ForbiddenNotice, HealthBadge};
use crate::model::api::endpoints::NamespaceArg;
use crate::model::diagnosis::Health;
use crate::model::navigation::route::{
    EventsFilter, EventsRoute, ListRoute, ObjectRoute, OverviewRoute, Page, Route,
};
use crate::model::object::events::{
    events_api, events_watch_key, EventFilter, EventLog, EventRecord, EventScope,
};
use crate::model::overview::chart::{health_segments, histogram_chart, usage_bar};
use crate::model::overview::histogram::warning_histogram;
use crate::model::overview::quantity::{format_bytes, format_cpu};
use crate::model::overview::{
    node_requests, node_summary, pod_summary, recent_rollouts, workload_summary, WORKLOAD_KINDS,
};
use crate::model::time::age::{human_duration, EpochMillis};
use crate::model::watch::{ObjectCache, Output, StreamPhase, WatchKey, WatchStatus};
use crate::model::{ApiTree, ResourceId};
use crate::state::clock::use_clock;
use crate::state::discovery::DiscoveryState;
use crate::state::watch::use_watch_objects;

/// Rollouts listed, and unhealthy workloads named.
const ROLLOUTS_SHOWN: usize = 6;
const UNHEALTHY_SHOWN: usize = 6;

/// One watched collection of whole objects.
#[derive(Clone, Copy)]
struct Watched {
    store: RwSignal<ObjectCache>,
    status: RwSignal<WatchStatus>,
    namespaced: bool,
}

impl Watched {
    fn filled(&self) -> bool {
        self.status.with(|s| s.resource_version.is_some())
    }
}

/// Runs `f` with the objects of every store in `stores`, borrowed (no copies).
fn with_objects<R>(
    stores: &[RwSignal<ObjectCache>],
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

fn stores(watches: &[Option<Watched>]) -> Vec<RwSignal<ObjectCache>> {
    watches.iter().flatten().map(|w| w.store).collect()
}

fn list_href(group: &str, version: &str, plural: &str, namespace: Option<String>) -> ListRoute {
    ListRoute::new(ResourceId::new(group, version, plural), namespace)
}

/// A count with its word, for the big numbers: `data-stat` names it for tests.
#[component]
fn Stat(
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
fn loading(watch: Option<Watched>) -> impl Fn() -> Option<AnyView> + Send + Sync {
    move || {
        let watch = watch?;
        let waiting = watch
            .status
            .with(|s| s.resource_version.is_none() && s.phase != StreamPhase::Forbidden);
        waiting.then(|| view! { <p class="loading">"Loading…"</p> }.into_any())
    }
}

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

    let watch = |group: &str, version: &str, plural: &str| -> Option<Watched> {
        let found = tree.find(&ResourceId::new(group, version, plural))?;
        if !(found.resource.supports("list") && found.resource.supports("watch")) {
            return None;
        }
        let namespaced = found.resource.namespaced;
        let ns = match (&namespace, namespaced) {
            (Some(ns), true) => NamespaceArg::Named(ns),
            _ => NamespaceArg::All,
        };
        let path = found.collection_path(ns).template();
        let live = use_watch_objects(WatchKey::new(path, Output::Objects));
        Some(Watched {
            store: live.store.into(),
            status: live.status.into(),
            namespaced,
        })
    };
    let nodes = watch("", "v1", "nodes");
    let pods = watch("", "v1", "pods");
    let replica_sets = watch("apps", "v1", "replicasets");
    let deployments = watch("apps", "v1", "deployments");
    let workloads = [
        deployments,
        watch("apps", "v1", "statefulsets"),
        watch("apps", "v1", "daemonsets"),
        watch("batch", "v1", "jobs"),
    ];
    let events = events_watch(&tree, namespace.clone());

    let clock = use_clock();
    // Health and buckets move with the clock only slowly: every 15 s is enough.
    let now = Memo::new(move |_| clock.get() / 15_000 * 15_000);

    // The Event objects, kept as the Events page keeps them.
    let log = RwSignal::new(EventLog::default());
    if let Some(events) = events {
        Effect::new(move |_| {
            events.store.track();
            let complete = events.filled();
            let changed = events.store.with_untracked(|cache| {
                log.try_update_untracked(|log| log.merge_snapshot(cache, complete).changed())
            });
            if changed == Some(true) {
                log.notify();
            }
        });
    }
    let warnings = Memo::new(move |_| {
        let filter = EventFilter {
            warnings_only: true,
            ..EventFilter::default()
        };
        log.with(|log| {
            log.newest_first(&filter)
                .cloned()
                .collect::<Vec<EventRecord>>()
        })
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

    let nodes_section = nodes_card(nodes, notice(nodes));
    let workloads_section = workloads_card(
        &workloads,
        [replica_sets, pods],
        warnings,
        now,
        &tree,
        namespace.clone(),
        notice(workloads[0]),
    );
    let pods_section = pods_card(pods, namespace.clone(), notice(pods));
    let events_section = events_card(events, warnings, clock, namespace.clone(), notice(events));
    let requests_section = requests_card(nodes, pods, namespace.clone());
    let rollouts_section = rollouts_card(deployments, now);

    view! {
        <section class="overview-page" aria-label="Cluster overview">
            <h1>"Overview " <span class="kind">{scope}</span></h1>
            <p class="subtitle">
                "Live from the cluster's own objects (no metrics server needed). Learning the API? The "
                <a href=hierarchy>"API hierarchy"</a>
                " shows every group, version and resource the server serves."
            </p>
            <div class="overview-grid">
                {nodes_section}
                {events_section}
                {workloads_section}
                {pods_section}
                {requests_section}
                {rollouts_section}
            </div>
        </section>
    }
    .into_any()
}

/// The Events watch of the namespace in view (all namespaces without one).
fn events_watch(tree: &ApiTree, namespace: Option<String>) -> Option<Watched> {
    let api = events_api(tree)?;
    let scope = match namespace {
        Some(ns) => EventScope::Namespace(ns),
        None => EventScope::All,
    };
    let key = events_watch_key(tree, api, &scope, true)?;
    let live = use_watch_objects(key);
    Some(Watched {
        store: live.store.into(),
        status: live.status.into(),
        namespaced: true,
    })
}

fn nodes_card(nodes: Option<Watched>, notice: Option<impl IntoView + 'static>) -> impl IntoView {
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

#[allow(clippy::too_many_arguments)]
fn workloads_card(
    workloads: &[Option<Watched>; 4],
    owned: [Option<Watched>; 2],
    warnings: Memo<Vec<EventRecord>>,
    now: Memo<EpochMillis>,
    tree: &ApiTree,
    namespace: Option<String>,
    notice: Option<impl IntoView + 'static>,
) -> impl IntoView {
    let workload_stores = stores(workloads);
    let owned_stores = stores(&owned);
    let summary = Memo::new(move |_| {
        let now = now.get();
        warnings.with(|events| {
            with_objects(&workload_stores, Vec::new(), |workloads| {
                with_objects(&owned_stores, Vec::new(), |owned| {
                    workload_summary(workloads, owned, events, now)
                })
            })
        })
    });
    let first = workloads[0];
    let plurals = [
        ("apps", "deployments"),
        ("apps", "statefulsets"),
        ("apps", "daemonsets"),
        ("batch", "jobs"),
    ];
    let rows = {
        let namespace = namespace.clone();
        move || {
            summary.with(|s| {
                s.kinds
                    .iter()
                    .map(|(kind, counts)| {
                        let (group, plural) = WORKLOAD_KINDS
                            .iter()
                            .position(|k| k == kind)
                            .map(|i| plurals[i])
                            .unwrap_or(("apps", "deployments"));
                        let total: usize = counts.values().sum();
                        let unhealthy = s.unhealthy_of(kind);
                        let list = list_href(group, "v1", plural, namespace.clone());
                        let all_href = Page::ResourceList(list.clone()).to_hash();
                        let unhealthy_href = Page::ResourceList(ListRoute {
                            unhealthy: true,
                            ..list
                        })
                        .to_hash();
                        let label = segments_label(kind, counts);
                        view! {
                            <tr data-kind=*kind>
                                <th scope="row"><a href=all_href>{format!("{kind}s")}</a></th>
                                <td class="workload-bar">
                                    <HealthStack segments=health_segments(counts) label=label/>
                                </td>
                                <td class="workload-count">
                                    {if unhealthy > 0 {
                                        view! {
                                            <a class="overview-bad" href=unhealthy_href data-stat=format!("unhealthy-{kind}")>
                                                {format!("{unhealthy} of {total} unhealthy")}
                                            </a>
                                        }
                                        .into_any()
                                    } else {
                                        view! { <span class="overview-ok">{format!("{total}, all fine")}</span> }.into_any()
                                    }}
                                </td>
                            </tr>
                        }
                    })
                    .collect_view()
            })
        }
    };
    let tree = StoredValue::new(tree.clone());
    let unhealthy_list = move || {
        summary.with(|s| {
            s.unhealthy
                .iter()
                .take(UNHEALTHY_SHOWN)
                .map(|w| {
                    let href = tree.with_value(|tree| subject_href(&w.workload, tree));
                    let name = w.workload.describe();
                    let about = if w.about == w.workload {
                        w.sentence.clone()
                    } else {
                        format!("{} {}", w.about.describe(), w.sentence)
                    };
                    view! {
                        <li data-workload=w.workload.name.clone()>
                            <HealthBadge health=w.health/>
                            " "
                            {match href {
                                Some(href) => view! { <a href=href>{name}</a> }.into_any(),
                                None => view! { <span>{name}</span> }.into_any(),
                            }}
                            <span class="overview-why">{about}</span>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let unhealthy_total = Signal::derive(move || summary.with(|s| s.unhealthy.len()));
    let failing = Signal::derive(move || summary.with(|s| s.count(Health::Failing)));
    let total = Signal::derive(move || summary.with(|s| s.total()));
    view! {
        <article class="overview-card" aria-labelledby="overview-workloads">
            <h2 id="overview-workloads">"Workloads"</h2>
            {notice}
            {loading(first)}
            <div class="stats">
                <Stat name="workloads-total" value=total label="workloads"/>
                <Stat name="workloads-unhealthy" value=unhealthy_total label="unhealthy" tone="bad"/>
                <Stat name="workloads-failing" value=failing label="failing" tone="bad"/>
            </div>
            <table class="workload-table" aria-label="Workloads by health">
                <tbody>{rows}</tbody>
            </table>
            <ul class="overview-list unhealthy-workloads">{unhealthy_list}</ul>
        </article>
    }
}

fn segments_label(kind: &str, counts: &std::collections::BTreeMap<Health, usize>) -> String {
    let parts: Vec<String> = counts
        .iter()
        .rev()
        .map(|(h, n)| format!("{n} {}", h.label()))
        .collect();
    format!("{kind}s: {}", parts.join(", "))
}

fn pods_card(
    pods: Option<Watched>,
    namespace: Option<String>,
    notice: Option<impl IntoView + 'static>,
) -> impl IntoView {
    let summary = Memo::new(move |_| match pods {
        Some(w) => w.store.with(|cache| pod_summary(cache.iter())),
        None => Default::default(),
    });
    let list = list_href("", "v1", "pods", namespace);
    let all_href = Page::ResourceList(list.clone()).to_hash();
    let phases = {
        let list = list.clone();
        move || {
            summary.with(|s| {
                s.phases
                    .iter()
                    .filter(|(phase, n)| *n > 0 || matches!(*phase, "Pending" | "Running" | "Failed"))
                    .map(|(phase, n)| {
                        let href = Page::ResourceList(ListRoute {
                            field_selector: format!("status.phase={phase}"),
                            ..list.clone()
                        })
                        .to_hash();
                        view! {
                            <li>
                                <a href=href data-phase=*phase>
                                    <span class="chip-count" data-stat=format!("pods-{}", phase.to_lowercase())>{*n}</span>
                                    " "
                                    {*phase}
                                </a>
                            </li>
                        }
                    })
                    .collect_view()
            })
        }
    };
    let waiting = move || {
        summary.with(|s| {
            if s.waiting.is_empty() {
                return view! { <p class="overview-note">"No container is waiting in trouble."</p> }.into_any();
            }
            let items = s
                .waiting
                .iter()
                .map(|(reason, n)| {
                    let href = Page::ResourceList(ListRoute {
                        filter: reason.clone(),
                        ..list.clone()
                    })
                    .to_hash();
                    view! {
                        <li>
                            <a href=href class="overview-bad" data-waiting=reason.clone()>
                                <span class="chip-count">{*n}</span>
                                " "
                                {reason.clone()}
                            </a>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <p class="overview-note">"Pods with a container waiting:"</p>
                <ul class="chips">{items}</ul>
            }
            .into_any()
        })
    };
    view! {
        <article class="overview-card" aria-labelledby="overview-pods">
            <h2 id="overview-pods"><a href=all_href.clone()>"Pods"</a></h2>
            {notice}
            {loading(pods)}
            <div class="stats">
                <Stat name="pods-total" value=Signal::derive(move || summary.with(|s| s.total)) label="pods" href=all_href/>
            </div>
            <ul class="chips" aria-label="Pods by phase">{phases}</ul>
            {waiting}
        </article>
    }
}

fn events_card(
    events: Option<Watched>,
    warnings: Memo<Vec<EventRecord>>,
    clock: RwSignal<EpochMillis>,
    namespace: Option<String>,
    notice: Option<impl IntoView + 'static>,
) -> impl IntoView {
    // Buckets move every five minutes; new Warnings move them at once.
    let bucket_now = Memo::new(move |_| clock.get() / 60_000 * 60_000);
    let offset = utc_offset_minutes();
    let chart = Memo::new(move |_| {
        let now = bucket_now.get();
        warnings.with(|records| histogram_chart(&warning_histogram(records, now), offset))
    });
    let warnings = move |namespace: Option<String>, reason: Option<String>| {
        Page::Events(EventsRoute {
            namespace,
            filter: EventsFilter {
                reason,
                event_type: Some("Warning".into()),
            },
        })
        .to_hash()
    };
    let href_of = {
        let namespace = namespace.clone();
        Callback::new(move |reason: Option<String>| warnings(namespace.clone(), reason))
    };
    let all = warnings(namespace.clone(), None);
    let drawn = move || {
        let chart = chart.get();
        let total: u64 = chart.legend.iter().map(|l| l.total).sum();
        view! {
            <p class="overview-note">
                <span data-stat="warnings-total">{total}</span>
                {if total == 1 { " Warning in the last hour" } else { " Warnings in the last hour" }}
                ", by reason (click a bar to see them)"
            </p>
            <WarningHistogramChart chart=chart href_of=href_of/>
        }
    };
    view! {
        <article class="overview-card overview-wide" aria-labelledby="overview-events">
            <h2 id="overview-events"><a href=all>"Warning Events"</a></h2>
            {notice}
            {loading(events)}
            {events.is_none().then(|| view! { <p class="overview-note">"The server serves no Event objects."</p> })}
            {drawn}
        </article>
    }
}

fn requests_card(
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

fn rollouts_card(deployments: Option<Watched>, now: Memo<EpochMillis>) -> impl IntoView {
    let rollouts = Memo::new(move |_| {
        let now = now.get();
        match deployments {
            Some(w) => w
                .store
                .with(|cache| recent_rollouts(cache.iter(), now, ROLLOUTS_SHOWN)),
            None => Vec::new(),
        }
    });
    let deployments_id = ResourceId::new("apps", "v1", "deployments");
    let rows = move || {
        let now = now.get();
        rollouts.with(|all| {
            if all.is_empty() {
                return view! { <p class="overview-note">"No Deployment rolled out in the last 24 hours."</p> }.into_any();
            }
            let items = all
                .iter()
                .map(|r| {
                    let href = Page::Object(ObjectRoute::new(
                        deployments_id.clone(),
                        r.namespace.clone(),
                        r.name.clone(),
                    ))
                    .to_hash();
                    let name = match &r.namespace {
                        Some(ns) => format!("{ns}/{}", r.name),
                        None => r.name.clone(),
                    };
                    let revision = r
                        .revision
                        .as_ref()
                        .map(|rev| format!("revision {rev}"))
                        .unwrap_or_default();
                    let ago = format!("{} ago", human_duration((now - r.updated_ms).max(0)));
                    view! {
                        <li data-rollout=r.name.clone() data-state=r.state.label()>
                            <a href=href>{name}</a>
                            " "
                            <span class="overview-muted">{revision}</span>
                            " "
                            <span class=format!("rollout-state rollout-{}", r.state.label().replace(' ', "-"))>
                                {r.state.label()}
                            </span>
                            " "
                            <span class="overview-muted">
                                {format!("{}/{} ready · {ago}", r.ready, r.desired)}
                            </span>
                            <span class="overview-why" title=r.message.clone()>{r.reason.clone()}</span>
                        </li>
                    }
                })
                .collect_view();
            view! { <ul class="overview-list">{items}</ul> }.into_any()
        })
    };
    view! {
        <article class="overview-card" aria-labelledby="overview-rollouts">
            <h2 id="overview-rollouts">"Recent rollouts"</h2>
            {loading(deployments)}
            {rows}
        </article>
    }
}
