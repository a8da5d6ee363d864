//! Watch streams over WebSocket: one JSON watch event per text message, as kube-apiserver
//! serves them. WebSockets do not take one of the browser's six HTTP/1.1 connections per
//! origin, so many live views can stay open while lists and objects still load. The chunked
//! HTTP form (for proxies that do not pass WebSockets) is read with [`super::stream`].

use futures::StreamExt;
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::Message;

use super::{now_ms, observe, ApiError, ApiRequest, RequestOutcome, Transport};

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

/// An open watch. Dropping it closes the socket (a stopped watch must not linger on the
/// server) and completes its entry in the request log.
pub struct WatchSocket {
    socket: Option<WebSocket>,
    log_id: Option<u64>,
    started_ms: f64,
    bytes: usize,
    error: Option<String>,
}

/// A message of the stream.
pub enum Received {
    Text(String),
    /// The server closed the stream.
    Closed,
    Failed(String),
}

impl WatchSocket {
    /// Opens the watch `request` (its query has `watch=true`).
    pub fn open(request: &ApiRequest) -> Result<WatchSocket, ApiError> {
        let log_id = observe(|o| o.started(request, Transport::WebSocket));
        let mut watch = WatchSocket {
            socket: None,
            log_id,
            started_ms: now_ms(),
            bytes: 0,
            error: None,
        };
        let url = websocket_url(&super::full_url(request))
            .ok_or_else(|| ApiError::Unreachable("no browser location".into()))?;
        match WebSocket::open(&url) {
            Ok(socket) => {
                watch.socket = Some(socket);
                Ok(watch)
            }
            Err(error) => {
                watch.error = Some(error.to_string());
                Err(ApiError::Unreachable(error.to_string()))
            }
        }
    }

    /// The next message, or how the stream ended.
    pub async fn next(&mut self) -> Received {
        let Some(socket) = self.socket.as_mut() else {
            return Received::Closed;
        };
        match socket.next().await {
            Some(Ok(message)) => {
                let text = match message {
                    Message::Text(text) => text,
                    Message::Bytes(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                };
                self.bytes += text.len();
                if let Some(id) = self.log_id {
                    observe(|o| o.stream_message(id, text.len()));
                }
                Received::Text(text)
            }
            Some(Err(error)) => {
                self.socket = None;
                self.error = Some(error.to_string());
                Received::Failed(error.to_string())
            }
            None => {
                self.socket = None;
                Received::Closed
            }
        }
    }
}

impl Drop for WatchSocket {
    fn drop(&mut self) {
        if let Some(socket) = self.socket.take() {
            // Closing an already closing socket fails harmlessly.
            let _ = socket.close(Some(1000), Some("watch no longer needed"));
        }
        if let Some(id) = self.log_id {
            let outcome = RequestOutcome {
                // 101: the upgrade was answered (a message arrived); the browser hides it.
                status: (self.bytes > 0).then_some(101),
                duration_ms: now_ms() - self.started_ms,
                bytes: self.bytes,
                error: self.error.take(),
            };
            observe(|o| o.finished(id, outcome));
        }
    }
}
