//! What the page sends to start a forward and what it reads of one.

use kube_atlas_model::api::forwards::PortRef;
use serde::{Deserialize, Serialize};

use super::resolve::Target;

/// `POST /kube-atlas/forwards`'s body.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForwardRequest {
    pub context: String,
    pub namespace: String,
    pub target: Target,
    pub port: PortRef,
    #[serde(default)]
    pub local_port: Option<u16>,
    #[serde(default)]
    pub keep_after_page_closes: bool,
    /// The page's session, whose lease keeps the forward (not needed when kept).
    #[serde(default)]
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
