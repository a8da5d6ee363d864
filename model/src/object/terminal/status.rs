//! How a session ended: the status channel's answer, the socket's close, and what to tell the
//! user about them.

use serde::Deserialize;

use super::protocol::Protocol;
use crate::api::errors::StatusCause;

/// What the status channel (3) said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecStatus {
    Success,
    /// The command ran and exited non-zero.
    ExitCode(i32),
    /// The command could not run (container not running, executable not found, ...): the
    /// server's reason (`InternalError`) and message, as sent.
    Failure {
        reason: Option<String>,
        message: String,
    },
}

/// The `metav1.Status` fields the status channel uses.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct StatusMessage {
    status: String,
    message: String,
    reason: Option<String>,
    details: Option<StatusDetails>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct StatusDetails {
    causes: Vec<StatusCause>,
}

/// `reason` of a non-zero exit, with the code in the `ExitCode` cause.
const NON_ZERO_EXIT_CODE: &str = "NonZeroExitCode";
/// Kubernetes prefixes every internal error with this, twice when kube-apiserver translates
/// the kubelet's answer (recorded).
const INTERNAL_ERROR_PREFIX: &str = "Internal error occurred: ";

impl ExecStatus {
    /// Reads the status channel's message: a `metav1.Status` on v4 and v5, a bare error
    /// message (sent only on failure) before v4.
    pub fn parse(protocol: Protocol, data: &[u8]) -> ExecStatus {
        let text = String::from_utf8_lossy(data);
        if !protocol.has_status_json() {
            return Self::from_error_message(&text);
        }
        let Ok(status) = serde_json::from_str::<StatusMessage>(&text) else {
            return ExecStatus::Failure {
                reason: None,
                message: text.trim().to_string(),
            };
        };
        if status.status == "Success" {
            return ExecStatus::Success;
        }
        let exit_code = (status.reason.as_deref() == Some(NON_ZERO_EXIT_CODE))
            .then(|| {
                let causes = status.details.as_ref().map(|d| d.causes.as_slice());
                causes.into_iter().flatten().find_map(|cause| {
                    (cause.reason.as_deref() == Some("ExitCode"))
                        .then(|| cause.message.as_deref()?.trim().parse().ok())
                        .flatten()
                })
            })
            .flatten();
        match exit_code {
            Some(code) => ExecStatus::ExitCode(code),
            None => ExecStatus::Failure {
                reason: status.reason,
                message: status.message,
            },
        }
    }

    /// Before v4 an exit code only exists inside the message
    /// (`command terminated with non-zero exit code: exit status 3`, recorded); its wording
    /// after the colon is the runtime's, so the last number is taken as the code.
    fn from_error_message(text: &str) -> ExecStatus {
        let text = text.trim();
        let code = text
            .strip_prefix("command terminated with non-zero exit code:")
            .and_then(|rest| rest.split_whitespace().last())
            .and_then(|last| last.trim_end_matches('.').parse().ok());
        match code {
            Some(code) => ExecStatus::ExitCode(code),
            None => ExecStatus::Failure {
                reason: None,
                message: text.to_string(),
            },
        }
    }
}

/// How the socket closed, from the browser's `CloseEvent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketClose {
    /// A close frame arrived (1000 after every recorded session).
    Clean(u16),
    /// No close frame: the network, a proxy or the server went away (1006).
    Abnormal,
}

impl SocketClose {
    pub fn from_close_event(code: u16, was_clean: bool) -> SocketClose {
        if was_clean && code != 1006 {
            SocketClose::Clean(code)
        } else {
            SocketClose::Abnormal
        }
    }
}

/// How a terminal session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecEnd {
    /// The command (or the attached process) exited with this code.
    Exited(i32),
    /// The server closed the socket without saying how the command ended.
    ClosedByServer,
    ConnectionLost,
    /// The command could not run: the server's message.
    Failed(String),
}

/// What a failure message is about, from the kubelet's and runtimes' wordings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    ContainerNotRunning,
    ExecutableNotFound,
    Other,
}

/// Classifies a failure message. kube-apiserver has already checked that the container is in
/// the pod spec, so "not found" from the kubelet means it has no running instance.
pub fn classify_failure(message: &str) -> FailureKind {
    let lower = message.to_ascii_lowercase();
    let has = |needle: &str| lower.contains(needle);
    if has("executable file not found") || has("no such file or directory") {
        FailureKind::ExecutableNotFound
    } else if has("is not running")
        || has("container not found")
        || has("container_exited")
        || has("stopped state")
    {
        FailureKind::ContainerNotRunning
    } else {
        FailureKind::Other
    }
}

/// What a sentence about a session's end needs to know of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndContext<'a> {
    /// The command run (empty for attach).
    pub command: &'a [String],
    pub container: &'a str,
    /// Whether the user typed anything: a shell exits with its last command's code, so a 127
    /// after typing is not the shell's own "not found".
    pub user_typed: bool,
}

impl ExecEnd {
    pub fn from_status(status: &ExecStatus) -> ExecEnd {
        match status {
            ExecStatus::Success => ExecEnd::Exited(0),
            ExecStatus::ExitCode(code) => ExecEnd::Exited(*code),
            ExecStatus::Failure { message, .. } => ExecEnd::Failed(message.clone()),
        }
    }

    /// The end of a session: the status when one came (it is the server's own account), else
    /// what the close says. Before v4 a success sends no status, so a clean close is exit 0.
    pub fn from_session(
        protocol: Protocol,
        status: Option<&ExecStatus>,
        close: SocketClose,
    ) -> ExecEnd {
        match (status, close) {
            (Some(status), _) => ExecEnd::from_status(status),
            (None, SocketClose::Abnormal) => ExecEnd::ConnectionLost,
            (None, SocketClose::Clean(_)) if !protocol.has_status_json() => ExecEnd::Exited(0),
            (None, SocketClose::Clean(_)) => ExecEnd::ClosedByServer,
        }
    }

    /// One sentence for the user, e.g. "Exited with code 3".
    pub fn sentence(&self, context: &EndContext<'_>) -> String {
        let program = || program_name(context.command);
        match self {
            ExecEnd::Exited(127) if !context.user_typed && !context.command.is_empty() => {
                format!("`{}`: command not found (exit code 127)", program())
            }
            ExecEnd::Exited(126) if !context.user_typed && !context.command.is_empty() => {
                format!("`{}`: not executable (exit code 126)", program())
            }
            ExecEnd::Exited(code) => match signal_of(*code) {
                Some(signal) => format!("{signal} (exit code {code})"),
                None => format!("Exited with code {code}"),
            },
            ExecEnd::ClosedByServer => "Session closed by the server".to_string(),
            ExecEnd::ConnectionLost => "Connection lost".to_string(),
            ExecEnd::Failed(message) => match classify_failure(message) {
                FailureKind::ContainerNotRunning => {
                    format!("Container {} is not running", context.container)
                }
                FailureKind::ExecutableNotFound => {
                    format!("`{}`: command not found", program())
                }
                FailureKind::Other => without_internal_error_prefix(message).to_string(),
            },
        }
    }
}

/// Whether to offer reconnecting: only when the session was cut, not when the command ended
/// (start a new one instead) or could not run (it would fail the same way).
pub fn should_offer_reconnect(end: &ExecEnd) -> bool {
    matches!(end, ExecEnd::ConnectionLost | ExecEnd::ClosedByServer)
}

/// The program a command line runs: the script's first word for `sh -c script`.
fn program_name(command: &[String]) -> String {
    let is_shell = |word: &str| ["sh", "bash", "ash", "/bin/sh", "/bin/bash"].contains(&word);
    match command {
        [shell, flag, script, ..] if is_shell(shell) && flag == "-c" => script
            .split_whitespace()
            .next()
            .unwrap_or(script)
            .to_string(),
        [program, ..] => program.clone(),
        [] => String::new(),
    }
}

/// A shell reports death by signal N as exit code 128 + N.
fn signal_of(code: i32) -> Option<String> {
    let signal = code.checked_sub(128).filter(|n| (1..=64).contains(n))?;
    Some(match signal {
        1 => "Hung up".to_string(),
        2 => "Interrupted".to_string(),
        9 => "Killed".to_string(),
        15 => "Terminated".to_string(),
        n => format!("Ended by signal {n}"),
    })
}

fn without_internal_error_prefix(message: &str) -> &str {
    let mut rest = message.trim();
    while let Some(inner) = rest.strip_prefix(INTERNAL_ERROR_PREFIX) {
        rest = inner;
    }
    rest
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
