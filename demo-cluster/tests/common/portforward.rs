//! Port forwarding over the kubelet's WebSocket channel protocol, as a client speaks it, and
//! the pods the port-forward tests forward to: shared by `portforward.rs` (the demo alone)
//! and `portforward_differential.rs` (the demo held to kube-apiserver with the stand-in).

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

const PODS: &str = "/api/v1/namespaces/default/pods";

pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How long a test waits for one message.
const MESSAGE_WAIT: Duration = Duration::from_secs(10);

/// The pods: `web` and `api` declaring ports 80 and 8080, `hostile` the hostile page on 80.
pub fn pods() -> Vec<Value> {
    let pod = |name: &str, image: &str, ports: &[u16]| {
        let ports: Vec<Value> = ports.iter().map(|p| json!({"containerPort": p})).collect();
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"containers": [{"name": "main", "image": image, "ports": ports}]}})
    };
    vec![
        pod("web", "nginx", &[80, 8080]),
        pod("api", "nginx", &[80, 8080]),
        pod("hostile", "kube-atlas/hostile-page:1", &[80]),
    ]
}

/// Creates [`pods`] (bound to `node` when given; and the services `web`, selecting `web`, and `empty`, selecting nothing)
/// and waits until the pods run.
pub async fn create_pods(url: &str, node: Option<&str>) {
    let client = super::raw::client_for(url);
    let post = |path: &str| http::Request::post(path).header("content-type", "application/json");
    if node.is_some() {
        // No controller manager on the real side: the service account pods need is made here.
        let account = json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "default"}});
        let path = "/api/v1/namespaces/default/serviceaccounts";
        super::raw::send(
            &client,
            post(path),
            account.to_string().into_bytes(),
            "POST sa",
        )
        .await;
    }
    for mut pod in pods() {
        if let Some(node) = node {
            pod["spec"]["nodeName"] = json!(node);
        }
        let reply = super::raw::send(
            &client,
            post(PODS),
            pod.to_string().into_bytes(),
            "POST pod",
        )
        .await;
        assert_eq!(reply.status, 201, "{}", reply.text());
    }
    for (name, app) in [("web", "web"), ("empty", "nothing")] {
        let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": {"app": app}, "ports": [{"port": 8000, "targetPort": 80}]}});
        let reply = super::raw::send(
            &client,
            post("/api/v1/namespaces/default/services"),
            service.to_string().into_bytes(),
            "POST service",
        )
        .await;
        assert_eq!(reply.status, 201, "{}", reply.text());
    }
    let deadline = tokio::time::Instant::now() + super::PATIENCE;
    for pod in pods() {
        let name = pod["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        loop {
            let path = format!("{PODS}/{name}");
            let reply =
                super::raw::send(&client, http::Request::get(path), vec![], "GET pod").await;
            let pod: Value = reply.json();
            if pod["status"]["containerStatuses"][0]["state"]["running"].is_object() {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{name} not running: {pod}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Opens `base` + `path` as a WebSocket offering `protocol`: the socket, or the refusal's
/// status and body.
pub async fn open(base: &str, path: &str, protocol: &str) -> Result<Socket, (u16, String)> {
    let url = format!("{}{path}", base.replacen("http", "ws", 1));
    let mut request = url.into_client_request().expect("a WebSocket request");
    if !protocol.is_empty() {
        request.headers_mut().insert(
            "sec-websocket-protocol",
            protocol.parse().expect("header value"),
        );
    }
    let connected = tokio::time::timeout(MESSAGE_WAIT, tokio_tungstenite::connect_async(request))
        .await
        .expect("an answer to the upgrade");
    match connected {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let body = response
                .body()
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default();
            Err((response.status().as_u16(), body))
        }
        Err(e) => panic!("{path}: {e}"),
    }
}

/// The next message as (channel, bytes; a text message's bytes are left in base64); None
/// once the socket closed, or when nothing came within 10 s.
pub async fn next(socket: &mut Socket) -> Option<(u8, Vec<u8>)> {
    loop {
        let message = tokio::time::timeout(MESSAGE_WAIT, socket.next())
            .await
            .ok()?;
        match message {
            Some(Ok(Message::Binary(bytes))) => {
                let (channel, rest) = bytes.split_first()?;
                return Some((*channel, rest.to_vec()));
            }
            Some(Ok(Message::Text(text))) => {
                let (channel, rest) = text.as_bytes().split_first()?;
                return Some((channel.wrapping_sub(b'0'), rest.to_vec()));
            }
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => continue,
        }
    }
}

/// Sends `bytes` on `channel`.
pub async fn send(socket: &mut Socket, channel: u8, bytes: &[u8]) {
    let mut message = vec![channel];
    message.extend_from_slice(bytes);
    socket
        .send(Message::Binary(message.into()))
        .await
        .expect("sent");
}

/// A GET of `path` asking to keep the connection.
pub fn get(path: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").into_bytes()
}

/// The stand-in kubelet's whole answer to `GET path` on `namespace/pod`'s `port`.
pub fn hello(pod: &str, port: u16, path: &str) -> Vec<u8> {
    let body = format!("Hello from pod default/{pod}, port {port}: GET {path}\n");
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads until one whole HTTP response with a Content-Length arrived on `channel` (a
/// response may come in several messages); other channels' messages are failures.
pub async fn response(socket: &mut Socket, channel: u8) -> Vec<u8> {
    let mut received = vec![];
    loop {
        let (from, bytes) = next(socket).await.expect("a response before the close");
        assert_eq!(from, channel, "{}", String::from_utf8_lossy(&bytes));
        received.extend(bytes);
        let text = String::from_utf8_lossy(&received).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|n| n.parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                return received;
            }
        }
    }
}

/// The HTTP answer to `GET path` on 127.0.0.1:`port` (one request, then the server's close).
pub fn http_get(port: u16, path: &str) -> String {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    std::io::Write::write_all(&mut stream, request.as_bytes()).expect("sent");
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut stream, &mut answer).expect("read");
    answer
}

/// The whole answer, headers included, to `method path` (kube's client hides headers and
/// retries a 503).
pub async fn exchange(
    url: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
) -> http::Response<Vec<u8>> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address)
        .await
        .expect("connects");
    let authorization = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\n{authorization}Content-Length: 0\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut received = vec![];
    stream.read_to_end(&mut received).await.expect("read");
    let text = String::from_utf8_lossy(&received).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a head");
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let mut response = http::Response::builder().status(status);
    for line in lines {
        if let Some((name, value)) = line.split_once(": ") {
            response = response.header(name, value);
        }
    }
    response.body(body.as_bytes().to_vec()).expect("a response")
}
