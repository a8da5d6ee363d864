//! Controller activity: every write along an owner's chain (a Deployment, its ReplicaSets,
//! their Pods; a CronJob, its Jobs, their Pods; any owner), in time order, on one lane per
//! actor, with the Event objects the actors reported interleaved and linked to the write
//! that caused them.
//!
//! A real cluster records three things, and lanes are inferred from them only:
//! - `managedFields` names the writing binary, not the controller:
//!   `kube-controller-manager` writes ReplicaSets for the deployment controller and Pods for
//!   the replicaset controller;
//! - a binding (the scheduler's) adds no managedFields entry, only `spec.nodeName`;
//! - Event objects name the component that reported them (`reportingComponent`,
//!   `source.component`), and usually the object concerned.
//!
//! So: a kubelet's status write goes on the lane of that kubelet (node from the pod's
//! `spec.nodeName`); a binding on the lane of the component that reported the pod
//! `Scheduled`; a create, delete or spec write on the lane of the component whose Event
//! about the object's controller names the object ("Created pod: web-1"); a status write on
//! the lane of the component reporting Events about the object itself. Without such an
//! Event, the lane is the field manager; with no manager either, "not recorded". Each lane
//! says how it was inferred. Nothing else is guessed.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use super::attribution::Evidence;
use super::past::{past_entries, ActorSource, Loaded, PastEntry, PastKind};
use super::timeline::{HistoryStore, ObjectTimeline, Revision, RevisionKind};
use crate::object::events::{event_record, EventRecord};
use crate::object::meta::controller_uid;
use crate::object::pointer::Pointer;

/// An Event object as the page saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenEvent {
    pub record: Arc<EventRecord>,
    /// When the page last received it (browser clock, like revisions' `observed_ms`).
    pub observed_ms: f64,
}

/// The Event objects of a watch of Events, as seen since watching began: those only in the
/// first list predate the activity, and are left out.
pub fn seen_events(store: &HistoryStore) -> Vec<SeenEvent> {
    store
        .timelines()
        .filter(|t| t.revisions.iter().any(|r| r.kind != RevisionKind::Listed))
        .filter_map(|t| {
            Some(SeenEvent {
                record: t.event()?,
                observed_ms: t.revisions.back()?.observed_ms,
            })
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    pub id: String,
    pub label: String,
    /// How the lane's actor was inferred, in words.
    pub inferred_from: String,
}

/// A write on the chain.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteItem {
    pub uid: String,
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub seq: u64,
    pub resource_version: String,
    pub revision_kind: RevisionKind,
    pub status_write: bool,
    pub summary: String,
    /// The changes, one line each (at most [`MAX_CHANGE_LINES`]).
    pub changes: Vec<String>,
    /// The object's controller (a Pod's ReplicaSet), to group a rollout by.
    pub owner_uid: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EventItem {
    pub uid: String,
    pub reason: String,
    pub warning: bool,
    pub message: String,
    pub count: u32,
    pub regarding: String,
    /// The write this Event is about: (object uid, revision seq; seqs count per watch).
    pub linked_write: Option<(String, u64)>,
    /// Listed when watching began (it happened before the page opened): placed at its own
    /// time, not when it was received.
    pub listed: bool,
}

/// An entry of a chain member's past before watching began, reconstructed
/// ([`crate::history::past`]): its creation, binding, revisions, each manager's last write.
#[derive(Debug, Clone, PartialEq)]
pub struct PastItem {
    pub uid: String,
    /// `ReplicaSet web-7d4b9c`.
    pub object: String,
    /// [`PastKind`]'s variant (`Created`, `RolloutRevision`, ...).
    pub kind: &'static str,
    pub summary: String,
    /// Who did it, or "unknown".
    pub actor: String,
    pub evidence: Vec<String>,
    pub unknown: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ItemDetail {
    /// Shared with [`ActivityCache`]: a write reads the same on every recompute.
    Write(Arc<WriteItem>),
    Event(EventItem),
    /// Reconstructed from what the cluster keeps, from before watching began.
    Past(Arc<PastItem>),
}

/// What recomputing the activity can keep from the last time: each write's item (its
/// summary and change lines take most of the work), by (uid, revision seq). Only the lane is
/// inferred again, since an Event arriving later can name the actor.
#[derive(Debug, Default)]
pub struct ActivityCache {
    /// By object uid, in revision order.
    writes: HashMap<String, Vec<CachedWrite>>,
    /// Each object's version as listed when watching began (parsed once).
    listed: HashMap<String, Option<Arc<Value>>>,
    /// Each listed Event object, read once.
    listed_events: HashMap<String, Option<Arc<EventRecord>>>,
    /// Each listed chain member's reconstructed items, by (uid, listed Events counted):
    /// the listed versions never change, the Events they are read with may still arrive.
    past: HashMap<(String, usize), Arc<Vec<PastPlaced>>>,
    /// Every lane inference a write holds, once: a rollout's hundreds of writes share a few.
    lanes_inferred: SharedInferences,
    /// Which listed Event objects are shown (indexes), for (the chain's members, how many
    /// Events were listed): finding those that name what the chain's Events name compares
    /// every listed Event with every one about the chain.
    listed_shown: Option<(u64, usize, Arc<Vec<usize>>)>,
}

/// Interned lane inferences. Their kinds are few (an actor and how it was found: one per
/// node, manager and reporting component), so the set stays small; it starts again past
/// [`SharedInferences::MAX`] all the same.
#[derive(Debug, Default)]
struct SharedInferences(HashSet<Arc<Inference>>);

impl SharedInferences {
    const MAX: usize = 4096;

    fn shared(&mut self, inference: Inference) -> Arc<Inference> {
        if let Some(shared) = self.0.get(&inference) {
            return Arc::clone(shared);
        }
        if self.0.len() >= Self::MAX {
            self.0.clear();
        }
        let shared = Arc::new(inference);
        self.0.insert(Arc::clone(&shared));
        shared
    }
}

/// A write's item and its lane as last inferred, with the Event objects the inference
/// looked among: it holds while they are the same.
#[derive(Debug)]
struct CachedWrite {
    item: Arc<WriteItem>,
    lane: Arc<Inference>,
    looked_among: EventsLookedAmong,
}

/// What a write's lane inference reads of the Event objects: those about the object and
/// those about its controller, each as (how many, the sum of when each was seen). An Event
/// added, updated (seen again) or gone changes it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct EventsLookedAmong {
    about_object: (usize, f64),
    about_controller: (usize, f64),
}

impl EventsLookedAmong {
    fn of(events: &EventsAbout, uid: &str, controller: Option<&str>) -> EventsLookedAmong {
        let summary = |uid: Option<&str>| {
            uid.and_then(|uid| events.get(uid))
                .map_or((0, 0.0), |about| {
                    (about.len(), about.iter().map(|e| e.observed_ms).sum())
                })
        };
        EventsLookedAmong {
            about_object: summary(Some(uid)),
            about_controller: summary(controller),
        }
    }
}

/// A reconstructed item with its time and lane.
#[derive(Debug)]
struct PastPlaced {
    at_ms: f64,
    lane: Inference,
    item: Arc<PastItem>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ActivityItem {
    pub at_ms: f64,
    pub lane: usize,
    pub detail: ItemDetail,
}

impl ActivityItem {
    /// Items that read as one when they follow each other on a lane: the same action by the
    /// same actor on siblings (e.g. "created Pod" ×20 for one ReplicaSet).
    fn group_key(&self) -> String {
        match &self.detail {
            ItemDetail::Write(w) => format!(
                "w|{}|{}|{:?}|{}|{}",
                self.lane,
                w.kind,
                w.revision_kind,
                w.status_write,
                w.owner_uid.as_deref().unwrap_or(&w.uid)
            ),
            ItemDetail::Event(e) => format!("e|{}|{}|{}", self.lane, e.reason, e.listed),
            // A revision is its own row: grouped, its diff from the one before would hide.
            ItemDetail::Past(p) if p.kind == "RolloutRevision" => {
                format!("p|{}|{}|{}|{}", self.lane, p.kind, p.uid, p.summary)
            }
            ItemDetail::Past(p) => format!("p|{}|{}|{}", self.lane, p.kind, kind_of(&p.object)),
        }
    }
}

/// Consecutive items with the same action on one lane; `items` index into
/// [`Activity::items`].
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityRow {
    pub items: Vec<usize>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Activity {
    pub lanes: Vec<Lane>,
    /// Oldest first.
    pub items: Vec<ActivityItem>,
    /// Objects on the chain (the owner included).
    pub chain: Vec<String>,
}

/// A write on an object (or on something it owns): when, which (uid, seq), on which lane.
type WriteOnObject<'a> = (f64, &'a str, u64, usize);

/// Change lines kept per write.
pub const MAX_CHANGE_LINES: usize = 12;

fn owner_uids(object: &Value) -> Vec<&str> {
    object
        .at("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("uid").and_then(Value::as_str))
        .collect()
}

/// The owner and everything that (transitively) names it as an owner.
fn chain_of<'a>(
    root: &str,
    timelines: &[&'a ObjectTimeline],
) -> HashMap<String, &'a ObjectTimeline> {
    let mut chain: HashMap<String, &ObjectTimeline> = HashMap::new();
    let mut members: HashSet<String> = HashSet::from([root.to_string()]);
    loop {
        let before = members.len();
        for timeline in timelines {
            let uid = &timeline.identity.uid;
            let owned = owner_uids(&timeline.latest)
                .iter()
                .any(|owner| members.contains(*owner));
            if uid == root || owned {
                members.insert(uid.clone());
                chain.insert(uid.clone(), timeline);
            }
        }
        if members.len() == before {
            return chain;
        }
    }
}

#[derive(Default)]
struct Lanes {
    lanes: Vec<Lane>,
    index: HashMap<String, usize>,
}

impl Lanes {
    /// The lane of `inference`'s actor, added (at the end) when new.
    fn lane(&mut self, inference: &Inference) -> usize {
        if let Some(index) = self.index.get(&inference.id) {
            return *index;
        }
        self.lanes.push(Lane {
            id: inference.id.clone(),
            label: inference.label.clone(),
            inferred_from: inference.how.clone(),
        });
        self.index
            .insert(inference.id.clone(), self.lanes.len() - 1);
        self.lanes.len() - 1
    }
}

/// The lane of an Event's reporter.
fn event_lane_id(event: &EventRecord) -> (String, String) {
    if event.reporting_component == "kubelet" && !event.reporting_instance.is_empty() {
        (
            format!("kubelet:{}", event.reporting_instance),
            format!("kubelet on {}", event.reporting_instance),
        )
    } else if event.reporting_component.is_empty() {
        ("unnamed".into(), "Events with no component".into())
    } else {
        (
            format!("component:{}", event.reporting_component),
            event.reporting_component.clone(),
        )
    }
}

/// The lane of the component that reported an Event object.
fn reporter_inference(event: &EventRecord) -> Inference {
    let (id, label) = event_lane_id(event);
    Inference {
        id,
        label,
        how: format!(
            "Event objects reported by {}",
            if event.reporting_component.is_empty() {
                "no component"
            } else {
                &event.reporting_component
            }
        ),
    }
}

/// Of `events` (oldest first), the one nearest in time to `at_ms` that passes `wanted` (on
/// a tie, the earlier). Looks outward from `at_ms`, nearest first, so it usually stops after
/// a few: a rollout's hundreds of writes each look among hundreds of Events about their
/// owner.
fn nearest<'a>(
    events: &[&'a SeenEvent],
    at_ms: f64,
    wanted: impl Fn(&SeenEvent) -> bool,
) -> Option<&'a SeenEvent> {
    let split = events.partition_point(|e| e.observed_ms < at_ms);
    let (mut before, mut after) = (split, split);
    loop {
        let earlier = before.checked_sub(1).map(|i| events[i]);
        let later = events.get(after).copied();
        let take_earlier = match (earlier, later) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(e), Some(l)) => at_ms - e.observed_ms <= l.observed_ms - at_ms,
        };
        let candidate = if take_earlier {
            before -= 1;
            events[before]
        } else {
            after += 1;
            events[after - 1]
        };
        if wanted(candidate) {
            return Some(candidate);
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Inference {
    id: String,
    label: String,
    how: String,
}

/// Event objects by the uid of the object they concern, oldest first.
type EventsAbout<'a> = HashMap<&'a str, Vec<&'a SeenEvent>>;

fn events_about(events: &[SeenEvent]) -> EventsAbout<'_> {
    let mut about: EventsAbout = HashMap::new();
    for event in events {
        if let Some(uid) = event.record.regarding.uid.as_deref() {
            about.entry(uid).or_default().push(event);
        }
    }
    for list in about.values_mut() {
        crate::list::stable_sort::sort_by(list, |a, b| a.observed_ms.total_cmp(&b.observed_ms));
    }
    about
}

/// `controller`: the object's controller's uid (read once per object by the caller).
fn infer_lane(
    timeline: &ObjectTimeline,
    revision: &Revision,
    controller: Option<&str>,
    events: &EventsAbout,
) -> Inference {
    // A pod's node and an object's controller do not change over its life, so the newest
    // version answers for every revision (no revision is parsed again).
    let object = &timeline.latest;
    let uid = timeline.identity.uid.as_str();
    let name = timeline.identity.name.as_str();
    let about = |target: &str| events.get(target).map(Vec::as_slice).unwrap_or_default();
    if revision.writers.iter().any(|w| w.manager == "kubelet") {
        let node = object
            .at("/spec/nodeName")
            .and_then(Value::as_str)
            .unwrap_or("an unknown node");
        return Inference {
            id: format!("kubelet:{node}"),
            label: format!("kubelet on {node}"),
            how: "managedFields manager kubelet; the node from the pod's spec.nodeName".into(),
        };
    }
    if revision
        .writers
        .iter()
        .any(|w| w.evidence == Evidence::Binding)
    {
        let scheduled = nearest(about(uid), revision.observed_ms, |e| {
            e.record.reason == "Scheduled"
        });
        return match scheduled {
            Some(e) => {
                let (id, label) = event_lane_id(&e.record);
                Inference {
                    id,
                    label,
                    how: format!(
                        "a binding (spec.nodeName set, no managedFields entry) and the Scheduled Event reported by {}",
                        e.record.reporting_component
                    ),
                }
            }
            None => Inference {
                id: "binding".into(),
                label: "binding (binder not recorded)".into(),
                how: "spec.nodeName set with no managedFields entry and no Scheduled Event seen"
                    .into(),
            },
        };
    }
    let status_write = revision.is_status_write();
    // Creates, deletes and spec writes: the component whose Event about the controller
    // names this object.
    if !status_write {
        if let Some(owner) = controller {
            let naming = nearest(about(owner), revision.observed_ms, |e| {
                !name.is_empty() && e.record.message.contains(name)
            });
            if let Some(e) = naming {
                let (id, label) = event_lane_id(&e.record);
                let manager = revision
                    .writers
                    .first()
                    .map(|w| format!("managedFields manager {}; ", w.manager))
                    .unwrap_or_default();
                return Inference {
                    id,
                    label,
                    how: format!(
                        "{manager}{} Event {} about the owner names this object",
                        e.record.reporting_component, e.record.reason
                    ),
                };
            }
        }
    }
    let manager = revision.writers.first().map(|w| w.manager.clone());
    // Status writes (and writes no owner Event explains): the component reporting about it.
    if let Some(manager) = manager.as_deref().filter(|m| !m.is_empty()) {
        let reporter = nearest(about(uid), revision.observed_ms, |e| {
            e.record.reporting_component != "kubelet" && !e.record.reporting_component.is_empty()
        });
        if let (true, Some(e)) = (manager == "kube-controller-manager", reporter) {
            let (id, label) = event_lane_id(&e.record);
            return Inference {
                id,
                label,
                how: format!(
                    "managedFields manager {manager}; {} reports Events about this object",
                    e.record.reporting_component
                ),
            };
        }
        return Inference {
            id: format!("manager:{manager}"),
            label: manager.to_string(),
            how: format!("managedFields manager {manager}"),
        };
    }
    match revision.kind {
        RevisionKind::Relisted | RevisionKind::GoneInRelist => Inference {
            id: "relist".into(),
            label: "seen in a relist".into(),
            how: "changes found by relisting after the watch broke; the writes were not seen"
                .into(),
        },
        _ => Inference {
            id: "unrecorded".into(),
            label: "not recorded".into(),
            how: "the API records no writer for this change (deletes record none)".into(),
        },
    }
}

fn summary(timeline: &ObjectTimeline, revision: &Revision) -> String {
    let who = format!("{} {}", timeline.identity.kind, timeline.identity.name);
    match revision.kind {
        RevisionKind::Added => format!("created {who}"),
        RevisionKind::Deleted => format!("deleted {who}"),
        RevisionKind::GoneInRelist => format!("{who} gone (relist)"),
        RevisionKind::Listed => format!("{who} as listed"),
        RevisionKind::Relisted | RevisionKind::Modified => {
            let first = revision
                .changes
                .first()
                .map(|c| c.describe())
                .unwrap_or_else(|| "no field changed".into());
            let more = revision.changes.len().saturating_sub(1);
            let place = if revision.is_status_write() {
                " status"
            } else {
                ""
            };
            if more > 0 {
                format!("{who}{place}: {first} (+{more} more)")
            } else {
                format!("{who}{place}: {first}")
            }
        }
    }
}

/// The activity of `root`'s chain from the timelines of the watched kinds and the Event
/// objects seen.
pub fn activity(root: &str, timelines: &[&ObjectTimeline], events: &[SeenEvent]) -> Activity {
    activity_cached(root, timelines, events, &mut ActivityCache::default())
}

/// [`activity`], reusing (and then keeping only) the write items `cache` holds.
pub fn activity_cached(
    root: &str,
    timelines: &[&ObjectTimeline],
    events: &[SeenEvent],
    cache: &mut ActivityCache,
) -> Activity {
    activity_with_past(root, timelines, events, &[], cache)
}

/// The item of a write: what the row shows of it (made once per write).
fn write_item(
    timeline: &ObjectTimeline,
    revision: &Revision,
    controller: Option<&str>,
) -> WriteItem {
    WriteItem {
        uid: timeline.identity.uid.clone(),
        api_version: timeline.identity.api_version.clone(),
        kind: timeline.identity.kind.clone(),
        namespace: timeline.identity.namespace.clone(),
        name: timeline.identity.name.clone(),
        seq: revision.seq,
        resource_version: revision.resource_version.clone(),
        revision_kind: revision.kind,
        status_write: revision.is_status_write(),
        summary: summary(timeline, revision),
        changes: revision
            .changes
            .iter()
            .take(MAX_CHANGE_LINES)
            .map(|c| c.describe())
            .collect(),
        owner_uid: controller.map(str::to_string),
    }
}

/// [`activity_cached`], with the chain's past before watching began: what the chain's
/// listed versions keep ([`past_entries`]: creations, bindings, revisions, each manager's
/// last write) and the Event objects listed then (`event_timelines`, the timelines of a
/// watch of Events), each at its own time on its actor's lane, marked as such.
pub fn activity_with_past(
    root: &str,
    timelines: &[&ObjectTimeline],
    events: &[SeenEvent],
    event_timelines: &[&ObjectTimeline],
    cache: &mut ActivityCache,
) -> Activity {
    let chain = chain_of(root, timelines);
    let events_about = events_about(events);
    let mut lanes = Lanes::default();
    let mut items: Vec<ActivityItem> = Vec::new();
    let mut ordered: Vec<&ObjectTimeline> = chain.values().copied().collect();
    crate::list::stable_sort::sort_by(&mut ordered, |a, b| a.identity.uid.cmp(&b.identity.uid));
    // Only what this recompute uses stays: writes whose revisions were dropped go.
    let mut last_writes = std::mem::take(&mut cache.writes);
    for timeline in &ordered {
        let uid = timeline.identity.uid.as_str();
        let (key, last) = last_writes
            .remove_entry(uid)
            .unwrap_or_else(|| (uid.to_string(), Vec::new()));
        let controller = controller_uid(&timeline.latest);
        let looked_among = EventsLookedAmong::of(&events_about, uid, controller);
        // Both in revision order (seq ascending).
        let mut last = last.into_iter().peekable();
        let mut writes = Vec::with_capacity(timeline.revisions.len());
        for revision in &timeline.revisions {
            // Listed versions are the state before watching, not writes; noise is folded.
            if revision.kind == RevisionKind::Listed || revision.noise {
                continue;
            }
            while last.next_if(|c| c.item.seq < revision.seq).is_some() {}
            let mut infer = || {
                let inference = infer_lane(timeline, revision, controller, &events_about);
                cache.lanes_inferred.shared(inference)
            };
            let cached = match last.next_if(|c| c.item.seq == revision.seq) {
                // An Event arriving later can name the actor: inferred again only then.
                Some(cached) if cached.looked_among == looked_among => cached,
                Some(cached) => CachedWrite {
                    lane: infer(),
                    looked_among,
                    ..cached
                },
                None => CachedWrite {
                    item: Arc::new(write_item(timeline, revision, controller)),
                    lane: infer(),
                    looked_among,
                },
            };
            items.push(ActivityItem {
                at_ms: revision.observed_ms,
                lane: lanes.lane(&cached.lane),
                detail: ItemDetail::Write(Arc::clone(&cached.item)),
            });
            writes.push(cached);
        }
        cache.writes.insert(key, writes);
    }
    // Writes by object, to link Events to.
    let mut writes_on: HashMap<&str, Vec<WriteOnObject>> = HashMap::new();
    for item in &items {
        if let ItemDetail::Write(w) = &item.detail {
            let write = (item.at_ms, w.uid.as_str(), w.seq, item.lane);
            writes_on.entry(w.uid.as_str()).or_default().push(write);
            if let Some(owner) = &w.owner_uid {
                writes_on.entry(owner.as_str()).or_default().push(write);
            }
        }
    }
    // The lane of each reporter (component, instance), looked up once.
    let mut reporter_lanes: HashMap<(&str, &str), usize> = HashMap::new();
    let mut event_items = Vec::new();
    for event in events {
        let Some(regarding) = event.record.regarding.uid.as_deref() else {
            continue;
        };
        if !chain.contains_key(regarding) {
            continue;
        }
        let record = &event.record;
        let reporter = (
            record.reporting_component.as_str(),
            record.reporting_instance.as_str(),
        );
        let lane = *reporter_lanes
            .entry(reporter)
            .or_insert_with(|| lanes.lane(&reporter_inference(record)));
        // The nearest write on the object (or on what it owns) by the same actor, else by
        // anyone, within 10 s.
        let candidates = writes_on.get(regarding).map(Vec::as_slice).unwrap_or(&[]);
        let closest = |same_lane: bool| {
            candidates
                .iter()
                .filter(|(at, _, _, l)| {
                    (!same_lane || *l == lane) && (at - event.observed_ms).abs() <= 10_000.0
                })
                .min_by(|a, b| {
                    (a.0 - event.observed_ms)
                        .abs()
                        .total_cmp(&(b.0 - event.observed_ms).abs())
                })
                .map(|(_, uid, seq, _)| (uid.to_string(), *seq))
        };
        let linked = closest(true).or_else(|| closest(false));
        event_items.push(ActivityItem {
            at_ms: event.observed_ms,
            lane,
            detail: ItemDetail::Event(EventItem {
                uid: record.uid.clone(),
                reason: record.reason.clone(),
                warning: record.event_type.is_warning(),
                message: record.message.clone(),
                count: record.count,
                regarding: record.regarding.describe(),
                linked_write: linked,
                listed: false,
            }),
        });
    }
    items.extend(event_items);
    let listed_events = listed_events(event_timelines, cache);
    add_past(
        &chain,
        &listed_events,
        cache,
        &mut |at_ms, inference: &Inference, detail| {
            let lane = lanes.lane(inference);
            items.push(ActivityItem {
                at_ms,
                lane,
                detail,
            });
        },
    );
    crate::list::stable_sort::sort_by(&mut items, |a, b| a.at_ms.total_cmp(&b.at_ms));
    let mut chain_uids: Vec<String> = chain.into_keys().collect();
    crate::list::stable_sort::sort(&mut chain_uids);
    Activity {
        lanes: lanes.lanes,
        items,
        chain: chain_uids,
    }
}

/// `Pod` of `Pod demo/web-1`.
fn kind_of(object: &str) -> &str {
    object.split(' ').next().unwrap_or_default()
}

/// The version listed when the watch began, when the timeline still starts there.
fn listed_first(timeline: &ObjectTimeline) -> Option<&Revision> {
    timeline
        .revisions
        .front()
        .filter(|first| first.kind == RevisionKind::Listed)
}

/// The object as listed when its watch began, when its timeline still starts there.
fn listed_version(timeline: &ObjectTimeline, cache: &mut ActivityCache) -> Option<Arc<Value>> {
    let first = listed_first(timeline)?;
    cache
        .listed
        .entry(timeline.identity.uid.clone())
        .or_insert_with(|| first.object().map(Arc::new))
        .clone()
}

/// The Event objects listed when the watch of Events began.
fn listed_events(
    event_timelines: &[&ObjectTimeline],
    cache: &mut ActivityCache,
) -> Vec<Arc<EventRecord>> {
    event_timelines
        .iter()
        .filter_map(|timeline| {
            let first = listed_first(timeline)?;
            cache
                .listed_events
                .entry(timeline.identity.uid.clone())
                .or_insert_with(|| first.object().and_then(|o| event_record(&o)).map(Arc::new))
                .clone()
        })
        .collect()
}

/// The past entries an activity shows: writes and revisions. Events are shown as Events;
/// conditions and containers are the object's own timeline's detail.
fn shown_in_activity(kind: &PastKind) -> bool {
    matches!(
        kind,
        PastKind::Created
            | PastKind::Scheduled { .. }
            | PastKind::Written { .. }
            | PastKind::StatusWritten { .. }
            | PastKind::RolloutRevision { .. }
            | PastKind::DeletionStarted { .. }
    )
}

/// The lane of a reconstructed entry: the component whose Event it stands on; else the
/// component whose Event about the object's controller (or, for a revision, about the
/// workload) names it, as for a watched write; else its manager (a kubelet's node from the
/// pod's spec.nodeName).
fn past_lane(
    entry: &PastEntry,
    object: &Value,
    uid: &str,
    events: &[Arc<EventRecord>],
) -> Inference {
    if let Some(reporter) = entry
        .actors
        .iter()
        .find(|a| a.source == ActorSource::EventReporter)
    {
        let (id, label) = match &reporter.instance {
            Some(node) if reporter.name == "kubelet" => {
                (format!("kubelet:{node}"), format!("kubelet on {node}"))
            }
            _ => (
                format!("component:{}", reporter.name),
                reporter.name.clone(),
            ),
        };
        return Inference {
            id,
            label,
            how: format!("reconstructed: the Event reported by {}", reporter.name),
        };
    }
    let name = object
        .at("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (about, named) = match &entry.kind {
        PastKind::RolloutRevision { name: holder, .. } => (Some(uid), holder.as_str()),
        PastKind::Created | PastKind::Written { .. } => (controller_uid(object), name),
        _ => (None, ""),
    };
    if let Some(about) = about {
        let naming = events.iter().find(|e| {
            e.regarding.uid.as_deref() == Some(about)
                && !e.reporting_component.is_empty()
                && super::past::names(&e.message, named)
        });
        if let Some(event) = naming {
            let (id, label) = event_lane_id(event);
            return Inference {
                id,
                label,
                how: format!(
                    "reconstructed: {} Event {} names {named}",
                    event.reporting_component, event.reason
                ),
            };
        }
    }
    let manager = entry.actors.iter().find(|a| {
        matches!(
            a.source,
            ActorSource::ManagedFieldsEntry | ActorSource::FieldOwner
        )
    });
    match manager {
        Some(manager) if manager.name == "kubelet" => {
            let node = object
                .at("/spec/nodeName")
                .and_then(Value::as_str)
                .unwrap_or("an unknown node");
            Inference {
                id: format!("kubelet:{node}"),
                label: format!("kubelet on {node}"),
                how: "managedFields manager kubelet; the node from the pod's spec.nodeName".into(),
            }
        }
        Some(manager) => Inference {
            id: format!("manager:{}", manager.name),
            label: manager.name.clone(),
            how: format!("managedFields manager {}", manager.name),
        },
        None => Inference {
            id: "unrecorded".into(),
            label: "not recorded".into(),
            how: "the API records no actor for this".into(),
        },
    }
}

/// Adds the chain's past before watching began through `place`: each listed member's
/// reconstructed writes and revisions, and the listed Event objects about the chain or
/// about objects its Events name (a ReplicaSet's `Created pod: web-1`, gone since).
fn add_past(
    chain: &HashMap<String, &ObjectTimeline>,
    events: &[Arc<EventRecord>],
    cache: &mut ActivityCache,
    place: &mut dyn FnMut(f64, &Inference, ItemDetail),
) {
    let mut members: Vec<(&String, &ObjectTimeline)> =
        chain.iter().map(|(uid, t)| (uid, *t)).collect();
    crate::list::stable_sort::sort_by(&mut members, |a, b| a.0.cmp(b.0));
    let listed: Vec<(String, Arc<Value>)> = members
        .iter()
        .filter_map(|(uid, timeline)| Some(((*uid).clone(), listed_version(timeline, cache)?)))
        .collect();
    // Copied for the reconstruction only when a member's past is not cached yet.
    let mut records: Option<Vec<EventRecord>> = None;
    let mut kept = HashMap::new();
    for (uid, object) in &listed {
        let key = (uid.clone(), events.len());
        let placed = match cache.past.get(&key) {
            Some(placed) => Arc::clone(placed),
            None => {
                let owners: Vec<Value> = listed
                    .iter()
                    .filter(|(other, _)| owner_uids(object).contains(&other.as_str()))
                    .map(|(_, o)| (**o).clone())
                    .collect();
                let owned: Vec<Value> = listed
                    .iter()
                    .filter(|(_, o)| controller_uid(o) == Some(uid.as_str()))
                    .map(|(_, o)| (**o).clone())
                    .collect();
                let records =
                    records.get_or_insert_with(|| events.iter().map(|e| (**e).clone()).collect());
                let past = past_entries(&Loaded {
                    object,
                    events: records,
                    owners: &owners,
                    owned: &owned,
                    controller_revisions: &[],
                });
                let label = format!(
                    "{} {}",
                    object
                        .get("kind")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    object
                        .at("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                );
                let placed: Vec<PastPlaced> = past
                    .iter()
                    .filter(|entry| shown_in_activity(&entry.kind))
                    .filter_map(|entry| {
                        Some(PastPlaced {
                            at_ms: entry.time.start_ms()? as f64,
                            lane: past_lane(entry, object, uid, events),
                            item: Arc::new(PastItem {
                                uid: uid.clone(),
                                object: label.clone(),
                                kind: super::past::shown::kind_name(&entry.kind),
                                summary: format!("{label}: {}", entry.kind.describe()),
                                actor: entry.actor_label(),
                                evidence: entry.evidence.iter().map(|e| e.describe()).collect(),
                                unknown: entry.unknown.clone(),
                            }),
                        })
                    })
                    .collect();
                Arc::new(placed)
            }
        };
        for item in placed.iter() {
            place(
                item.at_ms,
                &item.lane,
                ItemDetail::Past(Arc::clone(&item.item)),
            );
        }
        kept.insert(key, placed);
    }
    cache.past = kept;

    // Events about the chain, and about what the chain's Events name.
    let members_key = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        members.iter().for_each(|(uid, _)| uid.hash(&mut hasher));
        hasher.finish()
    };
    let shown = match &cache.listed_shown {
        Some((key, count, shown)) if *key == members_key && *count == events.len() => {
            Arc::clone(shown)
        }
        _ => {
            let shown = Arc::new(listed_events_shown(chain, events));
            cache.listed_shown = Some((members_key, events.len(), Arc::clone(&shown)));
            shown
        }
    };
    for event in shown.iter().filter_map(|index| events.get(*index)) {
        let Some(at_ms) = event.last_seen_ms.or(event.first_seen_ms) else {
            continue;
        };
        let inference = reporter_inference(event);
        place(
            at_ms as f64,
            &inference,
            ItemDetail::Event(EventItem {
                uid: event.uid.clone(),
                reason: event.reason.clone(),
                warning: event.event_type.is_warning(),
                message: event.message.clone(),
                count: event.count,
                regarding: event.regarding.describe(),
                linked_write: None,
                listed: true,
            }),
        );
    }
}

/// The indexes of the listed Event objects about the chain, or about an object one of
/// those names (a ReplicaSet's `Created pod: web-1`, gone since).
fn listed_events_shown<'a>(
    chain: &HashMap<String, &ObjectTimeline>,
    events: &'a [Arc<EventRecord>],
) -> Vec<usize> {
    let about_chain = |e: &EventRecord| {
        e.regarding
            .uid
            .as_deref()
            .is_some_and(|uid| chain.contains_key(uid))
    };
    let chain_events: Vec<&Arc<EventRecord>> = events.iter().filter(|e| about_chain(e)).collect();
    // Many Events concern one object (a pod's Scheduled, Pulled, Created, Started).
    let mut named: HashMap<(Option<&str>, &str), bool> = HashMap::new();
    let mut is_named = |event: &'a EventRecord| {
        let regarding = &event.regarding;
        *named
            .entry((regarding.namespace.as_deref(), regarding.name.as_str()))
            .or_insert_with(|| {
                chain_events.iter().any(|c| {
                    c.regarding.namespace == regarding.namespace
                        && super::past::names(&c.message, &regarding.name)
                })
            })
    };
    events
        .iter()
        .enumerate()
        .filter(|(_, event)| about_chain(event) || is_named(event))
        .map(|(index, _)| index)
        .collect()
}

impl Activity {
    /// Rows for display: consecutive items with the same action on a lane grouped (a
    /// 100-pod rollout reads as a few rows per ReplicaSet), or one row per item.
    pub fn rows(&self, grouped: bool) -> Vec<ActivityRow> {
        let mut rows: Vec<ActivityRow> = Vec::new();
        let mut last_key = String::new();
        for (index, item) in self.items.iter().enumerate() {
            let key = item.group_key();
            match rows.last_mut() {
                Some(row) if grouped && key == last_key => row.items.push(index),
                _ => rows.push(ActivityRow { items: vec![index] }),
            }
            last_key = key;
        }
        rows
    }

    /// The lane index of an actor id (`component:deployment-controller`, ...).
    pub fn lane_named(&self, id: &str) -> Option<usize> {
        self.lanes.iter().position(|l| l.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replicaset-controller Event with `message`, seen at `at`.
    fn event_at(at: f64, message: &str) -> SeenEvent {
        let record = event_record(&json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "e", "namespace": "demo", "uid": "e", "resourceVersion": "1"},
            "involvedObject": {"kind": "ReplicaSet", "name": "rs", "namespace": "demo", "uid": "rs"},
            "reason": "SuccessfulCreate", "message": message, "type": "Normal", "count": 1,
            "source": {"component": "replicaset-controller"}
        }))
        .expect("an Event");
        SeenEvent {
            record: Arc::new(record),
            observed_ms: at,
        }
    }

    #[test]
    fn the_nearest_wanted_event_is_found_looking_outward_and_a_tie_goes_to_the_earlier() {
        let events: Vec<SeenEvent> = [
            (10.0, "Created pod: a"),
            (20.0, "Created pod: b"),
            (30.0, "Created pod: a"),
            (40.0, "Created pod: c"),
            (50.0, "Created pod: b"),
        ]
        .iter()
        .map(|(at, message)| event_at(*at, message))
        .collect();
        let sorted: Vec<&SeenEvent> = events.iter().collect();
        let at = |found: Option<&SeenEvent>| found.map(|e| e.observed_ms);
        let naming = |name: &'static str| move |e: &SeenEvent| e.record.message.contains(name);
        assert_eq!(at(nearest(&sorted, 26.0, naming("pod: a"))), Some(30.0));
        assert_eq!(at(nearest(&sorted, 24.0, naming("pod: a"))), Some(30.0));
        assert_eq!(
            at(nearest(&sorted, 20.0, naming("pod: a"))),
            Some(10.0),
            "a tie: the earlier"
        );
        assert_eq!(at(nearest(&sorted, 44.0, naming("pod: b"))), Some(50.0));
        assert_eq!(at(nearest(&sorted, 0.0, naming("pod: c"))), Some(40.0));
        assert_eq!(at(nearest(&sorted, 99.0, naming("pod: a"))), Some(30.0));
        assert_eq!(at(nearest(&sorted, 30.0, naming("pod: z"))), None);
        assert_eq!(at(nearest(&[], 30.0, naming("pod: a"))), None);
    }
    use crate::watch::StoreChange;
    use serde_json::json;

    #[test]
    fn grouped_revisions_keep_a_row_each_so_their_diffs_show() {
        let past = |kind: &'static str, uid: &str, summary: &str| ActivityItem {
            at_ms: 0.0,
            lane: 0,
            detail: ItemDetail::Past(Arc::new(PastItem {
                uid: uid.into(),
                object: "Deployment web".into(),
                kind,
                summary: summary.into(),
                actor: "deployment-controller".into(),
                evidence: Vec::new(),
                unknown: Vec::new(),
            })),
        };
        let activity = Activity {
            items: vec![
                past("RolloutRevision", "d1", "revision 1: web-1"),
                past("RolloutRevision", "d1", "revision 1 → 2: web-2"),
                past("Created", "p1", "Pod a: created"),
                past("Created", "p2", "Pod b: created"),
            ],
            ..Activity::default()
        };
        let sizes: Vec<usize> = activity.rows(true).iter().map(|r| r.items.len()).collect();
        assert_eq!(sizes, [1, 1, 2]);
    }

    const T: &str = "2026-11-23T10:00:00Z";

    fn entry(manager: &str, subresource: &str, time: &str, fields: Value) -> Value {
        json!({"manager": manager, "operation": "Update", "subresource": subresource,
               "time": time, "fieldsType": "FieldsV1", "fieldsV1": fields})
    }

    fn owned_by(kind: &str, uid: &str) -> Value {
        json!([{"apiVersion": "apps/v1", "kind": kind, "name": "x", "uid": uid, "controller": true}])
    }

    fn deployment(rv: u32, replicas: u32, entries: Vec<Value>) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "web", "namespace": "demo", "uid": "d1", "resourceVersion": rv.to_string(),
                            "managedFields": entries},
               "spec": {"replicas": replicas}})
    }

    fn replica_set(rv: u32, replicas: u32, ready: u32, entries: Vec<Value>) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": "web-abc", "namespace": "demo", "uid": "rs1", "resourceVersion": rv.to_string(),
                            "ownerReferences": owned_by("Deployment", "d1"), "managedFields": entries},
               "spec": {"replicas": replicas}, "status": {"readyReplicas": ready}})
    }

    fn pod(rv: u32, node: Option<&str>, phase: &str, entries: Vec<Value>) -> Value {
        let mut spec = json!({"containers": [{"name": "web", "image": "nginx"}]});
        if let Some(node) = node {
            spec["nodeName"] = json!(node);
        }
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "web-abc-1", "namespace": "demo", "uid": "p1", "resourceVersion": rv.to_string(),
                            "ownerReferences": owned_by("ReplicaSet", "rs1"), "managedFields": entries},
               "spec": spec, "status": {"phase": phase}})
    }

    /// An Event `regarding` (kind, uid), reported by `reporter` (component, host).
    fn event(
        uid: &str,
        reason: &str,
        (kind, about): (&str, &str),
        (component, host): (&str, &str),
        message: &str,
        at: f64,
    ) -> SeenEvent {
        let record = event_record(&json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("e-{uid}"), "namespace": "demo", "uid": uid, "resourceVersion": "1"},
            "involvedObject": {"kind": kind, "name": "x", "namespace": "demo", "uid": about},
            "reason": reason, "message": message, "type": "Normal", "count": 1,
            "source": {"component": component, "host": host},
            "firstTimestamp": T, "lastTimestamp": T
        }))
        .expect("an Event");
        SeenEvent {
            record: Arc::new(record),
            observed_ms: at,
        }
    }

    /// The rollout a real cluster records: the user creates a Deployment; the deployment
    /// controller a ReplicaSet; the replicaset controller a Pod; the scheduler binds it;
    /// the kubelet runs it.
    fn rollout() -> (Vec<HistoryStore>, Vec<SeenEvent>) {
        let user = entry(
            "kubectl-create",
            "",
            T,
            json!({"f:spec": {"f:replicas": {}}}),
        );
        let kcm = entry(
            "kube-controller-manager",
            "",
            T,
            json!({"f:spec": {"f:replicas": {}}}),
        );
        let kcm_status = entry(
            "kube-controller-manager",
            "status",
            "2026-11-23T10:00:05Z",
            json!({"f:status": {"f:readyReplicas": {}}}),
        );
        let pod_kcm = entry(
            "kube-controller-manager",
            "",
            T,
            json!({"f:spec": {"f:containers": {}}}),
        );
        let kubelet = entry(
            "kubelet",
            "status",
            "2026-11-23T10:00:04Z",
            json!({"f:status": {"f:phase": {}}}),
        );
        let mut deployments = HistoryStore::default();
        let mut replica_sets = HistoryStore::default();
        let mut pods = HistoryStore::default();
        deployments.apply(
            &StoreChange::Apply(deployment(1, 1, vec![user.clone()])),
            1_000.0,
        );
        replica_sets.apply(
            &StoreChange::Apply(replica_set(2, 1, 0, vec![kcm.clone()])),
            1_100.0,
        );
        pods.apply(
            &StoreChange::Apply(pod(3, None, "Pending", vec![pod_kcm.clone()])),
            1_200.0,
        );
        pods.apply(
            &StoreChange::Apply(pod(4, Some("node-1"), "Pending", vec![pod_kcm.clone()])),
            1_300.0,
        );
        pods.apply(
            &StoreChange::Apply(pod(5, Some("node-1"), "Running", vec![pod_kcm, kubelet])),
            4_000.0,
        );
        replica_sets.apply(
            &StoreChange::Apply(replica_set(6, 1, 1, vec![kcm, kcm_status])),
            4_100.0,
        );
        let events = vec![
            event(
                "e1",
                "ScalingReplicaSet",
                ("Deployment", "d1"),
                ("deployment-controller", ""),
                "Scaled up replica set web-abc to 1",
                1_110.0,
            ),
            event(
                "e2",
                "SuccessfulCreate",
                ("ReplicaSet", "rs1"),
                ("replicaset-controller", ""),
                "Created pod: web-abc-1",
                1_210.0,
            ),
            event(
                "e3",
                "Scheduled",
                ("Pod", "p1"),
                ("default-scheduler", ""),
                "Successfully assigned demo/web-abc-1 to node-1",
                1_310.0,
            ),
            event(
                "e4",
                "Started",
                ("Pod", "p1"),
                ("kubelet", "node-1"),
                "Started container web",
                4_010.0,
            ),
        ];
        (vec![deployments, replica_sets, pods], events)
    }

    fn timelines(stores: &[HistoryStore]) -> Vec<&ObjectTimeline> {
        stores.iter().flat_map(HistoryStore::timelines).collect()
    }

    fn lane_of_write<'a>(activity: &'a Activity, uid: &str, nth: usize) -> &'a Lane {
        let item = activity
            .items
            .iter()
            .filter(|i| matches!(&i.detail, ItemDetail::Write(w) if w.uid == uid))
            .nth(nth)
            .unwrap_or_else(|| panic!("write {nth} on {uid}: {activity:#?}"));
        &activity.lanes[item.lane]
    }

    #[test]
    fn a_recompute_reuses_the_write_items_and_lanes_still_follow_later_events() {
        let (stores, events) = rollout();
        let mut cache = ActivityCache::default();
        // First without the Events: the binding has no named binder yet.
        let before = activity_cached("d1", &timelines(&stores), &[], &mut cache);
        let after = activity_cached("d1", &timelines(&stores), &events, &mut cache);
        assert_eq!(
            after,
            activity("d1", &timelines(&stores), &events),
            "same result"
        );
        let writes = |a: &Activity| -> Vec<Arc<WriteItem>> {
            a.items
                .iter()
                .filter_map(|i| match &i.detail {
                    ItemDetail::Write(w) => Some(Arc::clone(w)),
                    _ => None,
                })
                .collect()
        };
        let (first, second) = (writes(&before), writes(&after));
        assert!(!first.is_empty());
        assert!(
            first
                .iter()
                .all(|w| second.iter().any(|v| Arc::ptr_eq(w, v))),
            "every write item was reused"
        );
        // The lane is inferred again: the Scheduled Event now names the binder.
        assert_eq!(lane_of_write(&before, "p1", 1).id, "binding");
        assert_eq!(
            lane_of_write(&after, "p1", 1).id,
            "component:default-scheduler"
        );
        // Only what the last recompute used is kept.
        let none = activity_cached("nobody", &timelines(&stores), &events, &mut cache);
        assert!(none.items.is_empty());
        assert!(cache.writes.is_empty());
    }

    #[test]
    fn a_recompute_infers_again_only_the_lanes_of_writes_whose_events_changed() {
        let (stores, events) = rollout();
        let mut cache = ActivityCache::default();
        let looked_among = |cache: &ActivityCache, uid: &str| -> Vec<EventsLookedAmong> {
            cache.writes[uid].iter().map(|w| w.looked_among).collect()
        };
        let first = activity_cached("d1", &timelines(&stores), &events, &mut cache);
        let (pod_before, set_before) = (looked_among(&cache, "p1"), looked_among(&cache, "rs1"));
        // An Event about the pod seen again later (its count went up): only the pod's (and
        // not the ReplicaSet's) lanes are inferred again, to the same lanes.
        let mut later = events.clone();
        let about_pod = later
            .iter_mut()
            .find(|e| e.record.regarding.uid.as_deref() == Some("p1"))
            .expect("an Event about the pod");
        about_pod.observed_ms += 500.0;
        let again = activity_cached("d1", &timelines(&stores), &later, &mut cache);
        assert_eq!(again, activity("d1", &timelines(&stores), &later));
        assert_eq!(again.lanes, first.lanes);
        let (pod_after, set_after) = (looked_among(&cache, "p1"), looked_among(&cache, "rs1"));
        assert_eq!(set_after, set_before);
        assert!(pod_before.iter().zip(&pod_after).all(|(a, b)| a != b));
        // Writes on one lane found the same way share one inference.
        let all: Vec<&Arc<Inference>> = cache.writes.values().flatten().map(|w| &w.lane).collect();
        for (a, b) in all.iter().flat_map(|a| all.iter().map(move |b| (a, b))) {
            assert_eq!(a == b, Arc::ptr_eq(a, b), "{a:?} / {b:?}");
        }
    }

    /// A listed (core/v1) Event object about `name` (uid `about`, None: gone).
    fn listed_event(uid: &str, (name, about): (&str, Option<&str>), message: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Event",
               "metadata": {"name": format!("e-{uid}"), "namespace": "demo", "uid": uid, "resourceVersion": "1"},
               "involvedObject": {"kind": "Pod", "name": name, "namespace": "demo", "uid": about},
               "reason": "Reason", "message": message, "type": "Normal", "count": 1,
               "source": {"component": "replicaset-controller"},
               "firstTimestamp": T, "lastTimestamp": T})
    }

    #[test]
    fn listed_events_about_the_chain_or_what_its_events_name_are_shown_again_from_the_cache() {
        let (stores, _) = rollout();
        let mut listed = HistoryStore::default();
        listed.apply(
            &StoreChange::Append(vec![
                // About the ReplicaSet (on the chain), naming a pod gone since.
                listed_event("l1", ("web-abc", Some("rs1")), "Created pod: web-gone"),
                listed_event(
                    "l2",
                    ("web-gone", None),
                    "Successfully assigned demo/web-gone",
                ),
                listed_event("l3", ("other", Some("x9")), "Created pod: unrelated"),
                listed_event("l4", ("web-gone-2", None), "not named by the chain"),
            ]),
            0.0,
        );
        let event_timelines: Vec<&ObjectTimeline> = listed.timelines().collect();
        let shown = |activity: &Activity| -> Vec<String> {
            let mut uids: Vec<String> = activity
                .items
                .iter()
                .filter_map(|item| match &item.detail {
                    ItemDetail::Event(e) if e.listed => Some(e.uid.clone()),
                    _ => None,
                })
                .collect();
            uids.sort();
            uids
        };
        let mut cache = ActivityCache::default();
        let first =
            activity_with_past("d1", &timelines(&stores), &[], &event_timelines, &mut cache);
        assert_eq!(shown(&first), ["l1", "l2"]);
        let again =
            activity_with_past("d1", &timelines(&stores), &[], &event_timelines, &mut cache);
        assert_eq!(again, first);
        let other_chain =
            activity_with_past("x9", &timelines(&stores), &[], &event_timelines, &mut cache);
        assert!(shown(&other_chain).is_empty(), "x9 has no timeline");
    }

    #[test]
    fn every_actor_of_a_rollout_gets_its_lane_from_the_evidence() {
        let (stores, events) = rollout();
        let activity = activity("d1", &timelines(&stores), &events);
        assert_eq!(activity.chain, vec!["d1", "p1", "rs1"]);
        assert_eq!(
            lane_of_write(&activity, "d1", 0).id,
            "manager:kubectl-create"
        );
        let rs = lane_of_write(&activity, "rs1", 0);
        assert_eq!(rs.id, "component:deployment-controller");
        assert!(
            rs.inferred_from.contains("kube-controller-manager"),
            "{rs:?}"
        );
        assert_eq!(
            lane_of_write(&activity, "p1", 0).id,
            "component:replicaset-controller"
        );
        let binding = lane_of_write(&activity, "p1", 1);
        assert_eq!(binding.id, "component:default-scheduler");
        assert!(binding.inferred_from.contains("binding"), "{binding:?}");
        assert_eq!(lane_of_write(&activity, "p1", 2).id, "kubelet:node-1");
        // The ReplicaSet's status is its own controller's write.
        assert_eq!(
            lane_of_write(&activity, "rs1", 1).id,
            "component:replicaset-controller"
        );
        // Events sit on their reporters' lanes, linked to the write they explain.
        let linked: HashMap<&str, Option<(String, u64)>> = activity
            .items
            .iter()
            .filter_map(|i| match &i.detail {
                ItemDetail::Event(e) => Some((e.reason.as_str(), e.linked_write.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            linked["Scheduled"].as_ref().map(|l| l.0.as_str()),
            Some("p1")
        );
        assert_eq!(
            linked["SuccessfulCreate"].as_ref().map(|l| l.0.as_str()),
            Some("p1")
        );
        assert_eq!(
            linked["ScalingReplicaSet"].as_ref().map(|l| l.0.as_str()),
            Some("rs1")
        );
        assert_eq!(linked["Started"].as_ref().map(|l| l.0.as_str()), Some("p1"));
        // Time order.
        assert!(activity.items.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    }

    #[test]
    fn without_events_lanes_are_the_managers_and_nothing_is_invented() {
        let (stores, _) = rollout();
        let activity = activity("d1", &timelines(&stores), &[]);
        let ids: HashSet<&str> = activity.lanes.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(
            ids,
            HashSet::from([
                "manager:kubectl-create",
                "manager:kube-controller-manager",
                "binding",
                "kubelet:node-1"
            ])
        );
    }

    #[test]
    fn objects_off_the_chain_are_left_out_and_siblings_group() {
        let (mut stores, events) = rollout();
        let other = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "other", "namespace": "demo", "uid": "p9", "resourceVersion": "9"}});
        stores[2].apply(&StoreChange::Apply(other), 5_000.0);
        for i in 0..5 {
            let mut sibling = pod(10 + i, None, "Pending", vec![]);
            sibling["metadata"]["uid"] = json!(format!("s{i}"));
            sibling["metadata"]["name"] = json!(format!("web-abc-s{i}"));
            stores[2].apply(&StoreChange::Apply(sibling), 6_000.0 + f64::from(i));
        }
        let activity = activity("d1", &timelines(&stores), &events);
        assert!(!activity.chain.contains(&"p9".to_string()));
        let rows = activity.rows(true);
        assert!(rows.iter().any(|r| r.items.len() == 5), "{rows:?}");
        assert_eq!(activity.rows(false).len(), activity.items.len());
    }
}
