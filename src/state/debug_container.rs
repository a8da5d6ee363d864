//! Adding a debug container to a pod (`kubectl debug -it POD --image=busybox --target=C`):
//! the `pods/ephemeralcontainers` PATCH the model builds, then following the pod until the
//! container runs, so the view can attach to it.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api;
use crate::model::object::terminal::debug::{
    debug_container_name, debug_container_request, debug_container_state, DebugContainer,
    DebugContainerState, DebugProfile,
};
use crate::model::object::terminal::refusal::explain_refusal;
use crate::model::object::terminal::request::PodSubresource;
use crate::model::ApiTree;

/// Where adding a debug container is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DebugProgress {
    Idle,
    /// The PATCH is on its way.
    Adding,
    /// Added; the kubelet has not started it yet: what it says.
    Starting {
        name: String,
        state: String,
    },
    /// It runs: attach to it.
    Running {
        name: String,
    },
    /// It could not be added, or it stopped before running.
    Failed(String),
}

/// What [`use_debug_container`] gives the view.
#[derive(Clone, Copy)]
pub struct UseDebugContainerReturn {
    pub progress: ReadSignal<DebugProgress>,
    /// Adds one: `(image, target container)`.
    pub start: Callback<(String, Option<String>)>,
}

/// Adds debug containers to `pod` (watched by its page) and follows them until they run.
pub fn use_debug_container(tree: ApiTree, pod: Signal<Option<Value>>) -> UseDebugContainerReturn {
    let progress = RwSignal::new(DebugProgress::Idle);
    let tree = StoredValue::new(tree);
    let start = Callback::new(move |(image, target): (String, Option<String>)| {
        let Some(current) = pod.get_untracked() else {
            return;
        };
        let random = (js_sys::Math::random() * 1e15) as u64;
        let container = DebugContainer {
            name: debug_container_name(&current, random),
            image,
            target,
            command: Vec::new(),
            interactive: true,
            image_pull_policy: None,
            profile: DebugProfile::General,
        };
        let request =
            match tree.with_value(|tree| debug_container_request(tree, &current, &container)) {
                Ok(request) => request,
                Err(error) => return progress.set(DebugProgress::Failed(error.to_string())),
            };
        let namespace = current["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        progress.set(DebugProgress::Adding);
        spawn_local(async move {
            let next = match api::send(&request, None).await {
                Ok(_) => DebugProgress::Starting {
                    name: container.name,
                    state: "added; waiting for the kubelet".into(),
                },
                Err(error) => DebugProgress::Failed(
                    explain_refusal(PodSubresource::EphemeralContainers, &namespace, &error)
                        .sentence(),
                ),
            };
            progress.try_set(next);
        });
    });
    // Follows the added container in the pod as its page's watch sees it.
    Effect::new(move |_| {
        let DebugProgress::Starting { name, .. } = progress.get() else {
            return;
        };
        let Some(state) = pod.with(|p| p.as_ref().map(|p| debug_container_state(p, &name))) else {
            return;
        };
        let next = match state {
            DebugContainerState::Running => DebugProgress::Running { name },
            DebugContainerState::Terminated { exit_code } => DebugProgress::Failed(format!(
                "{name} stopped before it could be attached (exit code {})",
                exit_code.map_or("unknown".to_string(), |c| c.to_string())
            )),
            DebugContainerState::Waiting { reason, message } => DebugProgress::Starting {
                name,
                state: [reason, message]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join(": "),
            },
            DebugContainerState::NotReported => return,
        };
        if progress.with_untracked(|p| *p != next) {
            progress.set(next);
        }
    });
    UseDebugContainerReturn {
        progress: progress.read_only(),
        start,
    }
}
