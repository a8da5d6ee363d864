//! Whether and where the metrics API is served: found in discovery, never assumed.
//!
//! metrics-server registers `metrics.k8s.io` with kube-apiserver's aggregator (an
//! `APIService`). Discovery lists the group while the APIService exists, even when nothing
//! answers behind it: aggregated discovery then marks its version `Stale`, the legacy walk's
//! request for `/apis/metrics.k8s.io/v1beta1` fails (503), and every request answers 503.
//! Any of those, or the group missing, is "no metrics API", said in one sentence.

use crate::api::tree::{ApiTree, Discovery, TreeErrorKind};

/// The metrics API's group.
pub const METRICS_GROUP: &str = "metrics.k8s.io";

/// What the dashboard says, once, where usage would be.
pub const NO_METRICS_API: &str = "no metrics API: install metrics-server";

/// Where the metrics API is served, if it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetricsApi {
    /// Served at this version (the server's preferred one), with these resources.
    Served {
        version: String,
        /// `pods` (PodMetrics) can be listed.
        pods: bool,
        /// `nodes` (NodeMetrics) can be listed.
        nodes: bool,
    },
    /// Not usable; the reason in words (starts with [`NO_METRICS_API`]).
    Missing { reason: String },
}

impl MetricsApi {
    pub fn is_served(&self) -> bool {
        matches!(self, MetricsApi::Served { .. })
    }

    /// `/apis/metrics.k8s.io/v1beta1` when served.
    pub fn base_path(&self) -> Option<String> {
        match self {
            MetricsApi::Served { version, .. } => Some(format!("/apis/{METRICS_GROUP}/{version}")),
            MetricsApi::Missing { .. } => None,
        }
    }

    /// The PodMetrics collection, in one namespace or all (`None`); `None` when pods are not
    /// served.
    pub fn pods_path(&self, namespace: Option<&str>) -> Option<String> {
        let base = self.base_path()?;
        match (self, namespace) {
            (MetricsApi::Served { pods: false, .. }, _) => None,
            (_, Some(ns)) => Some(format!("{base}/namespaces/{ns}/pods")),
            (_, None) => Some(format!("{base}/pods")),
        }
    }

    /// One pod's PodMetrics.
    pub fn pod_path(&self, namespace: &str, name: &str) -> Option<String> {
        Some(format!("{}/{name}", self.pods_path(Some(namespace))?))
    }

    /// The NodeMetrics collection; `None` when nodes are not served.
    pub fn nodes_path(&self) -> Option<String> {
        match self {
            MetricsApi::Served { nodes: false, .. } => None,
            _ => Some(format!("{}/nodes", self.base_path()?)),
        }
    }

    /// What to say instead of usage (None when served).
    pub fn reason(&self) -> Option<&str> {
        match self {
            MetricsApi::Served { .. } => None,
            MetricsApi::Missing { reason } => Some(reason),
        }
    }
}

fn missing(detail: &str) -> MetricsApi {
    MetricsApi::Missing {
        reason: if detail.is_empty() {
            NO_METRICS_API.to_string()
        } else {
            format!("{NO_METRICS_API} ({detail})")
        },
    }
}

/// The metrics API in a tree: the preferred version of `metrics.k8s.io` that lists pods or
/// nodes, unless aggregated discovery marked it `Stale` (its server does not answer).
pub fn metrics_api(tree: &ApiTree) -> MetricsApi {
    let Some(group) = tree.group(METRICS_GROUP) else {
        return missing("");
    };
    let Some(version) = group.preferred() else {
        return missing("");
    };
    if version.freshness_stale {
        return missing(&format!(
            "{METRICS_GROUP}/{} is unavailable",
            version.version
        ));
    }
    let listable = |plural: &str| version.resource(plural).is_some_and(|r| r.supports("list"));
    let (pods, nodes) = (listable("pods"), listable("nodes"));
    if !pods && !nodes {
        return missing(&format!(
            "{METRICS_GROUP}/{} lists neither pods nor nodes",
            version.version
        ));
    }
    MetricsApi::Served {
        version: version.version.clone(),
        pods,
        nodes,
    }
}

/// The metrics API in a whole discovery: as [`metrics_api`], and missing when the legacy
/// walk could not read the group's version document (its APIService answered 503).
pub fn metrics_api_in(discovery: &Discovery) -> MetricsApi {
    let api = metrics_api(&discovery.tree);
    if api.is_served() {
        return api;
    }
    let failed = discovery.errors.for_group(METRICS_GROUP).find(|e| {
        matches!(
            e.kind,
            TreeErrorKind::Fetch | TreeErrorKind::Stale | TreeErrorKind::NotFetched
        )
    });
    match failed {
        Some(error) => missing(&format!("{METRICS_GROUP}/{} is unavailable", error.version)),
        None => api,
    }
}

/// What a metrics request's answer says of the API: 404 (not served) and 503 (its APIService
/// unavailable) mean it is missing, and polling stops; anything else is one failed request.
pub fn missing_after_status(status: u16) -> Option<MetricsApi> {
    match status {
        404 => Some(missing("the server answered 404 Not Found")),
        503 => Some(missing("the metrics API answered 503 Service Unavailable")),
        _ => None,
    }
}
