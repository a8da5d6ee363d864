//! What the server tests share: kube-atlas started from a kubeconfig's text, and a plain
//! HTTP/1.1 client that sets the Host and Origin headers a browser would (or a foreign page
//! would).

#![allow(dead_code)]

pub mod backends;
pub mod oidc;
pub mod oidc_issuer;
pub mod team;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use kube::config::Kubeconfig;
use kube_atlas_server::contexts::select_contexts;
use kube_atlas_server::{ClusterState, Contexts, RunningServer, ServerConfig, Timeouts};

/// kube-atlas on a free loopback port serving every context of `kubeconfig`, probing every
/// 300 ms.
pub async fn start_atlas(kubeconfig: &str, timeouts: Timeouts) -> RunningServer {
    start_atlas_serving(kubeconfig, timeouts, None).await
}

/// [`start_atlas`], serving the dashboard's files from `www` when given.
pub async fn start_atlas_serving(
    kubeconfig: &str,
    timeouts: Timeouts,
    www: Option<std::path::PathBuf>,
) -> RunningServer {
    let config = Kubeconfig::from_yaml(kubeconfig).expect("the test's kubeconfig parses");
    let names = select_contexts(&config, &[]).expect("contexts");
    kube_atlas_server::start(
        Contexts::new(config, names, timeouts),
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            probe_interval: Duration::from_millis(300),
            www,
            ..ServerConfig::default()
        },
    )
    .await
    .expect("kube-atlas starts")
}

/// Short timeouts, so a hanging plugin or server fails a test in seconds.
pub fn quick_timeouts() -> Timeouts {
    Timeouts {
        credentials: Duration::from_secs(2),
        probe: Duration::from_secs(3),
    }
}

/// Sends one request as a page on kube-atlas's own origin would (Host `127.0.0.1:PORT`),
/// with `headers` added or replacing those.
pub async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> hyper::Response<Incoming> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects to kube-atlas");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("HTTP handshake");
    tokio::spawn(connection);
    let mut request = hyper::Request::builder()
        .method(method)
        .uri(path)
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("request");
    request.headers_mut().insert(
        http::header::HOST,
        format!("127.0.0.1:{}", addr.port()).parse().expect("host"),
    );
    for (name, value) in headers {
        request.headers_mut().insert(
            http::HeaderName::from_bytes(name.as_bytes()).expect("header name"),
            value.parse().expect("header value"),
        );
    }
    sender.send_request(request).await.expect("an answer")
}

/// GET `path`: the status and the whole body as text.
pub async fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let response = send(addr, "GET", path, headers, "").await;
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("the whole body")
        .to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// `GET /clusters` as JSON.
pub async fn clusters(addr: SocketAddr) -> serde_json::Value {
    let (status, body) = get(addr, "/clusters", &[]).await;
    assert_eq!(status, 200, "/clusters: {body}");
    serde_json::from_str(&body).expect("/clusters is JSON")
}

/// The state kube-atlas reports for `context`, once it is no longer connecting.
pub async fn settled_state(server: &RunningServer, context: &str) -> ClusterState {
    wait_for_state(server, context, |state| *state != ClusterState::Connecting).await
}

/// Waits (up to 30 s) until `context`'s state passes `test`, and returns it.
pub async fn wait_for_state(
    server: &RunningServer,
    context: &str,
    test: impl Fn(&ClusterState) -> bool,
) -> ClusterState {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state = server
            .entries()
            .into_iter()
            .find(|entry| entry.name == context)
            .map(|entry| entry.state)
            .unwrap_or_else(|| panic!("no context {context}"));
        if test(&state) || Instant::now() > deadline {
            return state;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Writes an executable shell script.
pub fn write_script(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).expect("script written");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// kube-atlas's multiplexing socket opened as a page of `origin` would, with `cookie` when
/// given.
pub async fn multiplex_socket(
    addr: SocketAddr,
    origin: &str,
    cookie: Option<&str>,
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
    tokio_tungstenite::tungstenite::Error,
> {
    use tokio_tungstenite::tungstenite;
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects to kube-atlas");
    let port = addr.port();
    let mut request = tungstenite::http::Request::builder()
        .uri(format!("ws://127.0.0.1:{port}/kube-atlas/multiplex"))
        .header("Host", format!("127.0.0.1:{port}"))
        .header("Origin", origin)
        .header("Connection", "Upgrade")
        .header("Upgrade", "websocket")
        .header("Sec-WebSocket-Version", "13")
        .header(
            "Sec-WebSocket-Key",
            tungstenite::handshake::client::generate_key(),
        );
    if let Some(cookie) = cookie {
        request = request.header("Cookie", cookie);
    }
    let request = request.body(()).expect("request");
    tokio_tungstenite::client_async(request, stream)
        .await
        .map(|(socket, _)| socket)
}
