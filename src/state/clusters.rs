//! Several clusters behind kube-atlas: which one the page is on (its URL's `?cluster=`), the
//! API prefix that follows from it, and every cluster's connection state, asked again every
//! few seconds for the switcher. Under `kubectl proxy` or the demo cluster there is no list
//! and nothing changes.

use std::cell::RefCell;
use std::time::Duration;

use leptos::prelude::*;

use crate::api;
use crate::model::api::clusters::{
    api_prefix, choose_cluster, cluster_in_query, query_for_cluster, ClusterEntry,
};

/// The element kube-atlas writes the cluster list into (`kube_atlas_server::routing`).
const CLUSTER_LIST_ELEMENT_ID: &str = "kube-atlas-clusters";

/// How often kube-atlas is asked for the clusters' states.
const REFRESH: Duration = Duration::from_secs(5);

thread_local! {
    // What [`detect`] found before the app mounted.
    static DETECTED: RefCell<Option<(Vec<ClusterEntry>, String)>> = const { RefCell::new(None) };
}

/// Reads the clusters kube-atlas wrote into the page it served (the `/clusters` answer in a
/// JSON script element; no request, so the first API request is not held up by a round trip)
/// and puts the page on the cluster its URL names (else the first connected one) by setting
/// the API prefix. Runs once, before the app mounts. Under `kubectl proxy` or the demo
/// cluster the element is absent and nothing changes.
pub fn detect() {
    let Some(entries) = crate::browser::element_text(CLUSTER_LIST_ELEMENT_ID)
        .and_then(|text| crate::model::api::clusters::parse_cluster_list(&text))
    else {
        return;
    };
    let search = web_sys::window()
        .and_then(|window| window.location().search().ok())
        .unwrap_or_default();
    let Some(current) = choose_cluster(&entries, cluster_in_query(&search).as_deref()) else {
        return;
    };
    api::set_base(api_prefix(&current));
    // kube-atlas carries the page's watches on one socket (no six-connection limit).
    api::multiplex::enable(current.clone());
    DETECTED.with(|detected| *detected.borrow_mut() = Some((entries, current)));
}

/// The page's cluster behind kube-atlas; none with one cluster.
pub fn current_cluster() -> Option<String> {
    DETECTED.with(|detected| {
        detected
            .borrow()
            .as_ref()
            .map(|(_, current)| current.clone())
    })
}

/// The clusters kube-atlas serves, provided as context when it serves the page.
#[derive(Clone, Copy)]
pub struct Clusters {
    /// Every context with its state, refreshed every [`REFRESH`].
    pub entries: RwSignal<Vec<ClusterEntry>>,
    /// The page's cluster.
    pub current: StoredValue<String>,
}

impl Clusters {
    /// Provides the clusters found by [`detect`] and keeps their states fresh; `None` (and
    /// nothing provided) when the page has one cluster.
    pub fn install() -> Option<Clusters> {
        let (entries, current) = DETECTED.with(|detected| detected.borrow().clone())?;
        let clusters = Clusters {
            entries: RwSignal::new(entries),
            current: StoredValue::new(current),
        };
        provide_context(clusters);
        leptos::task::spawn_local(async move {
            loop {
                gloo_timers::future::sleep(REFRESH).await;
                if let Some(fresh) = api::cluster_list().await {
                    if clusters.entries.try_set(fresh).is_some() {
                        return;
                    }
                }
            }
        });
        Some(clusters)
    }

    /// The page's cluster's entry, as last reported.
    pub fn current_entry(&self) -> Option<ClusterEntry> {
        let current = self.current.get_value();
        self.entries
            .with(|entries| entries.iter().find(|entry| entry.name == current).cloned())
    }

    /// Opens the same screen on `cluster` (a new page: every stream, cache and permission is
    /// the cluster's own).
    pub fn switch_to(&self, cluster: &str) {
        if cluster == self.current.get_value() {
            return;
        }
        if let Some(window) = web_sys::window() {
            let _ = window.location().set_search(&query_for_cluster(cluster));
        }
    }
}

/// The clusters when kube-atlas serves the page.
pub fn use_clusters() -> Option<Clusters> {
    use_context::<Clusters>()
}

/// Where the page's cluster's API is, for URLs shown to the user (curl): "" or
/// `/clusters/{context}`.
pub fn api_base() -> String {
    api::base()
}

/// The object at `path` on kube-atlas's context `cluster` (its API read there, with that
/// context's credentials); `Ok(None)` when that cluster has no such object (404).
pub async fn read_on_cluster(
    path: &str,
    cluster: &str,
) -> Result<Option<serde_json::Value>, api::ApiError> {
    let request = api::ApiRequest::get(path).on_cluster(Some(cluster.to_string()));
    match api::send(&request, None).await {
        Ok(fetched) => serde_json::from_str(&fetched.body)
            .map(Some)
            .map_err(|e| api::ApiError::Unreachable(format!("the answer is not JSON: {e}"))),
        Err(error) if error.code() == Some(404) => Ok(None),
        Err(error) => Err(error),
    }
}
