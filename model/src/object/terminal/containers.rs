//! The containers a terminal can open in: every container of a pod (init, regular,
//! ephemeral) with its state, and why one cannot take a terminal (only running ones can).

use serde_json::Value;

use super::request::AttachOptions;
use crate::object::pod_logs::{ContainerKind, DEFAULT_CONTAINER_ANNOTATION};

/// A container's state, from the pod's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerState {
    Running,
    Waiting {
        /// `ContainerCreating`, `CrashLoopBackOff`, `ImagePullBackOff`, ...
        reason: Option<String>,
        message: Option<String>,
    },
    Terminated {
        exit_code: Option<i32>,
        /// `Completed`, `Error`, `OOMKilled`, ...
        reason: Option<String>,
    },
    /// No status yet (the pod is not scheduled, or the kubelet has not reported).
    NotStarted,
}

impl ContainerState {
    /// Short text for the picker: "Running", "Waiting: CrashLoopBackOff",
    /// "Terminated: Error, exit code 1".
    pub fn text(&self) -> String {
        match self {
            ContainerState::Running => "Running".to_string(),
            ContainerState::Waiting {
                reason: Some(reason),
                ..
            } => format!("Waiting: {reason}"),
            ContainerState::Waiting { reason: None, .. } => "Waiting".to_string(),
            ContainerState::Terminated { exit_code, reason } => {
                let code = exit_code.map(|code| format!("exit code {code}"));
                let parts: Vec<String> = reason.iter().cloned().chain(code).collect();
                if parts.is_empty() {
                    "Terminated".to_string()
                } else {
                    format!("Terminated: {}", parts.join(", "))
                }
            }
            ContainerState::NotStarted => "Not started".to_string(),
        }
    }

    fn from_status(status: Option<&Value>) -> ContainerState {
        let Some(state) = status.map(|s| &s["state"]) else {
            return ContainerState::NotStarted;
        };
        let text = |v: &Value| v.as_str().map(str::to_string);
        if state["running"].is_object() {
            ContainerState::Running
        } else if state["terminated"].is_object() {
            let terminated = &state["terminated"];
            ContainerState::Terminated {
                exit_code: terminated["exitCode"]
                    .as_i64()
                    .and_then(|c| i32::try_from(c).ok()),
                reason: text(&terminated["reason"]),
            }
        } else {
            ContainerState::Waiting {
                reason: text(&state["waiting"]["reason"]),
                message: text(&state["waiting"]["message"]),
            }
        }
    }
}

/// One container of the picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalContainer {
    pub name: String,
    pub kind: ContainerKind,
    pub state: ContainerState,
    /// The spec's `stdin` and `tty`: attach can type into and draw a terminal for the main
    /// process only when the container was started with them.
    pub stdin: bool,
    pub tty: bool,
}

impl TerminalContainer {
    /// The name, with the kind when not a regular container.
    pub fn label(&self) -> String {
        match self.kind {
            ContainerKind::Init => format!("{} (init)", self.name),
            ContainerKind::Regular => self.name.clone(),
            ContainerKind::Ephemeral => format!("{} (ephemeral)", self.name),
        }
    }

    /// Why no terminal can open in it; None when it runs. Exec and attach both need a
    /// running process: the kubelet refuses others ("container not found").
    pub fn unavailable_reason(&self) -> Option<String> {
        (self.state != ContainerState::Running)
            .then(|| format!("{} is not running ({})", self.label(), self.state.text()))
    }

    /// Attach as kubectl does: a terminal only if the container has one.
    pub fn attach_options(&self) -> AttachOptions {
        AttachOptions {
            container: self.name.clone(),
            stdin: self.stdin,
            tty: self.tty,
        }
    }
}

/// The pod's containers in the order they run: init, regular, then ephemeral (debug) ones.
/// Entries without a name are skipped.
pub fn terminal_containers(pod: &Value) -> Vec<TerminalContainer> {
    [
        (
            "initContainers",
            "initContainerStatuses",
            ContainerKind::Init,
        ),
        ("containers", "containerStatuses", ContainerKind::Regular),
        (
            "ephemeralContainers",
            "ephemeralContainerStatuses",
            ContainerKind::Ephemeral,
        ),
    ]
    .into_iter()
    .flat_map(|(field, statuses, kind)| {
        let statuses = pod["status"][statuses].as_array();
        pod["spec"][field]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(move |spec| {
                let name = spec["name"].as_str().filter(|n| !n.is_empty())?;
                let status = statuses
                    .into_iter()
                    .flatten()
                    .find(|s| s["name"].as_str() == Some(name));
                Some(TerminalContainer {
                    name: name.to_string(),
                    kind,
                    state: ContainerState::from_status(status),
                    stdin: spec["stdin"].as_bool().unwrap_or(false),
                    tty: spec["tty"].as_bool().unwrap_or(false),
                })
            })
    })
    .collect()
}

/// The container offered first: among running ones, the pod's default-container annotation
/// (as kubectl), else the first regular, else any; when none runs, the same choice among all.
pub fn default_terminal_container<'a>(
    pod: &Value,
    containers: &'a [TerminalContainer],
) -> Option<&'a TerminalContainer> {
    let annotated = pod["metadata"]["annotations"][DEFAULT_CONTAINER_ANNOTATION].as_str();
    let pick = |running_only: bool| {
        let candidates = || {
            containers
                .iter()
                .filter(move |c| !running_only || c.state == ContainerState::Running)
        };
        candidates()
            .find(|c| Some(c.name.as_str()) == annotated)
            .or_else(|| candidates().find(|c| c.kind == ContainerKind::Regular))
            .or_else(|| candidates().next())
    };
    pick(true).or_else(|| pick(false))
}

#[cfg(test)]
#[path = "containers_tests.rs"]
mod tests;
