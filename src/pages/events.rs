//! The Event objects page (`#/events`, `#/events?ns=demo`): the reports components write
//! about objects, live, for the cluster or one namespace. Not watch events: those are the
//! changes to objects that keep every live view current.

use leptos::prelude::*;

use crate::components::EventTimeline;
use crate::model::events::EventScope;

#[component]
pub fn EventsPage(namespace: Option<String>) -> impl IntoView {
    let scope = match namespace {
        Some(ns) => EventScope::Namespace(ns),
        None => EventScope::All,
    };
    let heading = format!("Events (reports by components) · {}", scope.describe());
    view! {
        <section class="events-page" aria-label="Event objects">
            <h1>"Event objects " <span class="kind">{heading}</span></h1>
            <p class="subtitle">
                "What the kubelet, controllers and the scheduler reported about objects, newest first. "
                "The cluster deletes Event objects after about an hour; those seen here stay, marked expired."
            </p>
            <EventTimeline scope=scope/>
        </section>
    }
}
