//! Event objects: the reports components write about objects (core/v1 `Event` and
//! events.k8s.io/v1 `Event`, two views of the same stored objects), read into one shape
//! ([`EventRecord`]) and kept in a bounded [`EventLog`] that remembers Events the cluster has
//! already expired. Not to be confused with watch events (ADDED/MODIFIED/DELETED, changes
//! to objects), which are what feeds the log.
//!
//! Pure: the view feeds the log from its watch's [`ObjectCache`] and asks for a filtered,
//! newest-first order; everything here is tested natively.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::Value;

use crate::api::endpoints::{kind_to_resource, split_api_version, NamespaceArg};
use crate::api::tree::{ApiTree, ResourceId};
use crate::list::selector::escape_field_value;
use crate::object::pointer::Pointer;
use crate::object::visible_text::with_visible_controls;
use crate::time::age::{parse_timestamp, EpochMillis};
use crate::watch::{ObjectCache, Output, WatchKey};

/// An Event's `type`: only `Normal` and `Warning` are defined, anything else is kept as sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EventType {
    Normal,
    Warning,
    Other(String),
}

impl EventType {
    pub fn parse(text: &str) -> EventType {
        match text {
            "Normal" => EventType::Normal,
            "Warning" => EventType::Warning,
            other => EventType::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
            EventType::Other(text) => text,
        }
    }

    pub fn is_warning(&self) -> bool {
        *self == EventType::Warning
    }
}

/// Which API an Event was read through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventApi {
    /// `/api/v1/.../events`: `involvedObject`, `message`, `source`, `count`.
    CoreV1,
    /// `/apis/events.k8s.io/v1/.../events`: `regarding`, `note`, `series`.
    EventsV1,
}

impl EventApi {
    pub fn resource(self) -> ResourceId {
        match self {
            EventApi::CoreV1 => ResourceId::new("", "v1", "events"),
            EventApi::EventsV1 => ResourceId::new("events.k8s.io", "v1", "events"),
        }
    }

    /// The field naming the object an Event is about (in JSON and in field selectors).
    pub fn regarding_field(self) -> &'static str {
        match self {
            EventApi::CoreV1 => "involvedObject",
            EventApi::EventsV1 => "regarding",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            EventApi::CoreV1 => "core/v1",
            EventApi::EventsV1 => "events.k8s.io/v1",
        }
    }
}

/// An ObjectReference: what an Event is about (`involvedObject` / `regarding`) or `related`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub uid: Option<String>,
    /// `spec.containers{nginx}`: the part of the object, when the reporter said.
    pub field_path: Option<String>,
}

impl ObjectRef {
    fn of(value: &Value) -> Option<ObjectRef> {
        let value = value.as_object()?;
        let text = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default();
        let optional = |key: &str| {
            Some(text(key))
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        };
        let reference = ObjectRef {
            api_version: text("apiVersion").to_string(),
            kind: text("kind").to_string(),
            namespace: optional("namespace"),
            name: text("name").to_string(),
            uid: optional("uid"),
            field_path: optional("fieldPath"),
        };
        (!reference.kind.is_empty() || !reference.name.is_empty()).then_some(reference)
    }

    /// `Pod demo/web-1`, `Node node-1`.
    pub fn describe(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }

    /// The resource serving this kind, when discovery knows it: the version named, else the
    /// group's preferred one (an Event may name a version no longer served).
    pub fn resource(&self, tree: &ApiTree) -> Option<(ResourceId, bool)> {
        let (group, version) = split_api_version(&self.api_version);
        if let Ok(found) = kind_to_resource(tree, group, version, &self.kind) {
            return Some((found.id(), found.resource.namespaced));
        }
        let preferred = tree.group(group)?.preferred()?;
        kind_to_resource(tree, group, &preferred.version, &self.kind)
            .ok()
            .map(|found| (found.id(), found.resource.namespaced))
    }
}

/// One Event object, from either API, in one shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRecord {
    pub uid: String,
    pub namespace: Option<String>,
    pub name: String,
    pub api: EventApi,
    pub event_type: EventType,
    pub reason: String,
    /// core `message` / events.k8s.io `note`: text, never markup.
    pub message: String,
    /// core `involvedObject` / events.k8s.io `regarding`.
    pub regarding: ObjectRef,
    pub related: Option<ObjectRef>,
    /// reportingComponent / reportingController / source.component (first non-empty).
    pub reporting_component: String,
    /// reportingInstance / source.host.
    pub reporting_instance: String,
    pub action: String,
    /// How often it happened: core `count`, `series.count`, deprecatedCount; at least 1.
    pub count: u32,
    pub first_seen_ms: Option<EpochMillis>,
    pub last_seen_ms: Option<EpochMillis>,
    pub resource_version: String,
    /// Deleted from the cluster (the one-hour TTL, or by someone) while it was shown.
    pub expired: bool,
}

/// Which API an object is an Event of: by apiVersion, else (list items may come without
/// apiVersion and kind) by the fields only one of the two shapes has.
fn api_of(object: &Value) -> Option<EventApi> {
    let has = |key: &str| object.get(key).is_some_and(|v| !v.is_null());
    if let Some(kind) = object.get("kind").and_then(Value::as_str) {
        if kind != "Event" {
            return None;
        }
    }
    match object.get("apiVersion").and_then(Value::as_str) {
        Some("v1") => Some(EventApi::CoreV1),
        Some(version) if version.starts_with("events.k8s.io/") => Some(EventApi::EventsV1),
        Some(_) => None,
        None if has("regarding") || has("note") || has("reportingController") => {
            Some(EventApi::EventsV1)
        }
        None if has("involvedObject") => Some(EventApi::CoreV1),
        None => None,
    }
}

/// Reads an Event object of either API; None when it is not an Event.
pub fn event_record(object: &Value) -> Option<EventRecord> {
    let api = api_of(object)?;
    let metadata = object.get("metadata")?;
    let meta_text = |key: &str| {
        metadata
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let name = meta_text("name").to_string();
    if name.is_empty() {
        return None;
    }
    let namespace = Some(meta_text("namespace"))
        .filter(|ns| !ns.is_empty())
        .map(str::to_string);
    // Every stored object has a uid; without one, (namespace, name) still tells them apart.
    let uid = match meta_text("uid") {
        "" => format!("{}/{name}", namespace.as_deref().unwrap_or_default()),
        uid => uid.to_string(),
    };
    let text = |pointer: &str| object.at(pointer).and_then(Value::as_str);
    let first_text = |pointers: &[&str]| {
        pointers
            .iter()
            .filter_map(|p| text(p))
            .find(|t| !t.is_empty())
            .unwrap_or_default()
            .to_string()
    };
    let time = |pointer: &str| text(pointer).and_then(parse_timestamp);
    let number = |pointer: &str| object.at(pointer).and_then(Value::as_u64);
    let (message, regarding, component, instance, counts, first, lasts) = match api {
        EventApi::CoreV1 => (
            "/message",
            "/involvedObject",
            ["/reportingComponent", "/source/component"],
            ["/reportingInstance", "/source/host"],
            ["/count", "/series/count"],
            "/firstTimestamp",
            ["/lastTimestamp", "/series/lastObservedTime"],
        ),
        EventApi::EventsV1 => (
            "/note",
            "/regarding",
            ["/reportingController", "/deprecatedSource/component"],
            ["/reportingInstance", "/deprecatedSource/host"],
            ["/deprecatedCount", "/series/count"],
            "/deprecatedFirstTimestamp",
            ["/deprecatedLastTimestamp", "/series/lastObservedTime"],
        ),
    };
    let count = counts
        .iter()
        .filter_map(|p| number(p))
        .max()
        .unwrap_or(1)
        .clamp(1, u64::from(u32::MAX)) as u32;
    let event_time = time("/eventTime");
    let first_seen_ms = time(first)
        .or(event_time)
        .or_else(|| time("/metadata/creationTimestamp"));
    // The newest of the times a recorder may have moved on: which one it moved depends on
    // the API it wrote through.
    let last_seen_ms = lasts
        .iter()
        .filter_map(|p| time(p))
        .chain(event_time)
        .max()
        .or(first_seen_ms);
    Some(EventRecord {
        uid,
        namespace,
        name,
        api,
        event_type: EventType::parse(text("/type").unwrap_or("Normal")),
        reason: text("/reason").unwrap_or_default().to_string(),
        // Shown as is in timelines and the activity view: controls made visible.
        message: with_visible_controls(text(message).unwrap_or_default()).into_owned(),
        regarding: object
            .at(regarding)
            .and_then(ObjectRef::of)
            .unwrap_or_default(),
        related: object.get("related").and_then(ObjectRef::of),
        reporting_component: first_text(&component),
        reporting_instance: first_text(&instance),
        action: text("/action").unwrap_or_default().to_string(),
        count,
        first_seen_ms,
        last_seen_ms,
        resource_version: meta_text("resourceVersion").to_string(),
        expired: false,
    })
}

/// Which Event objects a timeline shows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EventScope {
    All,
    Namespace(String),
    /// Events about one object (found by uid; name and kind where uid selectors fail).
    Object {
        namespace: Option<String>,
        uid: String,
        kind: String,
        name: String,
    },
}

impl EventScope {
    /// The namespace whose Events collection is read. Events about a cluster-scoped object
    /// (a Node) live in some namespace (`default`), so those read all namespaces.
    pub fn collection_namespace(&self) -> Option<&str> {
        match self {
            EventScope::All => None,
            EventScope::Namespace(ns) => Some(ns),
            EventScope::Object { namespace, .. } => namespace.as_deref(),
        }
    }

    /// The field selector for `api`: the object's uid, or (`by_uid` false, for servers that
    /// do not select on uid) its kind and name.
    pub fn field_selector(&self, api: EventApi, by_uid: bool) -> String {
        let EventScope::Object {
            uid, kind, name, ..
        } = self
        else {
            return String::new();
        };
        let field = api.regarding_field();
        if by_uid {
            format!("{field}.uid={}", escape_field_value(uid))
        } else {
            format!(
                "{field}.kind={},{field}.name={}",
                escape_field_value(kind),
                escape_field_value(name)
            )
        }
    }

    /// What the log must still check itself: selectors by name also match Events about an
    /// earlier object of that name.
    pub fn base_filter(&self) -> EventFilter {
        match self {
            EventScope::Object { uid, .. } => EventFilter {
                regarding_uid: Some(uid.clone()),
                ..EventFilter::default()
            },
            _ => EventFilter::default(),
        }
    }

    /// A short phrase for headings: `all namespaces`, `namespace demo`, `Pod web-1`.
    pub fn describe(&self) -> String {
        match self {
            EventScope::All => "all namespaces".to_string(),
            EventScope::Namespace(ns) => format!("namespace {ns}"),
            EventScope::Object { kind, name, .. } => format!("{kind} {name}"),
        }
    }
}

/// The Events API to watch: events.k8s.io/v1 where discovery serves it (list and watch),
/// else core/v1. Both show the same stored objects, so only one is watched.
pub fn events_api(tree: &ApiTree) -> Option<EventApi> {
    [EventApi::EventsV1, EventApi::CoreV1]
        .into_iter()
        .find(|api| {
            tree.find(&api.resource()).is_some_and(|found| {
                found.resource.supports("list") && found.resource.supports("watch")
            })
        })
}

/// The watch of `scope`'s Events through `api` (None when discovery does not serve it).
pub fn events_watch_key(
    tree: &ApiTree,
    api: EventApi,
    scope: &EventScope,
    by_uid: bool,
) -> Option<WatchKey> {
    let found = tree.find(&api.resource())?;
    let namespace = match scope.collection_namespace() {
        Some(ns) => NamespaceArg::Named(ns),
        None => NamespaceArg::All,
    };
    let path = found.collection_path(namespace).template();
    Some(WatchKey::new(path, Output::Objects).with_fields(scope.field_selector(api, by_uid)))
}

/// Which records a view shows. Empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    pub warnings_only: bool,
    /// Case-insensitive, over reason, message, component, instance, type and the object.
    pub text: String,
    pub reason: Option<String>,
    pub component: Option<String>,
    pub regarding_uid: Option<String>,
    pub regarding_kind: Option<String>,
    pub regarding_name: Option<String>,
}

impl EventFilter {
    /// A matcher with the search text lower-cased once.
    pub fn matcher(&self) -> EventMatcher<'_> {
        EventMatcher {
            filter: self,
            needle: self.text.trim().to_lowercase(),
        }
    }
}

pub struct EventMatcher<'a> {
    filter: &'a EventFilter,
    needle: String,
}

impl EventMatcher<'_> {
    pub fn matches(&self, record: &EventRecord) -> bool {
        let f = self.filter;
        let same =
            |wanted: &Option<String>, actual: &str| wanted.as_deref().is_none_or(|w| w == actual);
        if f.warnings_only && !record.event_type.is_warning() {
            return false;
        }
        if !same(&f.reason, &record.reason)
            || !same(&f.component, &record.reporting_component)
            || !same(&f.regarding_kind, &record.regarding.kind)
            || !same(&f.regarding_name, &record.regarding.name)
            || !same(
                &f.regarding_uid,
                record.regarding.uid.as_deref().unwrap_or_default(),
            )
        {
            return false;
        }
        if self.needle.is_empty() {
            return true;
        }
        let contains = |text: &str| text.to_lowercase().contains(&self.needle);
        [
            record.reason.as_str(),
            record.message.as_str(),
            record.reporting_component.as_str(),
            record.reporting_instance.as_str(),
            record.event_type.as_str(),
            record.regarding.kind.as_str(),
            record.regarding.name.as_str(),
            record.regarding.namespace.as_deref().unwrap_or_default(),
        ]
        .into_iter()
        .any(contains)
    }
}

/// Records kept by default: a few hours of a busy namespace.
pub const DEFAULT_CAPACITY: usize = 5_000;

/// What one merge did, for the view's counts and for tests of its cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MergeSummary {
    /// Objects read into records (new, or a new resourceVersion); unchanged ones are not.
    pub parsed: usize,
    pub expired: usize,
    pub dropped: usize,
}

impl MergeSummary {
    pub fn changed(&self) -> bool {
        self.parsed + self.expired + self.dropped > 0
    }
}

/// Every Event seen, by uid, at most `capacity` of them (the least recently seen go first,
/// counted in `dropped`). A new version of an Event replaces the old one; an Event deleted
/// from the cluster stays, marked expired.
#[derive(Debug, Clone, PartialEq)]
pub struct EventLog {
    records: HashMap<String, EventRecord>,
    /// (last seen, uid) in ascending order: the oldest is evicted first, the view reads it
    /// backwards. Records without a time sort first.
    order: BTreeSet<(EpochMillis, String)>,
    capacity: usize,
    dropped: u64,
    /// uid → resourceVersion of Events dropped for room: the same version, still in the
    /// watch's cache, is not read (and dropped) again on every merge.
    dropped_versions: HashMap<String, String>,
    revision: u64,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog::new(DEFAULT_CAPACITY)
    }
}

fn order_key(record: &EventRecord) -> (EpochMillis, String) {
    (
        record.last_seen_ms.unwrap_or(EpochMillis::MIN),
        record.uid.clone(),
    )
}

impl EventLog {
    pub fn new(capacity: usize) -> EventLog {
        EventLog {
            records: HashMap::new(),
            order: BTreeSet::new(),
            capacity: capacity.max(1),
            dropped: 0,
            dropped_versions: HashMap::new(),
            revision: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Records dropped to stay within capacity.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bumped on every change.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn get(&self, uid: &str) -> Option<&EventRecord> {
        self.records.get(uid)
    }

    /// Records, expired ones too.
    pub fn expired_count(&self) -> usize {
        self.records.values().filter(|r| r.expired).count()
    }

    /// Adds or replaces a record; returns how many were dropped to stay within capacity
    /// (this one, when the log is full of newer ones).
    pub fn upsert(&mut self, record: EventRecord) -> usize {
        if self.records.get(&record.uid) == Some(&record) {
            return 0;
        }
        let held = self.records.contains_key(&record.uid);
        let full = self.records.len() >= self.capacity;
        if !held
            && full
            && self
                .order
                .first()
                .is_some_and(|oldest| order_key(&record) < *oldest)
        {
            return self.note_dropped(record.uid, record.resource_version);
        }
        self.revision += 1;
        if let Some(old) = self.records.remove(&record.uid) {
            self.order.remove(&order_key(&old));
        }
        self.dropped_versions.remove(&record.uid);
        self.order.insert(order_key(&record));
        self.records.insert(record.uid.clone(), record);
        let mut dropped = 0;
        while self.records.len() > self.capacity {
            let Some((_, uid)) = self.order.pop_first() else {
                break;
            };
            if let Some(old) = self.records.remove(&uid) {
                dropped += self.note_dropped(old.uid, old.resource_version);
            }
        }
        dropped
    }

    /// Counts a dropped Event once per version; 1 when it was not counted before.
    fn note_dropped(&mut self, uid: String, resource_version: String) -> usize {
        if self.dropped_versions.get(&uid) == Some(&resource_version) {
            return 0;
        }
        // Bounded too: forgetting only means an old version may be read and dropped again.
        if self.dropped_versions.len() >= 2 * self.capacity {
            self.dropped_versions.clear();
        }
        self.dropped_versions.insert(uid, resource_version);
        self.dropped += 1;
        self.revision += 1;
        1
    }

    /// Marks a record expired (its DELETED arrived); false when unknown or already marked.
    pub fn mark_expired(&mut self, uid: &str) -> bool {
        match self.records.get_mut(uid) {
            Some(record) if !record.expired => {
                record.expired = true;
                self.revision += 1;
                true
            }
            _ => false,
        }
    }

    /// Applies one watch change directly: an Event object added or modified, or deleted.
    pub fn apply_object(&mut self, object: &Value, deleted: bool) -> MergeSummary {
        let Some(mut record) = event_record(object) else {
            return MergeSummary::default();
        };
        if deleted {
            let known = self.records.contains_key(&record.uid);
            if !known {
                record.expired = true;
                let dropped = self.upsert(record);
                return MergeSummary {
                    parsed: 1,
                    expired: 1,
                    dropped,
                };
            }
            let expired = usize::from(self.mark_expired(&record.uid));
            return MergeSummary {
                expired,
                ..MergeSummary::default()
            };
        }
        let dropped = self.upsert(record);
        MergeSummary {
            parsed: 1,
            dropped,
            ..MergeSummary::default()
        }
    }

    /// Brings the log up to `cache`, the watch's current Events. Only objects with a
    /// resourceVersion the log does not hold are read (a few pointer lookups and a hash
    /// lookup for the others), so a merge after one change in thousands of Events costs one
    /// parse. `complete`: the cache holds the whole collection (its list finished), so a
    /// record missing from it was deleted and is marked expired.
    pub fn merge_snapshot(&mut self, cache: &ObjectCache, complete: bool) -> MergeSummary {
        let mut summary = MergeSummary::default();
        // Cache objects that are records not expired: when they are as many as such records,
        // none is missing, and no set of uids is built.
        let mut present = 0usize;
        for object in cache.iter() {
            let metadata = object.get("metadata");
            let field = |key: &str| metadata.and_then(|m| m.get(key)).and_then(Value::as_str);
            let version = field("resourceVersion").unwrap_or_default();
            if let Some(uid) = field("uid") {
                match self.records.get(uid) {
                    Some(held) if !held.expired && held.resource_version == version => {
                        present += 1;
                        continue;
                    }
                    None if self.dropped_versions.get(uid).is_some_and(|v| v == version) => {
                        continue;
                    }
                    _ => {}
                }
            }
            let Some(record) = event_record(object) else {
                continue;
            };
            summary.parsed += 1;
            let uid = record.uid.clone();
            summary.dropped += self.upsert(record);
            present += usize::from(self.records.contains_key(&uid));
        }
        let live = self.records.values().filter(|r| !r.expired).count();
        // Records dropped meanwhile may have been counted present: check properly then.
        if complete && (live > present || summary.dropped > 0) {
            let uids: HashSet<String> = cache.iter().filter_map(event_record_uid).collect();
            let missing: Vec<String> = self
                .records
                .values()
                .filter(|r| !r.expired && !uids.contains(&r.uid))
                .map(|r| r.uid.clone())
                .collect();
            for uid in missing {
                summary.expired += usize::from(self.mark_expired(&uid));
            }
        }
        summary
    }

    /// Matching records, newest first by last seen.
    pub fn newest_first<'a>(
        &'a self,
        filter: &'a EventFilter,
    ) -> impl Iterator<Item = &'a EventRecord> + 'a {
        let matcher = filter.matcher();
        self.order
            .iter()
            .rev()
            .filter_map(|(_, uid)| self.records.get(uid))
            .filter(move |record| matcher.matches(record))
    }

    /// Counts of matching records: (all, warnings).
    pub fn counts(&self, filter: &EventFilter) -> (usize, usize) {
        let matcher = filter.matcher();
        self.records
            .values()
            .filter(|r| matcher.matches(r))
            .fold((0, 0), |(all, warnings), r| {
                (all + 1, warnings + usize::from(r.event_type.is_warning()))
            })
    }
}

/// The uid [`event_record`] gives an object, without reading the rest of it.
fn event_record_uid(object: &Value) -> Option<String> {
    let metadata = object.get("metadata")?;
    let field = |key: &str| {
        metadata
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    match field("uid") {
        "" if field("name").is_empty() => None,
        "" => Some(format!("{}/{}", field("namespace"), field("name"))),
        uid => Some(uid.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::tests::sample_tree;
    use crate::watch::{StoreChange, WatchStore};
    use serde_json::json;

    /// What the kubelet writes through core/v1 (as the demo cluster's recorder does).
    fn kubelet_pulled(uid: &str, rv: &str, count: u64, last: &str) -> Value {
        json!({
            "kind": "Event", "apiVersion": "v1",
            "metadata": {"name": "web-1.17c4a1b2d3e4f5a6", "namespace": "demo", "uid": uid,
                "resourceVersion": rv, "creationTimestamp": "2024-05-01T12:00:03Z"},
            "involvedObject": {"kind": "Pod", "namespace": "demo", "name": "web-1",
                "uid": "pod-uid-1", "apiVersion": "v1", "resourceVersion": "4321",
                "fieldPath": "spec.containers{nginx}"},
            "reason": "Pulled",
            "message": "Successfully pulled image \"nginx\" in 1.2s (1.2s including waiting). Image size: 72099410 bytes.",
            "source": {"component": "kubelet", "host": "node-1"},
            "firstTimestamp": "2024-05-01T12:00:03Z", "lastTimestamp": last, "count": count,
            "type": "Normal", "eventTime": null,
            "reportingComponent": "kubelet", "reportingInstance": "node-1"
        })
    }

    /// The scheduler writes through events.k8s.io; read through core/v1 it has `eventTime`,
    /// `series`, `action`, an empty `source` and no first/last timestamps.
    fn scheduled_as_core() -> Value {
        json!({
            "kind": "Event", "apiVersion": "v1",
            "metadata": {"name": "web-1.17c4a1b2d3e40000", "namespace": "demo", "uid": "ev-s",
                "resourceVersion": "50", "creationTimestamp": "2024-05-01T12:00:01Z"},
            "involvedObject": {"kind": "Pod", "namespace": "demo", "name": "web-1",
                "uid": "pod-uid-1", "apiVersion": "v1"},
            "reason": "Scheduled", "message": "Successfully assigned demo/web-1 to node-1",
            "source": {}, "firstTimestamp": null, "lastTimestamp": null,
            "type": "Normal", "action": "Binding",
            "eventTime": "2024-05-01T12:00:01.123456Z",
            "series": {"count": 3, "lastObservedTime": "2024-05-01T12:05:00.000000Z"},
            "reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-cp"
        })
    }

    fn backoff_v1(uid: &str, rv: &str) -> Value {
        json!({
            "kind": "Event", "apiVersion": "events.k8s.io/v1",
            "metadata": {"name": "flaky-5d9c.17c4", "namespace": "demo", "uid": uid,
                "resourceVersion": rv, "creationTimestamp": "2024-05-01T12:00:10Z"},
            "eventTime": null,
            "reportingController": "kubelet", "reportingInstance": "node-2",
            "action": "", "reason": "BackOff", "type": "Warning",
            "regarding": {"kind": "Pod", "namespace": "demo", "name": "flaky-5d9c",
                "uid": "pod-uid-2", "apiVersion": "v1", "fieldPath": "spec.containers{app}"},
            "related": {"kind": "Node", "name": "node-2", "apiVersion": "v1"},
            "note": "Back-off restarting failed container app in pod flaky-5d9c_demo(pod-uid-2)",
            "deprecatedSource": {"component": "kubelet", "host": "node-2"},
            "deprecatedFirstTimestamp": "2024-05-01T12:00:10Z",
            "deprecatedLastTimestamp": "2024-05-01T12:09:10Z",
            "deprecatedCount": 7
        })
    }

    fn at(text: &str) -> Option<EpochMillis> {
        parse_timestamp(text)
    }

    #[test]
    fn reads_core_v1_events_as_the_kubelet_writes_them() {
        let record = event_record(&kubelet_pulled("ev-1", "10", 1, "2024-05-01T12:00:03Z"))
            .expect("an Event");
        assert_eq!(record.api, EventApi::CoreV1);
        assert_eq!(record.uid, "ev-1");
        assert_eq!(record.namespace.as_deref(), Some("demo"));
        assert_eq!(record.event_type, EventType::Normal);
        assert_eq!(record.reason, "Pulled");
        assert!(record
            .message
            .starts_with("Successfully pulled image \"nginx\""));
        assert_eq!(
            record.regarding,
            ObjectRef {
                api_version: "v1".into(),
                kind: "Pod".into(),
                namespace: Some("demo".into()),
                name: "web-1".into(),
                uid: Some("pod-uid-1".into()),
                field_path: Some("spec.containers{nginx}".into()),
            }
        );
        assert_eq!(record.regarding.describe(), "Pod demo/web-1");
        assert_eq!(record.related, None);
        assert_eq!(
            (
                record.reporting_component.as_str(),
                record.reporting_instance.as_str()
            ),
            ("kubelet", "node-1")
        );
        assert_eq!(record.count, 1);
        assert_eq!(record.first_seen_ms, at("2024-05-01T12:00:03Z"));
        assert_eq!(record.last_seen_ms, at("2024-05-01T12:00:03Z"));
        assert_eq!(record.resource_version, "10");
        assert!(!record.expired);
    }

    #[test]
    fn reads_new_api_events_through_core_v1_with_series_and_event_time() {
        let record = event_record(&scheduled_as_core()).expect("an Event");
        assert_eq!(record.api, EventApi::CoreV1);
        assert_eq!(record.reporting_component, "default-scheduler");
        assert_eq!(record.action, "Binding");
        assert_eq!(record.count, 3, "series.count");
        assert_eq!(record.first_seen_ms, at("2024-05-01T12:00:01.123Z"));
        assert_eq!(record.last_seen_ms, at("2024-05-01T12:05:00Z"));
    }

    #[test]
    fn reads_events_k8s_io_v1_events() {
        let record = event_record(&backoff_v1("ev-b", "70")).expect("an Event");
        assert_eq!(record.api, EventApi::EventsV1);
        assert_eq!(record.event_type, EventType::Warning);
        assert!(record.event_type.is_warning());
        assert_eq!(record.reason, "BackOff");
        assert!(record
            .message
            .starts_with("Back-off restarting failed container"));
        assert_eq!(record.regarding.name, "flaky-5d9c");
        assert_eq!(record.regarding.uid.as_deref(), Some("pod-uid-2"));
        assert_eq!(
            record.related.as_ref().map(|r| r.describe()),
            Some("Node node-2".to_string())
        );
        assert_eq!(record.reporting_component, "kubelet");
        assert_eq!(record.reporting_instance, "node-2");
        assert_eq!(record.count, 7);
        assert_eq!(record.first_seen_ms, at("2024-05-01T12:00:10Z"));
        assert_eq!(record.last_seen_ms, at("2024-05-01T12:09:10Z"));

        // As the scheduler writes it: eventTime and series, no deprecated fields.
        let scheduled = json!({
            "kind": "Event", "apiVersion": "events.k8s.io/v1",
            "metadata": {"name": "a.1", "namespace": "demo", "uid": "ev-n", "resourceVersion": "3"},
            "eventTime": "2024-05-01T12:00:00.000001Z", "action": "Binding", "reason": "Scheduled",
            "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-x",
            "regarding": {"kind": "Pod", "namespace": "demo", "name": "a", "uid": "p"},
            "note": "Successfully assigned demo/a to node-1", "type": "Normal",
            "series": {"count": 2, "lastObservedTime": "2024-05-01T12:00:30.000000Z"}
        });
        let record = event_record(&scheduled).expect("an Event");
        assert_eq!(record.count, 2);
        assert_eq!(record.first_seen_ms, at("2024-05-01T12:00:00Z"));
        assert_eq!(record.last_seen_ms, at("2024-05-01T12:00:30Z"));
        assert_eq!(record.message, "Successfully assigned demo/a to node-1");
    }

    #[test]
    fn list_items_without_kind_are_read_by_their_shape_and_other_kinds_are_not_events() {
        let mut core = kubelet_pulled("ev-1", "10", 2, "2024-05-01T12:01:00Z");
        core.as_object_mut().map(|o| {
            o.remove("kind");
            o.remove("apiVersion")
        });
        assert_eq!(event_record(&core).map(|r| r.api), Some(EventApi::CoreV1));
        let mut new = backoff_v1("ev-b", "70");
        new.as_object_mut().map(|o| {
            o.remove("kind");
            o.remove("apiVersion")
        });
        assert_eq!(event_record(&new).map(|r| r.api), Some(EventApi::EventsV1));
        let pod = json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "uid": "u"}});
        assert_eq!(event_record(&pod), None);
        assert_eq!(event_record(&json!({"metadata": {"name": "x"}})), None);
        assert_eq!(event_record(&json!("Event")), None);
        // Odd values never panic: a negative count is at least 1, an unknown type kept.
        let odd = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "o"},
            "involvedObject": {}, "count": -4, "type": "Sparkly", "lastTimestamp": "yesterday"});
        let record = event_record(&odd).expect("an Event");
        assert_eq!(record.count, 1);
        assert_eq!(record.event_type, EventType::Other("Sparkly".into()));
        assert_eq!(record.last_seen_ms, None);
        assert_eq!(record.uid, "/o");
    }

    #[test]
    fn html_in_a_message_stays_text() {
        let mut event = kubelet_pulled("ev-x", "1", 1, "2024-05-01T12:00:03Z");
        event["message"] = json!("<img src=x onerror=alert(1)> &amp; <b>bold</b>");
        event["involvedObject"]["name"] = json!("<script>x</script>");
        let record = event_record(&event).expect("an Event");
        assert_eq!(
            record.message,
            "<img src=x onerror=alert(1)> &amp; <b>bold</b>"
        );
        assert_eq!(record.regarding.name, "<script>x</script>");
    }

    fn cache_of(objects: Vec<Value>) -> ObjectCache {
        let mut cache = ObjectCache::default();
        cache.apply(StoreChange::Replace(objects), 0.0);
        cache
    }

    #[test]
    fn a_repeated_event_is_one_record_with_its_count_and_last_time() {
        let mut log = EventLog::default();
        let mut cache = cache_of(vec![kubelet_pulled(
            "ev-1",
            "10",
            1,
            "2024-05-01T12:00:03Z",
        )]);
        assert_eq!(log.merge_snapshot(&cache, true).parsed, 1);
        cache.apply(
            StoreChange::Apply(kubelet_pulled("ev-1", "11", 5, "2024-05-01T12:04:00Z")),
            0.0,
        );
        let summary = log.merge_snapshot(&cache, true);
        assert_eq!((summary.parsed, summary.expired), (1, 0));
        assert_eq!(log.len(), 1);
        let record = log.get("ev-1").expect("kept");
        assert_eq!(record.count, 5);
        assert_eq!(record.first_seen_ms, at("2024-05-01T12:00:03Z"));
        assert_eq!(record.last_seen_ms, at("2024-05-01T12:04:00Z"));
        // Nothing changed: nothing is read again.
        assert!(!log.merge_snapshot(&cache, true).changed());
    }

    #[test]
    fn deleted_events_stay_marked_expired() {
        let mut log = EventLog::default();
        let first = kubelet_pulled("ev-1", "10", 1, "2024-05-01T12:00:03Z");
        let second = backoff_v1("ev-2", "12");
        let mut cache = cache_of(vec![first.clone(), second.clone()]);
        log.merge_snapshot(&cache, true);
        cache.apply(StoreChange::Delete(first.clone()), 0.0);
        // While the list is incomplete nothing missing is taken as deleted.
        assert_eq!(log.merge_snapshot(&cache, false).expired, 0);
        assert_eq!(log.merge_snapshot(&cache, true).expired, 1);
        assert_eq!(log.len(), 2);
        assert!(log.get("ev-1").is_some_and(|r| r.expired));
        assert!(log.get("ev-2").is_some_and(|r| !r.expired));
        assert_eq!(log.expired_count(), 1);
        // Marked once.
        assert!(!log.merge_snapshot(&cache, true).changed());

        // Per change: a DELETED marks; one never seen is kept, expired, too.
        let mut direct = EventLog::default();
        direct.apply_object(&second, false);
        assert_eq!(direct.apply_object(&second, true).expired, 1);
        assert!(direct.get("ev-2").is_some_and(|r| r.expired));
        direct.apply_object(&first, true);
        assert!(direct.get("ev-1").is_some_and(|r| r.expired));
        assert_eq!(
            direct.apply_object(&json!({"kind": "Pod"}), false),
            MergeSummary::default()
        );
    }

    fn numbered(i: usize, minute: usize) -> Value {
        let mut event = kubelet_pulled(
            &format!("ev-{i}"),
            &format!("{i}"),
            1,
            &format!("2024-05-01T{:02}:{:02}:00Z", 10 + minute / 60, minute % 60),
        );
        event["metadata"]["name"] = json!(format!("web-1.{i:x}"));
        event
    }

    #[test]
    fn the_log_is_bounded_and_drops_the_least_recently_seen() {
        let mut log = EventLog::new(3);
        for i in 0..5 {
            log.apply_object(&numbered(i, i), false);
        }
        assert_eq!(log.len(), 3);
        assert_eq!(log.dropped(), 2);
        let all = EventFilter::default();
        let uids: Vec<&str> = log.newest_first(&all).map(|r| r.uid.as_str()).collect();
        assert_eq!(uids, ["ev-4", "ev-3", "ev-2"]);
        // An old Event seen again moves to the front, and the oldest goes.
        log.apply_object(&numbered(2, 30), false);
        log.apply_object(&numbered(9, 20), false);
        let uids: Vec<&str> = log.newest_first(&all).map(|r| r.uid.as_str()).collect();
        assert_eq!(uids, ["ev-2", "ev-9", "ev-4"]);
        assert_eq!(log.dropped(), 3);
        // One older than everything kept is not taken in.
        assert_eq!(log.apply_object(&numbered(10, 0), false).dropped, 1);
        assert!(log.get("ev-10").is_none());

        // A watch holding more Events than the log: the ones dropped are not read again on
        // every merge, nor counted again.
        let cache = cache_of((0..10).map(|i| numbered(i, i)).collect());
        let mut log = EventLog::new(4);
        let first = log.merge_snapshot(&cache, true);
        assert_eq!((first.parsed, first.dropped, first.expired), (10, 6, 0));
        assert!(!log.merge_snapshot(&cache, true).changed());
        assert_eq!((log.len(), log.dropped()), (4, 6));
        let uids: Vec<&str> = log.newest_first(&all).map(|r| r.uid.as_str()).collect();
        assert_eq!(uids, ["ev-9", "ev-8", "ev-7", "ev-6"]);
    }

    #[test]
    fn filters_by_type_text_reason_component_and_object() {
        let mut log = EventLog::default();
        log.apply_object(
            &kubelet_pulled("ev-1", "1", 1, "2024-05-01T12:00:03Z"),
            false,
        );
        log.apply_object(&scheduled_as_core(), false);
        log.apply_object(&backoff_v1("ev-b", "2"), false);
        let uids = |filter: &EventFilter| -> Vec<String> {
            log.newest_first(filter).map(|r| r.uid.clone()).collect()
        };
        assert_eq!(uids(&EventFilter::default()), ["ev-b", "ev-s", "ev-1"]);
        let warnings = EventFilter {
            warnings_only: true,
            ..EventFilter::default()
        };
        assert_eq!(uids(&warnings), ["ev-b"]);
        assert_eq!(log.counts(&EventFilter::default()), (3, 1));
        for (text, expected) in [
            ("SCHEDULER", vec!["ev-s"]),
            ("nginx", vec!["ev-1"]),
            ("node-2", vec!["ev-b"]),
            ("warning", vec!["ev-b"]),
            ("  web-1 ", vec!["ev-s", "ev-1"]),
            ("nothing like this", vec![]),
        ] {
            let filter = EventFilter {
                text: text.into(),
                ..EventFilter::default()
            };
            assert_eq!(uids(&filter), expected, "{text}");
        }
        let by_reason = EventFilter {
            reason: Some("Pulled".into()),
            ..EventFilter::default()
        };
        assert_eq!(uids(&by_reason), ["ev-1"]);
        let by_component = EventFilter {
            component: Some("default-scheduler".into()),
            ..EventFilter::default()
        };
        assert_eq!(uids(&by_component), ["ev-s"]);
        let by_object = EventFilter {
            regarding_kind: Some("Pod".into()),
            regarding_name: Some("web-1".into()),
            ..EventFilter::default()
        };
        assert_eq!(uids(&by_object), ["ev-s", "ev-1"]);
        let scope = EventScope::Object {
            namespace: Some("demo".into()),
            uid: "pod-uid-2".into(),
            kind: "Pod".into(),
            name: "flaky-5d9c".into(),
        };
        assert_eq!(uids(&scope.base_filter()), ["ev-b"]);
    }

    /// The sample tree serves events.k8s.io/v1; without it only core/v1 Events are served.
    fn tree_with_events_v1(events_v1: bool) -> ApiTree {
        let mut tree = sample_tree();
        if !events_v1 {
            tree.remove_group("events.k8s.io");
        }
        tree
    }

    #[test]
    fn watches_events_k8s_io_where_served_else_core_with_uid_or_name_selectors() {
        let tree = tree_with_events_v1(true);
        assert_eq!(events_api(&tree), Some(EventApi::EventsV1));
        assert_eq!(
            events_api(&tree_with_events_v1(false)),
            Some(EventApi::CoreV1)
        );
        assert_eq!(events_api(&ApiTree::default()), None);

        let all =
            events_watch_key(&tree, EventApi::EventsV1, &EventScope::All, true).expect("served");
        assert_eq!(all.collection_path, "/apis/events.k8s.io/v1/events");
        assert_eq!(all.field_selector, "");
        assert_eq!(all.output, Output::Objects);
        let ns = events_watch_key(
            &tree,
            EventApi::CoreV1,
            &EventScope::Namespace("demo".into()),
            true,
        )
        .expect("served");
        assert_eq!(ns.collection_path, "/api/v1/namespaces/demo/events");

        let pod = EventScope::Object {
            namespace: Some("demo".into()),
            uid: "1234-abcd".into(),
            kind: "Pod".into(),
            name: "web,1".into(),
        };
        let key = events_watch_key(&tree, EventApi::EventsV1, &pod, true).expect("served");
        assert_eq!(
            key.collection_path,
            "/apis/events.k8s.io/v1/namespaces/demo/events"
        );
        assert_eq!(key.field_selector, "regarding.uid=1234-abcd");
        assert_eq!(
            pod.field_selector(EventApi::CoreV1, true),
            "involvedObject.uid=1234-abcd"
        );
        assert_eq!(
            pod.field_selector(EventApi::CoreV1, false),
            r"involvedObject.kind=Pod,involvedObject.name=web\,1"
        );
        // A Node's Events are in some namespace: all of them are read.
        let node = EventScope::Object {
            namespace: None,
            uid: "n".into(),
            kind: "Node".into(),
            name: "node-1".into(),
        };
        let key = events_watch_key(&tree, EventApi::CoreV1, &node, true).expect("served");
        assert_eq!(key.collection_path, "/api/v1/events");
        assert_eq!(node.describe(), "Node node-1");
    }

    #[test]
    fn regarding_objects_map_to_their_resources() {
        let tree = sample_tree();
        let pod = ObjectRef {
            api_version: "v1".into(),
            kind: "Pod".into(),
            name: "a".into(),
            ..ObjectRef::default()
        };
        assert_eq!(
            pod.resource(&tree),
            Some((ResourceId::new("", "v1", "pods"), true))
        );
        // A version no longer served: the group's preferred one.
        let old = ObjectRef {
            api_version: "apps/v1beta2".into(),
            kind: "Deployment".into(),
            ..ObjectRef::default()
        };
        assert_eq!(
            old.resource(&tree).map(|(id, _)| id),
            Some(ResourceId::new("apps", "v1", "deployments"))
        );
        let unknown = ObjectRef {
            api_version: "example.com/v1".into(),
            kind: "Sprocket".into(),
            ..ObjectRef::default()
        };
        assert_eq!(unknown.resource(&tree), None);
    }

    /// The cost of feeding the log from its watch's cache: after the first fill, a merge
    /// after one change in 5,000 Events reads one object, and the rest is lookups.
    #[test]
    fn merging_a_large_cache_reads_only_what_changed() {
        let events: Vec<Value> = (0..5_000).map(|i| numbered(i, i % 600)).collect();
        let mut cache = cache_of(events);
        let mut log = EventLog::default();
        let started = std::time::Instant::now();
        let first = log.merge_snapshot(&cache, true);
        let first_took = started.elapsed();
        assert_eq!(first.parsed, 5_000);
        assert_eq!(log.len(), 5_000);
        let mut changed = numbered(17, 700);
        changed["metadata"]["resourceVersion"] = json!("99999");
        changed["count"] = json!(2);
        cache.apply(StoreChange::Apply(changed), 0.0);
        let started = std::time::Instant::now();
        let again = log.merge_snapshot(&cache, true);
        let again_took = started.elapsed();
        assert_eq!(
            again,
            MergeSummary {
                parsed: 1,
                expired: 0,
                dropped: 0
            }
        );
        assert_eq!(
            log.newest_first(&EventFilter::default())
                .next()
                .map(|r| r.count),
            Some(2)
        );
        println!("first merge of 5,000 Events {first_took:?}, then one change {again_took:?}");
    }
}
