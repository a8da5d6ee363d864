//! Which streams a workload's logs view keeps open as its pods come and go. The view gives
//! [`Membership::apply`] the covered pods after each watch event and applies the answer:
//! streams to close, to open, and that ended. A rollout is old pods ending and new ones
//! joining.
//!
//! At most `max_pods` pods are streamed. The pods there when the view opens are read from the
//! "since" choice; a pod that joins later, and a container's new run, from its start. A
//! streamed pod keeps its place while it exists (no stream is dropped for a newer pod); a free
//! place goes to the newest pod not streamed (latest `status.startTime`, else creation, then
//! by name), since the newest are those serving now. The others are listed as offered.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value;

pub use crate::object::workload_logs::change::{
    MembershipChange, MembershipOptions, OpenStream, DEFAULT_MAX_PODS, MAX_GONE_STREAMS_KEPT,
};

use crate::api::errors::ApiError;
use crate::object::pod_logs::ContainerKind;
use crate::object::workload_logs::status::{EndReason, StreamStatus};
use crate::object::workload_logs::streams::{
    pod_path, stream_request, streamed_containers, StreamKey,
};
use crate::object::workload_logs::tracked::{Step, Tracked};
use crate::time::age::parse_timestamp;

#[derive(Debug, Clone)]
struct PodSlot {
    uid: Option<String>,
    several_containers: bool,
}

/// The streams of one workload's logs view.
#[derive(Debug, Clone, Default)]
pub struct Membership {
    options: MembershipOptions,
    applied: bool,
    /// Pods (by uid, else name) there when the view opened: read from the "since" choice.
    present_at_open: BTreeSet<String>,
    slots: BTreeMap<String, PodSlot>,
    streams: BTreeMap<StreamKey, Tracked>,
    /// Streams of pods that went away, oldest first.
    gone: VecDeque<StreamKey>,
    offered: Vec<String>,
    covered: usize,
}

impl Membership {
    pub fn new(options: MembershipOptions) -> Membership {
        let max_pods = options.max_pods.max(1);
        Membership {
            options: MembershipOptions {
                max_pods,
                ..options
            },
            ..Membership::default()
        }
    }

    pub fn options(&self) -> MembershipOptions {
        self.options
    }

    /// Takes the pods the workload covers now (a watch snapshot) and says what changes.
    pub fn apply<'a>(&mut self, pods: impl IntoIterator<Item = &'a Value>) -> MembershipChange {
        let present: BTreeMap<&str, &Value> = pods
            .into_iter()
            .filter_map(|pod| Some((pod["metadata"]["name"].as_str()?, pod)))
            .filter(|(name, _)| !name.is_empty())
            .collect();
        let identities: BTreeSet<String> = present.iter().map(|(n, p)| identity(n, p)).collect();
        if self.applied {
            self.present_at_open.retain(|id| identities.contains(id));
        } else {
            self.applied = true;
            self.present_at_open = identities;
        }
        let mut change = MembershipChange::default();
        self.end_gone_pods(&present, &mut change);
        self.give_free_places(&present);
        self.covered = present.len();
        let streamed: Vec<String> = self.slots.keys().cloned().collect();
        for name in streamed {
            if let Some(pod) = present.get(name.as_str()) {
                self.follow_containers(&name, pod, &mut change);
            }
        }
        change
    }

    /// Streamed pods that went away, or came back as a new pod of the same name, end.
    fn end_gone_pods(&mut self, present: &BTreeMap<&str, &Value>, change: &mut MembershipChange) {
        let gone: Vec<String> = self
            .slots
            .iter()
            .filter(|(name, slot)| {
                let pod = present.get(name.as_str());
                pod.is_none_or(|pod| uid(pod) != slot.uid)
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in gone {
            self.slots.remove(&name);
            self.end_pod(&name, change);
        }
    }

    /// Free places go to the newest pods not streamed; the others are offered.
    fn give_free_places(&mut self, present: &BTreeMap<&str, &Value>) {
        let mut waiting: Vec<(&str, &Value)> = present
            .iter()
            .filter(|(name, _)| !self.slots.contains_key(**name))
            .map(|(name, pod)| (*name, *pod))
            .collect();
        waiting.sort_by(|a, b| start_millis(b.1).cmp(&start_millis(a.1)).then(a.0.cmp(b.0)));
        let free = self.options.max_pods.saturating_sub(self.slots.len());
        for (name, pod) in waiting.iter().take(free) {
            // A name seen before is a new pod now: its old streams' statuses go.
            self.streams.retain(|key, _| key.pod != *name);
            self.gone.retain(|key| key.pod != *name);
            let regular = streamed_containers(pod)
                .iter()
                .filter(|c| c.kind == ContainerKind::Regular)
                .count();
            let slot = PodSlot {
                uid: uid(pod),
                several_containers: regular > 1,
            };
            self.slots.insert(name.to_string(), slot);
        }
        self.offered = waiting
            .iter()
            .skip(free)
            .map(|(name, _)| name.to_string())
            .collect();
    }

    fn follow_containers(&mut self, name: &str, pod: &Value, change: &mut MembershipChange) {
        let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
        let path = pod_path(namespace, name);
        let from_open = self.present_at_open.contains(&identity(name, pod));
        let pod_start = pod["status"]["startTime"].as_str();
        for container in streamed_containers(pod) {
            let key = StreamKey::new(name, &container.name);
            let tracked = self.streams.entry(key.clone()).or_insert_with(Tracked::new);
            match tracked.step(container.run, from_open, self.options.since, pod_start) {
                Step::Open { start, close_first } => {
                    if close_first {
                        change.close.push(key.clone());
                    }
                    let request = stream_request(&path, &key.container, &start);
                    change.open.push(OpenStream {
                        key,
                        start,
                        request,
                    });
                }
                Step::Ended => change.ended.push(key),
                Step::Nothing => {}
            }
        }
    }

    /// A gone pod's open streams close and end; ended ones keep their reason; the rest go.
    fn end_pod(&mut self, name: &str, change: &mut MembershipChange) {
        let keys: Vec<StreamKey> = self
            .streams
            .keys()
            .filter(|key| key.pod == name)
            .cloned()
            .collect();
        for key in keys {
            let Some(tracked) = self.streams.get_mut(&key) else {
                continue;
            };
            match tracked.status {
                StreamStatus::Joined => {
                    tracked.status = StreamStatus::Ended(EndReason::PodGone);
                    change.close.push(key.clone());
                    change.ended.push(key.clone());
                }
                StreamStatus::Ended(_) => {}
                _ => {
                    self.streams.remove(&key);
                    continue;
                }
            }
            self.gone.push_back(key);
        }
        while self.gone.len() > MAX_GONE_STREAMS_KEPT {
            if let Some(oldest) = self.gone.pop_front() {
                self.streams.remove(&oldest);
            }
        }
    }

    /// The stream of `key` ended by itself (the response finished).
    pub fn stream_finished(&mut self, key: &StreamKey) {
        if let Some(tracked) = self.streams.get_mut(key) {
            tracked.finished();
        }
    }

    /// The request of `key` failed; a cancelled one changes nothing.
    pub fn stream_failed(&mut self, key: &StreamKey, error: &ApiError) {
        let status = StreamStatus::from_error(error);
        if let (Some(tracked), Some(status)) = (self.streams.get_mut(key), status) {
            tracked.status = status;
        }
    }

    pub fn status(&self, key: &StreamKey) -> Option<&StreamStatus> {
        self.streams.get(key).map(|tracked| &tracked.status)
    }

    /// Every stream known (of streamed pods, and of gone ones kept), by pod then container.
    pub fn streams(&self) -> impl Iterator<Item = (&StreamKey, &StreamStatus)> {
        self.streams
            .iter()
            .map(|(key, tracked)| (key, &tracked.status))
    }

    /// The pods streamed, by name.
    pub fn streamed_pods(&self) -> impl Iterator<Item = &str> {
        self.slots.keys().map(String::as_str)
    }

    /// Covered pods not streamed (past `max_pods`), newest first.
    pub fn offered(&self) -> &[String] {
        &self.offered
    }

    /// Whether `pod` runs more than one regular container (its tags then name the container).
    pub fn several_containers(&self, pod: &str) -> bool {
        self.slots
            .get(pod)
            .is_some_and(|slot| slot.several_containers)
    }

    /// "Streaming 3 pods", or "Streaming 20 of 35 pods; 15 not streamed".
    pub fn summary(&self) -> String {
        let plural = |n: usize| if n == 1 { "pod" } else { "pods" };
        match (self.covered, self.offered.len()) {
            (0, _) => "No pods yet".to_string(),
            (covered, 0) => format!("Streaming {covered} {}", plural(covered)),
            (covered, offered) => format!(
                "Streaming {} of {covered} pods; {offered} not streamed",
                self.slots.len()
            ),
        }
    }
}

fn uid(pod: &Value) -> Option<String> {
    pod["metadata"]["uid"].as_str().map(str::to_string)
}

fn identity(name: &str, pod: &Value) -> String {
    uid(pod).unwrap_or_else(|| name.to_string())
}

fn start_millis(pod: &Value) -> Option<i64> {
    [
        &pod["status"]["startTime"],
        &pod["metadata"]["creationTimestamp"],
    ]
    .into_iter()
    .find_map(|time| time.as_str().and_then(parse_timestamp))
}
