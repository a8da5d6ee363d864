//! Shared end-to-end harness: a fresh demo cluster serving the release build (dist/), a
//! chromedriver on a free port and a headless Chromium session driven by thirtyfour.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use thirtyfour::prelude::*;

/// Whether this is CI: the one rule shared with the build scripts and xtask.
#[path = "../../build-support/test_env.rs"]
pub mod test_env;

/// The API server a test runs the dashboard against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The embedded demo cluster, serving dist/ itself.
    Demo,
    /// A real kube-apiserver v1.36 with its controller manager, scheduler and the stand-in
    /// kubelet (`envtest`), behind a real `kubectl proxy --www=dist --www-prefix=/ui/` holding
    /// the admin's token, as the README tells users to run it.
    Real,
}

/// A real control plane and the `kubectl proxy` in front of it.
struct RealCluster {
    // Dropped first: the proxy goes before the server it proxies to.
    proxy: envtest::KubectlProxy,
    plane: envtest::ControlPlane,
    /// kubectl's cache for the proxy.
    _scratch: tempfile::TempDir,
}

/// Two real control planes (`alpha` with the admin's token, `beta` with the viewer's, who
/// may read pods in `default`) and the demo cluster (`demo`, the harness's own) behind one
/// kube-atlas serving dist/.
pub struct SeveralClusters {
    // Dropped first: kube-atlas goes before the servers it proxies to.
    pub atlas: kube_atlas_server::RunningServer,
    pub alpha: envtest::ControlPlane,
    pub beta: envtest::ControlPlane,
}

pub struct Harness {
    /// Behind kube-atlas ([`Harness::start_several`]).
    several: Option<SeveralClusters>,
    /// kube-atlas in front of this harness's one cluster ([`Harness::behind_kube_atlas`]).
    atlas: Option<kube_atlas_server::RunningServer>,
    /// The browser's session folder (its profile and temporary files), unique per browser: on
    /// a failed test, chromedriver is killed without a WebDriver quit, and the profile path
    /// finds the orphaned Chromium.
    profile_dir: PathBuf,
    cluster: Option<demo_cluster::RunningCluster>,
    real: Option<RealCluster>,
    /// Where the API answers without credentials: the demo cluster, or the kubectl proxy.
    base_url: String,
    /// Where the dashboard is served: the demo cluster's root, or the proxy's `/ui/`.
    ui_url: String,
    pub backend: Backend,
    pub driver: WebDriver,
    chromedriver: Child,
    /// Proxies holding a user's token ([`Harness::start_as_viewer`]), and their scratch.
    user_proxies: Vec<KubectlProxy>,
    _user_scratch: Option<tempfile::TempDir>,
}

pub fn dist_dir() -> PathBuf {
    std::env::var_os("KUBE_ATLAS_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/dist")))
}

/// Where screenshots go: `target/screenshots`, so a test run leaves the tree clean;
/// `cargo xtask screenshots` points `KUBE_ATLAS_SCREENSHOTS` at `docs/screenshots` to refresh
/// the README's.
pub fn screenshot_dir() -> PathBuf {
    std::env::var_os("KUBE_ATLAS_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/screenshots"))
        })
}

fn wait_for_port(port: u16, within: Duration) {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("nothing listening on 127.0.0.1:{port} after {within:?}");
}

fn announced_port(child: &mut Child, marker: &'static str) -> u16 {
    envtest::announced_port(child, marker).unwrap_or_else(|e| panic!("{e}"))
}

/// Starts chromedriver and a headless Chromium session (`dark`: the system prefers a dark
/// color scheme).
pub async fn start_browser(dark: bool) -> (WebDriver, Child, PathBuf) {
    let chromedriver_path =
        std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
    // Port 0: chromedriver binds a free port itself and says which. Picking one here and
    // passing it on raced with the other tests starting browsers at the same moment.
    // One folder per browser for its profile and its temporary files (Chromium leaves a
    // scoped_dir of ~90 MB in TMPDIR per session), removed when the harness goes.
    static SESSIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let session_dir = std::env::temp_dir().join(format!(
        "kube-atlas-e2e-{}-{}",
        std::process::id(),
        SESSIONS.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    ));
    let browser_tmp = session_dir.join("tmp");
    std::fs::create_dir_all(&browser_tmp).expect("browser session folder");
    // A second try when chromedriver never says it started: on a loaded 2-core machine one
    // start in many hundreds was seen to hang silently, failing a test that had not begun.
    let start_chromedriver = || {
        let mut chromedriver = Command::new(&chromedriver_path)
            .env("TMPDIR", &browser_tmp)
            .arg("--port=0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {chromedriver_path}: {e}"));
        match envtest::announced_port(&mut chromedriver, "started successfully on port") {
            Ok(port) => Ok((chromedriver, port)),
            Err(error) => {
                let _ = chromedriver.kill();
                let _ = chromedriver.wait();
                Err(error)
            }
        }
    };
    let (chromedriver, port) = start_chromedriver()
        .or_else(|first| {
            eprintln!("chromedriver: {first}; starting it again");
            start_chromedriver()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    wait_for_port(port, Duration::from_secs(20));

    let mut caps = DesiredCapabilities::chrome();
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    caps.set_binary(&chromium).expect("chromium binary");
    for arg in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1440,900",
    ] {
        caps.add_arg(arg).expect("chromium argument");
    }
    if dark {
        caps.add_arg("--force-dark-mode")
            .expect("chromium argument");
    }
    caps.add_arg(&format!(
        "--user-data-dir={}",
        profile_of(&session_dir).display()
    ))
    .expect("chromium argument");
    let driver = WebDriver::new(format!("http://127.0.0.1:{port}"), caps)
        .await
        .expect("a chromedriver session");
    (driver, chromedriver, session_dir)
}

/// The Chromium profile inside a browser's session folder.
fn profile_of(session_dir: &std::path::Path) -> PathBuf {
    session_dir.join("profile")
}

impl Harness {
    /// A demo cluster serving dist/, and a browser.
    pub async fn start() -> Harness {
        Self::start_with(false).await
    }

    /// As [`Harness::start`], with a browser whose system setting prefers dark.
    pub async fn start_dark() -> Harness {
        Self::start_with(true).await
    }

    /// An empty cluster without the simulated control plane, for benchmarks: what is
    /// measured is the API server and the page, not controllers resyncing.
    pub async fn start_quiet() -> Harness {
        Self::start_cluster(
            demo_cluster::Config {
                controllers: false,
                empty: true,
                ..Default::default()
            },
            false,
        )
        .await
    }

    /// A cluster started from `config` (its address and served files set here), and a
    /// browser: for benchmarks that need load mode or a cluster of their own shape.
    pub async fn start_config(config: demo_cluster::Config) -> Harness {
        Self::start_cluster(config, false).await
    }

    async fn start_with(dark: bool) -> Harness {
        Self::start_cluster(
            demo_cluster::Config {
                speed: 20.0,
                ..Default::default()
            },
            dark,
        )
        .await
    }

    async fn start_cluster(config: demo_cluster::Config, dark: bool) -> Harness {
        let dist = dist_dir();
        assert!(
            dist.join("index.html").exists(),
            "{} has no index.html: run `cargo xtask build` first (cargo xtask test does)",
            dist.display()
        );
        let cluster = demo_cluster::start(demo_cluster::Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            www: Some(dist),
            ..config
        })
        .await
        .expect("demo cluster starts");
        let (driver, chromedriver, profile_dir) = start_browser(dark).await;
        Harness {
            several: None,
            atlas: None,
            profile_dir,
            base_url: cluster.url(),
            ui_url: format!("{}/", cluster.url()),
            cluster: Some(cluster),
            real: None,
            backend: Backend::Demo,
            driver,
            chromedriver,
            user_proxies: Vec::new(),
            _user_scratch: None,
        }
    }

    /// The dashboard on `backend`: the seeded demo cluster (20 times as fast), or a real
    /// control plane (empty but for its system objects, two stand-in nodes) behind
    /// `kubectl proxy`.
    pub async fn start_on(backend: Backend) -> Harness {
        match backend {
            Backend::Demo => Self::start().await,
            Backend::Real => Self::start_real().await,
        }
    }

    async fn start_real() -> Harness {
        Self::start_real_with(envtest::Options::default()).await
    }

    /// As [`Harness::start_on`], with the metrics API served: the demo cluster serves it
    /// itself; the real control plane gets the stand-in metrics-server behind its aggregator
    /// (`fake_kubelet.py --metrics`).
    pub async fn start_with_metrics(backend: Backend) -> Harness {
        match backend {
            Backend::Demo => Self::start().await,
            Backend::Real => {
                let mut harness = Self::start_real_with(envtest::Options {
                    controllers: true,
                    nodes: 0,
                })
                .await;
                let plane = harness.control_plane().expect("a real control plane");
                tokio::task::block_in_place(|| plane.start_kubelet_with_metrics(2))
                    .unwrap_or_else(|e| panic!("the stand-in kubelet with metrics starts: {e}"));
                harness
            }
        }
    }

    /// A real control plane without controllers and kubelet, for benchmarks: what is
    /// measured is kube-apiserver, etcd, kubectl proxy and the page.
    pub async fn start_real_quiet() -> Harness {
        Self::start_real_with(envtest::Options {
            controllers: false,
            nodes: 0,
        })
        .await
    }

    async fn start_real_with(options: envtest::Options) -> Harness {
        let dist = dist_dir();
        assert!(
            dist.join("index.html").exists(),
            "{} has no index.html: run `cargo xtask build` first (cargo xtask test does)",
            dist.display()
        );
        let real = tokio::task::spawn_blocking(move || {
            let plane = envtest::ControlPlane::start(options)
                .unwrap_or_else(|e| panic!("the real control plane starts: {e}"));
            let scratch = tempfile::tempdir().expect("proxy scratch folder");
            let proxy = envtest::KubectlProxy::start(
                &plane.admin_kubeconfig(),
                Some(&dist),
                scratch.path(),
            )
            .unwrap_or_else(|e| panic!("kubectl proxy starts: {e}"));
            RealCluster {
                proxy,
                plane,
                _scratch: scratch,
            }
        })
        .await
        .expect("control plane start");
        let (driver, chromedriver, profile_dir) = start_browser(false).await;
        Harness {
            several: None,
            atlas: None,
            profile_dir,
            base_url: real.proxy.url(),
            ui_url: format!("{}/ui/", real.proxy.url()),
            cluster: None,
            real: Some(real),
            backend: Backend::Real,
            driver,
            chromedriver,
            user_proxies: Vec::new(),
            _user_scratch: None,
        }
    }

    /// The dashboard as the viewer sees it (token `atlas-viewer-token`, group `viewers`, the
    /// `view` ClusterRole in namespace `default` only, RBAC enforced), behind a `kubectl proxy`
    /// holding the viewer's token; the test's own client ([`Harness::kube_client`]) is the
    /// admin. On the real control plane, its viewer kubeconfig; on the demo cluster, the same
    /// two users from a tokens file (`--token-auth-file`).
    pub async fn start_as_viewer(backend: Backend) -> Harness {
        let mut harness = match backend {
            Backend::Real => Self::start_real().await,
            Backend::Demo => {
                let scratch = tempfile::tempdir().expect("tokens folder");
                let tokens = scratch.path().join("tokens.csv");
                std::fs::write(&tokens, envtest::tokens_csv()).expect("tokens file");
                // kubectl sends tokens only over TLS: the demo serves its example pair.
                let example = |file: &str| {
                    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/demo-cluster")).join(file)
                };
                let mut harness = Self::start_cluster(
                    demo_cluster::Config {
                        speed: 20.0,
                        token_auth_file: Some(tokens),
                        tls_cert_file: Some(example("tls.example.crt")),
                        tls_private_key_file: Some(example("tls.example.key")),
                        ..Default::default()
                    },
                    false,
                )
                .await;
                let server = harness.base_url.clone();
                let admin = KubectlProxy::for_server_as(
                    &server,
                    Some(envtest::ADMIN_TOKEN),
                    Some(&dist_dir()),
                    &scratch.path().join("admin"),
                )
                .unwrap_or_else(|e| panic!("the admin's kubectl proxy starts: {e}"));
                harness.base_url = admin.url();
                harness.user_proxies.push(admin);
                harness._user_scratch = Some(scratch);
                harness
            }
        };
        let viewer = match &harness.real {
            Some(real) => {
                let scratch = tempfile::tempdir().expect("viewer proxy scratch");
                let proxy = KubectlProxy::start(
                    &real.plane.viewer_kubeconfig(),
                    Some(&dist_dir()),
                    scratch.path(),
                );
                harness._user_scratch = Some(scratch);
                proxy
            }
            None => {
                let cluster_url = harness
                    .cluster
                    .as_ref()
                    .map(|c| c.url())
                    .expect("a demo cluster");
                let scratch = harness
                    ._user_scratch
                    .as_ref()
                    .map(|s| s.path().join("viewer"))
                    .expect("the tokens folder");
                KubectlProxy::for_server_as(
                    &cluster_url,
                    Some(envtest::VIEWER_TOKEN),
                    Some(&dist_dir()),
                    &scratch,
                )
            }
        }
        .unwrap_or_else(|e| panic!("the viewer's kubectl proxy starts: {e}"));
        harness.ui_url = format!("{}/ui/", viewer.url());
        harness.user_proxies.push(viewer);
        harness
    }

    /// Two real control planes and the demo cluster behind one kube-atlas serving dist/; the
    /// browser opens kube-atlas ([`Harness::url`] is its `/`), the harness's own client is the
    /// demo cluster's.
    pub async fn start_several() -> Harness {
        let mut harness = Self::start_cluster(
            demo_cluster::Config {
                controllers: false,
                empty: true,
                ..Default::default()
            },
            false,
        )
        .await;
        let (alpha, beta) = tokio::task::spawn_blocking(|| {
            let start = || {
                envtest::ControlPlane::start(envtest::Options {
                    controllers: false,
                    nodes: 0,
                })
                .unwrap_or_else(|e| panic!("a control plane starts: {e}"))
            };
            let (alpha, beta) = (start(), start());
            for plane in [&alpha, &beta] {
                plane
                    .prepare_without_controllers()
                    .unwrap_or_else(|e| panic!("pods in default: {e}"));
            }
            (alpha, beta)
        })
        .await
        .expect("control planes");
        let context = |name, server, credentials| envtest::ContextEntry {
            name,
            server,
            check: envtest::ServerCheck::Unchecked,
            credentials,
        };
        let kubeconfig = envtest::kubeconfig_of(&[
            context(
                "alpha",
                alpha.server_url(),
                envtest::Credentials::Token(envtest::ADMIN_TOKEN),
            ),
            context(
                "beta",
                beta.server_url(),
                envtest::Credentials::Token(envtest::VIEWER_TOKEN),
            ),
            context(
                "demo",
                harness.base_url.clone(),
                envtest::Credentials::Anonymous,
            ),
        ]);
        let atlas = start_kube_atlas(&kubeconfig).await;
        harness.ui_url = format!("{}/", atlas.url());
        harness.several = Some(SeveralClusters { atlas, alpha, beta });
        harness
    }

    /// The dashboard served by kube-atlas in front of this harness's cluster (one context,
    /// `cluster`: the demo cluster, or kube-apiserver with the admin's token): watches and log
    /// streams share one socket to it, as for a team that runs kube-atlas.
    pub async fn behind_kube_atlas(mut self) -> Harness {
        // On the real control plane kube-atlas speaks to kube-apiserver itself, with the
        // admin's token, as a team's deployment does (through kubectl proxy, exec and attach
        // would meet the proxy's `--reject-paths`).
        let (server, credentials) = match &self.real {
            Some(real) => (
                real.plane.server_url(),
                envtest::Credentials::Token(envtest::ADMIN_TOKEN),
            ),
            None => (self.base_url.clone(), envtest::Credentials::Anonymous),
        };
        let kubeconfig = envtest::kubeconfig_of(&[envtest::ContextEntry {
            name: "cluster",
            server,
            check: envtest::ServerCheck::Unchecked,
            credentials,
        }]);
        let atlas = start_kube_atlas(&kubeconfig).await;
        self.ui_url = format!("{}/", atlas.url());
        self.atlas = Some(atlas);
        self
    }

    /// kube-atlas in front of the real control plane as a team runs it in a pod: no
    /// credentials of its own (the in-cluster context: the API server's address and CA), each
    /// user signed in with their own token on its sign-in page.
    pub async fn behind_kube_atlas_for_a_team(mut self) -> Harness {
        let real = self
            .real
            .as_ref()
            .expect("a team's kube-atlas is tested on the real control plane");
        let server = real.plane.server_url();
        let port = server.rsplit(':').next().unwrap_or_default().to_string();
        let ca_file = real.plane.dir().join("certs/apiserver.crt");
        let kubeconfig = kube_atlas_server::in_cluster::InCluster::new("127.0.0.1", &port, ca_file)
            .and_then(|plane| plane.kubeconfig())
            .unwrap_or_else(|e| panic!("the in-cluster context: {e}"));
        let names = vec![kube_atlas_server::in_cluster::CONTEXT_NAME.to_string()];
        let atlas = kube_atlas_server::start(
            kube_atlas_server::Contexts::new(
                kubeconfig,
                names,
                kube_atlas_server::Timeouts::default(),
            )
            .users_bring_credentials(),
            kube_atlas_server::ServerConfig {
                listen: SocketAddr::from(([127, 0, 0, 1], 0)),
                www: Some(dist_dir()),
                probe_interval: Duration::from_secs(1),
                sessions: Some(kube_atlas_server::session::SessionConfig::default()),
                ..Default::default()
            },
        )
        .await
        .expect("kube-atlas starts");
        self.ui_url = format!("{}/", atlas.url());
        self.atlas = Some(atlas);
        self
    }

    /// The clusters behind kube-atlas ([`Harness::start_several`]).
    pub fn several(&mut self) -> &mut SeveralClusters {
        self.several
            .as_mut()
            .expect("started with Harness::start_several")
    }

    /// The real control plane (restart its API server, run kubectl as the admin); None on the
    /// demo cluster.
    pub fn control_plane(&mut self) -> Option<&mut envtest::ControlPlane> {
        self.real.as_mut().map(|real| &mut real.plane)
    }

    /// `path` of the dashboard: `/` its start page, `/#/list/...` a route.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.ui_url, path.trim_start_matches('/'))
    }

    /// The dashboard's path under the origin: `/` or, behind kubectl proxy, `/ui/`.
    pub fn ui_prefix(&self) -> &'static str {
        match self.backend {
            Backend::Demo => "/",
            Backend::Real => "/ui/",
        }
    }

    /// Saves what the browser shows as `<name>.png` (`real-<name>.png` on the real cluster).
    pub async fn screenshot(&self, name: &str) {
        let name = match self.backend {
            Backend::Demo => name.to_string(),
            Backend::Real => format!("real-{name}"),
        };
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).expect("screenshot dir");
        self.driver
            .screenshot(&dir.join(format!("{name}.png")))
            .await
            .expect("screenshot");
    }

    /// The cluster's in-process registry: benchmarks drive load and count writes through it.
    /// Demo cluster only.
    pub fn registry(&self) -> std::sync::Arc<demo_cluster::registry::Registry> {
        self.cluster
            .as_ref()
            .expect("the demo cluster runs until stop (a real cluster has no registry to reach)")
            .registry()
    }

    /// Where the API answers without credentials (`kubectl --server`, kube-rs).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The "stopped" notice the app puts up when it panics (then nothing of it runs), if the
    /// current tab shows one.
    pub async fn app_stopped(&self) -> Option<String> {
        app_stopped(&self.driver).await
    }

    /// Ends the browser session and the cluster; fails the test if the app stopped in any
    /// open tab (a panic in the page fails every test, not only those that look at what
    /// froze), or if either cannot end (a crashed browser or a server that cannot stop is a
    /// finding, not noise).
    pub async fn stop(mut self) {
        let stopped = stopped_tabs(&self.driver).await;
        if !stopped.is_empty() {
            panic!("the app stopped during the test: {}", stopped.join("; "));
        }
        self.driver
            .clone()
            .quit()
            .await
            .expect("the browser session ends cleanly");
        // kube-atlas first: its streams to the demo cluster end before the demo cluster does.
        if let Some(atlas) = self.atlas.take() {
            atlas.stop().await;
        }
        if let Some(several) = self.several.take() {
            several.atlas.stop().await;
            tokio::task::spawn_blocking(move || drop((several.alpha, several.beta)))
                .await
                .expect("the control planes stop");
        }
        if let Some(cluster) = self.cluster.take() {
            cluster
                .shutdown()
                .await
                .expect("the demo cluster shuts down cleanly");
        }
        if let Some(real) = self.real.take() {
            tokio::task::spawn_blocking(move || drop(real))
                .await
                .expect("the control plane stops");
        }
    }
}

impl Drop for Harness {
    // Also on a failed assertion: never leave chromedriver (and its Chromium) running.
    fn drop(&mut self) {
        let _ = self.chromedriver.kill();
        let _ = self.chromedriver.wait();
        let _ = Command::new("pkill")
            .args(["-f", "--"])
            .arg(format!(
                "--user-data-dir={}",
                profile_of(&self.profile_dir).display()
            ))
            .status();
        let _ = std::fs::remove_dir_all(&self.profile_dir);
    }
}

/// Waits until Deployment `name` has `replicas` available (`what` says why it should).
pub async fn wait_available(
    deployments: &kube::api::Api<k8s_openapi::api::apps::v1::Deployment>,
    name: &str,
    replicas: i32,
    what: &str,
) {
    wait_until(
        what,
        async || {
            deployments
                .get(name)
                .await
                .ok()
                .and_then(|d| d.status)
                .and_then(|s| s.available_replicas)
        },
        |available| *available == Some(replicas),
    )
    .await;
}

/// kube-atlas serving the release build for every context of `kubeconfig`, on a free port.
async fn start_kube_atlas(kubeconfig: &str) -> kube_atlas_server::RunningServer {
    let config = kube::config::Kubeconfig::from_yaml(kubeconfig).expect("the kubeconfig parses");
    let names = kube_atlas_server::contexts::select_contexts(&config, &[]).expect("contexts");
    kube_atlas_server::start(
        kube_atlas_server::Contexts::new(config, names, kube_atlas_server::Timeouts::default()),
        kube_atlas_server::ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            www: Some(dist_dir()),
            probe_interval: Duration::from_secs(1),
            ..Default::default()
        },
    )
    .await
    .expect("kube-atlas starts")
}

pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/e2e")).join(name);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

pub use envtest::KubectlProxy;

/// `kubectl proxy --www=dist --www-prefix=/ui/` pointed at `server` (plain HTTP, no
/// credentials).
pub fn kubectl_proxy(scratch: &std::path::Path, server: &str) -> KubectlProxy {
    KubectlProxy::for_server(server, Some(&dist_dir()), scratch)
        .unwrap_or_else(|e| panic!("kubectl proxy starts: {e}"))
}

/// What a test proxy in front of the demo cluster changes.
#[derive(Clone)]
pub enum ProxyMode {
    /// Ask for plain `application/json` on every request, as a proxy or an older API server
    /// without aggregated discovery would answer: the dashboard must fall back to the legacy
    /// discovery walk.
    LegacyDiscovery,
    /// Answer aggregated `GET /apis` with this document (e.g. the real kube-apiserver fixture
    /// plus synthetic CRD groups) and pass everything else through.
    AggregatedApis(std::sync::Arc<String>),
    /// Pass everything through, but while the flag is set forward nothing in either direction
    /// and hold new connections: to the browser the server looks stopped (SIGSTOP).
    Freezable(std::sync::Arc<std::sync::atomic::AtomicBool>),
    /// Pass everything through until [`Severance::sever`]: from then on the connections open
    /// at that moment are dead without a word (bytes in either direction vanish, nothing is
    /// closed), as after a laptop sleeps or a NAT forgets them; new connections wait until
    /// [`Severance::restore`], then work.
    Severable(std::sync::Arc<Severance>),
    /// Accept WebSocket upgrades and then say nothing, as Trunk's dev proxy does; everything
    /// else passes through.
    SilentWebSockets,
    /// Pass everything through; `notify_waiters` on it closes every connection open at that
    /// moment (no close frame: as when a proxy restarts or the network resets them), new
    /// ones pass.
    Droppable(std::sync::Arc<tokio::sync::Notify>),
    /// Answer the requests for `path` (query ignored) with these raw responses in turn, each
    /// to a request of its method, as a failing server or a misbehaving proxy would; then
    /// pass them through.
    FailFirst {
        path: String,
        answers: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<(String, String)>>>,
    },
}

impl ProxyMode {
    /// [`ProxyMode::FailFirst`] answering requests for `path` with each of `answers`
    /// (method, status, extra header lines, body) once, in order.
    pub fn fail_first(path: &str, answers: &[(&str, u16, &str, &str)]) -> ProxyMode {
        let raw = answers
            .iter()
            .map(|(method, status, headers, body)| {
                let response = format!(
                    "HTTP/1.1 {status} Failed\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                (method.to_string(), response)
            })
            .collect();
        ProxyMode::FailFirst {
            path: path.to_string(),
            answers: std::sync::Arc::new(std::sync::Mutex::new(raw)),
        }
    }

    /// The [`ProxyMode::FailFirst`] answers not yet given.
    pub fn answers_left(&self) -> usize {
        match self {
            ProxyMode::FailFirst { answers, .. } => answers.lock().map(|a| a.len()).unwrap_or(0),
            _ => 0,
        }
    }
}

/// The switch of a [`ProxyMode::Severable`] proxy.
#[derive(Default)]
pub struct Severance {
    severed: std::sync::atomic::AtomicBool,
    /// Counts severings: a connection opened in an older epoch is dead.
    epoch: std::sync::atomic::AtomicU64,
}

impl Severance {
    pub fn sever(&self) {
        self.epoch.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.severed
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn restore(&self) {
        self.severed
            .store(false, std::sync::atomic::Ordering::SeqCst);
    }

    fn epoch(&self) -> u64 {
        self.epoch.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Copies `from` to `to` while the connection, opened in `epoch`, lives; once severed, takes
/// and drops what arrives and never closes `to` (a dead peer sends no FIN).
async fn pump_until_severed(
    mut from: impl tokio::io::AsyncRead + Unpin,
    mut to: impl tokio::io::AsyncWrite + Unpin,
    severance: std::sync::Arc<Severance>,
    epoch: u64,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        if severance.epoch() != epoch {
            continue;
        }
        if to.write_all(&buffer[..read]).await.is_err() {
            break;
        }
    }
    if severance.epoch() != epoch {
        std::future::pending::<()>().await;
    }
    let _ = to.shutdown().await;
}

async fn wait_while_frozen(frozen: Option<&std::sync::atomic::AtomicBool>) {
    while frozen.is_some_and(|f| f.load(std::sync::atomic::Ordering::SeqCst)) {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Copies `from` to `to` until either ends, holding the bytes while `frozen` is set.
async fn pump(
    mut from: impl tokio::io::AsyncRead + Unpin,
    mut to: impl tokio::io::AsyncWrite + Unpin,
    frozen: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        wait_while_frozen(frozen.as_deref()).await;
        if to.write_all(&buffer[..read]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// A loopback HTTP proxy in front of `upstream`. One request per connection.
pub async fn start_test_proxy(upstream: std::net::SocketAddr, mode: ProxyMode) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind proxy");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let mode = mode.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match client.read(&mut byte).await {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let text = String::from_utf8_lossy(&head).into_owned();
                let lower_text = text.to_ascii_lowercase();
                let frozen = match &mode {
                    ProxyMode::Freezable(flag) => Some(flag.clone()),
                    _ => None,
                };
                wait_while_frozen(frozen.as_deref()).await;
                if let ProxyMode::Severable(severance) = &mode {
                    wait_while_frozen(Some(&severance.severed)).await;
                }
                if matches!(mode, ProxyMode::SilentWebSockets)
                    && lower_text.contains("upgrade: websocket")
                {
                    // Keep the connection, answer nothing, ever.
                    let mut sink = [0u8; 1024];
                    while matches!(client.read(&mut sink).await, Ok(n) if n > 0) {}
                    return;
                }
                let request_line = text.lines().next().unwrap_or_default().to_string();
                if let ProxyMode::FailFirst { path, answers } = &mode {
                    let mut words = request_line.split_whitespace();
                    let (method, requested) = (
                        words.next().unwrap_or_default(),
                        words.next().unwrap_or_default(),
                    );
                    let next = (requested.split('?').next() == Some(path.as_str()))
                        .then(|| {
                            let mut answers = answers.lock().ok()?;
                            let due = answers.front().is_some_and(|(m, _)| m == method);
                            due.then(|| answers.pop_front()).flatten()
                        })
                        .flatten()
                        .map(|(_, answer)| answer);
                    if let Some(answer) = next {
                        let _ = client.write_all(answer.as_bytes()).await;
                        return;
                    }
                }
                if let ProxyMode::AggregatedApis(body) = &mode {
                    let path = request_line.split_whitespace().nth(1).unwrap_or_default();
                    if path.split('?').next() == Some("/apis")
                        && lower_text.contains("apidiscovery")
                    {
                        let response = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        );
                        let _ = client.write_all(response.as_bytes()).await;
                        let _ = client.write_all(body.as_bytes()).await;
                        return;
                    }
                }
                let mut rewritten = String::new();
                for line in text.split("\r\n").filter(|l| !l.is_empty()) {
                    let lower = line.to_ascii_lowercase();
                    let legacy = matches!(mode, ProxyMode::LegacyDiscovery);
                    if legacy && lower.starts_with("accept:") && lower.contains("apidiscovery") {
                        rewritten.push_str("Accept: application/json\r\n");
                    } else if lower.starts_with("connection:") && !lower.contains("upgrade") {
                        continue;
                    } else {
                        rewritten.push_str(line);
                        rewritten.push_str("\r\n");
                    }
                }
                if !lower_text.contains("upgrade: websocket") {
                    rewritten.push_str("Connection: close\r\n");
                }
                rewritten.push_str("\r\n");
                let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                if server.write_all(rewritten.as_bytes()).await.is_err() {
                    return;
                }
                if let ProxyMode::Severable(severance) = &mode {
                    let epoch = severance.epoch();
                    let (client_read, client_write) = client.into_split();
                    let (server_read, server_write) = server.into_split();
                    tokio::join!(
                        pump_until_severed(client_read, server_write, severance.clone(), epoch),
                        pump_until_severed(server_read, client_write, severance.clone(), epoch)
                    );
                } else if let ProxyMode::Droppable(dropped) = &mode {
                    // Dropping both streams closes them.
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = dropped.notified() => {}
                    }
                } else if frozen.is_some() {
                    let (client_read, client_write) = client.into_split();
                    let (server_read, server_write) = server.into_split();
                    tokio::join!(
                        pump(client_read, server_write, frozen.clone()),
                        pump(server_read, client_write, frozen)
                    );
                } else {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                }
            });
        }
    });
    port
}

impl Harness {
    /// Opens `fragment` of the dashboard served through a test proxy in `mode`.
    pub async fn open_through_proxy(&self, mode: ProxyMode, fragment: &str) {
        let port = start_test_proxy(self.cluster_addr(), mode).await;
        self.driver
            .goto(format!(
                "http://127.0.0.1:{port}{}{fragment}",
                self.ui_prefix()
            ))
            .await
            .expect("page loads");
    }

    /// Opens `fragment` of the dashboard through a test proxy in `mode` in front of whatever
    /// serves it (the demo cluster, kube-atlas or kubectl proxy).
    pub async fn open_ui_through_proxy(&self, mode: ProxyMode, fragment: &str) {
        let rest = self.ui_url.trim_start_matches("http://");
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let upstream: std::net::SocketAddr = host.parse().expect("the UI's address");
        let port = start_test_proxy(upstream, mode).await;
        self.driver
            .goto(format!("http://127.0.0.1:{port}{path}{fragment}"))
            .await
            .expect("page loads");
    }

    pub fn cluster_addr(&self) -> std::net::SocketAddr {
        self.base_url
            .trim_start_matches("http://")
            .parse()
            .expect("cluster address")
    }
}

/// Waits ([`PATIENCE`] at most) for an element matching `css`.
pub async fn wait_for(driver: &WebDriver, css: &str) -> WebElement {
    driver
        .query(By::Css(css))
        .wait(PATIENCE, Duration::from_millis(100))
        .first()
        .await
        .unwrap_or_else(|e| panic!("`{css}` never appeared: {e}"))
}

/// Clicks what `css` finds, finding it again while a live update redraws or moves it between
/// the finding and the click (a stale element, a click landing on a neighbour), for at most
/// [`PATIENCE`].
pub async fn click_live(driver: &WebDriver, css: &str) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let clicked = match driver.find(By::Css(css)).await {
            Ok(element) => element.click().await,
            Err(error) => Err(error),
        };
        match clicked {
            Ok(()) => return,
            Err(error) if Instant::now() >= deadline => panic!("click `{css}`: {error}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Polls `check` on what `read` gives until it holds, for at most `limit`; returns the value
/// that held. Panics with `what` and the last value seen otherwise.
pub async fn wait_until_within<T: std::fmt::Debug>(
    what: &str,
    limit: Duration,
    mut read: impl AsyncFnMut() -> T,
    check: impl Fn(&T) -> bool,
) -> T {
    let deadline = Instant::now() + limit;
    loop {
        let value = read().await;
        if check(&value) {
            return value;
        }
        if Instant::now() > deadline {
            panic!("{what}: not within {limit:?}; last seen {value:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The outer bound of a wait: generous on a busy 2-core machine running several browser
/// tests at once (some under chaos); a healthy run takes a fraction of it.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// [`wait_until_within`] [`PATIENCE`].
pub async fn wait_until<T: std::fmt::Debug>(
    what: &str,
    read: impl AsyncFnMut() -> T,
    check: impl Fn(&T) -> bool,
) -> T {
    wait_until_within(what, PATIENCE, read, check).await
}

/// The names in a list grid's name column, as shown (duplicates kept), read in one script
/// (a live list redraws, so elements read one by one may go stale).
pub async fn shown_names(driver: &WebDriver) -> Vec<String> {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('table[role=grid] tbody tr.vt-row td.name-cell')).map(c => (c.querySelector('a') || c).textContent.trim());",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<String>>().ok())
        .unwrap_or_default()
}

impl Harness {
    /// The route the page is at (`location.hash`), empty when it cannot be read.
    pub async fn hash(&self) -> String {
        self.driver
            .execute("return location.hash;", vec![])
            .await
            .ok()
            .and_then(|r| r.convert::<String>().ok())
            .unwrap_or_default()
    }

    /// Opens `fragment` (`#/list/...`) of the served dashboard.
    pub async fn open(&self, fragment: &str) {
        self.driver
            .goto(self.url(fragment))
            .await
            .expect("page loads");
    }

    /// Creates namespace `name` through the kube crate.
    pub async fn create_namespace(&self, name: &str) {
        use k8s_openapi::api::core::v1::Namespace;
        let namespaces: kube::Api<Namespace> = kube::Api::all(self.kube_client());
        let namespace: Namespace =
            serde_json::from_value(serde_json::json!({"metadata": {"name": name}}))
                .expect("namespace");
        namespaces
            .create(&kube::api::PostParams::default(), &namespace)
            .await
            .expect("namespace created");
        if self.backend == Backend::Real {
            // Pods are admitted only once the namespace's `default` ServiceAccount exists,
            // which the controller manager makes a moment later (or never, when a benchmark
            // runs without controllers): made here, an AlreadyExists is fine.
            use k8s_openapi::api::core::v1::ServiceAccount;
            let accounts: kube::Api<ServiceAccount> =
                kube::Api::namespaced(self.kube_client(), name);
            let account: ServiceAccount =
                serde_json::from_value(serde_json::json!({"metadata": {"name": "default"}}))
                    .expect("service account");
            match accounts
                .create(&kube::api::PostParams::default(), &account)
                .await
            {
                Ok(_) => {}
                Err(kube::Error::Api(status)) if status.code == 409 => {}
                Err(e) => panic!("the default ServiceAccount of {name}: {e}"),
            }
        }
    }

    /// The seeded demo cluster's `default/nginx` Deployment (3 replicas of nginx, label
    /// `app=nginx`), made on the real cluster; returns once its 3 replicas are available.
    pub async fn nginx_rolled_out(&self) {
        use k8s_openapi::api::apps::v1::Deployment;
        let deployments: kube::Api<Deployment> =
            kube::Api::namespaced(self.kube_client(), "default");
        if self.backend == Backend::Real {
            let nginx: Deployment = serde_json::from_value(serde_json::json!({
                "metadata": {"name": "nginx", "labels": {"app": "nginx"}},
                "spec": {
                    "replicas": 3,
                    "selector": {"matchLabels": {"app": "nginx"}},
                    "template": {"metadata": {"labels": {"app": "nginx"}},
                                 "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}
                }
            }))
            .expect("deployment");
            deployments
                .create(&kube::api::PostParams::default(), &nginx)
                .await
                .expect("nginx created");
        }
        wait_until_within(
            "default/nginx has 3 available replicas",
            Duration::from_secs(90),
            async || {
                deployments
                    .get("nginx")
                    .await
                    .ok()
                    .and_then(|d| d.status)
                    .and_then(|s| s.available_replicas)
            },
            |available| *available == Some(3),
        )
        .await;
    }

    /// `fragment` of the dashboard as the cluster's admin sees it (the admin's kubectl proxy
    /// on the real control plane or, after [`Harness::start_as_viewer`], on the demo cluster).
    pub fn admin_url(&self, fragment: &str) -> String {
        match (self.backend, self.user_proxies.is_empty()) {
            (Backend::Demo, true) => format!("{}/{fragment}", self.base_url),
            _ => format!("{}/ui/{fragment}", self.base_url),
        }
    }

    /// A kube-rs client for the harness's cluster.
    pub fn kube_client(&self) -> kube::Client {
        let config = kube::Config::new(self.base_url().parse().expect("cluster URL"));
        kube::Client::try_from(config).expect("kube client")
    }
}

/// Every frame's interval (requestAnimationFrame) and the long animation frames, with the
/// scripts the longest ones ran, until stopped.
pub const FRAMES_START_SCRIPT: &str = r#"
const b = window.__liveFrames = {worst: 0, frames: 0, over50: 0, loafCount: 0, loafMax: 0,
  loafTotal: 0, longest: [], running: true, longIntervals: []};
let last = 0;
// The app's measures of the last second, to say what fell in a long interval.
const recent = [];
function step(t) {
  if (last) {
    const d = t - last;
    b.worst = Math.max(b.worst, d);
    b.frames++;
    if (d > 50) b.over50++;
    if (d > 40 && b.longIntervals.length < 10) {
      b.longIntervals.push({from: last, to: t, measures: recent
        .filter(m => m.start + m.duration > last - 20 && m.start < t)
        .map(m => ({name: m.name, at: m.start - last, duration: m.duration}))});
    }
  }
  last = t;
  if (b.running) requestAnimationFrame(step);
}
requestAnimationFrame(step);
try {
  b.observer = new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      b.loafCount++;
      b.loafTotal += e.duration;
      b.loafMax = Math.max(b.loafMax, e.duration);
      const end = e.startTime + e.duration;
      b.longest.push({duration: e.duration, blocking: e.blockingDuration,
        render: e.renderStart ? end - e.renderStart : 0,
        styleLayout: e.styleAndLayoutStart ? end - e.styleAndLayoutStart : 0,
        scripts: (e.scripts || []).map(s => ({invoker: s.invoker, type: s.invokerType,
          fn: s.sourceFunctionName, duration: s.duration}))});
      b.longest.sort((x, y) => y.duration - x.duration);
      b.longest.length = Math.min(b.longest.length, 5);
    }
  });
  b.observer.observe({type: 'long-animation-frame'});
} catch (e) {}
// The app's own measures (e.g. `activity-compute`): the longest of each name.
b.measures = {};
try {
  b.measureObserver = new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      b.measures[e.name] = Math.max(b.measures[e.name] || 0, e.duration);
      recent.push({name: e.name, start: e.startTime, duration: e.duration});
      while (recent.length && recent[0].start < e.startTime - 1000) recent.shift();
    }
  });
  b.measureObserver.observe({type: 'measure'});
} catch (e) {}
"#;

/// Stops [`FRAMES_START_SCRIPT`] and returns its figures: `worst`, `frames`, `over50`,
/// `loafCount`, `loafMax`, `loafTotal`, `longest`.
pub const FRAMES_STOP_SCRIPT: &str = r#"
const b = window.__liveFrames;
b.running = false;
if (b.observer) { b.observer.takeRecords(); b.observer.disconnect(); }
if (b.measureObserver) { b.measureObserver.disconnect(); }
const {observer, measureObserver, ...figures} = b;
return figures;
"#;

const MEMORY_SCRIPT: &str = r#"
const heap = performance.memory ? performance.memory.usedJSHeapSize : 0;
const wasm = window.kubeAtlasWasmMemory ? window.kubeAtlasWasmMemory.buffer.byteLength : 0;
return {heap, wasm};
"#;

/// The page's JS heap and wasm memory, in MiB.
pub async fn page_memory_mib(driver: &WebDriver) -> (f64, f64) {
    let memory = driver
        .execute(MEMORY_SCRIPT, vec![])
        .await
        .expect("memory script")
        .json()
        .clone();
    let mib = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0) / (1024.0 * 1024.0);
    (mib(&memory["heap"]), mib(&memory["wasm"]))
}

/// What the browser benchmarks share: quick mode and the JSON file of a part's figures.
pub mod bench {
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::sync::Mutex;

    use serde_json::{json, Value};

    /// Records animation frames for `arguments[0]` ms (an `execute_async` script): the
    /// longest interval between two, the longest long-animation-frame, and the frames seen.
    pub const FRAMES_SCRIPT: &str = r#"
const done = arguments[arguments.length - 1];
const until = performance.now() + arguments[0];
let last = 0, worst = 0, frames = 0, longest_loaf = 0;
let observer = null;
try {
  observer = new PerformanceObserver(list => {
    for (const e of list.getEntries()) longest_loaf = Math.max(longest_loaf, e.duration);
  });
  observer.observe({type: 'long-animation-frame'});
} catch (e) {}
function step(t) {
  if (last > 0) { worst = Math.max(worst, t - last); frames++; }
  last = t;
  if (t >= until) {
    if (observer) observer.disconnect();
    done({worst, frames, longest_loaf});
    return;
  }
  requestAnimationFrame(step);
}
requestAnimationFrame(step);
"#;

    /// `KUBE_ATLAS_BENCH_QUICK=1` (set by `cargo xtask test`): small sizes and short runs,
    /// so the harness is exercised on every test run; figures go to `target/bench/quick/`.
    pub fn quick() -> bool {
        std::env::var("KUBE_ATLAS_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
    }

    /// `full`, or `quick` in quick mode.
    pub fn pick<T>(full: T, quick: T) -> T {
        if self::quick() {
            quick
        } else {
            full
        }
    }

    /// Where a run's JSON files go: `target/bench/`, or `target/bench/quick/` in quick mode.
    pub fn dir() -> PathBuf {
        let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/target/bench"));
        if quick() {
            dir.join("quick")
        } else {
            dir
        }
    }

    /// The figures of one part (`list`, `timeline`, ...) as they are measured: each also
    /// printed by the benchmark on its `bench <part>: ...` lines.
    pub struct Figures {
        part: &'static str,
        figures: Vec<Value>,
        notes: Vec<String>,
    }

    impl Figures {
        pub fn new(part: &'static str) -> Figures {
            Figures {
                part,
                figures: Vec::new(),
                notes: Vec::new(),
            }
        }

        /// One figure: `goal` is the project's goal for it, if it has one.
        pub fn add(&mut self, name: impl Into<String>, goal: Option<&str>, value: f64, unit: &str) {
            let name = name.into();
            assert!(value.is_finite(), "bench {}: {name} = {value}", self.part);
            self.figures
                .push(json!({"name": name, "goal": goal, "value": value, "unit": unit}));
        }

        /// As [`Figures::add`], with the printed text that goes with the value (`detail`).
        pub fn add_detailed(
            &mut self,
            name: impl Into<String>,
            goal: Option<&str>,
            value: f64,
            unit: &str,
            detail: impl Into<String>,
        ) {
            self.add(name, goal, value, unit);
            if let Some(figure) = self.figures.last_mut() {
                figure["detail"] = Value::String(detail.into());
            }
        }

        pub fn note(&mut self, note: impl Into<String>) {
            self.notes.push(note.into());
        }

        /// Adds these figures to the part's file (`<dir>/<part>.json`), which holds every
        /// figure this process saved for the part (tests of one target may run at once),
        /// and returns its path. Asserts that there are figures.
        pub fn save(self) -> PathBuf {
            assert!(
                !self.figures.is_empty(),
                "bench {}: no figures measured",
                self.part
            );
            /// What this process saved so far, by part.
            #[derive(Default)]
            struct Saved {
                figures: Vec<Value>,
                notes: Vec<String>,
            }
            static SAVED: Mutex<BTreeMap<&str, Saved>> = Mutex::new(BTreeMap::new());
            let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
            let Saved { figures, notes } = saved.entry(self.part).or_default();
            figures.extend(self.figures);
            notes.extend(self.notes);
            let load_average = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
            let document = json!({
                "part": self.part,
                "quick": quick(),
                "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
                "date": k8s_openapi::jiff::Timestamp::now()
                    .strftime("%Y-%m-%dT%H:%M:%SZ")
                    .to_string(),
                "commit": git_commit(),
                "load_average": load_average.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
                "figures": figures,
                "notes": notes,
            });
            let dir = dir();
            std::fs::create_dir_all(&dir).expect("the bench folder");
            let path = dir.join(format!("{}.json", self.part));
            let text = serde_json::to_string_pretty(&document).expect("json");
            std::fs::write(&path, text + "\n")
                .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
            println!("bench {}: wrote {}", self.part, path.display());
            path
        }
    }

    /// `git rev-parse HEAD` of the checkout, if git answers.
    fn git_commit() -> Option<String> {
        let output = std::process::Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        let commit = String::from_utf8(output.stdout).ok()?.trim().to_string();
        (output.status.success() && !commit.is_empty()).then_some(commit)
    }
}

/// V8's sampling profiler over the DevTools protocol, for the benchmarks' "where the time
/// went" (`KUBE_ATLAS_BENCH_PROFILE=1`). Wasm functions are named only in a build that keeps
/// the name section; the shipped one does not (copy `target/split/bindgen/*_bg.wasm` and
/// `target/split/pieces/*.wasm` over the dist's modules to read them).
pub mod profile {
    use std::collections::HashMap;

    use thirtyfour::prelude::*;

    /// Whether the run asked for profiles.
    pub fn wanted() -> bool {
        std::env::var_os("KUBE_ATLAS_BENCH_PROFILE").is_some()
    }

    /// Starts sampling every 100 µs.
    pub async fn start(driver: &WebDriver) -> WebDriverResult<()> {
        let devtools = driver.cdp();
        devtools
            .send_raw("Profiler.enable", serde_json::json!({}))
            .await?;
        devtools
            .send_raw(
                "Profiler.setSamplingInterval",
                serde_json::json!({"interval": 100}),
            )
            .await?;
        devtools
            .send_raw("Profiler.start", serde_json::json!({}))
            .await?;
        Ok(())
    }

    /// Stops sampling and prints, after `prefix`, the `top` functions by the time spent in
    /// them (not in what they called).
    pub async fn stop_and_print(driver: &WebDriver, prefix: &str, what: &str, top: usize) {
        let Ok(stopped) = driver
            .cdp()
            .send_raw("Profiler.stop", serde_json::json!({}))
            .await
        else {
            println!("{prefix}: the profiler did not stop");
            return;
        };
        let profile = &stopped["profile"];
        // The raw profile too, on request: DevTools opens it (Performance > Load profile).
        if let Ok(path) = std::env::var("KUBE_ATLAS_PROFILE_DUMP") {
            std::fs::write(&path, profile.to_string()).ok();
        }
        let mut names = HashMap::new();
        for node in profile["nodes"].as_array().into_iter().flatten() {
            let frame = &node["callFrame"];
            let function = frame["functionName"].as_str().unwrap_or_default();
            let file = frame["url"]
                .as_str()
                .unwrap_or_default()
                .rsplit('/')
                .next()
                .unwrap_or_default();
            let name = match (function, file) {
                ("", "") => "(anonymous)".to_string(),
                ("", file) => format!("(anonymous) {file}"),
                (function, _) => function.to_string(),
            };
            names.insert(node["id"].as_i64().unwrap_or_default(), name);
        }
        let samples = profile["samples"].as_array().cloned().unwrap_or_default();
        let deltas = profile["timeDeltas"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut self_ms: HashMap<&str, f64> = HashMap::new();
        for (i, node) in samples.iter().enumerate() {
            // Sample i lasted until sample i+1: its length is the next one's delta.
            let lasted_us = deltas
                .get(i + 1)
                .and_then(|d| d.as_f64())
                .unwrap_or_default();
            let name = node
                .as_i64()
                .and_then(|id| names.get(&id))
                .map(String::as_str)
                .unwrap_or("?");
            *self_ms.entry(name).or_default() += lasted_us / 1000.0;
        }
        let mut ranked: Vec<(&str, f64)> = self_ms.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        println!("{prefix}: profile of {what}, self time by function:");
        for (name, ms) in ranked.iter().take(top) {
            println!("{prefix}:   {ms:7.1} ms  {}", short(name));
        }
        // Who called the costliest of the page's own functions: the commonest chains of
        // callers (three deep) by the time under them.
        let mut parent = HashMap::new();
        for node in profile["nodes"].as_array().into_iter().flatten() {
            let id = node["id"].as_i64().unwrap_or_default();
            for child in node["children"].as_array().into_iter().flatten() {
                if let Some(child) = child.as_i64() {
                    parent.insert(child, id);
                }
            }
        }
        let own = |name: &str| !name.starts_with('(') && !name.contains(".js");
        for (name, _) in ranked.iter().filter(|(name, _)| own(name)).take(8) {
            let mut chains: HashMap<Vec<&str>, f64> = HashMap::new();
            for (i, node) in samples.iter().enumerate() {
                let Some(id) = node.as_i64() else { continue };
                if names.get(&id).map(String::as_str) != Some(*name) {
                    continue;
                }
                let mut chain = Vec::new();
                let mut at = id;
                while chain.len() < 3 {
                    let Some(up) = parent.get(&at) else { break };
                    chain.push(names.get(up).map(String::as_str).unwrap_or("?"));
                    at = *up;
                }
                let lasted_us = deltas
                    .get(i + 1)
                    .and_then(|d| d.as_f64())
                    .unwrap_or_default();
                *chains.entry(chain).or_default() += lasted_us / 1000.0;
            }
            let mut chains: Vec<_> = chains.into_iter().collect();
            chains.sort_by(|a, b| b.1.total_cmp(&a.1));
            println!("{prefix}:   called from, for {}:", short(name));
            for (chain, ms) in chains.into_iter().take(3) {
                let chain: Vec<String> = chain.iter().map(|n| short(n)).collect();
                println!("{prefix}:     {ms:6.1} ms  <- {}", chain.join(" <- "));
            }
        }
    }

    /// A function's name short enough for a line: Rust's mangled paths without their hash.
    fn short(name: &str) -> String {
        let name = name
            .replace("$LT$", "<")
            .replace("$GT$", ">")
            .replace("$u20$", " ")
            .replace("$RF$", "&")
            .replace("$C$", ",")
            .replace("..", "::");
        let name = name.trim_start_matches("_ZN");
        name.chars().take(100).collect()
    }
}

/// The request log's rows, oldest first: (method, status as shown, path as shown). Opens
/// the log to read it (a closed log draws no rows) and closes it again.
pub async fn logged_requests(driver: &WebDriver) -> Vec<(String, String, String)> {
    // The request log is drawn once the tree is painted (2 s at the latest); it records
    // from the start.
    wait_for(driver, "details.request-log").await;
    let rows = driver
        .execute(
            // Opening it draws the rows after its toggle event (a task of its own): read
            // them once their count holds for two reads 50 ms apart (3 s at most).
            "const log = document.querySelector('details.request-log');
             log.open = true;
             const read = () => Array.from(document.querySelectorAll('.request-log tr.log-row'))
                 .map(r => Array.from(r.querySelectorAll('td')).slice(0, 3).map(c => c.textContent.trim()));
             return new Promise(done => {
                 let last = -1, tries = 0;
                 const poll = () => {
                     const rows = read();
                     if ((rows.length > 0 && rows.length === last) || ++tries > 60) {
                         log.open = false;
                         done(rows.reverse());
                     } else {
                         last = rows.length;
                         setTimeout(poll, 50);
                     }
                 };
                 setTimeout(poll, 50);
             });",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<Vec<String>>>().ok())
        .unwrap_or_default();
    rows.into_iter()
        .filter_map(|row| match row.as_slice() {
            [method, status, path] => Some((method.clone(), status.clone(), path.clone())),
            _ => None,
        })
        .collect()
}

/// A 503 Status as kube-apiserver sends while it shuts down, for [`ProxyMode::fail_first`].
pub const SHUTTING_DOWN: &str = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is shutting down","reason":"ServiceUnavailable","code":503}"#;

/// The text of the notice the app shows when it stopped after a panic, if `driver`'s tab
/// shows one.
pub async fn app_stopped(driver: &WebDriver) -> Option<String> {
    texts_at(driver, "#app-stopped", None)
        .await
        .into_iter()
        .next()
}

/// The stopped notice of every open tab that shows one (or why a tab could not be read),
/// each with its URL; the tab in front stays in front.
pub async fn stopped_tabs(driver: &WebDriver) -> Vec<String> {
    let tabs = match driver.windows().await {
        Ok(tabs) => tabs,
        Err(e) => return vec![format!("the open tabs could not be listed: {e}")],
    };
    let in_front = driver.window().await.ok();
    let mut stopped = Vec::new();
    for tab in tabs {
        if let Err(e) = driver.switch_to_window(tab).await {
            stopped.push(format!("a tab could not be read: {e}"));
            continue;
        }
        if let Some(notice) = app_stopped(driver).await {
            let url = driver
                .current_url()
                .await
                .map(|url| url.to_string())
                .unwrap_or_default();
            stopped.push(format!("{url}: {notice}"));
        }
    }
    if let Some(tab) = in_front {
        let _ = driver.switch_to_window(tab).await;
    }
    stopped
}

/// What one script finds on the page: for every element at `css`, in order, the value of
/// `attribute`, or its text when None (read at once: live views redraw, so elements read
/// one by one may go stale).
pub async fn texts_at(driver: &WebDriver, css: &str, attribute: Option<&str>) -> Vec<String> {
    let read = match attribute {
        Some(attribute) => format!("e.getAttribute({attribute:?}) || ''"),
        None => "e.textContent.trim()".to_string(),
    };
    let script = format!("return Array.from(document.querySelectorAll({css:?})).map(e => {read});");
    driver
        .execute(&script, vec![])
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<String>>().ok())
        .unwrap_or_default()
}

/// Every stream status line on the page: its phase (`data-phase`) and its details.
pub async fn stream_phases(driver: &WebDriver) -> Vec<(String, String)> {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('.stream-status')).map(s =>
                [s.dataset.phase || '', (s.querySelector('.stream-details') || {}).textContent || '']);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, String)>>().ok())
        .unwrap_or_default()
}

/// Longer than any retry a failed request schedules after up to three failures (the
/// backoff's ceiling then, jitter at most scales it down), plus a second for the request:
/// the request count after this long shows whether a retry happened.
pub fn after_the_next_retry() -> Duration {
    Duration::from_millis(u64::from(kube_atlas::model::watch::backoff::BASE_DELAY_MS) * 4 + 1_000)
}

/// A Deployment `name` of `replicas` pods labelled `app: name`, with `pod_spec`.
pub fn deployment(
    name: &str,
    replicas: i32,
    pod_spec: serde_json::Value,
) -> k8s_openapi::api::apps::v1::Deployment {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec}
        }
    }))
    .expect("a Deployment")
}

/// Creates pod `name` in `default` with `spec` and waits (bounded) until the kubelet reports
/// it Running.
pub async fn running_pod(
    harness: &Harness,
    name: &str,
    spec: serde_json::Value,
) -> kube::api::Api<k8s_openapi::api::core::v1::Pod> {
    use k8s_openapi::api::core::v1::Pod;
    let pods: kube::api::Api<Pod> = kube::api::Api::namespaced(harness.kube_client(), "default");
    let pod: Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": spec,
    }))
    .expect("a pod");
    pods.create(&kube::api::PostParams::default(), &pod)
        .await
        .expect("pod created");
    wait_until(
        "the pod runs",
        async || {
            pods.get(name)
                .await
                .ok()
                .and_then(|p| p.status)
                .and_then(|s| s.phase)
        },
        |phase| phase.as_deref() == Some("Running"),
    )
    .await;
    pods
}

/// Creates Deployment `name` in `default`: `replicas` pods of one nginx container `web`.
pub async fn nginx_deployment(
    harness: &Harness,
    name: &str,
    replicas: i32,
) -> kube::api::Api<k8s_openapi::api::apps::v1::Deployment> {
    let deployments: kube::api::Api<k8s_openapi::api::apps::v1::Deployment> =
        kube::api::Api::namespaced(harness.kube_client(), "default");
    let spec = serde_json::json!({"containers": [{"name": "web", "image": "nginx:1.27"}]});
    deployments
        .create(
            &kube::api::PostParams::default(),
            &deployment(name, replicas, spec),
        )
        .await
        .expect("Deployment created");
    deployments
}

/// Runs each `async fn NAME(backend: Backend)` as two tests, `NAME::demo_cluster` and
/// `NAME::real_cluster` (kube-apiserver v1.36 behind kubectl proxy; ignored without the
/// control-plane binaries, and failing under CI, where they are required). Attributes given
/// before a name go on both.
#[macro_export]
macro_rules! on_both_backends {
    ($($(#[$attribute:meta])* $test:ident),+ $(,)?) => {$(
        mod $test {
            $(#[$attribute])*
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn demo_cluster() {
                super::$test($crate::common::Backend::Demo).await
            }

            $(#[$attribute])*
            #[cfg_attr(
                not(have_control_plane),
                ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
            )]
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn real_cluster() {
                super::$test($crate::common::Backend::Real).await
            }
        }
    )+};
}
