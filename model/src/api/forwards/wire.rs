//! What the page sends kube-atlas to start a forward and what kube-atlas answers about one:
//! one definition for both sides of `/kube-atlas/forwards`.

use serde::{Deserialize, Serialize};

use super::{PortRef, TargetKind};

/// What a forward was asked to reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub kind: TargetKind,
    pub name: String,
}

/// `POST /kube-atlas/forwards`'s body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForwardRequest {
    pub context: String,
    pub namespace: String,
    pub target: Target,
    pub port: PortRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_port: Option<u16>,
    #[serde(default)]
    pub keep_after_page_closes: bool,
    /// The page's session, whose lease keeps the forward (not needed when kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// A forward as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ForwardInfo {
    pub id: String,
    pub context: String,
    pub namespace: String,
    pub target: Target,
    pub port: PortRef,
    pub pod: String,
    pub remote_port: u16,
    pub local_address: String,
    pub url: String,
    pub keep_after_page_closes: bool,
    pub session: Option<String>,
    pub connections: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub since: String,
    /// What happened to it: moves to another pod, errors of its connections (newest last).
    pub notes: Vec<String>,
    /// Why it ended; `None` while it forwards.
    pub ended: Option<String>,
}

/// `GET /kube-atlas/forwards`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForwardList {
    pub forwards: Vec<ForwardInfo>,
    pub ended: Vec<ForwardInfo>,
}

impl ForwardInfo {
    /// `deployment/web` or `pod/web-1`, as kubectl names what it forwards to.
    pub fn target_name(&self) -> String {
        format!(
            "{}/{}",
            super::kind_word(self.target.kind),
            self.target.name
        )
    }

    /// Whether this forward goes to `kind` `name` in `namespace` of `context`.
    pub fn is_for(&self, context: &str, namespace: &str, kind: TargetKind, name: &str) -> bool {
        self.context == context
            && self.namespace == namespace
            && self.target.kind == kind
            && self.target.name == name
    }
}
