//! `GET /kube-atlas/multiplex`: one WebSocket carrying every long-running GET of the page
//! (watches, followed logs), as Headlamp's backend multiplexes its watches.
//!
//! Why: a browser opens at most six HTTP/1.1 connections per origin, and the dashboard keeps
//! many chunked-HTTP watches open at once; the seventh request waits for one of them to end.
//! Each watch cannot simply become its own WebSocket to the API server either: a browser
//! cannot set `Accept` on a WebSocket, and Table watches need it. So the page served by
//! kube-atlas opens this one socket and asks for its streams over it; kube-atlas does each
//! GET upstream with the context's credentials, as [`proxy::forward`] does.
//!
//! The protocol is JSON text frames ([`protocol`]):
//! - page → kube-atlas: `{"op":"open","id":7,"cluster":"dev","path":"/api/v1/pods?watch=true",
//!   "accept":"…"}` (`accept` defaults to `application/json`), `{"op":"close","id":7}`.
//! - kube-atlas → page: `{"id":7,"status":200}` once the answer starts; `{"id":7,"data":"…"}`
//!   for the body as it comes (whole UTF-8 characters); `{"id":7,"end":true}` when it is over
//!   (with `"error"` when the body broke off). A stream that reached no API server, an unknown
//!   cluster or a message not understood get a status, a Kubernetes Status document as
//!   `data`, and `end`. `close` is answered with `end` too: after its `end`, an id may be reused.
//!
//! Each stream is a task; one writer task owns the socket, fed through a bounded queue (a
//! slow page makes the streams wait, not kube-atlas buffer). When the socket closes, every
//! stream is aborted and its upstream connection closed.

pub mod protocol;

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use http::StatusCode;
use http_body_util::BodyExt;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use crate::contexts::{error_chain, Contexts};
use crate::proxy::{self, Unreachable};
use crate::session::Session;
use protocol::{data_frame, end_frame, status_frame, ClientMessage, Open, Utf8Decoder};

/// How many frames may wait for the socket before the streams wait.
pub const FRAME_QUEUE: usize = 256;

type Frames = mpsc::Sender<String>;

/// Serves one multiplexing socket until the page closes it (or it breaks), or until `end`
/// (the server shutting down, the session ending): then every stream gets its `end` frame,
/// as a watch the API server ended, and the socket a close frame, so the page resumes its
/// watches cleanly (on another replica, or after signing in again). With a `session`, every
/// stream is the signed-in user's, counted against the session's streams.
pub async fn serve(
    socket: WebSocket,
    contexts: Arc<Contexts>,
    session: Option<Arc<Session>>,
    end: impl std::future::Future<Output = ()>,
) {
    let (sink, mut incoming) = socket.split();
    let (frames, queued) = mpsc::channel(FRAME_QUEUE);
    let mut writer = tokio::spawn(write_frames(sink, queued));
    tokio::pin!(end);
    let mut writer_ended = false;
    let mut streams = Streams {
        contexts,
        session,
        frames,
        tasks: JoinSet::new(),
        stops: HashMap::new(),
    };
    loop {
        tokio::select! {
            message = incoming.next() => match message {
                Some(Ok(Message::Text(text))) => streams.take(protocol::parse(text.as_str())),
                // Pings are answered by axum; binary messages and pongs mean nothing here.
                Some(Ok(Message::Binary(_) | Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
            },
            Some(_) = streams.tasks.join_next(), if !streams.tasks.is_empty() => {}
            // The socket cannot be written to any more.
            _ = &mut writer => {
                writer_ended = true;
                break;
            }
            () = &mut end => {
                for (_, stop) in streams.stops.drain() {
                    let _ = stop.send(());
                }
                let ended = async { while streams.tasks.join_next().await.is_some() {} };
                let _ = tokio::time::timeout(ENDING_TIME, ended).await;
                break;
            }
        }
    }
    // Every stream still running is aborted: its upstream request and connection are dropped.
    streams.tasks.abort_all();
    // The queued frames (the `end`s) go out, then the close frame.
    drop(streams);
    if !writer_ended
        && tokio::time::timeout(ENDING_TIME, &mut writer)
            .await
            .is_err()
    {
        writer.abort();
    }
}

/// How long the streams' last frames may take on the way out when the socket is ended.
const ENDING_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// The streams of one socket.
struct Streams {
    contexts: Arc<Contexts>,
    session: Option<Arc<Session>>,
    frames: Frames,
    /// One task per stream (and per refused message); dropped, they are aborted.
    tasks: JoinSet<()>,
    /// How to stop each stream the page may still close.
    stops: HashMap<u64, oneshot::Sender<()>>,
}

impl Streams {
    /// Acts on one message of the page.
    fn take(&mut self, message: ClientMessage) {
        match message {
            ClientMessage::Open(open) => {
                self.stops.retain(|_, stop| !stop.is_closed());
                let (stop, stopped) = oneshot::channel();
                // An id still streaming (the page should not reuse it): the old stream ends.
                if let Some(previous) = self.stops.insert(open.id, stop) {
                    let _ = previous.send(());
                }
                let (contexts, frames) = (self.contexts.clone(), self.frames.clone());
                let session = self.session.clone();
                self.tasks
                    .spawn(run_stream(open, contexts, session, frames, stopped));
            }
            ClientMessage::Close { id } => {
                if let Some(stop) = self.stops.remove(&id) {
                    let _ = stop.send(());
                }
            }
            ClientMessage::Malformed { id: Some(id), why } => {
                let frames = self.frames.clone();
                self.tasks.spawn(async move {
                    let message = format!("the message for stream {id} is not understood: {why}");
                    refuse(&frames, id, StatusCode::BAD_REQUEST, "BadRequest", &message).await;
                    let _ = frames.send(end_frame(id, None)).await;
                });
            }
            ClientMessage::Malformed { id: None, .. } => {}
        }
    }
}

/// Writes the queued frames to the socket, in order, each as soon as it is queued; when the
/// queue closes (the socket is being ended), a close frame.
async fn write_frames(mut sink: SplitSink<WebSocket, Message>, mut queued: mpsc::Receiver<String>) {
    while let Some(frame) = queued.recv().await {
        if sink.send(Message::Text(frame.into())).await.is_err() {
            return;
        }
    }
    let _ = sink.send(Message::Close(None)).await;
}

/// One stream: relayed until its body ends or the page closes it, then `end`.
async fn run_stream(
    open: Open,
    contexts: Arc<Contexts>,
    session: Option<Arc<Session>>,
    frames: Frames,
    stopped: oneshot::Receiver<()>,
) {
    // Counted against the session's streams until the stream ends.
    let _stream_permit = match &session {
        Some(session) => match session.try_stream() {
            Some(permit) => Some(permit),
            None => {
                let message = "this session holds as many watches, logs and terminals as \
                               kube-atlas allows at once; close some";
                let code = StatusCode::TOO_MANY_REQUESTS;
                refuse(&frames, open.id, code, "TooManyRequests", message).await;
                let _ = frames.send(end_frame(open.id, None)).await;
                return;
            }
        },
        None => None,
    };
    let error = tokio::select! {
        error = relay(&open, &contexts, session.as_deref(), &frames) => error,
        // Closed by the page: dropping `relay` drops the upstream request and its connection.
        _ = stopped => None,
    };
    let _ = frames.send(end_frame(open.id, error.as_deref())).await;
}

/// GETs `open.path` on its cluster and queues the status and the body as it comes; the error
/// in words when the body broke off.
async fn relay(
    open: &Open,
    contexts: &Contexts,
    session: Option<&Session>,
    frames: &Frames,
) -> Option<String> {
    let id = open.id;
    let Some(slot) = contexts.get(&open.cluster) else {
        let message = format!("kube-atlas serves no context {:?}", open.cluster);
        refuse(frames, id, StatusCode::NOT_FOUND, "NotFound", &message).await;
        return None;
    };
    let mut request = http::Request::get(&open.path).header(http::header::ACCEPT, &open.accept);
    if let Some(session) = session {
        // A user's stream goes as that user or not at all (never as nobody).
        let Some(credentials) = session.credentials() else {
            // kube-atlas's fault, not the user's: not a 401 (the page would sign in again).
            let message = "kube-atlas cannot make this session's credentials";
            refuse(
                frames,
                id,
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalError",
                message,
            )
            .await;
            return None;
        };
        for (name, value) in credentials {
            request = request.header(name, value);
        }
    }
    let request = request.body(kube::client::Body::empty());
    let request = match request {
        Ok(request) => request,
        Err(error) => {
            let message = format!("the request cannot be passed on: {error}");
            refuse(frames, id, StatusCode::BAD_REQUEST, "BadRequest", &message).await;
            return None;
        }
    };
    let response = match proxy::send_upstream(slot, contexts.timeouts, request).await {
        Ok(response) => response,
        Err(unreachable) => {
            let reason = Unreachable::REASON;
            refuse(frames, id, Unreachable::CODE, reason, &unreachable.message).await;
            return None;
        }
    };
    let status = response.status().as_u16();
    frames.send(status_frame(id, status)).await.ok()?;
    let mut body = response.into_body();
    let mut text = Utf8Decoder::default();
    loop {
        let frame = body.frame().await;
        let data = match &frame {
            Some(Ok(frame)) => frame.data_ref().map(|data| text.push(data)),
            // The end, or the body broke off: what is left, then why.
            _ => Some(text.finish()),
        };
        if let Some(data) = data.filter(|data| !data.is_empty()) {
            frames.send(data_frame(id, &data)).await.ok()?;
        }
        match frame {
            Some(Ok(_)) => {}
            Some(Err(error)) => return Some(error_chain(&error)),
            None => return None,
        }
    }
}

/// Answers `id` with a Kubernetes Status document instead of an upstream answer (the caller
/// ends the stream).
async fn refuse(frames: &Frames, id: u64, code: StatusCode, reason: &str, message: &str) {
    let document = proxy::status_document(code, reason, message).to_string();
    for frame in [status_frame(id, code.as_u16()), data_frame(id, &document)] {
        if frames.send(frame).await.is_err() {
            return;
        }
    }
}
