//! The status line of a live view: connected, reconnecting or relisting, the resourceVersion,
//! time since the last change, relists and why, the transport; one click shows the stream's
//! requests in the request log, another the watch's mechanics step by step.

use leptos::prelude::*;

use crate::browser::monotonic_now;
use crate::components::time::clock_time;
use crate::model::history::{seen_events, HistoryStore, SeenEvent};
use crate::model::object::events::{events_api, events_watch_key, EventScope};
use crate::model::time::age::EpochMillis;
use crate::model::watch::{MechanicsLog, StreamPhase, WatchKey, WatchStatus};
use crate::state::discovery::DiscoveryState;
use crate::state::request_log::RequestLogView;
use crate::state::watch::{use_watch_history, use_watch_mechanics, LiveWatch, StreamTransport};

#[component]
pub fn StreamStatusLine<S: Send + Sync + 'static>(
    live: LiveWatch<S>,
    /// Ticks "last change … ago".
    clock: RwSignal<EpochMillis>,
) -> impl IntoView {
    let status: ReadSignal<WatchStatus> = live.status.clone().into();
    let transport: ReadSignal<StreamTransport> = live.transport.clone().into();
    let path = live.key.collection_path.clone();
    let state = move || status.with(|s| s.phase);
    let headline = move || status.with(|s| s.headline());
    let details = move || {
        clock.track();
        status.with(|s| s.details(monotonic_now())).join(" · ")
    };
    // A refused list has no stream to name.
    let transport_label = move || {
        (state() != StreamPhase::Forbidden).then(|| {
            let (text, why) = transport_words(transport.get());
            view! {
                <span class="stream-transport" title=why>
                    {text}
                </span>
            }
        })
    };
    let mechanics_open = RwSignal::new(false);
    let key = live.key.clone();
    let log = use_context::<RequestLogView>();
    let show_requests = move |_| {
        if let Some(log) = log {
            log.show_only(path.clone());
        }
    };
    view! {
        <div
            class="stream-status"
            role="status"
            aria-label="Stream status"
            data-phase=move || format!("{:?}", state()).to_lowercase()
        >
            <span class="stream-dot" aria-hidden="true"></span>
            <strong class="stream-headline">{headline}</strong>
            <span class="stream-details">{details}</span>
            {transport_label}
            <button type="button" class="link-button" on:click=show_requests>
                "Requests"
            </button>
            <button
                type="button"
                class="link-button mechanics-toggle"
                aria-expanded=move || mechanics_open.get().to_string()
                on:click=move |_| mechanics_open.update(|open| *open = !*open)
            >
                "Watch mechanics"
            </button>
        </div>
        {move || mechanics_open.get().then(|| view! { <MechanicsPanel key=key.clone()/> })}
    }
}

/// How a stream travels, in words, and why where it matters.
fn transport_words(transport: StreamTransport) -> (&'static str, Option<&'static str>) {
    match transport {
        StreamTransport::WebSocket => ("WebSocket", None),
        StreamTransport::Multiplexed => (
            "WebSocket (shared)",
            Some("kube-atlas carries every live view of this page on one WebSocket"),
        ),
        StreamTransport::Http => ("HTTP stream", None),
        StreamTransport::WaitingForConnection => (
            "Waiting for a connection (other live views hold them all)",
            Some(
                "Other live views hold every HTTP watch connection: a browser opens at most \
                 six connections to a server, and here watches cannot use WebSockets. This \
                 view starts as soon as one of them closes; served by kube-atlas, all views \
                 share one connection.",
            ),
        ),
    }
}

/// The watch of one key step by step (requests, each watch event with its resourceVersion,
/// bookmarks, relists and why), beside the Event objects written in its namespace meanwhile.
#[component]
fn MechanicsPanel(key: WatchKey) -> impl IntoView {
    let Some(log) = use_watch_mechanics(&key) else {
        return ().into_any();
    };
    let log: RwSignal<MechanicsLog> = log.into();
    let events = namespace_events(&key);
    let rows = move || {
        log.with(|log| {
            log.entries()
                .rev()
                .take(SHOWN_ENTRIES)
                .map(|entry| {
                    let label = entry.happening.label();
                    view! {
                        <tr class="mechanics-entry" data-kind=label>
                            <td class="mono">{clock_time(entry.at_ms)}</td>
                            <td class="kind">{label}</td>
                            <td class="mono detail">{entry.happening.detail()}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let oldest_shown = Memo::new(move |_| {
        log.with(|log| {
            log.entries()
                .rev()
                .take(SHOWN_ENTRIES)
                .last()
                .map_or(0.0, |e| e.at_ms)
        })
    });
    let event_rows = move || {
        let Some(events) = &events else {
            return view! { <p class="muted">"Event objects are not served here."</p> }.into_any();
        };
        let since = oldest_shown.get();
        let mut seen: Vec<SeenEvent> = events.with(seen_events);
        seen.retain(|e| e.observed_ms >= since);
        crate::model::list::stable_sort::sort_by(&mut seen, |a, b| {
            b.observed_ms.total_cmp(&a.observed_ms)
        });
        seen.into_iter()
            .take(SHOWN_ENTRIES)
            .map(|e| {
                let kind = if e.record.event_type.is_warning() { "Warning" } else { "Normal" };
                view! {
                    <li class="mechanics-event" data-type=kind>
                        <span class="mono">{clock_time(e.observed_ms)}</span>
                        " "
                        <strong>{e.record.reason.clone()}</strong>
                        {format!(" {} — {} ({})", e.record.regarding.describe(), e.record.message, e.record.reporting_component)}
                    </li>
                }
            })
            .collect_view()
            .into_any()
    };
    let dropped = move || {
        let dropped = log.with(MechanicsLog::dropped);
        (dropped > 0).then(|| format!("{dropped} older entries dropped."))
    };
    view! {
        <div class="mechanics" aria-label="Watch mechanics">
            <div class="mechanics-log">
                <h3>{format!("Watch of {}", key.describe())}</h3>
                <p class="muted">
                    "What the dashboard asked the API server and what came back: list pages, the                      watch request (from the list's resourceVersion, with bookmarks), each watch                      event (a change to an object) with its resourceVersion, bookmarks, errors                      such as 410 Expired, and relists. Newest first."
                </p>
                <table class="mechanics-table">
                    <tbody>{rows}</tbody>
                </table>
                <p class="muted">{dropped}</p>
            </div>
            <div class="mechanics-events">
                <h3>"Event objects meanwhile"</h3>
                <p class="muted">"Reports written by components in the same namespace, as they arrived."</p>
                <ul>{event_rows}</ul>
            </div>
        </div>
    }
    .into_any()
}

/// Entries shown at most (the log keeps more).
const SHOWN_ENTRIES: usize = 200;

/// The Event objects of the key's namespace (all namespaces for cluster-wide keys), watched
/// while the panel is open.
fn namespace_events(key: &WatchKey) -> Option<ArcRwSignal<HistoryStore>> {
    let discovery = use_context::<DiscoveryState>()?;
    let tree = discovery
        .loaded
        .with_untracked(|l| l.as_ref().map(|l| l.discovery.tree.clone()))?;
    let namespace = key
        .collection_path
        .split("/namespaces/")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .filter(|_| key.collection_path.matches('/').count() > 3)
        .map(str::to_string);
    let scope = match namespace {
        Some(ns) => EventScope::Namespace(ns),
        None => EventScope::All,
    };
    let api = events_api(&tree)?;
    let events_key = events_watch_key(&tree, api, &scope, true)?;
    Some(use_watch_history(events_key).1)
}
