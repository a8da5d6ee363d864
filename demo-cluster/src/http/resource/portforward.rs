//! `pods/portforward`, checked in kube-apiserver's order (the permission, in `connect.rs`;
//! the pod, 404; its node; the upgrade, 400 `Upgrade request required`), then served as the
//! kubelet behind kube-apiserver serves it:
//! - a WebSocket offering `SPDY/3.1+portforward.k8s.io` (kubectl 1.31+): kube-apiserver's own
//!   tunnel, SPDY inside the WebSocket (`crate::portforward::tunnel`);
//! - any other WebSocket: the kubelet's channel protocol (`crate::portforward::websocket`),
//!   the ports from the `ports` query parameter (kube-apiserver hands them on as `port`);
//! - a plain SPDY/3.1 upgrade (kubectl before 1.31, or with
//!   `KUBECTL_PORT_FORWARD_WEBSOCKETS=false`): the kubelet's handshake
//!   (`X-Stream-Protocol-Version: portforward.k8s.io`), then the same streams as the tunnel
//!   (`crate::portforward::tunnel::run_spdy`).

use std::sync::Arc;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::connect::{is_upgrade, kubelet_of_pod, query_pairs};
use super::AppState;
use crate::errors::{ApiError, ApiResult};
use crate::portforward::websocket::{ChannelSession, Encoding};
use crate::portforward::{tunnel, websocket, Forwarded};
use crate::registry::kinds::ResourceDef;
use crate::spdy::conn;

pub(super) async fn serve(
    app: &AppState,
    mut parts: Parts,
    def: &Arc<ResourceDef>,
    ns: &str,
    name: &str,
) -> ApiResult<Response> {
    let pod = app.registry.get(def, ns, name)?;
    kubelet_of_pod(app, &pod, name)?;
    if !is_upgrade(&parts.headers) {
        return Err(ApiError::bad_request("Upgrade request required"));
    }
    let offered = offered_protocols(&parts.headers);
    let websocket = parts
        .headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let registry = app.registry.clone();
    if !websocket && conn::is_spdy_upgrade(&parts.headers) {
        let protocol = match conn::handshake(&parts.headers, &[tunnel::SPDY_PROTOCOL]) {
            Ok(protocol) => protocol,
            Err(refused) => return Ok(*refused),
        };
        let on_upgrade = parts.extensions.remove::<hyper::upgrade::OnUpgrade>();
        return Ok(conn::upgrade(on_upgrade, protocol, move |io| {
            tunnel::run_spdy(io, pod, registry)
        }));
    }
    if !websocket {
        return Err(ApiError::bad_request(
            "the demo cluster serves pods/portforward over WebSocket \
             (SPDY/3.1+portforward.k8s.io, v4.channel.k8s.io, v4.base64.channel.k8s.io) \
             and a SPDY/3.1 upgrade only",
        ));
    }
    if offered.iter().any(|p| p == tunnel::PROTOCOL) {
        let upgrade = upgrade(&mut parts).await?.protocols([tunnel::PROTOCOL]);
        return Ok(upgrade.on_upgrade(move |socket| tunnel::run(socket, pod, registry)));
    }
    let ports = match requested_ports(&parts)? {
        Ok(ports) => ports,
        Err(message) => return Ok(kubelet_error(&message)),
    };
    // The kubelet's choice: the first of the offer it knows; nothing offered is binary.
    let choice = offered.iter().find_map(|p| match p.as_str() {
        "v4.channel.k8s.io" | "channel.k8s.io" => Some((p.clone(), Encoding::Binary)),
        "v4.base64.channel.k8s.io" | "base64.channel.k8s.io" => Some((p.clone(), Encoding::Base64)),
        _ => None,
    });
    let session = |encoding| ChannelSession {
        ports: ports.iter().map(|p| Forwarded::of(&pod, *p)).collect(),
        encoding,
        registry,
    };
    let upgrade = upgrade(&mut parts).await?;
    Ok(match (offered.is_empty(), choice) {
        (true, _) => {
            let session = session(Encoding::Binary);
            upgrade.on_upgrade(move |socket| websocket::run(socket, session))
        }
        (false, Some((protocol, encoding))) => {
            let session = session(encoding);
            upgrade
                .protocols([protocol])
                .on_upgrade(move |socket| websocket::run(socket, session))
        }
        // The kubelet's WebSocket server refuses the handshake, with nothing in the body.
        (false, None) => StatusCode::FORBIDDEN.into_response(),
    })
}

async fn upgrade(parts: &mut Parts) -> ApiResult<WebSocketUpgrade> {
    WebSocketUpgrade::from_request_parts(parts, &())
        .await
        .map_err(|e| ApiError::bad_request(e.to_string()))
}

/// The `ports` query parameter (each value may list several, comma separated), read as
/// kube-apiserver converts it (a Status 400 for what is not a 16-bit number), then checked as
/// the kubelet checks the `port` parameters it is handed on as (its `http.Error` text).
fn requested_ports(parts: &Parts) -> ApiResult<Result<Vec<u16>, String>> {
    let mut ports = vec![];
    for (_, value) in query_pairs(parts).into_iter().filter(|(k, _)| k == "ports") {
        for part in value.split(',') {
            let port: u16 = part.parse().map_err(|e: std::num::ParseIntError| {
                let why = match e.kind() {
                    std::num::IntErrorKind::PosOverflow => "value out of range",
                    _ => "invalid syntax",
                };
                ApiError::bad_request(format!(
                    "cannot convert to []int32: strconv.ParseUint: parsing {part:?}: {why}"
                ))
            })?;
            ports.push(port);
        }
    }
    if ports.is_empty() {
        return Ok(Err("query parameter \"port\" is required".into()));
    }
    if ports.contains(&0) {
        return Ok(Err("port \"0\" must be > 0".into()));
    }
    Ok(Ok(ports))
}

/// The kubelet's `http.Error`, which kube-apiserver's proxy passes on.
fn kubelet_error(message: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        format!("{message}\n"),
    )
        .into_response()
}

/// `Sec-WebSocket-Protocol`'s names, in the client's order.
pub(super) fn offered_protocols(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}
