//! Kubernetes-compatible demo API server embedded in Kube Atlas.
//!
//! Public surface used by the dashboard's tooling and tests: [`Config`], [`start`] and
//! [`RunningCluster`]. Everything else is internal.

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::routing::get;
use axum::{Json, Router};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How the demo cluster is started (mirrors the binary's flags).
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Static files served at `/` (the dashboard's `dist/`), as `kubectl proxy --www` does.
    pub www: Option<PathBuf>,
    /// Simulation speed factor (2.0 = twice as fast).
    pub speed: f64,
    /// Start with only nodes, no seeded workloads.
    pub empty: bool,
    /// Extra Host header values accepted besides localhost, 127.0.0.1 and [::1].
    pub accept_hosts: Vec<String>,
    /// Persist the store here and reload it on start.
    pub state_file: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8001)),
            www: None,
            speed: 1.0,
            empty: false,
            accept_hosts: Vec::new(),
            state_file: None,
        }
    }
}

/// A demo cluster serving in the background of the current tokio runtime.
pub struct RunningCluster {
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl RunningCluster {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Base URL, e.g. `http://127.0.0.1:8001`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, lets open requests finish, and waits for the server task.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match self.task.await {
            Ok(result) => result,
            Err(join_error) => Err(std::io::Error::other(join_error)),
        }
    }
}

/// Binds the listener and serves in a spawned task.
pub async fn start(config: Config) -> std::io::Result<RunningCluster> {
    let listener = TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    let app = router(&config);
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await
    });
    Ok(RunningCluster {
        addr,
        shutdown: Some(tx),
        task,
    })
}

fn router(config: &Config) -> Router {
    let api = Router::new().route("/version", get(|| async { Json(version_info()) }));
    match &config.www {
        Some(dir) => api.fallback_service(tower_http::services::ServeDir::new(dir)),
        None => api,
    }
}

fn version_info() -> serde_json::Value {
    serde_json::json!({
        "major": "1", "minor": "34", "gitVersion": "v1.34.0-demo",
        "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.24.0", "compiler": "gc",
        "platform": "linux/amd64"
    })
}
