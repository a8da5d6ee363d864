//! The sidebar: the tree's filter, the kinds people open most, the group-versions discovery
//! could not read, and the API tree.

use leptos::prelude::*;

use crate::components::{ApiTreeView, QuickAccess};
use crate::model::api::tree::TreeErrorKind;
use crate::state::discovery::DiscoveryState;
use crate::state::shell::UseShellReturn;

/// The id of the tree's filter (`/` focuses it).
pub(super) const TREE_FILTER_ID: &str = "tree-filter";

#[component]
pub fn Sidebar(shell: UseShellReturn, app_started_ms: f64) -> impl IntoView {
    let UseShellReturn {
        tree,
        page,
        discovery,
        ready_ms,
        selection,
        ..
    } = shell;
    let filter = selection.filter;
    view! {
        <nav
            class="sidebar"
            aria-label="API hierarchy"
            data-ready-ms=move || ready_ms.get().map(|ms| format!("{ms:.1}"))
            data-app-ready-ms=move || ready_ms.get().map(|ms| format!("{:.1}", ms - app_started_ms))
        >
            <div class="sidebar-tools">
                <input
                    id=TREE_FILTER_ID
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
                tree=tree
                filter=filter
                selected=selection.selected
                selected_subresource=selection.selected_subresource
                expanded=selection.expanded
            />
        </nav>
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
