//! The shell's state (`use_shell`): the services every page shares installed in context, the
//! API tree and its selection kept in step with the page, the namespace list, the fall back
//! to a namespace the user may list, and when the deferred parts of the shell are due.

use std::collections::HashSet;
use std::time::Duration;

use leptos::prelude::*;

use crate::model::navigation::palette::{LoadedObject, PaletteTarget};
use crate::model::navigation::route::{Page, Route};
use crate::model::navigation::sidebar_tree::{ancestors_of, NodeKey};
use crate::model::{ApiTree, ResourceId};
use crate::state::discovery::DiscoveryState;
use crate::state::namespaces::{keep_namespaces, use_namespace_fallback, KnownNamespaces};
use crate::state::navigation::Navigation;
use crate::state::permissions::PermissionsState;
use crate::state::request_log::{self, RequestRecord};
use crate::state::watch::WatchHub;

/// How `use_shell` behaves.
#[derive(Debug, Clone, Copy)]
pub struct UseShellOptions {
    /// The deferred parts are due after this at the latest, whatever the tree did.
    pub extras_at_the_latest: Duration,
}

impl Default for UseShellOptions {
    fn default() -> Self {
        UseShellOptions {
            extras_at_the_latest: Duration::from_secs(2),
        }
    }
}

/// What the main area shows: discovery failed, is loading, or a page's screen
/// (`Page::screen`: a new screen is a new page built).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shown {
    Failed(String),
    Loading,
    Screen(Page),
}

/// The sidebar tree's two-way bindings: the tree view and the palette write them.
#[derive(Clone, Copy)]
pub struct TreeSelection {
    pub filter: RwSignal<String>,
    pub selected: RwSignal<Option<ResourceId>>,
    pub selected_subresource: RwSignal<Option<String>>,
    pub expanded: RwSignal<HashSet<NodeKey>>,
}

/// What `use_shell` gives the shell's views.
#[derive(Clone, Copy)]
pub struct UseShellReturn {
    pub discovery: DiscoveryState,
    pub navigation: Navigation,
    pub page: Signal<Page>,
    pub namespace: Signal<Option<String>>,
    /// The namespaces to choose from; None: they cannot be listed (the user types one).
    pub namespaces: Signal<Option<Vec<String>>>,
    pub tree: Signal<ApiTree>,
    pub shown: Signal<Shown>,
    /// Why the page shown is in a namespace the user did not choose, while it is.
    pub fallback_note: Signal<Option<String>>,
    /// Milliseconds from navigation start until the tree was first painted.
    pub ready_ms: Signal<Option<f64>>,
    /// Whether the deferred parts of the shell are drawn.
    pub extras_due: Signal<bool>,
    pub selection: TreeSelection,
    /// The objects the open streams hold, for the palette.
    pub loaded_objects: Callback<(), Vec<LoadedObject>>,
    pub choose_from_palette: Callback<PaletteTarget>,
    pub log: RwSignal<Vec<RequestRecord>>,
}

/// Installs the shared services (request log, clusters, watches, permissions, discovery,
/// navigation) and keeps the shell's state.
pub fn use_shell(options: UseShellOptions) -> UseShellReturn {
    let log = request_log::install();
    crate::state::clusters::Clusters::install();
    let hub = WatchHub::install();
    let permissions = PermissionsState::install();
    let discovery = DiscoveryState::new();
    provide_context(discovery);
    discovery.start();
    crate::state::metrics::MetricsHubSlot::provide(discovery);
    crate::state::forwards::ForwardsHubSlot::provide();
    let navigation = Navigation::install();
    let page = navigation.page;
    let namespace = Signal::derive(move || page.with(|p| p.namespace().map(str::to_string)));
    let namespaces = RwSignal::new(Some(Vec::<String>::new()));
    provide_context(KnownNamespaces(namespaces));

    let tree: Memo<ApiTree> = Memo::new(move |_| {
        discovery.loaded.with(|l| {
            l.as_ref()
                .map(|l| l.discovery.tree.clone())
                .unwrap_or_default()
        })
    });
    let selection = use_tree_selection(navigation);
    let screen = Memo::new(move |_| page.with(Page::screen));
    // A memo, so a discovery refresh (a CRD added, a reconnect) that leaves the screen as it
    // was does not build the open page again (which would throw away what the user is doing
    // in it, an open editor included).
    let shown = Memo::new(move |_| {
        if let Some(error) = discovery.fatal.get() {
            return Shown::Failed(error.to_string());
        }
        if discovery.loaded.with(Option::is_none) {
            return Shown::Loading;
        }
        Shown::Screen(screen.get())
    });
    let fallback = use_namespace_fallback(navigation, tree.into(), permissions);
    let fallback_note = Signal::derive(move || {
        let (fallen_back, text) = fallback.get()?;
        (screen.get() == fallen_back).then_some(text)
    });

    // Time from navigation start until the tree was first painted (read by `cargo xtask
    // bench`): effects run after the DOM update, and the time is taken after the next paint.
    let ready_ms = RwSignal::new(None::<f64>);
    let ready_pending = StoredValue::new(false);
    // The shell's other parts (`deferred`) are fetched and drawn once the tree is painted, or
    // once discovery failed, or after two seconds whatever happened, so neither their code
    // nor their drawing delays the tree.
    let extras_due = RwSignal::new(false);
    // Once only: setting it again would notify again, and the deferred parts (the palette
    // among them) would be drawn anew, losing what the user typed in them.
    let make_extras_due = move || {
        if !extras_due.get_untracked() {
            extras_due.set(true);
        }
    };
    set_timeout(make_extras_due, options.extras_at_the_latest);
    Effect::new(move |_| {
        if discovery.fatal.with(Option::is_some) {
            make_extras_due();
        }
    });
    Effect::new(move |_| {
        let has_groups = tree.with(|t| !t.groups.is_empty());
        if has_groups && ready_ms.get_untracked().is_none() && !ready_pending.get_value() {
            ready_pending.set_value(true);
            crate::browser::after_next_paint("kube-atlas:tree-painted", move |ms| {
                ready_ms.set(Some(ms));
                make_extras_due();
            });
        }
    });
    keep_namespaces(namespaces, tree.into(), extras_due.into());

    let TreeSelection {
        selected,
        selected_subresource,
        expanded,
        ..
    } = selection;
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
            navigation.go(page.get_untracked().with_namespace(namespace));
        }
    });
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

    UseShellReturn {
        discovery,
        navigation,
        page: page.into(),
        namespace,
        namespaces: namespaces.into(),
        tree: tree.into(),
        shown: shown.into(),
        fallback_note,
        ready_ms: ready_ms.into(),
        extras_due: extras_due.into(),
        selection,
        loaded_objects,
        choose_from_palette,
        log,
    }
}

/// The tree's selection, kept in step with the page both ways.
fn use_tree_selection(navigation: Navigation) -> TreeSelection {
    let page = navigation.page;
    let initial = page.get_untracked();
    let selected = RwSignal::new(initial.resource().cloned());
    let selected_subresource = RwSignal::new(None::<String>);
    let expanded: RwSignal<HashSet<NodeKey>> = RwSignal::new(
        initial
            .resource()
            .map(|id| ancestors_of(id).into_iter().collect())
            .unwrap_or_default(),
    );
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
    TreeSelection {
        filter: RwSignal::new(String::new()),
        selected,
        selected_subresource,
        expanded,
    }
}
