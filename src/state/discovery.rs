//! Discovery state: the current tree, the connection, and live refresh (a watch on
//! CustomResourceDefinitions plus cheap ETag polling of aggregated discovery).

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::discovery::{self, DiscoveryLoadError, LoadedDiscovery};
use crate::api::{self, watch};

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
}

const CRD_COLLECTION: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
/// Safety net for changes no watch announces (aggregated API servers coming and going).
const POLL_INTERVAL_MS: u32 = 15_000;

impl DiscoveryState {
    pub fn new() -> Self {
        DiscoveryState {
            loaded: RwSignal::new(None),
            fatal: RwSignal::new(None),
            connection: RwSignal::new(Connection::Connecting),
            server_version: RwSignal::new(None),
        }
    }

    /// Loads discovery and the server version, then keeps the tree live.
    pub fn start(self) {
        spawn_local(async move {
            if let Ok(version) = discovery::server_version().await {
                self.server_version.set(Some(version));
            }
        });
        spawn_local(async move {
            self.reload().await;
            spawn_local(self.watch_crds());
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

    /// Watches CRDs from the current resourceVersion; every change refreshes discovery.
    async fn watch_crds(self) {
        let mut backoff_ms = 1_000;
        while self.serves_crds() {
            let resource_version =
                match api::get(&format!("{CRD_COLLECTION}?limit=1"), "application/json").await {
                    Ok(fetched) => serde_json::from_str::<serde_json::Value>(&fetched.body)
                        .ok()
                        .and_then(|v| {
                            v.pointer("/metadata/resourceVersion")
                                .and_then(|r| r.as_str())
                                .map(str::to_string)
                        }),
                    Err(_) => None,
                };
            let Some(resource_version) = resource_version else {
                TimeoutFuture::new(backoff_ms).await;
                backoff_ms = (backoff_ms * 2).min(30_000);
                continue;
            };
            let path = format!(
                "{CRD_COLLECTION}?watch=true&allowWatchBookmarks=true&resourceVersion={resource_version}"
            );
            let mut changes = 0u32;
            let end = watch::run(&path, |event| {
                if !event.contains("\"BOOKMARK\"") {
                    changes += 1;
                    // A new CRD is served once Established, which lands a moment after the
                    // ADDED event: refresh now and again shortly after.
                    spawn_local(async move {
                        self.reload().await;
                        TimeoutFuture::new(700).await;
                        self.reload().await;
                    });
                }
            })
            .await;
            if changes > 0 || end == watch::WatchEnd::Closed {
                backoff_ms = 1_000;
            }
            TimeoutFuture::new(backoff_ms).await;
            backoff_ms = (backoff_ms * 2).min(30_000);
        }
    }

    async fn poll_etag(self) {
        loop {
            TimeoutFuture::new(POLL_INTERVAL_MS).await;
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
    }
}

impl Default for DiscoveryState {
    fn default() -> Self {
        Self::new()
    }
}
