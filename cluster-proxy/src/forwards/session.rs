//! One `pods/portforward` session of the API's WebSocket protocol (`v4.channel.k8s.io`, one
//! port): kube-atlas's own client rather than kube-rs's `Portforwarder`, which sends what it
//! reads in 4 KiB frames, each flushed on its own (uploads ran at 0.4x kubectl's). Frames are
//! a channel byte then data: channel 0 the port's bytes, channel 1 its error text; each
//! channel's first frame from the server is the port number (2 bytes, little-endian).

use bytes::Bytes;
use futures_util::{FutureExt, StreamExt};
use hyper_util::rt::TokioIo;
use kube::Client;
use kube_atlas_model::api::forwards::{ForwardError, TargetKind};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::resolve::api_error;
use super::tunnel::Destination;

pub(super) type Socket = WebSocketStream<TokioIo<hyper::upgrade::Upgraded>>;

/// What one frame from the server says.
pub(super) enum Frame {
    /// Bytes from the pod's port.
    Data(Bytes),
    /// The port's error (usually: nothing listens there); the session is over.
    Error(String),
    /// The session ended.
    Closed,
    /// Nothing for the connection (a channel's port header, a ping).
    Nothing,
}

/// An open session and what it received before it was used.
pub struct Session {
    pub(super) socket: Socket,
    pub(super) early: Vec<Bytes>,
    pub(super) channels: Channels,
}

/// Which channels' port headers were read (each channel's first frame is one).
#[derive(Default)]
pub(super) struct Channels {
    headers_seen: [bool; 2],
}

/// Opens a session to `to` with the context's client (its credentials, TLS and pool settings).
pub(super) async fn open(client: &Client, to: &Destination) -> Result<Session, ForwardError> {
    let pods = format!("/api/v1/namespaces/{}/pods", to.namespace);
    let request = kube::core::Request::new(pods)
        .portforward(&to.pod, &[to.port])
        .map_err(|error| ForwardError::Other(format!("the port-forward request: {error}")))?;
    let connection = client.connect(request).await.map_err(|error| {
        if matches!(&error, kube::Error::Api(status) if status.code == 403) {
            ForwardError::Forbidden {
                namespace: to.namespace.clone(),
            }
        } else {
            api_error(error, TargetKind::Pod, &to.namespace, &to.pod)
        }
    })?;
    Ok(Session {
        socket: connection.into_stream(),
        early: Vec::new(),
        channels: Channels::default(),
    })
}

impl Channels {
    /// What one message from the socket means; `None` or a read error is the end.
    pub(super) fn frame<E>(&mut self, message: Option<Result<Message, E>>) -> Frame {
        let bytes = match message {
            Some(Ok(Message::Binary(bytes))) => bytes,
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return Frame::Closed,
            Some(Ok(_)) => return Frame::Nothing,
        };
        let Some((&channel, rest)) = bytes.split_first() else {
            return Frame::Nothing;
        };
        let Some(seen) = self.headers_seen.get_mut(usize::from(channel)) else {
            // Only one port was asked: no other channel is expected.
            return Frame::Nothing;
        };
        if !*seen {
            *seen = true;
            return Frame::Nothing;
        }
        match channel {
            0 => Frame::Data(bytes.slice(1..)),
            _ => Frame::Error(String::from_utf8_lossy(rest).into_owned()),
        }
    }
}

impl Session {
    /// Whether a spare session is still good to use: reads what already arrived without
    /// waiting (a pod that spoke first is kept for the connection) and says false when the
    /// pod closed the connection or the port failed while it waited.
    pub(super) fn still_open(&mut self) -> bool {
        loop {
            let Some(message) = self.socket.next().now_or_never() else {
                return true;
            };
            match self.channels.frame(message) {
                Frame::Data(bytes) => self.early.push(bytes),
                Frame::Nothing => {}
                Frame::Error(_) | Frame::Closed => return false,
            }
        }
    }

    /// Waits up to `grace` for the port's error (the start check); `None` when none came.
    pub(super) async fn error_within(&mut self, grace: std::time::Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let message = tokio::time::timeout_at(deadline, self.socket.next())
                .await
                .ok()?;
            match self.channels.frame(message) {
                Frame::Error(message) => return Some(message),
                Frame::Closed => return None,
                Frame::Data(bytes) => self.early.push(bytes),
                Frame::Nothing => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(bytes: &[u8]) -> Option<Result<Message, ()>> {
        Some(Ok(Message::binary(bytes.to_vec())))
    }

    #[test]
    fn each_channels_port_header_is_skipped_then_data_and_errors_are_told_apart() {
        let mut channels = Channels::default();
        assert!(matches!(
            channels.frame(binary(&[0, 0x90, 0x1f])),
            Frame::Nothing
        ));
        assert!(matches!(
            channels.frame(binary(&[1, 0x90, 0x1f])),
            Frame::Nothing
        ));
        match channels.frame(binary(b"\0HTTP/1.1 200 OK")) {
            Frame::Data(bytes) => assert_eq!(&bytes[..], b"HTTP/1.1 200 OK"),
            _ => panic!("data on channel 0"),
        }
        match channels.frame(binary(b"\x01connection refused")) {
            Frame::Error(text) => assert_eq!(text, "connection refused"),
            _ => panic!("an error on channel 1"),
        }
        // A channel no port was asked for, an empty frame, the end.
        assert!(matches!(channels.frame(binary(&[4, 1, 2])), Frame::Nothing));
        assert!(matches!(channels.frame(binary(&[])), Frame::Nothing));
        assert!(matches!(channels.frame(Some(Err(()))), Frame::Closed));
        assert!(matches!(channels.frame::<()>(None), Frame::Closed));
    }
}
