//! The timeline of Event objects: reports that components (kubelet, controllers, the
//! scheduler) write about objects, live, cluster-wide, for a namespace or for one object.
//! Warnings stand apart; a repeated Event is one row with its count and first/last time; an
//! Event the cluster expired (after an hour) stays, marked. Read through the shared watch
//! layer (one stream per scope, whichever of the two Events APIs discovery serves), kept in
//! the pure [`EventLog`].

use leptos::prelude::*;

use crate::components::{ForbiddenNotice, StreamStatusLine};
use crate::model::navigation::route::{EventsRoute, Page};
use crate::model::object::events::{
    events_api, events_watch_key, EventApi, EventFilter, EventRecord, EventScope, DEFAULT_CAPACITY,
};
use crate::model::watch::{ObjectCache, StreamPhase, WatchStatus};
use crate::model::ApiTree;
use crate::state::clock::use_clock;
use crate::state::discovery::DiscoveryState;
use crate::state::events::{use_event_log, UseEventLogOptions, UseEventLogReturn};
use crate::state::watch::{use_watch_objects, LiveWatch};

use crate::components::event_row::EventRow;

/// Rows drawn at first; more on request (the log keeps up to [`DEFAULT_CAPACITY`]).
const ROWS_SHOWN: usize = 300;

#[component]
pub fn EventTimeline(
    scope: EventScope,
    /// Shown at first: only Events with this reason (the user can clear it).
    #[prop(default = None)]
    reason: Option<String>,
    /// Shown at first: only Warnings.
    #[prop(optional)]
    warnings_only: bool,
) -> impl IntoView {
    let discovery = expect_context::<DiscoveryState>();
    let tree = discovery
        .loaded
        .with_untracked(|loaded| loaded.as_ref().map(|l| l.discovery.tree.clone()));
    let Some(tree) = tree else {
        return view! { <p class="loading">"Loading discovery…"</p> }.into_any();
    };
    let Some(api) = events_api(&tree) else {
        return view! {
            <p class="error" role="alert">
                "The server serves no Event objects that can be listed and watched (neither events.k8s.io/v1 nor core/v1)."
            </p>
        }
        .into_any();
    };
    let tree = StoredValue::new(tree);
    // Servers that cannot select Events by the object's uid get its kind and name instead.
    let by_uid = RwSignal::new(true);
    view! {
        {move || {
            let by_uid_now = by_uid.get();
            let key = tree.with_value(|tree| events_watch_key(tree, api, &scope, by_uid_now));
            match key {
                Some(key) => {
                    let live = use_watch_objects(key);
                    view! {
                        <TimelineBody
                            live=live
                            scope=scope.clone()
                            api=api
                            tree=tree
                            by_uid=by_uid
                            reason=reason.clone()
                            warnings_only=warnings_only
                        />
                    }
                    .into_any()
                }
                None => view! { <p class="error" role="alert">"Events are not served."</p> }.into_any(),
            }
        }}
    }
    .into_any()
}

#[component]
fn TimelineBody(
    live: LiveWatch<ObjectCache>,
    scope: EventScope,
    api: EventApi,
    tree: StoredValue<ApiTree>,
    by_uid: RwSignal<bool>,
    reason: Option<String>,
    warnings_only: bool,
) -> impl IntoView {
    let clock = use_clock();
    let status: Signal<WatchStatus> = live.status.clone().into();
    let UseEventLogReturn { log, filled } = use_event_log(UseEventLogOptions {
        store: live.store.clone().into(),
        status,
    });

    // A server that rejects the uid field selector: select by kind and name (the log still
    // keeps only the object's uid).
    let uses_uid = matches!(scope, EventScope::Object { .. }) && by_uid.get_untracked();
    Effect::new(move |_| {
        let rejected = status.with(|s| {
            s.resource_version.is_none()
                && s.last_error
                    .as_deref()
                    .is_some_and(|e| e.to_lowercase().contains("field selector"))
        });
        if uses_uid && rejected {
            by_uid.set(false);
        }
    });

    // Forbidden across namespaces or in this one: the Events page of a namespace allowed.
    let elsewhere = matches!(scope, EventScope::All | EventScope::Namespace(_)).then(|| {
        Callback::new(|namespace: String| {
            Page::Events(EventsRoute {
                namespace: Some(namespace),
                ..EventsRoute::default()
            })
            .to_hash()
        })
    });
    let warnings_only = RwSignal::new(warnings_only);
    let reason = RwSignal::new(reason);
    let text = RwSignal::new(String::new());
    let limit = RwSignal::new(ROWS_SHOWN);
    let base = scope.base_filter();
    let filter = Memo::new(move |_| EventFilter {
        warnings_only: warnings_only.get(),
        text: text.get(),
        reason: reason.get().or_else(|| base.reason.clone()),
        ..base.clone()
    });
    let reason_chip = move || {
        reason.get().map(|shown| {
            let data = shown.clone();
            view! {
                <span class="event-reason-filter" data-reason=data>
                    "Reason: " <strong>{shown}</strong> " "
                    <button
                        type="button"
                        aria-label="Show every reason"
                        title="Show every reason"
                        on:click=move |_| reason.set(None)
                    >
                        "×"
                    </button>
                </span>
            }
        })
    };
    let rows = Memo::new(move |_| {
        let limit = limit.get();
        filter.with(|filter| {
            log.with(|log| {
                log.newest_first(filter)
                    .take(limit)
                    .cloned()
                    .collect::<Vec<EventRecord>>()
            })
        })
    });
    let counts = Memo::new(move |_| {
        let base = scope.base_filter();
        let matching = filter.with(|f| log.with(|l| l.counts(f).0));
        log.with(|l| {
            let (all, warnings) = l.counts(&base);
            let expired = l
                .newest_first(&base)
                .filter(|record| record.expired)
                .count();
            (matching, all, warnings, expired, l.dropped())
        })
    });
    let summary = move || {
        let (matching, all, warnings, expired, dropped) = counts.get();
        let mut parts = vec![format!(
            "{all} Event object{}",
            if all == 1 { "" } else { "s" }
        )];
        parts.push(format!(
            "{warnings} Warning{}",
            if warnings == 1 { "" } else { "s" }
        ));
        if expired > 0 {
            parts.push(format!("{expired} expired from the cluster (kept here)"));
        }
        if matching != all {
            parts.push(format!("{matching} shown by the filter"));
        }
        if dropped > 0 {
            parts.push(format!(
                "{dropped} older ones dropped (the newest {DEFAULT_CAPACITY} are kept)"
            ));
        }
        parts.join(" · ")
    };
    let more = move || {
        let shown = rows.with(Vec::len);
        let matching = counts.with(|c| c.0);
        (matching > shown).then(|| {
            view! {
                <button
                    type="button"
                    class="event-more"
                    on:click=move |_| limit.update(|l| *l += ROWS_SHOWN)
                >
                    {format!("Show {} more (of {} not shown)", ROWS_SHOWN.min(matching - shown), matching - shown)}
                </button>
            }
        })
    };
    let empty = move || {
        (filled.get() && rows.with(Vec::is_empty)).then(|| {
            let text = if counts.with(|c| c.1) == 0 {
                "No Event objects yet. Components write them as things happen."
            } else {
                "No Event objects match the filter."
            };
            view! { <p class="empty">{text}</p> }
        })
    };
    let error = move || {
        status
            .with(|s| {
                s.last_error
                    .clone()
                    .filter(|_| s.resource_version.is_none() && s.phase != StreamPhase::Forbidden)
            })
            .map(|error| {
                view! {
                    <div class="error" role="alert">
                        <strong>"Event objects could not be read. "</strong>
                        {error}
                        " Retrying…"
                    </div>
                }
            })
    };

    view! {
        <div class="event-timeline" data-api=api.label()>
            <div class="event-toolbar">
                <label class="check">
                    <input
                        type="checkbox"
                        aria-label="Warnings only"
                        prop:checked=move || warnings_only.get()
                        on:change=move |e| warnings_only.set(event_target_checked(&e))
                    />
                    "Warnings only"
                </label>
                <input
                    type="search"
                    class="event-filter"
                    aria-label="Filter Event objects"
                    placeholder="Filter: reason, message, object, component"
                    prop:value=move || text.get()
                    on:input=move |e| text.set(event_target_value(&e))
                />
                {reason_chip}
                <span class="event-counts" role="status">{summary}</span>
            </div>
            <StreamStatusLine live=live.clone() clock=clock/>
            <ForbiddenNotice status=live.status.clone() namespaced=true elsewhere=elsewhere/>
            {error}
            <table class="event-table" aria-label="Event objects">
                <thead>
                    <tr>
                        <th scope="col" class="event-when-col">"Last seen"</th>
                        <th scope="col">"Type"</th>
                        <th scope="col">"Reason"</th>
                        <th scope="col">"Object"</th>
                        <th scope="col">"Message"</th>
                        <th scope="col">"Reported by"</th>
                        <th scope="col" class="event-count-col">"Count"</th>
                    </tr>
                </thead>
                <tbody>
                    <For
                        each=move || rows.get()
                        key=|record| (record.uid.clone(), record.resource_version.clone(), record.expired)
                        let:record
                    >
                        <EventRow record=record tree=tree clock=clock/>
                    </For>
                </tbody>
            </table>
            {empty}
            {more}
        </div>
    }
}
