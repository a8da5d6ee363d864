//! `kube-atlas [--kubeconfig F]… [--context C]… [--listen 127.0.0.1:8001] [--www dist]`: the
//! dashboard for every context of a kubeconfig, at http://127.0.0.1:8001/.
//!
//! `kube-atlas --in-cluster --listen 0.0.0.0:8080` (chosen by itself in a pod, where the
//! ServiceAccount token is mounted and no kubeconfig is given): the dashboard of the cluster it
//! runs in, for a team, each user signed in with their own token, or with an OIDC issuer
//! (`--oidc-issuer-url` …, and `--impersonate` for a cluster that does not take its tokens).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use kube_atlas_server::contexts::{read_kubeconfigs, select_contexts};
use kube_atlas_server::in_cluster::{self, InCluster};
use kube_atlas_server::oidc::impersonation::ImpersonationConfig;
use kube_atlas_server::oidc::{HiddenText, OidcConfig};
use kube_atlas_server::session::SessionConfig;
use kube_atlas_server::{ClusterState, Contexts, ServerConfig, Timeouts};

#[derive(Parser, Debug)]
#[command(
    name = "kube-atlas",
    about = "Kube Atlas for the clusters of a kubeconfig"
)]
struct Args {
    /// Kubeconfig files, merged in order (default: KUBECONFIG, else ~/.kube/config).
    #[arg(long)]
    kubeconfig: Vec<PathBuf>,
    /// Contexts to serve (default: all of them).
    #[arg(long)]
    context: Vec<String>,
    /// Where to listen; keep it on loopback: whoever reaches it acts with your credentials.
    #[arg(long, default_value = "127.0.0.1:8001")]
    listen: SocketAddr,
    /// The built dashboard (`cargo xtask build` writes dist/); default: the one compiled into
    /// this binary (`cargo xtask dist`), else ./dist.
    #[arg(long)]
    www: Option<PathBuf>,
    /// A host name to answer besides localhost, 127.0.0.1 and [::1] (repeatable).
    #[arg(long)]
    accept_host: Vec<String>,
    /// Seconds an exec credential plugin may take.
    #[arg(long, default_value_t = 20)]
    exec_timeout: u64,
    /// Seconds between checks of every cluster.
    #[arg(long, default_value_t = 5)]
    probe_interval: u64,
    /// Serve the cluster this runs in (a pod): the API server from KUBERNETES_SERVICE_HOST and
    /// _PORT and the CA file, each user signed in with their own token. Chosen by itself when
    /// the token file exists and no kubeconfig is given.
    #[arg(long)]
    in_cluster: bool,
    /// The pod's ServiceAccount token: only looked at to tell that this runs in a pod, never
    /// sent anywhere (users' requests carry their own tokens).
    #[arg(long, default_value_os_t = in_cluster::default_token_file())]
    token_file: PathBuf,
    /// The API server's CA in a pod.
    #[arg(long, default_value_os_t = in_cluster::default_ca_file())]
    ca_file: PathBuf,
    /// Session cookies only over HTTPS (set it when users reach kube-atlas through TLS).
    #[arg(long)]
    secure_cookies: bool,
    /// Minutes a session may go unused before it ends.
    #[arg(long, default_value_t = 60)]
    session_idle_minutes: u64,
    /// Hours after sign-in a session ends, used or not.
    #[arg(long, default_value_t = 12)]
    session_max_hours: u64,
    /// Watches, logs and terminals one session may hold open at once.
    #[arg(long, default_value_t = 64)]
    max_streams_per_session: usize,
    /// One JSON line per request on stdout (always on in the cluster).
    #[arg(long)]
    access_log: bool,
    /// Seconds open requests get to end when kube-atlas is stopped (SIGTERM, Ctrl-C).
    #[arg(long, default_value_t = 10)]
    shutdown_grace: u64,
    /// Users may sign in with this OIDC issuer (in the cluster): the one kube-apiserver's
    /// --oidc-issuer-url names, so the cluster takes its ID tokens.
    #[arg(long)]
    oidc_issuer_url: Option<String>,
    /// kube-atlas's client id at the issuer (kube-apiserver's --oidc-client-id).
    #[arg(long, requires = "oidc_issuer_url")]
    oidc_client_id: Option<String>,
    /// A file holding the client secret (else the environment's KUBE_ATLAS_OIDC_CLIENT_SECRET;
    /// none for a public client).
    #[arg(long, requires = "oidc_issuer_url")]
    oidc_client_secret_file: Option<PathBuf>,
    /// Scopes asked besides openid, comma-separated (e.g. profile,email,groups,offline_access).
    #[arg(long, value_delimiter = ',', requires = "oidc_issuer_url")]
    oidc_scopes: Vec<String>,
    /// The CA of the issuer's certificate (default: the system's).
    #[arg(long, requires = "oidc_issuer_url")]
    oidc_ca_file: Option<PathBuf>,
    /// Where the issuer sends users back, as registered there (default:
    /// http(s)://HOST/kube-atlas/oidc/callback, HOST as the browser names kube-atlas).
    #[arg(long, requires = "oidc_issuer_url")]
    oidc_redirect_url: Option<String>,
    /// For a cluster that does not take the issuer's tokens: kube-atlas checks them itself and
    /// sends each user's requests with its own ServiceAccount token (--token-file) impersonating
    /// them. Allow that ServiceAccount to impersonate only your users and groups (README).
    #[arg(long, requires = "oidc_issuer_url")]
    impersonate: bool,
    /// With --impersonate: the ID token's claim naming the user.
    #[arg(long, default_value = "sub", requires = "impersonate")]
    oidc_username_claim: String,
    /// With --impersonate: the ID token's claim listing the user's groups.
    #[arg(long, requires = "impersonate")]
    oidc_groups_claim: Option<String>,
}

/// The environment variable that may hold the OIDC client secret.
const CLIENT_SECRET_ENV: &str = "KUBE_ATLAS_OIDC_CLIENT_SECRET";

impl Args {
    /// The OIDC sign-in asked for, if any.
    fn oidc(&self) -> anyhow::Result<Option<OidcConfig>> {
        let Some(issuer_url) = self.oidc_issuer_url.clone() else {
            return Ok(None);
        };
        let Some(client_id) = self.oidc_client_id.clone() else {
            anyhow::bail!("--oidc-issuer-url needs --oidc-client-id");
        };
        let client_secret = match &self.oidc_client_secret_file {
            Some(file) => {
                let text = std::fs::read_to_string(file).map_err(|error| {
                    anyhow::anyhow!("--oidc-client-secret-file {}: {error}", file.display())
                })?;
                Some(text.trim().to_string())
            }
            None => std::env::var(CLIENT_SECRET_ENV).ok(),
        };
        Ok(Some(OidcConfig {
            issuer_url,
            client_id,
            client_secret: client_secret
                .filter(|secret| !secret.is_empty())
                .map(HiddenText),
            scopes: self.oidc_scopes.clone(),
            ca_file: self.oidc_ca_file.clone(),
            redirect_url: self.oidc_redirect_url.clone(),
            impersonate: self.impersonate.then(|| ImpersonationConfig {
                token_file: self.token_file.clone(),
                username_claim: self.oidc_username_claim.clone(),
                groups_claim: self.oidc_groups_claim.clone(),
            }),
        }))
    }
}

impl Args {
    /// In a pod: asked for, or the token mounted and no kubeconfig named anywhere.
    fn in_cluster(&self) -> bool {
        self.in_cluster
            || (self.kubeconfig.is_empty()
                && std::env::var_os("KUBECONFIG").is_none()
                && self.token_file.is_file())
    }
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Args::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // The reason in words (a kubeconfig that does not parse, a missing context), not a
            // backtrace.
            eprintln!("kube-atlas: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    // Taken over at once: a SIGTERM during start-up must stop kube-atlas gracefully too.
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let in_cluster = args.in_cluster();
    let oidc = args.oidc()?;
    if oidc.is_some() && !in_cluster {
        anyhow::bail!(
            "--oidc-issuer-url is for kube-atlas in the cluster (--in-cluster), where users sign in"
        );
    }
    let (kubeconfig, names) = if in_cluster {
        let plane = InCluster::from_env(args.ca_file.clone()).map_err(anyhow::Error::msg)?;
        let how = match &oidc {
            Some(OidcConfig {
                impersonate: Some(_),
                ..
            }) => "each user signs in with the OIDC issuer; kube-atlas's ServiceAccount impersonates them",
            _ => "each user signs in with their own token",
        };
        println!("kube-atlas: in the cluster ({}): {how}", plane.server);
        let kubeconfig = plane.kubeconfig().map_err(anyhow::Error::msg)?;
        (kubeconfig, vec![in_cluster::CONTEXT_NAME.to_string()])
    } else {
        let kubeconfig = read_kubeconfigs(&args.kubeconfig).map_err(anyhow::Error::msg)?;
        let names = select_contexts(&kubeconfig, &args.context).map_err(anyhow::Error::msg)?;
        if !args.listen.ip().is_loopback() {
            eprintln!(
                "kube-atlas: listening on {} (not loopback): anyone who reaches it uses your \
                 clusters with your credentials",
                args.listen
            );
        }
        (kubeconfig, names)
    };
    let www = dashboard_folder(args.www.clone());
    let timeouts = Timeouts {
        credentials: Duration::from_secs(args.exec_timeout),
        ..Timeouts::default()
    };
    let contexts = Contexts::new(kubeconfig, names, timeouts);
    let contexts = if in_cluster {
        contexts.users_bring_credentials()
    } else {
        contexts
    };
    let server = kube_atlas_server::start(
        contexts,
        ServerConfig {
            listen: args.listen,
            www,
            accepted_hosts: args.accept_host,
            probe_interval: Duration::from_secs(args.probe_interval),
            sessions: in_cluster.then_some(SessionConfig {
                idle: Duration::from_secs(args.session_idle_minutes * 60),
                absolute: Duration::from_secs(args.session_max_hours * 60 * 60),
                secure_cookies: args.secure_cookies,
                max_streams: args.max_streams_per_session,
            }),
            oidc,
            access_log: in_cluster || args.access_log,
            shutdown_grace: Duration::from_secs(args.shutdown_grace),
            ..ServerConfig::default()
        },
    )
    .await?;
    println!("kube-atlas: {}/", server.url());
    // Say once how each cluster is doing, when the first checks are in.
    let deadline = tokio::time::Instant::now() + timeouts.credentials + timeouts.probe;
    while tokio::time::Instant::now() < deadline
        && server
            .entries()
            .iter()
            .any(|entry| entry.state == ClusterState::Connecting)
    {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for entry in server.entries() {
        match entry.state {
            ClusterState::Connected { version } => {
                println!("  {}: connected ({version}, {})", entry.name, entry.server)
            }
            ClusterState::Failed { reason } => println!("  {}: FAILED: {reason}", entry.name),
            ClusterState::Connecting => println!("  {}: still connecting", entry.name),
        }
    }
    stop_signal(terminate).await?;
    println!(
        "kube-atlas: stopping (open requests get {} s)",
        args.shutdown_grace
    );
    server.stop().await;
    Ok(())
}

/// The folder of the dashboard's files to serve: the one asked for; else none when the binary
/// carries the dashboard; else ./dist when built there.
fn dashboard_folder(asked: Option<PathBuf>) -> Option<PathBuf> {
    if let Some(dir) = asked {
        if !dir.join("index.html").is_file() {
            eprintln!(
                "kube-atlas: no dashboard in {} (run `cargo xtask build`); serving the API paths only",
                dir.display()
            );
        }
        return Some(dir);
    }
    if kube_atlas_server::assets::Assets::embedded().is_some() {
        return None;
    }
    let dist = PathBuf::from("dist");
    if dist.join("index.html").is_file() {
        return Some(dist);
    }
    eprintln!(
        "kube-atlas: no dashboard in this binary or in ./dist (run `cargo xtask dist`, or \
         `cargo xtask build` and --www dist); serving the API paths only"
    );
    None
}

/// Ctrl-C, or SIGTERM (what Kubernetes sends a pod to stop it).
async fn stop_signal(mut terminate: tokio::signal::unix::Signal) -> std::io::Result<()> {
    tokio::select! {
        interrupted = tokio::signal::ctrl_c() => interrupted,
        _ = terminate.recv() => Ok(()),
    }
}
