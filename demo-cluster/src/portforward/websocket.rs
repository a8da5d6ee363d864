//! Port forwarding over the kubelet's WebSocket channel protocol (`v4.channel.k8s.io`,
//! `v4.base64.channel.k8s.io`, or no protocol at all), which kube-apiserver passes through to
//! the kubelet unchanged: for the i-th requested port, channel 2i carries data both ways and
//! channel 2i+1 the kubelet's error; each channel's first message is the port, 2 bytes little
//! endian. A port whose connection is over (refused, closed by the server) is done; once all
//! are, the kubelet closes the socket.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use base64::Engine;
use futures_util::{SinkExt, StreamExt};

use super::container::Connection;
use super::Forwarded;
use crate::registry::Registry;

/// The encodings of the channel protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Binary messages: the channel's number, then the bytes.
    Binary,
    /// Text messages: the channel's digit, then the bytes in base64.
    Base64,
}

/// A session to run once the socket is up.
pub struct ChannelSession {
    pub ports: Vec<Forwarded>,
    pub encoding: Encoding,
    pub registry: Arc<Registry>,
}

pub async fn run(socket: WebSocket, session: ChannelSession) {
    let (mut sink, mut stream) = socket.split();
    let encode = |channel: usize, bytes: &[u8]| encode(session.encoding, channel, bytes);
    let mut opening = vec![];
    for (i, forwarded) in session.ports.iter().enumerate() {
        let port = forwarded.port.to_le_bytes();
        opening.push(encode(2 * i, &port));
        opening.push(encode(2 * i + 1, &port));
    }
    // Every port's connection is dialled as the session opens.
    let mut connections: Vec<Option<Connection>> = vec![];
    for (i, forwarded) in session.ports.iter().enumerate() {
        match forwarded.listening(&session.registry) {
            Ok(_) => connections.push(Some(Connection::new(forwarded.clone()))),
            Err(refused) => {
                opening.push(encode(2 * i + 1, refused.as_bytes()));
                connections.push(None);
            }
        }
    }
    for message in opening {
        if sink.send(message).await.is_err() {
            return;
        }
    }
    while connections.iter().any(Option::is_some) {
        let Some(Ok(received)) = stream.next().await else {
            return;
        };
        let Some((channel, bytes)) = decode(session.encoding, &received) else {
            if matches!(received, Message::Close(_)) {
                return;
            }
            continue;
        };
        // Only data channels carry the client's bytes; an error channel's are dropped.
        let index = channel / 2;
        let (Some(forwarded), true) = (session.ports.get(index), channel % 2 == 0) else {
            continue;
        };
        let Some(connection) = connections.get_mut(index).and_then(Option::as_mut) else {
            continue;
        };
        let mut replies = vec![];
        match forwarded.listening(&session.registry) {
            Ok(page) => {
                let fed = connection.feed(&bytes, page);
                replies.extend(fed.responses.iter().map(|r| encode(channel, r)));
                if fed.closed {
                    connections[index] = None;
                }
            }
            Err(refused) => {
                replies.push(encode(channel + 1, refused.as_bytes()));
                connections[index] = None;
            }
        }
        for reply in replies {
            if sink.send(reply).await.is_err() {
                return;
            }
        }
    }
    let close = Message::Close(Some(CloseFrame {
        code: 1000,
        reason: "".into(),
    }));
    let _ = sink.send(close).await;
    // The client's close frame, briefly, so the socket ends cleanly on both sides.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), async {
        while let Some(Ok(message)) = stream.next().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

fn encode(encoding: Encoding, channel: usize, bytes: &[u8]) -> Message {
    // Channels are numbered by the request's ports; more than 255 cannot be named in a byte,
    // and kube-apiserver's own limit on a query is far below that many ports anyway.
    let channel = u8::try_from(channel).unwrap_or(u8::MAX);
    match encoding {
        Encoding::Binary => {
            let mut message = Vec::with_capacity(bytes.len() + 1);
            message.push(channel);
            message.extend_from_slice(bytes);
            Message::Binary(message.into())
        }
        Encoding::Base64 => {
            let digit = char::from(b'0'.wrapping_add(channel));
            let text = format!(
                "{digit}{}",
                base64::engine::general_purpose::STANDARD.encode(bytes)
            );
            Message::Text(text.into())
        }
    }
}

/// A client's message as (channel, bytes); None for anything else (pings, malformed base64).
fn decode(encoding: Encoding, message: &Message) -> Option<(usize, Vec<u8>)> {
    match (encoding, message) {
        (Encoding::Binary, Message::Binary(bytes)) => {
            let (channel, rest) = bytes.split_first()?;
            Some((usize::from(*channel), rest.to_vec()))
        }
        (Encoding::Base64, Message::Text(text)) => {
            let channel = text.as_bytes().first()?.checked_sub(b'0')?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text.as_bytes().get(1..)?)
                .ok()?;
            Some((usize::from(channel), bytes))
        }
        _ => None,
    }
}
