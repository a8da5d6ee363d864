//! `pods/{name}[:port]/proxy/{path}` and `services/{name}[:port]/proxy/{path}`: the backend
//! found as kube-apiserver finds it (`pkg/registry/core/pod/strategy.go` and
//! `service/storage/storage.go`'s `ResourceLocation`), then answered by the simulated
//! container behind it (`crate::portforward`) instead of a dial: the demo never connects
//! anywhere.
//!
//! - A pod's port is the one named, else its first container's first declared port, else
//!   the scheme's; a pod without a routable IP is `address not allowed` (400).
//! - A service's port, given as a number, must be one of its ports (503 `no service port N
//!   found for service "s"`); the backend is a ready endpoint of its EndpointSlices with that
//!   port's name, picked at random; none: 503 `no endpoints available for service "s"`; no
//!   slice at all (kube-apiserver: no v1 Endpoints): 404 `services "s" not found`.
//! - Nothing listening there: 503 `error trying to reach service: dial tcp IP:PORT: connect:
//!   connection refused`, kube-apiserver's proxy error.
//! - `…/proxy` without a path is redirected to `…/proxy/` (301), as kube-apiserver does.

use std::sync::Arc;

use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::connect::{join_host_port, proxyable, split_scheme_name_port};
use super::AppState;
use crate::controllers::endpointslice::SERVICE_NAME_LABEL;
use crate::errors::{ApiError, ApiResult};
use crate::portforward::container::content;
use crate::portforward::Forwarded;
use crate::registry::kinds::ResourceDef;

pub(super) async fn serve(
    app: &AppState,
    parts: &Parts,
    def: &Arc<ResourceDef>,
    ns: &str,
    id: &str,
) -> ApiResult<Response> {
    let Some((scheme, name, port)) = split_scheme_name_port(id) else {
        let singular = def.resource.trim_end_matches('s');
        return Err(ApiError::bad_request(format!(
            "invalid {singular} request {id:?}"
        )));
    };
    let (pod, port) = match def.resource.as_str() {
        "pods" => {
            let pod = app.registry.get(def, ns, name)?;
            let port = port
                .map(str::to_string)
                .or_else(|| first_declared_port(&pod))
                .unwrap_or_else(|| if scheme == "https" { "443" } else { "80" }.into());
            (pod, port)
        }
        _ => service_backend(app, def, ns, name, id, port)?,
    };
    let ip = pod["status"]["podIP"].as_str().unwrap_or_default();
    let address = join_host_port(ip, &port);
    if !proxyable(&address) {
        return Err(ApiError::bad_request("address not allowed"));
    }
    let Some(rest) = path_after_proxy(parts) else {
        let query = parts
            .uri
            .query()
            .map(|q| format!("?{q}"))
            .unwrap_or_default();
        let location = format!("{}/{query}", original_path(parts));
        return Ok((
            StatusCode::MOVED_PERMANENTLY,
            [(header::LOCATION, location)],
        )
            .into_response());
    };
    let refused = || {
        ApiError::service_unavailable(format!(
            "error trying to reach service: dial tcp {address}: connect: connection refused"
        ))
    };
    let port: u16 = port.parse().map_err(|_| refused())?;
    let page = crate::portforward::listening(&pod, port).map_err(|_| refused())?;
    let target = match parts.uri.query() {
        Some(query) => format!("{rest}?{query}"),
        None => rest,
    };
    let (content_type, body) = content(
        &Forwarded::of(&pod, port),
        page,
        parts.method.as_str(),
        &target,
    );
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, content_type),
            // kube-apiserver's own filter; the container sets none.
            (header::CACHE_CONTROL, "no-cache, private"),
        ],
        body,
    )
        .into_response())
}

/// The path as the client sent it (the router drops a trailing slash).
fn original_path(parts: &Parts) -> String {
    parts
        .extensions
        .get::<crate::http::OriginalPath>()
        .map_or_else(|| parts.uri.path().to_string(), |p| p.0.clone())
}

/// What follows `/proxy` in the path (`/` at least), None when nothing does.
fn path_after_proxy(parts: &Parts) -> Option<String> {
    let path = original_path(parts);
    let (_, rest) = path.split_once("/proxy")?;
    rest.starts_with('/').then(|| rest.to_string())
}

fn first_declared_port(pod: &Value) -> Option<String> {
    pod["spec"]["containers"]
        .as_array()?
        .iter()
        .find_map(|c| c["ports"].as_array()?.first()?["containerPort"].as_u64())
        .map(|p| p.to_string())
}

/// The pod and port a service's request reaches.
fn service_backend(
    app: &AppState,
    def: &ResourceDef,
    ns: &str,
    name: &str,
    id: &str,
    port: Option<&str>,
) -> ApiResult<(Value, String)> {
    let service = app.registry.get(def, ns, name)?;
    let mut port_name = port.unwrap_or_default().to_string();
    if let Ok(number) = port_name.parse::<i64>() {
        let declared = service["spec"]["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["port"].as_i64() == Some(number));
        let Some(declared) = declared else {
            return Err(ApiError::service_unavailable(format!(
                "no service port {number} found for service {name:?}"
            )));
        };
        port_name = declared["name"].as_str().unwrap_or_default().to_string();
    }
    let slices = app
        .registry
        .resolve("discovery.k8s.io", "v1", "endpointslices")
        .map(|slices| app.registry.list(&slices, Some(ns)).0)
        .unwrap_or_default();
    let slices: Vec<&Value> = slices
        .iter()
        .filter(|s| s["metadata"]["labels"][SERVICE_NAME_LABEL] == name)
        .collect();
    let no_endpoints = |what: &str| {
        ApiError::service_unavailable(format!("no endpoints available for service {what:?}"))
    };
    if slices.is_empty() {
        // kube-apiserver (1.36) reads the service's v1 Endpoints, which the controller
        // manager writes beside its slices; without them (no controllers, or no selector)
        // its lookup fails as the service's, whatever slices or selector there are. A 503
        // here would also be retried by clients (kube-rs retries 503s) instead of failing.
        return Err(ApiError::not_found("", "services", name));
    }
    let endpoints = |s: &&Value| s["endpoints"].as_array().map_or(0, Vec::len);
    if slices.iter().map(endpoints).sum::<usize>() == 0 {
        return Err(no_endpoints(name));
    }
    let pods = app
        .registry
        .resolve("", "v1", "pods")
        .ok_or_else(ApiError::path_not_found)?;
    let mut candidates = vec![];
    for slice in slices {
        let port = slice["ports"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["name"].as_str().unwrap_or_default() == port_name)
            .and_then(|p| p["port"].as_u64());
        let Some(port) = port else { continue };
        for endpoint in slice["endpoints"].as_array().into_iter().flatten() {
            let ready = endpoint["conditions"]["ready"].as_bool().unwrap_or(true);
            let pod = endpoint["targetRef"]["name"]
                .as_str()
                .and_then(|pod| app.registry.get(&pods, ns, pod).ok());
            if let (true, Some(pod)) = (ready, pod) {
                candidates.push((pod, port.to_string()));
            }
        }
    }
    if candidates.is_empty() {
        return Err(no_endpoints(id));
    }
    let pick = (uuid::Uuid::new_v4().as_u128() % candidates.len() as u128) as usize;
    Ok(candidates.swap_remove(pick))
}
