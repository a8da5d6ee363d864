//! The pod state machine: a pod bound here is admitted (or adopted after a restart of the
//! simulation), pulls its images, runs, crashes into CrashLoopBackOff or runs to completion,
//! and on deletion stops its containers and is finally deleted; what the kubelet remembers
//! of each pod ([`Runtime`]) and the timers that move it on.

use std::time::Instant;

use serde_json::{json, Value};

use super::images::{
    full_image, has_missing_image, hex_digest, image_id, image_with_tag, is_crashing_image,
    pod_pull_policy, pull_seconds, spread,
};
use super::status::Shown;
use super::{Kubelet, MANAGER};
use crate::controllers::events::EventSpec;
use crate::controllers::{is_deleting, is_pod_terminal, name_of, namespace_of, uid_of, writer};
use crate::registry::{now, DeleteOptions};

/// How long a crashing container runs before it exits (simulated seconds).
const CRASH_AFTER_SECONDS: f64 = 1.5;

/// How long a run-to-completion container runs without a `sleep N` hint.
const DEFAULT_RUN_SECONDS: f64 = 3.0;

/// Longest simulated stop time, whatever the grace period.
const MAX_STOP_SECONDS: f64 = 2.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    /// Images are being pulled (status: ContainerCreating).
    Pulling,
    /// A pull failed (status: ErrImagePull); `due` is when the back-off is reported.
    PullFailed,
    /// Waiting to pull again (status: ImagePullBackOff); `due` is the next attempt.
    PullBackOff,
    /// Containers run; `due` is when a crashing or finite container exits.
    Running,
    /// A crashed container waits for its restart (CrashLoopBackOff).
    BackOff,
    /// The pod reached Succeeded or Failed.
    Completed,
    /// Deleted: containers are being stopped; `due` is the final DELETE.
    Terminating,
}

/// What the kubelet remembers about one of its pods.
#[derive(Debug, Clone)]
pub(super) struct Runtime {
    pub(super) stage: Stage,
    pub(super) due: Option<Instant>,
    pub(super) pod_ip: String,
    pub(super) start_time: String,
    /// When the current container instances started.
    pub(super) started_at: String,
    pub(super) restarts: i64,
    /// `lastState.terminated` of crashing containers after their first exit.
    pub(super) last_terminated: Option<Value>,
    /// Failed pulls of a missing image so far (the back-off grows with them).
    pub(super) failed_pulls: i64,
    /// When a failing readiness probe runs next.
    pub(super) next_probe: Option<Instant>,
}

impl Runtime {
    /// The earlier of the stage's timer and the next probe.
    pub(super) fn next_timer(&self) -> Option<Instant> {
        match (self.due, self.next_probe) {
            (Some(due), Some(probe)) => Some(due.min(probe)),
            (due, probe) => due.or(probe),
        }
    }
}

/// The spec of the pod's container `name`.
pub(super) fn container_spec<'a>(pod: &'a Value, name: &str) -> Option<&'a Value> {
    pod["spec"]["containers"]
        .as_array()?
        .iter()
        .find(|c| c["name"] == name)
}

pub(super) fn containers(pod: &Value) -> Vec<(String, String)> {
    pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                c["image"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn has_crashing_container(pod: &Value) -> bool {
    containers(pod).iter().any(|(_, i)| is_crashing_image(i))
}

/// Simulated run time of a run-to-completion pod: `sleep N` in its command, else a default.
pub fn run_seconds(pod: &Value) -> f64 {
    let words: Vec<String> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| {
            ["command", "args"].into_iter().flat_map(move |f| {
                c[f].as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|w| w.as_str())
                    .flat_map(|w| w.split_whitespace())
                    .map(|w| {
                        w.trim_matches(|ch: char| ch == ';' || ch == '\'' || ch == '"')
                            .to_string()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    words
        .windows(2)
        .find(|w| w[0] == "sleep")
        .and_then(|w| w[1].parse::<f64>().ok())
        .unwrap_or(DEFAULT_RUN_SECONDS)
        .max(0.5)
}

fn restarts_always(pod: &Value) -> bool {
    pod["spec"]["restartPolicy"].as_str().unwrap_or("Always") == "Always"
}

fn restarts_on_failure(pod: &Value) -> bool {
    pod["spec"]["restartPolicy"].as_str().unwrap_or("Always") != "Never"
}

/// CrashLoopBackOff delay after `restarts` exits, and the image pull back-off after as many
/// failed pulls (the kubelet's two back-offs have the same shape): 10 s doubling up to 5 min.
pub(super) fn back_off_seconds(restarts: i64) -> f64 {
    let exponent = (restarts - 1).clamp(0, 5) as i32;
    (10.0 * 2f64.powi(exponent)).min(300.0)
}

pub(super) fn container_id(pod: &Value, container: &str, restarts: i64) -> String {
    format!(
        "containerd://{}",
        hex_digest(&format!("{}/{container}/{restarts}", uid_of(pod)))
    )
}

impl Kubelet {
    pub(super) fn sync_pod(&mut self, pod: &Value) {
        let uid = uid_of(pod).to_string();
        let Some(mut rt) = self.pods.get(&uid).cloned() else {
            self.admit(pod);
            return;
        };
        if is_deleting(pod) && rt.stage != Stage::Terminating {
            self.start_termination(pod, &mut rt);
        }
        if rt.next_probe.is_some_and(|due| due <= Instant::now()) {
            self.probe_readiness(pod, &mut rt);
        }
        if rt.due.is_some_and(|due| due <= Instant::now()) {
            rt.due = None;
            match rt.stage {
                Stage::Pulling if has_missing_image(pod) => self.pull_failed(pod, &mut rt),
                Stage::Pulling => self.start_containers(pod, &mut rt, true),
                Stage::PullFailed => self.report_pull_back_off(pod, &mut rt),
                Stage::PullBackOff => self.pull_again(pod, &mut rt),
                Stage::Running => self.containers_exited(pod, &mut rt),
                Stage::BackOff => self.start_containers(pod, &mut rt, false),
                Stage::Terminating => {
                    self.finish_termination(pod);
                    self.pods.remove(&uid);
                    return;
                }
                Stage::Completed => {}
            }
        }
        if rt.stage == Stage::Running && !is_deleting(pod) {
            self.start_ephemeral_containers(pod);
        }
        self.pods.insert(uid, rt);
    }

    /// A container's Created and Started Events, as the kubelet writes them.
    fn record_started(&self, pod: &Value, name: &str) {
        self.record(
            pod,
            name,
            EventSpec::normal("Created", format!("Created container: {name}")),
        );
        self.record(
            pod,
            name,
            EventSpec::normal("Started", format!("Started container {name}")),
        );
    }

    /// Debug containers (`kubectl debug`) added to a running pod start at once, as the
    /// kubelet starts them: Pulled/Created/Started, then a running status of their own.
    fn start_ephemeral_containers(&mut self, pod: &Value) {
        let reported: Vec<&str> = pod["status"]["ephemeralContainerStatuses"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["name"].as_str())
            .collect();
        let added: Vec<(String, String)> = pod["spec"]["ephemeralContainers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| {
                Some((
                    c["name"].as_str()?.to_string(),
                    c["image"].as_str()?.to_string(),
                ))
            })
            .filter(|(name, _)| !reported.contains(&name.as_str()))
            .collect();
        if added.is_empty() {
            return;
        }
        let started_at = now();
        let mut statuses: Vec<Value> = pod["status"]["ephemeralContainerStatuses"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for (name, image) in added {
            let tagged = image_with_tag(&image);
            self.pulled.insert(image.clone());
            self.record(
                pod,
                &name,
                EventSpec::normal(
                    "Pulled",
                    format!("Container image \"{tagged}\" already present on machine"),
                ),
            );
            self.record_started(pod, &name);
            statuses.push(json!({
                "name": name, "image": full_image(&image), "imageID": image_id(&image),
                "containerID": container_id(pod, &name, 0), "ready": false, "restartCount": 0,
                "state": {"running": {"startedAt": started_at}}, "lastState": {},
            }));
        }
        let _ = self.ctx.registry.update_with(
            &self.ctx.def("", "pods"),
            namespace_of(pod),
            name_of(pod),
            &writer(MANAGER, "status"),
            |current| {
                current["status"]["ephemeralContainerStatuses"] = Value::Array(statuses.clone());
                Ok(())
            },
        );
    }

    /// A pod seen for the first time: start it, or adopt it after a restart of the simulation.
    pub(super) fn admit(&mut self, pod: &Value) {
        let uid = uid_of(pod).to_string();
        let status = &pod["status"];
        let mut rt = Runtime {
            stage: Stage::Pulling,
            due: None,
            pod_ip: status["podIP"]
                .as_str()
                .map(String::from)
                .unwrap_or_default(),
            start_time: status["startTime"]
                .as_str()
                .map(String::from)
                .unwrap_or_else(now),
            started_at: now(),
            restarts: status["containerStatuses"][0]["restartCount"]
                .as_i64()
                .unwrap_or(0),
            last_terminated: None,
            failed_pulls: 0,
            next_probe: None,
        };
        if is_deleting(pod) {
            // Nothing runs for it here: finish the deletion right away.
            self.finish_termination(pod);
            return;
        }
        if is_pod_terminal(pod) {
            rt.stage = Stage::Completed;
            self.pods.insert(uid, rt);
            return;
        }
        if status["phase"] == "Running" && !rt.pod_ip.is_empty() {
            rt.stage = Stage::Running;
            rt.due = self.exit_timer(pod);
            rt.next_probe = self.first_probe(pod, &rt);
            self.pods.insert(uid, rt);
            return;
        }
        rt.pod_ip = self.allocate_ip();
        self.write_status(pod, &rt, "Pending", |_| Shown::Creating);
        let mut slowest = 0.2f64;
        for (name, image) in containers(pod) {
            if self.pulled.contains(&image) && pod_pull_policy(pod, &name) != "Always" {
                continue;
            }
            self.record_pulling(pod, &name, &image);
            slowest = slowest.max(pull_seconds(&uid, &image));
        }
        rt.due = Some(Instant::now() + self.ctx.scaled(slowest));
        self.pods.insert(uid, rt);
    }

    /// When the running containers exit on their own, if ever.
    pub(super) fn exit_timer(&self, pod: &Value) -> Option<Instant> {
        let seconds = if has_crashing_container(pod) {
            CRASH_AFTER_SECONDS
        } else if !restarts_always(pod) {
            run_seconds(pod)
        } else {
            return None;
        };
        Some(Instant::now() + self.ctx.scaled(seconds))
    }

    /// Pulled (first start only) / Created / Started, then phase Running.
    pub(super) fn start_containers(&mut self, pod: &Value, rt: &mut Runtime, first: bool) {
        let uid = uid_of(pod).to_string();
        for (name, image) in containers(pod) {
            let restarting = !first && !is_crashing_image(&image);
            if restarting {
                continue;
            }
            let tagged = image_with_tag(&image);
            let message = if first && !self.pulled.contains(&image) {
                let seconds = pull_seconds(&uid, &image);
                let size = 10_000_000 + spread(&image, 190_000_000);
                format!("Successfully pulled image \"{tagged}\" in {seconds:.3}s ({seconds:.3}s including waiting). Image size: {size} bytes.")
            } else {
                format!("Container image \"{tagged}\" already present on machine")
            };
            self.pulled.insert(image.clone());
            self.record(pod, &name, EventSpec::normal("Pulled", message));
            self.record_started(pod, &name);
        }
        rt.stage = Stage::Running;
        rt.started_at = now();
        rt.due = self.exit_timer(pod);
        rt.next_probe = self.first_probe(pod, rt);
        self.write_status(pod, rt, "Running", |_| Shown::Running);
    }

    /// The timer of a running pod fired: crashing containers exit 1, finite pods complete.
    pub(super) fn containers_exited(&mut self, pod: &Value, rt: &mut Runtime) {
        let finished_at = now();
        rt.next_probe = None;
        let crashing_name = containers(pod)
            .into_iter()
            .find(|(_, image)| is_crashing_image(image))
            .map(|(name, _)| name);
        if let Some(crashing_name) = crashing_name {
            rt.last_terminated = Some(json!({"terminated": {
                "exitCode": 1, "reason": "Error", "startedAt": rt.started_at, "finishedAt": finished_at,
                "containerID": container_id(pod, &crashing_name, rt.restarts)}}));
            if restarts_on_failure(pod) {
                rt.restarts += 1;
                rt.stage = Stage::BackOff;
                let delay = back_off_seconds(rt.restarts);
                rt.due = Some(Instant::now() + self.ctx.scaled(delay));
                for (name, image) in containers(pod) {
                    if is_crashing_image(&image) {
                        self.record(
                            pod,
                            &name,
                            EventSpec::warning(
                                "BackOff",
                                format!(
                                    "Back-off restarting failed container {name} in pod {}_{}({})",
                                    name_of(pod),
                                    namespace_of(pod),
                                    uid_of(pod)
                                ),
                            ),
                        );
                    }
                }
                self.write_status(pod, rt, "Running", |image| {
                    if is_crashing_image(image) {
                        Shown::CrashLoop
                    } else {
                        Shown::Running
                    }
                });
                return;
            }
            rt.stage = Stage::Completed;
            self.write_status(pod, rt, "Failed", |_| Shown::Exited);
            return;
        }
        rt.stage = Stage::Completed;
        self.write_status(pod, rt, "Succeeded", |_| Shown::Exited);
    }

    pub(super) fn start_termination(&mut self, pod: &Value, rt: &mut Runtime) {
        if matches!(rt.stage, Stage::Running | Stage::BackOff) {
            for (name, _) in containers(pod) {
                self.record(
                    pod,
                    &name,
                    EventSpec::normal("Killing", format!("Stopping container {name}")),
                );
            }
        }
        let grace = pod["metadata"]["deletionGracePeriodSeconds"]
            .as_i64()
            .unwrap_or(30) as f64;
        let stop = if rt.stage == Stage::Running {
            grace.min(MAX_STOP_SECONDS)
        } else {
            0.1
        };
        rt.stage = Stage::Terminating;
        rt.next_probe = None;
        rt.due = Some(Instant::now() + self.ctx.scaled(stop));
    }

    /// The final DELETE with grace 0 and a uid precondition, as the kubelet's status manager.
    pub(super) fn finish_termination(&self, pod: &Value) {
        let _ = self.ctx.registry.delete(
            &self.ctx.def("", "pods"),
            namespace_of(pod),
            name_of(pod),
            &DeleteOptions {
                grace_period_seconds: Some(0),
                precondition_uid: Some(uid_of(pod).to_string()),
                ..Default::default()
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_time_comes_from_sleep_in_the_command() {
        let pod = json!({"spec": {"containers": [{"command": ["sh", "-c", "echo hi; sleep 7"]}]}});
        assert_eq!(run_seconds(&pod), 7.0);
        assert_eq!(run_seconds(&json!({"spec": {}})), DEFAULT_RUN_SECONDS);
    }

    #[test]
    fn back_off_doubles_up_to_five_minutes() {
        assert_eq!(back_off_seconds(1), 10.0);
        assert_eq!(back_off_seconds(3), 40.0);
        assert_eq!(back_off_seconds(20), 300.0);
    }
}
