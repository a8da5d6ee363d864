//! Every page of the main pane, each behind a split point: with the `split` feature (release
//! builds by `cargo xtask build`) each is a wasm module of its own, fetched the first time the
//! page is opened, so page start loads only the shell with its sidebar tree (the YAML parser, the editor, the tables and timelines come later). Without it (development,
//! tests of components) the same functions are plain `async fn`s that are ready at once.
//!
//! Each returns the page already built, or the loader's error when its module could not be
//! fetched (the network dropped while navigating): the shell shows that with a retry rather
//! than failing the whole app.

use leptos::prelude::*;
pub use leptos::wasm_split::SplitLoaderError as PageLoadError;

use super::{
    CreatePage, EventsPage, HomePage, ListIdentity, ObjectIdentity, ObjectPage, OverviewPage,
    PermissionsPage, ReplayPage, ResourceListPage,
};
use crate::model::route::{CreateRoute, EventsRoute};
use crate::model::ResourceId;

/// Declares one page's entry point. The page is built without tracking: the shell awaits it
/// inside a `Suspend`, which would otherwise rebuild the page whenever a signal read while
/// building it changed.
macro_rules! page_chunk {
    ($(#[doc = $doc:literal])* $name:ident ($($arg:ident: $ty:ty),*) => $page:expr) => {
        $(#[doc = $doc])*
        #[cfg(feature = "split")]
        #[leptos::wasm_split::wasm_split($name, wasm_split_path = ::leptos::wasm_split, fallible)]
        pub fn $name($($arg: $ty),*) -> Result<AnyView, PageLoadError> {
            Ok(untrack(move || $page.into_any()))
        }

        $(#[doc = $doc])*
        #[cfg(not(feature = "split"))]
        pub async fn $name($($arg: $ty),*) -> Result<AnyView, PageLoadError> {
            Ok(untrack(move || $page.into_any()))
        }
    };
}

page_chunk!(
    /// A resource's list (tables, live rows, selectors).
    kube_atlas_list_page(identity: ListIdentity) => view! { <ResourceListPage identity=identity/> }
);
page_chunk!(
    /// One object: overview, YAML, editor, timeline, logs.
    kube_atlas_object_page(identity: ObjectIdentity) => view! { <ObjectPage identity=identity/> }
);
page_chunk!(
    /// The Event objects timeline.
    kube_atlas_events_page(route: EventsRoute) => view! { <EventsPage route=route/> }
);
page_chunk!(
    /// The replay of a recording.
    kube_atlas_replay_page() => view! { <ReplayPage/> }
);
page_chunk!(
    /// Creating objects from YAML.
    kube_atlas_create_page(route: CreateRoute) => view! { <CreatePage route=route/> }
);
page_chunk!(
    /// What the user may do in a namespace.
    kube_atlas_permissions_page(namespace: Option<String>) => view! { <PermissionsPage namespace=namespace/> }
);
page_chunk!(
    /// The cluster overview (the landing page).
    kube_atlas_overview_page(namespace: Option<String>) => view! { <OverviewPage namespace=namespace/> }
);
page_chunk!(
    /// The API hierarchy: what discovery found, or the explorer of the resource chosen in the
    /// tree (the tree itself is the sidebar, part of the shell).
    kube_atlas_api_page(
        selected: RwSignal<Option<ResourceId>>,
        selected_subresource: RwSignal<Option<String>>,
        namespace: Signal<Option<String>>
    ) => view! {
        <HomePage selected=selected selected_subresource=selected_subresource namespace=namespace/>
    }
);
