//! Exec and attach sessions replayed over a WebSocket: the recorded sessions of
//! `model/tests/fixtures/terminal` (kube-apiserver v1.36 in front of the stand-in kubelet) read
//! as scripts, sent to a server, and what it answered kept in the fixtures' terms, so a test
//! compares the two whole.

use std::path::PathBuf;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;

/// One message, as the fixtures write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    Binary(Vec<u8>),
    Text(String),
    Close(Option<u16>),
}

/// A line of a session: `<` received, `>` sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Receive(Msg),
    Send(Msg),
}

/// What a server answered: the handshake, and the session's messages both ways.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub status: u16,
    /// The chosen subprotocol (None: no header).
    pub protocol: Option<String>,
    /// The body of a refused handshake.
    pub body: String,
    pub steps: Vec<Step>,
}

/// A recorded session.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// The request's path and query (`/api/v1/namespaces/…`).
    pub path: String,
    pub offered: Vec<String>,
    pub recorded: Outcome,
}

pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../model/tests/fixtures/terminal")
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Python's repr of a string, read back (the escapes `record.py`'s bodies use).
fn unrepr(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

fn message(kind: &str, payload: &str) -> Msg {
    let bytes = unhex(payload);
    match kind {
        "binary" => Msg::Binary(bytes),
        "text" => Msg::Text(String::from_utf8(bytes).expect("utf-8 text")),
        "close" => Msg::Close((bytes.len() >= 2).then(|| u16::from_be_bytes([bytes[0], bytes[1]]))),
        other => panic!("unknown message kind {other}"),
    }
}

/// Reads `model/tests/fixtures/terminal/{name}`.
pub fn fixture(name: &str) -> Fixture {
    let text = std::fs::read_to_string(fixtures_dir().join(name)).expect("fixture");
    let mut path = String::new();
    let mut offered = vec![];
    let mut recorded = Outcome {
        status: 0,
        protocol: None,
        body: String::new(),
        steps: vec![],
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# GET ") {
            path = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("# offered: ") {
            offered = rest
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty() && p != "(none)")
                .collect();
        } else if let Some(rest) = line.strip_prefix("# answer: HTTP/1.1 ") {
            let (status, protocol) = rest.split_once("; protocol:").expect("answer line");
            recorded.status = status[..3].parse().expect("status code");
            let protocol = protocol.trim();
            recorded.protocol =
                (!protocol.is_empty() && protocol != "(none)").then(|| protocol.to_string());
        } else if let Some(rest) = line.strip_prefix("# body: ") {
            // Go's JSON encoder ends a body with a newline, the demo's Status bodies do not.
            recorded.body = unrepr(rest.trim().trim_matches('\''))
                .trim_end()
                .to_string();
        } else if let Some(rest) = line.strip_prefix("< ").or_else(|| line.strip_prefix("> ")) {
            let mut words = rest.split_whitespace();
            let kind = words.next().expect("kind");
            let payload = words.next().filter(|w| *w != "#").unwrap_or("");
            let msg = message(kind, payload);
            recorded.steps.push(if line.starts_with('<') {
                Step::Receive(msg)
            } else {
                Step::Send(msg)
            });
        }
    }
    Fixture {
        path,
        offered,
        recorded,
    }
}

/// Opens `base` (`http://host:port`) + `path` as a WebSocket offering `offered` (with a
/// bearer `token`), then plays `script`: each `Send` is sent once every message before it in
/// the script was received. Messages come one per `Receive`; after the script, whatever else
/// arrives within a moment is kept too (a server saying more than recorded shows).
pub async fn replay(
    base: &str,
    path: &str,
    offered: &[String],
    token: Option<&str>,
    script: &[Step],
) -> Outcome {
    let url = format!("{}{path}", base.replacen("http", "ws", 1));
    let mut request = url
        .as_str()
        .into_client_request()
        .expect("a WebSocket request");
    if !offered.is_empty() {
        request.headers_mut().insert(
            "sec-websocket-protocol",
            offered.join(", ").parse().expect("header value"),
        );
    }
    if let Some(token) = token {
        request.headers_mut().insert(
            "authorization",
            format!("Bearer {token}").parse().expect("header value"),
        );
    }
    let connected = tokio::time::timeout(
        Duration::from_secs(20),
        tokio_tungstenite::connect_async(request),
    )
    .await
    .unwrap_or_else(|_| panic!("{url}: no answer to the upgrade within 20 s"));
    let (mut socket, response) = match connected {
        Ok(connected) => connected,
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let body = response
                .body()
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).trim_end().to_string())
                .unwrap_or_default();
            return Outcome {
                status: response.status().as_u16(),
                protocol: None,
                body,
                steps: vec![],
            };
        }
        Err(e) => panic!("{url}: {e}"),
    };
    let protocol = response
        .headers()
        .get("sec-websocket-protocol")
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let mut steps = vec![];
    let mut closed = false;
    let read = |message: Message| -> Option<Msg> {
        match message {
            Message::Binary(bytes) => Some(Msg::Binary(bytes.to_vec())),
            Message::Text(text) => Some(Msg::Text(text.to_string())),
            Message::Close(frame) => Some(Msg::Close(frame.map(|f| u16::from(f.code)))),
            _ => None,
        }
    };
    for step in script {
        match step {
            Step::Receive(_) if closed => break,
            Step::Receive(_) => loop {
                let received = tokio::time::timeout(Duration::from_secs(15), socket.next()).await;
                let Ok(Some(Ok(message))) = received else {
                    closed = true;
                    break;
                };
                if let Some(msg) = read(message) {
                    closed = matches!(msg, Msg::Close(_));
                    steps.push(Step::Receive(msg));
                    break;
                }
            },
            Step::Send(msg) => {
                let message = match msg {
                    Msg::Binary(bytes) => Message::Binary(bytes.clone().into()),
                    Msg::Text(text) => Message::Text(text.clone().into()),
                    Msg::Close(code) => Message::Close(code.map(|c| CloseFrame {
                        code: CloseCode::from(c),
                        reason: "".into(),
                    })),
                };
                let _ = socket.send(message).await;
                steps.push(Step::Send(msg.clone()));
            }
        }
    }
    while !closed {
        match tokio::time::timeout(Duration::from_millis(300), socket.next()).await {
            Ok(Some(Ok(message))) => {
                if let Some(msg) = read(message) {
                    closed = matches!(msg, Msg::Close(_));
                    steps.push(Step::Receive(msg));
                }
            }
            _ => break,
        }
    }
    Outcome {
        status: response.status().as_u16(),
        protocol,
        body: String::new(),
        steps,
    }
}

/// A readable rendering of an outcome's messages, for failures.
pub fn render(outcome: &Outcome) -> String {
    let mut out = format!(
        "{} {:?} {:?}\n",
        outcome.status, outcome.protocol, outcome.body
    );
    for step in &outcome.steps {
        let (dir, msg) = match step {
            Step::Receive(m) => ('<', m),
            Step::Send(m) => ('>', m),
        };
        let text = match msg {
            Msg::Binary(b) => format!("binary {:?}", String::from_utf8_lossy(b)),
            Msg::Text(t) => format!("text {t:?}"),
            Msg::Close(c) => format!("close {c:?}"),
        };
        out.push_str(&format!("{dir} {text}\n"));
    }
    out
}

/// Waits until the test pods of the terminal tests are where the sessions expect them: `web`
/// and `tty` running, `broken` failing to pull its image (`server` names the side, for the
/// failure message).
pub async fn wait_until_started(client: &kube::Client, pods: &str, server: &str) {
    let deadline = tokio::time::Instant::now() + super::PATIENCE;
    for (name, want_running) in [("web", true), ("tty", true), ("broken", false)] {
        loop {
            let reply = super::raw::send(
                client,
                http::Request::get(format!("{pods}/{name}")),
                vec![],
                "GET pod",
            )
            .await;
            let pod: serde_json::Value = reply.json();
            let state = &pod["status"]["containerStatuses"][0]["state"];
            let ready = if want_running {
                state["running"].is_object()
            } else {
                state["waiting"]["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("ImagePull"))
            };
            if ready {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{server}: pod {name} not started: {pod}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
