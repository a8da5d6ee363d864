//! The official Python client (`kubernetes`, installed by `cargo xtask setup`) on what the
//! smoke test does not cover: 410 on an expired resume point and bookmarks, paging past one
//! page, label and field selectors, server-side apply with its conflicts, custom resources,
//! and pod logs. Each check runs `tests/python/clients.py URL CHECK` against a fresh cluster
//! with a small watch cache (100 events) and bookmarks every 200 ms. Ignored when the
//! interpreter (DEMO_CLUSTER_PYTHON, default python3) lacks the client, except under CI.

use std::time::Duration;

use tokio::process::Command;

use demo_cluster::{start_with_tuning, Config, Tuning};

mod common;

async fn run_check(check: &'static str) {
    let cluster = start_with_tuning(
        Config {
            speed: 50.0,
            ..common::empty_cluster_config()
        },
        Tuning {
            watch_cache_capacity: 100,
            bookmark_interval: Duration::from_millis(200),
            ..Tuning::default()
        },
    )
    .await
    .expect("cluster starts");
    let python = std::env::var("DEMO_CLUSTER_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/clients.py");
    let url = cluster.url();
    // Each check bounds its own waits; this only keeps a hung interpreter from hanging the run.
    let run = Command::new(python)
        .arg(script)
        .arg(url)
        .arg(check)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(180), run)
        .await
        .unwrap_or_else(|_| panic!("{check} did not finish in 180 s"))
        .expect("python runs");
    assert!(
        out.status.success(),
        "{check}:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("python {check} ok")));
    cluster.shutdown().await.expect("shutdown");
}

macro_rules! python_checks {
    ($($check:ident),* $(,)?) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        #[cfg_attr(
            not(have_python_client),
            ignore = "the Python client is not installed (cargo xtask setup)"
        )]
        async fn $check() {
            run_check(stringify!($check)).await;
        }
    )*};
}

python_checks!(
    expired_watch_and_bookmarks,
    paging_and_selectors,
    server_side_apply,
    custom_resources,
    pod_logs,
);
