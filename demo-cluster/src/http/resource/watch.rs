//! GET with `watch=true`: a watch of a collection, streamed chunked or over a WebSocket.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::FromRequestParts;
use axum::http::header;
use axum::response::Response;

use super::{parse_rv, parse_selectors, require_verb, truthy, version_params, Request};
use crate::chaos::WatchFaults;
use crate::errors::{ApiError, ApiResult};
use crate::http::negotiate::{include_object, negotiate_output, Output};
use crate::http::{watch_stream, AppState};
use crate::registry::kinds::ResourceDef;

/// Starts the watch `request` asks for on the collection in `namespace` (all when `None`).
pub(super) async fn watch(
    mut request: Request<'_>,
    namespace: Option<&str>,
) -> ApiResult<Response> {
    let app = request.app;
    let output = negotiate_output(&request.parts.headers)?;
    let chaos = request.parts.extensions.get::<WatchFaults>();
    let req = watch_request(app, &request.def, namespace, &request.q, output, chaos)?;
    let is_ws = request
        .parts
        .headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let registry = app.registry.clone();
    if is_ws {
        let ws = WebSocketUpgrade::from_request_parts(&mut request.parts, &())
            .await
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let rx = watch_stream::start(registry, req, app.shutdown.clone());
        return Ok(watch_stream::websocket_response(ws, rx));
    }
    let rx = watch_stream::start(registry, req, app.shutdown.clone());
    Ok(watch_stream::chunked_response(rx, output))
}

fn watch_request(
    app: &AppState,
    def: &Arc<ResourceDef>,
    namespace: Option<&str>,
    q: &HashMap<String, String>,
    output: Output,
    chaos: Option<&WatchFaults>,
) -> ApiResult<watch_stream::WatchRequest> {
    require_verb(def, "watch")?;
    let (labels, fields) = parse_selectors(def, q)?;
    let (rv_param, rvm) = version_params(q);
    let send_initial = q.get("sendInitialEvents").map(|v| v == "true" || v == "1");
    if send_initial.is_some() && rvm != "NotOlderThan" {
        return Err(ApiError::invalid_list_options(
            "sendInitialEvents",
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    if !rvm.is_empty() && send_initial.is_none() {
        return Err(ApiError::invalid_list_options(
            "resourceVersionMatch",
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ));
    }
    if !rvm.is_empty() && rvm != "NotOlderThan" {
        return Err(ApiError::invalid_list_options(
            "resourceVersionMatch",
            &format!("{rvm:?} is invalid with sendInitialEvents"),
        ));
    }
    let bookmarks = truthy(q, "allowWatchBookmarks");
    let send_initial_events = send_initial.unwrap_or(false);
    let since = if send_initial_events || rv_param.is_empty() || rv_param == "0" {
        None
    } else {
        Some(parse_rv(rv_param)?)
    };
    // Chaos's 410 is for resumes only: a watch starting from the current state has no
    // resume point to lose.
    let resumed = since.is_some();
    let chaos = chaos.cloned().map(|mut c| {
        c.expire &= resumed;
        c
    });
    // sendInitialEvents=false without a version: only changes from now on.
    let since = if send_initial == Some(false) && since.is_none() {
        Some(app.registry.store.current_rv())
    } else {
        since
    };
    let timeout = q
        .get("timeoutSeconds")
        .and_then(|t| t.parse::<u64>().ok())
        .filter(|t| *t > 0)
        .map(Duration::from_secs)
        .unwrap_or(Duration::from_secs(1800));
    Ok(watch_stream::WatchRequest {
        def: def.clone(),
        namespace: namespace.map(String::from),
        since,
        send_initial_events,
        bookmarks,
        timeout,
        bookmark_interval: app.tuning.bookmark_interval,
        labels,
        fields,
        output,
        include: include_object(q)?,
        chaos,
    })
}
