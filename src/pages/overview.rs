//! The cluster overview (`#/`, the landing page): is my cluster fine?

use leptos::prelude::*;

use crate::model::route::{Page, Route};

#[component]
pub fn OverviewPage(namespace: Option<String>) -> impl IntoView {
    let scope = namespace.clone().map_or_else(
        || "the whole cluster".to_string(),
        |ns| format!("namespace {ns}"),
    );
    let hierarchy = Page::Home(Route {
        resource: None,
        namespace,
    })
    .to_hash();
    view! {
        <section class="overview-page" aria-label="Cluster overview">
            <h1>"Overview " <span class="kind">{scope}</span></h1>
            <p class="subtitle">
                "Learning the API? The " <a href=hierarchy>"API hierarchy"</a>
                " shows every group, version and resource the server serves."
            </p>
        </section>
    }
}
