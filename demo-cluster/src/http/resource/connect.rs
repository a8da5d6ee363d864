//! The connect subresources: `pods/exec`, `pods/attach`, `pods/portforward` and the proxies
//! (`pods/proxy`, `nodes/proxy`, `services/proxy`): the checks they share, and `nodes/proxy`
//! answered as kube-apiserver answers it when nothing listens behind the kubelet's address.
//!
//! The demo's kubelets are simulated in-process: they write pod statuses and serve logs
//! (`pods/log`), but have no streaming server and no containers to reach. kube-apiserver in
//! front of such a node (an address whose port 10250 refuses connections) finds the pod, its
//! node and the node's address as usual, then fails to dial; the demo does the same, in the
//! same order and words. Pods are different: their ports answer as simulated containers
//! (`crate::portforward`), through `pods/portforward` (`portforward.rs`), `pods/proxy` and
//! `services/proxy` (`proxy.rs`); exec and attach are `exec.rs`.

use std::net::IpAddr;
use std::sync::Arc;

use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method};
use axum::response::Response;
use serde_json::Value;

use super::{AppState, Target};
use crate::auth::rbac;
use crate::auth::request_info::Attributes;
use crate::errors::{ApiError, ApiResult};
use crate::registry::kinds::ResourceDef;

/// kube-apiserver's `--kubelet-preferred-address-types` default, in its order.
const PREFERRED_ADDRESS_TYPES: &[&str] = &[
    "Hostname",
    "InternalDNS",
    "InternalIP",
    "ExternalDNS",
    "ExternalIP",
];
/// The kubelet's port when the Node does not publish one.
const DEFAULT_KUBELET_PORT: u64 = 10250;
pub(super) fn is_connect(sub: &str) -> bool {
    matches!(sub, "exec" | "attach" | "portforward" | "proxy")
}

pub(super) async fn connect(
    app: &AppState,
    parts: Parts,
    def: Arc<ResourceDef>,
    target: Target,
) -> ApiResult<Response> {
    let Target::Subresource {
        namespace,
        name,
        sub,
    } = target
    else {
        return Err(ApiError::path_not_found());
    };
    let ns = namespace.unwrap_or_default();
    if sub == "proxy" && def.resource == "nodes" {
        return Err(node_proxy(app, &def, &name));
    }
    if sub == "proxy" {
        return super::proxy::serve(app, &parts, &def, &ns, &name).await;
    }
    // The streams are opened by GET (WebSocket) or POST (SPDY) only.
    if parts.method != Method::GET && parts.method != Method::POST {
        return Err(ApiError::method_not_allowed());
    }
    if parts.method == Method::GET {
        authorize_create(app, &parts, &name)?;
    }
    if sub == "exec" || sub == "attach" {
        return super::exec::serve(app, parts, &def, &ns, &name, &sub).await;
    }
    super::portforward::serve(app, parts, &def, &ns, &name).await
}

/// kube-apiserver (1.35 and later, `AuthorizePodWebsocketUpgradeCreatePermission`) also
/// requires `create` on `pods/exec`, `pods/attach` and `pods/portforward` for the GET a
/// WebSocket upgrade is, before it looks the pod up; its refusal names no reason (recorded:
/// `pods "web" is forbidden: `).
fn authorize_create(app: &AppState, parts: &Parts, name: &str) -> ApiResult<()> {
    let Some(requester) = parts.extensions.get::<crate::auth::RequestUser>() else {
        return Ok(());
    };
    let path = parts
        .extensions
        .get::<crate::http::OriginalPath>()
        .map_or_else(|| parts.uri.path().to_string(), |p| p.0.clone());
    let attributes = Attributes::of_request("POST", &path, parts.uri.query());
    if rbac::authorize(&app.registry.store, &requester.user, &attributes).allowed {
        Ok(())
    } else {
        Err(ApiError::forbidden_by_authorizer("", "pods", name, ""))
    }
}

/// The error a `nodes/proxy` request ends in: the node and its kubelet's address are looked
/// up as kube-apiserver does, then nothing answers there (the demo's kubelets serve no HTTP).
fn node_proxy(app: &AppState, def: &ResourceDef, id: &str) -> ApiError {
    let Some((_, name, port)) = split_scheme_name_port(id) else {
        return ApiError::bad_request(format!("invalid node request {id:?}"));
    };
    let outcome = app.registry.get(def, "", name).and_then(|node| {
        let (host, kubelet_port) = kubelet_address(&node)?;
        let port = port.map_or_else(|| kubelet_port.to_string(), str::to_string);
        Ok(join_host_port(&host, &port))
    });
    match outcome {
        Err(e) => e,
        Ok(address) if !proxyable(&address) => ApiError::bad_request("address not allowed"),
        Ok(address) => ApiError::service_unavailable(format!(
            "error trying to reach service: {}",
            connection_refused(&address)
        )),
    }
}

/// `[scheme:]name[:port]`, as kube-apiserver's `SplitSchemeNamePort`.
pub(super) fn split_scheme_name_port(id: &str) -> Option<(&str, &str, Option<&str>)> {
    let parts: Vec<&str> = id.split(':').collect();
    let (scheme, name, port) = match parts.as_slice() {
        [name] => ("", *name, None),
        [name, port] => ("", *name, Some(*port)),
        [scheme, name, port] => (*scheme, *name, Some(*port)),
        _ => return None,
    };
    let known_scheme = matches!(scheme, "" | "http" | "https");
    (known_scheme && !name.is_empty()).then_some((scheme, name, port.filter(|p| !p.is_empty())))
}

/// kube-apiserver refuses to proxy to loopback and link-local addresses (and to anything
/// that is not an address, such as a pod without an IP).
pub(super) fn proxyable(address: &str) -> bool {
    let host = address
        .rsplit_once(':')
        .map_or(address, |(host, _)| host)
        .trim_start_matches('[')
        .trim_end_matches(']');
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => !(ip.is_loopback() || ip.is_link_local() || ip.is_unspecified()),
        Ok(IpAddr::V6(ip)) => {
            let link_local = (ip.segments()[0] & 0xffc0) == 0xfe80;
            !(ip.is_loopback() || link_local || ip.is_unspecified())
        }
        // A host name: resolved by kube-apiserver, not refused outright.
        Err(_) => !host.is_empty(),
    }
}

pub(super) fn join_host_port(host: &str, port: &str) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The kubelet of the pod's node (`host:port`), or kube-apiserver's error on the way there.
pub(super) fn kubelet_of_pod(app: &AppState, pod: &Value, pod_name: &str) -> ApiResult<String> {
    let node_name = pod["spec"]["nodeName"].as_str().unwrap_or_default();
    if node_name.is_empty() {
        return Err(ApiError::bad_request(format!(
            "pod {pod_name} does not have a host assigned"
        )));
    }
    let nodes = app
        .registry
        .resolve("", "v1", "nodes")
        .ok_or_else(ApiError::path_not_found)?;
    // kube-apiserver's node lookup reports a missing node in the pods' resource.
    let node = app
        .registry
        .get(&nodes, "", node_name)
        .map_err(|_| ApiError::not_found("", "pods", node_name))?;
    let (host, port) = kubelet_address(&node)?;
    Ok(join_host_port(&host, &port.to_string()))
}

/// The node's address of the first preferred type, and its kubelet's port.
fn kubelet_address(node: &Value) -> ApiResult<(String, u64)> {
    let addresses: Vec<(&str, &str)> = node["status"]["addresses"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            (
                a["type"].as_str().unwrap_or_default(),
                a["address"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let preferred = PREFERRED_ADDRESS_TYPES.iter().find_map(|wanted| {
        addresses
            .iter()
            .find(|(kind, address)| kind == wanted && !address.is_empty())
    });
    let Some((_, host)) = preferred else {
        // Go's %v of the NodeAddress list.
        let known: Vec<String> = addresses
            .iter()
            .map(|(kind, address)| format!("{{{kind} {address}}}"))
            .collect();
        return Err(ApiError::internal_without_reason(format!(
            "no preferred addresses found; known addresses: [{}]",
            known.join(" ")
        )));
    };
    let port = node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"]
        .as_u64()
        .filter(|p| *p > 0)
        .unwrap_or(DEFAULT_KUBELET_PORT);
    Ok((host.to_string(), port))
}

/// What Go's dialer reports when nothing listens at `address`.
pub(super) fn connection_refused(address: &str) -> String {
    format!("dial tcp {address}: connect: connection refused")
}

/// The names of a pod's containers of one kind (`containers`, `initContainers`,
/// `ephemeralContainers`).
pub(super) fn container_names<'a>(pod: &'a Value, kind: &str) -> Vec<&'a str> {
    pod["spec"][kind]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect()
}

/// The container a pod-level request means: the one named (a container, an init container or
/// an ephemeral one), or the pod's only container, in kube-apiserver's words
/// (`pkg/registry/core/pod/strategy.go`).
pub(super) fn container_of(
    pod: &Value,
    requested: Option<&str>,
    pod_name: &str,
) -> ApiResult<String> {
    let containers = container_names(pod, "containers");
    let init = container_names(pod, "initContainers");
    let ephemeral = container_names(pod, "ephemeralContainers");
    match (requested.filter(|c| !c.is_empty()), containers.as_slice()) {
        (Some(c), _) if containers.contains(&c) || init.contains(&c) || ephemeral.contains(&c) => {
            Ok(c.to_string())
        }
        (Some(c), _) => Err(ApiError::bad_request(format!(
            "container {c} is not valid for pod {pod_name}"
        ))),
        (None, [only]) => Ok(only.to_string()),
        (None, []) => Err(ApiError::bad_request(format!(
            "a container name must be specified for pod {pod_name}"
        ))),
        (None, _) => {
            let mut message = format!(
                "a container name must be specified for pod {pod_name}, choose one of: [{}]",
                containers.join(" ")
            );
            if !init.is_empty() {
                message.push_str(&format!(
                    " or one of the init containers: [{}]",
                    init.join(" ")
                ));
            }
            Err(ApiError::bad_request(message))
        }
    }
}

/// The query as pairs, repeated keys kept (`command` is one per argument).
pub(super) fn query_pairs(parts: &Parts) -> Vec<(String, String)> {
    axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
        .map(|q| q.0)
        .unwrap_or_default()
}

pub(super) fn query_value<'a>(query: &'a [(String, String)], key: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Go's `strconv.ParseBool` truths, which query parameters are decoded with.
pub(super) fn go_bool(value: &str) -> bool {
    matches!(value, "1" | "t" | "T" | "true" | "TRUE" | "True")
}

/// `Connection: Upgrade` (a token of the header), as kube-apiserver's `IsUpgradeRequest`.
pub(super) fn is_upgrade(headers: &HeaderMap) -> bool {
    headers.get_all(header::CONNECTION).iter().any(|v| {
        v.to_str()
            .unwrap_or_default()
            .split(',')
            .any(|token| token.trim().eq_ignore_ascii_case("upgrade"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_split_as_kube_apiserver_splits_them() {
        assert_eq!(split_scheme_name_port("p"), Some(("", "p", None)));
        assert_eq!(split_scheme_name_port("p:80"), Some(("", "p", Some("80"))));
        assert_eq!(
            split_scheme_name_port("https:p:443"),
            Some(("https", "p", Some("443")))
        );
        assert_eq!(split_scheme_name_port("ftp:p:21"), None);
        assert_eq!(split_scheme_name_port("a:b:c:d"), None);
    }

    #[test]
    fn loopback_link_local_and_missing_addresses_are_not_proxied() {
        assert!(!proxyable("127.0.0.1:80"));
        assert!(!proxyable("169.254.1.1:80"));
        assert!(!proxyable(":80"));
        assert!(!proxyable("[::1]:80"));
        assert!(proxyable("10.244.1.5:80"));
        assert!(proxyable("demo-node-1:10250"));
    }
}
