//! The cluster overview ("is my cluster fine?"), from the objects of live watches: nodes
//! (ready, not ready, pressure, cordoned), workloads by health (the worst of each workload
//! and everything it controls, by [`crate::diagnosis::controller_health`], the verdict
//! behind every workload's health word in the app), pods by phase and waiting reason, Warning Event
//! objects of the last hour by reason ([`histogram`]), what pods request of each node against
//! its allocatable (from pod specs, as the scheduler counts them: no metrics server), and
//! recent rollouts. Chart geometry is in [`chart`], so a view only draws.

pub mod chart;
pub mod histogram;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::diagnosis::{controller_health, Health, Subject, Verdict};
use crate::metrics::quantity::{cpu_millis, whole_units};
use crate::object::events::EventRecord;
use crate::object::pointer::Pointer;
use crate::time::age::{parse_timestamp, EpochMillis};

fn text<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.at(pointer).and_then(Value::as_str)
}

fn number(value: &Value, pointer: &str) -> Option<i64> {
    value.at(pointer).and_then(Value::as_i64)
}

fn array<'a>(value: &'a Value, pointer: &str) -> impl Iterator<Item = &'a Value> {
    value
        .at(pointer)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn condition<'a>(object: &'a Value, type_: &str) -> Option<&'a Value> {
    array(object, "/status/conditions").find(|c| text(c, "/type") == Some(type_))
}

fn name_of(object: &Value) -> String {
    text(object, "/metadata/name")
        .unwrap_or_default()
        .to_string()
}

fn namespace_of(object: &Value) -> Option<String> {
    text(object, "/metadata/namespace")
        .filter(|ns| !ns.is_empty())
        .map(str::to_string)
}

/// The node conditions that report trouble when True, in the order shown.
pub const PRESSURES: [&str; 4] = [
    "MemoryPressure",
    "DiskPressure",
    "PIDPressure",
    "NetworkUnavailable",
];

/// One node that is not fine, and why (`not ready`, `DiskPressure`, `cordoned`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTrouble {
    pub name: String,
    pub problems: Vec<String>,
}

/// The nodes in counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeSummary {
    pub total: usize,
    pub ready: usize,
    /// Ready False or Unknown, or no Ready condition yet.
    pub not_ready: usize,
    /// Each of [`PRESSURES`] with how many nodes report it True (zeros included).
    pub pressure: Vec<(&'static str, usize)>,
    /// `spec.unschedulable`.
    pub cordoned: usize,
    /// The nodes with any of the above, by name.
    pub troubled: Vec<NodeTrouble>,
}

pub fn node_summary<'a>(nodes: impl IntoIterator<Item = &'a Value>) -> NodeSummary {
    let mut summary = NodeSummary {
        pressure: PRESSURES.iter().map(|p| (*p, 0)).collect(),
        ..NodeSummary::default()
    };
    for node in nodes {
        summary.total += 1;
        let mut problems = Vec::new();
        let ready = condition(node, "Ready").and_then(|c| text(c, "/status"));
        if ready == Some("True") {
            summary.ready += 1;
        } else {
            summary.not_ready += 1;
            problems.push(match ready {
                Some("Unknown") => "not ready (its kubelet stopped posting status)".to_string(),
                None => "not ready (no status yet)".to_string(),
                _ => "not ready".to_string(),
            });
        }
        for (pressure, count) in &mut summary.pressure {
            if condition(node, pressure).and_then(|c| text(c, "/status")) == Some("True") {
                *count += 1;
                problems.push((*pressure).to_string());
            }
        }
        if node.at("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
            summary.cordoned += 1;
            problems.push("cordoned".to_string());
        }
        if !problems.is_empty() {
            summary.troubled.push(NodeTrouble {
                name: name_of(node),
                problems,
            });
        }
    }
    crate::list::stable_sort::sort_by(&mut summary.troubled, |a, b| a.name.cmp(&b.name));
    summary
}

/// Pod phases in the order shown.
pub const PHASES: [&str; 5] = ["Pending", "Running", "Succeeded", "Failed", "Unknown"];

/// The pods in counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodSummary {
    pub total: usize,
    /// Each of [`PHASES`] with its count (zeros included); a phase not known to
    /// Kubernetes counts as Unknown.
    pub phases: Vec<(&'static str, usize)>,
    /// Pods with a container waiting for a reason (`CrashLoopBackOff`, `ImagePullBackOff`),
    /// most first; a pod counts once per reason.
    pub waiting: Vec<(String, usize)>,
}

/// Waiting reasons of a container on its way, not in trouble: not counted.
const ROUTINE_WAITS: [&str; 2] = ["ContainerCreating", "PodInitializing"];

pub fn pod_summary<'a>(pods: impl IntoIterator<Item = &'a Value>) -> PodSummary {
    let mut phases = [0usize; PHASES.len()];
    let mut waiting: BTreeMap<String, usize> = BTreeMap::new();
    let mut total = 0;
    for pod in pods {
        total += 1;
        let phase = text(pod, "/status/phase").unwrap_or("Pending");
        let index = PHASES
            .iter()
            .position(|p| *p == phase)
            .unwrap_or(PHASES.len() - 1);
        phases[index] += 1;
        let mut reasons: Vec<&str> = ["/status/initContainerStatuses", "/status/containerStatuses"]
            .into_iter()
            .flat_map(|p| array(pod, p))
            .filter_map(|status| text(status, "/state/waiting/reason"))
            .filter(|reason| !reason.is_empty() && !ROUTINE_WAITS.contains(reason))
            .collect();
        crate::list::stable_sort::sort(&mut reasons);
        reasons.dedup();
        for reason in reasons {
            *waiting.entry(reason.to_string()).or_default() += 1;
        }
    }
    let mut waiting: Vec<(String, usize)> = waiting.into_iter().collect();
    crate::list::stable_sort::sort_by(&mut waiting, |a, b| {
        b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0))
    });
    PodSummary {
        total,
        phases: PHASES.iter().copied().zip(phases).collect(),
        waiting,
    }
}

/// The workload kinds summarised, in the order shown.
pub const WORKLOAD_KINDS: [&str; 4] = ["Deployment", "StatefulSet", "DaemonSet", "Job"];

/// One workload that is not fine: its worst finding (its own, or of a pod it controls).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnhealthyWorkload {
    pub workload: Subject,
    pub health: Health,
    /// The object the finding is about (the workload, or one of its pods) and what it says:
    /// `Pod troubled/billing-7d9 container billing cannot pull its image …`.
    pub about: Subject,
    pub sentence: String,
}

/// Workloads by health.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkloadSummary {
    /// Each of [`WORKLOAD_KINDS`] with its workloads counted by health (kinds without any
    /// left out).
    pub kinds: Vec<(&'static str, BTreeMap<Health, usize>)>,
    /// Warning or Failing ones, worst first, then by namespace and name.
    pub unhealthy: Vec<UnhealthyWorkload>,
}

impl WorkloadSummary {
    pub fn total(&self) -> usize {
        self.kinds.iter().flat_map(|(_, c)| c.values()).sum()
    }

    /// How many of every kind have `health`.
    pub fn count(&self, health: Health) -> usize {
        self.kinds.iter().filter_map(|(_, c)| c.get(&health)).sum()
    }

    /// Warning and Failing ones of `kind`.
    pub fn unhealthy_of(&self, kind: &str) -> usize {
        self.unhealthy
            .iter()
            .filter(|w| w.workload.kind == kind)
            .count()
    }
}

/// `workloads` (Deployments, StatefulSets, DaemonSets, Jobs) by health: the worst of the
/// workload's own findings and those of what it controls among `owned` (ReplicaSets, pods),
/// followed up ownerReferences, with the Event objects about any of them, at `now`; each
/// workload's verdict is [`controller_health`]'s, the health its own page and list show.
pub fn workload_summary<'a>(
    workloads: impl IntoIterator<Item = &'a Value>,
    owned: impl IntoIterator<Item = &'a Value>,
    events: &[EventRecord],
    now: EpochMillis,
) -> WorkloadSummary {
    let workloads: Vec<&Value> = workloads
        .into_iter()
        .filter(|w| text(w, "/kind").is_some_and(|k| WORKLOAD_KINDS.contains(&k)))
        .collect();
    let mut verdicts = controller_health(workloads.iter().copied(), owned, events, now);
    // Each workload once, with its verdict.
    let state: Vec<(Subject, Verdict)> = workloads
        .iter()
        .filter_map(|w| {
            let verdict = verdicts.remove(text(w, "/metadata/uid")?)?;
            Some((Subject::of(w)?, verdict))
        })
        .collect();
    let mut kinds: Vec<(&'static str, BTreeMap<Health, usize>)> = Vec::new();
    let mut unhealthy = Vec::new();
    for (workload, verdict) in state {
        let health = verdict.health;
        let Some(kind) = WORKLOAD_KINDS.iter().find(|k| **k == workload.kind) else {
            continue;
        };
        match kinds.iter_mut().find(|(k, _)| k == kind) {
            Some((_, counts)) => *counts.entry(health).or_default() += 1,
            None => kinds.push((kind, BTreeMap::from([(health, 1)]))),
        }
        if health.is_unhealthy() {
            unhealthy.push(UnhealthyWorkload {
                workload,
                health,
                about: verdict.about,
                sentence: verdict.sentence,
            });
        }
    }
    crate::list::stable_sort::sort_by_key(&mut kinds, |(k, _)| {
        WORKLOAD_KINDS.iter().position(|w| w == k)
    });
    crate::list::stable_sort::sort_by(&mut unhealthy, |a, b| {
        b.health
            .cmp(&a.health)
            .then_with(|| a.workload.namespace.cmp(&b.workload.namespace))
            .then_with(|| a.workload.name.cmp(&b.workload.name))
            .then_with(|| a.workload.kind.cmp(&b.workload.kind))
    });
    WorkloadSummary { kinds, unhealthy }
}

/// What a pod asks of its node, as the scheduler counts it: the larger of its app
/// containers' sum and its init containers' peak (sidecars, init containers with
/// `restartPolicy: Always`, run beside both), plus `spec.overhead`. Missing requests are 0.
pub fn pod_requests(pod: &Value) -> (i64, i64) {
    let request = |container: &Value, resource: &str| -> i64 {
        let quantity = container
            .at(&format!("/resources/requests/{resource}"))
            .and_then(Value::as_str);
        match (resource, quantity) {
            ("cpu", Some(q)) => cpu_millis(q).unwrap_or(0),
            (_, Some(q)) => whole_units(q).unwrap_or(0),
            _ => 0,
        }
    };
    let one = |resource: &str| -> i64 {
        let apps: i64 = array(pod, "/spec/containers")
            .map(|c| request(c, resource))
            .sum();
        let mut sidecars = 0;
        let mut init_peak = 0;
        for init in array(pod, "/spec/initContainers") {
            let asks = request(init, resource);
            if text(init, "/restartPolicy") == Some("Always") {
                sidecars += asks;
                init_peak = init_peak.max(sidecars);
            } else {
                init_peak = init_peak.max(sidecars + asks);
            }
        }
        let overhead = pod
            .at(&format!("/spec/overhead/{resource}"))
            .and_then(Value::as_str)
            .and_then(|q| {
                if resource == "cpu" {
                    cpu_millis(q)
                } else {
                    whole_units(q)
                }
            })
            .unwrap_or(0);
        (apps + sidecars).max(init_peak) + overhead
    };
    (one("cpu"), one("memory"))
}

/// One node's requests against what it can give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRequests {
    pub node: String,
    pub cpu_requested_millis: i64,
    /// None when the node reports no allocatable CPU yet.
    pub cpu_allocatable_millis: Option<i64>,
    pub memory_requested_bytes: i64,
    pub memory_allocatable_bytes: Option<i64>,
    /// Pods counted (bound to the node, not Succeeded nor Failed).
    pub pods: usize,
    pub pods_allocatable: Option<i64>,
}

/// Per node (by name), the requests of the pods bound to it that still hold their
/// resources (not Succeeded nor Failed) against `status.allocatable`.
pub fn node_requests<'a>(
    nodes: impl IntoIterator<Item = &'a Value>,
    pods: impl IntoIterator<Item = &'a Value>,
) -> Vec<NodeRequests> {
    let mut by_node: BTreeMap<String, NodeRequests> = nodes
        .into_iter()
        .map(|node| {
            let name = name_of(node);
            let allocatable = |r: &str| text(node, &format!("/status/allocatable/{r}"));
            (
                name.clone(),
                NodeRequests {
                    node: name,
                    cpu_requested_millis: 0,
                    cpu_allocatable_millis: allocatable("cpu").and_then(cpu_millis),
                    memory_requested_bytes: 0,
                    memory_allocatable_bytes: allocatable("memory").and_then(whole_units),
                    pods: 0,
                    pods_allocatable: allocatable("pods").and_then(whole_units),
                },
            )
        })
        .collect();
    for pod in pods {
        if matches!(
            text(pod, "/status/phase"),
            Some("Succeeded") | Some("Failed")
        ) {
            continue;
        }
        let Some(entry) = text(pod, "/spec/nodeName").and_then(|n| by_node.get_mut(n)) else {
            continue;
        };
        let (cpu, memory) = pod_requests(pod);
        entry.cpu_requested_millis += cpu;
        entry.memory_requested_bytes += memory;
        entry.pods += 1;
    }
    by_node.into_values().collect()
}

/// A Deployment whose rollout moved recently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollout {
    pub namespace: Option<String>,
    pub name: String,
    /// `deployment.kubernetes.io/revision`.
    pub revision: Option<String>,
    /// The Progressing condition's reason (`NewReplicaSetAvailable`, `ReplicaSetUpdated`,
    /// `ProgressDeadlineExceeded`) and its message.
    pub reason: String,
    pub message: String,
    /// The Progressing condition's lastUpdateTime.
    pub updated_ms: EpochMillis,
    pub ready: i64,
    pub updated: i64,
    pub desired: i64,
    /// Whether it finished, goes on, or is stuck.
    pub state: RolloutState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RolloutState {
    Complete,
    InProgress,
    Stuck,
}

impl RolloutState {
    pub fn label(self) -> &'static str {
        match self {
            RolloutState::Complete => "complete",
            RolloutState::InProgress => "in progress",
            RolloutState::Stuck => "stuck",
        }
    }
}

/// How far back a rollout counts as recent.
pub const RECENT_ROLLOUT_MS: EpochMillis = 24 * 3_600_000;

/// Deployments whose Progressing condition changed within [`RECENT_ROLLOUT_MS`] of `now`,
/// newest first, at most `limit`.
pub fn recent_rollouts<'a>(
    deployments: impl IntoIterator<Item = &'a Value>,
    now: EpochMillis,
    limit: usize,
) -> Vec<Rollout> {
    let mut rollouts: Vec<Rollout> = deployments
        .into_iter()
        .filter(|d| text(d, "/kind").is_none_or(|k| k == "Deployment"))
        .filter_map(|deployment| {
            let progressing = condition(deployment, "Progressing")?;
            let updated_ms = text(progressing, "/lastUpdateTime")
                .or_else(|| text(progressing, "/lastTransitionTime"))
                .and_then(parse_timestamp)?;
            if now - updated_ms > RECENT_ROLLOUT_MS {
                return None;
            }
            let reason = text(progressing, "/reason").unwrap_or_default().to_string();
            let desired = number(deployment, "/spec/replicas").unwrap_or(1);
            let ready = number(deployment, "/status/readyReplicas").unwrap_or(0);
            let updated = number(deployment, "/status/updatedReplicas").unwrap_or(0);
            let state = if text(progressing, "/status") == Some("False") {
                RolloutState::Stuck
            } else if reason == "NewReplicaSetAvailable" && ready >= desired {
                RolloutState::Complete
            } else {
                RolloutState::InProgress
            };
            Some(Rollout {
                namespace: namespace_of(deployment),
                name: name_of(deployment),
                revision: text(
                    deployment,
                    "/metadata/annotations/deployment.kubernetes.io~1revision",
                )
                .map(str::to_string),
                reason,
                message: text(progressing, "/message")
                    .unwrap_or_default()
                    .to_string(),
                updated_ms,
                ready,
                updated,
                desired,
                state,
            })
        })
        .collect();
    crate::list::stable_sort::sort_by(&mut rollouts, |a, b| {
        b.updated_ms
            .cmp(&a.updated_ms)
            .then_with(|| a.namespace.cmp(&b.namespace))
            .then_with(|| a.name.cmp(&b.name))
    });
    rollouts.truncate(limit);
    rollouts
}

#[cfg(test)]
mod tests;
