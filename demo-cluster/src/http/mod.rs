//! HTTP layer: routing, the Host check, body limits, and the non-resource endpoints.

pub mod access;
pub mod compress;
pub mod discovery;
pub mod listener;
pub mod metrics;
pub mod negotiate;
pub mod resource;
pub mod table;
pub mod watch_stream;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use serde_json::json;

use crate::chaos::Chaos;
use crate::errors::ApiError;
use crate::openapi;
use crate::registry::Registry;

/// kube-apiserver's default request body limit.
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// Internal knobs, mostly so tests can provoke rare situations quickly.
#[derive(Debug, Clone)]
pub struct Tuning {
    /// Events kept for watch resumption and chunked-list snapshots.
    pub watch_cache_capacity: usize,
    pub bookmark_interval: Duration,
    /// How long a connection's first request head may take to arrive (kube-apiserver's
    /// `ReadHeaderTimeout`): a client that connects and says nothing is let go.
    pub header_read_timeout: Duration,
    /// How long a request body may take to arrive (kube-apiserver's one-minute request
    /// timeout): a client that stalls mid-body must not hold a task and its buffer forever.
    pub request_body_timeout: Duration,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            watch_cache_capacity: 10_000,
            bookmark_interval: Duration::from_secs(45),
            header_read_timeout: Duration::from_secs(32),
            request_body_timeout: Duration::from_secs(60),
        }
    }
}

#[derive(Clone)]
pub struct AppState {
    pub registry: Arc<Registry>,
    pub tuning: Tuning,
    pub accept_hosts: Arc<Vec<String>>,
    /// Becomes true when the server stops, so open watches end and shutdown is not held up.
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// Chaos mode's decision source; `None` (the default) adds no layer at all.
    pub chaos: Option<Arc<Chaos>>,
    /// `--token-auth-file`'s users: requests are authenticated and authorized
    /// ([`access`]). `None` (the default): every request may do everything.
    pub tokens: Option<Arc<crate::auth::token_file::TokenFile>>,
}

impl AppState {
    /// State whose shutdown signal never fires (for tests that drive the router directly).
    pub fn new(registry: Arc<Registry>, tuning: Tuning, accept_hosts: Vec<String>) -> Self {
        let (tx, shutdown) = tokio::sync::watch::channel(false);
        // Keep the sender alive forever: a dropped sender would read as "shutting down".
        std::mem::forget(tx);
        AppState {
            registry,
            tuning,
            accept_hosts: Arc::new(accept_hosts),
            shutdown,
            chaos: None,
            tokens: None,
        }
    }
}

pub fn router(state: AppState, www: Option<&std::path::Path>) -> Router {
    let mut api = Router::new()
        .route("/api", any(api_entry))
        .route("/api/{*rest}", any(api_entry))
        .route("/apis", any(api_entry))
        .route("/apis/{*rest}", any(api_entry))
        .route(
            "/version",
            any(|| async { discovery::json_ok(&discovery::version_info()) }),
        )
        .route("/openapi/v2", any(openapi_v2))
        .route("/openapi/v3", any(openapi_v3_index))
        .route("/openapi/v3/{*rest}", any(openapi_v3_doc));
    if www.is_none() {
        api = api.route("/", any(root_paths));
    }
    api = api.route_layer(middleware::from_fn(compress::gzip_large_responses));
    // `route_layer` wraps only the routes added so far: the API, not the health checks, the
    // static files or the 404 fallback added below.
    if let Some(chaos) = &state.chaos {
        api = api.route_layer(middleware::from_fn_with_state(
            chaos.clone(),
            crate::chaos::inject,
        ));
    }
    let api = api
        .route("/healthz", any(|| async { "ok" }))
        .route("/livez", any(|| async { "ok" }))
        .route("/readyz", any(|| async { "ok" }));
    let api = match www {
        Some(dir) => api.fallback_service(
            Router::new()
                .fallback_service(tower_http::services::ServeDir::new(dir))
                // How long browsers may keep each file (hashed build files: for good).
                .layer(middleware::map_response(
                    |uri: axum::http::Uri, mut response: Response| async move {
                        let value = kube_atlas_model::api::asset_caching::cache_control(uri.path());
                        response.headers_mut().insert(
                            axum::http::header::CACHE_CONTROL,
                            axum::http::HeaderValue::from_static(value),
                        );
                        response
                    },
                )),
        ),
        None => api.fallback(|| async { ApiError::path_not_found() }),
    };
    let api = match &state.tokens {
        Some(tokens) => api.layer(middleware::from_fn_with_state(
            access::Access {
                tokens: tokens.clone(),
                registry: state.registry.clone(),
                serves_files: www.is_some(),
            },
            access::authenticate_and_authorize,
        )),
        None => api,
    };
    api.layer(middleware::from_fn_with_state(state.clone(), host_check))
        // Last line of defence: a bug must answer 500 Status, not drop the connection.
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(|_| {
            ApiError::internal("the server panicked while handling the request").into_response()
        }))
        .with_state(state)
}

/// Drops a trailing slash from API paths before routing (the Python client asks for
/// `/version/` and `/api/`).
pub fn trim_trailing_slash(mut req: Request) -> Request {
    let path = req.uri().path();
    // Only API paths: static directories need their slash (ServeDir redirects to add it).
    let api_path = [
        "/api", "/version", "/openapi", "/healthz", "/livez", "/readyz",
    ]
    .iter()
    .any(|p| path.starts_with(p));
    if api_path && path.len() > 1 && path.ends_with('/') {
        let original = OriginalPath(path.to_string());
        let trimmed = path.trim_end_matches('/');
        let trimmed = if trimmed.is_empty() { "/" } else { trimmed };
        let rebuilt = match req.uri().query() {
            Some(q) => format!("{trimmed}?{q}"),
            None => trimmed.to_string(),
        };
        if let Ok(uri) = rebuilt.parse() {
            *req.uri_mut() = uri;
            req.extensions_mut().insert(original);
        }
    }
    req
}

/// A request's path as the client sent it, kept when [`trim_trailing_slash`] changed it: the
/// authorizer matches non-resource paths exactly (`/healthz/` is not `/healthz`).
#[derive(Debug, Clone)]
pub struct OriginalPath(pub String);

fn host_allowed(host: &str, extra: &[String]) -> bool {
    let without_port = if host.starts_with('[') {
        host.split_once(']')
            .map(|(h, _)| format!("{h}]"))
            .unwrap_or_else(|| host.to_string())
    } else {
        host.rsplit_once(':')
            .map(|(h, _)| h.to_string())
            .unwrap_or_else(|| host.to_string())
    };
    let h = without_port.to_ascii_lowercase();
    matches!(h.as_str(), "localhost" | "127.0.0.1" | "[::1]")
        || extra
            .iter()
            .any(|a| a.eq_ignore_ascii_case(&h) || a.eq_ignore_ascii_case(host))
}

/// Refuses other Host names, as `kubectl proxy --accept-hosts` does (DNS-rebinding defence).
async fn host_check(State(app): State<AppState>, req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(String::from)
        .or_else(|| req.uri().authority().map(|a| a.to_string()));
    if let Some(host) = host {
        if !host_allowed(&host, &app.accept_hosts) {
            let mut e = ApiError::bad_request(format!(
                "host {host:?} is not accepted; start with --accept-hosts to allow it"
            ));
            e.code = 403;
            e.reason = "Forbidden";
            return e.into_response();
        }
    }
    next.run(req).await
}

async fn root_paths(State(app): State<AppState>) -> Response {
    let mut paths = vec!["/api".to_string(), "/api/v1".into(), "/apis".into()];
    for (g, vs) in discovery::groups(&app.registry.defs()) {
        paths.push(format!("/apis/{g}"));
        for v in vs {
            paths.push(format!("/apis/{g}/{v}"));
        }
    }
    if app.registry.metrics().is_some() {
        paths.push(format!("/apis/{}", metrics::GROUP));
        paths.push(format!("/apis/{}/{}", metrics::GROUP, metrics::VERSION));
    }
    paths.extend(
        [
            "/healthz",
            "/livez",
            "/openapi/v2",
            "/openapi/v3",
            "/readyz",
            "/version",
        ]
        .map(String::from),
    );
    discovery::json_ok(&json!({ "paths": paths }))
}

async fn openapi_v2(State(app): State<AppState>, req: Request) -> Response {
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if openapi::accepts_v2_protobuf(accept) {
        let mut resp = openapi::v2_protobuf().into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static(openapi::V2_PROTOBUF),
        );
        return resp;
    }
    if !accept.is_empty() && !accept.contains("json") && !accept.contains("*/*") {
        return ApiError::not_acceptable(accept).into_response();
    }
    discovery::json_ok(&openapi::v2_document(&app.registry))
}

async fn openapi_v3_index(State(app): State<AppState>) -> Response {
    discovery::json_ok(&openapi::v3_index(&app.registry))
}

async fn openapi_v3_doc(State(app): State<AppState>, req: Request) -> Response {
    let path = req
        .uri()
        .path()
        .trim_start_matches("/openapi/v3/")
        .to_string();
    match openapi::v3_document(&app.registry, &path) {
        Some(doc) => discovery::json_ok(doc.as_ref()),
        None => ApiError::path_not_found().into_response(),
    }
}

async fn api_entry(State(app): State<AppState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let body = match receive_body(&app, body).await {
        Ok(body) => body,
        Err(e) => {
            // What is left of the body was not read, so the connection cannot carry another
            // request: closing it spares waiting for (or draining) the rest.
            let mut resp = e.into_response();
            resp.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            return resp;
        }
    };
    match dispatch(app, parts, body).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

/// Over-limit bodies up to this size are read (and dropped) before the 413 is sent.
const DRAIN_LIMIT: u64 = 16 * 1024 * 1024;

async fn receive_body(app: &AppState, body: Body) -> Result<axum::body::Bytes, ApiError> {
    // A Content-Length over the limit is refused without keeping the body; a body of up to
    // DRAIN_LIMIT is read and dropped first, so the client, still sending, reads the 413
    // instead of a reset connection (kube-apiserver's answer to a 3 MiB body is a 413 too).
    let announced = axum::body::HttpBody::size_hint(&body).lower();
    if announced > MAX_BODY_BYTES as u64 {
        if announced <= DRAIN_LIMIT {
            // Only while it keeps arriving: a client that declared the length and sends
            // nothing gets the 413 after a second of silence.
            let drain = async {
                use futures_util::StreamExt as _;
                let mut chunks = body.into_data_stream();
                while let Ok(Some(Ok(_))) =
                    tokio::time::timeout(Duration::from_secs(1), chunks.next()).await
                {
                }
            };
            let _ = tokio::time::timeout(app.tuning.request_body_timeout, drain).await;
        }
        return Err(ApiError::too_large());
    }
    tokio::time::timeout(app.tuning.request_body_timeout, read_body(body))
        .await
        .map_err(|_| {
            ApiError::timeout(
                "request did not complete within requested timeout - the request body did not arrive in time",
            )
        })?
}

async fn dispatch(
    app: AppState,
    parts: axum::http::request::Parts,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let segs: Vec<String> = parts
        .uri
        .path()
        .split('/')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let get_only = |r: Response| {
        if parts.method == Method::GET || parts.method == Method::HEAD {
            Ok(r)
        } else {
            Err(ApiError::method_not_allowed())
        }
    };
    let s: Vec<&str> = segs.iter().map(String::as_str).collect();
    match s.as_slice() {
        ["api"] => get_only(discovery::root_discovery(
            &app.registry,
            &parts.headers,
            true,
        )?),
        ["apis"] => get_only(discovery::root_discovery(
            &app.registry,
            &parts.headers,
            false,
        )?),
        ["api", "v1"] => get_only(discovery::json_ok(
            &discovery::resource_list(&app.registry, "", "v1")
                .ok_or_else(ApiError::path_not_found)?,
        )),
        ["apis", group] => get_only(discovery::json_ok(
            &discovery::api_group(&app.registry, group).ok_or_else(ApiError::path_not_found)?,
        )),
        ["apis", group, version] => get_only(discovery::json_ok(
            &discovery::resource_list(&app.registry, group, version)
                .ok_or_else(ApiError::path_not_found)?,
        )),
        ["api", "v1", ..] => {
            let rest = segs[2..].to_vec();
            resource::handle(app, parts, body, String::new(), "v1".into(), rest).await
        }
        ["apis", group, version, rest @ ..]
            if *group == metrics::GROUP && *version == metrics::VERSION =>
        {
            match app.registry.metrics() {
                Some(simulation) => metrics::handle(&app.registry, simulation, &parts, rest),
                None => Err(ApiError::path_not_found()),
            }
        }
        ["apis", group, version, ..] => {
            let (g, v) = (group.to_string(), version.to_string());
            let rest = segs[3..].to_vec();
            resource::handle(app, parts, body, g, v, rest).await
        }
        _ => Err(ApiError::path_not_found()),
    }
}

async fn read_body(body: Body) -> Result<axum::body::Bytes, ApiError> {
    axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|e| {
            // axum reports the limit as a "length limit exceeded" error.
            if e.to_string().contains("length limit") {
                ApiError::too_large()
            } else {
                ApiError::bad_request(format!("failed to read the request body: {e}"))
            }
        })
}
