//! The workload logs' tests, one file per concern, on pods shaped as the API serves them.

mod coverage;
mod filter;
mod intake;
mod membership;
mod merge;
mod outputs;
mod runs;
mod severity;
mod streams;
mod timestamp;
mod view;

use serde_json::{json, Value};

use crate::object::workload_logs::membership::{Membership, MembershipChange, MembershipOptions};
use crate::object::workload_logs::streams::{Since, StreamKey, StreamStart};

/// A running pod of namespace `shop`, labelled `app: web`, whose `containers` started at
/// `start` and never restarted.
pub(super) fn running_pod(name: &str, start: &str, containers: &[&str]) -> Value {
    let specs: Vec<Value> = containers.iter().map(|c| json!({"name": c})).collect();
    let statuses: Vec<Value> = containers
        .iter()
        .map(|c| {
            json!({"name": c, "restartCount": 0, "ready": true,
                   "state": {"running": {"startedAt": start}}})
        })
        .collect();
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "uid": format!("uid-{name}"),
                     "labels": {"app": "web"}, "creationTimestamp": start},
        "spec": {"containers": specs},
        "status": {"phase": "Running", "startTime": start, "containerStatuses": statuses},
    })
}

/// `pod`'s status of container `name`, to change.
pub(super) fn status_of<'a>(pod: &'a mut Value, name: &str) -> &'a mut Value {
    let statuses = pod["status"]["containerStatuses"]
        .as_array_mut()
        .expect("a pod of running_pod has statuses");
    statuses
        .iter_mut()
        .find(|s| s["name"] == name)
        .expect("the container is the pod's")
}

pub(super) fn key(pod: &str, container: &str) -> StreamKey {
    StreamKey::new(pod, container)
}

/// `pod/container` and start of each stream opened.
pub(super) fn opened(change: &MembershipChange) -> Vec<(String, StreamStart)> {
    change
        .open
        .iter()
        .map(|open| (open.key.to_string(), open.start.clone()))
        .collect()
}

/// Streams from the last five minutes, of at most `max_pods` pods.
pub(super) fn membership(max_pods: usize) -> Membership {
    Membership::new(MembershipOptions {
        since: Since::FiveMinutes,
        max_pods,
    })
}
