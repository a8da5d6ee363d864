//! Discovery state: the current tree, the connection, and live refresh (a watch on
//! CustomResourceDefinitions through the shared watch layer, plus cheap ETag polling of
//! aggregated discovery).

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::discovery::{self, DiscoveryLoadError};
// What a discovery load found, as the views show it.
pub use crate::api::discovery::LoadedDiscovery;
use crate::model::watch::{Output, WatchKey, WatchStore};
use crate::model::ApiTree;
use crate::split::split_point;
use crate::state::watch::use_watch_objects;

/// Connection to the API server as the header shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Connection {
    Connecting,
    Connected,
    /// Last request failed; the tree shown (if any) is the last good one.
    Lost(String),
}

#[derive(Clone, Copy)]
pub struct DiscoveryState {
    /// The last successfully loaded discovery.
    pub loaded: RwSignal<Option<LoadedDiscovery>>,
    /// Set when loading failed and nothing could be shown.
    pub fatal: RwSignal<Option<DiscoveryLoadError>>,
    pub connection: RwSignal<Connection>,
    pub server_version: RwSignal<Option<String>>,
    /// A refresh is already scheduled (bursts of CRD events share it).
    refresh_pending: StoredValue<bool>,
}

const CRD_COLLECTION: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
/// Safety net for changes no watch announces (aggregated API servers coming and going).
const POLL_INTERVAL_MS: u32 = 15_000;

impl DiscoveryState {
    /// The API tree as loaded now (empty before the first load), for views built once.
    pub fn tree_now(&self) -> ApiTree {
        self.loaded
            .with_untracked(|l| l.as_ref().map(|l| l.discovery.tree.clone()))
            .unwrap_or_default()
    }

    pub fn new() -> Self {
        DiscoveryState {
            loaded: RwSignal::new(None),
            fatal: RwSignal::new(None),
            connection: RwSignal::new(Connection::Connecting),
            server_version: RwSignal::new(None),
            refresh_pending: StoredValue::new(false),
        }
    }

    /// Loads discovery and the server version, then keeps the tree live.
    pub fn start(self) {
        // The CRD watch belongs to the app, not to whichever view is current.
        let owner = Owner::current();
        spawn_local(async move {
            self.reload().await;
            // The server version (the header's) and the CRD watch, which lists every CRD:
            // after the tree is painted, not before. The watch's code (the watch stack) is
            // fetched then too; without it the ETag polling below still catches new
            // resources, only later.
            crate::browser::painted_or_after(1_000).await;
            spawn_local(async move {
                if let Ok(version) = discovery::server_version().await {
                    self.server_version.set(Some(version));
                }
            });
            if self.serves_crds() {
                if let Err(error) = kube_atlas_crd_watch(self, owner).await {
                    leptos::logging::warn!("the live CRD watch could not be loaded: {error}");
                }
            }
            self.poll_etag().await;
        });
    }

    /// Fetches discovery again; on failure keeps what is shown and reports the connection.
    pub async fn reload(self) {
        match discovery::load().await {
            Ok(loaded) => {
                self.connection.set(Connection::Connected);
                self.fatal.set(None);
                let changed = self.loaded.with_untracked(|current| {
                    current.as_ref().map(|c| &c.discovery) != Some(&loaded.discovery)
                });
                if changed {
                    self.loaded.set(Some(loaded));
                    crate::browser::mark("kube-atlas:discovery-set");
                }
            }
            Err(error) => {
                self.connection.set(Connection::Lost(error.to_string()));
                if self.loaded.with_untracked(Option::is_none) {
                    self.fatal.set(Some(error));
                }
            }
        }
    }

    fn serves_crds(self) -> bool {
        self.loaded.with_untracked(|loaded| {
            loaded.as_ref().is_some_and(|l| {
                l.discovery
                    .tree
                    .group("apiextensions.k8s.io")
                    .and_then(|g| g.version("v1"))
                    .and_then(|v| v.resource("customresourcedefinitions"))
                    .is_some_and(|r| r.supports("watch"))
            })
        })
    }

    /// Watches CRDs through the shared watch layer (metadata only: the resources themselves
    /// come from discovery); every change after the first list refreshes discovery.
    fn watch_crds(self) {
        let live = use_watch_objects(WatchKey::new(CRD_COLLECTION, Output::Metadata));
        let store = live.store;
        Effect::new(move |previous: Option<u64>| {
            let revision = store.with(|crds| crds.revision());
            // Revision 1 is the first list: discovery was just loaded.
            if previous.is_some_and(|p| p != revision) && revision > 1 {
                self.refresh_soon();
            }
            revision
        });
    }

    /// One refresh for a burst of CRD events (ADDED, then MODIFIED once Established).
    fn refresh_soon(self) {
        if self.refresh_pending.get_value() {
            return;
        }
        self.refresh_pending.set_value(true);
        spawn_local(async move {
            TimeoutFuture::new(250).await;
            self.refresh_pending.set_value(false);
            self.reload().await;
            // Discovery can lag the Established condition a little: one cheap ETag check
            // (a 304 when nothing changed) catches that.
            TimeoutFuture::new(1_000).await;
            self.refresh_if_changed().await;
        });
    }

    /// Reloads when aggregated discovery's ETag changed (or there is no ETag to compare).
    async fn refresh_if_changed(self) {
        let etag = self
            .loaded
            .with_untracked(|l| l.as_ref().and_then(|l| l.apis_etag.clone()));
        match etag {
            Some(etag) => match discovery::apis_changed(&etag).await {
                Ok(true) => self.reload().await,
                Ok(false) => self.connection.set(Connection::Connected),
                Err(error) => self.connection.set(Connection::Lost(error.to_string())),
            },
            None => self.reload().await,
        }
    }

    async fn poll_etag(self) {
        loop {
            TimeoutFuture::new(POLL_INTERVAL_MS).await;
            self.refresh_if_changed().await;
        }
    }
}

split_point!(
    /// The live CRD watch of [`DiscoveryState::watch_crds`], under `owner` (the app's: the
    /// watch belongs to the app, not to whichever view is current).
    kube_atlas_crd_watch(state: DiscoveryState, owner: Option<Owner>) -> () {
        match owner {
            Some(owner) => owner.with(|| state.watch_crds()),
            None => state.watch_crds(),
        }
    }
);

impl Default for DiscoveryState {
    fn default() -> Self {
        Self::new()
    }
}
