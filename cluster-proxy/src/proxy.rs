//! Forwarding one request to a context's API server through its kube-rs client (which adds
//! the context's credentials): the answer streamed back as it comes (watches and followed
//! logs are never buffered), and WebSocket upgrades joined end to end.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;

use crate::contexts::{failure_of_request_error, ContextSlot, Failure, Timeouts};
use crate::routing::{forwarded_request_header, forwarded_response_header};
use crate::session::Session;

/// The largest request body passed on. Request bodies (objects to create, patches) are read
/// whole first: kube-rs's client takes a body it can replay; kube-apiserver itself refuses
/// objects over 3 MiB.
pub const MAX_REQUEST_BODY: usize = 16 * 1024 * 1024;

/// How long an API server may take to start answering (the status line and headers; a watch
/// or a followed log answers at once and then streams for as long as it likes).
pub const RESPONSE_HEADERS_TIMEOUT: Duration = Duration::from_secs(60);

/// A Kubernetes `Status` document, as the page reads every API error.
pub fn status_document(code: StatusCode, reason: &str, message: &str) -> serde_json::Value {
    serde_json::json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code.as_u16(),
    })
}

/// A [`status_document`] as the answer to a request.
pub fn status_response(code: StatusCode, reason: &str, message: &str) -> Response {
    (
        code,
        [(http::header::CONTENT_TYPE, "application/json")],
        status_document(code, reason, message).to_string(),
    )
        .into_response()
}

fn is_websocket_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(http::header::UPGRADE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.eq_ignore_ascii_case("websocket"))
}

/// A request that reached no API server: the cluster's entry is marked with why (see
/// [`Unreachable::record`]), and the page reads the same reason in a 502 Status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    /// `cluster NAME: why`.
    pub message: String,
}

impl Unreachable {
    pub const CODE: StatusCode = StatusCode::BAD_GATEWAY;
    pub const REASON: &'static str = "ServiceUnavailable";

    /// Marks `slot` failed with `failure` and says so.
    pub fn record(slot: &ContextSlot, failure: &Failure) -> Unreachable {
        slot.set_failed(failure);
        Unreachable {
            message: format!("cluster {}: {}", slot.name, failure.reason()),
        }
    }

    pub fn document(&self) -> serde_json::Value {
        status_document(Self::CODE, Self::REASON, &self.message)
    }

    pub fn response(&self) -> Response {
        status_response(Self::CODE, Self::REASON, &self.message)
    }
}

/// Sends `request` (a path and query, no host) to `slot`'s API server through the context's
/// kube-rs client, which adds its credentials, and waits up to [`RESPONSE_HEADERS_TIMEOUT`]
/// for the answer to start; its body then streams for as long as the server sends it.
pub async fn send_upstream(
    slot: &ContextSlot,
    timeouts: Timeouts,
    request: Request<kube::client::Body>,
) -> Result<http::Response<kube::client::Body>, Unreachable> {
    let client = slot
        .client(timeouts.credentials)
        .await
        .map_err(|failure| Unreachable::record(slot, &failure))?;
    match tokio::time::timeout(RESPONSE_HEADERS_TIMEOUT, client.send(request)).await {
        Ok(Ok(response)) => Ok(response),
        Ok(Err(error)) => Err(Unreachable::record(
            slot,
            &failure_of_request_error(&error, &slot.server),
        )),
        Err(_) => Err(Unreachable::record(
            slot,
            &Failure::NoAnswer {
                server: slot.server.clone(),
                after: RESPONSE_HEADERS_TIMEOUT,
            },
        )),
    }
}

/// Whether a request to `upstream` (path and query) stays open for long: a watch, a followed
/// log, or an upgrade (exec, attach, port-forward).
pub fn is_long_running(upstream: &str, is_upgrade: bool) -> bool {
    let query = upstream.split_once('?').map_or("", |(_, query)| query);
    is_upgrade
        || query
            .split('&')
            .any(|pair| matches!(pair, "watch=true" | "watch=1" | "follow=true" | "follow=1"))
}

/// The answer when a session holds as many streams as it may.
pub fn too_many_streams() -> Response {
    status_response(
        StatusCode::TOO_MANY_REQUESTS,
        "TooManyRequests",
        "this session holds as many watches, logs and terminals as kube-atlas allows at once; \
         close some",
    )
}

/// Sends `request` to `upstream` (path and query) on `slot`'s API server; as the signed-in
/// user when `session` is given (its token the bearer, the call counted against its streams
/// while it lasts when it is long-running).
pub async fn forward(
    slot: Arc<ContextSlot>,
    timeouts: Timeouts,
    mut request: Request<Body>,
    upstream: String,
    session: Option<&Session>,
) -> Response {
    let is_upgrade = is_websocket_upgrade(request.headers());
    let mut stream_permit = match session {
        Some(session) if is_long_running(&upstream, is_upgrade) => match session.try_stream() {
            Some(permit) => Some(permit),
            None => return too_many_streams(),
        },
        _ => None,
    };
    let downstream_upgrade = is_upgrade.then(|| hyper::upgrade::on(&mut request));
    let (parts, body) = request.into_parts();
    let body: Bytes = if is_upgrade {
        Bytes::new()
    } else {
        match http_body_util::Limited::new(body, MAX_REQUEST_BODY)
            .collect()
            .await
        {
            Ok(collected) => collected.to_bytes(),
            Err(error) => {
                return status_response(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "RequestEntityTooLarge",
                    &format!("the request body could not be read: {error}"),
                )
            }
        }
    };
    let mut builder = Request::builder().method(parts.method).uri(upstream);
    // With impersonation the page may not name whom to impersonate: kube-atlas does.
    let impersonating = session.is_some_and(Session::impersonates);
    for (name, value) in &parts.headers {
        let impersonation_header = name.as_str().starts_with("impersonate-");
        if forwarded_request_header(name.as_str(), is_upgrade)
            && !(impersonating && impersonation_header)
        {
            builder = builder.header(name, value);
        }
    }
    if let Some(session) = session {
        match session.credentials() {
            Some(credentials) => {
                for (name, value) in credentials {
                    builder = builder.header(name, value);
                }
            }
            // kube-atlas's fault (its ServiceAccount token unreadable), not the user's: not a
            // 401, which would tell the page that the session has ended.
            None => {
                return status_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "InternalError",
                    "kube-atlas cannot make this session's credentials",
                )
            }
        }
    }
    let upstream_request = match builder.body(kube::client::Body::from(body)) {
        Ok(request) => request,
        Err(error) => {
            return status_response(
                StatusCode::BAD_REQUEST,
                "BadRequest",
                &format!("the request cannot be passed on: {error}"),
            )
        }
    };
    let mut response = match send_upstream(&slot, timeouts, upstream_request).await {
        Ok(response) => response,
        Err(unreachable) => return unreachable.response(),
    };
    let switching = response.status() == StatusCode::SWITCHING_PROTOCOLS;
    if let (true, Some(downstream_upgrade)) = (switching, downstream_upgrade) {
        let upstream_upgrade = hyper::upgrade::on(&mut response);
        let stream_permit = stream_permit.take();
        tokio::spawn(async move {
            // The session's stream is counted for as long as the upgraded connection lasts.
            let _stream_permit = stream_permit;
            let (Ok(downstream), Ok(upstream)) = tokio::join!(downstream_upgrade, upstream_upgrade)
            else {
                return;
            };
            let mut downstream = TokioIo::new(downstream);
            let mut upstream = TokioIo::new(upstream);
            // Ends when either side closes; the other side's close follows from the drop.
            let _ = tokio::io::copy_bidirectional(&mut downstream, &mut upstream).await;
        });
    }
    let (parts, body) = response.into_parts();
    let mut answer = Response::builder().status(parts.status);
    for (name, value) in &parts.headers {
        if forwarded_response_header(name.as_str(), switching) {
            answer = answer.header(name, value);
        }
    }
    // Frames go to the page as they arrive: a watch event or a log line is not held back. The
    // session's stream is counted until the body ends or the page drops it.
    let body = body.map_frame(move |frame| {
        let _counted = &stream_permit;
        frame
    });
    answer.body(Body::new(body)).unwrap_or_else(|error| {
        status_response(
            StatusCode::BAD_GATEWAY,
            "InternalError",
            &format!("the answer cannot be passed back: {error}"),
        )
    })
}
