use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

/// Kubernetes-compatible demo API server with simulated controllers.
#[derive(Debug, Parser)]
#[command(name = "demo-cluster", version)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8001")]
    listen: SocketAddr,
    /// Serve static files from this directory at `/` (like `kubectl proxy --www`).
    #[arg(long)]
    www: Option<PathBuf>,
    /// Simulation speed factor: 2 runs simulated delays (image pulls, container start and
    /// stop, job run time, crash back-off) twice as fast.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Start with only the nodes and system namespaces, no demo workloads.
    #[arg(long)]
    empty: bool,
    /// Also accept these Host header values (comma separated), besides localhost.
    #[arg(long, value_delimiter = ',')]
    accept_hosts: Vec<String>,
    /// Persist the store to this file and reload it on start.
    #[arg(long)]
    state_file: Option<PathBuf>,
    /// Load mode: create N Running pods at start (namespaces `load-*` of ~1,000 pods, nodes
    /// `load-node-*` of ~100, Deployments with ReplicaSets of 10-50).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pods: usize,
    /// Load mode: create N CustomResourceDefinitions at start, each in its own group.
    #[arg(long, default_value_t = 0, value_name = "N")]
    crds: usize,
    /// Load mode: R pod writes per second (status updates, pod replacements) with Events.
    #[arg(long, default_value_t = 0, value_name = "R")]
    churn: u32,
    /// Seed of what load mode creates and churns, so runs repeat.
    #[arg(long, default_value_t = demo_cluster::load::DEFAULT_SEED)]
    seed: u64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "demo_cluster=info".into()),
        )
        .init();
    let args = Args::parse();
    if !(args.speed.is_finite() && args.speed > 0.0) {
        anyhow::bail!("--speed must be a positive number, got {}", args.speed);
    }
    let config = demo_cluster::Config {
        listen: args.listen,
        www: args.www,
        speed: args.speed,
        empty: args.empty,
        accept_hosts: args.accept_hosts,
        state_file: args.state_file,
        controllers: true,
        pods: args.pods,
        crds: args.crds,
        churn: args.churn,
        seed: args.seed,
    };
    let cluster = demo_cluster::start(config).await?;
    println!("demo cluster serving on {}", cluster.url());
    tokio::signal::ctrl_c().await?;
    println!("shutting down");
    cluster.shutdown().await?;
    Ok(())
}
