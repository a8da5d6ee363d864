//! Long-running reads (watches) over one WebSocket to kube-atlas, when kube-atlas serves the
//! page: a browser opens at most six HTTP/1.1 connections to a server, and each chunked watch
//! holds one for as long as it lives, so a page with many live views would queue behind them.
//! kube-atlas (`cluster-proxy/src/multiplex.rs`) carries every stream on one socket, as
//! Headlamp's backend does, each tagged with an id:
//!
//! - page → kube-atlas: `{"op":"open","id":N,"cluster":C,"path":P,"accept":A}`,
//!   `{"op":"close","id":N}`;
//! - kube-atlas → page: `{"id":N,"status":S}`, then `{"id":N,"data":TEXT}` as the body
//!   arrives, then `{"id":N,"end":true}` (with `"error"` when it broke off).
//!
//! [`stream_text`] reads one such stream with the same contract as [`super::stream::stream_text`].

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::Message;
use serde::Deserialize;

use super::stream::StreamEnd;
use super::{ApiError, ApiRequest, LoggedStream, Transport};

/// kube-atlas's multiplexing endpoint.
const ENDPOINT: &str = "/kube-atlas/multiplex";

/// One frame from kube-atlas.
#[derive(Debug, Deserialize)]
struct Frame {
    id: u64,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    end: bool,
    #[serde(default)]
    error: Option<String>,
}

/// What one stream receives, in order.
enum Part {
    Status(u16),
    Data(String),
    End(Option<String>),
}

/// The open socket: where to write, and who reads which id.
struct Connection {
    outgoing: mpsc::UnboundedSender<String>,
    readers: RefCell<HashMap<u64, mpsc::UnboundedSender<Part>>>,
    next_id: Cell<u64>,
    /// Whether kube-atlas ever answered on it (a socket refused at once means no multiplexer).
    answered: Cell<bool>,
}

thread_local! {
    // The page's cluster when kube-atlas serves the page (multiplexing is on), else None.
    static CLUSTER: RefCell<Option<String>> = const { RefCell::new(None) };
    static CONNECTION: RefCell<Option<Rc<Connection>>> = const { RefCell::new(None) };
    // kube-atlas refused the socket without a word: an older kube-atlas, or a proxy in front
    // that does not pass WebSockets. Streams go over HTTP for the rest of the page's life.
    static UNAVAILABLE: Cell<bool> = const { Cell::new(false) };
}

/// Turns multiplexing on: the page was served by kube-atlas, on `cluster`.
pub fn enable(cluster: String) {
    CLUSTER.with(|c| *c.borrow_mut() = Some(cluster));
}

/// Whether streams go over kube-atlas's one socket.
pub fn available() -> bool {
    CLUSTER.with(|c| c.borrow().is_some()) && !UNAVAILABLE.with(Cell::get)
}

fn connection() -> Option<Rc<Connection>> {
    if let Some(open) = CONNECTION.with(|c| c.borrow().clone()) {
        return Some(open);
    }
    let url = super::watch::websocket_url(ENDPOINT)?;
    let socket = WebSocket::open(&url).ok()?;
    let (mut write, mut read) = socket.split();
    let (outgoing, mut to_send) = mpsc::unbounded::<String>();
    let connection = Rc::new(Connection {
        outgoing,
        readers: RefCell::new(HashMap::new()),
        next_id: Cell::new(1),
        answered: Cell::new(false),
    });
    CONNECTION.with(|c| *c.borrow_mut() = Some(Rc::clone(&connection)));
    leptos::task::spawn_local(async move {
        while let Some(text) = to_send.next().await {
            if write.send(Message::Text(text)).await.is_err() {
                break;
            }
        }
    });
    let reading = Rc::clone(&connection);
    leptos::task::spawn_local(async move {
        let mut why = "the connection to kube-atlas closed".to_string();
        while let Some(message) = read.next().await {
            let text = match message {
                Ok(Message::Text(text)) => text,
                Ok(Message::Bytes(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(error) => {
                    why = format!("the connection to kube-atlas broke: {error}");
                    break;
                }
            };
            reading.answered.set(true);
            let Ok(frame) = serde_json::from_str::<Frame>(&text) else {
                continue;
            };
            route(&reading, frame);
        }
        if !reading.answered.get() {
            UNAVAILABLE.with(|u| u.set(true));
        }
        CONNECTION.with(|c| {
            let mut current = c.borrow_mut();
            if current.as_ref().is_some_and(|c| Rc::ptr_eq(c, &reading)) {
                *current = None;
            }
        });
        // Every stream still open ends with why; their watchers resume on a new socket.
        for (_, reader) in reading.readers.borrow_mut().drain() {
            let _ = reader.unbounded_send(Part::End(Some(why.clone())));
        }
    });
    Some(connection)
}

fn route(connection: &Connection, frame: Frame) {
    let readers = connection.readers.borrow();
    let Some(reader) = readers.get(&frame.id) else {
        return;
    };
    if let Some(status) = frame.status {
        let _ = reader.unbounded_send(Part::Status(status));
    }
    if let Some(data) = frame.data {
        let _ = reader.unbounded_send(Part::Data(data));
    }
    if frame.end {
        let _ = reader.unbounded_send(Part::End(frame.error));
        drop(readers);
        connection.readers.borrow_mut().remove(&frame.id);
    }
}

/// Closes the stream on kube-atlas when its reader goes (a view gone, a watch restarted).
struct OpenStream {
    connection: Rc<Connection>,
    id: u64,
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        if self
            .connection
            .readers
            .borrow_mut()
            .remove(&self.id)
            .is_some()
        {
            let close = serde_json::json!({ "op": "close", "id": self.id });
            let _ = self.connection.outgoing.unbounded_send(close.to_string());
        }
    }
}

/// Reads `request` (a GET) over kube-atlas's socket: `on_chunk` gets the body's text as it
/// arrives, until the stream ends or `on_chunk` breaks. Errors as
/// [`super::stream::stream_text`]'s: a non-2xx answer is [`ApiError::from_response`] of its
/// body; a socket that breaks is [`ApiError::Unreachable`].
pub async fn stream_text(
    request: &ApiRequest,
    mut on_chunk: impl FnMut(&str) -> ControlFlow<()>,
) -> Result<StreamEnd, ApiError> {
    let cluster = request
        .cluster
        .clone()
        .or_else(|| CLUSTER.with(|c| c.borrow().clone()))
        .ok_or_else(|| ApiError::Unreachable("kube-atlas does not serve this page".into()))?;
    let log = LoggedStream::start(request, Transport::Multiplexed);
    let mut bytes = 0;
    let finish =
        |status: Option<u16>, bytes: usize, error: Option<String>| log.finish(status, bytes, error);
    let Some(connection) = connection() else {
        let error = "no WebSocket to kube-atlas".to_string();
        finish(None, 0, Some(error.clone()));
        return Err(ApiError::Unreachable(error));
    };
    let id = connection.next_id.get();
    connection.next_id.set(id + 1);
    let (reader, mut parts) = mpsc::unbounded();
    connection.readers.borrow_mut().insert(id, reader);
    let open = serde_json::json!({
        "op": "open",
        "id": id,
        "cluster": cluster,
        "path": request.url(),
        "accept": request.accept,
    });
    let _ = connection.outgoing.unbounded_send(open.to_string());
    let _open = OpenStream { connection, id };
    let mut status = None;
    let mut error_body = String::new();
    while let Some(part) = parts.next().await {
        match part {
            Part::Status(code) => status = Some(code),
            Part::Data(text) => {
                bytes += text.len();
                if !status.is_some_and(|code| (200..300).contains(&code)) {
                    // An error's Status document, read whole.
                    error_body.push_str(&text);
                    continue;
                }
                log.message(text.len());
                if on_chunk(&text).is_break() {
                    finish(status, bytes, None);
                    return Ok(StreamEnd::Stopped);
                }
            }
            Part::End(broke_off) => {
                return match (status, broke_off) {
                    (Some(code), None) if (200..300).contains(&code) => {
                        finish(status, bytes, None);
                        Ok(StreamEnd::Closed)
                    }
                    (Some(code), _) if !(200..300).contains(&code) => {
                        let error = ApiError::from_response(code, &error_body);
                        finish(status, bytes, Some(error.to_string()));
                        Err(error)
                    }
                    (_, why) => {
                        let why = why.unwrap_or_else(|| "the stream ended unanswered".into());
                        finish(status, bytes, Some(why.clone()));
                        Err(ApiError::Unreachable(why))
                    }
                };
            }
        }
    }
    let why = "the connection to kube-atlas closed".to_string();
    finish(status, bytes, Some(why.clone()));
    Err(ApiError::Unreachable(why))
}
