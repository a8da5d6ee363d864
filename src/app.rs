//! The application shell: header (server version, connection, namespace), the sidebar (the
//! kinds people open most, then the API tree), the routed page, the request log and the `:`
//! palette. The pages themselves live in `pages`.

use std::collections::HashSet;

use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use send_wrapper::SendWrapper;

use crate::browser::now_ms;
use crate::components::{ApiTreeView, QuickAccess};
use crate::model::navigation::palette::PaletteTarget;
use crate::model::navigation::route::{
    CreateRoute, EventsRoute, ListRoute, OverviewRoute, Page, PermissionsRoute, Route,
};
use crate::model::navigation::shortcuts::{GoTarget, KeySequence, ShortcutAction};
use crate::model::navigation::sidebar_tree::{ancestors_of, NodeKey};
use crate::model::object::events::{events_api, EventApi};
use crate::model::permissions::{Permission, Question, Scope};
use crate::model::{api::tree::TreeErrorKind, ApiTree, ResourceId};
use crate::pages::chunks::{self, PageLoadError};
use crate::pages::{ListIdentity, ObjectIdentity};
use crate::state::discovery::{Connection, DiscoveryState};
use crate::state::namespaces::{load_namespaces, KnownNamespaces};
use crate::state::navigation::Navigation;
use crate::state::permissions::{last_namespace, remember_namespace, PermissionsState};
use crate::state::request_log;
use crate::state::watch::WatchHub;

mod deferred;
use deferred::{ShellPart, ShellState};

/// Which page to build: a new list or object is a new page; sort, filter, wide and tab are
/// read by the page itself, so changing them does not reload anything.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Screen {
    /// The cluster overview of a namespace (None: all).
    Overview(Option<String>),
    Home,
    List(ListIdentity),
    Object(ObjectIdentity),
    /// The Event objects timeline of a namespace (None: all), filtered as its link says.
    Events(EventsRoute),
    Permissions(Option<String>),
    Replay,
    Create(CreateRoute),
}

/// The main area: discovery failed, is loading, or a screen.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shown {
    Failed(String),
    Loading,
    Screen(Screen),
}

impl Screen {
    fn of(page: &Page) -> Screen {
        match page {
            Page::Overview(route) => Screen::Overview(route.namespace.clone()),
            Page::Home(_) => Screen::Home,
            Page::ResourceList(route) => Screen::List(ListIdentity::of(route)),
            Page::Object(route) => Screen::Object(ObjectIdentity::of(route)),
            Page::Events(route) => Screen::Events(route.clone()),
            Page::Permissions(route) => Screen::Permissions(route.namespace.clone()),
            Page::Replay => Screen::Replay,
            Page::Create(route) => Screen::Create(route.clone()),
        }
    }
}

/// The page for a namespace chosen in the header: the same view in that namespace.
fn with_namespace(page: Page, namespace: Option<String>) -> Page {
    match page {
        Page::Overview(_) => Page::Overview(OverviewRoute { namespace }),
        Page::Home(route) => Page::Home(Route { namespace, ..route }),
        Page::ResourceList(route) => Page::ResourceList(ListRoute { namespace, ..route }),
        // An object is in its namespace: another namespace means its kind's list there.
        Page::Object(route) => Page::ResourceList(ListRoute::new(route.resource, namespace)),
        Page::Events(route) => Page::Events(EventsRoute { namespace, ..route }),
        Page::Permissions(_) => Page::Permissions(PermissionsRoute { namespace }),
        Page::Replay => Page::Replay,
        Page::Create(route) => Page::Create(CreateRoute { namespace, ..route }),
    }
}

#[component]
pub fn App() -> impl IntoView {
    let app_started_ms = now_ms();
    let log = request_log::install();
    crate::state::clusters::Clusters::install();
    WatchHub::install();
    let permissions = PermissionsState::install();
    let discovery = DiscoveryState::new();
    provide_context(discovery);
    discovery.start();
    let navigation = Navigation::install();
    let page = navigation.page;

    let initial = page.get_untracked();
    let selected = RwSignal::new(initial.resource().cloned());
    let selected_subresource = RwSignal::new(None::<String>);
    let namespace = Signal::derive(move || page.with(|p| p.namespace().map(str::to_string)));
    let filter = RwSignal::new(String::new());
    let expanded: RwSignal<HashSet<NodeKey>> = RwSignal::new(
        initial
            .resource()
            .map(|id| ancestors_of(id).into_iter().collect())
            .unwrap_or_default(),
    );
    let palette_open = RwSignal::new(false);
    let namespaces = RwSignal::new(Some(Vec::<String>::new()));
    provide_context(KnownNamespaces(namespaces));
    // Shown while the screen is the one that fell back to a namespace (and why).
    let fallback_note = RwSignal::new(None::<(Screen, String)>);

    let tree: Memo<ApiTree> = Memo::new(move |_| {
        discovery.loaded.with(|l| {
            l.as_ref()
                .map(|l| l.discovery.tree.clone())
                .unwrap_or_default()
        })
    });

    // Page -> tree selection (back/forward, links, edited URLs).
    Effect::new(move |_| {
        let resource = page.with(|p| p.resource().cloned());
        if let Some(id) = &resource {
            expanded.update(|set| set.extend(ancestors_of(id)));
        }
        if selected.get_untracked() != resource {
            selected.set(resource);
            selected_subresource.set(None);
        }
    });
    // A choice in the tree (or palette) opens that resource's explorer.
    Effect::new(move |_| {
        let chosen = selected.get();
        let current = page.get_untracked();
        if current.resource() != chosen.as_ref() {
            navigation.go(Page::Home(Route {
                resource: chosen,
                namespace: current.namespace().map(str::to_string),
            }));
        }
    });
    let screen = Memo::new(move |_| page.with(Screen::of));
    // What <main> shows. A memo, so a discovery refresh (a CRD added, a reconnect) that leaves
    // the screen as it was does not build the open page again (which would throw away what
    // the user is doing in it, an open editor included).
    let shown = Memo::new(move |_| {
        if let Some(error) = discovery.fatal.get() {
            return Shown::Failed(error.to_string());
        }
        if discovery.loaded.with(Option::is_none) {
            return Shown::Loading;
        }
        Shown::Screen(screen.get())
    });
    // The namespace list (every Kubernetes API server serves namespaces; an answer that is not
    // a list leaves the user typing one): asked once the tree is painted (`extras_due`
    // below), so drawing it never delays the tree; asked again while still empty once
    // discovery says namespaces exist (a reconnect).
    let namespaces_asked = StoredValue::new(false);
    let ask_namespaces = move || {
        if namespaces_asked.get_value() {
            return;
        }
        namespaces_asked.set_value(true);
        spawn_local(async move {
            namespaces.set(load_namespaces().await);
            namespaces_asked.set_value(false);
        });
    };
    let namespaces_first_asked = StoredValue::new(false);
    Effect::new(move |_| {
        let serves_namespaces = tree.with(|t| {
            t.find(&ResourceId::new("", "v1", "namespaces"))
                .is_some_and(|r| r.resource.supports("list"))
        });
        if serves_namespaces
            && namespaces_first_asked.get_value()
            && namespaces.with_untracked(|n| n.as_ref().is_some_and(Vec::is_empty))
        {
            ask_namespaces();
        }
    });

    // The namespace the user works in is remembered. A page across all namespaces that the
    // user may not list falls back to a namespace they may: the one last used, else
    // `default`; with neither, the page stays and its notice asks for one.
    Effect::new(move |_| {
        let current = page.get();
        if let Some(ns) = current.namespace() {
            remember_namespace(ns);
            return;
        }
        let Some((question, noun)) = tree.with(|t| across_namespaces(&current, t)) else {
            return;
        };
        if permissions.may(&question) != Permission::Denied {
            return;
        }
        let candidates = last_namespace()
            .into_iter()
            .chain(Some("default".to_string()));
        for namespace in candidates {
            let here = Question {
                scope: Scope::Namespace(namespace.clone()),
                ..question.clone()
            };
            match permissions.may(&here) {
                Permission::Allowed(_) => {
                    let fallen_back = with_namespace(current, Some(namespace.clone()));
                    fallback_note.set(Some((
                        Screen::of(&fallen_back),
                        format!(
                            "Showing namespace {namespace}: you may not list {noun} across all namespaces."
                        ),
                    )));
                    navigation.replace(fallen_back);
                    return;
                }
                // Asked; this effect runs again with the answer.
                Permission::Unknown => return,
                Permission::Denied => {}
            }
        }
    });

    // The shortcuts of `model::navigation::shortcuts` (`:` palette, `/` filter, `?` this list,
    // `g p`...), unless the user is typing.
    let cheat_sheet_open = RwSignal::new(false);
    let keys = StoredValue::new(KeySequence::default());
    let go = move |target: GoTarget| {
        let namespace = page.with_untracked(|p| p.namespace().map(str::to_string));
        let list = |group: &str, version: &str, plural: &str| {
            Page::ResourceList(ListRoute::new(
                ResourceId::new(group, version, plural),
                namespace.clone(),
            ))
        };
        let destination = match target {
            GoTarget::Overview => Page::Overview(OverviewRoute {
                namespace: namespace.clone(),
            }),
            GoTarget::Pods => list("", "v1", "pods"),
            GoTarget::Deployments => list("apps", "v1", "deployments"),
            GoTarget::Services => list("", "v1", "services"),
            GoTarget::Nodes => {
                Page::ResourceList(ListRoute::new(ResourceId::new("", "v1", "nodes"), None))
            }
            GoTarget::Events => Page::Events(EventsRoute {
                namespace: namespace.clone(),
                ..EventsRoute::default()
            }),
            GoTarget::Hierarchy => Page::Home(Route {
                resource: None,
                namespace: namespace.clone(),
            }),
            GoTarget::Permissions => Page::Permissions(PermissionsRoute {
                namespace: namespace.clone(),
            }),
        };
        navigation.go(destination);
    };
    let _ = window_event_listener(ev::keydown, move |event| {
        // Form fields, and editable content (the YAML editor is a contenteditable, where
        // every other key of YAML is a colon).
        let typing = event
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(t).ok())
            .is_some_and(|el| {
                matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                    || el.is_content_editable()
            });
        let dialog_open = palette_open.get_untracked() || cheat_sheet_open.get_untracked();
        if typing || dialog_open || event.ctrl_key() || event.meta_key() || event.alt_key() {
            return;
        }
        let key = event.key();
        let Some(action) = keys
            .try_update_value(|keys| keys.press(&key, now_ms()))
            .flatten()
        else {
            return;
        };
        event.prevent_default();
        match action {
            ShortcutAction::Palette => palette_open.set(true),
            ShortcutAction::CheatSheet => cheat_sheet_open.set(true),
            ShortcutAction::FocusFilter => {
                if let Some(input) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.get_element_by_id("tree-filter"))
                    .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
                {
                    let _ = input.focus();
                }
            }
            ShortcutAction::Go(target) => go(target),
        }
    });

    // Time from navigation start until the tree was first painted (read by `cargo xtask
    // bench`): effects run after the DOM update, and the time is taken after the next paint.
    let ready_ms = RwSignal::new(None::<f64>);
    let ready_pending = StoredValue::new(false);
    // The shell's other parts (`deferred`) are fetched and drawn once the tree is painted, or
    // once discovery failed, or after two seconds whatever happened, so neither their code
    // nor their drawing delays the tree.
    let extras_due = RwSignal::new(false);
    set_timeout(
        move || extras_due.set(true),
        std::time::Duration::from_secs(2),
    );
    Effect::new(move |_| {
        if discovery.fatal.with(Option::is_some) {
            extras_due.set(true);
        }
    });
    Effect::new(move |_| {
        if extras_due.get() && !namespaces_first_asked.get_value() {
            namespaces_first_asked.set_value(true);
            ask_namespaces();
        }
    });
    Effect::new(move |_| {
        let has_groups = tree.with(|t| !t.groups.is_empty());
        if has_groups && ready_ms.get_untracked().is_none() && !ready_pending.get_value() {
            ready_pending.set_value(true);
            crate::browser::after_next_paint("kube-atlas:tree-painted", move |ms| {
                ready_ms.set(Some(ms));
                extras_due.set(true);
            });
        }
    });

    let choose_from_palette = Callback::new(move |target: PaletteTarget| match target {
        PaletteTarget::Page(destination) => navigation.go(destination),
        PaletteTarget::Definition(id) => {
            expanded.update(|set| set.extend(ancestors_of(&id)));
            selected_subresource.set(None);
            if selected.get_untracked().as_ref() == Some(&id) {
                // Already selected (from a list of it): the effect would not run.
                navigation.go(Page::Home(Route {
                    resource: Some(id),
                    namespace: page.with_untracked(|p| p.namespace().map(str::to_string)),
                }));
            } else {
                selected.set(Some(id));
            }
        }
        PaletteTarget::Namespace(namespace) => {
            navigation.go(with_namespace(page.get_untracked(), namespace));
        }
    });
    let hub = expect_context::<WatchHub>();
    let loaded_objects = Callback::new(move |()| {
        let mut found = hub.loaded_objects(2_000);
        tree.with_untracked(|t| {
            for object in &mut found {
                if object.kind.is_empty() {
                    if let Some(r) = t.find(&object.resource) {
                        object.kind = r.resource.kind.clone();
                    }
                }
            }
        });
        found
    });

    let shell = DeferredShell {
        due: extras_due,
        state: ShellState {
            tree: tree.into(),
            palette_open,
            cheat_sheet_open,
            namespace,
            namespaces: namespaces.into(),
            loaded_objects,
            choose_from_palette,
            log,
        },
    };

    crate::browser::mark("kube-atlas:app-set-up");
    view! {
        <div class="app">
            <Header discovery=discovery navigation=navigation namespaces=namespaces shell=shell/>
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
                <QuickAccess tree=tree page=page/>
                <PartialFailures discovery=discovery/>
                <ApiTreeView
                    tree=tree.into()
                    filter=filter
                    selected=selected
                    selected_subresource=selected_subresource
                    expanded=expanded
                />
            </nav>
            // Pages that fill the height (lists, pod logs) with their own scrolling: a class
            // here rather than `:has()` in the CSS, which made every change inside the page
            // recompute the style of all of it.
            <main class="main" tabindex="0" class:fill-page=move || page.with(Page::fills_height)>
                {move || {
                    let (fallen_back, text) = fallback_note.get()?;
                    (screen.get() == fallen_back).then(|| view! {
                        <p class="notice namespace-fallback" role="status">{text}</p>
                    })
                }}
                {move || {
                    let screen = match shown.get() {
                        Shown::Failed(error) => {
                            return view! {
                                <div class="error" role="alert">
                                    <strong>"Cannot load the API. "</strong>
                                    {error}
                                </div>
                            }
                            .into_any();
                        }
                        Shown::Loading => {
                            return view! { <p class="loading">"Loading discovery…"</p> }
                                .into_any();
                        }
                        Shown::Screen(screen) => screen,
                    };
                    match screen {
                        Screen::Overview(namespace) => lazily_loaded(move || {
                            chunks::kube_atlas_overview_page(namespace.clone())
                        }),
                        // The API page describes the tree: drawn after the tree's first
                        // paint, never delaying it.
                        Screen::Home => lazily_loaded(move || async move {
                            crate::browser::painted_or_after(500).await;
                            chunks::kube_atlas_api_page(selected, selected_subresource, namespace).await
                        }),
                        Screen::List(identity) => {
                            lazily_loaded(move || chunks::kube_atlas_list_page(identity.clone()))
                        }
                        Screen::Object(identity) => {
                            lazily_loaded(move || chunks::kube_atlas_object_page(identity.clone()))
                        }
                        Screen::Events(route) => {
                            lazily_loaded(move || chunks::kube_atlas_events_page(route.clone()))
                        }
                        Screen::Permissions(namespace) => lazily_loaded(move || {
                            chunks::kube_atlas_permissions_page(namespace.clone())
                        }),
                        Screen::Replay => lazily_loaded(chunks::kube_atlas_replay_page),
                        Screen::Create(route) => {
                            lazily_loaded(move || chunks::kube_atlas_create_page(route.clone()))
                        }
                    }
                }}
            </main>
            {deferred_part(shell, ShellPart::RequestLog)}
            {deferred_part(shell, ShellPart::Palette)}
            {deferred_part(shell, ShellPart::CheatSheet)}
        </div>
    }
}

/// A page from `pages::chunks`: "Loading…" while its module is fetched (only the first
/// visit, and only in split builds), the page once it is there, or why it could not be
/// fetched with a way to try again (the rest of the app keeps working).
fn lazily_loaded<Load, Loading>(load: Load) -> AnyView
where
    Load: Fn() -> Loading + Send + Sync + 'static,
    Loading: std::future::Future<Output = Result<AnyView, PageLoadError>> + 'static,
{
    loaded_with(
        || view! { <p class="loading">"Loading the page…"</p> }.into_any(),
        "This page's code could not be loaded. ",
        load,
    )
}

/// The shell's parts from `deferred`, and when they are drawn.
#[derive(Clone, Copy)]
struct DeferredShell {
    due: RwSignal<bool>,
    state: ShellState,
}

/// One part of the shell from `deferred`, drawn once due (nothing before, nor while its
/// module is fetched).
fn deferred_part(shell: DeferredShell, part: ShellPart) -> impl IntoView {
    move || {
        shell.due.get().then(|| {
            loaded_with(
                || ().into_any(),
                "A part of the page could not be loaded. ",
                move || deferred::kube_atlas_shell_part(part, shell.state),
            )
        })
    }
}

/// What `load` builds, `loading` while its module is fetched, or why it could not be fetched
/// with a way to try again.
fn loaded_with<Load, Loading>(loading: fn() -> AnyView, failed: &'static str, load: Load) -> AnyView
where
    Load: Fn() -> Loading + Send + Sync + 'static,
    Loading: std::future::Future<Output = Result<AnyView, PageLoadError>> + 'static,
{
    let attempt = RwSignal::new(0_u32);
    view! {
        <Suspense fallback=loading>
            {move || {
                attempt.track();
                let loading = load();
                Suspend::new(SendWrapper::new(async move {
                    match loading.await {
                        Ok(page) => page,
                        Err(error) => view! {
                            <div class="error" role="alert">
                                <strong>{failed}</strong>
                                {error.to_string()}
                                " "
                                <button on:click=move |_| attempt.update(|n| *n += 1)>
                                    "Try again"
                                </button>
                            </div>
                        }
                        .into_any(),
                    }
                }))
            }}
        </Suspense>
    }
    .into_any()
}

#[component]
fn Header(
    discovery: DiscoveryState,
    navigation: Navigation,
    namespaces: RwSignal<Option<Vec<String>>>,
    /// Where the recorder and the cluster switcher come from (`deferred`).
    shell: DeferredShell,
) -> impl IntoView {
    let namespace =
        Signal::derive(move || navigation.page.with(|p| p.namespace().map(str::to_string)));
    let choose = move |value: String| {
        let value = value.trim().to_string();
        let chosen = (!value.is_empty()).then_some(value);
        if chosen != namespace.get_untracked() {
            navigation.go(with_namespace(navigation.page.get_untracked(), chosen));
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
        </header>
    }
}

/// The question a page across all namespaces asks of the user's permissions (listing its kind
/// at the cluster scope), and the kind's plural for the words; None for other pages.
fn across_namespaces(page: &Page, tree: &ApiTree) -> Option<(Question, String)> {
    let (group, plural) = match page {
        Page::ResourceList(route) => {
            let found = tree.find(&route.resource)?;
            if !found.resource.namespaced {
                return None;
            }
            (route.resource.group.clone(), route.resource.plural.clone())
        }
        // The overview counts pods, the most numerous of what it watches.
        Page::Overview(_) => (String::new(), "pods".to_string()),
        Page::Events(_) => match events_api(tree)? {
            EventApi::EventsV1 => ("events.k8s.io".to_string(), "events".to_string()),
            EventApi::CoreV1 => (String::new(), "events".to_string()),
        },
        _ => return None,
    };
    Some((
        Question::new(Scope::Cluster, "list", &group, &plural),
        plural,
    ))
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
                        .map(|e| format!("{}: {}", crate::model::api::tree::api_version(&e.group, &e.version), e.message))
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
