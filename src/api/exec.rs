//! The socket of a terminal (`pods/exec`, `pods/attach`): a WebSocket offering the channel
//! subprotocols, carrying binary or base64 frames both ways. What the frames mean and what
//! to offer next is the model's (`model::object::terminal`); this opens, sends and reports.

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::StreamExt;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use super::watch::websocket_url;
use super::{ApiError, ApiRequest, LoggedStream, Transport};
use crate::model::object::terminal::frame::Outgoing;

/// What happened on the socket, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocketEvent {
    /// The handshake succeeded; the server chose this subprotocol.
    Opened(String),
    Binary(Vec<u8>),
    Text(String),
    /// The socket closed (`was_clean` false and 1006: no close frame, or no handshake).
    Closed {
        code: u16,
        was_clean: bool,
    },
}

/// An open terminal socket. Dropping it closes the socket: a terminal that went away must not
/// leave a shell running in the container.
pub struct ExecSocket {
    socket: web_sys::WebSocket,
    events: mpsc::UnboundedReceiver<SocketEvent>,
    log: LoggedStream,
    bytes: Rc<RefCell<usize>>,
    #[allow(clippy::type_complexity)]
    _handlers: (
        Closure<dyn FnMut(web_sys::Event)>,
        Closure<dyn FnMut(web_sys::MessageEvent)>,
        Closure<dyn FnMut(web_sys::CloseEvent)>,
    ),
}

/// Sends on an [`ExecSocket`] from anywhere (a key handler, a resize observer).
#[derive(Clone)]
pub struct ExecSender(web_sys::WebSocket);

impl ExecSender {
    /// Sends one message; false when the socket is not open (the keystroke is dropped: the
    /// session has ended or not begun).
    pub fn send(&self, message: &Outgoing) -> bool {
        if self.0.ready_state() != web_sys::WebSocket::OPEN {
            return false;
        }
        match message {
            Outgoing::Binary(bytes) => self.0.send_with_u8_array(bytes).is_ok(),
            Outgoing::Text(text) => self.0.send_with_str(text).is_ok(),
        }
    }

    /// Closes the socket (the server ends the process's streams).
    pub fn close(&self) {
        // Closing an already closed socket does nothing.
        let _ = self.0.close_with_code_and_reason(1000, "terminal closed");
    }
}

impl ExecSocket {
    /// Starts the handshake for `request` offering `protocols`; the outcome is the first
    /// event ([`SocketEvent::Opened`], or [`SocketEvent::Closed`] when refused).
    pub fn open(request: &ApiRequest, protocols: &[&str]) -> Result<ExecSocket, ApiError> {
        let url = websocket_url(&super::full_url(request))
            .ok_or_else(|| ApiError::Unreachable("no browser location".into()))?;
        let offered = js_sys::Array::new();
        for protocol in protocols {
            offered.push(&wasm_bindgen::JsValue::from_str(protocol));
        }
        let socket = web_sys::WebSocket::new_with_str_sequence(&url, &offered)
            .map_err(|e| ApiError::Unreachable(format!("{e:?}")))?;
        socket.set_binary_type(web_sys::BinaryType::Arraybuffer);
        let log = LoggedStream::start(request, Transport::WebSocket);
        let bytes = Rc::new(RefCell::new(0usize));
        let (sender, events) = mpsc::unbounded();
        let on_open = {
            let sender = sender.clone();
            let socket = socket.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                let _ = sender.unbounded_send(SocketEvent::Opened(socket.protocol()));
            })
        };
        let on_message = {
            let sender = sender.clone();
            let bytes = Rc::clone(&bytes);
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let data = event.data();
                let received = if let Some(text) = data.as_string() {
                    *bytes.borrow_mut() += text.len();
                    SocketEvent::Text(text)
                } else if let Ok(buffer) = data.dyn_into::<js_sys::ArrayBuffer>() {
                    let array = js_sys::Uint8Array::new(&buffer).to_vec();
                    *bytes.borrow_mut() += array.len();
                    SocketEvent::Binary(array)
                } else {
                    return;
                };
                let _ = sender.unbounded_send(received);
            })
        };
        let on_close =
            Closure::<dyn FnMut(web_sys::CloseEvent)>::new(move |event: web_sys::CloseEvent| {
                let _ = sender.unbounded_send(SocketEvent::Closed {
                    code: event.code(),
                    was_clean: event.was_clean(),
                });
            });
        socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Ok(ExecSocket {
            socket,
            events,
            log,
            bytes,
            _handlers: (on_open, on_message, on_close),
        })
    }

    pub fn sender(&self) -> ExecSender {
        ExecSender(self.socket.clone())
    }

    /// The next event; None after the close was reported.
    pub async fn next(&mut self) -> Option<SocketEvent> {
        let event = self.events.next().await?;
        match &event {
            SocketEvent::Binary(data) => self.log.message(data.len()),
            SocketEvent::Text(text) => self.log.message(text.len()),
            _ => {}
        }
        Some(event)
    }
}

impl Drop for ExecSocket {
    fn drop(&mut self) {
        self.socket.set_onopen(None);
        self.socket.set_onmessage(None);
        self.socket.set_onclose(None);
        // Closing an already closed socket does nothing.
        let _ = self
            .socket
            .close_with_code_and_reason(1000, "terminal closed");
        let bytes = *self.bytes.borrow();
        // 101: the upgrade was answered (a message arrived); the browser hides it.
        self.log.finish((bytes > 0).then_some(101), bytes, None);
    }
}
