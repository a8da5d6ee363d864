//! `pods/exec` and `pods/attach` over a WebSocket, checked in kube-apiserver's order: the pod
//! (404), the container (400, `pkg/registry/core/pod/strategy.go`), its node, the upgrade
//! (400 `Upgrade request required`); then the channel protocol as kube-apiserver picks it
//! (`v5.channel.k8s.io` if offered at all, answered by its stream translator; otherwise the
//! kubelet's choice, the first of the offer it knows, an offer of nothing known refused with a
//! bare 403); then the session (`crate::exec`). SPDY (kubectl before 1.30, or after a refused
//! WebSocket) is not served.

use std::sync::Arc;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kube_atlas_model::object::terminal::protocol::{server_choice, Protocol};
use serde_json::Value;

use super::connect::{container_of, go_bool, is_upgrade, kubelet_of_pod, query_pairs, query_value};
use super::AppState;
use crate::errors::{ApiError, ApiResult};
use crate::exec::session::{self, Process, Session, Streams};
use crate::registry::kinds::ResourceDef;

pub(super) async fn serve(
    app: &AppState,
    mut parts: Parts,
    def: &Arc<ResourceDef>,
    ns: &str,
    name: &str,
    sub: &str,
) -> ApiResult<Response> {
    let query = query_pairs(&parts);
    let pod = app.registry.get(def, ns, name)?;
    let container = container_of(&pod, query_value(&query, "container"), name)?;
    kubelet_of_pod(app, &pod, name)?;
    if !is_upgrade(&parts.headers) {
        return Err(ApiError::bad_request("Upgrade request required"));
    }
    if !is_websocket(&parts.headers) {
        return Err(ApiError::bad_request(
            "the demo cluster serves pods/exec and pods/attach over WebSocket only \
             (v5.channel.k8s.io, v4.channel.k8s.io, v4.base64.channel.k8s.io, \
             base64.channel.k8s.io), not SPDY",
        ));
    }
    let flag = |key: &str| query_value(&query, key).is_some_and(go_bool);
    let streams = Streams {
        stdin: flag("stdin"),
        stdout: flag("stdout"),
        stderr: flag("stderr"),
        tty: flag("tty"),
    };
    let offered = offered_protocols(&parts.headers);
    let Some(protocol) = server_choice(offered.iter().map(String::as_str)) else {
        // The kubelet's WebSocket server refuses the handshake, with nothing in the body.
        return Ok(StatusCode::FORBIDDEN.into_response());
    };
    if protocol != Protocol::V5 && !streams.any() {
        // The kubelet's options check, before its handshake (Go's `http.Error`).
        return Ok((
            StatusCode::BAD_REQUEST,
            [
                (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            ],
            "you must specify at least 1 of stdin, stdout, stderr\n",
        )
            .into_response());
    }
    let process = match sub {
        "exec" => Process::Exec(
            query
                .iter()
                .filter(|(k, _)| k == "command")
                .map(|(_, v)| v.clone())
                .collect(),
        ),
        _ => Process::Attach,
    };
    let refused = (!is_running(&pod, &container)).then(|| {
        let doing = match process {
            Process::Exec(_) => "error executing command in container",
            Process::Attach => "error attaching to container",
        };
        format!("{doing}: container {container:?} is not running")
    });
    let session = Session {
        protocol,
        pod: name.to_string(),
        namespace: ns.to_string(),
        container,
        process,
        streams,
        refused,
    };
    let upgrade = WebSocketUpgrade::from_request_parts(&mut parts, &())
        .await
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    // An empty offer is answered with no protocol (the kubelet's `channel.k8s.io`).
    let upgrade = if offered.is_empty() {
        upgrade
    } else {
        upgrade.protocols([protocol.name()])
    };
    Ok(upgrade.on_upgrade(move |socket| session::run(socket, session)))
}

fn is_websocket(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// `Sec-WebSocket-Protocol`'s names, in the client's order.
fn offered_protocols(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Whether the container has a running instance: its status says `running` (the demo's
/// kubelet starts debug containers at once, as the stand-in kubelet does).
fn is_running(pod: &Value, container: &str) -> bool {
    let status = [
        "containerStatuses",
        "initContainerStatuses",
        "ephemeralContainerStatuses",
    ]
    .iter()
    .filter_map(|kind| pod["status"][kind].as_array())
    .flatten()
    .find(|s| s["name"] == container);
    status.is_some_and(|status| status["state"]["running"].is_object())
}
