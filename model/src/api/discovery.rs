//! Discovery documents (legacy and aggregated) and their conversion into an [`ApiTree`].
//!
//! No IO here: the api layer fetches, this module parses and plans. Parsing never panics on
//! server data; every failure becomes a readable [`DiscoveryError`] or a per-group-version
//! [`TreeError`](crate::api::tree::TreeError).

use std::collections::HashMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::api::tree::{
    api_version, ApiGroup, ApiResource, ApiTree, Discovery, GroupVersion, GroupVersionRef,
    Subresource, TreeErrorKind, TreeErrors,
};

/// What clients send on `/api` and `/apis`: aggregated v2, then v2beta1, then legacy JSON.
pub const DISCOVERY_ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// A discovery document could not be used at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveryError {
    /// What was being parsed, e.g. `/apis/apps/v1 (APIResourceList)`.
    pub context: String,
    pub message: String,
}

impl DiscoveryError {
    fn new(context: impl Into<String>, message: impl Into<String>) -> Self {
        DiscoveryError {
            context: context.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for DiscoveryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.context, self.message)
    }
}

impl std::error::Error for DiscoveryError {}

// ---------------------------------------------------------------------------------------------
// Legacy documents (meta/v1 types.go)
// ---------------------------------------------------------------------------------------------

/// `GET /api`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiVersionsDoc {
    #[serde(default)]
    pub kind: String,
    pub versions: Vec<String>,
    #[serde(
        default,
        rename = "serverAddressByClientCIDRs",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub server_address_by_client_cidrs: Vec<ServerAddressByClientCidr>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerAddressByClientCidr {
    #[serde(rename = "clientCIDR", default)]
    pub client_cidr: String,
    #[serde(default)]
    pub server_address: String,
}

/// `GET /apis`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiGroupListDoc {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub api_version: String,
    pub groups: Vec<ApiGroupDoc>,
}

/// `GET /apis/{group}` and each entry of [`ApiGroupListDoc`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiGroupDoc {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub name: String,
    pub versions: Vec<GroupVersionForDiscovery>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_version: Option<GroupVersionForDiscovery>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupVersionForDiscovery {
    pub group_version: String,
    pub version: String,
}

/// `GET /api/v1`, `GET /apis/{group}/{version}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiResourceListDoc {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub api_version: String,
    pub group_version: String,
    #[serde(default)]
    pub resources: Vec<ApiResourceDoc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiResourceDoc {
    /// `pods`, or `pods/status` for a subresource.
    pub name: String,
    #[serde(default)]
    pub singular_name: String,
    #[serde(default)]
    pub namespaced: bool,
    /// Set only when the kind's group differs from the list's.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub verbs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_version_hash: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Aggregated documents (apidiscovery.k8s.io v2 and v2beta1 share this shape)
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiGroupDiscoveryList {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub metadata: serde_json::Value,
    #[serde(default)]
    pub items: Vec<ApiGroupDiscovery>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiGroupDiscovery {
    #[serde(default)]
    pub metadata: GroupMetadata,
    #[serde(default)]
    pub versions: Vec<ApiVersionDiscovery>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupMetadata {
    /// Empty for the core group at `/api`.
    #[serde(default)]
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiVersionDiscovery {
    pub version: String,
    #[serde(default)]
    pub resources: Vec<ApiResourceDiscovery>,
    /// `Current` or `Stale`; absent means current.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<String>,
}

impl ApiVersionDiscovery {
    pub fn is_stale(&self) -> bool {
        self.freshness.as_deref() == Some("Stale")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiResourceDiscovery {
    pub resource: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_kind: Option<GroupVersionKindDoc>,
    /// `Namespaced` or `Cluster`.
    #[serde(default)]
    pub scope: String,
    #[serde(default)]
    pub singular_resource: String,
    #[serde(default)]
    pub verbs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub short_names: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subresources: Vec<ApiSubresourceDiscovery>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiSubresourceDiscovery {
    pub subresource: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_kind: Option<GroupVersionKindDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted_types: Vec<GroupVersionKindDoc>,
    #[serde(default)]
    pub verbs: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupVersionKindDoc {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
}

// ---------------------------------------------------------------------------------------------
// Content type
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryFormat {
    AggregatedV2,
    AggregatedV2Beta1,
    /// Plain `application/json`: APIVersions / APIGroupList / APIResourceList.
    Legacy,
    /// Not JSON, or JSON for some other `as=` type; can't be decoded as discovery.
    Unknown,
}

impl DiscoveryFormat {
    pub fn is_aggregated(self) -> bool {
        matches!(
            self,
            DiscoveryFormat::AggregatedV2 | DiscoveryFormat::AggregatedV2Beta1
        )
    }
}

/// Decides the decoder from the response `Content-Type`, as client-go does (the status code
/// says nothing). Parameter order, case of names, quoting and extra parameters don't matter.
pub fn classify_discovery_content_type(content_type: &str) -> DiscoveryFormat {
    let mut parts = content_type.split(';');
    let media = parts.next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/json") {
        return DiscoveryFormat::Unknown;
    }
    let (mut g, mut v, mut as_) = (None, None, None);
    for param in parts {
        let Some((key, value)) = param.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches('"');
        match key.trim().to_ascii_lowercase().as_str() {
            "g" => g = Some(value),
            "v" => v = Some(value),
            "as" => as_ = Some(value),
            _ => {}
        }
    }
    match (g, v, as_) {
        (None, None, None) => DiscoveryFormat::Legacy,
        (Some(g), Some(v), Some("APIGroupDiscoveryList"))
            if g.eq_ignore_ascii_case("apidiscovery.k8s.io") =>
        {
            match v {
                "v2" => DiscoveryFormat::AggregatedV2,
                "v2beta1" => DiscoveryFormat::AggregatedV2Beta1,
                _ => DiscoveryFormat::Unknown,
            }
        }
        _ => DiscoveryFormat::Unknown,
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// Just enough of any Kubernetes object to explain an unexpected body (usually a Status).
#[derive(Deserialize)]
struct KindProbe {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    message: String,
}

fn parse_doc<T: DeserializeOwned>(
    body: &str,
    context: &str,
    expected_kind: &str,
    kind_of: impl Fn(&T) -> &str,
) -> Result<T, DiscoveryError> {
    let ctx = || format!("{context} ({expected_kind})");
    match serde_json::from_str::<T>(body) {
        Ok(doc) => {
            let kind = kind_of(&doc);
            // Servers always send `kind`, but be lenient when it's missing.
            if kind.is_empty() || kind == expected_kind {
                Ok(doc)
            } else {
                Err(DiscoveryError::new(
                    ctx(),
                    format!("expected kind {expected_kind}, got {kind}"),
                ))
            }
        }
        Err(err) => {
            let message = match serde_json::from_str::<KindProbe>(body) {
                Ok(p) if p.kind == "Status" && !p.message.is_empty() => {
                    format!("server returned Status: {}", p.message)
                }
                Ok(p) if !p.kind.is_empty() && p.kind != expected_kind => {
                    format!("expected kind {expected_kind}, got {}", p.kind)
                }
                _ if body.trim().is_empty() => "empty body".to_string(),
                _ => format!("invalid JSON: {err}"),
            };
            Err(DiscoveryError::new(ctx(), message))
        }
    }
}

/// Parses an aggregated `APIGroupDiscoveryList` (v2 or v2beta1) from `/api` or `/apis`.
pub fn parse_aggregated(body: &str) -> Result<ApiGroupDiscoveryList, DiscoveryError> {
    parse_doc(
        body,
        "aggregated discovery",
        "APIGroupDiscoveryList",
        |d: &ApiGroupDiscoveryList| &d.kind,
    )
}

pub fn parse_api_versions(body: &str) -> Result<ApiVersionsDoc, DiscoveryError> {
    parse_doc(body, "/api", "APIVersions", |d: &ApiVersionsDoc| &d.kind)
}

pub fn parse_group_list(body: &str) -> Result<ApiGroupListDoc, DiscoveryError> {
    parse_doc(body, "/apis", "APIGroupList", |d: &ApiGroupListDoc| &d.kind)
}

/// `GET /apis/{group}`.
pub fn parse_group(body: &str) -> Result<ApiGroupDoc, DiscoveryError> {
    parse_doc(body, "/apis/{group}", "APIGroup", |d: &ApiGroupDoc| &d.kind)
}

pub fn parse_resource_list(body: &str) -> Result<ApiResourceListDoc, DiscoveryError> {
    parse_doc(
        body,
        "group-version",
        "APIResourceList",
        |d: &ApiResourceListDoc| &d.kind,
    )
}

/// The `/api` response in whichever form the server chose.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiRootDoc {
    Aggregated(ApiGroupDiscoveryList),
    Legacy(ApiVersionsDoc),
}

/// The `/apis` response in whichever form the server chose.
#[derive(Debug, Clone, PartialEq)]
pub enum ApisRootDoc {
    Aggregated(ApiGroupDiscoveryList),
    Legacy(ApiGroupListDoc),
}

fn unknown_type(path: &str, content_type: &str) -> DiscoveryError {
    DiscoveryError::new(
        path,
        format!("unexpected Content-Type {content_type:?} (expected application/json)"),
    )
}

/// Parses a `/api` response, picking the decoder from its Content-Type.
pub fn parse_api_root(content_type: &str, body: &str) -> Result<ApiRootDoc, DiscoveryError> {
    match classify_discovery_content_type(content_type) {
        f if f.is_aggregated() => parse_aggregated(body).map(ApiRootDoc::Aggregated),
        DiscoveryFormat::Legacy => parse_api_versions(body).map(ApiRootDoc::Legacy),
        _ => Err(unknown_type("/api", content_type)),
    }
}

/// Parses a `/apis` response, picking the decoder from its Content-Type.
pub fn parse_apis_root(content_type: &str, body: &str) -> Result<ApisRootDoc, DiscoveryError> {
    match classify_discovery_content_type(content_type) {
        f if f.is_aggregated() => parse_aggregated(body).map(ApisRootDoc::Aggregated),
        DiscoveryFormat::Legacy => parse_group_list(body).map(ApisRootDoc::Legacy),
        _ => Err(unknown_type("/apis", content_type)),
    }
}

// ---------------------------------------------------------------------------------------------
// Aggregated -> tree
// ---------------------------------------------------------------------------------------------

/// Resolves a response kind against its containing group-version; `None` when it is the same
/// GV, so legacy (empty group/version) and aggregated (empty or repeated) forms compare equal.
fn cross_gv(
    group: &str,
    version: &str,
    in_group: &str,
    in_version: &str,
) -> Option<GroupVersionRef> {
    let g = if group.is_empty() { in_group } else { group };
    let v = if version.is_empty() {
        in_version
    } else {
        version
    };
    if g == in_group && v == in_version {
        None
    } else {
        Some(GroupVersionRef::new(g, v))
    }
}

/// Converts one aggregated group; dropped entries and stale versions go to `errors`. The
/// document's strings move into the tree (with hundreds of CRDs, copying them was a good part
/// of the time to the first tree).
pub fn group_from_aggregated(g: ApiGroupDiscovery, errors: &mut TreeErrors) -> ApiGroup {
    let group = g.metadata.name;
    let mut versions = Vec::with_capacity(g.versions.len());
    // No preferredVersion field in aggregated form: the first non-stale version is preferred.
    let preferred = g
        .versions
        .iter()
        .find(|v| !v.is_stale())
        .map(|v| v.version.clone());
    for v in g.versions {
        let stale = v.is_stale();
        if stale {
            errors.push(
                &group,
                &v.version,
                TreeErrorKind::Stale,
                "discovery data is stale (aggregated API server unavailable)",
            );
        }
        let mut resources = Vec::with_capacity(v.resources.len());
        for r in v.resources {
            // client-go drops resources without a usable responseKind.
            let Some(kind) = r.response_kind.filter(|k| !k.kind.is_empty()) else {
                errors.push(
                    &group,
                    &v.version,
                    TreeErrorKind::Dropped,
                    format!("resource {:?} has no responseKind", r.resource),
                );
                continue;
            };
            let mut subresources = Vec::with_capacity(r.subresources.len());
            for s in r.subresources {
                let Some(sk) = s.response_kind.filter(|k| !k.kind.is_empty()) else {
                    errors.push(
                        &group,
                        &v.version,
                        TreeErrorKind::Dropped,
                        format!(
                            "subresource {}/{} has no responseKind",
                            r.resource, s.subresource
                        ),
                    );
                    continue;
                };
                subresources.push(Subresource {
                    kind_group_version: cross_gv(&sk.group, &sk.version, &group, &v.version),
                    name: s.subresource,
                    kind: sk.kind,
                    verbs: s.verbs,
                });
            }
            crate::list::stable_sort::sort_by(&mut subresources, |a, b| a.name.cmp(&b.name));
            resources.push(ApiResource {
                plural: r.resource,
                singular: r.singular_resource,
                kind: kind.kind,
                namespaced: r.scope == "Namespaced",
                verbs: r.verbs,
                short_names: r.short_names,
                categories: r.categories,
                subresources,
            });
        }
        versions.push(GroupVersion::new(v.version, stale, resources));
    }
    ApiGroup::new(group, versions, preferred.as_deref())
}

/// Builds the tree from aggregated `/api` (core, optional) and `/apis` documents, which it
/// takes apart.
pub fn tree_from_aggregated(
    core: Option<ApiGroupDiscoveryList>,
    apis: ApiGroupDiscoveryList,
) -> Discovery {
    let mut errors = TreeErrors::default();
    let mut tree = ApiTree::default();
    for g in core.into_iter().flat_map(|c| c.items).chain(apis.items) {
        tree.merge_group(group_from_aggregated(g, &mut errors));
    }
    Discovery {
        tree: ApiTree::new(std::sync::Arc::unwrap_or_clone(tree.groups)),
        errors,
    }
}

// ---------------------------------------------------------------------------------------------
// Legacy walk
// ---------------------------------------------------------------------------------------------

/// Converts one legacy APIResourceList; `parent/sub` entries are attached to their parent.
pub fn resources_from_legacy(
    list: &ApiResourceListDoc,
    group: &str,
    version: &str,
    errors: &mut TreeErrors,
) -> Vec<ApiResource> {
    let mut resources: Vec<ApiResource> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for r in list.resources.iter().filter(|r| !r.name.contains('/')) {
        if r.kind.is_empty() {
            errors.push(
                group,
                version,
                TreeErrorKind::Dropped,
                format!("resource {:?} has no kind", r.name),
            );
            continue;
        }
        index.insert(r.name.as_str(), resources.len());
        resources.push(ApiResource {
            plural: r.name.clone(),
            singular: r.singular_name.clone(),
            kind: r.kind.clone(),
            namespaced: r.namespaced,
            verbs: r.verbs.clone(),
            short_names: r.short_names.clone(),
            categories: r.categories.clone(),
            subresources: Vec::new(),
        });
    }
    for r in &list.resources {
        let Some((parent, sub)) = r.name.split_once('/') else {
            continue;
        };
        match index.get(parent) {
            Some(&i) if !r.kind.is_empty() => resources[i].subresources.push(Subresource {
                name: sub.to_string(),
                kind: r.kind.clone(),
                kind_group_version: cross_gv(&r.group, &r.version, group, version),
                verbs: r.verbs.clone(),
            }),
            _ => errors.push(
                group,
                version,
                TreeErrorKind::Dropped,
                format!("subresource {:?} has no parent resource or no kind", r.name),
            ),
        }
    }
    for r in &mut resources {
        crate::list::stable_sort::sort_by(&mut r.subresources, |a, b| a.name.cmp(&b.name));
    }
    resources
}

/// One request of the legacy walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GvRequest {
    pub group: String,
    pub version: String,
    /// Path relative to the API root: `/api/v1`, `/apis/apps/v1`.
    pub url: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct PlannedGroup {
    name: String,
    versions: Vec<String>,
    preferred: Option<String>,
}

/// The requests a legacy (N+2) discovery walk needs after `/api` and `/apis`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyWalkPlan {
    pub requests: Vec<GvRequest>,
    groups: Vec<PlannedGroup>,
}

/// Path of a legacy group-version document.
pub fn group_version_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("/api/{version}")
    } else {
        format!("/apis/{group}/{version}")
    }
}

impl LegacyWalkPlan {
    /// `api` is `None` if `/api` failed; the core group is then simply absent.
    pub fn new(api: Option<&ApiVersionsDoc>, apis: &ApiGroupListDoc) -> Self {
        let mut groups = Vec::new();
        if let Some(api) = api.filter(|a| !a.versions.is_empty()) {
            // APIVersions has no preferred field; client-go takes the first listed.
            groups.push(PlannedGroup {
                name: String::new(),
                versions: api.versions.clone(),
                preferred: api.versions.first().cloned(),
            });
        }
        for g in &apis.groups {
            groups.push(PlannedGroup {
                name: g.name.clone(),
                versions: g.versions.iter().map(|v| v.version.clone()).collect(),
                preferred: g.preferred_version.as_ref().map(|p| p.version.clone()),
            });
        }
        let requests = groups
            .iter()
            .flat_map(|g| {
                g.versions.iter().map(move |v| GvRequest {
                    group: g.name.clone(),
                    version: v.clone(),
                    url: group_version_path(&g.name, v),
                })
            })
            .collect();
        LegacyWalkPlan { requests, groups }
    }

    pub fn urls(&self) -> impl Iterator<Item = &str> {
        self.requests.iter().map(|r| r.url.as_str())
    }

    pub fn builder(&self) -> LegacyTreeBuilder {
        LegacyTreeBuilder {
            plan: self.clone(),
            results: HashMap::new(),
            errors: TreeErrors::default(),
        }
    }
}

/// Collects the walk's per-group-version results (in any order) and builds the tree.
/// Failed group-versions are left out of the tree and reported in [`Discovery::errors`].
#[derive(Debug, Clone)]
pub struct LegacyTreeBuilder {
    plan: LegacyWalkPlan,
    results: HashMap<(String, String), Option<Vec<ApiResource>>>,
    errors: TreeErrors,
}

impl LegacyTreeBuilder {
    /// Records a successfully fetched APIResourceList body.
    pub fn add_body(&mut self, group: &str, version: &str, body: &str) {
        let parsed = parse_resource_list(body).and_then(|list| {
            let expected = api_version(group, version);
            if list.group_version == expected {
                Ok(list)
            } else {
                Err(DiscoveryError::new(
                    group_version_path(group, version),
                    format!(
                        "expected groupVersion {expected}, got {}",
                        list.group_version
                    ),
                ))
            }
        });
        let entry = match parsed {
            Ok(list) => Some(resources_from_legacy(
                &list,
                group,
                version,
                &mut self.errors,
            )),
            Err(e) => {
                let message = DiscoveryError {
                    context: group_version_path(group, version),
                    message: e.message,
                };
                self.errors
                    .push(group, version, TreeErrorKind::Parse, message.to_string());
                None
            }
        };
        self.results
            .insert((group.to_string(), version.to_string()), entry);
    }

    /// Records a failed request (network error, 404, 503...) for one group-version.
    pub fn add_failure(&mut self, group: &str, version: &str, message: impl Into<String>) {
        self.errors
            .push(group, version, TreeErrorKind::Fetch, message.into());
        self.results
            .insert((group.to_string(), version.to_string()), None);
    }

    /// Records a result by URL (as listed in the plan); `Err` if the URL wasn't planned.
    pub fn add_url_result(
        &mut self,
        url: &str,
        result: Result<&str, String>,
    ) -> Result<(), DiscoveryError> {
        let Some(req) = self.plan.requests.iter().find(|r| r.url == url) else {
            return Err(DiscoveryError::new(url, "not part of the discovery walk"));
        };
        let (g, v) = (req.group.clone(), req.version.clone());
        match result {
            Ok(body) => self.add_body(&g, &v, body),
            Err(message) => self.add_failure(&g, &v, message),
        }
        Ok(())
    }

    pub fn finish(mut self) -> Discovery {
        let mut groups = Vec::new();
        for pg in &self.plan.groups {
            let mut versions = Vec::new();
            for v in &pg.versions {
                match self.results.remove(&(pg.name.clone(), v.clone())) {
                    Some(Some(resources)) => {
                        versions.push(GroupVersion::new(v.clone(), false, resources))
                    }
                    Some(None) => {}
                    None => self.errors.push(
                        &pg.name,
                        v,
                        TreeErrorKind::NotFetched,
                        "no result recorded",
                    ),
                }
            }
            if !versions.is_empty() {
                groups.push(ApiGroup::new(
                    pg.name.clone(),
                    versions,
                    pg.preferred.as_deref(),
                ));
            }
        }
        Discovery {
            tree: ApiTree::new(groups),
            errors: self.errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_header_is_exact() {
        assert_eq!(
            DISCOVERY_ACCEPT,
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,\
             application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,\
             application/json"
        );
    }

    #[test]
    fn content_type_classification() {
        use DiscoveryFormat::*;
        let cases = [
            ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", AggregatedV2),
            ("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", AggregatedV2Beta1),
            // Order, spaces, case of names, charset, quoting.
            ("application/json; as=APIGroupDiscoveryList; v=v2; g=apidiscovery.k8s.io", AggregatedV2),
            ("Application/JSON;charset=utf-8;G=apidiscovery.k8s.io;V=v2;AS=APIGroupDiscoveryList", AggregatedV2),
            ("application/json;v=\"v2beta1\";g=\"apidiscovery.k8s.io\";as=\"APIGroupDiscoveryList\"", AggregatedV2Beta1),
            ("application/json", Legacy),
            ("application/json; charset=utf-8", Legacy),
            ("application/json;", Legacy),
            (" application/json ", Legacy),
            // Other types and incomplete aggregated parameters are not decodable.
            ("application/json;g=apidiscovery.k8s.io;v=v2alpha1;as=APIGroupDiscoveryList", Unknown),
            ("application/json;g=meta.k8s.io;v=v1;as=Table", Unknown),
            ("application/json;g=apidiscovery.k8s.io;v=v2", Unknown),
            ("text/plain; charset=utf-8", Unknown),
            ("application/vnd.kubernetes.protobuf", Unknown),
            ("", Unknown),
        ];
        for (ct, want) in cases {
            assert_eq!(classify_discovery_content_type(ct), want, "{ct}");
        }
    }

    #[test]
    fn parse_errors_are_readable() {
        let status = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server could not find the requested resource","code":404}"#;
        let e = parse_resource_list(status).unwrap_err();
        assert!(
            e.to_string()
                .contains("server returned Status: the server could not find"),
            "{e}"
        );
        let e = parse_aggregated("").unwrap_err();
        assert!(e.to_string().contains("empty body"), "{e}");
        let e = parse_group_list("<html>nope</html>").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/apis (APIGroupList): invalid JSON"),
            "{e}"
        );
        let e =
            parse_api_versions(r#"{"kind":"APIGroupList","groups":[],"versions":[]}"#).unwrap_err();
        assert!(
            e.to_string()
                .contains("expected kind APIVersions, got APIGroupList"),
            "{e}"
        );
        let e = parse_api_root("text/plain", "Forbidden").unwrap_err();
        assert!(e.to_string().contains("unexpected Content-Type"), "{e}");
    }

    #[test]
    fn root_parsing_branches_on_content_type() {
        let agg = r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[]}"#;
        let ct = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
        assert!(matches!(
            parse_apis_root(ct, agg),
            Ok(ApisRootDoc::Aggregated(_))
        ));
        // Same body labelled plain JSON goes to the legacy decoder and fails, like client-go.
        assert!(parse_apis_root("application/json", agg).is_err());
        let legacy = r#"{"kind":"APIVersions","versions":["v1"]}"#;
        assert!(matches!(
            parse_api_root("application/json", legacy),
            Ok(ApiRootDoc::Legacy(_))
        ));
    }

    fn rk(g: &str, v: &str, k: &str) -> Option<GroupVersionKindDoc> {
        Some(GroupVersionKindDoc {
            group: g.into(),
            version: v.into(),
            kind: k.into(),
        })
    }

    #[test]
    fn aggregated_stale_and_dropped_entries() {
        let body = r#"{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"metrics.k8s.io"},"versions":[
          {"version":"v1beta2","freshness":"Stale","resources":[]},
          {"version":"v1beta1","freshness":"Current","resources":[
            {"resource":"pods","scope":"Namespaced","responseKind":{"kind":"PodMetrics"},"verbs":["get","list"],
             "subresources":[{"subresource":"x","verbs":["get"]},{"subresource":"y","responseKind":{"group":"metrics.k8s.io","version":"v1beta1","kind":"PodMetrics"}}]},
            {"resource":"nodes","scope":"Cluster","responseKind":{"group":"","version":"","kind":""},"verbs":["get"]}]}]}]}"#;
        let list = parse_aggregated(body).unwrap();
        let d = tree_from_aggregated(None, list);
        let g = &d.tree.groups[0];
        assert_eq!(g.preferred_version.as_deref(), Some("v1beta1"));
        assert!(g.versions[0].freshness_stale && !g.versions[0].preferred);
        let pods = &g.version("v1beta1").unwrap().resources;
        assert_eq!(pods.len(), 1);
        assert_eq!(pods[0].subresources.len(), 1);
        // Fully spelled-out same GV normalises to None.
        assert_eq!(pods[0].subresources[0].kind_group_version, None);
        let kinds: Vec<_> = d.errors.entries.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                TreeErrorKind::Stale,
                TreeErrorKind::Dropped,
                TreeErrorKind::Dropped
            ]
        );
    }

    #[test]
    fn legacy_and_aggregated_agree_on_small_example() {
        let legacy = r#"{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[
          {"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list"],"shortNames":["deploy"],"categories":["all"]},
          {"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get"]},
          {"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get"]},
          {"name":"ghosts/status","singularName":"","namespaced":true,"kind":"Ghost","verbs":["get"]}]}"#;
        let plan = LegacyWalkPlan::new(
            None,
            &parse_group_list(r#"{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}"#).unwrap(),
        );
        assert_eq!(plan.urls().collect::<Vec<_>>(), ["/apis/apps/v1"]);
        let mut b = plan.builder();
        b.add_url_result("/apis/apps/v1", Ok(legacy)).unwrap();
        assert!(b.add_url_result("/apis/nope/v1", Ok(legacy)).is_err());
        let from_legacy = b.finish();
        assert_eq!(from_legacy.errors.len(), 1, "orphan ghosts/status");

        let agg = ApiGroupDiscoveryList {
            kind: "APIGroupDiscoveryList".into(),
            api_version: "apidiscovery.k8s.io/v2".into(),
            metadata: serde_json::Value::Null,
            items: vec![ApiGroupDiscovery {
                metadata: GroupMetadata {
                    name: "apps".into(),
                },
                versions: vec![ApiVersionDiscovery {
                    version: "v1".into(),
                    freshness: Some("Current".into()),
                    resources: vec![ApiResourceDiscovery {
                        resource: "deployments".into(),
                        response_kind: rk("", "", "Deployment"),
                        scope: "Namespaced".into(),
                        singular_resource: "deployment".into(),
                        verbs: vec!["get".into(), "list".into()],
                        short_names: vec!["deploy".into()],
                        categories: vec!["all".into()],
                        subresources: vec![
                            ApiSubresourceDiscovery {
                                subresource: "scale".into(),
                                response_kind: rk("autoscaling", "v1", "Scale"),
                                accepted_types: vec![],
                                verbs: vec!["get".into()],
                            },
                            ApiSubresourceDiscovery {
                                subresource: "status".into(),
                                response_kind: rk("", "", "Deployment"),
                                accepted_types: vec![],
                                verbs: vec!["get".into()],
                            },
                        ],
                    }],
                }],
            }],
        };
        let from_agg = tree_from_aggregated(None, agg);
        assert!(from_agg.errors.is_empty());
        assert_eq!(from_agg.tree, from_legacy.tree);
        let dep = &from_agg.tree.groups[0].versions[0].resources[0];
        assert_eq!(
            dep.subresource("scale").unwrap().kind_group_version,
            Some(GroupVersionRef::new("autoscaling", "v1"))
        );
    }

    #[test]
    fn legacy_walk_records_partial_failures() {
        let api = parse_api_versions(r#"{"kind":"APIVersions","versions":["v1"]}"#).unwrap();
        let apis = parse_group_list(r#"{"kind":"APIGroupList","groups":[
          {"name":"x.io","versions":[{"groupVersion":"x.io/v1","version":"v1"},{"groupVersion":"x.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"x.io/v1","version":"v1"}},
          {"name":"y.io","versions":[{"groupVersion":"y.io/v1","version":"v1"}]}]}"#).unwrap();
        let plan = LegacyWalkPlan::new(Some(&api), &apis);
        assert_eq!(
            plan.urls().collect::<Vec<_>>(),
            [
                "/api/v1",
                "/apis/x.io/v1",
                "/apis/x.io/v1beta1",
                "/apis/y.io/v1"
            ]
        );
        let mut b = plan.builder();
        b.add_body(
            "",
            "v1",
            r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[]}"#,
        );
        b.add_failure("x.io", "v1", "503 Service Unavailable");
        b.add_body(
            "x.io",
            "v1beta1",
            r#"{"kind":"APIResourceList","groupVersion":"x.io/v1","resources":[]}"#,
        );
        let d = b.finish();
        // Core survives; x.io v1 failed, v1beta1 had the wrong groupVersion, y.io never came.
        assert_eq!(d.tree.groups.len(), 1);
        assert!(d.tree.groups[0].is_core());
        let kinds: Vec<_> = d
            .errors
            .entries
            .iter()
            .map(|e| (e.group.as_str(), e.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("x.io", TreeErrorKind::Fetch),
                ("x.io", TreeErrorKind::Parse),
                ("y.io", TreeErrorKind::NotFetched)
            ]
        );
        assert!(d.errors.entries[1]
            .message
            .contains("expected groupVersion x.io/v1beta1"));
    }

    #[test]
    fn legacy_preferred_falls_back_when_preferred_failed() {
        let apis = parse_group_list(r#"{"kind":"APIGroupList","groups":[
          {"name":"x.io","versions":[{"groupVersion":"x.io/v1","version":"v1"},{"groupVersion":"x.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"x.io/v1","version":"v1"}}]}"#).unwrap();
        let plan = LegacyWalkPlan::new(None, &apis);
        let mut b = plan.builder();
        b.add_failure("x.io", "v1", "timeout");
        b.add_body(
            "x.io",
            "v1beta1",
            r#"{"kind":"APIResourceList","groupVersion":"x.io/v1beta1","resources":[]}"#,
        );
        let d = b.finish();
        assert_eq!(
            d.tree.groups[0].preferred_version.as_deref(),
            Some("v1beta1")
        );
    }
}
