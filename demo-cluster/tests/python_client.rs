//! Runs tests/python/smoke.py with the official Python client (`kubernetes`, installed by
//! `cargo xtask setup`); interpreter from DEMO_CLUSTER_PYTHON, default python3. Ignored when
//! that interpreter cannot import the client, except under CI.

use std::process::Command;

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(have_python_client),
    ignore = "the Python client is not installed (cargo xtask setup)"
)]
async fn official_python_client_smoke() {
    let python = std::env::var("DEMO_CLUSTER_PYTHON").unwrap_or_else(|_| "python3".into());
    let cluster = common::start_for_cli_clients().await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/smoke.py");
    let url = cluster.url();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python).arg(script).arg(url).output().unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    cluster.shutdown().await.unwrap();
}
