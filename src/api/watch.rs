//! Watch streams over WebSocket: one JSON watch event per message, as kube-apiserver serves
//! them. WebSockets do not take one of the browser's ~6 HTTP/1.1 connections per origin, so
//! many watches can stay open while lists and objects still load.

use futures::StreamExt;
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::Message;

use super::{now_ms, observe, ApiRequest, RequestOutcome, Transport};

/// `ws://` or `wss://` URL for a same-origin API path.
pub fn websocket_url(path: &str) -> Option<String> {
    let location = web_sys::window()?.location();
    let scheme = if location.protocol().ok()? == "https:" {
        "wss"
    } else {
        "ws"
    };
    Some(format!("{scheme}://{}{path}", location.host().ok()?))
}

/// How a watch ended.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchEnd {
    /// The server closed the stream (timeout or error event already delivered).
    Closed,
    /// The connection could not be opened or broke.
    Failed(String),
    /// The caller stopped reading (e.g. to relist after a 410).
    Stopped,
}

/// Opens a watch on `path` (which must include `watch=true`) and calls `on_event` with each
/// event's JSON text until the stream ends or `on_event` breaks. Logged as a long-lived
/// stream with its event count.
pub async fn run(
    path: &str,
    mut on_event: impl FnMut(&str) -> std::ops::ControlFlow<()>,
) -> WatchEnd {
    let request = ApiRequest::get(path);
    let id = observe(|o| o.started(&request, Transport::WebSocket));
    let started = now_ms();
    let finish = |status: Option<u16>, bytes: usize, error: Option<String>| {
        if let Some(id) = id {
            observe(|o| {
                o.finished(
                    id,
                    RequestOutcome {
                        status,
                        duration_ms: now_ms() - started,
                        bytes,
                        error,
                    },
                )
            });
        }
    };
    let Some(url) = websocket_url(&request.url()) else {
        finish(None, 0, Some("no browser location".into()));
        return WatchEnd::Failed("no browser location".into());
    };
    let mut socket = match WebSocket::open(&url) {
        Ok(socket) => socket,
        Err(error) => {
            finish(None, 0, Some(error.to_string()));
            return WatchEnd::Failed(error.to_string());
        }
    };
    let mut bytes = 0;
    let mut end = WatchEnd::Closed;
    while let Some(message) = socket.next().await {
        let text = match message {
            Ok(Message::Text(text)) => text,
            Ok(Message::Bytes(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(error) => {
                end = WatchEnd::Failed(error.to_string());
                break;
            }
        };
        bytes += text.len();
        if let Some(id) = id {
            observe(|o| o.stream_message(id, text.len()));
        }
        if on_event(&text).is_break() {
            end = WatchEnd::Stopped;
            break;
        }
    }
    // Dropping the socket closes it; a stopped watch must not linger on the server.
    drop(socket);
    let error = match &end {
        WatchEnd::Failed(e) => Some(e.clone()),
        _ => None,
    };
    // 101: the upgrade was answered (a message arrived); the browser does not expose it.
    finish((bytes > 0).then_some(101), bytes, error);
    end
}
