//! The exec and attach requests, built from discovery, and what a refused handshake means.
//!
//! As kubectl v1.32 sends them (recorded with `-v=8`, `model/tests/fixtures/terminal`):
//! `GET …/pods/web/exec?command=sh&container=web&stdin=true&stdout=true&tty=true` for
//! `exec -it web -- sh`, `command` once per argument, parameters in alphabetical order, only the
//! true flags, and no `stderr` with a terminal: the kubelet refuses `tty` with `stderr` (a
//! terminal has one output stream). The WebSocket URL is the request's `url()` on the page's
//! origin (`wss:` for `https:`), since a browser cannot add credentials to a WebSocket.

use std::fmt;

use crate::api::endpoints::{NameArg, NamespaceArg};
use crate::api::errors::ApiError;
use crate::api::request::ApiRequest;
use crate::api::tree::{ApiTree, ResourceId, ResourceRef};

/// The pod subresources a terminal uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodSubresource {
    Exec,
    Attach,
    /// Where debug containers are added (`kubectl debug`).
    EphemeralContainers,
}

impl PodSubresource {
    pub fn name(self) -> &'static str {
        match self {
            PodSubresource::Exec => "exec",
            PodSubresource::Attach => "attach",
            PodSubresource::EphemeralContainers => "ephemeralcontainers",
        }
    }

    /// The verb discovery must list: the WebSocket handshake is a GET (since v1.31 RBAC also
    /// wants `create` for it), adding a debug container a PATCH.
    fn verb(self) -> &'static str {
        match self {
            PodSubresource::Exec | PodSubresource::Attach => "get",
            PodSubresource::EphemeralContainers => "patch",
        }
    }
}

/// Why no request was built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalRequestError {
    /// Discovery does not list the pod subresource with the verb it needs.
    NotServed(PodSubresource),
    /// Exec needs a command.
    EmptyCommand,
}

impl fmt::Display for TerminalRequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TerminalRequestError::NotServed(sub) => {
                write!(f, "This cluster does not serve pods/{}", sub.name())
            }
            TerminalRequestError::EmptyCommand => f.write_str("No command to run"),
        }
    }
}

/// Whether discovery lists `pods/{sub}` (core v1) with the verb a terminal needs.
pub fn is_served(tree: &ApiTree, sub: PodSubresource) -> bool {
    pods_serving(tree, sub).is_ok()
}

fn pods_serving(
    tree: &ApiTree,
    sub: PodSubresource,
) -> Result<ResourceRef<'_>, TerminalRequestError> {
    tree.find(&ResourceId::new("", "v1", "pods"))
        .filter(|pods| {
            pods.resource
                .subresource(sub.name())
                .is_some_and(|s| s.supports(sub.verb()))
        })
        .ok_or(TerminalRequestError::NotServed(sub))
}

/// `/api/v1/namespaces/{namespace}/pods/{pod}/{sub}`, names encoded, when discovery serves it.
pub(super) fn pods_subresource_path(
    tree: &ApiTree,
    namespace: &str,
    pod: &str,
    sub: PodSubresource,
) -> Result<String, TerminalRequestError> {
    let path = pods_serving(tree, sub)?.subresource_path(
        NamespaceArg::Named(namespace),
        NameArg::Named(pod),
        sub.name(),
    );
    Ok(path.to_string())
}

/// What `pods/exec` runs and which streams it opens (stdout always).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOptions {
    pub container: String,
    /// argv: the program and its arguments, unquoted (see `shell::command_argv`).
    pub command: Vec<String>,
    pub stdin: bool,
    pub tty: bool,
}

impl ExecOptions {
    /// An interactive terminal, as `kubectl exec -it`.
    pub fn terminal(container: &str, command: Vec<String>) -> ExecOptions {
        ExecOptions {
            container: container.to_string(),
            command,
            stdin: true,
            tty: true,
        }
    }
}

/// Which streams `pods/attach` opens to the container's main process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachOptions {
    pub container: String,
    pub stdin: bool,
    /// Only when the container allocated one (`tty: true` in its spec), as kubectl does.
    pub tty: bool,
}

/// The exec request (a GET to upgrade to a WebSocket).
pub fn exec_request(
    tree: &ApiTree,
    namespace: &str,
    pod: &str,
    options: &ExecOptions,
) -> Result<ApiRequest, TerminalRequestError> {
    if options.command.is_empty() {
        return Err(TerminalRequestError::EmptyCommand);
    }
    let path = pods_subresource_path(tree, namespace, pod, PodSubresource::Exec)?;
    let mut request = ApiRequest::get(&path);
    // Pushed directly: `ApiRequest::query` leaves out empty values, and `sh -c ''` has one.
    for argument in &options.command {
        request.query.push(("command".into(), argument.clone()));
    }
    Ok(with_streams(
        request,
        &options.container,
        options.stdin,
        options.tty,
    ))
}

/// The attach request (a GET to upgrade to a WebSocket).
pub fn attach_request(
    tree: &ApiTree,
    namespace: &str,
    pod: &str,
    options: &AttachOptions,
) -> Result<ApiRequest, TerminalRequestError> {
    let path = pods_subresource_path(tree, namespace, pod, PodSubresource::Attach)?;
    Ok(with_streams(
        ApiRequest::get(&path),
        &options.container,
        options.stdin,
        options.tty,
    ))
}

fn with_streams(request: ApiRequest, container: &str, stdin: bool, tty: bool) -> ApiRequest {
    let flag = |on: bool| if on { "true" } else { "" };
    request
        .query("container", container)
        .query("stderr", flag(!tty))
        .query("stdin", flag(stdin))
        .query("stdout", "true")
        .query("tty", flag(tty))
}

/// Why a handshake was refused, from a plain GET of the same URL: a browser does not show a
/// failed handshake's answer, the GET gets the same checks (pod, container, RBAC) and runs
/// nothing, since the server refuses to stream without an upgrade.
#[derive(Debug, Clone, PartialEq)]
pub enum HandshakeRefusal {
    /// The request itself is refused (forbidden, no such pod or container): retrying with
    /// other protocols will not help.
    Request(ApiError),
    /// The server would stream, had the upgrade worked: a protocol or a proxy is the trouble,
    /// so try the next offer (`Negotiation::refused`). Also the answer when the GET fails.
    Upgrade,
}

/// The message kube-apiserver answers a GET that does not upgrade with (400).
const UPGRADE_REQUIRED: &str = "Upgrade request required";

/// Reads the answer to the plain GET made after a refused handshake.
pub fn explain_refused_handshake(code: u16, body: &str) -> HandshakeRefusal {
    explain_handshake_error(ApiError::from_response(code, body))
}

/// [`explain_refused_handshake`] for an answer already read as an error (a 2xx answer is not
/// one: the upgrade was the trouble, [`HandshakeRefusal::Upgrade`]).
pub fn explain_handshake_error(error: ApiError) -> HandshakeRefusal {
    match &error {
        ApiError::Status { code, message, .. } if *code == 400 && message == UPGRADE_REQUIRED => {
            HandshakeRefusal::Upgrade
        }
        ApiError::Status { code, .. } if *code >= 400 => HandshakeRefusal::Request(error),
        _ => HandshakeRefusal::Upgrade,
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
