//! The connect subresources: `pods/exec`, `pods/attach`, `pods/portforward` and the proxies
//! (`pods/proxy`, `nodes/proxy`, `services/proxy`), answered as kube-apiserver answers them
//! when nothing listens behind the addresses it would dial.
//!
//! The demo's kubelets are simulated in-process: they write pod statuses and serve logs
//! (`pods/log`), but have no streaming server and no containers to reach. kube-apiserver in
//! front of such a node (an address whose port 10250 refuses connections) finds the pod, its
//! node and the node's address as usual, then fails to dial; the demo does the same, in the
//! same order and words, so `kubectl exec`, `attach` and `port-forward` fail at once with the
//! error a real cluster gives instead of hanging. Pod and service backends are treated alike:
//! nothing listens at a pod IP either.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocketUpgrade};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method};
use axum::response::Response;
use serde_json::{json, Value};

use super::{AppState, Target};
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
/// The channel protocol whose WebSocket kube-apiserver terminates itself (translating to
/// the kubelet's SPDY), so a failed dial arrives as a Status on the error channel.
const CHANNEL_V5: &str = "v5.channel.k8s.io";
const STDOUT_CHANNEL: u8 = 1;
const STDERR_CHANNEL: u8 = 2;
const ERROR_CHANNEL: u8 = 3;
/// How long after the upgrade the first message waits (see `connect`).
const STREAM_SETUP_GRACE: std::time::Duration = std::time::Duration::from_millis(100);

pub(super) fn is_connect(sub: &str) -> bool {
    matches!(sub, "exec" | "attach" | "portforward" | "proxy")
}

pub(super) async fn connect(
    app: &AppState,
    mut parts: Parts,
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
    if sub == "proxy" {
        return Err(proxy(app, &def, &ns, &name));
    }
    // The streams are opened by GET (WebSocket) or POST (SPDY) only.
    if parts.method != Method::GET && parts.method != Method::POST {
        return Err(ApiError::method_not_allowed());
    }
    let query = query_pairs(&parts);
    let pod = app.registry.get(&def, &ns, &name)?;
    let container = match sub.as_str() {
        "portforward" => None,
        _ => Some(container_of(&pod, query_value(&query, "container"), &name)?),
    };
    let kubelet = kubelet_of_pod(app, &pod, &name)?;
    if !is_upgrade(&parts.headers) {
        return Err(ApiError::bad_request("Upgrade request required"));
    }
    let refused = connection_refused(&kubelet);
    let Some(container) = container.filter(|_| wants_channel_v5(&parts.headers)) else {
        // SPDY, and port forwarding by any protocol, are proxied to the kubelet as they are:
        // the dial fails before the client's upgrade is answered.
        return Err(ApiError::internal_without_reason(format!(
            "error dialing backend: {refused}"
        )));
    };
    let flag = |key: &str| query_value(&query, key).is_some_and(go_bool);
    // Go's URL leaves out the `?` of an empty query.
    let kubelet_query = kubelet_query(&query, &sub, &flag);
    let query_part = if kubelet_query.is_empty() {
        String::new()
    } else {
        format!("?{kubelet_query}")
    };
    let url = format!("https://{kubelet}/{sub}/{ns}/{name}/{container}{query_part}");
    let cause = format!("error sending request: Post {url:?}: {refused}");
    let status = json!({
        "metadata": {}, "status": "Failure", "message": format!("Internal error occurred: {cause}"),
        "reason": "InternalError", "details": {"causes": [{"message": cause}]}, "code": 500,
    });
    // kube-apiserver first opens a writable stream channel with an empty message (stdout,
    // else stderr, else the error channel), then sends the Status and closes.
    let first_channel = if flag("stdout") {
        STDOUT_CHANNEL
    } else if flag("stderr") && !flag("tty") {
        STDERR_CHANNEL
    } else {
        ERROR_CHANNEL
    };
    let upgrade = WebSocketUpgrade::from_request_parts(&mut parts, &())
        .await
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    Ok(upgrade
        .protocols([CHANNEL_V5])
        .on_upgrade(move |mut socket| async move {
            // kube-apiserver writes once its dial to the kubelet has failed; a client that
            // reads at once but sets up its streams a moment later (kubectl attach) logs
            // "Unknown stream id 1" for a frame sent straight after the upgrade.
            tokio::time::sleep(STREAM_SETUP_GRACE).await;
            let mut error_message = vec![ERROR_CHANNEL];
            error_message.extend(status.to_string().into_bytes());
            for message in [
                Message::Binary(vec![first_channel].into()),
                Message::Binary(error_message.into()),
                Message::Close(Some(CloseFrame {
                    code: 1000,
                    reason: "".into(),
                })),
            ] {
                if socket.send(message).await.is_err() {
                    return;
                }
            }
        }))
}

/// The error a proxy request ends in: the object and its address are looked up as
/// kube-apiserver does, then nothing answers there.
fn proxy(app: &AppState, def: &ResourceDef, ns: &str, id: &str) -> ApiError {
    let Some((scheme, name, port)) = split_scheme_name_port(id) else {
        let singular = def.resource.trim_end_matches('s');
        return ApiError::bad_request(format!("invalid {singular} request {id:?}"));
    };
    let outcome = match def.resource.as_str() {
        "pods" => app.registry.get(def, ns, name).map(|pod| {
            let ip = pod["status"]["podIP"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let port = match (port, scheme) {
                (Some(port), _) => port.to_string(),
                (None, "https") => "443".to_string(),
                (None, _) => "80".to_string(),
            };
            join_host_port(&ip, &port)
        }),
        "nodes" => app.registry.get(def, "", name).and_then(|node| {
            let (host, kubelet_port) = kubelet_address(&node)?;
            let port = port.map_or_else(|| kubelet_port.to_string(), str::to_string);
            Ok(join_host_port(&host, &port))
        }),
        // A Service is reached through its v1 Endpoints, which no controller of the demo
        // writes: without them kube-apiserver reports the service itself as not found.
        _ => {
            let found = app.registry.get(def, ns, name).and_then(|_| {
                app.registry
                    .resolve("", "v1", "endpoints")
                    .and_then(|endpoints| app.registry.get(&endpoints, ns, name).ok())
                    .ok_or_else(|| ApiError::not_found("", "services", name))
            });
            return match found {
                Ok(_) => ApiError::service_unavailable(format!(
                    "no endpoints available for service {id:?}"
                )),
                Err(e) => e,
            };
        }
    };
    match outcome {
        Err(e) => e,
        Ok(address) if !proxyable(&address) => ApiError::bad_request("address not allowed"),
        Ok(address) => ApiError::service_unavailable(format!(
            "error trying to reach service: dial tcp {address}: connect: connection refused"
        )),
    }
}

/// `[scheme:]name[:port]`, as kube-apiserver's `SplitSchemeNamePort`.
fn split_scheme_name_port(id: &str) -> Option<(&str, &str, Option<&str>)> {
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
fn proxyable(address: &str) -> bool {
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

fn join_host_port(host: &str, port: &str) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The kubelet of the pod's node (`host:port`), or kube-apiserver's error on the way there.
fn kubelet_of_pod(app: &AppState, pod: &Value, pod_name: &str) -> ApiResult<String> {
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
fn connection_refused(address: &str) -> String {
    format!("dial tcp {address}: connect: connection refused")
}

/// The container a pod-level request means: the one named, or the pod's only one.
pub(super) fn container_of(
    pod: &Value,
    requested: Option<&str>,
    pod_name: &str,
) -> ApiResult<String> {
    let containers: Vec<&str> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    match (requested, containers.as_slice()) {
        (Some(c), _) if containers.contains(&c) => Ok(c.to_string()),
        (Some(c), _) => Err(ApiError::bad_request(format!(
            "container {c} is not valid for pod {pod_name}"
        ))),
        (None, [only]) => Ok(only.to_string()),
        (None, _) => Err(ApiError::bad_request(format!(
            "a container name must be specified for pod {pod_name}, choose one of: [{}]",
            containers.join(" ")
        ))),
    }
}

/// The query as pairs, repeated keys kept (`command` is one per argument).
fn query_pairs(parts: &Parts) -> Vec<(String, String)> {
    axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
        .map(|q| q.0)
        .unwrap_or_default()
}

fn query_value<'a>(query: &'a [(String, String)], key: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Go's `strconv.ParseBool` truths, which query parameters are decoded with.
fn go_bool(value: &str) -> bool {
    matches!(value, "1" | "t" | "T" | "true" | "TRUE" | "True")
}

/// The query kube-apiserver sends the kubelet: `command` per argument and the stream flags
/// as `1`, keys sorted as Go's `url.Values.Encode` sorts them.
fn kubelet_query(query: &[(String, String)], sub: &str, flag: &dyn Fn(&str) -> bool) -> String {
    let mut pairs: Vec<(&str, String)> = vec![];
    if sub == "exec" {
        pairs.extend(
            query
                .iter()
                .filter(|(k, _)| k == "command")
                .map(|(_, v)| ("command", go_query_escape(v))),
        );
    }
    for (param, kubelet_key) in [
        ("stderr", "error"),
        ("stdin", "input"),
        ("stdout", "output"),
        ("tty", "tty"),
    ] {
        if flag(param) {
            pairs.push((kubelet_key, "1".to_string()));
        }
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Go's `url.QueryEscape`.
fn go_query_escape(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b' ' => "+".to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `Connection: Upgrade` (a token of the header), as kube-apiserver's `IsUpgradeRequest`.
fn is_upgrade(headers: &HeaderMap) -> bool {
    headers.get_all(header::CONNECTION).iter().any(|v| {
        v.to_str()
            .unwrap_or_default()
            .split(',')
            .any(|token| token.trim().eq_ignore_ascii_case("upgrade"))
    })
}

/// A WebSocket offering the v5 channel protocol (kubectl 1.30 and later, for exec and attach).
fn wants_channel_v5(headers: &HeaderMap) -> bool {
    let websocket = headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let offers_v5 = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|p| p.trim() == CHANNEL_V5);
    websocket && offers_v5
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

    #[test]
    fn the_kubelet_query_is_sorted_as_go_encodes_it() {
        let query: Vec<(String, String)> = [
            ("stdout", "true"),
            ("command", "ls"),
            ("command", "-l /"),
            ("stderr", "1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let flag = |key: &str| query_value(&query, key).is_some_and(go_bool);
        assert_eq!(
            kubelet_query(&query, "exec", &flag),
            "command=ls&command=-l+%2F&error=1&output=1"
        );
    }
}
