//! Two real control planes (kube-apiserver v1.36, each with its own token: the admin's on
//! one, the viewer's on the other; the first also through a client certificate) and the
//! demo cluster behind one kube-atlas: each answers
//! through its own prefix with its own credentials, a WebSocket watch passes through, a
//! stopped cluster is marked with why while the others go on, and a foreign page is refused.

mod support;

use std::time::Duration;

use envtest::{ContextEntry, Credentials, ServerCheck};
use futures_util::StreamExt;
use kube_atlas_server::ClusterState;
use support::{clusters, get, quick_timeouts, send, start_atlas, wait_for_state};

/// The pods in `default` of `context`, listed through kube-atlas (which must answer 200).
async fn default_pods(addr: std::net::SocketAddr, context: &str) -> Vec<String> {
    let (status, body) = get(
        addr,
        &format!("/clusters/{context}/api/v1/namespaces/default/pods"),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{context}: {body}");
    pod_names(&body)
}

fn pod_names(list: &str) -> Vec<String> {
    let list: serde_json::Value = serde_json::from_str(list).expect("a pod list");
    list["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|pod| pod["metadata"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A client CA and a certificate it signed for `cert-admin` in group `system:masters`, made
/// with openssl in `dir`: `(ca.crt, client.crt, client.key)`.
fn client_certificate(dir: &std::path::Path) -> (String, String, String) {
    let path = |name: &str| dir.join(name).display().to_string();
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // A v3 certificate for client authentication: rustls refuses v1 ones.
    let extensions = path("client.ext");
    std::fs::write(
        &extensions,
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n",
    )
    .expect("extensions file");
    let (ca_key, ca, key, request, cert) = (
        path("ca.key"),
        path("ca.crt"),
        path("client.key"),
        path("client.csr"),
        path("client.crt"),
    );
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        &ca_key,
        "-out",
        &ca,
        "-days",
        "1",
        "-subj",
        "/CN=atlas-client-ca",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        &key,
        "-out",
        &request,
        "-subj",
        "/O=system:masters/CN=cert-admin",
    ]);
    openssl(&[
        "x509",
        "-req",
        "-in",
        &request,
        "-CA",
        &ca,
        "-CAkey",
        &ca_key,
        "-CAcreateserial",
        "-out",
        &cert,
        "-days",
        "1",
        "-extfile",
        &extensions,
    ]);
    (ca, cert, key)
}

fn start_plane() -> envtest::ControlPlane {
    envtest::ControlPlane::start(envtest::Options {
        controllers: false,
        nodes: 0,
    })
    .unwrap_or_else(|e| panic!("a control plane starts: {e}"))
}

/// `kubectl auth whoami` through kube-atlas's `context`: the status and the answer.
async fn send_review(addr: std::net::SocketAddr, context: &str) -> (u16, String) {
    let origin = format!("http://127.0.0.1:{}", addr.port());
    let response = send(
        addr,
        "POST",
        &format!("/clusters/{context}/apis/authentication.k8s.io/v1/selfsubjectreviews"),
        &[("origin", &origin), ("content-type", "application/json")],
        r#"{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}"#,
    )
    .await;
    let status = response.status().as_u16();
    let body = http_body_util::BodyExt::collect(response.into_body())
        .await
        .expect("the answer")
        .to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

const POD: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-demo"},"spec":{"containers":[{"name":"web","image":"nginx"}]}}"#;

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_clusters_behind_one_kube_atlas() {
    let certificates = tempfile::tempdir().expect("certificates folder");
    let (client_ca, client_cert, client_key) = client_certificate(certificates.path());
    let ca_flag = format!("--client-ca-file={client_ca}");
    let (mut alpha, beta) = tokio::task::spawn_blocking(move || {
        let mut alpha = start_plane();
        // alpha also takes client certificates of this CA.
        alpha.stop_api_server();
        alpha.add_api_server_args(&[ca_flag]);
        alpha
            .start_api_server()
            .unwrap_or_else(|e| panic!("kube-apiserver with a client CA: {e}"));
        (alpha, start_plane())
    })
    .await
    .expect("control planes");
    let demo = demo_cluster::start(demo_cluster::Config {
        listen: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        controllers: false,
        empty: true,
        ..Default::default()
    })
    .await
    .expect("the demo cluster starts");
    for (plane, pod) in [(&alpha, "web-alpha"), (&beta, "web-beta")] {
        plane
            .prepare_without_controllers()
            .unwrap_or_else(|e| panic!("pods in default: {e}"));
        plane
            .kubectl_ok(&["run", pod, "--image=nginx", "--namespace=default"])
            .unwrap_or_else(|e| panic!("kubectl run {pod}: {e}"));
    }
    // alpha: the admin's token, the server's certificate not checked; beta: the viewer's
    // token, the server checked against its CA file; demo: no credentials; alpha-cert: alpha
    // with a client certificate.
    let beta_ca = beta.dir().join("certs/apiserver.crt");
    let kubeconfig = envtest::kubeconfig_of(&[
        ContextEntry {
            name: "alpha",
            server: alpha.server_url(),
            check: ServerCheck::Unchecked,
            credentials: Credentials::Token(envtest::ADMIN_TOKEN),
        },
        ContextEntry {
            name: "beta",
            server: beta.server_url(),
            check: ServerCheck::CaFile(&beta_ca),
            credentials: Credentials::Token(envtest::VIEWER_TOKEN),
        },
        ContextEntry {
            name: "demo",
            server: demo.url(),
            check: ServerCheck::Unchecked,
            credentials: Credentials::Anonymous,
        },
        ContextEntry {
            name: "alpha-cert",
            server: alpha.server_url(),
            check: ServerCheck::Unchecked,
            credentials: Credentials::ClientCertificate {
                cert: &client_cert,
                key: &client_key,
            },
        },
    ]);
    let atlas = start_atlas(&kubeconfig, quick_timeouts()).await;
    for context in ["alpha", "beta", "demo", "alpha-cert"] {
        let state = wait_for_state(&atlas, context, |state| {
            matches!(state, ClusterState::Connected { .. })
        })
        .await;
        assert!(
            matches!(state, ClusterState::Connected { .. }),
            "{context}: {state:?}"
        );
    }
    let listed = clusters(atlas.addr).await;
    let states: Vec<(String, String)> = listed["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .map(|entry| {
            (
                entry["name"].as_str().unwrap_or_default().to_string(),
                entry["state"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("alpha", "connected"),
            ("beta", "connected"),
            ("demo", "connected"),
            ("alpha-cert", "connected")
        ]
        .map(|(name, state)| (name.to_string(), state.to_string()))
    );
    assert!(
        listed["clusters"][0]["version"]
            .as_str()
            .is_some_and(|version| version.starts_with("v1.36")),
        "{listed}"
    );
    // The client certificate is who alpha-cert is: kube-apiserver says so.
    let (status, body) = send_review(atlas.addr, "alpha-cert").await;
    assert_eq!(status, 201, "{body}");
    assert!(body.contains(r#""username":"cert-admin""#), "{body}");
    assert!(body.contains("system:masters"), "{body}");
    let (status, body) = send_review(atlas.addr, "alpha").await;
    assert_eq!(status, 201, "{body}");
    assert!(body.contains(r#""username":"admin""#), "{body}");

    // A pod created through kube-atlas, as the page would (its own origin).
    let origin = format!("http://127.0.0.1:{}", atlas.addr.port());
    let created = send(
        atlas.addr,
        "POST",
        "/clusters/demo/api/v1/namespaces/default/pods",
        &[("origin", &origin), ("content-type", "application/json")],
        POD,
    )
    .await;
    assert_eq!(created.status(), 201);

    // Each prefix reaches its own cluster.
    for (context, pod) in [
        ("alpha", "web-alpha"),
        ("beta", "web-beta"),
        ("demo", "web-demo"),
    ] {
        assert_eq!(default_pods(atlas.addr, context).await, [pod], "{context}");
    }
    // With its own credentials: beta's viewer may not list kube-system, alpha's admin may.
    let (status, body) = get(
        atlas.addr,
        "/clusters/beta/api/v1/namespaces/kube-system/pods",
        &[],
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains(r#"User \"viewer\" cannot list"#), "{body}");
    let (status, _) = get(
        atlas.addr,
        "/clusters/alpha/api/v1/namespaces/kube-system/pods",
        &[],
    )
    .await;
    assert_eq!(status, 200);

    // A watch over a WebSocket passes through to kube-apiserver and back.
    let (_, list) = get(
        atlas.addr,
        "/clusters/beta/api/v1/namespaces/default/pods",
        &[],
    )
    .await;
    let version: serde_json::Value = serde_json::from_str(&list).expect("list");
    let resource_version = version["metadata"]["resourceVersion"]
        .as_str()
        .unwrap_or("0");
    let stream = tokio::net::TcpStream::connect(atlas.addr)
        .await
        .expect("connects");
    let request = tokio_tungstenite::tungstenite::http::Request::builder()
        .uri(format!(
            "ws://127.0.0.1:{}/clusters/beta/api/v1/namespaces/default/pods?watch=true&resourceVersion={resource_version}",
            atlas.addr.port()
        ))
        .header("Host", format!("127.0.0.1:{}", atlas.addr.port()))
        .header("Origin", &origin)
        .header("Connection", "Upgrade")
        .header("Upgrade", "websocket")
        .header("Sec-WebSocket-Version", "13")
        .header(
            "Sec-WebSocket-Key",
            tokio_tungstenite::tungstenite::handshake::client::generate_key(),
        )
        .body(())
        .expect("request");
    let (mut socket, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .expect("the watch's WebSocket opens through kube-atlas");
    beta.kubectl_ok(&["run", "web-beta-2", "--image=nginx", "--namespace=default"])
        .expect("kubectl run");
    let event = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match socket.next().await {
                Some(Ok(message)) if message.is_text() || message.is_binary() => {
                    let text = String::from_utf8_lossy(&message.into_data()).into_owned();
                    if text.contains("web-beta-2") {
                        return text;
                    }
                }
                Some(Ok(_)) => {}
                other => panic!("the watch ended: {other:?}"),
            }
        }
    })
    .await
    .expect("the new pod's event arrives over the WebSocket");
    assert!(event.contains("\"ADDED\""), "{event}");

    // A page of another origin is refused, whichever cluster it asks for.
    let (status, body) = get(
        atlas.addr,
        "/clusters/alpha/api/v1/namespaces/default/pods",
        &[("origin", "http://evil.example")],
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(!body.contains("web-alpha"));

    // alpha goes away: marked with why; beta and demo go on.
    let alpha = tokio::task::spawn_blocking(move || {
        alpha.stop_api_server();
        alpha
    })
    .await
    .expect("kube-apiserver stops");
    let gone = wait_for_state(&atlas, "alpha", |state| {
        matches!(state, ClusterState::Failed { .. })
    })
    .await;
    let ClusterState::Failed { reason } = gone else {
        panic!("alpha is still {gone:?}");
    };
    assert!(
        reason.starts_with(&format!("unreachable: {}", alpha.server_url())),
        "{reason}"
    );
    let listed = clusters(atlas.addr).await;
    assert_eq!(listed["clusters"][0]["state"], "failed");
    assert_eq!(listed["clusters"][0]["reason"], reason.as_str());
    assert_eq!(listed["clusters"][1]["state"], "connected");
    assert_eq!(listed["clusters"][2]["state"], "connected");
    let (status, body) = get(
        atlas.addr,
        "/clusters/alpha/api/v1/namespaces/default/pods",
        &[],
    )
    .await;
    assert_eq!(status, 502, "{body}");
    assert!(body.contains("cluster alpha: unreachable"), "{body}");
    for (context, pod) in [("beta", "web-beta"), ("demo", "web-demo")] {
        assert!(
            default_pods(atlas.addr, context)
                .await
                .contains(&pod.to_string()),
            "{context}"
        );
    }
    drop(socket);
    atlas.stop().await;
    demo.shutdown().await.expect("the demo cluster stops");
    tokio::task::spawn_blocking(move || drop((alpha, beta)))
        .await
        .expect("control planes stop");
}
