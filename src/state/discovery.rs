//! Discovery state: the current tree, the connection, and live refresh (a watch on
//! CustomResourceDefinitions plus cheap ETag polling of aggregated discovery).

use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::discovery::{self, DiscoveryLoadError, LoadedDiscovery};
use std::ops::ControlFlow;

use crate::api::{self, watch};
use crate::model::watch::{self as watcher, decode_event, WatcherCommand, WatcherInput};

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

    /// Watches CRDs with the watcher state machine (list, watch from the list's version,
    /// re-watch on a clean end, relist on 410); every CRD change refreshes discovery.
    async fn watch_crds(self) {
        let (mut state, mut command) = watcher::start();
        let mut backoff_ms = 0u32;
        while self.serves_crds() {
            let wait = matches!(
                command,
                WatcherCommand::List {
                    after_backoff: true
                } | WatcherCommand::Watch {
                    after_backoff: true,
                    ..
                }
            );
            backoff_ms = if wait {
                (backoff_ms * 2).clamp(1_000, 30_000)
            } else {
                0
            };
            if backoff_ms > 0 {
                TimeoutFuture::new(backoff_ms).await;
            }
            let input = match command.clone() {
                WatcherCommand::Continue | WatcherCommand::List { .. } => list_crds().await,
                WatcherCommand::Watch {
                    resource_version, ..
                } => {
                    let path = format!(
                        "{CRD_COLLECTION}?watch=true&allowWatchBookmarks=true&resourceVersion={resource_version}"
                    );
                    let mut current = state.clone();
                    let mut next_command = None;
                    let end = watch::run(&path, |text| {
                        let input = match decode_event(text) {
                            Ok(event) => WatcherInput::Event(event),
                            Err(error) => WatcherInput::Garbage(error.to_string()),
                        };
                        let stepped = watcher::step(&current, input);
                        current = stepped.state;
                        if stepped.change.is_some() {
                            self.refresh_soon();
                        }
                        if stepped.command == WatcherCommand::Continue {
                            ControlFlow::Continue(())
                        } else {
                            next_command = Some(stepped.command);
                            ControlFlow::Break(())
                        }
                    })
                    .await;
                    state = current;
                    if let Some(next) = next_command {
                        command = next;
                        continue;
                    }
                    match end {
                        watch::WatchEnd::Failed(error) => WatcherInput::StreamFailed(error),
                        watch::WatchEnd::Closed | watch::WatchEnd::Stopped => {
                            WatcherInput::StreamEnded
                        }
                    }
                }
            };
            let stepped = watcher::step(&state, input);
            state = stepped.state;
            command = stepped.command;
        }
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

impl Default for DiscoveryState {
    fn default() -> Self {
        Self::new()
    }
}

/// Lists CRDs for the version to watch from (the items themselves come from discovery).
async fn list_crds() -> WatcherInput {
    match api::get(CRD_COLLECTION, "application/json").await {
        Ok(fetched) => {
            let value: serde_json::Value = serde_json::from_str(&fetched.body).unwrap_or_default();
            let resource_version = value
                .pointer("/metadata/resourceVersion")
                .and_then(|r| r.as_str())
                .unwrap_or_default()
                .to_string();
            let items = value
                .get("items")
                .and_then(|i| i.as_array())
                .cloned()
                .unwrap_or_default();
            WatcherInput::Listed {
                items,
                resource_version,
            }
        }
        Err(error) => WatcherInput::ListFailed(error.to_string()),
    }
}
