//! The past before watching began, reconstructed from what the cluster keeps: an object's
//! `creationTimestamp` and `deletionTimestamp`, its `managedFields` (each manager's last write:
//! time, operation, subresource), its conditions' `lastTransitionTime`, its containers'
//! `startedAt` / `finishedAt`, exit codes and restart counts, the Event objects of the last
//! hour about it (and those about its owners that name it: `Created pod: web-1`), and a
//! workload's revisions ([`rollout`]).
//!
//! Every entry says what it stands on ([`PastEvidence`]), who did it where the data names
//! someone ([`PastActor`]), and what is not known (`unknown`). Nothing is filled in: without a
//! time an entry is [`PastTime::Unknown`]; entries in the same second are marked
//! [`Placement::SameSecondAsPrevious`], as most of these times have second resolution and
//! which came first is not recorded; each manager's earlier writes are gone, and are said to
//! be.

use crate::object::pointer::Pointer;

pub mod rollout;
pub mod shown;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

use serde_json::Value;

use crate::history::diff::FieldChange;
use crate::history::fields::{managed_entries, FieldSet, ManagedEntry, Step};
use crate::object::events::EventRecord;
use crate::time::age::{parse_timestamp, EpochMillis};

pub use rollout::{
    controller_revision_history, rollback_patch, rollback_template, rollout_history,
    template_changes, RevisionSource, RolloutRevision,
};

/// What is loaded around an object, to reconstruct its past from.
#[derive(Debug, Clone, Copy)]
pub struct Loaded<'a> {
    pub object: &'a Value,
    /// Event objects, read through either API (the same Event read through both counts
    /// once): those about the object, and those about its owners (a ReplicaSet's
    /// `Created pod: x`, a Deployment's `Scaled up replica set x`). Others are ignored.
    pub events: &'a [EventRecord],
    /// Its owners (a Pod's ReplicaSet and that one's Deployment), for Events about them.
    pub owners: &'a [Value],
    /// What it owns: a Deployment's ReplicaSets (its revisions).
    pub owned: &'a [Value],
    /// A StatefulSet's or DaemonSet's ControllerRevisions.
    pub controller_revisions: &'a [Value],
}

impl<'a> Loaded<'a> {
    /// The object alone: what its own fields say.
    pub fn object(object: &'a Value) -> Loaded<'a> {
        Loaded {
            object,
            events: &[],
            owners: &[],
            owned: &[],
            controller_revisions: &[],
        }
    }
}

/// When a past entry happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PastTime {
    At(EpochMillis),
    /// An Event that happened `count` times, first and last at these times.
    Span {
        first: EpochMillis,
        last: EpochMillis,
        count: u32,
    },
    /// The data gives no time.
    Unknown,
}

impl PastTime {
    fn of_event(event: &EventRecord) -> PastTime {
        match (event.first_seen_ms, event.last_seen_ms) {
            (Some(first), Some(last)) if first == last && event.count <= 1 => PastTime::At(first),
            (Some(first), last) => PastTime::Span {
                first,
                last: last.unwrap_or(first).max(first),
                count: event.count,
            },
            (None, Some(last)) => PastTime::At(last),
            (None, None) => PastTime::Unknown,
        }
    }

    fn of_text(text: Option<&str>) -> PastTime {
        text.and_then(parse_timestamp)
            .map_or(PastTime::Unknown, PastTime::At)
    }

    /// When it began (an Event's first time).
    pub fn start_ms(&self) -> Option<EpochMillis> {
        match self {
            PastTime::At(at) => Some(*at),
            PastTime::Span { first, .. } => Some(*first),
            PastTime::Unknown => None,
        }
    }

    /// The second it began in: the order's resolution, since most of these times are
    /// written to the second.
    fn second(&self) -> Option<i64> {
        self.start_ms().map(|ms| ms.div_euclid(1000))
    }
}

/// Where an entry stands relative to the one before it in the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Later than the entry before it.
    Later,
    /// In the same second as the entry before it: which came first is not recorded.
    SameSecondAsPrevious,
    /// No time: listed after the timed entries, in no recorded order.
    Untimed,
}

/// Which way a ReplicaSet was scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleDirection {
    Up,
    Down,
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum PastKind {
    Created,
    /// A Pod bound to a node.
    Scheduled {
        node: Option<String>,
    },
    /// A manager's last write of the object itself (or of a subresource other than status:
    /// `scale`); its earlier writes are not recorded.
    Written {
        manager: String,
        operation: String,
        subresource: String,
        /// The fields it owns now, two levels deep (`spec.replicas`, `metadata.annotations`).
        fields: Vec<String>,
    },
    /// A manager's last write of the status subresource.
    StatusWritten {
        manager: String,
        operation: String,
        fields: Vec<String>,
    },
    ConditionChanged {
        condition: String,
        status: String,
        reason: Option<String>,
        message: Option<String>,
    },
    /// A container's running instance started (or the last instance, when it has ended).
    ContainerStarted {
        container: String,
        init: bool,
        restart_count: u64,
    },
    /// A container's instance ended and was not (yet) restarted.
    ContainerTerminated {
        container: String,
        init: bool,
        exit_code: Option<i64>,
        reason: Option<String>,
    },
    /// The previous instance ended (`lastState.terminated`); the container was restarted,
    /// `restart_count` times in all.
    ContainerRestarted {
        container: String,
        init: bool,
        restart_count: u64,
        exit_code: Option<i64>,
        reason: Option<String>,
    },
    /// A revision of the pod template ([`RolloutRevision`]), with its diff from the one
    /// before.
    RolloutRevision {
        revision: u64,
        /// The ReplicaSet or ControllerRevision.
        name: String,
        previous: Option<u64>,
        changes: Vec<FieldChange>,
        current: bool,
    },
    /// A ReplicaSet scaled by the deployment controller (its `ScalingReplicaSet` Event);
    /// `from` is None in the older wording (`Scaled up replica set x to 3`).
    Scaled {
        replica_set: String,
        direction: ScaleDirection,
        from: Option<u64>,
        to: u64,
    },
    /// `metadata.deletionTimestamp` is set: a delete was asked for.
    DeletionStarted {
        grace_period_seconds: Option<i64>,
        /// What the deletion still waits for.
        finalizers: Vec<String>,
    },
    /// An Event no other entry explains.
    EventSeen {
        reason: String,
        warning: bool,
        message: String,
        /// `Pod demo/web-1`: the object it is about (an owner, for one naming this object).
        regarding: String,
    },
}

impl PastKind {
    /// One line, as a timeline row reads.
    pub fn describe(&self) -> String {
        let fields = |fields: &[String]| {
            if fields.is_empty() {
                String::new()
            } else {
                format!(" ({})", fields.join(", "))
            }
        };
        match self {
            PastKind::Created => "created".into(),
            PastKind::Scheduled { node: Some(node) } => format!("scheduled to {node}"),
            PastKind::Scheduled { node: None } => "scheduled".into(),
            PastKind::Written {
                manager,
                subresource,
                fields: owned,
                ..
            } if !subresource.is_empty() => {
                format!("last {subresource} write by {manager}{}", fields(owned))
            }
            PastKind::Written {
                manager,
                fields: owned,
                ..
            } => format!("last write by {manager}{}", fields(owned)),
            PastKind::StatusWritten {
                manager,
                fields: owned,
                ..
            } => format!("last status write by {manager}{}", fields(owned)),
            PastKind::ConditionChanged {
                condition,
                status,
                reason,
                ..
            } => match reason {
                Some(reason) => format!("{condition} became {status} ({reason})"),
                None => format!("{condition} became {status}"),
            },
            PastKind::ContainerStarted {
                container, init, ..
            } => format!("{} {container} started", container_word(*init)),
            PastKind::ContainerTerminated {
                container,
                init,
                exit_code,
                reason,
            } => format!(
                "{} {container} terminated{}",
                container_word(*init),
                exit(*exit_code, reason.as_deref())
            ),
            PastKind::ContainerRestarted {
                container,
                init,
                restart_count,
                exit_code,
                reason,
            } => format!(
                "{} {container} ended{} and was restarted ({restart_count} restart{} in all)",
                container_word(*init),
                exit(*exit_code, reason.as_deref()),
                if *restart_count == 1 { "" } else { "s" }
            ),
            PastKind::RolloutRevision {
                revision,
                name,
                previous,
                changes,
                ..
            } => {
                let head = match previous {
                    Some(previous) => format!("revision {previous} → {revision} ({name})"),
                    None => format!("revision {revision} ({name})"),
                };
                match changes.first() {
                    Some(first) if changes.len() == 1 => format!("{head}: {}", first.describe()),
                    Some(first) => {
                        format!("{head}: {} (+{} more)", first.describe(), changes.len() - 1)
                    }
                    None => head,
                }
            }
            PastKind::Scaled {
                replica_set,
                direction,
                from,
                to,
            } => {
                let way = match direction {
                    ScaleDirection::Up => "up",
                    ScaleDirection::Down => "down",
                };
                match from {
                    Some(from) => format!("scaled {way} {replica_set} from {from} to {to}"),
                    None => format!("scaled {way} {replica_set} to {to}"),
                }
            }
            PastKind::DeletionStarted { finalizers, .. } if !finalizers.is_empty() => {
                format!("deletion started (waiting for {})", finalizers.join(", "))
            }
            PastKind::DeletionStarted { .. } => "deletion started".into(),
            PastKind::EventSeen {
                reason, message, ..
            } => format!("{reason}: {message}"),
        }
    }

    /// Where it goes among entries of the same second: a life's order, for reading only
    /// (such entries are marked [`Placement::SameSecondAsPrevious`]).
    fn reading_rank(&self) -> u8 {
        match self {
            PastKind::Created => 0,
            PastKind::RolloutRevision { .. } => 1,
            PastKind::Scaled { .. } => 2,
            PastKind::Scheduled { .. } => 3,
            PastKind::Written { .. } => 4,
            PastKind::ContainerStarted { .. } => 5,
            PastKind::ContainerTerminated { .. } | PastKind::ContainerRestarted { .. } => 6,
            PastKind::StatusWritten { .. } => 7,
            PastKind::ConditionChanged { .. } => 8,
            PastKind::EventSeen { .. } => 9,
            PastKind::DeletionStarted { .. } => 10,
        }
    }
}

fn container_word(init: bool) -> &'static str {
    if init {
        "init container"
    } else {
        "container"
    }
}

fn exit(code: Option<i64>, reason: Option<&str>) -> String {
    match (code, reason) {
        (Some(code), Some(reason)) => format!(" with exit code {code} ({reason})"),
        (Some(code), None) => format!(" with exit code {code}"),
        (None, Some(reason)) => format!(" ({reason})"),
        (None, None) => String::new(),
    }
}

/// How an actor was read from the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorSource {
    /// Its managedFields entry has this entry's time.
    ManagedFieldsEntry,
    /// It owns the field now (in managedFields): it wrote it last, maybe not at this time.
    FieldOwner,
    /// It reported the Event (`reportingController` / `source.component`).
    EventReporter,
}

/// Who did it, as the data names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastActor {
    /// A field manager (`kube-controller-manager`) or a reporting component
    /// (`replicaset-controller`, `default-scheduler`, `kubelet`).
    pub name: String,
    /// The reporter's instance (a kubelet's node), when the Event says.
    pub instance: Option<String>,
    pub source: ActorSource,
}

impl PastActor {
    fn manager(name: &str, source: ActorSource) -> PastActor {
        PastActor {
            name: name.to_string(),
            instance: None,
            source,
        }
    }

    fn reporter(event: &EventRecord) -> PastActor {
        PastActor {
            name: event.reporting_component.clone(),
            instance: Some(event.reporting_instance.clone()).filter(|i| !i.is_empty()),
            source: ActorSource::EventReporter,
        }
    }

    /// `kubelet on node-1`, `replicaset-controller`: a kubelet's instance is its node, which
    /// matters; other components' are host names (`default-scheduler-vm`), left out.
    pub fn label(&self) -> String {
        match &self.instance {
            Some(node) if self.name == "kubelet" => format!("kubelet on {node}"),
            _ => self.name.clone(),
        }
    }
}

/// What an entry stands on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PastEvidence {
    /// A field's value; `object` names another object than the one asked about
    /// (`ReplicaSet web-7d4b9c`).
    Field {
        object: Option<String>,
        path: String,
        value: String,
    },
    /// A managedFields entry's time.
    ManagedFields {
        manager: String,
        operation: String,
        subresource: String,
        time: Option<String>,
    },
    /// An Event object.
    Event {
        uid: String,
        reason: String,
        reporter: String,
        /// `ReplicaSet demo/web-7d4b9c`.
        regarding: String,
        message: String,
        count: u32,
    },
}

impl PastEvidence {
    fn field(path: impl Into<String>, value: impl Into<String>) -> PastEvidence {
        PastEvidence::Field {
            object: None,
            path: path.into(),
            value: value.into(),
        }
    }

    fn entry(entry: &ManagedEntry) -> PastEvidence {
        PastEvidence::ManagedFields {
            manager: entry.manager.clone(),
            operation: entry.operation.clone(),
            subresource: entry.subresource.clone(),
            time: entry.time.clone(),
        }
    }

    fn event(event: &EventRecord) -> PastEvidence {
        PastEvidence::Event {
            uid: event.uid.clone(),
            reason: event.reason.clone(),
            reporter: event.reporting_component.clone(),
            regarding: event.regarding.describe(),
            message: event.message.clone(),
            count: event.count,
        }
    }

    /// `metadata.creationTimestamp = 2026-…`,
    /// `managedFields[manager=kubelet,operation=Update,subresource=status].time = 2026-…`,
    /// `Event Scheduled (default-scheduler)`.
    pub fn describe(&self) -> String {
        match self {
            PastEvidence::Field {
                object: Some(object),
                path,
                value,
            } => format!("{object}: {path} = {value}"),
            PastEvidence::Field {
                object: None,
                path,
                value,
            } => format!("{path} = {value}"),
            PastEvidence::ManagedFields {
                manager,
                operation,
                subresource,
                time,
            } => {
                let subresource = if subresource.is_empty() {
                    String::new()
                } else {
                    format!(",subresource={subresource}")
                };
                format!(
                    "managedFields[manager={manager},operation={operation}{subresource}].time = {}",
                    time.as_deref().unwrap_or("(none)")
                )
            }
            PastEvidence::Event {
                reason,
                reporter,
                count,
                ..
            } => {
                let reporter = if reporter.is_empty() {
                    "no component"
                } else {
                    reporter
                };
                if *count > 1 {
                    format!("Event {reason} ({reporter}) ×{count}")
                } else {
                    format!("Event {reason} ({reporter})")
                }
            }
        }
    }
}

/// One reconstructed entry of an object's past (not seen by a watch).
#[derive(Debug, Clone, PartialEq)]
pub struct PastEntry {
    pub time: PastTime,
    pub placement: Placement,
    pub kind: PastKind,
    /// Empty when the data names nobody.
    pub actors: Vec<PastActor>,
    pub evidence: Vec<PastEvidence>,
    /// What the data does not say, in words.
    pub unknown: Vec<String>,
}

impl PastEntry {
    fn new(time: PastTime, kind: PastKind) -> PastEntry {
        PastEntry {
            time,
            placement: Placement::Untimed,
            kind,
            actors: Vec::new(),
            evidence: Vec::new(),
            unknown: Vec::new(),
        }
    }

    /// Adds an Event as evidence and its reporter as an actor.
    fn reported_by(&mut self, event: &EventRecord) {
        self.actors.push(PastActor::reporter(event));
        self.evidence.push(PastEvidence::event(event));
    }

    /// The actors, or "unknown".
    pub fn actor_label(&self) -> String {
        if self.actors.is_empty() {
            return "unknown".into();
        }
        self.actors
            .iter()
            .map(PastActor::label)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// An object's identity, to find the Events about it.
struct Identity<'a> {
    uid: Option<&'a str>,
    kind: &'a str,
    name: &'a str,
    namespace: Option<&'a str>,
}

impl<'a> Identity<'a> {
    fn of(object: &'a Value) -> Identity<'a> {
        let text = |pointer: &str| {
            object
                .at(pointer)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
        };
        Identity {
            uid: text("/metadata/uid"),
            kind: text("/kind").unwrap_or_default(),
            name: text("/metadata/name").unwrap_or_default(),
            namespace: text("/metadata/namespace"),
        }
    }

    /// Whether `event` is about this object: by uid when both have one, else by kind, name
    /// and namespace.
    fn is_regarded_by(&self, event: &EventRecord) -> bool {
        let regarding = &event.regarding;
        match (regarding.uid.as_deref(), self.uid) {
            (Some(a), Some(b)) => a == b,
            _ => {
                regarding.kind == self.kind
                    && regarding.name == self.name
                    && (regarding.namespace.as_deref() == self.namespace
                        || self.namespace.is_none())
            }
        }
    }
}

/// Whether `message` names `name` as a whole word (`web-1` in `Created pod: web-1`, not in
/// `Created pod: web-12`; a sentence's closing `.` ends a name).
pub(crate) fn names(message: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let continues = |c: char| c.is_ascii_alphanumeric() || c == '-';
    message.match_indices(name).any(|(at, _)| {
        let before = message[..at].chars().next_back();
        let mut after = message[at + name.len()..].chars();
        let continued = match after.next() {
            Some('.') => after.next().is_some_and(|c| c.is_ascii_alphanumeric()),
            Some(c) => continues(c),
            None => false,
        };
        !before.is_some_and(|c| continues(c) || c == '.') && !continued
    })
}

/// The Events the reconstruction reads, each once however many APIs it was read through.
struct EventPool<'a> {
    about_object: Vec<&'a EventRecord>,
    /// About an owner, naming the object in their message.
    from_owners: Vec<&'a EventRecord>,
    used: HashSet<String>,
}

impl<'a> EventPool<'a> {
    fn new(loaded: &Loaded<'a>) -> EventPool<'a> {
        let object = Identity::of(loaded.object);
        let owner_refs: Vec<Identity> = loaded
            .object
            .at("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|r| Identity {
                uid: r.get("uid").and_then(Value::as_str),
                kind: r.get("kind").and_then(Value::as_str).unwrap_or_default(),
                name: r.get("name").and_then(Value::as_str).unwrap_or_default(),
                namespace: object.namespace,
            })
            .chain(loaded.owners.iter().map(Identity::of))
            .collect();
        let mut seen = HashSet::new();
        let mut about_object = Vec::new();
        let mut from_owners = Vec::new();
        for event in loaded.events {
            if !seen.insert(event.uid.as_str()) {
                continue;
            }
            if object.is_regarded_by(event) {
                about_object.push(event);
            } else if owner_refs.iter().any(|o| o.is_regarded_by(event))
                && names(&event.message, object.name)
            {
                from_owners.push(event);
            }
        }
        EventPool {
            about_object,
            from_owners,
            used: HashSet::new(),
        }
    }

    /// The unused Events about the object matching `wanted`, now marked used.
    fn take_about(&mut self, wanted: impl Fn(&EventRecord) -> bool) -> Vec<&'a EventRecord> {
        take(&self.about_object, &mut self.used, wanted)
    }

    fn take_from_owners(&mut self, wanted: impl Fn(&EventRecord) -> bool) -> Vec<&'a EventRecord> {
        take(&self.from_owners, &mut self.used, wanted)
    }
}

fn take<'a>(
    events: &[&'a EventRecord],
    used: &mut HashSet<String>,
    wanted: impl Fn(&EventRecord) -> bool,
) -> Vec<&'a EventRecord> {
    let found: Vec<&'a EventRecord> = events
        .iter()
        .copied()
        .filter(|e| !used.contains(&e.uid) && wanted(e))
        .collect();
    used.extend(found.iter().map(|e| e.uid.clone()));
    found
}

fn text<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.at(pointer).and_then(Value::as_str)
}

fn second_of(text: Option<&str>) -> Option<i64> {
    text.and_then(parse_timestamp).map(|ms| ms.div_euclid(1000))
}

/// The fields an entry owns in `object`, two levels deep, in the object's order.
fn owned_fields(object: &Value, entry: &ManagedEntry) -> Vec<String> {
    let mut fields: Vec<String> = Vec::new();
    for path in FieldSet::parse(&entry.fields).owned_paths(object) {
        let named: Vec<&str> = path
            .iter()
            .take(2)
            .map_while(|step| match step {
                Step::Field(name) => Some(name.as_str()),
                Step::Index(_) => None,
            })
            .collect();
        let field = named.join(".");
        if !field.is_empty() && !fields.contains(&field) {
            fields.push(field);
        }
    }
    // A map's own path and its keys both show; keep the deeper names only once.
    fields
        .iter()
        .filter(|f| {
            !fields
                .iter()
                .any(|g| g != *f && g.starts_with(&format!("{f}.")))
        })
        .cloned()
        .collect()
}

/// The managers owning anything at, under or (whole) above `prefix` in `object`.
fn owners_under(object: &Value, entries: &[ManagedEntry], prefix: &[Step]) -> Vec<String> {
    let mut owners: Vec<String> = Vec::new();
    for entry in entries {
        let owns = FieldSet::parse(&entry.fields)
            .owned_paths(object)
            .iter()
            // Owning a whole list (an atomic one: `f:containerStatuses: {}`) owns its items.
            .any(|path| path.starts_with(prefix) || prefix.starts_with(path));
        if owns && !owners.contains(&entry.manager) {
            owners.push(entry.manager.clone());
        }
    }
    owners
}

/// Who created an object, as far as managedFields say: the managers of the main resource
/// whose last write is in the second of its creation.
struct Creators {
    entries: Vec<ManagedEntry>,
    unknown: Vec<String>,
}

fn creators(object: &Value) -> Creators {
    let entries = managed_entries(object);
    let created = second_of(text(object, "/metadata/creationTimestamp"));
    let main: Vec<&ManagedEntry> = entries
        .iter()
        .filter(|e| e.subresource.is_empty())
        .collect();
    let at_creation: Vec<ManagedEntry> = main
        .iter()
        .filter(|e| created.is_some() && second_of(e.time.as_deref()) == created)
        .map(|e| (*e).clone())
        .collect();
    let later: Vec<&str> = main
        .iter()
        .filter(|e| !at_creation.iter().any(|c| c.identity() == e.identity()))
        .map(|e| e.manager.as_str())
        .collect();
    let mut unknown = Vec::new();
    if entries.is_empty() {
        unknown.push("no managedFields: who created it is not recorded".to_string());
    } else if at_creation.is_empty() {
        unknown.push(
            "no managedFields entry has the creation time: managedFields keep each manager's \
             last write only, and the creator wrote again later"
                .to_string(),
        );
    } else {
        if at_creation.len() > 1 {
            let names: Vec<&str> = at_creation.iter().map(|e| e.manager.as_str()).collect();
            unknown.push(format!(
                "{} each last wrote in the second it was created: which of them created it is \
                 not recorded",
                names.join(", ")
            ));
        }
        if !later.is_empty() {
            unknown.push(format!(
                "managedFields keep each manager's last write only: {} wrote later, and may \
                 have created it",
                later.join(", ")
            ));
        }
    }
    Creators {
        entries: at_creation,
        unknown,
    }
}

fn created(object: &Value, pool: &mut EventPool) -> Option<PastEntry> {
    let timestamp = text(object, "/metadata/creationTimestamp");
    let mut entry = PastEntry::new(PastTime::of_text(timestamp), PastKind::Created);
    match timestamp {
        Some(t) => entry
            .evidence
            .push(PastEvidence::field("metadata.creationTimestamp", t)),
        None => entry
            .unknown
            .push("no metadata.creationTimestamp: when it was created is not recorded".into()),
    }
    let found = creators(object);
    for creator in &found.entries {
        entry.actors.push(PastActor::manager(
            &creator.manager,
            ActorSource::ManagedFieldsEntry,
        ));
        entry.evidence.push(PastEvidence::entry(creator));
    }
    entry.unknown.extend(found.unknown);
    // The controller that made it says so about itself: "Created pod: web-1".
    for event in pool.take_from_owners(|e| e.reason == "SuccessfulCreate") {
        entry.reported_by(event);
    }
    Some(entry)
}

fn deletion(object: &Value, pool: &mut EventPool) -> Option<PastEntry> {
    let timestamp = text(object, "/metadata/deletionTimestamp")?;
    let grace = object
        .at("/metadata/deletionGracePeriodSeconds")
        .and_then(Value::as_i64);
    // The timestamp is when the object may go: the request plus its grace period.
    let time = match (parse_timestamp(timestamp), grace) {
        (Some(at), Some(grace)) => PastTime::At(at - grace.saturating_mul(1000)),
        (Some(at), None) => PastTime::At(at),
        (None, _) => PastTime::Unknown,
    };
    let finalizers = object
        .at("/metadata/finalizers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    let mut entry = PastEntry::new(
        time,
        PastKind::DeletionStarted {
            grace_period_seconds: grace,
            finalizers,
        },
    );
    entry
        .evidence
        .push(PastEvidence::field("metadata.deletionTimestamp", timestamp));
    if let Some(grace) = grace {
        entry.evidence.push(PastEvidence::field(
            "metadata.deletionGracePeriodSeconds",
            grace.to_string(),
        ));
    }
    for event in pool.take_from_owners(|e| e.reason == "SuccessfulDelete") {
        entry.reported_by(event);
    }
    if entry.actors.is_empty() {
        entry
            .unknown
            .push("a delete records no manager: who asked for it is not recorded".into());
    }
    Some(entry)
}

/// A Pod's binding: the scheduler's `Scheduled` Event, else the `PodScheduled` condition.
/// Returns whether it stands on the condition (then no ConditionChanged repeats it).
fn scheduled(object: &Value, pool: &mut EventPool) -> Option<(PastEntry, bool)> {
    let node_name = text(object, "/spec/nodeName").filter(|n| !n.is_empty());
    let condition = object
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| {
            c.get("type").and_then(Value::as_str) == Some("PodScheduled")
                && c.get("status").and_then(Value::as_str) == Some("True")
        });
    let events = pool.take_about(|e| e.reason == "Scheduled");
    if node_name.is_none() && condition.is_none() && events.is_empty() {
        return None;
    }
    // "Successfully assigned demo/web-1 to node-1"
    let from_message = events.iter().find_map(|e| {
        e.message
            .rsplit_once(" to ")
            .map(|(_, node)| node.trim().to_string())
            .filter(|n| !n.is_empty() && !n.contains(' '))
    });
    let node = from_message.or_else(|| node_name.map(str::to_string));
    let transition = condition.and_then(|c| c.get("lastTransitionTime").and_then(Value::as_str));
    let time = match events.first() {
        Some(event) => PastTime::of_event(event),
        None => PastTime::of_text(transition),
    };
    let mut entry = PastEntry::new(time, PastKind::Scheduled { node });
    for event in &events {
        entry.reported_by(event);
    }
    if let Some(node) = node_name {
        entry
            .evidence
            .push(PastEvidence::field("spec.nodeName", node));
    }
    if let Some(t) = transition {
        entry.evidence.push(PastEvidence::field(
            "status.conditions[type=PodScheduled].lastTransitionTime",
            t,
        ));
    }
    if events.is_empty() {
        entry.unknown.push(
            "no Scheduled Event (kept for an hour): a binding records no manager, so who \
             bound it is not recorded"
                .into(),
        );
    }
    if matches!(entry.time, PastTime::Unknown) {
        entry
            .unknown
            .push("neither an Event nor the PodScheduled condition says when".into());
    }
    Some((entry, condition.is_some()))
}

fn conditions(object: &Value, skip: Option<&str>) -> Vec<PastEntry> {
    let entries = managed_entries(object);
    let list = object
        .at("/status/conditions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    list.iter()
        .enumerate()
        .filter_map(|(index, condition)| {
            let kind = condition.get("type").and_then(Value::as_str)?;
            if Some(kind) == skip {
                return None;
            }
            let field = |key: &str| {
                condition
                    .get(key)
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
            };
            let transition = condition.get("lastTransitionTime").and_then(Value::as_str);
            let mut entry = PastEntry::new(
                PastTime::of_text(transition),
                PastKind::ConditionChanged {
                    condition: kind.to_string(),
                    status: field("status").unwrap_or_default(),
                    reason: field("reason"),
                    message: field("message"),
                },
            );
            let path = format!("status.conditions[type={kind}].lastTransitionTime");
            match transition {
                Some(t) => entry.evidence.push(PastEvidence::field(path, t)),
                None => entry
                    .unknown
                    .push(format!("no {path}: when it changed is not recorded")),
            }
            let owners = owners_under(
                object,
                &entries,
                &[
                    Step::Field("status".into()),
                    Step::Field("conditions".into()),
                    Step::Index(index),
                ],
            );
            entry.unknown.push(if owners.is_empty() {
                "who changed it is not recorded".into()
            } else {
                format!(
                    "who changed it is not recorded (the condition is now owned by {})",
                    owners.join(", ")
                )
            });
            Some(entry)
        })
        .collect()
}

/// `Started container web`, or an Event on `spec.containers{web}`.
fn is_about_container(event: &EventRecord, container: &str, init: bool) -> bool {
    let field = if init {
        "spec.initContainers"
    } else {
        "spec.containers"
    };
    event.regarding.field_path.as_deref() == Some(&format!("{field}{{{container}}}"))
        || event
            .message
            .strip_prefix("Started container")
            .is_some_and(|rest| rest.trim_start_matches(':').trim() == container)
}

fn containers(object: &Value, pool: &mut EventPool) -> Vec<PastEntry> {
    let entries = managed_entries(object);
    let mut out = Vec::new();
    for (list, init) in [
        ("containerStatuses", false),
        ("initContainerStatuses", true),
    ] {
        let statuses = object
            .at(&format!("/status/{list}"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (index, status) in statuses.iter().enumerate() {
            let Some(name) = status.get("name").and_then(Value::as_str) else {
                continue;
            };
            let restart_count = status
                .get("restartCount")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let base = format!("status.{list}[name={name}]");
            let owners = owners_under(
                object,
                &entries,
                &[
                    Step::Field("status".into()),
                    Step::Field(list.into()),
                    Step::Index(index),
                ],
            );
            let writers = |entry: &mut PastEntry| {
                if entry.actors.is_empty() {
                    entry.actors.extend(
                        owners
                            .iter()
                            .map(|o| PastActor::manager(o, ActorSource::FieldOwner)),
                    );
                }
                if entry.actors.is_empty() {
                    entry.unknown.push("who reported it is not recorded".into());
                }
            };
            let state = status.get("state");
            let running = state.and_then(|s| s.get("running"));
            let terminated = state.and_then(|s| s.get("terminated"));
            let started_at = running
                .or(terminated)
                .and_then(|s| s.get("startedAt"))
                .and_then(Value::as_str);
            if let Some(started_at) = started_at {
                let state_name = if running.is_some() {
                    "running"
                } else {
                    "terminated"
                };
                let mut entry = PastEntry::new(
                    PastTime::of_text(Some(started_at)),
                    PastKind::ContainerStarted {
                        container: name.to_string(),
                        init,
                        restart_count,
                    },
                );
                entry.evidence.push(PastEvidence::field(
                    format!("{base}.state.{state_name}.startedAt"),
                    started_at,
                ));
                for event in
                    pool.take_about(|e| e.reason == "Started" && is_about_container(e, name, init))
                {
                    entry.reported_by(event);
                }
                writers(&mut entry);
                out.push(entry);
            }
            if let Some(terminated) = terminated {
                let finished = terminated.get("finishedAt").and_then(Value::as_str);
                let mut entry = PastEntry::new(
                    PastTime::of_text(finished),
                    PastKind::ContainerTerminated {
                        container: name.to_string(),
                        init,
                        exit_code: terminated.get("exitCode").and_then(Value::as_i64),
                        reason: text(terminated, "/reason").map(str::to_string),
                    },
                );
                if let Some(finished) = finished {
                    entry.evidence.push(PastEvidence::field(
                        format!("{base}.state.terminated.finishedAt"),
                        finished,
                    ));
                }
                writers(&mut entry);
                out.push(entry);
            }
            let last = status.at("/lastState/terminated");
            if let Some(last) = last {
                let finished = last.get("finishedAt").and_then(Value::as_str);
                let exit_code = last.get("exitCode").and_then(Value::as_i64);
                let mut entry = PastEntry::new(
                    PastTime::of_text(finished),
                    PastKind::ContainerRestarted {
                        container: name.to_string(),
                        init,
                        restart_count,
                        exit_code,
                        reason: text(last, "/reason").map(str::to_string),
                    },
                );
                if let Some(finished) = finished {
                    entry.evidence.push(PastEvidence::field(
                        format!("{base}.lastState.terminated.finishedAt"),
                        finished,
                    ));
                }
                if let Some(code) = exit_code {
                    entry.evidence.push(PastEvidence::field(
                        format!("{base}.lastState.terminated.exitCode"),
                        code.to_string(),
                    ));
                }
                entry.evidence.push(PastEvidence::field(
                    format!("{base}.restartCount"),
                    restart_count.to_string(),
                ));
                if restart_count > 1 {
                    entry.unknown.push(format!(
                        "restartCount is {restart_count}: only the last ending is kept; the \
                         earlier {} are not recorded",
                        restart_count - 1
                    ));
                }
                writers(&mut entry);
                out.push(entry);
            } else if restart_count > 0 {
                let mut entry = PastEntry::new(
                    PastTime::Unknown,
                    PastKind::ContainerRestarted {
                        container: name.to_string(),
                        init,
                        restart_count,
                        exit_code: None,
                        reason: None,
                    },
                );
                entry.evidence.push(PastEvidence::field(
                    format!("{base}.restartCount"),
                    restart_count.to_string(),
                ));
                entry
                    .unknown
                    .push("no lastState.terminated: when and how it ended is not recorded".into());
                writers(&mut entry);
                out.push(entry);
            }
        }
    }
    out
}

/// Each manager's last write, except the creator's when that was the creation.
fn writes(object: &Value, creator: Option<&ManagedEntry>) -> Vec<PastEntry> {
    managed_entries(object)
        .into_iter()
        .filter(|entry| creator.is_none_or(|c| c.identity() != entry.identity()))
        .map(|entry| {
            let fields = owned_fields(object, &entry);
            let kind = if entry.subresource == "status" {
                PastKind::StatusWritten {
                    manager: entry.manager.clone(),
                    operation: entry.operation.clone(),
                    fields,
                }
            } else {
                PastKind::Written {
                    manager: entry.manager.clone(),
                    operation: entry.operation.clone(),
                    subresource: entry.subresource.clone(),
                    fields,
                }
            };
            let mut past = PastEntry::new(PastTime::of_text(entry.time.as_deref()), kind);
            past.actors.push(PastActor::manager(
                &entry.manager,
                ActorSource::ManagedFieldsEntry,
            ));
            past.evidence.push(PastEvidence::entry(&entry));
            past.unknown
                .push("managedFields keep this manager's last write only".into());
            past
        })
        .collect()
}

/// `Scaled up replica set web-7d4b9c from 2 to 3` (v1.36), `Scaled down replica set
/// web-7d4b9c to 0` (older releases).
pub fn parse_scaling_message(message: &str) -> Option<(ScaleDirection, String, Option<u64>, u64)> {
    let rest = message.strip_prefix("Scaled ")?;
    let (direction, rest) = if let Some(rest) = rest.strip_prefix("up replica set ") {
        (ScaleDirection::Up, rest)
    } else {
        (
            ScaleDirection::Down,
            rest.strip_prefix("down replica set ")?,
        )
    };
    if let Some((name, counts)) = rest.split_once(" from ") {
        let (from, to) = counts.split_once(" to ")?;
        return Some((
            direction,
            name.to_string(),
            Some(from.trim().parse().ok()?),
            to.trim().parse().ok()?,
        ));
    }
    let (name, to) = rest.rsplit_once(" to ")?;
    Some((direction, name.to_string(), None, to.trim().parse().ok()?))
}

fn scalings(pool: &mut EventPool) -> Vec<PastEntry> {
    let wanted = |e: &EventRecord| {
        e.reason == "ScalingReplicaSet" && parse_scaling_message(&e.message).is_some()
    };
    let mut events = pool.take_about(wanted);
    events.extend(pool.take_from_owners(wanted));
    events
        .into_iter()
        .filter_map(|event| {
            let (direction, replica_set, from, to) = parse_scaling_message(&event.message)?;
            let mut entry = PastEntry::new(
                PastTime::of_event(event),
                PastKind::Scaled {
                    replica_set,
                    direction,
                    from,
                    to,
                },
            );
            entry.reported_by(event);
            if from.is_none() {
                entry
                    .unknown
                    .push("the message does not say the count before".into());
            }
            Some(entry)
        })
        .collect()
}

fn revisions(loaded: &Loaded) -> Vec<PastEntry> {
    let object = loaded.object;
    let (history, holders) = match text(object, "/kind") {
        Some("Deployment") => (rollout_history(object, loaded.owned), loaded.owned),
        Some("StatefulSet" | "DaemonSet") => (
            controller_revision_history(object, loaded.controller_revisions),
            loaded.controller_revisions,
        ),
        _ => return Vec::new(),
    };
    let lowest = history.first().map(|r| r.revision);
    history
        .iter()
        .map(|revision| {
            let holder_kind = match revision.source {
                RevisionSource::ReplicaSet => "ReplicaSet",
                RevisionSource::ControllerRevision => "ControllerRevision",
            };
            let holder_label = format!("{holder_kind} {}", revision.name);
            let mut entry = PastEntry::new(
                revision.created_ms.map_or(PastTime::Unknown, PastTime::At),
                PastKind::RolloutRevision {
                    revision: revision.revision,
                    name: revision.name.clone(),
                    previous: revision.previous,
                    changes: revision.changes.clone(),
                    current: revision.current,
                },
            );
            let holder_field = |path: &str, value: String| PastEvidence::Field {
                object: Some(holder_label.clone()),
                path: path.to_string(),
                value,
            };
            entry.evidence.push(holder_field(
                match revision.source {
                    RevisionSource::ReplicaSet => {
                        "metadata.annotations[deployment.kubernetes.io/revision]"
                    }
                    RevisionSource::ControllerRevision => "revision",
                },
                revision.revision.to_string(),
            ));
            if let Some(created) = &revision.created {
                entry
                    .evidence
                    .push(holder_field("metadata.creationTimestamp", created.clone()));
            }
            // Its creator, as its own managedFields say (the controller's binary).
            if let Some(holder) = holders
                .iter()
                .find(|h| text(h, "/metadata/name") == Some(revision.name.as_str()))
            {
                let found = creators(holder);
                if found.entries.len() == 1 {
                    for creator in &found.entries {
                        entry.actors.push(PastActor::manager(
                            &creator.manager,
                            ActorSource::ManagedFieldsEntry,
                        ));
                    }
                }
            }
            if !revision.earlier_numbers.is_empty() {
                let numbers: Vec<String> = revision
                    .earlier_numbers
                    .iter()
                    .map(u64::to_string)
                    .collect();
                entry.unknown.push(format!(
                    "this template was revision {} before a rollback renumbered it; the time is \
                     when it was first created",
                    numbers.join(", ")
                ));
            }
            if lowest == Some(revision.revision) && revision.revision > 1 {
                entry.unknown.push(format!(
                    "revisions before {} are gone (revisionHistoryLimit): what it changed is \
                     not recorded",
                    revision.revision
                ));
            }
            if entry.actors.is_empty() {
                entry
                    .unknown
                    .push("who created this revision is not recorded".into());
            }
            entry
        })
        .collect()
}

fn events_seen(pool: &mut EventPool) -> Vec<PastEntry> {
    let mut rest = pool.take_about(|_| true);
    rest.extend(pool.take_from_owners(|_| true));
    rest.into_iter()
        .map(|event| {
            let mut entry = PastEntry::new(
                PastTime::of_event(event),
                PastKind::EventSeen {
                    reason: event.reason.clone(),
                    warning: event.event_type.is_warning(),
                    message: event.message.clone(),
                    regarding: event.regarding.describe(),
                },
            );
            if event.reporting_component.is_empty() {
                entry
                    .unknown
                    .push("the Event names no reporting component".into());
            } else {
                entry.actors.push(PastActor::reporter(event));
            }
            entry.evidence.push(PastEvidence::event(event));
            entry
        })
        .collect()
}

/// Orders entries by time (to the second), untimed ones last, and marks where the order is
/// not recorded.
fn ordered(mut entries: Vec<PastEntry>) -> Vec<PastEntry> {
    crate::list::stable_sort::sort_by_key(&mut entries, |e| {
        (
            e.time.second().is_none(),
            e.time.second(),
            e.kind.reading_rank(),
        )
    });
    let mut previous: Option<i64> = None;
    for entry in &mut entries {
        let second = entry.time.second();
        entry.placement = match second {
            None => Placement::Untimed,
            Some(s) if previous == Some(s) => Placement::SameSecondAsPrevious,
            Some(_) => Placement::Later,
        };
        previous = second.or(previous);
    }
    entries
}

/// The object's past as far as what is loaded supports it, oldest first.
pub fn past_entries(loaded: &Loaded) -> Vec<PastEntry> {
    let object = loaded.object;
    let mut pool = EventPool::new(loaded);
    let mut entries = Vec::new();
    let found = creators(object);
    // The creator's entry is folded into Created only when nothing else could have created it.
    let creator = (found.entries.len() == 1)
        .then(|| found.entries.first().cloned())
        .flatten();
    entries.extend(created(object, &mut pool));
    entries.extend(deletion(object, &mut pool));
    let mut skip_condition = None;
    if text(object, "/kind") == Some("Pod") {
        if let Some((entry, on_condition)) = scheduled(object, &mut pool) {
            entries.push(entry);
            if on_condition {
                skip_condition = Some("PodScheduled");
            }
        }
        entries.extend(containers(object, &mut pool));
    }
    entries.extend(conditions(object, skip_condition));
    entries.extend(writes(object, creator.as_ref()));
    entries.extend(scalings(&mut pool));
    entries.extend(revisions(loaded));
    entries.extend(events_seen(&mut pool));
    ordered(entries)
}
