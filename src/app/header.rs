//! The header: the server's version, the links to the pages every namespace has, the
//! recorder and cluster switcher (deferred), the namespace chooser and the connection.

use leptos::prelude::*;

use super::deferred::{deferred_part, DeferredShell, ShellPart};
use super::signed_in::SignedInUser;
use crate::model::navigation::route::{
    EventsRoute, MapRoute, OverviewRoute, Page, PermissionsRoute, Route,
};
use crate::state::discovery::{Connection, DiscoveryState};
use crate::state::navigation::Navigation;

#[component]
pub fn Header(
    discovery: DiscoveryState,
    navigation: Navigation,
    namespaces: Signal<Option<Vec<String>>>,
    /// Where the recorder and the cluster switcher come from (`deferred`).
    shell: DeferredShell,
) -> impl IntoView {
    let namespace =
        Signal::derive(move || navigation.page.with(|p| p.namespace().map(str::to_string)));
    let choose = move |value: String| {
        let value = value.trim().to_string();
        let chosen = (!value.is_empty()).then_some(value);
        if chosen != namespace.get_untracked() {
            navigation.go(navigation.page.get_untracked().with_namespace(chosen));
        }
    };
    let connection = move || match discovery.connection.get() {
        Connection::Connecting => ("connecting", "Connecting…".to_string()),
        Connection::Connected => ("connected", "Connected".to_string()),
        Connection::Lost(reason) => ("error", format!("Disconnected: {reason}")),
    };
    view! {
        <header class="app-header">
            <span class="brand"><span class="brand-mark" aria-hidden="true"></span>"Kube Atlas"</span>
            <span class="server-version" title="Server version (from /version)">
                {move || discovery.server_version.get().unwrap_or_default()}
            </span>
            <a
                class="header-link"
                href=move || Page::Overview(OverviewRoute { namespace: namespace.get() }).to_hash()
                aria-current=move || {
                    navigation.page.with(|p| matches!(p, Page::Overview(_))).then_some("page")
                }
                title="Is my cluster fine? Nodes, workloads, pods, Warnings, requests, rollouts"
            >
                "Overview"
            </a>
            <a
                class="header-link"
                href=move || Page::Home(Route { resource: None, namespace: namespace.get() }).to_hash()
                aria-current=move || {
                    navigation.page.with(|p| matches!(p, Page::Home(_))).then_some("page")
                }
                title="The API hierarchy: groups, versions, resources, verbs"
            >
                "API"
            </a>
            <a
                class="header-link"
                href=move || {
                    Page::Events(EventsRoute {
                        namespace: namespace.get(),
                        ..EventsRoute::default()
                    })
                    .to_hash()
                }
                aria-current=move || {
                    navigation.page.with(|p| matches!(p, Page::Events(_))).then_some("page")
                }
                title="Event objects: reports written by components about objects"
            >
                "Events"
            </a>
            <a
                class="header-link"
                href=move || {
                    Page::Map(MapRoute { namespace: namespace.get(), ..MapRoute::default() }).to_hash()
                }
                aria-current=move || {
                    navigation.page.with(|p| matches!(p, Page::Map(_))).then_some("page")
                }
                title="The map: how the namespace's objects connect, with their health"
            >
                "Map"
            </a>
            <a
                class="header-link"
                href=move || Page::Permissions(PermissionsRoute { namespace: namespace.get() }).to_hash()
                aria-current=move || {
                    navigation.page.with(|p| matches!(p, Page::Permissions(_))).then_some("page")
                }
                title="What can I do here? Your permissions in the namespace"
            >
                "Permissions"
            </a>
            {deferred_part(shell, ShellPart::RecordControl)}
            <span class="header-spacer"></span>
            {deferred_part(shell, ShellPart::Forwards)}
            {deferred_part(shell, ShellPart::ClusterSwitcher)}
            <label class="hint" for="namespace-select">"Namespace"</label>
            {move || match namespaces.get() {
                // Namespaces cannot be listed (forbidden): the user types one.
                None => view! {
                    <input
                        id="namespace-select"
                        type="text"
                        aria-label="Namespace"
                        placeholder="All namespaces"
                        prop:value=move || namespace.get().unwrap_or_default()
                        on:change=move |e| choose(event_target_value(&e))
                    />
                }
                .into_any(),
                Some(mut names) => {
                    let current = namespace.get();
                    // A deep-linked namespace stays selectable before the list arrives.
                    if let Some(ns) = &current {
                        if !names.contains(ns) {
                            names.push(ns.clone());
                        }
                    }
                    view! {
                        <select
                            id="namespace-select"
                            aria-label="Namespace"
                            on:change=move |e| choose(event_target_value(&e))
                        >
                            <option value="" selected=current.is_none()>"All namespaces"</option>
                            {names
                                .into_iter()
                                .map(|n| {
                                    let is_current = current.as_deref() == Some(n.as_str());
                                    view! { <option value=n.clone() selected=is_current>{n.clone()}</option> }
                                })
                                .collect_view()}
                        </select>
                    }
                    .into_any()
                }
            }}
            {move || {
                let (state, text) = connection();
                let label = if state == "error" { "Disconnected".to_string() } else { text.clone() };
                view! { <span class="conn" data-state=state title=text>{label}</span> }
            }}
            <SignedInUser />
        </header>
    }
}
