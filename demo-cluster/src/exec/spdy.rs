//! One exec or attach session on a plain SPDY/3.1 upgrade (kubectl before 1.30, or with
//! `KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false`), as the kubelet serves it behind kube-apiserver
//! (`pkg/kubelet/cri/streaming/remotecommand/httpstream.go`): the client opens one stream per
//! channel, named by its `streamType` header (`error`, `stdin`, `stdout`, `stderr`, `resize`);
//! once all the request's are there the process runs, its writes go out on stdout and stderr,
//! and how it ended is written on the error stream (a metav1.Status JSON on
//! `v4.channel.k8s.io`, the error's text on the older ones), every stream then closed.
//!
//! The process, its statuses and their words are the WebSocket session's ([`super::session`]).

use std::collections::HashMap;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use kube_atlas_model::object::terminal::frame::Channel;
use kube_atlas_model::object::terminal::protocol::Protocol;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::session::{run_process, status_message, Emit, Ending, Session};
use super::shell::Size;
use crate::spdy::conn::{chunks, writer, Upgraded};
use crate::spdy::frame::{self, REFUSED_STREAM};
use crate::spdy::{Frame, FrameReader, HeaderDeflater};

/// The kubelet's remotecommand protocols over SPDY, in its order of preference (it has no
/// `v5.channel.k8s.io` over SPDY: kube-apiserver's translator speaks that one to WebSockets).
pub const PROTOCOLS: [&str; 4] = [
    "v4.channel.k8s.io",
    "v3.channel.k8s.io",
    "v2.channel.k8s.io",
    "channel.k8s.io",
];

/// The kubelet's `streamCreationTimeout` (30 s): how long it waits for the client's streams.
const STREAM_CREATION_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the server waits for the client to go after the last stream is closed.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// The protocol of the session's statuses: v4 writes a Status JSON; v1 to v3 only the error's
/// text, nothing on success (the WebSocket's `channel.k8s.io` wording).
pub fn status_protocol(name: &str) -> Protocol {
    if name == PROTOCOLS[0] {
        Protocol::V4
    } else {
        Protocol::V1
    }
}

/// Whether the protocol has a resize stream (v3 and v4).
fn resizes(name: &str) -> bool {
    name == PROTOCOLS[0] || name == PROTOCOLS[1]
}

/// What the connection's reader tells the session.
enum Event {
    /// A stream of this type was opened (and answered).
    Opened(&'static str, u32),
}

/// The process's writes as DATA frames on the stdout and stderr streams.
struct SpdyEmit {
    out: mpsc::UnboundedSender<Vec<u8>>,
    stdout: Option<u32>,
    stderr: Option<u32>,
}

impl Emit for SpdyEmit {
    async fn emit(&mut self, channel: Channel, bytes: &[u8]) -> bool {
        let stream = match channel {
            Channel::Stdout => self.stdout,
            Channel::Stderr => self.stderr,
            _ => None,
        };
        match stream {
            Some(id) => self.out.send(frame::data(id, bytes, false)).is_ok(),
            None => true,
        }
    }
}

/// Runs the session to its end on the upgraded connection; `protocol` is the negotiated name.
pub async fn run(io: Upgraded, session: Session, protocol: &'static str) {
    let (read, write) = tokio::io::split(io);
    let out = writer(write);
    let streams = session.streams;
    let size = Arc::new(Mutex::new(Size::default()));
    let (stdin_tx, stdin_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (events_tx, mut events) = mpsc::unbounded_channel::<Event>();
    let (gone_tx, mut gone) = oneshot::channel::<()>();

    // The client's frames: its streams (each answered with a SYN_REPLY), stdin, resizes.
    let reader_out = out.clone();
    let reader_size = size.clone();
    let reader = tokio::spawn(async move {
        let out = reader_out;
        let mut incoming = pin!(chunks(read));
        let mut frames = FrameReader::default();
        let mut deflater = HeaderDeflater::default();
        let mut kinds: HashMap<u32, &'static str> = HashMap::new();
        let mut stdin_tx = streams.stdin.then_some(stdin_tx);
        let mut resize = Vec::<u8>::new();
        'read: while let Some(bytes) = incoming.next().await {
            frames.push(&bytes);
            loop {
                let frame = match frames.next_frame() {
                    Ok(Some(frame)) => frame,
                    Ok(None) => break,
                    Err(_) => break 'read,
                };
                match frame {
                    Frame::SynStream {
                        stream_id, headers, ..
                    } => {
                        let kind = headers
                            .iter()
                            .find(|(name, _)| name == "streamtype")
                            .and_then(|(_, value)| {
                                ["error", "stdin", "stdout", "stderr", "resize"]
                                    .into_iter()
                                    .find(|k| k == value)
                            });
                        let Some(kind) = kind else {
                            let _ = out.send(frame::rst_stream(stream_id, REFUSED_STREAM));
                            continue;
                        };
                        let _ = out.send(frame::syn_reply(&mut deflater, stream_id, &[]));
                        kinds.insert(stream_id, kind);
                        let _ = events_tx.send(Event::Opened(kind, stream_id));
                    }
                    Frame::Data {
                        stream_id,
                        fin,
                        bytes,
                    } => match kinds.get(&stream_id).copied() {
                        Some("stdin") => {
                            if let Some(tx) = &stdin_tx {
                                if !bytes.is_empty() {
                                    let _ = tx.send(bytes);
                                }
                            }
                            if fin {
                                stdin_tx = None;
                            }
                        }
                        Some("resize") if streams.tty => {
                            resize.extend_from_slice(&bytes);
                            read_resizes(&mut resize, &reader_size);
                        }
                        _ => {}
                    },
                    Frame::RstStream { stream_id } => {
                        if kinds.get(&stream_id) == Some(&"stdin") {
                            stdin_tx = None;
                        }
                    }
                    Frame::Ping { id } => {
                        let _ = out.send(frame::ping(id));
                    }
                    Frame::GoAway => break 'read,
                    Frame::Other => {}
                }
            }
        }
        drop(stdin_tx);
        let _ = gone_tx.send(());
    });

    // The kubelet waits for every stream the request asked for, the error stream first of all.
    let mut expected = 1 + usize::from(streams.stdin) + usize::from(streams.stdout);
    expected += usize::from(streams.stderr()) + usize::from(streams.tty && resizes(protocol));
    let mut opened: HashMap<&'static str, u32> = HashMap::new();
    let waited = tokio::time::timeout(STREAM_CREATION_TIMEOUT, async {
        while opened.len() < expected {
            match events.recv().await {
                Some(Event::Opened(kind, id)) => {
                    opened.insert(kind, id);
                }
                None => return false,
            }
        }
        true
    })
    .await;
    if waited != Ok(true) {
        reader.abort();
        return;
    }

    let status = status_protocol(protocol);
    let ending = if let Some(refused) = &session.refused {
        Some(Ending::KubeletError(refused.clone()))
    } else {
        let mut emit = SpdyEmit {
            out: out.clone(),
            stdout: opened.get("stdout").copied(),
            stderr: opened.get("stderr").copied(),
        };
        run_process(&session, &mut emit, &mut gone, stdin_rx, size).await
    };
    let Some(ending) = ending else {
        // The client went away: nobody to tell.
        reader.abort();
        return;
    };
    for kind in ["stdout", "stderr"] {
        if let Some(id) = opened.get(kind) {
            let _ = out.send(frame::data(*id, &[], true));
        }
    }
    if let Some(error) = opened.get("error").copied() {
        if let Some(message) = status_message(status, &ending) {
            let _ = out.send(frame::data(error, message.as_bytes(), false));
        }
        let _ = out.send(frame::data(error, &[], true));
    }
    // The client closes the connection once it has read the status.
    let _ = tokio::time::timeout(CLOSE_WAIT, &mut gone).await;
    reader.abort();
}

/// The resize stream's JSON sizes (`{"Width":80,"Height":24}`, one after another), applied
/// as they complete; an incomplete one stays in `buffer`.
fn read_resizes(buffer: &mut Vec<u8>, size: &Mutex<Size>) {
    let mut values = serde_json::Deserializer::from_slice(buffer).into_iter::<Value>();
    let mut consumed = 0;
    while let Some(Ok(value)) = values.next() {
        consumed = values.byte_offset();
        let dimension = |key: &str| {
            value[key]
                .as_u64()
                .and_then(|v| u16::try_from(v).ok())
                .unwrap_or(0)
        };
        let (cols, rows) = (dimension("Width"), dimension("Height"));
        if cols > 0 && rows > 0 {
            *size.lock().unwrap_or_else(|p| p.into_inner()) = Size { rows, cols };
        }
    }
    buffer.drain(..consumed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resizes_are_read_as_they_complete() {
        let size = Mutex::new(Size::default());
        let mut buffer = br#"{"Width":100,"Height":30}{"Width":1"#.to_vec();
        read_resizes(&mut buffer, &size);
        assert_eq!(
            *size.lock().unwrap(),
            Size {
                rows: 30,
                cols: 100
            }
        );
        assert_eq!(buffer, br#"{"Width":1"#.to_vec());
        buffer.extend_from_slice(br#"20,"Height":40}"#);
        read_resizes(&mut buffer, &size);
        assert_eq!(
            *size.lock().unwrap(),
            Size {
                rows: 40,
                cols: 120
            }
        );
        assert!(buffer.is_empty());
    }

    #[test]
    fn statuses_follow_the_protocol() {
        assert_eq!(status_protocol("v4.channel.k8s.io"), Protocol::V4);
        assert_eq!(status_protocol("v2.channel.k8s.io"), Protocol::V1);
        assert!(resizes("v3.channel.k8s.io") && !resizes("channel.k8s.io"));
    }
}
