//! Records the fixtures of the permissions model's tests (`model/tests/permissions_fixtures.rs`)
//! from both backends: what the viewer (token `atlas-viewer-token`, group `viewers`, the `view`
//! ClusterRole bound in namespace `default` only) is told by the review APIs, on a real
//! kube-apiserver with RBAC on and on the demo cluster run with the same tokens file:
//! SelfSubjectRulesReviews for `default` and `kube-system` (the `view` role as the server's
//! aggregation controller expands it), a SelfSubjectReview, and SelfSubjectAccessReviews of
//! listing pods in `default` and across all namespaces. Saved as
//! `model/tests/fixtures/permissions/{real,demo}/viewer.json`.
//!
//! Run by hand when a backend's answers change, then commit the fixtures (an example, not an
//! ignored test: CI fails on ignored tests beyond its deliberate few):
//! `cargo run -p demo-cluster --example record_permissions_fixtures [real] [demo]` (both when
//! none is named; `real` needs the control-plane binaries of `cargo xtask setup`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod recorder;

/// The questions asked, by the name the fixture keeps each answer under.
fn reviews() -> Vec<(&'static str, Value)> {
    let rules = |namespace: &str| {
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
               "spec": {"namespace": namespace}})
    };
    let access = |attributes: Value| {
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
               "spec": {"resourceAttributes": attributes}})
    };
    vec![
        ("rules_default", rules("default")),
        ("rules_kube_system", rules("kube-system")),
        (
            "whoami",
            json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
        ),
        (
            "list_pods_in_default",
            access(json!({"verb": "list", "resource": "pods", "namespace": "default"})),
        ),
        (
            "list_pods_everywhere",
            access(json!({"verb": "list", "resource": "pods"})),
        ),
    ]
}

/// Asks every review as the viewer, once the `view` role holds what the clusterrole-aggregation
/// controller adds to it (a moment after the control plane starts), and writes the fixture.
fn record(viewer_args: &[String], backend: &str) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let fixture = loop {
        let fixture = ask_all(viewer_args)?;
        let aggregated = fixture["rules_default"]["status"]["resourceRules"]
            .as_array()
            .is_some_and(|rules| {
                rules
                    .iter()
                    .any(|r| r["resources"].to_string().contains("\"pods\""))
            });
        if aggregated {
            break fixture;
        }
        if Instant::now() > deadline {
            return Err("the view role was never aggregated (no rule on pods)".into());
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let dir = fixture_dir(backend);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join("viewer.json");
    let text = serde_json::to_string_pretty(&fixture).map_err(|e| e.to_string())?;
    std::fs::write(&file, text + "\n").map_err(|e| format!("{}: {e}", file.display()))?;
    eprintln!("recorded {}", file.display());
    Ok(())
}

/// Asks every review with `kubectl create -f -` as the viewer (`viewer_args` say how to reach
/// the server with the viewer's token), keeping only the answers' kind and status.
fn ask_all(viewer_args: &[String]) -> Result<Value, String> {
    let mut fixture = serde_json::Map::new();
    for (name, review) in reviews() {
        let mut child = Command::new("kubectl")
            .args(viewer_args)
            .args(["create", "--validate=false", "-o", "json", "-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("kubectl: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin
                .write_all(review.to_string().as_bytes())
                .map_err(|e| format!("kubectl's input: {e}"))?;
        }
        let output = child
            .wait_with_output()
            .map_err(|e| format!("kubectl: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "{name}: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        let answer: Value =
            serde_json::from_slice(&output.stdout).map_err(|e| format!("{name}: not JSON: {e}"))?;
        fixture.insert(
            name.to_string(),
            json!({"kind": answer["kind"], "status": answer["status"]}),
        );
    }
    Ok(Value::Object(fixture))
}

fn fixture_dir(backend: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../model/tests/fixtures/permissions")
        .join(backend)
}

fn record_on_the_real_control_plane() -> Result<(), String> {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: true,
        nodes: 0,
    })?;
    let args = vec![format!(
        "--kubeconfig={}",
        plane.viewer_kubeconfig().display()
    )];
    record(&args, "real")
}

fn record_on_the_demo_cluster() -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("a scratch directory: {e}"))?;
    let tokens = scratch.path().join("tokens.csv");
    std::fs::write(&tokens, envtest::tokens_csv()).map_err(|e| format!("tokens: {e}"))?;
    let kubeconfig = scratch.path().join("kubeconfig");
    std::fs::write(&kubeconfig, "apiVersion: v1\nkind: Config\n")
        .map_err(|e| format!("a kubeconfig: {e}"))?;
    // kubectl sends tokens only over TLS: the demo serves its example pair.
    let example = |file: &str| Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let config = demo_cluster::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        token_auth_file: Some(tokens),
        tls_cert_file: Some(example("tls.example.crt")),
        tls_private_key_file: Some(example("tls.example.key")),
        ..Default::default()
    };
    let viewer_args = move |cluster: &demo_cluster::RunningCluster| {
        vec![
            format!("--server={}", cluster.url()),
            format!("--token={}", envtest::VIEWER_TOKEN),
            "--insecure-skip-tls-verify".to_string(),
            format!("--kubeconfig={}", kubeconfig.display()),
        ]
    };
    recorder::with_demo_cluster(config, viewer_args, |args| record(&args, "demo"))
}

fn main() -> ExitCode {
    recorder::run_backends(
        "record_permissions_fixtures",
        record_on_the_real_control_plane,
        record_on_the_demo_cluster,
    )
}
