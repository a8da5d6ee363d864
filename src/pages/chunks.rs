//! Every page of the main pane, each behind a split point (`crate::split`): in release builds
//! each is a wasm module of its own, fetched the first time the page is opened, so page start
//! loads only the shell with its sidebar tree (the YAML parser, the editor, the tables and
//! timelines come later).
//!
//! Each returns the page already built, or the loader's error when its module could not be
//! fetched (the network dropped while navigating): the shell shows that with a retry rather
//! than failing the whole app.

use crate::split::split_view;
pub use crate::split::LoadError as PageLoadError;
use leptos::prelude::*;

use super::{
    CreatePage, EventsPage, HomePage, ListIdentity, MapPage, ObjectIdentity, ObjectPage,
    OverviewPage, PermissionsPage, ReplayPage, ResourceListPage,
};
use crate::model::navigation::route::{CreateRoute, EventsRoute, MapRoute};
use crate::model::ResourceId;

split_view!(
    /// A resource's list (tables, live rows, selectors).
    kube_atlas_list_page(identity: ListIdentity) => view! { <ResourceListPage identity=identity/> }
);
split_view!(
    /// One object: overview, YAML, editor, timeline, logs.
    kube_atlas_object_page(identity: ObjectIdentity) => view! { <ObjectPage identity=identity/> }
);
split_view!(
    /// The Event objects timeline.
    kube_atlas_events_page(route: EventsRoute) => view! { <EventsPage route=route/> }
);
split_view!(
    /// The map of how a namespace's objects connect.
    kube_atlas_map_page(route: MapRoute) => view! { <MapPage route=route/> }
);
split_view!(
    /// The replay of a recording.
    kube_atlas_replay_page() => view! { <ReplayPage/> }
);
split_view!(
    /// Creating objects from YAML.
    kube_atlas_create_page(route: CreateRoute) => view! { <CreatePage route=route/> }
);
split_view!(
    /// What the user may do in a namespace.
    kube_atlas_permissions_page(namespace: Option<String>) => view! { <PermissionsPage namespace=namespace/> }
);
split_view!(
    /// The cluster overview (the landing page).
    kube_atlas_overview_page(namespace: Option<String>) => view! { <OverviewPage namespace=namespace/> }
);
split_view!(
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
