//! Runs tests/python/smoke.py with the official Python client when it is installed
//! (`pip install kubernetes`); interpreter from DEMO_CLUSTER_PYTHON, default python3.

use std::process::Command;

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_python_client_smoke() {
    let python = std::env::var("DEMO_CLUSTER_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_client = Command::new(&python)
        .args(["-c", "import kubernetes"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_client {
        eprintln!("notice: {python} cannot import kubernetes (pip install kubernetes); skipping");
        return;
    }
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
