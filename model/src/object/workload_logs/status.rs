//! Where each stream of a workload's logs is, in a sentence for the view's stream list.

use crate::api::errors::ApiError;
use crate::object::workload_logs::streams::StreamKey;

/// Why a stream ended; its lines stay in the view either way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndReason {
    /// The pod was deleted, or left the workload (its labels no longer match).
    PodGone,
    /// The container exited (its pod may stay, as a finished Job's does).
    Exited { exit_code: Option<i64> },
    /// The server closed the stream while the container still ran.
    Closed,
}

/// Where one stream is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamStatus {
    /// Known, not opened: the container has not started, so there is no log yet.
    NotStarted,
    /// Opened: lines arrive as the container writes them.
    Joined,
    /// The server answered 400 "container … is waiting to start": opened again once it runs.
    WaitingToStart,
    /// The server refused the stream (not asked again by itself).
    Refused {
        /// None when no HTTP answer came (the network, the proxy).
        code: Option<u16>,
        message: String,
    },
    Ended(EndReason),
}

impl StreamStatus {
    /// The status a failed stream request leaves; `None` when the request was only cancelled.
    pub fn from_error(error: &ApiError) -> Option<StreamStatus> {
        match error {
            ApiError::Aborted => None,
            ApiError::Status { code, message, .. } => {
                Some(if *code == 400 && message.contains("is waiting to start") {
                    StreamStatus::WaitingToStart
                } else {
                    StreamStatus::Refused {
                        code: Some(*code),
                        message: message.clone(),
                    }
                })
            }
            ApiError::Unreachable(_) => Some(StreamStatus::Refused {
                code: None,
                message: error.to_string(),
            }),
        }
    }

    /// The stream is open (or about to be): lines may still come.
    pub fn is_live(&self) -> bool {
        matches!(self, StreamStatus::Joined)
    }

    /// One sentence about the stream `key` of a view in `namespace`, e.g. "web-x2x9q/app
    /// ended: the pod went away".
    pub fn sentence(&self, key: &StreamKey, namespace: &str) -> String {
        match self {
            StreamStatus::NotStarted => format!("{key} has not started yet"),
            StreamStatus::Joined => format!("{key} joined"),
            StreamStatus::WaitingToStart => {
                format!("{key} is waiting to start: its lines follow once it runs")
            }
            StreamStatus::Refused {
                code: Some(403),
                message,
            } => format!(
                "{key} refused: reading logs needs permission to get pods/log in namespace \
                 {namespace} (the server said: {message})"
            ),
            StreamStatus::Refused {
                code: Some(code),
                message,
            } => format!("{key} refused (HTTP {code}): {message}"),
            StreamStatus::Refused {
                code: None,
                message,
            } => format!("{key} could not be read: {message}"),
            StreamStatus::Ended(EndReason::PodGone) => format!("{key} ended: the pod went away"),
            StreamStatus::Ended(EndReason::Exited {
                exit_code: Some(code),
            }) => format!("{key} ended: the container exited with code {code}"),
            StreamStatus::Ended(EndReason::Exited { exit_code: None }) => {
                format!("{key} ended: the container exited")
            }
            StreamStatus::Ended(EndReason::Closed) => {
                format!("{key} ended: the server closed the stream")
            }
        }
    }
}
