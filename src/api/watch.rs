//! Watch streams over WebSocket: one JSON watch event per text message, as kube-apiserver
//! serves them. WebSockets do not take one of the browser's six HTTP/1.1 connections per
//! origin, so many live views can stay open while lists and objects still load. The chunked
//! HTTP form (for proxies that do not pass WebSockets) is read with [`super::stream`].

use std::cell::RefCell;
use std::rc::Rc;

use futures::StreamExt;
use gloo_net::websocket::futures::WebSocket;
use gloo_net::websocket::Message;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use super::handshakes::{self, HandshakeTurn};
use super::{now_ms, observe, ApiError, ApiRequest, RequestOutcome, Transport};

/// The socket's handshake events, each of which ends its turn to connect.
const HANDSHAKE_ENDS: [&str; 3] = ["open", "error", "close"];

/// A handshake that has not ended by then (a proxy holding the upgrade) gives its turn up
/// anyway, so it cannot hold back every other watch.
const HANDSHAKE_TURN_MAX_MS: u32 = 1_000;

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

/// The browser's socket and the listener that ends its turn to connect.
type HandshakeListener = (web_sys::WebSocket, Closure<dyn FnMut(web_sys::Event)>);

/// An open watch. Dropping it closes the socket (a stopped watch must not linger on the
/// server) and completes its entry in the request log.
pub struct WatchSocket {
    socket: Option<WebSocket>,
    /// Gives the socket's turn to connect up when its handshake ends (listening on the
    /// browser's socket beside gloo's handlers), removed when the watch goes.
    handshake: Option<HandshakeListener>,
    /// Ends the turn after [`HANDSHAKE_TURN_MAX_MS`]; cancelled when the watch goes.
    _turn_limit: Option<gloo_timers::callback::Timeout>,
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
    /// Opens the watch `request` (its query has `watch=true`) once it is the socket's turn
    /// to connect ([`handshakes`]).
    pub async fn open(request: &ApiRequest) -> Result<WatchSocket, ApiError> {
        let url = websocket_url(&super::full_url(request))
            .ok_or_else(|| ApiError::Unreachable("no browser location".into()))?;
        let turn = handshakes::turn().await;
        let log_id = observe(|o| o.started(request, Transport::WebSocket));
        let mut watch = WatchSocket {
            socket: None,
            handshake: None,
            _turn_limit: None,
            log_id,
            started_ms: now_ms(),
            bytes: 0,
            error: None,
        };
        let browser_socket = match web_sys::WebSocket::new(&url) {
            Ok(socket) => socket,
            Err(error) => {
                let text = crate::browser::describe_js_error(&error);
                watch.error = Some(text.clone());
                return Err(ApiError::Unreachable(text));
            }
        };
        let turn: Rc<RefCell<Option<HandshakeTurn>>> = Rc::new(RefCell::new(Some(turn)));
        let limited = Rc::clone(&turn);
        watch._turn_limit = Some(gloo_timers::callback::Timeout::new(
            HANDSHAKE_TURN_MAX_MS,
            move || {
                limited.borrow_mut().take();
            },
        ));
        let handshake_ended = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            turn.borrow_mut().take();
        });
        for event in HANDSHAKE_ENDS {
            // Only fails for a listener that is not a function.
            let _ = browser_socket
                .add_event_listener_with_callback(event, handshake_ended.as_ref().unchecked_ref());
        }
        watch.handshake = Some((browser_socket.clone(), handshake_ended));
        match WebSocket::try_from(browser_socket) {
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
        if let Some((browser_socket, handshake_ended)) = self.handshake.take() {
            // Before the listener is freed: a later event must not call it. Dropping it
            // drops the turn, if the handshake had not ended yet.
            for event in HANDSHAKE_ENDS {
                let _ = browser_socket.remove_event_listener_with_callback(
                    event,
                    handshake_ended.as_ref().unchecked_ref(),
                );
            }
        }
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
