//! Port-forwards through kube-atlas (`/kube-atlas/forwards`): which pod a forward to a Service
//! or a Deployment reaches, which port of that pod a service port or a named port means, and
//! the words for every way a forward cannot start or ends. Pods and Services are read as the
//! API's JSON; kube-atlas does the requests.

mod offered;
#[cfg(test)]
mod tests;
mod wire;

pub use offered::{offered_ports, proxy_path, target_kind, OfferedPort};
pub use wire::{ForwardInfo, ForwardList, ForwardRequest, Target};

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::list::selector::LabelSelector;

/// What a forward was asked for, as `kubectl port-forward pod/x`, `svc/x` or `deploy/x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TargetKind {
    Pod,
    Service,
    Deployment,
}

/// A port as asked: a number, or a name (a container port's, or a Service port's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PortRef {
    Number(u16),
    Name(String),
}

impl fmt::Display for PortRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortRef::Number(number) => write!(f, "{number}"),
            PortRef::Name(name) => write!(f, "{name:?}"),
        }
    }
}

/// Why a forward cannot start, in the words the page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForwardError {
    /// Another program (or forward) listens on the asked local port.
    LocalPortTaken { port: u16 },
    /// The local address could not be listened on for another reason.
    CannotListen { port: u16, why: String },
    NotFound {
        kind: TargetKind,
        namespace: String,
        name: String,
    },
    PodNotRunning {
        namespace: String,
        name: String,
        phase: String,
    },
    /// A Service or Deployment with no running, ready pod behind it.
    NoReadyPod {
        kind: TargetKind,
        namespace: String,
        name: String,
        selector: String,
    },
    /// A Service without a selector: kubectl cannot pick its pod either.
    NoSelector {
        kind: TargetKind,
        namespace: String,
        name: String,
    },
    /// The Service has no such port, or the pod no container port of that name.
    NoSuchPort { what: String, port: PortRef },
    /// The API refused `create pods/portforward`.
    Forbidden { namespace: String },
    /// The pod's port-forward error channel: nothing listens on the port, as a rule.
    PortError {
        namespace: String,
        pod: String,
        port: u16,
        message: String,
    },
    /// Anything else the API or the connection said.
    Other(String),
}

impl ForwardError {
    /// The HTTP status kube-atlas answers with.
    pub fn status(&self) -> u16 {
        match self {
            ForwardError::LocalPortTaken { .. } => 409,
            ForwardError::CannotListen { .. } => 400,
            ForwardError::NotFound { .. } => 404,
            ForwardError::PodNotRunning { .. } => 409,
            ForwardError::NoReadyPod { .. } | ForwardError::NoSelector { .. } => 503,
            ForwardError::NoSuchPort { .. } => 400,
            ForwardError::Forbidden { .. } => 403,
            ForwardError::PortError { .. } | ForwardError::Other(_) => 502,
        }
    }

    /// The Kubernetes Status `reason` kube-atlas answers with.
    pub fn reason(&self) -> &'static str {
        match self.status() {
            409 => "Conflict",
            400 => "BadRequest",
            403 => "Forbidden",
            404 => "NotFound",
            503 => "ServiceUnavailable",
            _ => "InternalError",
        }
    }
}

fn kind_word(kind: TargetKind) -> &'static str {
    match kind {
        TargetKind::Pod => "pod",
        TargetKind::Service => "service",
        TargetKind::Deployment => "deployment",
    }
}

impl fmt::Display for ForwardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ForwardError::LocalPortTaken { port } => write!(
                f,
                "local port {port} is already in use on 127.0.0.1: pick another one, or leave it empty for a free one"
            ),
            ForwardError::CannotListen { port, why } => {
                write!(f, "cannot listen on 127.0.0.1:{port}: {why}")
            }
            ForwardError::NotFound { kind, namespace, name } => {
                write!(f, "{} {namespace}/{name} was not found", kind_word(*kind))
            }
            ForwardError::PodNotRunning { namespace, name, phase } => write!(
                f,
                "pod {namespace}/{name} is not running (phase {phase}): only a running pod can be forwarded to"
            ),
            ForwardError::NoReadyPod { kind, namespace, name, selector } => write!(
                f,
                "{} {namespace}/{name} has no ready endpoints: no running, ready pod matches {selector}",
                kind_word(*kind)
            ),
            ForwardError::NoSelector { kind, namespace, name } => write!(
                f,
                "{} {namespace}/{name} has no selector, so no pod to forward to",
                kind_word(*kind)
            ),
            ForwardError::NoSuchPort { what, port } => write!(f, "{what} has no port {port}"),
            ForwardError::Forbidden { namespace } => write!(
                f,
                "forbidden: forwarding a port needs the permission to create pods/portforward in namespace {namespace}"
            ),
            ForwardError::PortError { namespace, pod, port, message } => write!(
                f,
                "nothing answers on port {port} of pod {namespace}/{pod}: {message}"
            ),
            ForwardError::Other(message) => f.write_str(message),
        }
    }
}

/// Why a forward's pod is no longer one to forward to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodGone {
    Deleted,
    NotRunning { phase: String },
    NotReady,
}

impl PodGone {
    /// `pod default/web-1 was deleted`.
    pub fn sentence(&self, namespace: &str, pod: &str) -> String {
        format!("pod {namespace}/{pod} {}", self.predicate())
    }

    /// `web-1 was deleted`, as a Service forward's move says it.
    pub fn short(&self, pod: &str) -> String {
        format!("{pod} {}", self.predicate())
    }

    fn predicate(&self) -> String {
        match self {
            PodGone::Deleted => "was deleted".to_string(),
            PodGone::NotRunning { phase } => format!("is no longer running (phase {phase})"),
            PodGone::NotReady => "is no longer ready".to_string(),
        }
    }
}

/// What a forward records when it moves to another pod of its Service or Deployment.
pub fn moved_note(new_pod: &str, old_pod: &str, why: &PodGone) -> String {
    format!("moved to pod {new_pod}: {}", why.short(old_pod))
}

fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn is_being_deleted(pod: &Value) -> bool {
    pod.pointer("/metadata/deletionTimestamp")
        .is_some_and(|t| !t.is_null())
}

/// Whether a forwarded pod still serves: `None` while it does, else why not. A pod whose
/// deletion has started counts as deleted, since its containers are being stopped. `ready`
/// is asked of pods picked behind a Service, which kube-proxy drops once they are not ready.
pub fn pod_gone(pod: Option<&Value>, need_ready: bool) -> Option<PodGone> {
    let Some(pod) = pod else {
        return Some(PodGone::Deleted);
    };
    if is_being_deleted(pod) {
        return Some(PodGone::Deleted);
    }
    let phase = text(pod, "/status/phase");
    if phase != "Running" {
        let phase = if phase.is_empty() { "unknown" } else { phase };
        return Some(PodGone::NotRunning {
            phase: phase.to_string(),
        });
    }
    (need_ready && !is_ready(pod)).then_some(PodGone::NotReady)
}

/// The pod's `Ready` condition is `True`.
pub fn is_ready(pod: &Value) -> bool {
    ready_since(pod).is_some()
}

/// When the pod became ready (its `Ready` condition's transition time), if it is.
fn ready_since(pod: &Value) -> Option<&str> {
    let conditions = pod.pointer("/status/conditions")?.as_array()?;
    conditions
        .iter()
        .find(|c| text(c, "/type") == "Ready" && text(c, "/status") == "True")
        .map(|c| text(c, "/lastTransitionTime"))
}

/// The pod a Service or Deployment forward reaches, as kubectl's `GetFirstPod` orders them
/// (running and ready ones only; then the one ready for longest, then the oldest; the name
/// breaks ties, so the choice repeats). Pods named in `excluded` (the one just gone) are
/// passed over: the API may still list them for a moment.
pub fn pick_pod<'a>(pods: &'a [Value], excluded: &[&str]) -> Option<&'a Value> {
    pods.iter()
        .filter(|pod| pod_gone(Some(pod), true).is_none())
        .filter(|pod| !excluded.contains(&text(pod, "/metadata/name")))
        .min_by(|a, b| {
            let key = |pod: &'a Value| {
                let since = ready_since(pod).unwrap_or("");
                (
                    since,
                    text(pod, "/metadata/creationTimestamp"),
                    text(pod, "/metadata/name"),
                )
            };
            key(a).cmp(&key(b))
        })
}

/// The label selector (query form) of a Service (`spec.selector`, a map) or a Deployment
/// (`spec.selector`, a `metav1.LabelSelector`); `None` when it selects nothing.
pub fn selector_of(kind: TargetKind, object: &Value) -> Result<Option<String>, String> {
    let selector = match kind {
        TargetKind::Pod => return Ok(None),
        TargetKind::Service => match object.pointer("/spec/selector") {
            Some(labels) if labels.as_object().is_some_and(|m| !m.is_empty()) => {
                serde_json::json!({ "matchLabels": labels })
            }
            _ => return Ok(None),
        },
        TargetKind::Deployment => match object.pointer("/spec/selector") {
            Some(selector) => selector.clone(),
            None => return Ok(None),
        },
    };
    let selector = LabelSelector::from_api(&selector)?;
    Ok((!selector.is_empty()).then(|| selector.to_string()))
}

/// The port of the pod a Service port leads to, as kube-proxy (and kubectl) map it: the
/// Service port asked by number or name, then its `targetPort` (a number, a container port's
/// name, or absent for the same number).
pub fn service_target_port(service: &Value, asked: &PortRef) -> Result<PortRef, ForwardError> {
    let ports = service.pointer("/spec/ports").and_then(Value::as_array);
    let found = ports.into_iter().flatten().find(|port| match asked {
        PortRef::Number(number) => {
            port.get("port").and_then(Value::as_u64) == Some(u64::from(*number))
        }
        PortRef::Name(name) => text(port, "/name") == name,
    });
    let Some(port) = found else {
        let what = format!(
            "service {}/{}",
            text(service, "/metadata/namespace"),
            text(service, "/metadata/name")
        );
        return Err(ForwardError::NoSuchPort {
            what,
            port: asked.clone(),
        });
    };
    let number = port
        .get("port")
        .and_then(Value::as_u64)
        .and_then(|n| u16::try_from(n).ok());
    Ok(match port.get("targetPort") {
        Some(Value::String(name)) => PortRef::Name(name.clone()),
        Some(target) => match target.as_u64().and_then(|n| u16::try_from(n).ok()) {
            Some(n) if n > 0 => PortRef::Number(n),
            _ => PortRef::Number(number.unwrap_or(0)),
        },
        None => PortRef::Number(number.unwrap_or(0)),
    })
}

/// The pod's port number for `port`: a number is itself (a pod may listen on ports it does not
/// declare), a name is one of its containers' ports.
pub fn container_port(pod: &Value, port: &PortRef) -> Result<u16, ForwardError> {
    let name = match port {
        PortRef::Number(number) if *number > 0 => return Ok(*number),
        PortRef::Number(_) => "0",
        PortRef::Name(name) => name.as_str(),
    };
    let containers = pod.pointer("/spec/containers").and_then(Value::as_array);
    containers
        .into_iter()
        .flatten()
        .flat_map(|c| {
            c.get("ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .find(|p| text(p, "/name") == name)
        .and_then(|p| p.get("containerPort").and_then(Value::as_u64))
        .and_then(|n| u16::try_from(n).ok())
        .ok_or_else(|| ForwardError::NoSuchPort {
            what: format!(
                "pod {}/{}",
                text(pod, "/metadata/namespace"),
                text(pod, "/metadata/name")
            ),
            port: port.clone(),
        })
}
