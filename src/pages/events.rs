//! The Event objects page (`#/events`, `#/events?ns=demo`): the reports components write
//! about objects, live, for the cluster or one namespace. Not watch events: those are the
//! changes to objects that keep every live view current. A fragment's `reason=` and `type=`
//! (`#/events?reason=BackOff&type=Warning`, the overview's histogram links) filter it at
//! first.

use leptos::ev;
use leptos::prelude::*;

use crate::components::EventTimeline;
use crate::model::events::EventScope;
use crate::model::route::EventsFilterParams;

/// The filter in the address bar now.
fn filter_in_url() -> EventsFilterParams {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    EventsFilterParams::parse(&hash)
}

#[component]
pub fn EventsPage(namespace: Option<String>) -> impl IntoView {
    let scope = match namespace {
        Some(ns) => EventScope::Namespace(ns),
        None => EventScope::All,
    };
    let heading = format!("Events (reports by components) · {}", scope.describe());
    // Another filter link while the page is open (the page itself stays).
    let filter = RwSignal::new(filter_in_url());
    let listener = window_event_listener(ev::hashchange, move |_| {
        let now = filter_in_url();
        if filter.get_untracked() != now {
            filter.set(now);
        }
    });
    on_cleanup(move || listener.remove());
    let timeline = move || {
        let EventsFilterParams { reason, .. } = filter.get();
        let warnings_only = filter.with(EventsFilterParams::warnings_only);
        view! { <EventTimeline scope=scope.clone() reason=reason warnings_only=warnings_only/> }
    };
    view! {
        <section class="events-page" aria-label="Event objects">
            <h1>"Event objects " <span class="kind">{heading}</span></h1>
            <p class="subtitle">
                "What the kubelet, controllers and the scheduler reported about objects, newest first. "
                "The cluster deletes Event objects after about an hour; those seen here stay, marked expired."
            </p>
            {timeline}
        </section>
    }
}
