//! `kube-atlas`: the dashboard for several real clusters in one command. Serves the built
//! dashboard and proxies `/clusters/{context}/…` to each context of a kubeconfig with that
//! context's credentials (kube-rs's kubeconfig support: tokens, client certificates, exec
//! plugins, OIDC, proxies, CA data); `GET /clusters` lists the contexts with their connection
//! state; `/kube-atlas/multiplex` carries the page's long-running GETs over one WebSocket
//! ([`multiplex`]); `/kube-atlas/forwards` starts, lists and stops port-forwards on
//! 127.0.0.1 ([`forwards`]). Like `kubectl proxy`, it answers loopback hosts only and refuses pages of
//! other origins; credentials never reach the page.

pub mod client;
pub mod contexts;
pub mod forwards;
pub mod multiplex;
pub mod proxy;
pub mod routing;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{FromRequestParts, State};
use axum::response::{IntoResponse, Response};
use http::{Request, StatusCode};
use tower_http::services::ServeDir;

pub use contexts::{ClusterEntry, ClusterState, Contexts, Timeouts};
pub use forwards::{ForwardConfig, Forwards};
use routing::Route;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// The built dashboard (dist/); without it only the API paths answer.
    pub www: Option<PathBuf>,
    /// Host names answered besides the loopback ones.
    pub accepted_hosts: Vec<String>,
    /// How often every context's `/version` is asked.
    pub probe_interval: Duration,
    /// How long the port-forwards of a closed page live on.
    pub forwards: ForwardConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8001)),
            www: None,
            accepted_hosts: Vec::new(),
            probe_interval: Duration::from_secs(5),
            forwards: ForwardConfig::default(),
        }
    }
}

struct Shared {
    contexts: Arc<Contexts>,
    forwards: Arc<Forwards>,
    accepted_hosts: Vec<String>,
    www: Option<ServeDir>,
    /// The dashboard's index.html, read from `www` on each request (a rebuild shows at once).
    index_html: Option<PathBuf>,
}

/// A started server; [`RunningServer::stop`] (or dropping it) ends it.
pub struct RunningServer {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    server: tokio::task::JoinHandle<()>,
    prober: tokio::task::JoinHandle<()>,
    /// Ends the forwards of closed pages.
    lease_keeper: tokio::task::JoinHandle<()>,
}

impl RunningServer {
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every context with its state now.
    pub fn entries(&self) -> Vec<ClusterEntry> {
        self.shared.contexts.entries()
    }

    pub async fn stop(mut self) {
        self.prober.abort();
        self.lease_keeper.abort();
        self.shared.forwards.abort_all();
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        let _ = (&mut self.server).await;
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.prober.abort();
        self.lease_keeper.abort();
        self.shared.forwards.abort_all();
        self.server.abort();
    }
}

/// Binds `config.listen`, probes every context at once and then every
/// `config.probe_interval`, and serves.
pub async fn start(contexts: Contexts, config: ServerConfig) -> anyhow::Result<RunningServer> {
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    let contexts = Arc::new(contexts);
    let shared = Arc::new(Shared {
        forwards: Arc::new(Forwards::new(contexts.clone(), config.forwards)),
        contexts,
        accepted_hosts: config.accepted_hosts,
        index_html: config.www.as_ref().map(|dir| dir.join("index.html")),
        www: config.www.map(ServeDir::new),
    });
    let prober = {
        let shared = shared.clone();
        let interval = config.probe_interval;
        tokio::spawn(async move {
            loop {
                shared.contexts.probe_all().await;
                tokio::time::sleep(interval).await;
            }
        })
    };
    let lease_keeper = {
        let forwards = shared.forwards.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                forwards.end_expired_sessions().await;
            }
        })
    };
    let app = axum::Router::new()
        .fallback(handle)
        .with_state(shared.clone());
    let (shutdown, shutdown_signal) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = shutdown_signal.await;
            })
            .await;
    });
    Ok(RunningServer {
        addr,
        shared,
        shutdown: Some(shutdown),
        server,
        prober,
        lease_keeper,
    })
}

fn header_text(request: &Request<Body>, name: http::header::HeaderName) -> Option<&str> {
    request
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request<Body>) -> Response {
    let checked = routing::check_host_and_origin(
        header_text(&request, http::header::HOST),
        header_text(&request, http::header::ORIGIN),
        &shared.accepted_hosts,
    );
    if let Err(refusal) = checked {
        return proxy::status_response(StatusCode::FORBIDDEN, "Forbidden", &refusal.message());
    }
    let path = request.uri().path().to_string();
    let query = request.uri().query().map(str::to_string);
    match routing::route(&path, query.as_deref()) {
        None => proxy::status_response(
            StatusCode::NOT_FOUND,
            "NotFound",
            &format!("{path} names no context"),
        ),
        Some(Route::ClusterList) => {
            axum::Json(serde_json::json!({ "clusters": shared.contexts.entries() })).into_response()
        }
        Some(Route::Cluster { context, upstream }) => match shared.contexts.get(&context) {
            Some(slot) => {
                proxy::forward(slot.clone(), shared.contexts.timeouts, request, upstream).await
            }
            None => proxy::status_response(
                StatusCode::NOT_FOUND,
                "NotFound",
                &format!("kube-atlas serves no context {context:?}"),
            ),
        },
        Some(Route::Multiplex) => {
            let (mut parts, _) = request.into_parts();
            match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
                Ok(upgrade) => {
                    let contexts = shared.contexts.clone();
                    upgrade.on_upgrade(move |socket| multiplex::serve(socket, contexts))
                }
                Err(refused) => proxy::status_response(
                    refused.status(),
                    "BadRequest",
                    &format!("{path} is a WebSocket: {}", refused.body_text()),
                ),
            }
        }
        Some(Route::Forwards { rest }) => {
            forwards::http::handle(&shared.forwards, &rest, request).await
        }
        Some(Route::Static) if path == "/" || path == "/index.html" => index_page(&shared).await,
        Some(Route::Static) => match &shared.www {
            Some(files) => {
                let mut files = files.clone();
                let cache_control = kube_atlas_model::api::asset_caching::cache_control(&path);
                match tower::ServiceExt::oneshot(&mut files, request).await {
                    Ok(response) => {
                        let mut response = response.map(Body::new);
                        response.headers_mut().insert(
                            http::header::CACHE_CONTROL,
                            http::HeaderValue::from_static(cache_control),
                        );
                        response
                    }
                    Err(never) => match never {},
                }
            }
            None => (
                StatusCode::NOT_FOUND,
                "kube-atlas was started without the dashboard's files (--www dist)",
            )
                .into_response(),
        },
    }
}

/// The dashboard's page with the cluster list in it, so the page knows its clusters before its
/// first request instead of asking `/clusters` first (a round trip on every page start).
async fn index_page(shared: &Shared) -> Response {
    let Some(path) = &shared.index_html else {
        return (
            StatusCode::NOT_FOUND,
            "kube-atlas was started without the dashboard's files (--www dist)",
        )
            .into_response();
    };
    match tokio::fs::read_to_string(path).await {
        Ok(html) => {
            let clusters = serde_json::json!({ "clusters": shared.contexts.entries() });
            (
                [
                    (http::header::CONTENT_TYPE, "text/html; charset=utf-8"),
                    // The states in it are of this moment: never reused from a cache.
                    (http::header::CACHE_CONTROL, "no-cache"),
                ],
                routing::with_cluster_list(&html, &clusters.to_string()),
            )
                .into_response()
        }
        Err(error) => (
            StatusCode::NOT_FOUND,
            format!("kube-atlas could not read {}: {error}", path.display()),
        )
            .into_response(),
    }
}
