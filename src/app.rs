//! The application shell: header (server version, connection), the API tree as a sidebar, the
//! main pane, the request log, the `:` palette, and the URL-fragment route.

use std::collections::HashSet;

use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::api::discovery::LoadedDiscovery;
use crate::components::{ApiTreeView, Palette, RequestLogPanel, ResourceExplorer};
use crate::model::route::Route;
use crate::model::tree_nav::{ancestors_of, NodeKey};
use crate::model::{ApiTree, ResourceId, TreeErrorKind};
use crate::state::discovery::{Connection, DiscoveryState};
use crate::state::request_log;

fn current_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

fn set_hash(hash: &str) {
    if current_hash() == hash || (hash == "#/" && current_hash().is_empty()) {
        return;
    }
    if let Some(window) = web_sys::window() {
        let _ = window.location().set_hash(hash);
    }
}

/// Names of the namespaces, for the global selector (empty when not listable).
async fn load_namespaces() -> Vec<String> {
    let Ok(fetched) = api::get("/api/v1/namespaces", "application/json").await else {
        return Vec::new();
    };
    let value: serde_json::Value = serde_json::from_str(&fetched.body).unwrap_or_default();
    let mut names: Vec<String> = value
        .get("items")
        .and_then(|i| i.as_array())
        .into_iter()
        .flatten()
        .filter_map(|item| item.pointer("/metadata/name").and_then(|n| n.as_str()))
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

#[component]
pub fn App() -> impl IntoView {
    let app_started_ms = api::now_ms();
    let log = request_log::install();
    let discovery = DiscoveryState::new();
    provide_context(discovery);
    discovery.start();

    let initial = Route::parse(&current_hash());
    let selected = RwSignal::new(initial.resource.clone());
    let selected_subresource = RwSignal::new(None::<String>);
    let namespace = RwSignal::new(initial.namespace.clone());
    let filter = RwSignal::new(String::new());
    let expanded: RwSignal<HashSet<NodeKey>> = RwSignal::new(
        initial
            .resource
            .as_ref()
            .map(|id| ancestors_of(id).into_iter().collect())
            .unwrap_or_default(),
    );
    let palette_open = RwSignal::new(false);
    let namespaces = RwSignal::new(Vec::<String>::new());

    let tree: Memo<ApiTree> = Memo::new(move |_| {
        discovery.loaded.with(|l| {
            l.as_ref()
                .map(|l| l.discovery.tree.clone())
                .unwrap_or_default()
        })
    });

    // Route -> state on back/forward and edited URLs.
    let _ = window_event_listener(ev::hashchange, move |_| {
        let route = Route::parse(&current_hash());
        if let Some(id) = &route.resource {
            expanded.update(|set| set.extend(ancestors_of(id)));
        }
        if selected.get_untracked() != route.resource {
            selected.set(route.resource);
            selected_subresource.set(None);
        }
        if namespace.get_untracked() != route.namespace {
            namespace.set(route.namespace);
        }
    });
    // State -> route.
    Effect::new(move |_| {
        let route = Route {
            resource: selected.get(),
            namespace: namespace.get(),
        };
        set_hash(&route.to_hash());
    });
    // The namespace list, once discovery says namespaces exist (and again on reconnect).
    Effect::new(move |_| {
        let serves_namespaces = tree.with(|t| {
            t.find(&ResourceId::new("", "v1", "namespaces"))
                .is_some_and(|r| r.resource.supports("list"))
        });
        if serves_namespaces && namespaces.with_untracked(Vec::is_empty) {
            spawn_local(async move { namespaces.set(load_namespaces().await) });
        }
    });

    // `:` opens the palette (k9s), `/` focuses the filter, unless the user is typing.
    let _ = window_event_listener(ev::keydown, move |event| {
        let typing = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
        if typing || event.ctrl_key() || event.meta_key() || event.alt_key() {
            return;
        }
        match event.key().as_str() {
            ":" => {
                event.prevent_default();
                palette_open.set(true);
            }
            "/" => {
                event.prevent_default();
                if let Some(input) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.get_element_by_id("tree-filter"))
                    .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
                {
                    let _ = input.focus();
                }
            }
            _ => {}
        }
    });

    // Time from navigation start until the tree was first painted (read by `cargo xtask
    // bench`): effects run after the DOM update, and the time is taken after the next paint.
    let ready_ms = RwSignal::new(None::<f64>);
    let ready_pending = StoredValue::new(false);
    Effect::new(move |_| {
        let has_groups = tree.with(|t| !t.groups.is_empty());
        if has_groups && ready_ms.get_untracked().is_none() && !ready_pending.get_value() {
            ready_pending.set_value(true);
            crate::browser::after_next_paint("kube-atlas:tree-painted", move |ms| {
                ready_ms.set(Some(ms));
            });
        }
    });

    let choose_from_palette = Callback::new(move |id: ResourceId| {
        expanded.update(|set| set.extend(ancestors_of(&id)));
        selected_subresource.set(None);
        selected.set(Some(id));
    });

    view! {
        <div class="app">
            <Header discovery=discovery namespace=namespace namespaces=namespaces/>
            <nav
                class="sidebar"
                aria-label="API hierarchy"
                data-ready-ms=move || ready_ms.get().map(|ms| format!("{ms:.1}"))
                data-app-ready-ms=move || ready_ms.get().map(|ms| format!("{:.1}", ms - app_started_ms))
            >
                <div class="sidebar-tools">
                    <input
                        id="tree-filter"
                        type="search"
                        placeholder="Filter: name, kind, short name, category"
                        aria-label="Filter resources"
                        prop:value=move || filter.get()
                        on:input=move |e| filter.set(event_target_value(&e))
                    />
                    <span class="hint">"Press " <kbd>":"</kbd> " to jump to a resource, " <kbd>"/"</kbd> " to filter"</span>
                </div>
                <PartialFailures discovery=discovery/>
                <ApiTreeView
                    tree=tree.into()
                    filter=filter
                    selected=selected
                    selected_subresource=selected_subresource
                    expanded=expanded
                />
            </nav>
            <main class="main">
                {move || {
                    if let Some(error) = discovery.fatal.get() {
                        return view! {
                            <div class="error" role="alert">
                                <strong>"Cannot load the API. "</strong>
                                {error.to_string()}
                            </div>
                        }
                        .into_any();
                    }
                    let Some(loaded) = discovery.loaded.get() else {
                        return view! { <p class="loading">"Loading discovery…"</p> }.into_any();
                    };
                    match selected.get() {
                        Some(id) => match loaded.discovery.tree.group(&id.group).cloned() {
                            Some(group) => view! {
                                <ResourceExplorer
                                    group=group
                                    version=id.version.clone()
                                    plural=id.plural.clone()
                                    namespace=namespace.get()
                                    subresource=selected_subresource.get()
                                />
                            }
                            .into_any(),
                            None => view! {
                                <p class="error" role="alert">
                                    {format!("The server does not serve the group of {}.", id.key())}
                                </p>
                            }
                            .into_any(),
                        },
                        None => view! { <Overview loaded=loaded/> }.into_any(),
                    }
                }}
            </main>
            <RequestLogPanel log=log/>
            <Palette tree=tree.into() open=palette_open on_choose=choose_from_palette/>
        </div>
    }
}

#[component]
fn Header(
    discovery: DiscoveryState,
    namespace: RwSignal<Option<String>>,
    namespaces: RwSignal<Vec<String>>,
) -> impl IntoView {
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
            <span class="header-spacer"></span>
            <label class="hint" for="namespace-select">"Namespace"</label>
            <select
                id="namespace-select"
                aria-label="Namespace"
                on:change=move |e| {
                    let value = event_target_value(&e);
                    namespace.set((!value.is_empty()).then_some(value));
                }
            >
                <option value="" selected=move || namespace.get().is_none()>"All namespaces"</option>
                {move || {
                    let current = namespace.get();
                    let mut names = namespaces.get();
                    // A deep-linked namespace stays selectable before the list arrives.
                    if let Some(ns) = &current {
                        if !names.contains(ns) {
                            names.push(ns.clone());
                        }
                    }
                    names
                        .into_iter()
                        .map(|n| {
                            let is_current = current.as_deref() == Some(n.as_str());
                            view! { <option value=n.clone() selected=is_current>{n.clone()}</option> }
                        })
                        .collect_view()
                }}
            </select>
            {move || {
                let (state, text) = connection();
                let label = if state == "error" { "Disconnected".to_string() } else { text.clone() };
                view! { <span class="conn" data-state=state title=text>{label}</span> }
            }}
        </header>
    }
}

/// Group-versions that failed (the rest of the tree is still shown).
#[component]
fn PartialFailures(discovery: DiscoveryState) -> impl IntoView {
    move || {
        discovery.loaded.with(|loaded| {
            let errors = loaded
                .as_ref()
                .map(|l| {
                    l.discovery
                        .errors
                        .entries
                        .iter()
                        .filter(|e| matches!(e.kind, TreeErrorKind::Fetch | TreeErrorKind::Parse | TreeErrorKind::Stale))
                        .map(|e| format!("{}: {}", crate::model::api_version(&e.group, &e.version), e.message))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            (!errors.is_empty()).then(|| {
                view! {
                    <div class="warning" role="status">
                        <strong>{format!("{} group-version(s) unavailable; showing the rest.", errors.len())}</strong>
                        <ul>{errors.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ul>
                    </div>
                }
            })
        })
    }
}

/// One overview row: group name, (version, preferred) pairs, resource count.
type GroupSummary = (String, Vec<(String, bool)>, usize);

/// The home pane: what discovery found, and how to explore it.
#[component]
fn Overview(loaded: LoadedDiscovery) -> impl IntoView {
    let counts = loaded.discovery.tree.counts();
    let mode = if loaded.aggregated {
        format!(
            "Aggregated discovery (apidiscovery.k8s.io/v2): {} requests.",
            loaded.requests
        )
    } else {
        format!(
            "Legacy discovery walk (/api, /apis, then every group-version): {} requests.",
            loaded.requests
        )
    };
    let groups: Vec<GroupSummary> = loaded
        .discovery
        .tree
        .groups
        .iter()
        .map(|g| {
            (
                g.display_name().to_string(),
                g.versions
                    .iter()
                    .map(|v| (v.version.clone(), v.preferred))
                    .collect(),
                g.preferred().map(|v| v.resources.len()).unwrap_or_default(),
            )
        })
        .collect();
    view! {
        <section class="welcome">
            <h1>"API hierarchy"</h1>
            <p class="subtitle">
                {format!(
                    "{} groups · {} group-versions · {} resources · {} subresources. ",
                    counts.groups, counts.group_versions, counts.resources, counts.subresources
                )}
                {mode}
            </p>
            <div class="card">
                <p>
                    "The API server groups its resources into "<strong>"API groups"</strong>
                    " (the legacy core group lives at /api/v1, every other group at /apis/GROUP/VERSION). "
                    "Each group serves one or more "<strong>"versions"</strong>
                    "; the preferred one is what clients use when they do not name a version. "
                    "Pick a resource in the tree to see its kind, verbs, subresources and URLs."
                </p>
            </div>
            <div class="card">
                <table class="props overview-groups" aria-label="API groups">
                    <tr><th>"Group"</th><th>"Versions"</th><th>"Resources"</th></tr>
                    {groups
                        .into_iter()
                        .map(|(name, versions, count)| {
                            let data_group = name.clone();
                            view! {
                                <tr class="overview-group" data-group=data_group>
                                    <td class="mono">{name}</td>
                                    <td>
                                        <span class="chips">
                                            {versions
                                                .into_iter()
                                                .map(|(v, preferred)| {
                                                    view! { <span class="chip" class:preferred=preferred>{v}</span> }
                                                })
                                                .collect_view()}
                                        </span>
                                    </td>
                                    <td>{count}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </table>
            </div>
        </section>
    }
}
