//! Kubernetes-compatible demo API server embedded in Kube Atlas.
//!
//! Public surface used by the dashboard's tooling and tests: [`Config`], [`start`] and
//! [`RunningCluster`]. The modules are public so in-process controllers and tests can use the
//! registry directly; the HTTP API is the compatibility contract.

pub mod auth;
pub mod chaos;
pub mod controllers;
pub mod errors;
pub mod exec;
pub mod http;
pub mod load;
pub mod metrics;
pub mod names;
pub mod openapi;
pub mod pod_logs;
pub mod portforward;
pub mod protobuf;
pub mod registry;
pub mod schemas;
pub mod seed;
pub mod spdy;
pub mod storage;

/// Objects are JSON trees: every write copies, builds and drops thousands of small maps and
/// strings, and glibc's malloc was a third of a churning cluster's time. Declared here so the
/// server binary and every process embedding the cluster (tests, benchmarks) use it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use http::Tuning;
use registry::Registry;
use storage::object::ObjectKey;
use storage::store::Store;

/// How the demo cluster is started (mirrors the binary's flags).
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Static files served at `/` (the dashboard's `dist/`), as `kubectl proxy --www` does.
    pub www: Option<PathBuf>,
    /// Simulation speed factor (2.0 = twice as fast): divides every simulated delay (image
    /// pulls, container start and stop, job run time, crash back-off, heartbeats).
    pub speed: f64,
    /// Start with only nodes and the system namespaces, no seeded workloads.
    pub empty: bool,
    /// Extra Host header values accepted besides localhost, 127.0.0.1 and [::1].
    pub accept_hosts: Vec<String>,
    /// Persist the store here and reload it on start.
    pub state_file: Option<PathBuf>,
    /// Run the simulated control plane (controllers, scheduler, kubelets, cnat operator).
    /// Off, the server is a bare API server: objects stay exactly as clients wrote them.
    pub controllers: bool,
    /// Load mode: Running pods created at start, in namespaces `load-*` of ~1,000, on Nodes
    /// `load-node-*` of ~100, owned by ReplicaSets of 10-50 under Deployments (see [`load`]).
    pub pods: usize,
    /// Load mode: CustomResourceDefinitions created at start, one group each
    /// (`load{i}.example.com`, kind `Widget{i}`), with printer columns and a few objects.
    pub crds: usize,
    /// Load mode: pod writes per second (kubelet status updates, pod replacements), with
    /// their Events. 0: none. On a cluster without pods, a pool of 100 is loaded for it.
    pub churn: u32,
    /// Seed of everything load mode chooses, so runs repeat.
    pub seed: u64,
    /// How long Event objects live after their last update (kube-apiserver's `--event-ttl`,
    /// one hour by default).
    pub event_ttl: std::time::Duration,
    /// Chaos mode (`--chaos`): faults injected into API requests and watches, seeded by
    /// [`Config::seed`]. `None`: off, at no cost.
    pub chaos: Option<chaos::ChaosSpec>,
    /// Also serve the built-in resources kube-apiserver v1.36 serves only behind a feature
    /// gate (`registry::kinds::FEATURE_GATED`: ClusterTrustBundles, PodCertificateRequests,
    /// DeviceTaintRules, StorageVersionMigrations). Off, as on a default kube-apiserver.
    pub feature_gated_apis: bool,
    /// kube-apiserver's `--token-auth-file`: a CSV of `token,user,uid,"group1,group2"`. Given,
    /// requests are authenticated by their bearer token (none: `system:anonymous`; an unknown
    /// one: 401) and authorized by RBAC over the stored roles and bindings, as kube-apiserver
    /// with `--authorization-mode=Node,RBAC`. `None`: every request is the demo's
    /// all-powerful user and nothing is checked.
    pub token_auth_file: Option<PathBuf>,
    /// Serve HTTPS with this PEM certificate (chain) and [`Config::tls_private_key_file`]'s
    /// key, as kube-apiserver's `--tls-cert-file`: kubectl and client-go send bearer tokens
    /// only over TLS. Both or neither; neither serves plain HTTP.
    pub tls_cert_file: Option<PathBuf>,
    /// The PEM private key of [`Config::tls_cert_file`] (`--tls-private-key-file`).
    pub tls_private_key_file: Option<PathBuf>,
    /// Serve the metrics API (`metrics.k8s.io/v1beta1`, as metrics-server behind the
    /// aggregator), with simulated usage ([`metrics`]). On by default; `--no-metrics` turns
    /// it off, as a cluster without metrics-server.
    pub metrics: bool,
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
            controllers: true,
            pods: 0,
            crds: 0,
            churn: 0,
            seed: load::DEFAULT_SEED,
            event_ttl: controllers::events::EVENT_TTL,
            chaos: None,
            feature_gated_apis: false,
            token_auth_file: None,
            tls_cert_file: None,
            tls_private_key_file: None,
            metrics: true,
        }
    }
}

/// A demo cluster serving in the background of the current tokio runtime.
pub struct RunningCluster {
    addr: SocketAddr,
    /// Serving HTTPS.
    tls: bool,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
    registry: Arc<Registry>,
    /// The simulated control plane; dropped (stopped) with the cluster.
    controllers: controllers::Controllers,
}

impl RunningCluster {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Base URL, e.g. `http://127.0.0.1:8001` (`https://` with a certificate).
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// The in-process registry (the same API the HTTP handlers use), for controllers and tests.
    pub fn registry(&self) -> Arc<Registry> {
        self.registry.clone()
    }

    /// Stops accepting, lets open requests finish, and waits for the server task.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        // Controllers first, so nothing writes while the state file is saved.
        drop(std::mem::take(&mut self.controllers));
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
    start_with_tuning(config, Tuning::default()).await
}

/// Builds the registry: reloads the state file when present, otherwise seeds.
pub fn build_registry(config: &Config, tuning: &Tuning) -> std::io::Result<Arc<Registry>> {
    let store = Arc::new(Store::new(tuning.watch_cache_capacity));
    let registry = Arc::new(Registry::with_feature_gated_apis(
        store,
        config.feature_gated_apis,
    ));
    let loaded = match &config.state_file {
        Some(path) if path.exists() => {
            load_state(&registry, path)?;
            true
        }
        _ => false,
    };
    if !loaded {
        seed::seed_system_objects(&registry);
        seed::seed_bootstrap_rbac(&registry);
        if config.token_auth_file.is_some() {
            seed::seed_viewers_binding(&registry);
        }
    }
    if config.metrics {
        registry.serve_metrics(metrics::Simulation {
            churn: config.churn > 0,
        });
    }
    Ok(registry)
}

/// Like [`start`], with internal knobs (small watch cache, fast bookmarks) for tests.
pub async fn start_with_tuning(config: Config, tuning: Tuning) -> std::io::Result<RunningCluster> {
    // Read first: a file that cannot be read stops the start before anything is seeded.
    let tokens = match &config.token_auth_file {
        Some(path) => Some(Arc::new(
            auth::token_file::TokenFile::read(path).map_err(std::io::Error::other)?,
        )),
        None => None,
    };
    let tls = match (&config.tls_cert_file, &config.tls_private_key_file) {
        (Some(cert), Some(key)) => Some(http::listener::tls_acceptor(cert, key)?),
        (None, None) => None,
        _ => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "--tls-cert-file and --tls-private-key-file go together",
            ))
        }
    };
    let fresh = !config.state_file.as_deref().is_some_and(Path::exists);
    let registry = build_registry(&config, &tuning)?;
    controllers::cnat::install_crd(&registry);
    if fresh && !config.empty {
        seed::seed_workloads(&registry);
    }
    let load_pods = load_pod_count(&config);
    if fresh && (load_pods > 0 || config.crds > 0) {
        let report = load::populate(
            &registry,
            &load::LoadConfig {
                pods: load_pods,
                crds: config.crds,
                seed: config.seed,
            },
        );
        tracing::info!(
            "load mode: {} pods in {} namespaces on {} nodes ({} deployments), {} CRDs, in {:.2?}",
            report.workloads.pods,
            report.workloads.namespaces.len(),
            report.workloads.nodes,
            report.workloads.deployments,
            report.crds,
            report.elapsed
        );
    }
    let mut controllers = if config.controllers {
        controllers::start_all(registry.clone(), config.speed, config.event_ttl)
    } else {
        controllers::Controllers::default()
    };
    if config.churn > 0 {
        let scope = if load_pods > 0 {
            load::churn::Scope::LoadNamespaces
        } else {
            load::churn::Scope::AllPods
        };
        controllers.adopt(load::churn::spawn(
            registry.clone(),
            load::churn::ChurnConfig {
                rate: config.churn,
                seed: config.seed,
                scope,
                graceful: config.controllers,
            },
        ));
    }
    let listener = TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    let (stop_watches, shutdown) = tokio::sync::watch::channel(false);
    let chaos = config
        .chaos
        .clone()
        .filter(chaos::ChaosSpec::is_active)
        .map(|spec| {
            tracing::info!("chaos mode: {spec} (seed {})", config.seed);
            Arc::new(chaos::Chaos::new(spec, config.seed))
        });
    let header_read_timeout = tuning.header_read_timeout;
    let state = http::AppState {
        registry: registry.clone(),
        tuning,
        accept_hosts: Arc::new(config.accept_hosts.clone()),
        shutdown,
        chaos,
        tokens,
    };
    let router = http::router(state, config.www.as_deref());
    // Normalising the path must happen before routing, so it wraps the whole router.
    let app = tower::Layer::layer(
        &tower::util::MapRequestLayer::new(http::trim_trailing_slash),
        router,
    );
    let serves_tls = tls.is_some();
    let (tx, rx) = oneshot::channel::<()>();
    let state_file = config.state_file.clone();
    let saver_registry = registry.clone();
    let task = tokio::spawn(async move {
        let (stop_saver, saver) = match state_file.clone() {
            Some(path) => {
                let (stop_tx, stop_rx) = oneshot::channel::<()>();
                let handle = tokio::spawn(save_loop(saver_registry.clone(), path, stop_rx));
                (Some(stop_tx), Some(handle))
            }
            None => (None, None),
        };
        let listener = http::listener::GuardedListener::new(listener, header_read_timeout);
        let listener = match tls {
            Some(tls) => listener.with_tls(tls),
            None => listener,
        };
        let served = axum::serve(
            listener,
            axum::ServiceExt::<axum::extract::Request>::into_make_service(app),
        )
        .with_graceful_shutdown(async move {
            let _ = rx.await;
            let _ = stop_watches.send(true);
        })
        .await;
        if let (Some(stop), Some(handle)) = (stop_saver, saver) {
            let _ = stop.send(());
            let _ = handle.await;
        }
        if let Some(path) = state_file {
            save_state(&saver_registry, &path)?;
        }
        served
    });
    Ok(RunningCluster {
        addr,
        tls: serves_tls,
        shutdown: Some(tx),
        task,
        registry,
        controllers,
    })
}

/// Pods to load: `config.pods`, or a small pool for churn on a cluster that would have no
/// pods of its own (seeded workloads give it theirs).
fn load_pod_count(config: &Config) -> usize {
    if config.pods == 0 && config.churn > 0 && config.empty {
        load::CHURN_POOL_PODS
    } else {
        config.pods
    }
}

/// Writes the state file whenever the store changed (checked twice a second).
async fn save_loop(registry: Arc<Registry>, path: PathBuf, mut stop: oneshot::Receiver<()>) {
    let mut saved_rv = registry.store.current_rv();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
            _ = &mut stop => return,
        }
        let rv = registry.store.current_rv();
        if rv != saved_rv {
            match save_state(&registry, &path) {
                Ok(()) => saved_rv = rv,
                Err(e) => tracing::warn!("could not write state file {}: {e}", path.display()),
            }
        }
    }
}

/// How far the resourceVersion moves on when a state file is reloaded. The file is written
/// at most every half second, so after a crash the last writes clients saw may be missing
/// from it; new writes must not reuse their versions (a client resuming from one would
/// silently miss changes). Like etcd's revision, the counter never goes back.
pub const RESTART_RV_STEP: u64 = 10_000;

fn save_state(registry: &Registry, path: &Path) -> std::io::Result<()> {
    // The version and the objects from one lock, so no object is newer than the version.
    let (rv, objects) = registry.store.snapshot();
    let objects: Vec<Value> = objects
        .into_iter()
        .map(|(k, v)| json!({"group": k.group, "resource": k.resource, "namespace": k.namespace, "name": k.name, "object": v}))
        .collect();
    let doc = json!({"resourceVersion": rv, "objects": objects});
    let tmp = path.with_extension("tmp");
    std::fs::write(
        &tmp,
        serde_json::to_vec(&doc).map_err(std::io::Error::other)?,
    )?;
    std::fs::rename(&tmp, path)
}

fn load_state(registry: &Registry, path: &Path) -> std::io::Result<()> {
    let bytes = std::fs::read(path)?;
    let doc: Value = serde_json::from_slice(&bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })?;
    let rv = doc["resourceVersion"].as_u64().unwrap_or(1);
    let objects = doc["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let key = ObjectKey::new(
                e["group"].as_str()?,
                e["resource"].as_str()?,
                e["namespace"].as_str()?,
                e["name"].as_str()?,
            );
            Some((key, e["object"].clone()))
        })
        .collect();
    // The store starts above every saved version (objects included, should the file's own
    // version lag behind them) by `RESTART_RV_STEP`, with an empty watch cache: resuming
    // from any pre-restart version is 410 Expired, as kube-apiserver's rebuilt watch cache
    // answers versions older than its initial list.
    registry.store.load(rv, objects, RESTART_RV_STEP);
    registry.refresh_crds();
    Ok(())
}
