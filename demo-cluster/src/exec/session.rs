//! One exec or attach session on an upgraded WebSocket: the channels the client asked for,
//! its stdin, resizes and close signal read, the process's output written one message per
//! write, and how the process ended written on the status channel in the words of the one
//! who answers that protocol on a real cluster: kube-apiserver's stream translator for
//! `v5.channel.k8s.io`, the kubelet (through kube-apiserver's proxy) for the others.
//!
//! The frames themselves are the model's (`kube_atlas_model::object::terminal::frame`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use kube_atlas_model::object::terminal::frame::{
    decode_from_client, encode_output, Channel, Frame, FromClient, Outgoing,
};
use kube_atlas_model::object::terminal::protocol::Protocol;
use serde_json::json;
use tokio::sync::{mpsc, oneshot};

use super::shell::{Input, Output, Shell, Size, Written};

/// What runs in the container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Process {
    Exec(Vec<String>),
    Attach,
}

/// The streams a request asked for (`stdin`, `stdout`, `stderr`, `tty`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Streams {
    pub stdin: bool,
    pub stdout: bool,
    pub stderr: bool,
    pub tty: bool,
}

impl Streams {
    /// With a terminal there is no stderr: the terminal merges it into stdout.
    pub fn stderr(&self) -> bool {
        self.stderr && !self.tty
    }

    pub fn any(&self) -> bool {
        self.stdin || self.stdout || self.stderr()
    }

    /// The channel the session opens with an empty message: the first the server writes.
    fn first_channel(&self) -> Channel {
        if self.stdout {
            Channel::Stdout
        } else if self.stderr() {
            Channel::Stderr
        } else {
            Channel::Status
        }
    }
}

/// A session to run once the socket is up.
#[derive(Debug, Clone)]
pub struct Session {
    pub protocol: Protocol,
    pub pod: String,
    pub namespace: String,
    pub container: String,
    pub process: Process,
    pub streams: Streams,
    /// Why the container cannot run the process (`container "app" is not running`), as the
    /// kubelet says it after the upgrade.
    pub refused: Option<String>,
}

/// How the session ended, before it is worded for the protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    /// The kubelet could not run it: its error, before kube-apiserver's wrapping.
    KubeletError(String),
    /// kube-apiserver's stream translator refused it (v5 only).
    TranslatorError(String),
}

/// kube-apiserver writes once its connection to the kubelet is up; a client that reads at
/// once but sets up its streams a moment later (kubectl) drops a message sent straight after
/// the upgrade ("Unknown stream id 1"), so the first message waits this long.
pub const STREAM_SETUP_GRACE: Duration = Duration::from_millis(100);
/// How long the server waits for the client's close frame after its own.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// The status channel's message for `ending` on `protocol` (None: nothing is written, as on
/// the pre-v4 protocols after a success), as recorded from kube-apiserver v1.36 and the
/// stand-in kubelet (`model/tests/fixtures/terminal`).
pub fn status_message(protocol: Protocol, ending: &Ending) -> Option<String> {
    let v5 = protocol == Protocol::V5;
    let internal = |message: String, cause: String| {
        json!({"metadata": {}, "status": "Failure", "message": message,
            "reason": "InternalError", "details": {"causes": [{"message": cause}]}, "code": 500})
    };
    let status = match ending {
        Ending::Exited(0) if v5 => json!({"metadata": {}, "status": "Success"}),
        Ending::Exited(0) if protocol.has_status_json() => json!({"status": "Success"}),
        Ending::Exited(0) => return None,
        Ending::Exited(code) => {
            // The kubelet words the exit as Go's exec error does; the translator, reading it
            // back through SPDY, as client-go's exit error.
            let inner = if v5 {
                format!("command terminated with exit code {code}")
            } else {
                format!("exit status {code}")
            };
            let message = format!("command terminated with non-zero exit code: {inner}");
            if !protocol.has_status_json() {
                return Some(message);
            }
            let causes = json!([{"reason": "ExitCode", "message": code.to_string()}]);
            if v5 {
                json!({"metadata": {}, "status": "Failure", "message": message,
                    "reason": "NonZeroExitCode", "details": {"causes": causes}})
            } else {
                json!({"status": "Failure", "message": message,
                    "reason": "NonZeroExitCode", "details": {"causes": causes}})
            }
        }
        Ending::KubeletError(error) => {
            let kubelet = format!("Internal error occurred: {error}");
            if v5 {
                internal(format!("Internal error occurred: {kubelet}"), kubelet)
            } else if protocol.has_status_json() {
                json!({"status": "Failure", "message": kubelet, "reason": "InternalError", "code": 500})
            } else {
                return Some(kubelet);
            }
        }
        Ending::TranslatorError(error) => {
            internal(format!("Internal error occurred: {error}"), error.clone())
        }
    };
    Some(status.to_string())
}

fn message(outgoing: Outgoing) -> Message {
    match outgoing {
        Outgoing::Binary(bytes) => Message::Binary(bytes.into()),
        Outgoing::Text(text) => Message::Text(text.into()),
    }
}

/// Runs the session to its end on the upgraded socket.
pub async fn run(socket: WebSocket, session: Session) {
    let (mut sink, mut stream) = socket.split();
    let protocol = session.protocol;
    let streams = session.streams;
    let size = Arc::new(Mutex::new(Size::default()));

    // The client's messages: stdin, resizes, the v5 close signal; the socket's end.
    let (stdin_tx, stdin_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (gone_tx, mut gone) = oneshot::channel::<()>();
    let reader_size = size.clone();
    let reader = tokio::spawn(async move {
        let mut stdin_tx = streams.stdin.then_some(stdin_tx);
        while let Some(Ok(received)) = stream.next().await {
            let read = match &received {
                Message::Binary(bytes) => decode_from_client(protocol, Frame::Binary(bytes)),
                Message::Text(text) => decode_from_client(protocol, Frame::Text(text)),
                Message::Close(_) => break,
                _ => continue,
            };
            match read {
                FromClient::Stdin(bytes) => {
                    if let Some(tx) = &stdin_tx {
                        let _ = tx.send(bytes);
                    }
                }
                FromClient::Resize(new) if streams.tty => {
                    *reader_size.lock().unwrap_or_else(|p| p.into_inner()) = Size {
                        rows: new.rows,
                        cols: new.cols,
                    };
                }
                FromClient::Close(Channel::Stdin) => stdin_tx = None,
                _ => {}
            }
        }
        drop(stdin_tx);
        let _ = gone_tx.send(());
    });

    tokio::time::sleep(STREAM_SETUP_GRACE).await;
    let opening = encode_output(protocol, streams.first_channel(), b"");
    if sink.send(message(opening)).await.is_err() {
        reader.abort();
        return;
    }

    let ending = if protocol == Protocol::V5 && !streams.any() {
        Some(Ending::TranslatorError(
            "unable to upgrade connection: you must specify at least 1 of stdin, stdout, stderr"
                .into(),
        ))
    } else if let Some(refused) = &session.refused {
        Some(Ending::KubeletError(refused.clone()))
    } else {
        let mut emit = WebSocketEmit {
            protocol,
            sink: &mut sink,
        };
        run_process(&session, &mut emit, &mut gone, stdin_rx, size).await
    };
    let Some(ending) = ending else {
        // The client went away: nobody to tell.
        reader.abort();
        return;
    };
    if let Some(status) = status_message(protocol, &ending) {
        let outgoing = encode_output(protocol, Channel::Status, status.as_bytes());
        let _ = sink.send(message(outgoing)).await;
    }
    let close = Message::Close(Some(CloseFrame {
        code: 1000,
        reason: "".into(),
    }));
    if sink.send(close).await.is_ok() {
        let _ = tokio::time::timeout(CLOSE_WAIT, &mut gone).await;
    }
    reader.abort();
}

/// Where the process's writes go, on whichever transport the session runs.
pub(crate) trait Emit {
    /// Writes `bytes` on `channel`; false once the client is gone.
    async fn emit(&mut self, channel: Channel, bytes: &[u8]) -> bool;
}

/// The WebSocket's channel frames.
struct WebSocketEmit<'a> {
    protocol: Protocol,
    sink: &'a mut futures_util::stream::SplitSink<WebSocket, Message>,
}

impl Emit for WebSocketEmit<'_> {
    async fn emit(&mut self, channel: Channel, bytes: &[u8]) -> bool {
        let outgoing = encode_output(self.protocol, channel, bytes);
        self.sink.send(message(outgoing)).await.is_ok()
    }
}

/// Runs the shell or the main process, forwarding its writes; None when the client left first.
pub(crate) async fn run_process(
    session: &Session,
    sink: &mut impl Emit,
    gone: &mut oneshot::Receiver<()>,
    stdin_rx: mpsc::UnboundedReceiver<Vec<u8>>,
    size: Arc<Mutex<Size>>,
) -> Option<Ending> {
    let streams = session.streams;
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<Written>();
    let shell = Shell::new(
        &session.pod,
        &session.namespace,
        streams.tty,
        size,
        Output::new(out_tx, streams.stdout, streams.stderr()),
    );
    let input = streams.stdin.then(|| Input::new(stdin_rx));
    let process = session.process.clone();
    let mut task = tokio::spawn(async move {
        match process {
            Process::Exec(command) => shell.exec(&command, input).await,
            Process::Attach => shell.attach(input).await,
        }
    });
    let mut code = None;
    loop {
        tokio::select! {
            biased;
            written = out_rx.recv() => {
                let Some(written) = written else { break };
                let (channel, bytes) = match written {
                    Written::Stdout(bytes) => (Channel::Stdout, bytes),
                    Written::Stderr(bytes) => (Channel::Stderr, bytes),
                };
                if !sink.emit(channel, &bytes).await {
                    task.abort();
                    return None;
                }
            }
            finished = &mut task, if code.is_none() => {
                // Its last writes are still queued: the loop drains them, then the channel
                // closes (the shell, and its sender, are gone).
                code = Some(finished.unwrap_or(0));
            }
            _ = &mut *gone => {
                task.abort();
                return None;
            }
        }
    }
    let code = match code {
        Some(code) => code,
        None => task.await.unwrap_or(0),
    };
    Some(Ending::Exited(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_worded_as_recorded() {
        assert_eq!(
            status_message(Protocol::V5, &Ending::Exited(0)).unwrap(),
            r#"{"metadata":{},"status":"Success"}"#
        );
        assert_eq!(
            status_message(Protocol::V4, &Ending::Exited(0)).unwrap(),
            r#"{"status":"Success"}"#
        );
        assert_eq!(status_message(Protocol::Base64, &Ending::Exited(0)), None);
        assert_eq!(
            status_message(Protocol::V5, &Ending::Exited(3)).unwrap(),
            r#"{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#
        );
        assert_eq!(
            status_message(Protocol::V4, &Ending::Exited(3)).unwrap(),
            r#"{"status":"Failure","message":"command terminated with non-zero exit code: exit status 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#
        );
        assert_eq!(
            status_message(Protocol::Base64, &Ending::Exited(3)).unwrap(),
            "command terminated with non-zero exit code: exit status 3"
        );
        let not_running = Ending::KubeletError(
            "error executing command in container: container \"app\" is not running".into(),
        );
        assert_eq!(
            status_message(Protocol::V5, &not_running).unwrap(),
            r#"{"metadata":{},"status":"Failure","message":"Internal error occurred: Internal error occurred: error executing command in container: container \"app\" is not running","reason":"InternalError","details":{"causes":[{"message":"Internal error occurred: error executing command in container: container \"app\" is not running"}]},"code":500}"#
        );
        assert_eq!(
            status_message(Protocol::V4, &not_running).unwrap(),
            r#"{"status":"Failure","message":"Internal error occurred: error executing command in container: container \"app\" is not running","reason":"InternalError","code":500}"#
        );
    }
}
