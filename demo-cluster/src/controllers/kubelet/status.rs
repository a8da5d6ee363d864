//! The pod status the kubelet writes: each container's state as its stage shows it
//! ([`Shown`]), ready or not, the pod's conditions, IPs and phase.

use serde_json::{json, Value};

use super::images::{
    full_image, image_id, image_with_tag, is_crashing_image, is_unready_image, pull_error,
};
use super::pods::{back_off_seconds, container_id, container_spec, containers, Runtime};
use super::{Kubelet, MANAGER};
use crate::controllers::{name_of, namespace_of, set_condition, uid_of, writer};
use crate::registry::now;

/// The state a container is shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shown {
    Creating,
    Running,
    CrashLoop,
    Exited,
    /// The last pull failed (waiting ErrImagePull).
    PullError,
    /// Waiting to pull again (waiting ImagePullBackOff).
    PullBackOff,
}

impl Kubelet {
    pub(super) fn write_status(
        &self,
        pod: &Value,
        rt: &Runtime,
        phase: &str,
        shown: impl Fn(&str) -> Shown,
    ) {
        let time = now();
        let mut statuses = vec![];
        let mut unready = vec![];
        // A failed pull comes after the sandbox (and its IP) was set up.
        let mut sandbox_up = false;
        for (name, image) in containers(pod) {
            let crashing = is_crashing_image(&image);
            let probed_unready = is_unready_image(&image)
                && container_spec(pod, &name).is_some_and(|c| c["readinessProbe"].is_object());
            let view = shown(&image);
            let pulled = !matches!(
                view,
                Shown::Creating | Shown::PullError | Shown::PullBackOff
            );
            sandbox_up |= matches!(view, Shown::PullError | Shown::PullBackOff);
            let restarts = if crashing { rt.restarts } else { 0 };
            let id = container_id(pod, &name, restarts);
            let succeeded = phase == "Succeeded" || !crashing;
            let (state, ready, started) = match view {
                Shown::Creating => (
                    json!({"waiting": {"reason": "ContainerCreating"}}),
                    false,
                    false,
                ),
                // A crashing container is up but never becomes ready, nor one whose
                // readiness probe fails.
                Shown::Running => (
                    json!({"running": {"startedAt": rt.started_at}}),
                    !crashing && !probed_unready,
                    true,
                ),
                Shown::PullError => (
                    json!({"waiting": {"reason": "ErrImagePull",
                        "message": pull_error(&image_with_tag(&image))}}),
                    false,
                    false,
                ),
                // The back-off's message carries the last pull's error, as the kubelet's
                // image manager wraps it.
                Shown::PullBackOff => {
                    let tagged = image_with_tag(&image);
                    (
                        json!({"waiting": {"reason": "ImagePullBackOff",
                            "message": format!("Back-off pulling image \"{tagged}\": ErrImagePull: {}", pull_error(&tagged))}}),
                        false,
                        false,
                    )
                }
                Shown::CrashLoop => (
                    json!({"waiting": {"reason": "CrashLoopBackOff",
                    "message": format!("back-off {}s restarting failed container={name} pod={}_{}({})",
                        back_off_seconds(rt.restarts), name_of(pod), namespace_of(pod), uid_of(pod))}}),
                    false,
                    false,
                ),
                Shown::Exited => {
                    let (code, reason) = if succeeded {
                        (0, "Completed")
                    } else {
                        (1, "Error")
                    };
                    (
                        json!({"terminated": {"exitCode": code, "reason": reason, "startedAt": rt.started_at,
                        "finishedAt": time, "containerID": id}}),
                        false,
                        false,
                    )
                }
            };
            if !ready {
                unready.push(name.clone());
            }
            // An image never pulled is reported as the spec names it (no runtime has it).
            let reported_image = if matches!(view, Shown::PullError | Shown::PullBackOff) {
                image.clone()
            } else {
                full_image(&image)
            };
            let mut status = json!({
                "name": name, "image": reported_image, "imageID": "", "ready": ready,
                "restartCount": restarts, "started": started, "state": state, "lastState": {},
            });
            if pulled {
                status["imageID"] = json!(image_id(&image));
                status["containerID"] = json!(id);
            }
            if crashing {
                if let Some(last) = &rt.last_terminated {
                    status["lastState"] = last.clone();
                }
            }
            statuses.push(status);
        }
        let completed = matches!(phase, "Succeeded" | "Failed");
        let creating = phase == "Pending";
        let all_ready = unready.is_empty();
        let not_ready = |kind: &str| {
            if completed {
                json!({"reason": "PodCompleted"})
            } else {
                json!({"reason": "ContainersNotReady",
                       "message": format!("{kind} with unready status: [{}]", unready.join(" "))})
            }
        };
        let mut conditions = pod["status"]["conditions"].clone();
        let bool_text = |b: bool| if b { "True" } else { "False" };
        for (ty, ok, extra) in [
            (
                "PodReadyToStartContainers",
                (!creating || sandbox_up) && !completed,
                json!({}),
            ),
            ("Initialized", true, json!({})),
            (
                "Ready",
                all_ready,
                if all_ready {
                    json!({})
                } else {
                    not_ready("containers")
                },
            ),
            (
                "ContainersReady",
                all_ready,
                if all_ready {
                    json!({})
                } else {
                    not_ready("containers")
                },
            ),
            ("PodScheduled", true, json!({})),
        ] {
            let mut extra = extra;
            extra["lastProbeTime"] = Value::Null;
            conditions = set_condition(&conditions, ty, bool_text(ok), extra, &time);
        }
        let mut status = json!({
            "phase": phase, "conditions": conditions,
            "hostIP": self.host_ip, "hostIPs": [{"ip": self.host_ip}],
            "startTime": rt.start_time, "containerStatuses": statuses,
            "qosClass": pod["status"]["qosClass"].as_str().unwrap_or("BestEffort"),
        });
        // Debug containers keep their own statuses (start_ephemeral_containers).
        if let Some(ephemeral) = pod["status"].get("ephemeralContainerStatuses") {
            status["ephemeralContainerStatuses"] = ephemeral.clone();
        }
        if !creating || sandbox_up {
            status["podIP"] = json!(rt.pod_ip);
            status["podIPs"] = json!([{"ip": rt.pod_ip}]);
        }
        let _ = self.ctx.registry.update_with(
            &self.ctx.def("", "pods"),
            namespace_of(pod),
            name_of(pod),
            &writer(MANAGER, "status"),
            |current| {
                current["status"] = status.clone();
                Ok(())
            },
        );
    }
}
