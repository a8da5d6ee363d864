//! Several clusters behind `kube-atlas`: its `/clusters` answer read, the cluster a page is
//! on (the `?cluster=` of its URL, so links and reloads stay on it), and the API prefix of a
//! cluster (`/clusters/{context}`). Under `kubectl proxy` or the demo cluster there is no
//! `/clusters`, and every path stays as it was.

use serde::Deserialize;

use crate::api::request::{decode_query_component, encode_query_component};
use crate::list::display::{display_row, DisplayRow, DrawnAt, ShownColumn};
use crate::watch::LiveTable;
use crate::ResourceId;

/// A cluster's connection as kube-atlas reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterConnection {
    Connecting,
    Connected { version: String },
    Failed { reason: String },
}

impl ClusterConnection {
    /// The state's word, as the switcher shows it and tests read it (`data-state`).
    pub fn word(&self) -> &'static str {
        match self {
            ClusterConnection::Connecting => "connecting",
            ClusterConnection::Connected { .. } => "connected",
            ClusterConnection::Failed { .. } => "failed",
        }
    }
}

/// One context kube-atlas serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterEntry {
    pub name: String,
    pub server: String,
    pub connection: ClusterConnection,
}

impl ClusterEntry {
    /// The line the switcher shows for it: its name and state, with the reason of a failure.
    pub fn describe(&self) -> String {
        match &self.connection {
            ClusterConnection::Connecting => format!("{}: connecting", self.name),
            ClusterConnection::Connected { version } if version.is_empty() => {
                format!("{}: connected", self.name)
            }
            ClusterConnection::Connected { version } => {
                format!("{}: connected ({version})", self.name)
            }
            ClusterConnection::Failed { reason } => format!("{}: failed: {reason}", self.name),
        }
    }
}

#[derive(Deserialize)]
struct ClusterList {
    clusters: Vec<RawEntry>,
}

#[derive(Deserialize)]
struct RawEntry {
    name: String,
    #[serde(default)]
    server: String,
    state: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    reason: String,
}

/// Reads `GET /clusters`; `None` when the answer is not kube-atlas's (a proxy's 404 page, the
/// dashboard's own index.html).
pub fn parse_cluster_list(body: &str) -> Option<Vec<ClusterEntry>> {
    let list: ClusterList = serde_json::from_str(body).ok()?;
    Some(
        list.clusters
            .into_iter()
            .map(|raw| ClusterEntry {
                connection: match raw.state.as_str() {
                    "connected" => ClusterConnection::Connected {
                        version: raw.version,
                    },
                    "failed" => ClusterConnection::Failed { reason: raw.reason },
                    _ => ClusterConnection::Connecting,
                },
                name: raw.name,
                server: raw.server,
            })
            .collect(),
    )
}

/// The cluster to show: the one the URL names when kube-atlas serves it, else the first
/// connected one, else the first.
pub fn choose_cluster(entries: &[ClusterEntry], asked: Option<&str>) -> Option<String> {
    asked
        .and_then(|asked| entries.iter().find(|entry| entry.name == asked))
        .or_else(|| {
            entries
                .iter()
                .find(|entry| matches!(entry.connection, ClusterConnection::Connected { .. }))
        })
        .or_else(|| entries.first())
        .map(|entry| entry.name.clone())
}

/// The cluster a page URL's query (`location.search`, with or without its `?`) names.
pub fn cluster_in_query(search: &str) -> Option<String> {
    search
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix("cluster="))
        .map(decode_query_component)
        .filter(|name| !name.is_empty())
}

/// The query that puts the page on `cluster`.
pub fn query_for_cluster(cluster: &str) -> String {
    format!("?cluster={}", encode_query_component(cluster))
}

/// Where kube-atlas serves `cluster`'s API: every API path is appended to it.
pub fn api_prefix(cluster: &str) -> String {
    format!("/clusters/{}", encode_query_component(cluster))
}

/// A row of a list merged across clusters: whose it is, and the row as its cluster's list
/// draws it (its link going to the object on that cluster).
#[derive(Debug, Clone, PartialEq)]
pub struct MergedRow {
    pub cluster: String,
    pub row: DisplayRow,
}

/// Every cluster's rows of the same list, cluster by cluster in the order given (kube-atlas's
/// order), each cluster's by name; each table drawn with its own columns as `shown_of` picks
/// them (the same kind's columns, though a server of another version may differ).
pub fn merged_rows(
    tables: &[(&str, &LiveTable)],
    shown_of: impl Fn(&LiveTable) -> Vec<ShownColumn>,
    resource: &ResourceId,
    at: DrawnAt,
) -> Vec<MergedRow> {
    let mut merged = Vec::new();
    for (cluster, live) in tables {
        let shown = shown_of(live);
        let mut rows: Vec<DisplayRow> = live
            .table()
            .rows()
            .positions()
            .iter()
            .filter_map(|position| display_row(live, *position, &shown, resource, at, None))
            .collect();
        rows.sort_by(|a, b| row_name(a).cmp(row_name(b)));
        merged.extend(rows.into_iter().map(|mut row| {
            // A relative link: the same dashboard, opened on the row's cluster.
            row.href = format!("{}{}", query_for_cluster(cluster), row.href);
            MergedRow {
                cluster: cluster.to_string(),
                row,
            }
        }));
    }
    merged
}

/// Fields a server sets on every object of its own (identity, bookkeeping, managers): two
/// clusters' copies of the same object always differ there, so a comparison leaves them out.
const SERVER_SET: [&str; 6] = [
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "selfLink",
];

/// The same object on two clusters, field by field (`here` → `there`), without what each
/// server sets of its own ([`SERVER_SET`] under metadata).
pub fn compare_across_clusters(
    here: &serde_json::Value,
    there: &serde_json::Value,
) -> Vec<crate::history::diff::FieldChange> {
    let without_server_set = |object: &serde_json::Value| {
        let mut object = object.clone();
        if let Some(metadata) = object
            .get_mut("metadata")
            .and_then(serde_json::Value::as_object_mut)
        {
            for field in SERVER_SET {
                metadata.remove(field);
            }
        }
        object
    };
    crate::history::diff::diff_values(&without_server_set(here), &without_server_set(there))
}

fn row_name(row: &DisplayRow) -> &str {
    row.cells
        .iter()
        .find(|cell| cell.link)
        .map(|cell| cell.text.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::display::shown_columns;
    use crate::list::table::DecodeOptions;
    use crate::watch::{StoreChange, WatchStore};

    fn pod(name: &str, uid: &str) -> serde_json::Value {
        serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": uid, "resourceVersion": "1"},
        })
    }

    #[test]
    fn a_comparison_shows_what_differs_not_what_each_server_sets() {
        let here = serde_json::json!({
            "metadata": {"name": "web", "uid": "a", "resourceVersion": "10", "generation": 3,
                         "labels": {"tier": "front"}, "managedFields": [{"manager": "kubectl"}]},
            "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "web", "image": "web:1.4"}]}}},
        });
        let there = serde_json::json!({
            "metadata": {"name": "web", "uid": "b", "resourceVersion": "77", "generation": 1,
                         "labels": {"tier": "front"}},
            "spec": {"replicas": 5, "template": {"spec": {"containers": [{"name": "web", "image": "web:1.5"}]}}},
        });
        let changes: Vec<String> = compare_across_clusters(&here, &there)
            .iter()
            .map(|change| change.describe())
            .collect();
        assert_eq!(
            changes,
            [
                "spec.replicas: 3 → 5",
                "spec.template.spec.containers[name=web].image: web:1.4 → web:1.5"
            ]
        );
        assert!(compare_across_clusters(&here, &here).is_empty());
    }

    #[test]
    fn merged_rows_go_cluster_by_cluster_each_by_name_linking_to_their_cluster() {
        let mut alpha = LiveTable::new(DecodeOptions::default());
        alpha.apply(
            StoreChange::Replace(vec![pod("web-2", "a2"), pod("web-1", "a1")]),
            0.0,
        );
        let mut beta = LiveTable::new(DecodeOptions::default());
        beta.apply(StoreChange::Replace(vec![pod("api", "b1")]), 0.0);
        let resource = ResourceId::new("", "v1", "pods");
        let at = DrawnAt {
            wall: 0,
            monotonic: 0.0.into(),
        };
        let merged = merged_rows(
            &[("alpha", &alpha), ("beta/prod", &beta)],
            |live| shown_columns(live.table(), false),
            &resource,
            at,
        );
        let seen: Vec<(&str, &str)> = merged
            .iter()
            .map(|merged| (merged.cluster.as_str(), row_name(&merged.row)))
            .collect();
        assert_eq!(
            seen,
            [("alpha", "web-1"), ("alpha", "web-2"), ("beta/prod", "api")]
        );
        assert_eq!(
            merged[2].row.href,
            "?cluster=beta%2Fprod#/obj/core/v1/pods/default/api"
        );
    }

    const LIST: &str = r#"{"clusters":[
        {"name":"alpha","server":"https://127.0.0.1:6443","state":"failed","reason":"unreachable: connection refused"},
        {"name":"arn:aws:eks:eu-west-1:1:cluster/prod","server":"https://x","state":"connected","version":"v1.36.0"},
        {"name":"demo","server":"http://127.0.0.1:8080","state":"connecting"}]}"#;

    #[test]
    fn kube_atlas_answers_are_read_others_are_not() {
        let entries = parse_cluster_list(LIST).expect("kube-atlas's list");
        assert_eq!(entries.len(), 3);
        assert_eq!(
            entries[0].describe(),
            "alpha: failed: unreachable: connection refused"
        );
        assert_eq!(
            entries[1].describe(),
            "arn:aws:eks:eu-west-1:1:cluster/prod: connected (v1.36.0)"
        );
        assert_eq!(entries[2].connection.word(), "connecting");
        assert_eq!(parse_cluster_list("<!DOCTYPE html><html>"), None);
        assert_eq!(parse_cluster_list(r#"{"kind":"Status","code":404}"#), None);
    }

    #[test]
    fn the_url_names_the_cluster_else_the_first_connected_one() {
        let entries = parse_cluster_list(LIST).expect("list");
        assert_eq!(choose_cluster(&entries, Some("demo")), Some("demo".into()));
        assert_eq!(
            choose_cluster(&entries, Some("gone")),
            Some("arn:aws:eks:eu-west-1:1:cluster/prod".into())
        );
        assert_eq!(
            choose_cluster(&entries, None),
            Some("arn:aws:eks:eu-west-1:1:cluster/prod".into())
        );
        assert_eq!(choose_cluster(&entries[..1], None), Some("alpha".into()));
        assert_eq!(choose_cluster(&[], None), None);
    }

    #[test]
    fn a_cluster_name_round_trips_through_the_query_and_becomes_one_path_segment() {
        let name = "arn:aws:eks:eu-west-1:1:cluster/prod a+b";
        let query = query_for_cluster(name);
        assert_eq!(
            query,
            "?cluster=arn%3Aaws%3Aeks%3Aeu-west-1%3A1%3Acluster%2Fprod%20a%2Bb"
        );
        assert_eq!(cluster_in_query(&query).as_deref(), Some(name));
        assert_eq!(
            cluster_in_query("?x=1&cluster=kind-dev").as_deref(),
            Some("kind-dev")
        );
        assert_eq!(cluster_in_query(""), None);
        assert_eq!(cluster_in_query("?cluster="), None);
        // A broken escape is kept as written: no cluster has that name, the first connected
        // one is shown.
        assert_eq!(cluster_in_query("?cluster=%ZZ").as_deref(), Some("%ZZ"));
        assert_eq!(api_prefix("kind-dev/x"), "/clusters/kind-dev%2Fx");
    }
}
