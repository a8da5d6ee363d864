//! `kube-atlas`: the dashboard for several real clusters in one command. Serves the built
//! dashboard and proxies `/clusters/{context}/…` to each context of a kubeconfig with that
//! context's credentials (kube-rs's kubeconfig support: tokens, client certificates, exec
//! plugins, OIDC, proxies, CA data); `GET /clusters` lists the contexts with their connection
//! state; `/kube-atlas/multiplex` carries the page's long-running GETs over one WebSocket
//! ([`multiplex`]); `/kube-atlas/forwards` starts, lists and stops port-forwards on
//! 127.0.0.1 ([`forwards`]). Like `kubectl proxy`, it answers loopback hosts only and refuses pages of
//! other origins; credentials never reach the page.
//!
//! For a team ([`ServerConfig::sessions`]), it runs in the cluster ([`in_cluster`]) and
//! holds no credentials of its own: each user signs in with their own token ([`sign_in`]),
//! kept server-side in a session ([`session`]), and every request goes upstream with it; or
//! with an OIDC issuer ([`oidc`]), the ID token the session's bearer, refreshed before it
//! expires.

pub mod access_log;
pub mod assets;
pub mod client;
pub mod contexts;
pub mod forwards;
pub mod in_cluster;
pub mod multiplex;
pub mod oidc;
pub mod proxy;
pub mod routing;
pub mod session;
pub mod sign_in;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{FromRequestParts, State};
use axum::response::{IntoResponse, Response};
use http::{Method, Request, StatusCode};

use assets::Assets;
pub use contexts::{ClusterEntry, ClusterState, Contexts, Timeouts};
pub use forwards::{ForwardConfig, Forwards};
use routing::Route;
use session::{Session, SessionConfig, Sessions};

/// How the server runs.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// The built dashboard (dist/); without it the one compiled in (feature `embedded-ui`),
    /// else only the API paths answer.
    pub www: Option<PathBuf>,
    /// Host names answered besides the loopback ones.
    pub accepted_hosts: Vec<String>,
    /// How often every context's `/version` is asked.
    pub probe_interval: Duration,
    /// How long the port-forwards of a closed page live on.
    pub forwards: ForwardConfig,
    /// For a team: users sign in with their own tokens and every request is theirs; the
    /// contexts' own credentials (none, in a pod) are never used for them. Any Host is
    /// answered (the session cookie is bound to the real one), Origin is required on every
    /// non-GET and WebSocket, and port-forwards on the server's loopback are not offered.
    pub sessions: Option<SessionConfig>,
    /// With sessions: users may sign in with this OIDC issuer.
    pub oidc: Option<oidc::OidcConfig>,
    /// One JSON line per request on stdout (`access_log`).
    pub access_log: bool,
    /// How long open requests and sockets get to end when the server stops.
    pub shutdown_grace: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 8001)),
            www: None,
            accepted_hosts: Vec::new(),
            probe_interval: Duration::from_secs(5),
            forwards: ForwardConfig::default(),
            sessions: None,
            oidc: None,
            access_log: false,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

struct Shared {
    contexts: Arc<Contexts>,
    forwards: Arc<Forwards>,
    accepted_hosts: Vec<String>,
    assets: Assets,
    sessions: Option<Sessions>,
    oidc: Option<Arc<oidc::Oidc>>,
    access_log: bool,
    /// Turns true when the server begins to stop: /readyz fails, sockets end.
    stopping: tokio::sync::watch::Sender<bool>,
    /// One clone per open multiplexing socket: an upgraded connection is no longer the HTTP
    /// server's, so stopping waits for these to end by themselves.
    live_sockets: Arc<()>,
}

/// A started server; [`RunningServer::stop`] (or dropping it) ends it.
pub struct RunningServer {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    server: tokio::task::JoinHandle<()>,
    prober: tokio::task::JoinHandle<()>,
    /// Ends the forwards of closed pages and expired sessions.
    lease_keeper: tokio::task::JoinHandle<()>,
    shutdown_grace: Duration,
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

    /// Signed-in sessions now (0 without sessions).
    pub fn session_count(&self) -> usize {
        self.shared.sessions.as_ref().map_or(0, Sessions::count)
    }

    /// Stops gracefully: /readyz fails at once, no new connection is taken, multiplexed
    /// streams get their `end` and sockets their close frame, and open requests get up to
    /// `ServerConfig::shutdown_grace` to finish.
    pub async fn stop(mut self) {
        self.shared.stopping.send_replace(true);
        self.prober.abort();
        self.lease_keeper.abort();
        self.shared.forwards.abort_all();
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        let deadline = tokio::time::Instant::now() + self.shutdown_grace;
        if tokio::time::timeout_at(deadline, &mut self.server)
            .await
            .is_err()
        {
            self.server.abort();
        }
        while Arc::strong_count(&self.shared.live_sockets) > 1
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
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
    let oidc = match (&config.oidc, &config.sessions) {
        (Some(oidc), Some(sessions)) => Some(Arc::new(
            oidc::Oidc::new(oidc.clone(), sessions.secure_cookies).map_err(anyhow::Error::msg)?,
        )),
        (Some(_), None) => anyhow::bail!("OIDC sign-in needs sessions (kube-atlas for a team)"),
        (None, _) => None,
    };
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    let contexts = Arc::new(contexts);
    let shared = Arc::new(Shared {
        forwards: Arc::new(Forwards::new(contexts.clone(), config.forwards)),
        contexts,
        accepted_hosts: config.accepted_hosts,
        assets: match config.www {
            Some(dir) => Assets::folder(dir),
            None => Assets::embedded().unwrap_or(Assets::None),
        },
        sessions: config.sessions.map(Sessions::new),
        oidc,
        access_log: config.access_log,
        stopping: tokio::sync::watch::Sender::new(false),
        live_sockets: Arc::new(()),
    });
    if let Some(oidc) = shared.oidc.clone() {
        // Said once at start, so a wrong issuer URL or CA shows in the log before the first
        // user tries; a failure here is asked again at each sign-in.
        tokio::spawn(async move {
            match oidc.client().await {
                Ok(_) => println!("kube-atlas: OIDC issuer {}: ready", oidc.issuer_label()),
                Err(problem) => eprintln!(
                    "kube-atlas: OIDC issuer {}: not reachable yet: {problem}",
                    oidc.issuer_label()
                ),
            }
        });
    }
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
        let shared = shared.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                shared.forwards.end_expired_sessions().await;
                if let Some(sessions) = &shared.sessions {
                    sessions.end_expired();
                }
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
        shutdown_grace: config.shutdown_grace,
    })
}

fn header_text(request: &Request<Body>, name: http::header::HeaderName) -> Option<&str> {
    request
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
}

/// Every request: answered by [`route_request`], then logged (when asked) with who made it.
async fn handle(State(shared): State<Arc<Shared>>, request: Request<Body>) -> Response {
    let started = std::time::Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let query = request.uri().query().map(str::to_string);
    let is_upgrade = request.headers().contains_key(http::header::UPGRADE);
    let (response, user) = route_request(&shared, request).await;
    if shared.access_log {
        access_log::write(&access_log::Entry {
            user: user.as_deref(),
            method: method.as_str(),
            verb: access_log::verb(&method, query.as_deref(), is_upgrade),
            path: &path,
            status: response.status().as_u16(),
            duration: started.elapsed(),
        });
    }
    response
}

/// The answer to one request, and the signed-in user it was made as (if any).
async fn route_request(shared: &Shared, request: Request<Body>) -> (Response, Option<String>) {
    let path = request.uri().path().to_string();
    let query = request.uri().query().map(str::to_string);
    // The probes come from the kubelet with the pod's address as Host: answered before the
    // host check, and they tell nothing about any cluster's contents.
    match path.as_str() {
        "/healthz" => return (plain_text(StatusCode::OK, "ok"), None),
        "/readyz" => return (readiness(shared).await, None),
        _ => {}
    }
    let origin = header_text(&request, http::header::ORIGIN);
    let accepted_hosts: &[String] = &shared.accepted_hosts;
    let checked = match &shared.sessions {
        Some(_) => routing::check_origin_for_session(
            header_text(&request, http::header::HOST),
            origin,
            request.method(),
            request.headers().contains_key(http::header::UPGRADE),
        ),
        None => routing::check_host_and_origin(
            header_text(&request, http::header::HOST),
            origin,
            accepted_hosts,
        ),
    };
    if let Err(refusal) = checked {
        let refused =
            proxy::status_response(StatusCode::FORBIDDEN, "Forbidden", &refusal.message());
        return (refused, None);
    }
    let route = routing::route(&path, query.as_deref());
    let Some(sessions) = &shared.sessions else {
        return (serve_route(shared, route, request, None).await, None);
    };
    let issuer = shared.oidc.as_deref().map(oidc::Oidc::issuer_label);
    match route {
        Some(Route::SignIn) => {
            let answer = if request.method() == Method::POST {
                match shared.contexts.slots.first() {
                    Some(slot) => {
                        let timeouts = shared.contexts.timeouts;
                        sign_in::sign_in(sessions, slot, timeouts, request, issuer).await
                    }
                    None => plain_text(StatusCode::SERVICE_UNAVAILABLE, "no cluster to sign in to"),
                }
            } else if sessions
                .id_in(request.headers())
                .is_some_and(|id| sessions.find(&id).is_some())
            {
                // Signed in already (a bookmark, the back button): the dashboard.
                sign_in::to_dashboard()
            } else {
                // `?ended`: sent here by a page load whose session ended by itself.
                let ended = query.as_deref().is_some_and(|query| {
                    query
                        .split('&')
                        .any(|pair| pair == "ended" || pair.starts_with("ended="))
                });
                let problem = ended.then_some(sign_in::ENDED_SENTENCE);
                sign_in::page(StatusCode::OK, problem, issuer)
            };
            return (answer, None);
        }
        Some(route @ (Route::OidcStart | Route::OidcCallback)) => {
            let (Some(oidc), Some(slot)) = (&shared.oidc, shared.contexts.slots.first()) else {
                let refused = proxy::status_response(
                    StatusCode::NOT_FOUND,
                    "NotFound",
                    &format!("{path}: this kube-atlas has no OIDC sign-in"),
                );
                return (refused, None);
            };
            let answer = if route == Route::OidcStart {
                oidc.start(header_text(&request, http::header::HOST)).await
            } else {
                let timeouts = shared.contexts.timeouts;
                let headers = request.headers();
                oidc.callback(sessions, slot, timeouts, query.as_deref(), headers)
                    .await
            };
            return (answer, None);
        }
        Some(Route::SignOut) if request.method() == Method::POST => {
            return (sign_in::sign_out(sessions, &request), None)
        }
        _ => {}
    }
    let session_id = sessions.id_in(request.headers());
    let session = session_id.as_deref().and_then(|id| sessions.find(id));
    // A cookie naming no live session: it ended by itself (sign-out removes the cookie).
    let ended = session_id.is_some() && session.is_none();
    let user = session
        .as_ref()
        .map(|session| session.identity.user.clone());
    let answer = match (route, session) {
        (Some(Route::Session), Some(session)) => sign_in::who(&session),
        // Port-forwards would listen on the server's own loopback, useless to its users.
        (Some(Route::Forwards { .. }), Some(_)) => proxy::status_response(
            StatusCode::NOT_FOUND,
            "NotFound",
            "kube-atlas in the cluster offers no port-forwards (they would listen on its own pod)",
        ),
        (route @ Some(Route::Static), session) if path == "/" || path == "/index.html" => {
            match session {
                Some(session) => serve_route(shared, route, request, Some(session)).await,
                None => sign_in::to_sign_in(ended),
            }
        }
        // The dashboard's code is no secret; everything else needs a session.
        (route @ Some(Route::Static), session) => {
            serve_route(shared, route, request, session).await
        }
        (route @ Some(Route::Cluster { .. }), Some(session)) => {
            let answer = serve_route(shared, route, request, Some(session)).await;
            // The cluster no longer takes the user's token (expired, revoked, its
            // ServiceAccount deleted): the session ends, so the next page load signs in again
            // instead of failing request after request.
            if answer.status() == StatusCode::UNAUTHORIZED {
                if let Some(id) = &session_id {
                    sessions.end(id);
                }
                return (sign_in::token_refused(), user);
            }
            answer
        }
        (route, Some(session)) => serve_route(shared, route, request, Some(session)).await,
        (_, None) => sign_in::unauthorized(ended),
    };
    (answer, user)
}

fn plain_text(status: StatusCode, text: &'static str) -> Response {
    (status, [(http::header::CACHE_CONTROL, "no-store")], text).into_response()
}

/// `/readyz`: ready while not stopping and the (first) API server answers anything at all
/// over HTTP (asked without credentials: an answer, even a 401, means it is reachable).
async fn readiness(shared: &Shared) -> Response {
    if *shared.stopping.borrow() {
        return plain_text(StatusCode::SERVICE_UNAVAILABLE, "stopping");
    }
    let Some(slot) = shared.contexts.slots.first() else {
        return plain_text(StatusCode::SERVICE_UNAVAILABLE, "no cluster");
    };
    let request = http::Request::get("/version").body(kube::client::Body::empty());
    let Ok(request) = request else {
        return plain_text(StatusCode::INTERNAL_SERVER_ERROR, "no request");
    };
    let timeouts = shared.contexts.timeouts;
    let asked = async {
        let client = slot.client(timeouts.credentials).await.ok()?;
        client.send(request).await.ok()
    };
    match tokio::time::timeout(timeouts.probe, asked).await {
        Ok(Some(_)) => plain_text(StatusCode::OK, "ok"),
        _ => plain_text(
            StatusCode::SERVICE_UNAVAILABLE,
            "the API server does not answer",
        ),
    }
}

/// Serves a route, as `session`'s user when given.
async fn serve_route(
    shared: &Shared,
    route: Option<Route>,
    request: Request<Body>,
    session: Option<Arc<Session>>,
) -> Response {
    let path = request.uri().path().to_string();
    match route {
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
                let timeouts = shared.contexts.timeouts;
                proxy::forward(
                    slot.clone(),
                    timeouts,
                    request,
                    upstream,
                    session.as_deref(),
                )
                .await
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
                    let mut stopping = shared.stopping.subscribe();
                    let session_ended = session.as_ref().map(|session| session.ended());
                    let end = async move {
                        let stopping = stopping.wait_for(|stopping| *stopping);
                        match session_ended {
                            Some(ended) => tokio::select! {
                                _ = stopping => {}
                                () = ended => {}
                            },
                            None => {
                                let _ = stopping.await;
                            }
                        }
                    };
                    let alive = shared.live_sockets.clone();
                    upgrade.on_upgrade(move |socket| async move {
                        let _alive = alive;
                        multiplex::serve(socket, contexts, session, end).await;
                    })
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
        Some(
            Route::SignIn
            | Route::SignOut
            | Route::Session
            | Route::OidcStart
            | Route::OidcCallback,
        ) => proxy::status_response(
            StatusCode::NOT_FOUND,
            "NotFound",
            &format!("{path}: this kube-atlas has no sign-in (it serves a kubeconfig's contexts)"),
        ),
        Some(Route::Static) if path == "/" || path == "/index.html" => {
            index_page(shared, session.as_deref()).await
        }
        Some(Route::Static) => shared.assets.serve(request).await,
    }
}

/// The dashboard's page with the cluster list in it, so the page knows its clusters before its
/// first request instead of asking `/clusters` first (a round trip on every page start).
async fn index_page(shared: &Shared, session: Option<&Session>) -> Response {
    match shared.assets.index_html().await {
        Ok(html) => {
            let clusters = serde_json::json!({ "clusters": shared.contexts.entries() });
            // Who is signed in, for the header (the same JSON as `/kube-atlas/session`).
            let html = match session {
                Some(session) => routing::with_json_element(
                    &html,
                    routing::SESSION_ELEMENT_ID,
                    &sign_in::session_json(session).to_string(),
                ),
                None => html,
            };
            (
                [
                    (http::header::CONTENT_TYPE, "text/html; charset=utf-8"),
                    // The states in it are of this moment: never reused from a cache.
                    // With a session it names the user: kept by no cache at all.
                    (
                        http::header::CACHE_CONTROL,
                        if session.is_some() {
                            "no-store"
                        } else {
                            "no-cache"
                        },
                    ),
                ],
                routing::with_cluster_list(&html, &clusters.to_string()),
            )
                .into_response()
        }
        Err(refusal) => refusal,
    }
}
