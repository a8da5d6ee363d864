//! The overview's pods by phase and the last hour's Warning Events by reason.

use leptos::prelude::*;

use crate::browser::utc_offset_minutes;
use crate::components::charts::WarningHistogramChart;
use crate::model::navigation::route::{EventsFilter, EventsRoute, ListRoute, Page};
use crate::model::object::events::EventRecord;
use crate::model::overview::chart::histogram_chart;
use crate::model::overview::histogram::warning_histogram;
use crate::model::overview::pod_summary;
use crate::model::time::age::EpochMillis;
use crate::pages::overview::{list_href, loading, Stat};
use crate::state::overview::Watched;

pub(super) fn pods_card(
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

pub(super) fn events_card(
    events: Option<Watched>,
    warnings: Memo<Vec<EventRecord>>,
    clock: Signal<EpochMillis>,
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
