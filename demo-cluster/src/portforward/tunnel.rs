//! kubectl's port forwarding (1.31 and later): SPDY/3.1 tunnelled in a WebSocket
//! (`SPDY/3.1+portforward.k8s.io`, every binary message a run of the SPDY byte stream), the
//! streams as the kubelet's SPDY port forwarding serves them. kubectl's first try, so serving
//! it spares the failed round trip before its fallback to a plain SPDY upgrade, and it rides
//! on the WebSocket upgrade the demo already has. The same streams are served on a plain
//! SPDY/3.1 upgrade (`portforward.k8s.io`: kubectl's fallback, and all of older kubectl's).
//!
//! Per connection kubectl opens an error stream and a data stream (headers `streamtype`,
//! `port`, `requestid`, the pair sharing the request id) and waits for each one's SYN_REPLY;
//! it closes its side of the error stream at once. The kubelet dials the port when the pair is
//! complete, writes a failure on the error stream, and closes both streams when the
//! connection ends (the client's FIN on the data stream, or the container closing it).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use std::future::ready;
use std::pin::pin;

use futures_util::{Sink, SinkExt, Stream, StreamExt};
use serde_json::Value;
use tokio::io::AsyncWriteExt;

use super::container::Connection;
use super::Forwarded;
use crate::registry::Registry;
use crate::spdy::conn::{chunks, Upgraded};
use crate::spdy::frame::{self, REFUSED_STREAM};
use crate::spdy::{Frame, FrameReader, HeaderDeflater};

/// The WebSocket subprotocol of the tunnel.
pub const PROTOCOL: &str = "SPDY/3.1+portforward.k8s.io";
/// The `X-Stream-Protocol-Version` of a plain SPDY upgrade.
pub const SPDY_PROTOCOL: &str = "portforward.k8s.io";

/// The streams of one request id, as they arrive.
#[derive(Default)]
struct Pair {
    error: Option<u32>,
    data: Option<u32>,
    port: Option<String>,
}

/// One forwarded connection: its streams and the container's end.
struct Open {
    error: u32,
    forwarded: Forwarded,
    connection: Connection,
}

pub async fn run(socket: WebSocket, pod: Value, registry: Arc<Registry>) {
    let (sink, stream) = socket.split();
    // Every binary message a run of the SPDY byte stream, until the socket closes.
    let incoming = stream
        .take_while(|m| ready(matches!(m, Ok(m) if !matches!(m, Message::Close(_)))))
        .filter_map(|m| {
            ready(match m {
                Ok(Message::Binary(bytes)) => Some(bytes.to_vec()),
                _ => None,
            })
        });
    let outgoing =
        sink.with(|bytes: Vec<u8>| ready(Ok::<_, axum::Error>(Message::Binary(bytes.into()))));
    serve(pin!(incoming), pin!(outgoing), pod, registry).await;
}

/// A plain SPDY/3.1 connection (`portforward.k8s.io`, kubectl before 1.31 or with
/// `KUBECTL_PORT_FORWARD_WEBSOCKETS=false`): the same streams on the upgraded connection's
/// own bytes, as the kubelet serves them.
pub async fn run_spdy(io: Upgraded, pod: Value, registry: Arc<Registry>) {
    let (read, write) = tokio::io::split(io);
    let outgoing = futures_util::sink::unfold(write, |mut write, bytes: Vec<u8>| async move {
        write.write_all(&bytes).await?;
        write.flush().await?;
        Ok::<_, std::io::Error>(write)
    });
    serve(pin!(chunks(read)), pin!(outgoing), pod, registry).await;
}

/// The streams, on the bytes of the SPDY connection as they arrive.
async fn serve<I, O>(mut incoming: I, mut sink: O, pod: Value, registry: Arc<Registry>)
where
    I: Stream<Item = Vec<u8>> + Unpin,
    O: Sink<Vec<u8>> + Unpin,
{
    let mut reader = FrameReader::default();
    let mut deflater = HeaderDeflater::default();
    let mut pairs: HashMap<String, Pair> = HashMap::new();
    // By data stream id.
    let mut open: HashMap<u32, Open> = HashMap::new();
    while let Some(bytes) = incoming.next().await {
        reader.push(&bytes);
        let mut out = vec![];
        loop {
            let frame = match reader.next_frame() {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                // Not SPDY/3: nothing more can be understood on this connection.
                Err(_) => return,
            };
            match frame {
                Frame::SynStream {
                    stream_id, headers, ..
                } => {
                    out.extend(frame::syn_reply(&mut deflater, stream_id, &[]));
                    let header = |name: &str| {
                        headers
                            .iter()
                            .find(|(n, _)| n == name)
                            .map(|(_, v)| v.clone())
                    };
                    let request_id = header("requestid").unwrap_or_default();
                    let pair = pairs.entry(request_id.clone()).or_default();
                    match header("streamtype").as_deref() {
                        Some("error") => pair.error = Some(stream_id),
                        Some("data") => pair.data = Some(stream_id),
                        _ => {
                            out.extend(frame::rst_stream(stream_id, REFUSED_STREAM));
                            continue;
                        }
                    }
                    pair.port = pair.port.take().or_else(|| header("port"));
                    if let (Some(error), Some(data)) = (pair.error, pair.data) {
                        let port = pair.port.clone().unwrap_or_default();
                        pairs.remove(&request_id);
                        out.extend(dial(&pod, &registry, &port, error, data, &mut open));
                    }
                }
                Frame::Data {
                    stream_id,
                    fin,
                    bytes,
                } => {
                    let Some(entry) = open.get_mut(&stream_id) else {
                        continue;
                    };
                    let (replies, done) = match entry.forwarded.listening(&registry) {
                        Ok(page) => {
                            let fed = entry.connection.feed(&bytes, page);
                            (fed.responses, fed.closed || fin)
                        }
                        Err(refused) => {
                            out.extend(frame::data(entry.error, refused.as_bytes(), false));
                            (vec![], true)
                        }
                    };
                    for reply in replies {
                        out.extend(frame::data(stream_id, &reply, false));
                    }
                    if done {
                        out.extend(frame::data(stream_id, &[], true));
                        out.extend(frame::data(entry.error, &[], true));
                        open.remove(&stream_id);
                    }
                }
                Frame::RstStream { stream_id } => {
                    open.remove(&stream_id);
                }
                Frame::Ping { id } => out.extend(frame::ping(id)),
                Frame::GoAway => return,
                Frame::Other => {}
            }
        }
        if !out.is_empty() && sink.send(out).await.is_err() {
            return;
        }
    }
}

/// Connects a complete pair to the pod's port: the container's connection, or the kubelet's
/// error on the error stream and both streams closed.
fn dial(
    pod: &Value,
    registry: &Arc<Registry>,
    port: &str,
    error: u32,
    data: u32,
    open: &mut HashMap<u32, Open>,
) -> Vec<u8> {
    let refused = |message: String| {
        let mut out = frame::data(error, message.as_bytes(), false);
        out.extend(frame::data(data, &[], true));
        out.extend(frame::data(error, &[], true));
        out
    };
    // The kubelet's words for a port header it cannot read.
    let port = match port.parse::<u16>() {
        Ok(0) | Err(_) => {
            return refused(format!(
                "error parsing port number: strconv.ParseUint: parsing {port:?}: invalid syntax"
            ))
        }
        Ok(port) => port,
    };
    let forwarded = Forwarded::of(pod, port);
    match forwarded.listening(registry) {
        Ok(_) => {
            open.insert(
                data,
                Open {
                    error,
                    connection: Connection::new(forwarded.clone()),
                    forwarded,
                },
            );
            vec![]
        }
        Err(message) => refused(message),
    }
}
