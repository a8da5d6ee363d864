//! The page's API for forwards, under [`crate::routing::FORWARDS_PATH`]:
//! - `GET /kube-atlas/forwards`: `{"forwards": [ForwardInfo…], "ended": [ForwardInfo…]}`;
//! - `POST /kube-atlas/forwards` (a [`ForwardRequest`]): 201 and the forward;
//! - `GET` / `DELETE /kube-atlas/forwards/{id}`: the forward (after `DELETE`, ended);
//! - `POST /kube-atlas/forwards/leases/{session}`: renews the page session's lease, 204.
//!
//! Errors are Kubernetes Status documents, as every other answer of kube-atlas. A forward
//! is a write: besides the Origin check every request passes (`routing`), `POST` must say
//! `Content-Type: application/json`, which a page of another origin cannot send without a
//! CORS preflight kube-atlas never grants (a form or a no-cors fetch cannot set it).

use std::sync::Arc;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use percent_encoding::percent_decode_str;

use super::{ForwardRequest, Forwards};
use crate::proxy::status_response;

/// The largest request body read.
const MAX_BODY: usize = 64 * 1024;

fn refuse(code: StatusCode, reason: &str, message: &str) -> Response {
    status_response(code, reason, message)
}

fn not_found(id: &str) -> Response {
    refuse(
        StatusCode::NOT_FOUND,
        "NotFound",
        &format!("kube-atlas has no forward {id:?}"),
    )
}

fn is_json(request: &Request<Body>) -> bool {
    request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// Answers a request for `rest`, the path after `/kube-atlas/forwards` (empty, `/{id}` or
/// `/leases/{session}`).
pub async fn handle(forwards: &Arc<Forwards>, rest: &str, request: Request<Body>) -> Response {
    let segments: Vec<String> = rest
        .split('/')
        .filter(|segment| !segment.is_empty())
        .map(|segment| percent_decode_str(segment).decode_utf8_lossy().into_owned())
        .collect();
    let method = request.method().clone();
    match (segments.as_slice(), &method) {
        ([], &Method::GET) => axum::Json(serde_json::json!({
            "forwards": forwards.list(),
            "ended": forwards.ended(),
        }))
        .into_response(),
        ([], &Method::POST) => create(forwards, request).await,
        ([id], &Method::GET) => match forwards.get(id) {
            Some(info) => axum::Json(info).into_response(),
            None => not_found(id),
        },
        ([id], &Method::DELETE) => match forwards.stop(id, "stopped from the page").await {
            Some(info) => axum::Json(info).into_response(),
            None => not_found(id),
        },
        ([leases, session], &Method::POST) if leases == "leases" => {
            forwards.renew(session);
            StatusCode::NO_CONTENT.into_response()
        }
        _ => refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            &format!(
                "{method} {}{rest} is not part of kube-atlas's forwards API",
                crate::routing::FORWARDS_PATH
            ),
        ),
    }
}

async fn create(forwards: &Arc<Forwards>, request: Request<Body>) -> Response {
    if !is_json(&request) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UnsupportedMediaType",
            "a forward is started with a JSON body (Content-Type: application/json)",
        );
    }
    let body = match http_body_util::Limited::new(request.into_body(), MAX_BODY)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(error) => {
            let message = format!("the request body could not be read: {error}");
            return refuse(StatusCode::BAD_REQUEST, "BadRequest", &message);
        }
    };
    let asked: ForwardRequest = match serde_json::from_slice(&body) {
        Ok(asked) => asked,
        Err(error) => {
            let message = format!("the forward asked for is not understood: {error}");
            return refuse(StatusCode::BAD_REQUEST, "BadRequest", &message);
        }
    };
    if !asked.keep_after_page_closes && asked.session.as_deref().is_none_or(str::is_empty) {
        return refuse(
            StatusCode::BAD_REQUEST,
            "BadRequest",
            "a forward that ends with its page needs the page's session (or keepAfterPageCloses: true)",
        );
    }
    match forwards.start(asked).await {
        Ok(info) => (StatusCode::CREATED, axum::Json(info)).into_response(),
        Err(error) => {
            let code = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::BAD_GATEWAY);
            refuse(code, error.reason(), &error.to_string())
        }
    }
}
