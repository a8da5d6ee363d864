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
    /// How long Event objects live after their last update, as kube-apiserver's flag:
    /// `1h`, `10m`, `90s`, `1h30m`.
    #[arg(long, default_value = "1h", value_parser = parse_duration)]
    event_ttl: std::time::Duration,
    /// Chaos mode: inject faults, seeded by --seed. Comma-separated keys: drop-watch=P (a
    /// watch ends before each event with probability P), expire=P (a watch resume gets 410
    /// Expired), error=P (500 InternalError), throttle=P (429 with Retry-After: 1),
    /// latency=D (added to every API response: 50ms, 1s).
    #[arg(long, value_name = "SPEC")]
    chaos: Option<demo_cluster::chaos::ChaosSpec>,
    /// Run without the simulated control plane (controllers, scheduler, kubelets): objects
    /// change only when a client or load-mode churn writes them, as the benchmarks run it.
    #[arg(long)]
    no_controllers: bool,
    /// Also serve the built-in APIs kube-apiserver v1.36 serves only behind a feature gate
    /// (ClusterTrustBundles, PodCertificateRequests, DeviceTaintRules,
    /// StorageVersionMigrations).
    #[arg(long)]
    feature_gated_apis: bool,
    /// Do not serve the metrics API (`metrics.k8s.io`), as a cluster without metrics-server:
    /// `kubectl top` answers "Metrics API not available".
    #[arg(long)]
    no_metrics: bool,
    /// Authenticate requests by bearer token and authorize them by RBAC, as kube-apiserver's
    /// flag: a CSV file of `token,user,uid,"group1,group2"` lines. Without a token a request is
    /// `system:anonymous`; an unknown token gets 401. Without this flag every request may do
    /// everything.
    #[arg(long, value_name = "PATH")]
    token_auth_file: Option<PathBuf>,
    /// Serve HTTPS with this PEM certificate (needs --tls-private-key-file), as
    /// kube-apiserver's flag: kubectl sends tokens only over TLS.
    #[arg(long, value_name = "PATH", requires = "tls_private_key_file")]
    tls_cert_file: Option<PathBuf>,
    /// The PEM private key of --tls-cert-file.
    #[arg(long, value_name = "PATH", requires = "tls_cert_file")]
    tls_private_key_file: Option<PathBuf>,
}

/// A Go-style duration of hours, minutes and seconds (`1h30m`, `90s`, `2m0s`).
fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let mut seconds = 0u64;
    let mut digits = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(format!("unknown unit {c:?} in {text:?}; use h, m and s")),
        };
        let value: u64 = digits
            .parse()
            .map_err(|_| format!("a number must come before {c:?} in {text:?}"))?;
        seconds += value * unit;
        digits.clear();
    }
    if !digits.is_empty() {
        return Err(format!("{text:?} needs a unit: h, m or s"));
    }
    if seconds == 0 {
        return Err("the duration must be positive".into());
    }
    Ok(std::time::Duration::from_secs(seconds))
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
        controllers: !args.no_controllers,
        pods: args.pods,
        crds: args.crds,
        churn: args.churn,
        seed: args.seed,
        event_ttl: args.event_ttl,
        chaos: args.chaos,
        feature_gated_apis: args.feature_gated_apis,
        token_auth_file: args.token_auth_file,
        tls_cert_file: args.tls_cert_file,
        tls_private_key_file: args.tls_private_key_file,
        metrics: !args.no_metrics,
    };
    let cluster = demo_cluster::start(config).await?;
    println!("demo cluster serving on {}", cluster.url());
    tokio::signal::ctrl_c().await?;
    println!("shutting down");
    cluster.shutdown().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{parse_duration, Args};
    use clap::Parser;
    use std::time::Duration;

    #[test]
    fn the_chaos_flag_takes_a_spec_or_says_what_is_wrong() {
        let args = Args::try_parse_from(["demo-cluster", "--chaos", "error=0.1,latency=50ms"])
            .expect("a valid spec");
        let spec = args.chaos.expect("chaos given");
        assert_eq!(spec.to_string(), "error=0.1,latency=50ms");
        assert_eq!(
            Args::try_parse_from(["demo-cluster"]).map(|a| a.chaos).ok(),
            Some(None)
        );
        let err =
            Args::try_parse_from(["demo-cluster", "--chaos", "error=2"]).expect_err("out of range");
        assert!(err.to_string().contains("between 0 and 1"), "{err}");
    }

    #[test]
    fn listens_on_loopback_unless_told_otherwise() {
        let args = Args::try_parse_from(["demo-cluster"]).expect("no flags needed");
        assert_eq!(args.listen.ip(), std::net::Ipv4Addr::LOCALHOST);
        assert_eq!(demo_cluster::Config::default().listen, args.listen);
    }

    #[test]
    fn durations_read_as_kube_apiserver_flags_do() {
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("2m0s"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("90").is_err(), "a unit is needed");
        assert!(parse_duration("5d").is_err());
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("m").is_err());
    }
}
