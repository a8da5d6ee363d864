//! One terminal session in a pod's container ([`use_terminal_session`]): `pods/exec` running a
//! shell (bash, else sh) or a typed command, or `pods/attach` to the container's process.
//! It opens the socket with the model's protocol offers, falls back as the model decides,
//! asks why when a handshake is refused, and says how the session ended. The screen is the
//! caller's: bytes go to `on_output`, keys come back through [`TerminalControls`].

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::exec::{ExecSender, ExecSocket, SocketEvent};
use crate::api::{self, ApiError};
use crate::model::api::request::ApiRequest;
use crate::model::object::terminal::frame::{
    decode, encode_resize, encode_stdin, Frame, Incoming, TerminalSize,
};
use crate::model::object::terminal::protocol::{Negotiation, NextStep, Protocol};
use crate::model::object::terminal::refusal::explain_refusal;
use crate::model::object::terminal::request::{
    attach_request, exec_request, explain_handshake_error, AttachOptions, ExecOptions,
    HandshakeRefusal, PodSubresource,
};
use crate::model::object::terminal::shell::{next_default_shell, Shell};
use crate::model::object::terminal::status::{
    should_offer_reconnect, EndContext, ExecEnd, ExecStatus, SocketClose,
};
use crate::model::ApiTree;

/// What runs in the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalCommand {
    /// A shell: bash, else sh (as users expect from `kubectl exec -it … -- bash || sh`).
    DefaultShell,
    /// An argv the user typed (see `model::object::terminal::shell::command_argv`).
    Typed(Vec<String>),
    /// The container's own process (`kubectl attach`).
    Attach(AttachOptions),
}

/// Where a session is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalPhase {
    Connecting,
    /// Streaming, on this channel protocol.
    Open {
        protocol: &'static str,
    },
    /// It ran and ended: the sentence to show, and whether *Reconnect* makes sense.
    Ended {
        sentence: String,
        reconnect: bool,
    },
    /// It could not start: why, in the user's terms.
    Refused {
        sentence: String,
    },
}

/// What a session cut by its pod's deletion says.
const POD_DELETED: &str = "The pod was deleted: the session ended with it";

/// Where a session's output goes: the screen, as bytes arrive.
pub type OutputSink = Rc<dyn Fn(&[u8])>;

/// Options of [`use_terminal_session`].
pub struct UseTerminalSessionOptions {
    pub tree: ApiTree,
    pub namespace: String,
    pub pod: String,
    pub container: String,
    pub command: TerminalCommand,
    /// Bytes for the screen (stdout and stderr, as they arrive).
    pub on_output: OutputSink,
}

/// What [`use_terminal_session`] gives the view.
#[derive(Clone)]
pub struct UseTerminalSessionReturn {
    pub phase: ReadSignal<TerminalPhase>,
    /// Whether the process has a terminal (a TTY): exec always, attach when the container
    /// was started with one. Without, the screen echoes what is typed and sends lines.
    pub tty: bool,
    /// The argv running now (bash, or sh after bash was not found; empty for attach).
    pub running: ReadSignal<Vec<String>>,
    pub controls: TerminalControls,
}

/// Keys, sizes and reconnecting, for the screen's callbacks.
#[derive(Clone)]
pub struct TerminalControls {
    session: Rc<RefCell<Session>>,
    phase: RwSignal<TerminalPhase>,
    tty: bool,
    restart: Rc<dyn Fn()>,
}

impl TerminalControls {
    /// What the user typed or pasted, for the process's stdin.
    pub fn input(&self, text: &str) {
        let mut session = self.session.borrow_mut();
        let (Some(sender), Some(protocol)) = (session.sender.clone(), session.protocol) else {
            return;
        };
        session.user_typed = true;
        // Without a TTY nothing turns Enter's carriage return into a newline: a line
        // discipline would, so the process reads lines as from `kubectl attach -i`.
        let text = if self.tty {
            text.to_string()
        } else {
            text.replace('\r', "\n")
        };
        sender.send(&encode_stdin(protocol, text.as_bytes()));
    }

    /// The screen's new size (sent now when open, and again on every connect).
    pub fn resize(&self, size: TerminalSize) {
        let mut session = self.session.borrow_mut();
        session.size = Some(size);
        // Only a TTY has a size: kubectl opens no resize stream without one, and a message
        // on it can stall kube-apiserver's stream translation (seen with attach).
        if !self.tty {
            return;
        }
        if let (Some(sender), Some(protocol)) = (&session.sender, session.protocol) {
            sender.send(&encode_resize(protocol, size));
        }
    }

    /// A new session with the same command (after it ended or was lost).
    pub fn reconnect(&self) {
        (self.restart)();
    }

    /// The pod was deleted (its page's watch saw it go): the session ends with it, even where
    /// the stream would outlive it for a while.
    pub fn pod_deleted(&self) {
        if !matches!(
            self.phase.get_untracked(),
            TerminalPhase::Connecting | TerminalPhase::Open { .. }
        ) {
            return;
        }
        self.session.borrow_mut().stop();
        self.phase.try_set(TerminalPhase::Ended {
            sentence: POD_DELETED.to_string(),
            reconnect: false,
        });
    }
}

/// The state shared by the running session and the screen's callbacks.
#[derive(Default)]
struct Session {
    sender: Option<ExecSender>,
    protocol: Option<Protocol>,
    size: Option<TerminalSize>,
    user_typed: bool,
    /// Bumped by each start and by cleanup: an older run that sees a newer number stops.
    generation: u64,
}

impl Session {
    /// Ends the current run (its socket closes; its loop sees it is stale).
    fn stop(&mut self) {
        self.generation += 1;
        if let Some(sender) = self.sender.take() {
            sender.close();
        }
        self.protocol = None;
    }
}

/// Runs a terminal session while the calling view lives; leaving the view closes its socket.
pub fn use_terminal_session(options: UseTerminalSessionOptions) -> UseTerminalSessionReturn {
    let phase = RwSignal::new(TerminalPhase::Connecting);
    let running = RwSignal::new(Vec::<String>::new());
    let session = Rc::new(RefCell::new(Session::default()));
    let tty = match &options.command {
        TerminalCommand::Attach(attach) => attach.tty,
        _ => true,
    };
    let options = Rc::new(options);
    let restart: Rc<dyn Fn()> = {
        let session = Rc::clone(&session);
        Rc::new(move || {
            let generation = {
                let mut session = session.borrow_mut();
                session.stop();
                session.user_typed = false;
                session.generation
            };
            phase.try_set(TerminalPhase::Connecting);
            let run = Run {
                options: Rc::clone(&options),
                session: Rc::clone(&session),
                generation,
                // The signals themselves: a `write_only()` made here, in a click's handler, would
                // belong to no owner and drop every write.
                phase,
                running,
            };
            spawn_local(run.go());
        })
    };
    restart();
    {
        // The session dies with its view. The cleanup may run outside the reactive owner's
        // thread-local borrow, so it only flips the generation and closes the socket.
        let session = send_wrapper::SendWrapper::new(Rc::clone(&session));
        on_cleanup(move || session.borrow_mut().stop());
    }
    UseTerminalSessionReturn {
        phase: phase.read_only(),
        tty,
        running: running.read_only(),
        controls: TerminalControls {
            session,
            phase,
            tty,
            restart,
        },
    }
}

/// One start of a session, with its retries (other protocols, sh after bash).
struct Run {
    options: Rc<UseTerminalSessionOptions>,
    session: Rc<RefCell<Session>>,
    generation: u64,
    phase: RwSignal<TerminalPhase>,
    running: RwSignal<Vec<String>>,
}

/// How one socket ended.
enum Attempt {
    /// The handshake failed; the plain GET says why.
    Refused,
    Closed {
        protocol: Protocol,
        status: Option<ExecStatus>,
        close: SocketClose,
    },
    /// A newer run took over, or the view went away.
    Stale,
}

impl Run {
    fn stale(&self) -> bool {
        self.session.borrow().generation != self.generation
    }

    fn has_tty(&self) -> bool {
        match &self.options.command {
            TerminalCommand::Attach(attach) => attach.tty,
            _ => true,
        }
    }

    fn subresource(&self) -> PodSubresource {
        match self.options.command {
            TerminalCommand::Attach(_) => PodSubresource::Attach,
            _ => PodSubresource::Exec,
        }
    }

    fn request(&self, argv: &[String]) -> Result<ApiRequest, String> {
        let o = &self.options;
        let built = match &o.command {
            TerminalCommand::Attach(attach) => {
                attach_request(&o.tree, &o.namespace, &o.pod, attach)
            }
            _ => exec_request(
                &o.tree,
                &o.namespace,
                &o.pod,
                &ExecOptions::terminal(&o.container, argv.to_vec()),
            ),
        };
        built.map_err(|e| e.to_string())
    }

    fn finish(&self, phase: TerminalPhase) {
        if !self.stale() {
            self.phase.try_set(phase);
        }
    }

    async fn go(self) {
        let mut shell = Shell::DEFAULT;
        let mut negotiation = Negotiation::new();
        loop {
            let argv = match &self.options.command {
                TerminalCommand::DefaultShell => shell.command(),
                TerminalCommand::Typed(argv) => argv.clone(),
                TerminalCommand::Attach(_) => Vec::new(),
            };
            self.running.try_set(argv.clone());
            let request = match self.request(&argv) {
                Ok(request) => request,
                Err(error) => return self.finish(TerminalPhase::Refused { sentence: error }),
            };
            let attempt = self.attempt(&request, &mut negotiation).await;
            let (protocol, status, close) = match attempt {
                Attempt::Stale => return,
                Attempt::Refused => match self.why_refused(&request).await {
                    Some(sentence) => return self.finish(TerminalPhase::Refused { sentence }),
                    None => match negotiation.refused() {
                        NextStep::Connect(_) => continue,
                        _ => {
                            return self.finish(TerminalPhase::Refused {
                                sentence: "The server did not open a terminal stream: a proxy \
                                           between the browser and the API server may not pass \
                                           WebSockets."
                                    .into(),
                            })
                        }
                    },
                },
                Attempt::Closed {
                    protocol,
                    status,
                    close,
                } => (protocol, status, close),
            };
            // A binary protocol lost before its first message: try base64 (the model knows).
            if status.is_none() && close == SocketClose::Abnormal {
                if let NextStep::Connect(_) = negotiation.lost() {
                    continue;
                }
            }
            let end = ExecEnd::from_session(protocol, status.as_ref(), close);
            let user_typed = self.session.borrow().user_typed;
            if self.options.command == TerminalCommand::DefaultShell {
                if let Some(next) = next_default_shell(shell, user_typed, &end) {
                    shell = next;
                    negotiation = Negotiation::new();
                    continue;
                }
            }
            let reconnect = should_offer_reconnect(&end);
            let sentence = if reconnect && self.pod_is_gone().await {
                POD_DELETED.to_string()
            } else {
                end.sentence(&EndContext {
                    command: &argv,
                    container: &self.options.container,
                    user_typed,
                })
            };
            let reconnect = reconnect && sentence != POD_DELETED;
            return self.finish(TerminalPhase::Ended {
                sentence,
                reconnect,
            });
        }
    }

    /// Opens one socket and follows it to its close.
    async fn attempt(&self, request: &ApiRequest, negotiation: &mut Negotiation) -> Attempt {
        let names = negotiation.offer().names();
        let mut socket = match ExecSocket::open(request, &names) {
            Ok(socket) => socket,
            Err(_) => return Attempt::Refused,
        };
        let mut protocol = None;
        let mut status = None;
        while let Some(event) = socket.next().await {
            if self.stale() {
                return Attempt::Stale;
            }
            match event {
                SocketEvent::Opened(name) => match negotiation.opened(&name) {
                    NextStep::Use(chosen) => {
                        protocol = Some(chosen);
                        let size = {
                            let mut session = self.session.borrow_mut();
                            session.sender = Some(socket.sender());
                            session.protocol = Some(chosen);
                            session.size
                        };
                        if let Some(size) = size.filter(|_| self.has_tty()) {
                            socket.sender().send(&encode_resize(chosen, size));
                        }
                        self.phase.try_set(TerminalPhase::Open {
                            protocol: chosen.name(),
                        });
                    }
                    _ => return Attempt::Refused,
                },
                SocketEvent::Binary(bytes) => {
                    self.received(protocol, Frame::Binary(&bytes), &mut status, negotiation)
                }
                SocketEvent::Text(text) => {
                    self.received(protocol, Frame::Text(&text), &mut status, negotiation)
                }
                SocketEvent::Closed { code, was_clean } => {
                    {
                        let mut session = self.session.borrow_mut();
                        session.sender = None;
                        session.protocol = None;
                    }
                    let Some(protocol) = protocol else {
                        return Attempt::Refused;
                    };
                    return Attempt::Closed {
                        protocol,
                        status,
                        close: SocketClose::from_close_event(code, was_clean),
                    };
                }
            }
        }
        Attempt::Stale
    }

    fn received(
        &self,
        protocol: Option<Protocol>,
        frame: Frame<'_>,
        status: &mut Option<ExecStatus>,
        negotiation: &mut Negotiation,
    ) {
        let Some(protocol) = protocol else {
            return;
        };
        negotiation.message_received();
        match decode(protocol, frame) {
            Some(Incoming::Stdout(bytes) | Incoming::Stderr(bytes)) => {
                (self.options.on_output)(&bytes)
            }
            Some(Incoming::Status(received)) => *status = Some(received),
            _ => {}
        }
    }

    /// Why a handshake was refused, from a plain GET of the same URL: a sentence when the
    /// request itself is refused, None when the upgrade was the trouble.
    async fn why_refused(&self, request: &ApiRequest) -> Option<String> {
        let error = match api::send(request, None).await {
            Ok(_) => return None,
            Err(error) => error,
        };
        match explain_handshake_error(error) {
            HandshakeRefusal::Request(error) => Some(
                explain_refusal(self.subresource(), &self.options.namespace, &error).sentence(),
            ),
            HandshakeRefusal::Upgrade => None,
        }
    }

    /// Whether the pod is gone (a session cut when its pod was deleted says so).
    async fn pod_is_gone(&self) -> bool {
        let path = format!(
            "/api/v1/namespaces/{}/pods/{}",
            self.options.namespace, self.options.pod
        );
        matches!(
            api::get(&path, "application/json").await,
            Err(ApiError::Status { code: 404, .. })
        )
    }
}
