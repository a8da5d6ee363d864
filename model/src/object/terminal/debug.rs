//! Debug containers: an ephemeral container added to a running pod (`kubectl debug`), and
//! when it can be attached to.
//!
//! kubectl v1.32 (`debug -it web --image=busybox --target=web -v=8`, recorded) sends
//! `PATCH …/pods/web/ephemeralcontainers` with `application/strategic-merge-patch+json`:
//! `{"spec":{"ephemeralContainers":[{"image":"busybox","name":"debugger-dz6hp","resources":{},
//! "stdin":true,"targetContainerName":"web","terminationMessagePolicy":"File","tty":true}]}}`,
//! keys sorted (Go's patch is computed from maps), with `$setElementOrder/ephemeralContainers`
//! naming the existing ones first when there are any. It then watches the pod until the
//! container's status is running (attaching) or terminated (showing its logs instead).

use serde_json::{json, Map, Value};

use super::request::{pods_subresource_path, PodSubresource, TerminalRequestError};
use crate::api::request::{ApiRequest, PatchType};
use crate::api::tree::ApiTree;

/// kubectl's default image for `debug` examples; any image with a shell will do.
pub const DEFAULT_DEBUG_IMAGE: &str = "busybox";

/// What kubectl's `--profile` adds to the container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DebugProfile {
    /// Nothing (kubectl's default up to v1.32, deprecated).
    Legacy,
    /// `SYS_PTRACE` when targeting a container, so its processes can be traced (recorded).
    General,
}

/// The debug container to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebugContainer {
    /// See [`debug_container_name`].
    pub name: String,
    pub image: String,
    /// The container whose process namespace it joins (`--target`), if any.
    pub target: Option<String>,
    /// Empty: the image's entrypoint (a shell, for busybox).
    pub command: Vec<String>,
    /// stdin and a terminal, to attach to (`-it`).
    pub interactive: bool,
    /// None lets the server default it, as kubectl does without `--image-pull-policy`.
    pub image_pull_policy: Option<String>,
    pub profile: DebugProfile,
}

/// The letters of kubectl's random suffixes (`utilrand.String`: no vowels, no look-alikes).
const SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `debugger-` and five letters drawn from `random` (the caller's entropy), as kubectl names
/// them, differing from every container name the pod already has.
pub fn debug_container_name(pod: &Value, random: u64) -> String {
    let taken = all_container_names(pod);
    let radix = SUFFIX_ALPHABET.len() as u64;
    let mut seed = random;
    loop {
        let mut rest = seed;
        let suffix: String = (0..5)
            .map(|_| {
                let letter = SUFFIX_ALPHABET[(rest % radix) as usize];
                rest /= radix;
                char::from(letter)
            })
            .collect();
        let name = format!("debugger-{suffix}");
        if !taken.contains(&name) {
            return name;
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    }
}

fn all_container_names(pod: &Value) -> Vec<String> {
    ["initContainers", "containers", "ephemeralContainers"]
        .iter()
        .flat_map(|field| pod["spec"][field].as_array().into_iter().flatten())
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

/// The strategic merge patch kubectl sends to add `container` to `pod`.
pub fn ephemeral_container_patch(pod: &Value, container: &DebugContainer) -> Value {
    // Keys in alphabetical order, as kubectl's patch has them.
    let mut entry = Map::new();
    if !container.command.is_empty() {
        entry.insert("command".into(), json!(container.command));
    }
    entry.insert("image".into(), json!(container.image));
    if let Some(policy) = &container.image_pull_policy {
        entry.insert("imagePullPolicy".into(), json!(policy));
    }
    entry.insert("name".into(), json!(container.name));
    entry.insert("resources".into(), json!({}));
    if container.profile == DebugProfile::General && container.target.is_some() {
        entry.insert(
            "securityContext".into(),
            json!({"capabilities": {"add": ["SYS_PTRACE"]}}),
        );
    }
    if container.interactive {
        entry.insert("stdin".into(), json!(true));
    }
    if let Some(target) = &container.target {
        entry.insert("targetContainerName".into(), json!(target));
    }
    entry.insert("terminationMessagePolicy".into(), json!("File"));
    if container.interactive {
        entry.insert("tty".into(), json!(true));
    }

    let existing: Vec<Value> = pod["spec"]["ephemeralContainers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .map(|name| json!({ "name": name }))
        .collect();
    let mut spec = Map::new();
    if !existing.is_empty() {
        let mut order = existing;
        order.push(json!({ "name": container.name }));
        spec.insert(
            "$setElementOrder/ephemeralContainers".into(),
            Value::Array(order),
        );
    }
    spec.insert("ephemeralContainers".into(), json!([entry]));
    json!({ "spec": spec })
}

/// The PATCH adding `container` to `pod` (as the server sent it), when discovery serves
/// `pods/ephemeralcontainers` with `patch`.
pub fn debug_container_request(
    tree: &ApiTree,
    pod: &Value,
    container: &DebugContainer,
) -> Result<ApiRequest, TerminalRequestError> {
    let namespace = pod["metadata"]["namespace"].as_str().unwrap_or("default");
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let path = pods_subresource_path(tree, namespace, name, PodSubresource::EphemeralContainers)?;
    let body = ephemeral_container_patch(pod, container).to_string();
    Ok(ApiRequest::patch(&path, PatchType::StrategicMerge, body))
}

/// Where a debug container is, from the pod's `status.ephemeralContainerStatuses`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DebugContainerState {
    /// The kubelet has not reported it yet.
    NotReported,
    /// Pulling, creating, or stuck (`ErrImagePull`): the reason and message to show.
    Waiting {
        reason: Option<String>,
        message: Option<String>,
    },
    Running,
    /// It ran and exited (a command without `-it`, or a failed start): show its logs.
    Terminated {
        exit_code: Option<i32>,
    },
}

impl DebugContainerState {
    /// Attach now: the container runs. kubectl waits for running or terminated, printing a
    /// waiting message as a warning until its timeout.
    pub fn is_running(&self) -> bool {
        *self == DebugContainerState::Running
    }
}

/// The state of ephemeral container `name` in `pod`.
pub fn debug_container_state(pod: &Value, name: &str) -> DebugContainerState {
    let status = pod["status"]["ephemeralContainerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["name"].as_str() == Some(name));
    let Some(state) = status.map(|s| &s["state"]) else {
        return DebugContainerState::NotReported;
    };
    let text = |v: &Value| v.as_str().map(str::to_string);
    if state["running"].is_object() {
        DebugContainerState::Running
    } else if let Some(terminated) = state["terminated"].as_object() {
        let exit_code = terminated.get("exitCode").and_then(Value::as_i64);
        DebugContainerState::Terminated {
            exit_code: exit_code.and_then(|c| i32::try_from(c).ok()),
        }
    } else {
        DebugContainerState::Waiting {
            reason: text(&state["waiting"]["reason"]),
            message: text(&state["waiting"]["message"]),
        }
    }
}

#[cfg(test)]
#[path = "debug_tests.rs"]
mod tests;
