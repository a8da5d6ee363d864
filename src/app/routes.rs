//! The router: which page each screen builds (`Page::screen`: a new list or object is a new
//! page; sort, filter, wide and tab are read by the page itself). A new page is one arm here
//! (and its split point in `pages::chunks`).

use leptos::prelude::*;

use crate::model::navigation::route::Page;
use crate::pages::chunks::{self, PageLoadError};
use crate::pages::{ListIdentity, ObjectIdentity};
use crate::split::loaded_with;
use crate::state::shell::UseShellReturn;

/// The page of a screen, loaded from its split point.
pub(super) fn screen_view(screen: Page, shell: &UseShellReturn) -> AnyView {
    match screen {
        Page::Overview(route) => {
            lazily_loaded(move || chunks::kube_atlas_overview_page(route.namespace.clone()))
        }
        // The API page describes the tree: drawn after the tree's first paint, never
        // delaying it.
        Page::Home(_) => {
            let selection = shell.selection;
            let namespace = shell.namespace;
            lazily_loaded(move || async move {
                crate::browser::painted_or_after(500).await;
                chunks::kube_atlas_api_page(
                    selection.selected,
                    selection.selected_subresource,
                    namespace,
                )
                .await
            })
        }
        Page::ResourceList(route) => {
            let identity = ListIdentity::of(&route);
            lazily_loaded(move || chunks::kube_atlas_list_page(identity.clone()))
        }
        Page::Object(route) => {
            let identity = ObjectIdentity::of(&route);
            lazily_loaded(move || chunks::kube_atlas_object_page(identity.clone()))
        }
        Page::Events(route) => lazily_loaded(move || chunks::kube_atlas_events_page(route.clone())),
        Page::Permissions(route) => {
            lazily_loaded(move || chunks::kube_atlas_permissions_page(route.namespace.clone()))
        }
        Page::Map(route) => lazily_loaded(move || chunks::kube_atlas_map_page(route.clone())),
        Page::Replay => lazily_loaded(chunks::kube_atlas_replay_page),
        Page::Create(route) => lazily_loaded(move || chunks::kube_atlas_create_page(route.clone())),
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
