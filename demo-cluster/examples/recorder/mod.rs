//! What the fixture recorders share: running the backends named on the command line (both
//! when none is), and a demo cluster on a runtime of its own for a recording that blocks
//! (kubectl runs as a process).

use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Records on each backend named in the arguments (`real`, `demo`; both when none is
/// named), stopping at the first that fails; `name` starts the error lines.
pub fn run_backends(
    name: &str,
    real: fn() -> Result<(), String>,
    demo: fn() -> Result<(), String>,
) -> ExitCode {
    let mut backends: Vec<String> = std::env::args().skip(1).collect();
    if backends.is_empty() {
        backends = vec!["real".into(), "demo".into()];
    }
    for backend in &backends {
        let recorded = match backend.as_str() {
            "real" => real(),
            "demo" => demo(),
            other => Err(format!("unknown backend {other:?}: real or demo")),
        };
        if let Err(e) = recorded {
            eprintln!("{name}: {backend}: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Starts a demo cluster from `config`, gets what the recording needs from it with
/// `prepare`, runs `record` with that off the runtime's threads, then shuts the cluster down.
pub fn with_demo_cluster<Prepared: Send + 'static>(
    config: demo_cluster::Config,
    prepare: impl FnOnce(&demo_cluster::RunningCluster) -> Prepared,
    record: impl FnOnce(Prepared) -> Result<(), String> + Send + 'static,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("a runtime: {e}"))?;
    runtime.block_on(async {
        let cluster = demo_cluster::start(config)
            .await
            .map_err(|e| format!("the demo cluster: {e}"))?;
        let prepared = prepare(&cluster);
        let recorded = tokio::task::spawn_blocking(move || record(prepared)).await;
        let _ = cluster.shutdown().await;
        recorded.map_err(|e| format!("the recording: {e}"))?
    })
}

/// A real control plane (kube-apiserver, kube-controller-manager, kube-scheduler) with three
/// stand-in kubelet nodes, as the demo cluster has, once the nodes registered (within
/// `limit`).
#[allow(dead_code)] // Each recorder includes this module; the permissions one needs no nodes.
pub fn real_control_plane_with_three_nodes(
    limit: Duration,
) -> Result<envtest::ControlPlane, String> {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: true,
        nodes: 3,
    })?;
    let deadline = Instant::now() + limit;
    while !plane
        .kubectl_ok(&["get", "nodes", "-o", "name"])
        .is_ok_and(|n| n.lines().count() == 3)
    {
        if Instant::now() > deadline {
            return Err("the stand-in kubelet registered no three nodes".into());
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    Ok(plane)
}
