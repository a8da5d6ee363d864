//! What a [`Membership`](super::membership::Membership) is asked with and answers: its
//! options, and after each watch event the streams to close, open and mark ended.

use crate::api::request::ApiRequest;
use crate::object::workload_logs::streams::{Since, StreamKey, StreamStart};

/// Pods streamed at once unless asked otherwise: each stream is a connection held open.
pub const DEFAULT_MAX_PODS: usize = 20;

/// Streams of pods that went away kept for their status lines; older ones are forgotten.
pub const MAX_GONE_STREAMS_KEPT: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MembershipOptions {
    pub since: Since,
    /// At least one.
    pub max_pods: usize,
}

impl Default for MembershipOptions {
    fn default() -> Self {
        MembershipOptions {
            since: Since::default(),
            max_pods: DEFAULT_MAX_PODS,
        }
    }
}

/// A stream to open, with the request that reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenStream {
    pub key: StreamKey,
    pub start: StreamStart,
    pub request: ApiRequest,
}

/// What to do after a watch event, in this order: close, then open (a key can be in both
/// when a pod of the same name replaced another, or a container started a new run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MembershipChange {
    /// Abort these streams: their pod went away, or their run is replaced by a new one.
    pub close: Vec<StreamKey>,
    pub open: Vec<OpenStream>,
    /// Mark these ended; their lines stay. A container that exited is not closed here: the
    /// server ends its stream after the last line, and closing could cut lines on their way.
    pub ended: Vec<StreamKey>,
}

impl MembershipChange {
    pub fn is_empty(&self) -> bool {
        self.close.is_empty() && self.open.is_empty() && self.ended.is_empty()
    }
}
