//! Discovery documents built from the registry: legacy (APIVersions, APIGroupList, APIGroup,
//! APIResourceList) and aggregated (apidiscovery.k8s.io v2 / v2beta1) with ETag and 304.

use std::sync::Arc;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use sha2::{Digest, Sha512};

use super::negotiate::{negotiate_discovery, DiscoveryForm};
use crate::errors::ApiError;
use crate::registry::kinds::{version_priority, ResourceDef};
use crate::registry::{Registry, ServedDocument};

pub fn version_info() -> Value {
    json!({
        "major": "1", "minor": "36", "emulationMajor": "1", "emulationMinor": "36",
        "minCompatibilityMajor": "1", "minCompatibilityMinor": "35",
        "gitVersion": "v1.36.2-demo",
        "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.24.0", "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// Named groups in discovery order, each with its versions in preference order.
pub fn groups(defs: &[Arc<ResourceDef>]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = vec![];
    for d in defs.iter().filter(|d| !d.group.is_empty()) {
        match out.iter_mut().find(|(g, _)| *g == d.group) {
            Some((_, versions)) => {
                if !versions.contains(&d.version) {
                    versions.push(d.version.clone());
                }
            }
            None => out.push((d.group.clone(), vec![d.version.clone()])),
        }
    }
    for (_, versions) in out.iter_mut() {
        versions.sort_by_key(|v| std::cmp::Reverse(version_priority(v)));
    }
    out
}

fn gv(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    }
}

fn group_json(group: &str, versions: &[String]) -> Value {
    let vs: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": gv(group, v), "version": v}))
        .collect();
    json!({"name": group, "versions": vs, "preferredVersion": vs.first().cloned().unwrap_or(Value::Null)})
}

pub fn api_versions() -> Value {
    json!({"kind": "APIVersions", "versions": ["v1"],
           "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}]})
}

pub fn api_group_list(registry: &Registry) -> Value {
    let mut groups: Vec<Value> = groups(&registry.defs())
        .iter()
        .map(|(g, vs)| group_json(g, vs))
        .collect();
    if registry.metrics().is_some() {
        groups.push(super::metrics::legacy_group());
    }
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

pub fn api_group(registry: &Registry, group: &str) -> Option<Value> {
    if group == super::metrics::GROUP && registry.metrics().is_some() {
        return Some(super::metrics::api_group());
    }
    let (g, vs) = groups(&registry.defs())
        .into_iter()
        .find(|(g, _)| g == group)?;
    let mut doc = group_json(&g, &vs);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    Some(doc)
}

pub fn resource_list(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    if group == super::metrics::GROUP
        && version == super::metrics::VERSION
        && registry.metrics().is_some()
    {
        return Some(super::metrics::resource_list());
    }
    let defs: Vec<Arc<ResourceDef>> = registry
        .defs()
        .into_iter()
        .filter(|d| d.group == group && d.version == version)
        .collect();
    if defs.is_empty() {
        return None;
    }
    let mut resources = vec![];
    for d in &defs {
        let mut r = json!({"name": d.resource, "singularName": d.singular, "namespaced": d.namespaced,
                           "kind": d.kind, "verbs": d.verbs});
        if !d.short_names.is_empty() {
            r["shortNames"] = json!(d.short_names);
        }
        if !d.categories.is_empty() {
            r["categories"] = json!(d.categories);
        }
        // As kube-apiserver: only resources kept in storage have one (not the create-only
        // reviews and bindings, not the probed ComponentStatuses).
        if d.verbs.iter().any(|v| v != "create") && d.kind != "ComponentStatus" {
            r["storageVersionHash"] = json!(d.storage_version_hash());
        }
        resources.push(r);
        for s in &d.subresources {
            let mut e = json!({"name": format!("{}/{}", d.resource, s.name), "singularName": "",
                               "namespaced": d.namespaced, "kind": s.kind, "verbs": s.verbs});
            if let (Some(g), Some(v)) = (&s.group, &s.version) {
                e["group"] = json!(g);
                e["version"] = json!(v);
            }
            resources.push(e);
        }
    }
    let mut doc = json!({"kind": "APIResourceList", "groupVersion": gv(group, version), "resources": resources});
    // kube-apiserver's core list (`/api/v1`) carries no apiVersion; the groups' lists do.
    if !group.is_empty() {
        doc["apiVersion"] = json!("v1");
    }
    Some(doc)
}

fn aggregated_resource(d: &ResourceDef) -> Value {
    let subs: Vec<Value> = d
        .subresources
        .iter()
        .map(|s| {
            json!({"subresource": s.name,
                   "responseKind": {"group": s.group.clone().unwrap_or_default(), "version": s.version.clone().unwrap_or_default(), "kind": s.kind},
                   "verbs": s.verbs})
        })
        .collect();
    let mut r = json!({"resource": d.resource, "singularResource": d.singular,
        "scope": if d.namespaced { "Namespaced" } else { "Cluster" },
        "responseKind": {"group": "", "version": "", "kind": d.kind}, "verbs": d.verbs});
    if !d.short_names.is_empty() {
        r["shortNames"] = json!(d.short_names);
    }
    if !d.categories.is_empty() {
        r["categories"] = json!(d.categories);
    }
    if !subs.is_empty() {
        r["subresources"] = json!(subs);
    }
    r
}

/// The aggregated document for `/api` (core only) or `/apis` (named groups).
pub fn aggregated(registry: &Registry, core: bool, version: &str) -> Value {
    let defs = registry.defs();
    let groups: Vec<(String, Vec<String>)> = if core {
        vec![(String::new(), vec!["v1".to_string()])]
    } else {
        groups(&defs)
    };
    let mut items: Vec<Value> = groups
        .iter()
        .map(|(g, versions)| {
            let vs: Vec<Value> = versions
                .iter()
                .map(|v| {
                    let resources: Vec<Value> = defs
                        .iter()
                        .filter(|d| d.group == *g && d.version == *v)
                        .map(|d| aggregated_resource(d))
                        .collect();
                    json!({"version": v, "resources": resources, "freshness": "Current"})
                })
                .collect();
            json!({"metadata": {"name": g, "creationTimestamp": null}, "versions": vs})
        })
        .collect();
    // The metrics API's APIService comes last (its group priority is the lowest).
    if !core && registry.metrics().is_some() {
        items.push(super::metrics::aggregated_group());
    }
    json!({"kind": "APIGroupDiscoveryList", "apiVersion": format!("apidiscovery.k8s.io/{version}"),
           "metadata": {}, "items": items})
}

fn etag_of(body: &[u8]) -> String {
    let digest = Sha512::digest(body);
    let hex: String = digest.iter().map(|b| format!("{b:02X}")).collect();
    format!("\"{hex}\"")
}

fn json_response(body: String, content_type: &str) -> Response {
    let mut resp = (StatusCode::OK, body).into_response();
    if let Ok(v) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp
}

/// `/api` or `/apis`, negotiated between the legacy and aggregated forms.
pub fn root_discovery(
    registry: &Registry,
    headers: &HeaderMap,
    core: bool,
) -> Result<Response, ApiError> {
    let form = negotiate_discovery(headers)?;
    let mut resp = match form {
        DiscoveryForm::Legacy => {
            let doc = if core {
                api_versions()
            } else {
                api_group_list(registry)
            };
            json_response(doc.to_string(), "application/json")
        }
        DiscoveryForm::Aggregated(version) => {
            let document = registry.discovery_document((core, version), || {
                let body = aggregated(registry, core, version).to_string();
                let etag = etag_of(body.as_bytes());
                ServedDocument { body, etag }
            });
            let (body, etag) = (document.body.clone(), document.etag.clone());
            let content_type = format!(
                "application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"
            );
            let not_modified = headers
                .get(header::IF_NONE_MATCH)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v == etag);
            let mut resp = if not_modified {
                StatusCode::NOT_MODIFIED.into_response()
            } else {
                json_response(body, &content_type)
            };
            if let Ok(v) = HeaderValue::from_str(&etag) {
                resp.headers_mut().insert(header::ETAG, v);
            }
            if not_modified {
                if let Ok(v) = HeaderValue::from_str(&content_type) {
                    resp.headers_mut().insert(header::CONTENT_TYPE, v);
                }
            }
            resp.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("public"));
            resp
        }
    };
    resp.headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    Ok(resp)
}

pub fn json_ok(doc: &Value) -> Response {
    json_response(doc.to_string(), "application/json")
}
