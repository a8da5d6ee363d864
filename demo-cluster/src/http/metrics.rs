//! `metrics.k8s.io/v1beta1`, served as metrics-server behind kube-apiserver's aggregator
//! answers (held to the stand-in of `../shared/kubernetes` by `tests/metrics_differential.rs`):
//! discovery (legacy and aggregated, the group last, as its APIService's low priority puts
//! it), `NodeMetrics` and `PodMetrics` lists and gets (all namespaces or one, `labelSelector`),
//! JSON or a Table (NAME, CPU, MEMORY, WINDOW), read-only (any other method: 405) and no
//! watch (405). Usage comes from [`crate::metrics::Simulation`].

use std::collections::HashMap;

use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::negotiate::{negotiate_output, Output};
use super::resource::{json_with, query_map};
use crate::errors::ApiError;
use crate::metrics::{Simulation, Usage, NODE_WINDOW, POD_WINDOW};
use crate::registry::Registry;
use crate::storage::selectors::{labels_of, LabelSelector};

pub const GROUP: &str = "metrics.k8s.io";
pub const VERSION: &str = "v1beta1";
const GROUP_VERSION: &str = "metrics.k8s.io/v1beta1";

/// `(resource, kind, namespaced)`, as metrics-server lists them.
const RESOURCES: [(&str, &str, bool); 2] = [
    ("nodes", "NodeMetrics", false),
    ("pods", "PodMetrics", true),
];

/// The group in `/apis` (APIGroupList).
pub fn legacy_group() -> Value {
    let version = json!({"groupVersion": GROUP_VERSION, "version": VERSION});
    json!({"name": GROUP, "versions": [version.clone()], "preferredVersion": version})
}

/// `/apis/metrics.k8s.io` (APIGroup).
pub fn api_group() -> Value {
    let mut doc = legacy_group();
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    doc
}

/// `/apis/metrics.k8s.io/v1beta1` (APIResourceList).
pub fn resource_list() -> Value {
    let resources: Vec<Value> = RESOURCES
        .iter()
        .map(|(name, kind, namespaced)| {
            json!({"name": name, "singularName": "", "namespaced": namespaced, "kind": kind,
                   "verbs": ["get", "list"]})
        })
        .collect();
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": GROUP_VERSION,
           "resources": resources})
}

/// The group's entry in aggregated `/apis`.
pub fn aggregated_group() -> Value {
    let resources: Vec<Value> = RESOURCES
        .iter()
        .map(|(name, kind, namespaced)| {
            json!({"resource": name, "singularResource": "",
                   "scope": if *namespaced { "Namespaced" } else { "Cluster" },
                   "responseKind": {"group": "", "version": "", "kind": kind},
                   "verbs": ["get", "list"]})
        })
        .collect();
    json!({"metadata": {"name": GROUP, "creationTimestamp": null},
           "versions": [{"version": VERSION, "resources": resources, "freshness": "Current"}]})
}

/// A 405 as metrics-server words it (a Status with neither metadata nor details).
fn method_not_allowed(watch: bool) -> Response {
    let message = if watch {
        "the server does not allow this method on the requested resource (watch)"
    } else {
        "the server does not allow this method on the requested resource"
    };
    let status = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                        "message": message, "reason": "MethodNotAllowed", "code": 405});
    json_with(StatusCode::METHOD_NOT_ALLOWED, &status, "application/json")
}

fn quantities(usage: Usage) -> Value {
    json!({"cpu": format!("{}n", usage.cpu_nanos),
           "memory": format!("{}Ki", usage.memory_bytes / 1024)})
}

fn metadata(object: &Value, namespaced: bool, created: &str) -> Value {
    let mut meta = json!({"name": object["metadata"]["name"], "creationTimestamp": created});
    if namespaced {
        meta["namespace"] = object["metadata"]["namespace"].clone();
    }
    if let Some(labels) = object["metadata"].get("labels") {
        meta["labels"] = labels.clone();
    }
    meta
}

fn timestamp(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// One item: its metadata, time, window and usage, and the Table cells.
struct Item {
    value: Value,
    cells: [String; 3],
}

fn cells(usage: Usage, window: &str) -> [String; 3] {
    [
        format!("{}m", usage.cpu_nanos / 1_000_000),
        format!("{}Mi", usage.memory_bytes / (1024 * 1024)),
        window.to_string(),
    ]
}

fn pod_items(
    registry: &Registry,
    simulation: Simulation,
    namespace: Option<&str>,
    name: Option<&str>,
    selector: &LabelSelector,
    now: i64,
) -> Vec<Item> {
    let created = crate::registry::now();
    let sampled = timestamp(Simulation::sample_time(now));
    let (pods, _) = registry.store.list_refs("", "pods", namespace);
    pods.iter()
        .map(|p| p.value())
        .filter(|p| name.is_none_or(|n| p["metadata"]["name"].as_str() == Some(n)))
        .filter(|p| selector.matches_labels(&labels_of(p)))
        .filter_map(|p| {
            let containers = simulation.pod_usage(p, now)?;
            let total = containers
                .iter()
                .fold(Usage::default(), |sum, (_, u)| Usage {
                    cpu_nanos: sum.cpu_nanos + u.cpu_nanos,
                    memory_bytes: sum.memory_bytes + u.memory_bytes,
                });
            let containers: Vec<Value> = containers
                .into_iter()
                .map(|(name, usage)| json!({"name": name, "usage": quantities(usage)}))
                .collect();
            Some(Item {
                value: json!({"metadata": metadata(p, true, &created), "timestamp": sampled,
                              "window": POD_WINDOW, "containers": containers}),
                cells: cells(total, POD_WINDOW),
            })
        })
        .collect()
}

fn node_items(
    registry: &Registry,
    simulation: Simulation,
    name: Option<&str>,
    selector: &LabelSelector,
    now: i64,
) -> Vec<Item> {
    let created = crate::registry::now();
    let sampled = timestamp(Simulation::sample_time(now));
    let (nodes, _) = registry.store.list_refs("", "nodes", None);
    let (pods, _) = registry.store.list_refs("", "pods", None);
    nodes
        .iter()
        .map(|n| n.value())
        .filter(|n| name.is_none_or(|want| n["metadata"]["name"].as_str() == Some(want)))
        .filter(|n| selector.matches_labels(&labels_of(n)))
        .map(|n| {
            let node = n["metadata"]["name"].as_str().unwrap_or_default();
            let usage = simulation.node_usage(node, pods.iter().map(|p| p.value()), now);
            Item {
                value: json!({"metadata": metadata(n, false, &created), "timestamp": sampled,
                              "window": NODE_WINDOW, "usage": quantities(usage)}),
                cells: cells(usage, NODE_WINDOW),
            }
        })
        .collect()
}

fn table(items: Vec<Item>) -> Value {
    let column = |name: &str, description: &str, format: &str| {
        json!({"name": name, "type": "string", "format": format, "description": description,
               "priority": 0})
    };
    let rows: Vec<Value> = items
        .into_iter()
        .map(|item| {
            let [cpu, memory, window] = item.cells;
            json!({"cells": [item.value["metadata"]["name"], cpu, memory, window],
                   "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                              "metadata": item.value["metadata"]}})
        })
        .collect();
    json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {},
           "columnDefinitions": [
               column("Name", "Name of the resource", "name"),
               column("CPU", "CPU usage", ""),
               column("Memory", "Memory usage", ""),
               column("Window", "Window", "")],
           "rows": rows})
}

/// A request under `/apis/metrics.k8s.io/v1beta1/` (`rest`: the segments after it).
pub fn handle(
    registry: &Registry,
    simulation: Simulation,
    parts: &Parts,
    rest: &[&str],
) -> Result<Response, ApiError> {
    let q: HashMap<String, String> = query_map(parts);
    // Which resource and object, before the method: an unknown path is a 404 whatever it asks.
    let (kind, namespace, name) = match rest {
        ["nodes"] => ("nodes", None, None),
        ["nodes", name] => ("nodes", None, Some(*name)),
        ["pods"] => ("pods", None, None),
        ["namespaces", ns, "pods"] => ("pods", Some(*ns), None),
        ["namespaces", ns, "pods", name] => ("pods", Some(*ns), Some(*name)),
        _ => return Err(ApiError::path_not_found()),
    };
    if parts.method != Method::GET && parts.method != Method::HEAD {
        return Ok(method_not_allowed(false));
    }
    if matches!(
        q.get("watch").map(String::as_str),
        Some("1" | "true" | "True")
    ) {
        return Ok(method_not_allowed(true));
    }
    let selector = LabelSelector::parse(q.get("labelSelector").map(String::as_str).unwrap_or(""))
        .map_err(ApiError::bad_request)?;
    let output = negotiate_output(&parts.headers)?;
    let now = chrono::Utc::now().timestamp();
    let items = match kind {
        "nodes" => node_items(registry, simulation, name, &selector, now),
        _ => pod_items(registry, simulation, namespace, name, &selector, now),
    };
    let (item_kind, resource) = if kind == "nodes" {
        ("NodeMetrics", "nodemetrics")
    } else {
        ("PodMetrics", "podmetrics")
    };
    if let Some(name) = name {
        if items.is_empty() {
            return Err(ApiError::not_found(GROUP, resource, name));
        }
    }
    let body = match (output, name) {
        (Output::Table, _) => table(items),
        (_, Some(_)) => {
            let mut item = items
                .into_iter()
                .next()
                .map(|i| i.value)
                .unwrap_or_default();
            item["kind"] = json!(item_kind);
            item["apiVersion"] = json!(GROUP_VERSION);
            item
        }
        (_, None) => {
            let items: Vec<Value> = items.into_iter().map(|i| i.value).collect();
            json!({"kind": format!("{item_kind}List"), "apiVersion": GROUP_VERSION,
                   "metadata": {}, "items": items})
        }
    };
    let content_type = match output {
        Output::Table => Output::Table.content_type(),
        _ => "application/json",
    };
    Ok(json_with(StatusCode::OK, &body, content_type).into_response())
}
