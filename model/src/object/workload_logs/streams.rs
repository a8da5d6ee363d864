//! The log streams of a pod: which of its containers are read, where each container is in
//! its run, and the request that follows one (`kubectl logs -f --timestamps`, with a start).

use std::fmt;

use serde_json::Value;

use crate::api::endpoints::encode_path_segment;
use crate::api::request::ApiRequest;
use crate::object::pod_logs::{log_containers, log_request, ContainerKind, LogOptions, TailLines};

/// One log stream: a container of a pod (the view is of one namespace).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamKey {
    pub pod: String,
    pub container: String,
}

impl StreamKey {
    pub fn new(pod: impl Into<String>, container: impl Into<String>) -> StreamKey {
        StreamKey {
            pod: pod.into(),
            container: container.into(),
        }
    }
}

/// `pod/container`, as kubectl and stern name a stream.
impl fmt::Display for StreamKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.pod, self.container)
    }
}

/// How far back the streams that are open when the view opens start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Since {
    #[default]
    FiveMinutes,
    OneHour,
    /// The whole log each container still has (bounded by the merged buffer).
    All,
}

impl Since {
    /// In display order.
    pub const CHOICES: [Since; 3] = [Since::FiveMinutes, Since::OneHour, Since::All];

    /// `sinceSeconds`: counted by the server's clock, not the browser's.
    pub fn seconds(self) -> Option<u32> {
        match self {
            Since::FiveMinutes => Some(300),
            Since::OneHour => Some(3600),
            Since::All => None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Since::FiveMinutes => "Last 5 minutes",
            Since::OneHour => "Last hour",
            Since::All => "All",
        }
    }

    /// A short value for a `<select>` or a URL (`5m`, `1h`, `all`).
    pub fn param(self) -> &'static str {
        match self {
            Since::FiveMinutes => "5m",
            Since::OneHour => "1h",
            Since::All => "all",
        }
    }

    pub fn from_param(value: &str) -> Option<Since> {
        Since::CHOICES
            .into_iter()
            .find(|since| since.param() == value)
    }
}

/// Where a stream's lines start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamStart {
    /// The view's "since" choice: streams of the pods there when the view opened.
    Since(Since),
    /// From this RFC 3339 time on (`sinceTime`): a pod that joined later, or a container's new
    /// run, is read from its start, whole.
    At(String),
    /// The whole log (a start time was not known).
    Beginning,
}

/// `/api/v1/namespaces/{namespace}/pods/{name}`, each segment encoded.
pub fn pod_path(namespace: &str, name: &str) -> String {
    format!(
        "/api/v1/namespaces/{}/pods/{}",
        encode_path_segment(namespace),
        encode_path_segment(name)
    )
}

/// The request that follows one container's log with timestamps (merging needs them), from
/// `start`, with no tail: the start bounds it instead.
pub fn stream_request(pod_path: &str, container: &str, start: &StreamStart) -> ApiRequest {
    let options = LogOptions {
        container: Some(container.to_string()),
        follow: true,
        timestamps: true,
        previous: false,
        tail: TailLines::All,
    };
    let request = log_request(pod_path, &options);
    match start {
        StreamStart::Since(since) => match since.seconds() {
            Some(seconds) => request.query("sinceSeconds", &seconds.to_string()),
            None => request,
        },
        StreamStart::At(time) => request.query("sinceTime", time),
        StreamStart::Beginning => request,
    }
}

/// Where a container is in its run, from the pod's status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerRun {
    /// No log yet: the container has not started (its image is pulling, or it waits its turn).
    NotStarted,
    Running {
        /// `restartCount`: a new run when it grows.
        restarts: u32,
        started_at: Option<String>,
    },
    /// Exited; its log can still be read (also a crash-looping container between runs).
    Terminated {
        restarts: u32,
        started_at: Option<String>,
        exit_code: Option<i64>,
    },
}

impl ContainerRun {
    pub fn has_started(&self) -> bool {
        !matches!(self, ContainerRun::NotStarted)
    }

    pub fn restarts(&self) -> u32 {
        match self {
            ContainerRun::NotStarted => 0,
            ContainerRun::Running { restarts, .. } | ContainerRun::Terminated { restarts, .. } => {
                *restarts
            }
        }
    }

    pub fn started_at(&self) -> Option<&str> {
        match self {
            ContainerRun::NotStarted => None,
            ContainerRun::Running { started_at, .. }
            | ContainerRun::Terminated { started_at, .. } => started_at.as_deref(),
        }
    }
}

/// A container whose log a workload view reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamedContainer {
    pub name: String,
    pub kind: ContainerKind,
    pub run: ContainerRun,
}

/// The containers of `pod` a workload view reads, in the pod's order: every regular container
/// (one not started yet is listed, and opened once it starts), and the init containers that
/// have started. Ephemeral (debug) containers are left to the pod's own Logs tab.
pub fn streamed_containers(pod: &Value) -> Vec<StreamedContainer> {
    log_containers(pod)
        .into_iter()
        .filter(|c| c.kind != ContainerKind::Ephemeral)
        .map(|c| StreamedContainer {
            run: container_run(pod, &c.name, c.kind),
            name: c.name,
            kind: c.kind,
        })
        .filter(|c| c.kind == ContainerKind::Regular || c.run.has_started())
        .collect()
}

/// Reads `status.(init)containerStatuses[name]`.
fn container_run(pod: &Value, name: &str, kind: ContainerKind) -> ContainerRun {
    let field = match kind {
        ContainerKind::Init => "initContainerStatuses",
        _ => "containerStatuses",
    };
    let Some(statuses) = pod["status"][field].as_array() else {
        return run_without_statuses(pod, kind);
    };
    let Some(status) = statuses.iter().find(|s| s["name"].as_str() == Some(name)) else {
        return ContainerRun::NotStarted;
    };
    let restarts = status["restartCount"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    let text = |value: &Value| value.as_str().map(str::to_string);
    let state = &status["state"];
    if state["running"].is_object() {
        return ContainerRun::Running {
            restarts,
            started_at: text(&state["running"]["startedAt"]),
        };
    }
    // Waiting after a run (CrashLoopBackOff): the log of the run that ended is still there.
    let ended = [&state["terminated"], &status["lastState"]["terminated"]]
        .into_iter()
        .find(|terminated| terminated.is_object());
    match ended {
        Some(terminated) => ContainerRun::Terminated {
            restarts,
            started_at: text(&terminated["startedAt"]),
            exit_code: terminated["exitCode"].as_i64(),
        },
        None => ContainerRun::NotStarted,
    }
}

/// A pod without container statuses (a server that writes none): its regular containers are
/// taken as running once the pod's phase says it runs or ran.
fn run_without_statuses(pod: &Value, kind: ContainerKind) -> ContainerRun {
    let ran = matches!(
        pod["status"]["phase"].as_str(),
        Some("Running" | "Succeeded" | "Failed")
    );
    if ran && kind == ContainerKind::Regular {
        ContainerRun::Running {
            restarts: 0,
            started_at: pod["status"]["startTime"].as_str().map(str::to_string),
        }
    } else {
        ContainerRun::NotStarted
    }
}
