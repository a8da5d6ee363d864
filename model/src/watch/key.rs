//! What a watch is of ([`WatchKey`]) and the requests the layer makes for it: list pages,
//! watches from a resourceVersion, streaming lists. Views asking for the same key share one
//! subscription.

use serde_json::Value;

use crate::api::endpoints::collection_path_before_discovery;
use crate::api::errors::ApiError;
use crate::api::request::{ApiRequest, JSON, TABLE_ACCEPT};
use crate::list::selector::{parse_field_selector, parse_label_selector};
use crate::list::table::ListMeta;
use crate::navigation::route::ListRoute;

/// Items per list page after the first: twice kubectl's 500, since on kube-apiserver v1.36
/// walking 50,000 pods (Table, not indented) took 1.4-2.0 s in pages of 500 and 0.9-1.4 s in
/// pages of 1,000 (each page copies the cache's items ahead of it). A page of 1,000 Table rows
/// is about 1.2 MB of JSON; `cargo xtask bench list-real` measures the list with it.
pub const PAGE_SIZE: u32 = 1_000;

/// Items in a list's first page: fewer, so the first rows are read, decoded and drawn
/// sooner (the screen shows a few dozen); the pages after it are [`PAGE_SIZE`].
pub const FIRST_PAGE_SIZE: u32 = 100;

/// Watches ask the server to end them after this long (kube-rs's default), so a stream that
/// a proxy silently dropped is noticed at the latest then.
pub const WATCH_TIMEOUT_SECONDS: u32 = 290;

/// What the items of a watch are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Output {
    /// Whole objects (object pages, Events, CRDs).
    Objects,
    /// The server's Table rows, as `kubectl get -w` watches: columns the server computes
    /// (READY, STATUS, RESTARTS) stay exact without per-kind code.
    Table,
    /// `PartialObjectMetadata`: names, labels, owners; small.
    Metadata,
}

impl Output {
    /// The Accept header of a list. Each falls back to plain JSON on servers that cannot
    /// produce the form asked for.
    pub fn list_accept(self) -> &'static str {
        match self {
            Output::Objects => JSON,
            Output::Table => TABLE_ACCEPT,
            Output::Metadata => {
                "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io, application/json"
            }
        }
    }

    /// The Accept header of a watch (its events carry single objects).
    pub fn watch_accept(self) -> &'static str {
        match self {
            Output::Objects => JSON,
            Output::Table => TABLE_ACCEPT,
            Output::Metadata => {
                "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io, application/json"
            }
        }
    }
}

/// One watched collection: everything that makes its items differ.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WatchKey {
    /// `/api/v1/namespaces/default/pods`, `/apis/apps/v1/deployments`.
    pub collection_path: String,
    pub label_selector: String,
    pub field_selector: String,
    pub output: Output,
    /// Behind kube-atlas, the context it is of when not the page's own (a list merged across
    /// clusters): the same collection of two clusters is two streams.
    pub cluster: Option<String>,
}

impl WatchKey {
    pub fn new(collection_path: impl Into<String>, output: Output) -> WatchKey {
        WatchKey {
            collection_path: collection_path.into(),
            label_selector: String::new(),
            field_selector: String::new(),
            output,
            cluster: None,
        }
    }

    /// The same collection in kube-atlas's context `cluster`.
    pub fn on_cluster(mut self, cluster: Option<String>) -> WatchKey {
        self.cluster = cluster;
        self
    }

    pub fn with_labels(mut self, selector: impl Into<String>) -> WatchKey {
        self.label_selector = selector.into();
        self
    }

    pub fn with_fields(mut self, selector: impl Into<String>) -> WatchKey {
        self.field_selector = selector.into();
        self
    }

    /// A short label for status lines and logs (`pods in default, app=web`).
    pub fn describe(&self) -> String {
        match &self.cluster {
            Some(cluster) => format!("{cluster}: {}", self.describe_collection()),
            None => self.describe_collection(),
        }
    }

    /// The collection and its selectors, whichever cluster it is of (a recording's `key`).
    pub fn describe_collection(&self) -> String {
        let mut text = self.collection_path.clone();
        for selector in [&self.label_selector, &self.field_selector] {
            if !selector.is_empty() {
                text.push_str(" · ");
                text.push_str(selector);
            }
        }
        text
    }

    fn selected(&self, request: ApiRequest) -> ApiRequest {
        request
            .query("labelSelector", &self.label_selector)
            .query("fieldSelector", &self.field_selector)
            .on_cluster(self.cluster.clone())
    }

    /// One page of the list: the first (`continue_token` None) is read at the latest
    /// version, so a watch from its resourceVersion misses nothing.
    ///
    /// `pretty=false`: kube-apiserver indents its JSON for a browser's User-Agent (as for
    /// curl's), which `kubectl proxy` passes on; indented, a 50,000-pod Table list is 136 MiB
    /// instead of 62 and takes the server 4.4 s of CPU instead of 1.8 (watches are never
    /// indented).
    pub fn list_request(&self, continue_token: Option<&str>) -> ApiRequest {
        let request = self
            .selected(ApiRequest::get(&self.collection_path).accept(self.output.list_accept()))
            .query("pretty", "false");
        match continue_token {
            Some(token) => request
                .query("limit", &PAGE_SIZE.to_string())
                .query("continue", token),
            None => request.query("limit", &FIRST_PAGE_SIZE.to_string()),
        }
    }

    /// A watch resuming after `resource_version`, with bookmarks so a quiet collection
    /// still moves the resume point on.
    pub fn watch_request(&self, resource_version: &str) -> ApiRequest {
        self.selected(ApiRequest::get(&self.collection_path).accept(self.output.watch_accept()))
            .query("watch", "true")
            .query("allowWatchBookmarks", "true")
            .query("resourceVersion", resource_version)
            .query("timeoutSeconds", &WATCH_TIMEOUT_SECONDS.to_string())
    }

    /// A streaming list: the current state as ADDED events, a bookmark marking its end, then
    /// changes (kube-apiserver 1.32+; what kube-rs's streaming-list mode sends).
    pub fn streaming_request(&self) -> ApiRequest {
        self.selected(ApiRequest::get(&self.collection_path).accept(self.output.watch_accept()))
            .query("watch", "true")
            .query("sendInitialEvents", "true")
            .query("resourceVersionMatch", "NotOlderThan")
            .query("resourceVersion", "0")
            .query("allowWatchBookmarks", "true")
            .query("timeoutSeconds", &WATCH_TIMEOUT_SECONDS.to_string())
    }
}

/// The first list page the list page of `route` asks for, guessed from the route alone, so
/// it can be asked for while the app starts (before discovery, which the page waits for):
/// None where the page asks no single list (merged clusters, an invalid selector).
pub fn first_list_page_of(route: &ListRoute) -> Option<ApiRequest> {
    let selectors_valid = parse_label_selector(&route.label_selector).is_ok()
        && parse_field_selector(&route.field_selector).is_ok();
    if route.all_clusters || !selectors_valid {
        return None;
    }
    let path = collection_path_before_discovery(&route.resource, route.namespace.as_deref());
    let key = WatchKey::new(path.template(), Output::Table)
        .with_labels(route.label_selector.clone())
        .with_fields(route.field_selector.clone());
    Some(key.list_request(None))
}

/// A list page split into what the store takes and the list metadata: the items of a plain
/// list, or the whole Table (its rows carry their columns) for Table output. A server that
/// answers a plain list where a Table was asked for still gives its items one by one, since
/// its watch will send plain objects too.
pub fn split_page(body: Value, output: Output) -> Result<(Vec<Value>, ListMeta), ApiError> {
    let meta: ListMeta = body
        .get("metadata")
        .cloned()
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| ApiError::bad_response(200, format!("list metadata: {e}")))?
        .unwrap_or_default();
    let is_table = body.get("kind").and_then(Value::as_str) == Some("Table");
    if output == Output::Table && is_table {
        return Ok((vec![body], meta));
    }
    match body {
        Value::Object(mut map) => match map.remove("items") {
            Some(Value::Array(items)) => Ok((items, meta)),
            Some(Value::Null) | None if map.contains_key("metadata") => Ok((Vec::new(), meta)),
            _ => Err(ApiError::bad_response(200, "the answer is not a list")),
        },
        _ => Err(ApiError::bad_response(200, "the answer is not a list")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_lists_first_page_is_known_from_its_link_before_discovery() {
        use crate::api::endpoints::NamespaceArg;
        use crate::navigation::route::Page;
        let tree = crate::api::tree::tests::sample_tree();
        let route_of = |hash: &str| match Page::parse(hash) {
            Page::ResourceList(route) => route,
            other => panic!("{hash} is not a list: {other:?}"),
        };
        // What the list page asks once discovery is in (resource_list.rs builds the same).
        let asked_after_discovery = |route: &ListRoute| {
            let found = tree.find(&route.resource).expect("served");
            let namespace = route
                .namespace
                .as_deref()
                .filter(|_| found.resource.namespaced);
            let scope = namespace.map_or(NamespaceArg::All, NamespaceArg::Named);
            WatchKey::new(found.collection_path(scope).template(), Output::Table)
                .with_labels(route.label_selector.clone())
                .with_fields(route.field_selector.clone())
                .list_request(None)
        };
        for hash in [
            "#/list/core/v1/pods?ns=bench",
            "#/list/core/v1/pods",
            "#/list/apps/v1/deployments?ns=default&labels=app%3Dweb",
            "#/list/core/v1/nodes",
        ] {
            let route = route_of(hash);
            let guessed = first_list_page_of(&route).expect("one list");
            let asked = asked_after_discovery(&route);
            assert_eq!(
                (&guessed.accept, guessed.url()),
                (&asked.accept, asked.url()),
                "{hash}"
            );
        }
        assert_eq!(
            first_list_page_of(&route_of("#/list/core/v1/pods?ns=bench")).map(|r| r.url()),
            Some("/api/v1/namespaces/bench/pods?pretty=false&limit=100".to_string())
        );
        // Lists that ask no single page: merged clusters, an invalid selector.
        let mut merged = route_of("#/list/core/v1/pods");
        merged.all_clusters = true;
        assert_eq!(first_list_page_of(&merged), None);
        let mut invalid = route_of("#/list/core/v1/pods");
        invalid.label_selector = "app in (".into();
        assert_eq!(first_list_page_of(&invalid), None);
    }

    #[test]
    fn requests_carry_selectors_versions_and_streaming_options() {
        let key = WatchKey::new("/api/v1/namespaces/default/pods", Output::Table)
            .with_labels("app=web")
            .with_fields("status.phase=Running");
        let first = key.list_request(None);
        assert_eq!(first.accept, TABLE_ACCEPT);
        assert_eq!(
            first.url(),
            "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb\
             &fieldSelector=status.phase%3DRunning&pretty=false&limit=100"
        );
        assert!(key
            .list_request(Some("tok"))
            .url()
            .ends_with("&limit=1000&continue=tok"));
        assert_eq!(
            key.watch_request("42").url(),
            "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb\
             &fieldSelector=status.phase%3DRunning&watch=true&allowWatchBookmarks=true\
             &resourceVersion=42&timeoutSeconds=290"
        );
        let streaming = WatchKey::new("/api/v1/pods", Output::Objects).streaming_request();
        assert_eq!(
            streaming.url(),
            "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan\
             &resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=290"
        );
        assert_eq!(streaming.accept, JSON);
    }

    #[test]
    fn pages_split_into_items_or_one_table() {
        let list = json!({"kind":"PodList","metadata":{"resourceVersion":"7","continue":"c"},
            "items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]});
        let (items, meta) = split_page(list.clone(), Output::Objects).expect("a list");
        assert_eq!(items.len(), 2);
        assert_eq!(meta.resource_version.as_deref(), Some("7"));
        assert_eq!(meta.continue_token.as_deref(), Some("c"));
        // A server without Tables answers a plain list: its items, one by one.
        assert_eq!(split_page(list, Output::Table).expect("a list").0.len(), 2);
        let table = json!({"kind":"Table","metadata":{"resourceVersion":"9"},"rows":[]});
        let (units, meta) = split_page(table, Output::Table).expect("a table");
        assert_eq!(units.len(), 1);
        assert_eq!(meta.resource_version.as_deref(), Some("9"));
        let empty = json!({"kind":"PodList","metadata":{"resourceVersion":"3"},"items":null});
        assert!(split_page(empty, Output::Objects)
            .expect("empty")
            .0
            .is_empty());
        assert!(split_page(json!("nope"), Output::Objects).is_err());
        assert!(split_page(json!({"kind":"Pod"}), Output::Objects).is_err());
    }
}
