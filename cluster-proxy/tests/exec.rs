//! A terminal through kube-atlas: `pods/exec` and `pods/attach` WebSockets of a context are
//! joined end to end to its API server (the demo cluster here, which runs a simulated shell):
//! the offered subprotocols reach the server and its choice comes back, binary frames pass both
//! ways (stdin, the v5 close signal, output, the status) and the server's close code arrives;
//! a page of another origin cannot open one.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use envtest::{ContextEntry, Credentials, ServerCheck};
use futures_util::{SinkExt, StreamExt};
use kube_atlas_server::RunningServer;
use serde_json::json;
use support::{get, quick_timeouts, send, start_atlas};
use tokio_tungstenite::tungstenite::{self, Message};

type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

const WAIT: Duration = Duration::from_secs(20);
const EXEC: &str = "/clusters/demo/api/v1/namespaces/default/pods/web/exec";

/// The demo cluster (its simulated kubelets run pods, 50 times as fast) with a running pod
/// `web`, and kube-atlas in front of it as context `demo`.
async fn start() -> (demo_cluster::RunningCluster, RunningServer) {
    let demo = demo_cluster::start(demo_cluster::Config {
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        empty: true,
        speed: 50.0,
        ..Default::default()
    })
    .await
    .expect("the demo cluster starts");
    let atlas = start_atlas(
        &envtest::kubeconfig_of(&[ContextEntry {
            name: "demo",
            server: demo.url(),
            check: ServerCheck::Unchecked,
            credentials: Credentials::Anonymous,
        }]),
        quick_timeouts(),
    )
    .await;
    let origin = own_origin(&atlas);
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "web", "image": "nginx"}]}});
    let response = send(
        atlas.addr,
        "POST",
        "/clusters/demo/api/v1/namespaces/default/pods",
        &[("origin", &origin), ("content-type", "application/json")],
        &pod.to_string(),
    )
    .await;
    assert_eq!(response.status(), 201);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (_, body) = get(
            atlas.addr,
            "/clusters/demo/api/v1/namespaces/default/pods/web",
            &[],
        )
        .await;
        let pod: serde_json::Value = serde_json::from_str(&body).expect("a pod");
        if pod["status"]["containerStatuses"][0]["state"]["running"].is_object() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "web never ran: {pod}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (demo, atlas)
}

fn own_origin(atlas: &RunningServer) -> String {
    format!("http://127.0.0.1:{}", atlas.addr.port())
}

/// Opens `path` on kube-atlas as a WebSocket from a page of `origin`, offering `protocols`:
/// the socket and the protocol chosen, or the refusal.
async fn connect(
    addr: SocketAddr,
    path: &str,
    origin: &str,
    protocols: &str,
) -> Result<(Socket, Option<String>), tungstenite::Error> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects to kube-atlas");
    let request = tungstenite::http::Request::builder()
        .uri(format!("ws://127.0.0.1:{}{path}", addr.port()))
        .header("Host", format!("127.0.0.1:{}", addr.port()))
        .header("Origin", origin)
        .header("Connection", "Upgrade")
        .header("Upgrade", "websocket")
        .header("Sec-WebSocket-Version", "13")
        .header("Sec-WebSocket-Protocol", protocols)
        .header(
            "Sec-WebSocket-Key",
            tungstenite::handshake::client::generate_key(),
        )
        .body(())
        .expect("request");
    let (socket, response) = tokio_tungstenite::client_async(request, stream).await?;
    let protocol = response
        .headers()
        .get("sec-websocket-protocol")
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    Ok((socket, protocol))
}

/// Every message until the server closes: binary and text payloads, and the close code.
async fn read_all(socket: &mut Socket) -> (Vec<Message>, Option<u16>) {
    let mut messages = vec![];
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let next = tokio::time::timeout_at(deadline, socket.next())
            .await
            .unwrap_or_else(|_| panic!("no close within 20 s; read {messages:?}"));
        match next {
            Some(Ok(Message::Close(frame))) => return (messages, frame.map(|f| u16::from(f.code))),
            Some(Ok(message @ (Message::Binary(_) | Message::Text(_)))) => messages.push(message),
            Some(Ok(_)) => {}
            Some(Err(e)) => panic!("socket failed after {messages:?}: {e}"),
            None => return (messages, None),
        }
    }
}

fn binary(bytes: &[u8]) -> Message {
    Message::Binary(bytes.to_vec().into())
}

#[tokio::test]
async fn exec_hostname_through_kube_atlas_speaks_the_servers_choice_of_protocol() {
    let (_demo, atlas) = start().await;
    let origin = own_origin(&atlas);
    let path = format!("{EXEC}?command=hostname&container=web&stdout=true&stderr=true");

    let (mut socket, protocol) = connect(
        atlas.addr,
        &path,
        &origin,
        "v5.channel.k8s.io, v4.channel.k8s.io, v4.base64.channel.k8s.io, base64.channel.k8s.io",
    )
    .await
    .expect("the exec socket opens");
    assert_eq!(protocol.as_deref(), Some("v5.channel.k8s.io"));
    let (messages, close) = read_all(&mut socket).await;
    assert_eq!(
        messages,
        vec![
            binary(b"\x01"),
            binary(b"\x01web\n"),
            binary(b"\x03{\"metadata\":{},\"status\":\"Success\"}"),
        ]
    );
    assert_eq!(close, Some(1000));

    // Without v5 the server picks the first it knows of the offer, text frames included.
    let (mut socket, protocol) = connect(
        atlas.addr,
        &path,
        &origin,
        "v4.base64.channel.k8s.io, v4.channel.k8s.io",
    )
    .await
    .expect("the exec socket opens");
    assert_eq!(protocol.as_deref(), Some("v4.base64.channel.k8s.io"));
    let (messages, close) = read_all(&mut socket).await;
    assert_eq!(
        messages,
        vec![
            Message::text("1"),
            Message::text("1d2ViCg=="),
            Message::text("3eyJzdGF0dXMiOiJTdWNjZXNzIn0="),
        ]
    );
    assert_eq!(close, Some(1000));
}

#[tokio::test]
async fn stdin_and_its_close_signal_reach_the_shell_through_kube_atlas() {
    let (_demo, atlas) = start().await;
    let path = format!("{EXEC}?command=sh&container=web&stdin=true&stdout=true&stderr=true");
    let (mut socket, protocol) =
        connect(atlas.addr, &path, &own_origin(&atlas), "v5.channel.k8s.io")
            .await
            .expect("the exec socket opens");
    assert_eq!(protocol.as_deref(), Some("v5.channel.k8s.io"));
    socket
        .send(binary(b"\x00hostname\nexit 3\n"))
        .await
        .expect("stdin sent");
    let (messages, close) = read_all(&mut socket).await;
    assert_eq!(messages[..2], [binary(b"\x01"), binary(b"\x01web\n")]);
    let Message::Binary(status) = &messages[2] else {
        panic!("a status: {messages:?}")
    };
    assert!(
        String::from_utf8_lossy(status).contains(r#""reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}"#),
        "{messages:?}"
    );
    assert_eq!(close, Some(1000));

    // The v5 close signal ([255, 0]) passes too: the shell sees the end of its input.
    let (mut socket, _) = connect(atlas.addr, &path, &own_origin(&atlas), "v5.channel.k8s.io")
        .await
        .expect("the exec socket opens");
    socket
        .send(binary(b"\x00seq 2\n"))
        .await
        .expect("stdin sent");
    socket.send(binary(&[255, 0])).await.expect("close sent");
    let (messages, close) = read_all(&mut socket).await;
    assert_eq!(
        messages,
        vec![
            binary(b"\x01"),
            binary(b"\x011\n2\n"),
            binary(b"\x03{\"metadata\":{},\"status\":\"Success\"}"),
        ]
    );
    assert_eq!(close, Some(1000));
}

#[tokio::test]
async fn a_page_of_another_origin_cannot_open_a_terminal() {
    let (_demo, atlas) = start().await;
    let path = format!("{EXEC}?command=hostname&container=web&stdout=true");
    for sub_path in [
        path.clone(),
        path.replace("/exec?command=hostname&", "/attach?"),
    ] {
        let refused = connect(
            atlas.addr,
            &sub_path,
            "http://evil.example",
            "v5.channel.k8s.io",
        )
        .await
        .err()
        .unwrap_or_else(|| panic!("{sub_path}: a foreign page's socket opened"));
        let tungstenite::Error::Http(response) = refused else {
            panic!("{sub_path}: refused otherwise: {refused}")
        };
        assert_eq!(response.status(), 403, "{sub_path}");
        let body =
            String::from_utf8_lossy(response.body().as_deref().unwrap_or_default()).into_owned();
        assert!(body.contains("another origin"), "{body}");
    }
}
