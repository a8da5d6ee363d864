//! Hostile clients on a real socket: garbage bytes, half requests and watches abandoned
//! mid-stream must cost the server nothing lasting; it binds loopback unless told otherwise.

mod common;

use common::PATIENCE;

use std::time::Duration;

use demo_cluster::{start_with_tuning, Config, RunningCluster, Tuning};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn bare_cluster() -> RunningCluster {
    tuned_cluster(Tuning::default()).await
}

/// A bare cluster (no controllers) with its own knobs.
async fn tuned_cluster(tuning: Tuning) -> RunningCluster {
    start_with_tuning(
        Config {
            controllers: false,
            ..common::empty_cluster_config()
        },
        tuning,
    )
    .await
    .expect("cluster starts")
}

/// Sends `bytes` on a fresh connection and reads what comes back until the server closes it
/// (or [`PATIENCE`] passes: a server must not hold on to a garbage connection). With `stop_writing`
/// the client then closes its side, so a half-sent body ends there (hyper takes that as the
/// client abandoning the request, so well-formed requests keep the side open).
async fn exchange(cluster: &RunningCluster, bytes: &[u8], stop_writing: bool) -> String {
    let mut socket = TcpStream::connect(cluster.addr()).await.expect("connects");
    // The server may answer and close before reading everything: a failed write is fine.
    let _ = socket.write_all(bytes).await;
    if stop_writing {
        let _ = socket.shutdown().await;
    }
    let mut answer = vec![];
    let read = tokio::time::timeout(PATIENCE, socket.read_to_end(&mut answer)).await;
    assert!(
        read.is_ok(),
        "the server kept a garbage connection open: {:?}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(40)])
    );
    String::from_utf8_lossy(&answer).into_owned()
}

/// A plain request on its own connection: the status line's code and the body.
async fn http_get(cluster: &RunningCluster, path: &str) -> (u16, String) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    let answer = exchange(cluster, request.as_bytes(), false).await;
    let code = answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (code, body)
}

#[tokio::test]
async fn garbage_on_the_socket_leaves_the_server_serving() {
    let cluster = bare_cluster().await;
    let mut noise = vec![0u8; 64 * 1024];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for byte in noise.iter_mut() {
        // xorshift: random-looking bytes, the same every run.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *byte = state.to_le_bytes()[0];
    }
    let long_header = format!(
        "GET /version HTTP/1.1\r\nHost: localhost\r\nX-Long: {}\r\n\r\n",
        "a".repeat(1024 * 1024)
    );
    let many_headers = format!(
        "GET /version HTTP/1.1\r\nHost: localhost\r\n{}\r\n",
        "X-H: v\r\n".repeat(1000)
    );
    let garbage: Vec<&[u8]> = vec![
        &noise,
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
        b"GET / HTTP/9.9\r\n\r\n",
        b"GET /api HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\n",
        b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"kind\":",
        b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"GET /api HTTP/1.1\r\nHost: localhost\r\nBad Header Name: x\r\n\r\n",
        b"GET /api\xff\xfe HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"\r\n\r\n\r\n",
        long_header.as_bytes(),
        many_headers.as_bytes(),
    ];
    for bytes in garbage {
        let answer = exchange(&cluster, bytes, true).await;
        // An answer, if any, is an HTTP error, never a success to garbage.
        assert!(
            answer.is_empty()
                || answer.starts_with("HTTP/1.1 4")
                || answer.starts_with("HTTP/1.1 5"),
            "{:?} -> {answer:?}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(40)])
        );
        let (code, body) = http_get(&cluster, "/version").await;
        assert_eq!(code, 200, "after garbage the server still serves: {body}");
    }
    // A connection that opens and never speaks does not block others.
    let _silent = TcpStream::connect(cluster.addr()).await.expect("connects");
    let (code, _) = http_get(&cluster, "/api/v1/namespaces").await;
    assert_eq!(code, 200);
    cluster.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_body_that_stalls_is_answered_504() {
    let cluster = tuned_cluster(Tuning {
        request_body_timeout: Duration::from_millis(300),
        ..Tuning::default()
    })
    .await;
    // Promises 100 bytes, sends 8 and waits with the connection open.
    let answer = exchange(
        &cluster,
        b"POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"kind\":",
        false,
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 504"), "{answer}");
    assert!(answer.contains(r#""reason":"Timeout""#), "{answer}");
    cluster.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn connections_that_never_finish_a_request_head_are_closed() {
    let cluster = tuned_cluster(Tuning {
        header_read_timeout: Duration::from_millis(300),
        ..Tuning::default()
    })
    .await;
    for (what, bytes) in [
        ("nothing", &b""[..]),
        ("half a head", &b"GET /version HTTP/1.1\r\nHost: local"[..]),
    ] {
        let mut socket = TcpStream::connect(cluster.addr()).await.expect("connects");
        socket.write_all(bytes).await.expect("sent");
        let mut rest = vec![];
        // Closed by the server (an EOF or a reset) after its 300 ms; kept open, it would
        // outlast any bound.
        let ended = tokio::time::timeout(PATIENCE, socket.read_to_end(&mut rest)).await;
        assert!(ended.is_ok(), "a connection that sent {what} was kept open");
    }
    // A watch, whose head came in time, outlives the deadline: it is not a slow head.
    let mut watch = TcpStream::connect(cluster.addr()).await.expect("connects");
    watch
        .write_all(b"GET /api/v1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .expect("sent");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let registry = cluster.registry();
    let def = registry.builtin("", "configmaps").expect("configmaps");
    registry
        .create(
            &def,
            "default",
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "late"}}),
            &Default::default(),
        )
        .expect("created");
    let mut seen = vec![];
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("\"late\"") {
        let n = tokio::time::timeout(PATIENCE, watch.read(&mut chunk))
            .await
            .expect("the event arrives")
            .expect("the watch is still open");
        assert!(
            n > 0,
            "the watch was closed: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&chunk[..n]);
    }
    cluster.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn a_declared_length_over_the_limit_is_refused_before_the_body() {
    let cluster = bare_cluster().await;
    let request = format!(
        "PUT /api/v1/namespaces/default/configmaps/x HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        demo_cluster::http::MAX_BODY_BYTES + 1
    );
    let answer = exchange(&cluster, request.as_bytes(), false).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer.contains(r#""reason":"RequestEntityTooLarge""#),
        "{answer}"
    );
    cluster.shutdown().await.expect("clean shutdown");
}

#[tokio::test]
async fn watches_abandoned_on_the_socket_are_released() {
    let cluster = bare_cluster().await;
    let store = cluster.registry().store.clone();
    let before = store.subscriber_count();
    let mut sockets = vec![];
    for path in [
        "/api/v1/configmaps?watch=true",
        "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0",
        "/api/v1/namespaces?watch=true&allowWatchBookmarks=true",
    ] {
        let mut socket = TcpStream::connect(cluster.addr()).await.expect("connects");
        let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
        socket.write_all(request.as_bytes()).await.expect("sent");
        let mut head = [0u8; 12];
        socket.read_exact(&mut head).await.expect("an answer");
        assert_eq!(&head, b"HTTP/1.1 200", "{path}");
        sockets.push(socket);
    }
    // A WebSocket watch too (kubectl and browsers watch that way).
    let url = format!("ws://{}/api/v1/configmaps?watch=true", cluster.addr());
    let (websocket, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("WebSocket upgrade");
    wait_for(
        || store.subscriber_count() == before + 4,
        "the watches to subscribe",
    )
    .await;
    // The clients vanish while nothing happens: no event will be written to notice it by.
    drop(sockets);
    drop(websocket);
    wait_for(
        || store.subscriber_count() == before,
        "watches to unsubscribe after their clients left",
    )
    .await;
    let (code, _) = http_get(&cluster, "/api/v1/configmaps").await;
    assert_eq!(code, 200);
    cluster.shutdown().await.expect("clean shutdown");
}

async fn wait_for(done: impl Fn() -> bool, what: &str) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited {PATIENCE:?} for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[test]
fn binds_loopback_by_default() {
    let listen = Config::default().listen;
    assert_eq!(listen.ip(), std::net::Ipv4Addr::LOCALHOST);
}
