//! `pods/exec` and `pods/attach` over a WebSocket, checked in kube-apiserver's order: the pod
//! (404), the container (400, `pkg/registry/core/pod/strategy.go`), its node, the upgrade
//! (400 `Upgrade request required`); then the channel protocol as kube-apiserver picks it
//! (`v5.channel.k8s.io` if offered at all, answered by its stream translator; otherwise the
//! kubelet's choice, the first of the offer it knows, an offer of nothing known refused with a
//! bare 403); then the session (`crate::exec`). A plain SPDY/3.1 upgrade (kubectl before 1.30,
//! or with `KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false`) is the kubelet's: its options check, its
//! handshake over `X-Stream-Protocol-Version` (v4, v3, v2 or v1 of `channel.k8s.io`), then the
//! same session on SPDY streams (`crate::exec::spdy`).

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
use crate::spdy::conn;

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
    let spdy = !is_websocket(&parts.headers);
    if spdy && !conn::is_spdy_upgrade(&parts.headers) {
        return Err(ApiError::bad_request(
            "the demo cluster serves pods/exec and pods/attach over WebSocket \
             (v5.channel.k8s.io, v4.channel.k8s.io, v4.base64.channel.k8s.io, \
             base64.channel.k8s.io) and a SPDY/3.1 upgrade only",
        ));
    }
    let flag = |key: &str| query_value(&query, key).is_some_and(go_bool);
    let streams = Streams {
        stdin: flag("stdin"),
        stdout: flag("stdout"),
        stderr: flag("stderr"),
        tty: flag("tty"),
    };
    if spdy && !streams.any() {
        return Ok(conn::plain_error(
            StatusCode::BAD_REQUEST,
            "you must specify at least 1 of stdin, stdout, stderr",
        ));
    }
    let spdy_protocol = if spdy {
        match conn::handshake(&parts.headers, &crate::exec::spdy::PROTOCOLS) {
            Ok(protocol) => Some(protocol),
            Err(refused) => return Ok(*refused),
        }
    } else {
        None
    };
    let offered = offered_protocols(&parts.headers);
    let protocol = match spdy_protocol {
        Some(name) => Some(crate::exec::spdy::status_protocol(name)),
        None => server_choice(offered.iter().map(String::as_str)),
    };
    let Some(protocol) = protocol else {
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
    if let Some(name) = spdy_protocol {
        let on_upgrade = parts.extensions.remove::<hyper::upgrade::OnUpgrade>();
        return Ok(conn::upgrade(on_upgrade, name, move |io| {
            crate::exec::spdy::run(io, session, name)
        }));
    }
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
