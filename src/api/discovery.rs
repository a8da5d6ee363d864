//! Loading discovery: aggregated first (`/api` and `/apis` in parallel, one round trip), the
//! legacy N+2 walk when the server does not aggregate. Parsing and tree building live in
//! `model::api::discovery`; this module only fetches.

use futures::future::{join, join_all};

use super::{get, ApiError, Fetched};
pub use crate::model::api::errors::{classify_discovery_failure as classify, DiscoveryLoadError};
use crate::model::{
    api::discovery::parse_api_root, api::discovery::parse_apis_root,
    api::discovery::tree_from_aggregated, api::discovery::ApiRootDoc, api::discovery::ApisRootDoc,
    api::discovery::LegacyWalkPlan, api::discovery::DISCOVERY_ACCEPT, api::tree::Discovery,
};

/// Discovery as loaded, with what the header and the live refresh need.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedDiscovery {
    pub discovery: Discovery,
    pub aggregated: bool,
    /// ETag of `/apis` (aggregated), used to poll for changes cheaply.
    pub apis_etag: Option<String>,
    pub requests: usize,
}

fn require(path: &str, fetched: Result<Fetched, ApiError>) -> Result<Fetched, DiscoveryLoadError> {
    fetched.map_err(|e| classify(path, e))
}

/// Loads the whole tree.
pub async fn load() -> Result<LoadedDiscovery, DiscoveryLoadError> {
    crate::browser::mark("kube-atlas:discovery-asked");
    let (api, apis) = join(
        get("/api", DISCOVERY_ACCEPT),
        get("/apis", DISCOVERY_ACCEPT),
    )
    .await;
    let api = require("/api", api)?;
    let apis = require("/apis", apis)?;
    crate::browser::mark("kube-atlas:discovery-received");
    let mut requests = 2;
    let api_doc = parse_api_root(&api.content_type, &api.body)
        .map_err(|e| DiscoveryLoadError::NotKubernetes(e.to_string()))?;
    let apis_doc = parse_apis_root(&apis.content_type, &apis.body)
        .map_err(|e| DiscoveryLoadError::NotKubernetes(e.to_string()))?;

    // As client-go does: the aggregated form is used only when both roots came back
    // aggregated; otherwise walk the legacy documents.
    let (api_doc, apis_doc) = match (api_doc, apis_doc) {
        (ApiRootDoc::Aggregated(core), ApisRootDoc::Aggregated(named)) => {
            let discovery = tree_from_aggregated(Some(core), named);
            crate::browser::mark("kube-atlas:discovery-parsed");
            return Ok(LoadedDiscovery {
                discovery,
                aggregated: true,
                apis_etag: apis.etag,
                requests,
            });
        }
        both => both,
    };
    let api_versions = match api_doc {
        ApiRootDoc::Legacy(doc) => doc,
        ApiRootDoc::Aggregated(_) => {
            requests += 1;
            let plain = require("/api", get("/api", "application/json").await)?;
            crate::model::api::discovery::parse_api_versions(&plain.body)
                .map_err(|e| DiscoveryLoadError::NotKubernetes(e.to_string()))?
        }
    };
    let group_list = match apis_doc {
        ApisRootDoc::Legacy(doc) => doc,
        ApisRootDoc::Aggregated(_) => {
            requests += 1;
            let plain = require("/apis", get("/apis", "application/json").await)?;
            crate::model::api::discovery::parse_group_list(&plain.body)
                .map_err(|e| DiscoveryLoadError::NotKubernetes(e.to_string()))?
        }
    };
    let plan = LegacyWalkPlan::new(Some(&api_versions), &group_list);
    let urls: Vec<String> = plan.urls().map(str::to_string).collect();
    requests += urls.len();
    let results = join_all(urls.iter().map(|url| get(url, "application/json"))).await;
    let mut builder = plan.builder();
    for (url, result) in urls.iter().zip(results) {
        let outcome = match &result {
            Ok(fetched) => Ok(fetched.body.as_str()),
            Err(error) => Err(error.to_string()),
        };
        // Every URL came from the plan, so this cannot fail; ignore rather than panic.
        let _ = builder.add_url_result(url, outcome);
    }
    Ok(LoadedDiscovery {
        discovery: builder.finish(),
        aggregated: false,
        apis_etag: None,
        requests,
    })
}

/// Asks whether aggregated `/apis` changed since `etag` (a 304 costs no body).
pub async fn apis_changed(etag: &str) -> Result<bool, ApiError> {
    let request = super::ApiRequest::get("/apis")
        .accept(DISCOVERY_ACCEPT)
        .header("If-None-Match", etag);
    let fetched = super::send(&request, None).await?;
    Ok(fetched.status != 304 && fetched.etag.as_deref() != Some(etag))
}

/// The server's `/version`, shown in the header.
pub async fn server_version() -> Result<String, ApiError> {
    let fetched = get("/version", "application/json").await?;
    let value: serde_json::Value = serde_json::from_str(&fetched.body).map_err(|e| {
        ApiError::bad_response(fetched.status, format!("/version is not JSON: {e}"))
    })?;
    Ok(value
        .get("gitVersion")
        .and_then(|v| v.as_str())
        .unwrap_or("unknown")
        .to_string())
}
