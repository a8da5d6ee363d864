//! `pods/portforward` on the demo cluster held to kube-apiserver v1.36 with the stand-in
//! kubelet (`../shared/kubernetes`, `fake_kubelet.py --streams`: every forwarded port answers
//! HTTP with `Hello from pod NS/NAME, port P: GET /path`). The same sessions run on both, over
//! a WebSocket (through `kubectl proxy` on the real side), and every message must be the same;
//! so must `kubectl port-forward`'s answers and the refusals before an upgrade.
//!
//! Only loopback is ever dialled: the stand-in kubelet listens on 127.0.0.1. `pods/proxy` and
//! `services/proxy` would make kube-apiserver dial a 10.244.x.y pod IP, so on the real side
//! only refusals that come before any dial are asked for (a service without endpoints, a
//! port the service lacks, a missing pod, the viewer's 403).
//!
//! Not compared: an offer of no protocol (the kubelet then answers an empty
//! `Sec-WebSocket-Protocol` header, which WebSocket clients refuse; the demo sends none); a
//! port the pod does not declare (the stand-in answers every port; the demo
//! says what a node says when nothing listens, `tests/portforward.rs`).

use std::time::Duration;

use serde_json::{json, Value};

mod common;

use common::portforward::{get, next, open, send, Socket};

struct ChildKilledOnDrop(std::process::Child);

impl Drop for ChildKilledOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `kubectl proxy` to the real side as `kubeconfig`'s user, and its URL.
fn proxy_as(kubeconfig: &std::path::Path, cache: &std::path::Path) -> (ChildKilledOnDrop, String) {
    let child = std::process::Command::new("kubectl")
        .arg(format!("--kubeconfig={}", kubeconfig.display()))
        .arg(format!("--cache-dir={}", cache.display()))
        .args([
            "proxy",
            "--address=127.0.0.1",
            "--port=0",
            "--reject-paths=^/none$",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("kubectl proxy starts");
    let mut child = ChildKilledOnDrop(child);
    let port = envtest::announced_port(&mut child.0, "Starting to serve on")
        .expect("kubectl proxy announces its port");
    (child, format!("http://127.0.0.1:{port}"))
}

const PODS: &str = "/api/v1/namespaces/default/pods";

/// What a session sends: (channel, bytes), each after the previous one's answer.
type Requests = Vec<(u8, Vec<u8>)>;

/// One session: the path, the protocol offered, the requests sent (channel, bytes) one after
/// the other's answer; the outcome is every message read, or the refusal.
async fn session(base: &str, path: &str, protocol: &str, requests: &[(u8, Vec<u8>)]) -> Value {
    let mut socket: Socket = match open(base, path, protocol).await {
        Ok(socket) => socket,
        // The status alone: the refusal's body reaches the WebSocket client only when it
        // came in the same read as the head, so kube-apiserver's is sometimes empty.
        Err((status, _body)) => return json!({ "refused": status }),
    };
    let mut seen = vec![];
    let mut read = |message: Option<(u8, Vec<u8>)>| {
        let text = message.map(|(c, b)| format!("{c}:{}", String::from_utf8_lossy(&b)));
        seen.push(json!(text));
        text.is_some()
    };
    let opening = path.matches(',').count() * 2 + 2;
    for _ in 0..opening {
        read(next(&mut socket).await);
    }
    for (channel, bytes) in requests {
        send(&mut socket, *channel, bytes).await;
        let closing = String::from_utf8_lossy(bytes).contains("Connection: close");
        if !read(next(&mut socket).await) || closing {
            break;
        }
    }
    // What else comes within a moment (a close, after `Connection: close`).
    if let Ok(message) = tokio::time::timeout(Duration::from_millis(500), next(&mut socket)).await {
        read(message);
    }
    json!({"messages": seen})
}

#[tokio::test]
#[cfg_attr(
    not(all(have_control_plane, have_kubectl)),
    ignore = "needs the control-plane binaries (with kubelet-streams) and kubectl"
)]
async fn port_forwarding_matches_kube_apiserver_with_the_stand_in_kubelet() {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: true,
        nodes: 1,
    })
    .expect("the control plane starts");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let (_admin_proxy, real) = proxy_as(&plane.admin_kubeconfig(), &scratch.path().join("a"));
    let (_viewer_proxy, real_viewer) =
        proxy_as(&plane.viewer_kubeconfig(), &scratch.path().join("v"));
    let demo = common::start_on_own_runtime(demo_cluster::Config {
        speed: 50.0,
        ..common::empty_cluster_config()
    })
    .expect("the demo cluster starts");
    let demo_with_tokens = common::start_on_own_runtime(demo_cluster::Config {
        controllers: false,
        token_auth_file: Some(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tokens.example.csv"),
        ),
        ..common::empty_cluster_config()
    })
    .expect("the demo cluster starts");
    let client = common::raw::client_for(&real);
    let deadline = tokio::time::Instant::now() + common::PATIENCE;
    while common::raw::send(
        &client,
        http::Request::get("/api/v1/nodes/node-1"),
        vec![],
        "GET node",
    )
    .await
    .status
        != 200
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the stand-in kubelet registered no node"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::join!(
        common::portforward::create_pods(&real, Some("node-1")),
        common::portforward::create_pods(&demo, None)
    );

    let close = b"GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec();
    let post = b"POST /form?a=b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc".to_vec();
    let cases: Vec<(String, &str, Requests)> = vec![
        (
            format!("{PODS}/web/portforward?ports=80,8080"),
            "v4.channel.k8s.io",
            vec![
                (0, get("/")),
                (2, get("/x?y=1")),
                (0, post.clone()),
                (0, close.clone()),
            ],
        ),
        (
            format!("{PODS}/api/portforward?ports=8080"),
            "v4.base64.channel.k8s.io",
            vec![],
        ),
        (
            format!("{PODS}/web/portforward?ports=80&ports=8080"),
            "x.k8s.io, v4.channel.k8s.io",
            vec![(2, get("/"))],
        ),
        (
            format!("{PODS}/web/portforward?ports=80"),
            "x.k8s.io",
            vec![],
        ),
        (
            format!("{PODS}/web/portforward"),
            "v4.channel.k8s.io",
            vec![],
        ),
        (
            format!("{PODS}/web/portforward?ports=http"),
            "v4.channel.k8s.io",
            vec![],
        ),
        (
            format!("{PODS}/gone/portforward?ports=80"),
            "v4.channel.k8s.io",
            vec![],
        ),
    ];
    let mut differences = vec![];
    for (path, protocol, requests) in &cases {
        let (r, d) = tokio::join!(
            session(&real, path, protocol, requests),
            session(&demo, path, protocol, requests)
        );
        if r != d {
            differences.push(format!(
                "{path} offering {protocol:?}:\nkube-apiserver {r}\ndemo           {d}"
            ));
        }
    }

    // Refusals before any dial, and the viewer's.
    let raw = |base: String, path: String, token: Option<&'static str>| async move {
        let reply = common::portforward::exchange(&base, "GET", &path, token).await;
        let status: Value = serde_json::from_slice(reply.body()).unwrap_or_default();
        (reply.status().as_u16(), status["message"].clone())
    };
    let admin_paths = [
        format!("{PODS}/web/portforward?ports=80"),
        format!("{PODS}/gone/proxy/"),
        "/api/v1/namespaces/default/services/empty/proxy/".to_string(),
        "/api/v1/namespaces/default/services/web:9/proxy/".to_string(),
    ];
    for path in admin_paths {
        let (r, d) = tokio::join!(
            raw(real.clone(), path.clone(), None),
            raw(demo.clone(), path.clone(), None)
        );
        if r != d {
            differences.push(format!("GET {path}: kube-apiserver {r:?}, demo {d:?}"));
        }
    }
    for path in [
        format!("{PODS}/web/proxy/"),
        "/api/v1/namespaces/default/services/web/proxy/".to_string(),
        format!("{PODS}/web/portforward?ports=80"),
    ] {
        let (r, d) = tokio::join!(
            raw(real_viewer.clone(), path.clone(), None),
            raw(
                demo_with_tokens.clone(),
                path.clone(),
                Some(envtest::VIEWER_TOKEN)
            )
        );
        if r != d {
            differences.push(format!(
                "viewer GET {path}: kube-apiserver {r:?}, demo {d:?}"
            ));
        }
    }

    // kubectl port-forward and a GET through it.
    let through_kubectl = |server: &str, kubeconfig: Option<&std::path::Path>| {
        let home = tempfile::tempdir().expect("a temporary home");
        let local = envtest::free_port();
        let mut command = std::process::Command::new("kubectl");
        match kubeconfig {
            Some(k) => command.arg(format!("--kubeconfig={}", k.display())),
            None => command
                .args(["--server", server])
                .env("KUBECONFIG", home.path().join("none")),
        };
        let child = command
            .arg(format!(
                "--cache-dir={}",
                home.path().join("cache").display()
            ))
            .args(["port-forward", "pod/web", &format!("{local}:8080")])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("kubectl port-forward starts");
        let mut child = ChildKilledOnDrop(child);
        envtest::announced_port(&mut child.0, "Forwarding from 127.0.0.1:").expect("forwarding");
        common::portforward::http_get(local, "/through/kubectl?x=1")
    };
    let (r, d) = (
        through_kubectl(&real, Some(&plane.admin_kubeconfig())),
        through_kubectl(&demo, None),
    );
    if r != d {
        differences.push(format!(
            "kubectl port-forward:\nkube-apiserver {r:?}\ndemo           {d:?}"
        ));
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
}
