//! One local TCP connection carried through the API's `pods/portforward` (a WebSocket session
//! per connection, [`session`](super::session), with the context's credentials), counting its
//! bytes; and the check a forward makes before it says it started.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use kube::Client;
use kube_atlas_model::api::forwards::ForwardError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

use super::session::{self, Frame, Session};

/// How long the start check waits for the pod's error channel to say nothing listens. The
/// kubelet dials the pod's port when the stream opens and reports a refusal at once. Only at a
/// forward's start: connections never wait for it.
pub const CHECK_GRACE: Duration = Duration::from_millis(250);

/// The most read from a local connection into one WebSocket frame: large uploads go in few,
/// large frames (kubectl's SPDY frames carry up to 32 KiB; more here, each is one write).
const FRAME: usize = 256 * 1024;

/// What a forward's connections have done; read by the list.
#[derive(Debug, Default)]
pub struct Counters {
    pub open: AtomicU64,
    /// Received from the pod.
    pub bytes_in: AtomicU64,
    /// Sent to the pod.
    pub bytes_out: AtomicU64,
}

/// Where a connection goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    pub namespace: String,
    pub pod: String,
    pub port: u16,
}

fn port_error(to: &Destination, message: String) -> ForwardError {
    ForwardError::PortError {
        namespace: to.namespace.clone(),
        pod: to.pod.clone(),
        port: to.port,
        message,
    }
}

/// Opens one session to `to` and waits briefly for its error, as `kubectl port-forward`
/// connects before it says it forwards: a refusal (403, a pod gone, nothing listening) is said
/// when the forward starts, not at its first connection. The session is returned for the
/// first connection to use.
pub async fn check(client: &Client, to: &Destination) -> Result<Session, ForwardError> {
    let mut session = session::open(client, to).await?;
    match session.error_within(CHECK_GRACE).await {
        Some(message) => Err(port_error(to, message)),
        None => Ok(session),
    }
}

/// Carries `local` through `session` (opened to `to`) until the pod's side ends, or the pod's
/// error channel speaks (the error, in words: usually nothing listens on the port).
pub async fn carry(
    session: Session,
    to: &Destination,
    local: TcpStream,
    counters: &Counters,
) -> Result<(), ForwardError> {
    let Session {
        socket,
        early,
        mut channels,
    } = session;
    let (mut local_read, mut local_write) = local.into_split();
    for bytes in early {
        if local_write.write_all(&bytes).await.is_err() {
            return Ok(());
        }
        counters
            .bytes_in
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
    }
    let (mut sink, mut stream) = socket.split();
    // Towards the pod. The protocol cannot say "no more from this side" (no half-close), so
    // the local side's end closes the session; what the pod sends until it answers the close
    // is still delivered below.
    let up = async {
        let mut buffer = vec![0u8; FRAME + 1];
        loop {
            // Channel 0 (the port's data) in the frame's first byte.
            let read = match local_read.read(&mut buffer[1..]).await {
                Ok(0) | Err(_) => break,
                Ok(read) => read,
            };
            let frame = Message::binary(buffer[..=read].to_vec());
            if sink.send(frame).await.is_err() {
                return;
            }
            counters.bytes_out.fetch_add(read as u64, Ordering::Relaxed);
        }
        let _ = sink.send(Message::Close(None)).await;
        // The session now ends from the pod's side (`down`); this side waits for it.
        std::future::pending::<()>().await;
    };
    let down = async {
        loop {
            let message = stream.next().await;
            match channels.frame(message) {
                Frame::Data(bytes) => {
                    if local_write.write_all(&bytes).await.is_err() {
                        return Ok(());
                    }
                    counters
                        .bytes_in
                        .fetch_add(bytes.len() as u64, Ordering::Relaxed);
                }
                Frame::Error(message) => return Err(port_error(to, message)),
                Frame::Closed => return Ok(()),
                Frame::Nothing => {}
            }
        }
    };
    let ended = tokio::select! {
        ended = down => ended,
        _ = up => Ok(()),
    };
    let _ = local_write.shutdown().await;
    ended
}
