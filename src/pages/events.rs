//! The Event objects page (`#/events`, `#/events?ns=demo`): the reports components write
//! about objects, live, for the cluster or one namespace. Not watch events: those are the
//! changes to objects that keep every live view current. A link may open it filtered
//! (`#/events?reason=BackOff&type=Warning`, the overview's histogram bars).

use leptos::prelude::*;

use crate::components::EventTimeline;
use crate::model::navigation::route::EventsRoute;
use crate::model::object::events::EventScope;

#[component]
pub fn EventsPage(route: EventsRoute) -> impl IntoView {
    let scope = match route.namespace {
        Some(ns) => EventScope::Namespace(ns),
        None => EventScope::All,
    };
    let heading = format!("Events (reports by components) · {}", scope.describe());
    let warnings_only = route.filter.warnings_only();
    let reason = route.filter.reason;
    view! {
        <section class="events-page" aria-label="Event objects">
            <h1>"Event objects " <span class="kind">{heading}</span></h1>
            <p class="subtitle">
                "What the kubelet, controllers and the scheduler reported about objects, newest first. "
                "The cluster deletes Event objects after about an hour; those seen here stay, marked expired."
            </p>
            <EventTimeline scope=scope reason=reason warnings_only=warnings_only/>
        </section>
    }
}
