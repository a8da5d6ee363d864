//! `kube-atlas [--kubeconfig F]… [--context C]… [--listen 127.0.0.1:8001] [--www dist]`: the
//! dashboard for every context of a kubeconfig, at http://127.0.0.1:8001/.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use kube_atlas_server::contexts::{read_kubeconfigs, select_contexts};
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
    /// The built dashboard (`cargo xtask build` writes dist/).
    #[arg(long, default_value = "dist")]
    www: PathBuf,
    /// A host name to answer besides localhost, 127.0.0.1 and [::1] (repeatable).
    #[arg(long)]
    accept_host: Vec<String>,
    /// Seconds an exec credential plugin may take.
    #[arg(long, default_value_t = 20)]
    exec_timeout: u64,
    /// Seconds between checks of every cluster.
    #[arg(long, default_value_t = 5)]
    probe_interval: u64,
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
    let kubeconfig = read_kubeconfigs(&args.kubeconfig).map_err(anyhow::Error::msg)?;
    let names = select_contexts(&kubeconfig, &args.context).map_err(anyhow::Error::msg)?;
    if !args.listen.ip().is_loopback() {
        eprintln!(
            "kube-atlas: listening on {} (not loopback): anyone who reaches it uses your \
             clusters with your credentials",
            args.listen
        );
    }
    let www = args
        .www
        .join("index.html")
        .is_file()
        .then_some(args.www.clone());
    if www.is_none() {
        eprintln!(
            "kube-atlas: no dashboard in {} (run `cargo xtask build`); serving the API paths only",
            args.www.display()
        );
    }
    let timeouts = Timeouts {
        credentials: Duration::from_secs(args.exec_timeout),
        ..Timeouts::default()
    };
    let contexts = Contexts::new(kubeconfig, names, timeouts);
    let server = kube_atlas_server::start(
        contexts,
        ServerConfig {
            listen: args.listen,
            www,
            accepted_hosts: args.accept_host,
            probe_interval: Duration::from_secs(args.probe_interval),
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
    tokio::signal::ctrl_c().await?;
    server.stop().await;
    Ok(())
}
