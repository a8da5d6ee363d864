//! The overview's workloads by health, the unhealthy ones named, and recent rollouts.

use leptos::prelude::*;

use crate::components::charts::HealthStack;
use crate::components::diagnosis::subject_href;
use crate::components::HealthBadge;
use crate::model::diagnosis::Health;
use crate::model::navigation::route::{ListRoute, ObjectRoute, Page};
use crate::model::object::events::EventRecord;
use crate::model::overview::chart::health_segments;
use crate::model::overview::{recent_rollouts, workload_summary, WORKLOAD_KINDS};
use crate::model::time::age::{human_duration, EpochMillis};
use crate::model::{ApiTree, ResourceId};
use crate::pages::overview::{
    list_href, loading, stores, with_objects, Stat, ROLLOUTS_SHOWN, UNHEALTHY_SHOWN,
};
use crate::state::overview::Watched;

pub(super) fn workloads_card(
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

pub(super) fn segments_label(
    kind: &str,
    counts: &std::collections::BTreeMap<Health, usize>,
) -> String {
    let parts: Vec<String> = counts
        .iter()
        .rev()
        .map(|(h, n)| format!("{n} {}", h.label()))
        .collect();
    format!("{kind}s: {}", parts.join(", "))
}

pub(super) fn rollouts_card(deployments: Option<Watched>, now: Memo<EpochMillis>) -> impl IntoView {
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
