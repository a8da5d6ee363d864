//! Every version of every object a watch has delivered, as a timeline per object: when it
//! was seen, its resourceVersion, who wrote it ([`super::attribution`]) and what changed
//! ([`super::diff`]). Writes that change only bookkeeping (resourceVersion, managedFields
//! times, lease renewals, node heartbeats) are marked as noise, so views fold them.
//!
//! Memory is bounded: at most [`HistoryLimits::per_object`] revisions per object and
//! [`HistoryLimits::total`] in all; the oldest go first and are counted, so views can say so.
//! Versions are kept as compact JSON text (a third of a parsed value's size) and parsed
//! again only when two are compared.

use crate::time::clock::Wall;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::attribution::{writers, Writer};
use super::diff::{diff_values_ignoring_metadata, FieldChange};
use super::fields::Segment;
use crate::object::events::{event_record, EventRecord};
use crate::object::pointer::Pointer;
use crate::watch::StoreChange;

/// How a revision was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevisionKind {
    /// In the list the watch started from: how it was when watching began.
    Listed,
    Added,
    Modified,
    Deleted,
    /// Different in a relist (after a 410 or a broken stream): writes in between were not
    /// seen one by one, only their sum.
    Relisted,
    /// Missing from a relist: deleted while the stream was down.
    GoneInRelist,
}

impl RevisionKind {
    /// Watch event type names, as the API spells them, and the relist cases.
    pub fn label(self) -> &'static str {
        match self {
            RevisionKind::Listed => "LISTED",
            RevisionKind::Added => "ADDED",
            RevisionKind::Modified => "MODIFIED",
            RevisionKind::Deleted => "DELETED",
            RevisionKind::Relisted => "RELISTED",
            RevisionKind::GoneInRelist => "GONE (relist)",
        }
    }
}

/// One version of one object.
#[derive(Debug, Clone, PartialEq)]
pub struct Revision {
    /// Store-wide order of arrival.
    pub seq: u64,
    pub kind: RevisionKind,
    /// When the page received it (ms since the epoch, browser clock).
    pub observed_ms: f64,
    pub resource_version: String,
    pub writers: Vec<Writer>,
    /// Changes from the previous revision, without managedFields and resourceVersion.
    pub changes: Vec<FieldChange>,
    /// Only bookkeeping changed.
    pub noise: bool,
    object: Arc<str>,
}

impl Revision {
    /// The object as it was (managedFields included).
    pub fn object(&self) -> Option<Value> {
        serde_json::from_str(&self.object).ok()
    }

    /// Whether a writer wrote the status subresource.
    pub fn is_status_write(&self) -> bool {
        self.writers.iter().any(Writer::is_status_write)
    }
}

/// An object's identity on its timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectIdentity {
    pub uid: String,
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectIdentity {
    fn of(object: &Value) -> Option<ObjectIdentity> {
        let text = |p: &str| object.at(p).and_then(Value::as_str).map(str::to_string);
        Some(ObjectIdentity {
            uid: text("/metadata/uid")?,
            api_version: text("/apiVersion").unwrap_or_default(),
            kind: text("/kind").unwrap_or_default(),
            namespace: text("/metadata/namespace"),
            name: text("/metadata/name")?,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ObjectTimeline {
    pub identity: ObjectIdentity,
    /// Oldest first.
    pub revisions: VecDeque<Revision>,
    /// Older revisions dropped to stay within the limits.
    pub dropped: usize,
    /// The newest version (the base of the next diff).
    pub latest: Value,
    /// `latest` read as an Event object (None for other kinds), filled when first asked (see
    /// [`ObjectTimeline::event`]) and emptied by the next write.
    event: EventCache,
    pub deleted: bool,
}

/// What `latest` reads as an Event object, once asked: derived from `latest`, so two
/// timelines are equal whether or not theirs was filled yet.
#[derive(Debug, Clone, Default)]
struct EventCache(std::sync::OnceLock<Option<Arc<EventRecord>>>);

impl PartialEq for EventCache {
    fn eq(&self, _: &EventCache) -> bool {
        true
    }
}

impl ObjectTimeline {
    /// The newest version read as an Event object (None for other kinds): read once per
    /// write, not on every activity recompute and stream status that asks.
    pub fn event(&self) -> Option<Arc<EventRecord>> {
        self.event
            .0
            .get_or_init(|| event_record(&self.latest).map(Arc::new))
            .clone()
    }

    pub fn revision(&self, seq: u64) -> Option<&Revision> {
        self.revisions.iter().find(|r| r.seq == seq)
    }

    /// This timeline with what `earlier` (another watch's timeline of the same object, kept
    /// from before this one began) saw before this one's first write, in place of this
    /// one's LISTED baseline. None when `earlier` adds nothing.
    pub fn with_earlier(&self, earlier: &ObjectTimeline) -> Option<ObjectTimeline> {
        let writes = |t: &ObjectTimeline| {
            t.revisions
                .iter()
                .filter(|r| r.kind != RevisionKind::Listed)
                .count()
        };
        if earlier.identity.uid != self.identity.uid {
            return None;
        }
        let first_own_write = self
            .revisions
            .iter()
            .find(|r| r.kind != RevisionKind::Listed);
        // Both watches stamp revisions with the page's clock.
        let cutoff = first_own_write.map_or(f64::INFINITY, |r| r.observed_ms);
        let taken: Vec<&Revision> = earlier
            .revisions
            .iter()
            .take_while(|r| {
                Some(r.resource_version.as_str())
                    != first_own_write.map(|w| w.resource_version.as_str())
                    && r.observed_ms <= cutoff
            })
            .collect();
        if taken
            .iter()
            .filter(|r| r.kind != RevisionKind::Listed)
            .count()
            == 0
            && writes(earlier) <= writes(self)
        {
            return None;
        }
        let mut merged = self.clone();
        let listed = merged
            .revisions
            .iter()
            .take_while(|r| r.kind == RevisionKind::Listed)
            .count();
        merged.revisions.drain(..listed);
        merged.dropped += earlier.dropped;
        // Seqs of the other watch's store: moved out of the way of this store's own.
        for (i, revision) in taken.into_iter().enumerate().rev() {
            let mut copy = revision.clone();
            copy.seq = ADOPTED_SEQ_BASE + i as u64;
            merged.revisions.push_front(copy);
        }
        Some(merged)
    }

    /// For each field path changed since the timeline began, the newest revision that
    /// changed it (for blame).
    pub fn last_change_of(&self, path: &[Segment]) -> Option<&Revision> {
        self.revisions.iter().rev().find(|r| {
            r.kind != RevisionKind::Listed
                && r.changes
                    .iter()
                    .any(|c| c.path.starts_with(path) || path.starts_with(&c.path.0))
        })
    }
}

/// Seqs given to revisions taken from another watch's timeline ([`ObjectTimeline::with_earlier`]),
/// far above any a store gives out.
const ADOPTED_SEQ_BASE: u64 = 1 << 62;

/// The changes from revision `from` to revision `to` of one timeline.
pub fn compare(from: &Revision, to: &Revision) -> Option<Vec<FieldChange>> {
    Some(diff_values_ignoring_metadata(
        &from.object()?,
        &to.object()?,
        BOOKKEEPING_METADATA,
    ))
}

/// How many revisions are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryLimits {
    pub per_object: usize,
    pub total: usize,
}

impl Default for HistoryLimits {
    fn default() -> Self {
        HistoryLimits {
            per_object: 200,
            total: 5_000,
        }
    }
}

/// The timelines of one watch's objects, by uid.
#[derive(Debug, Clone, Default)]
pub struct HistoryStore {
    timelines: HashMap<String, ObjectTimeline>,
    /// (seq, uid) in arrival order, for dropping the oldest anywhere.
    arrival: VecDeque<(u64, String)>,
    kept: usize,
    next_seq: u64,
    limits: HistoryLimits,
    dropped: usize,
    revision: u64,
}

fn resource_version(object: &Value) -> String {
    object
        .at("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn uid_of(object: &Value) -> Option<&str> {
    object.at("/metadata/uid").and_then(Value::as_str)
}

/// What every write changes (in `metadata`), left out of the diffs: diffed in place, not on
/// copies without them (managedFields is often the largest part of an object, and this runs
/// for every write recorded).
const BOOKKEEPING_METADATA: &[&str] = &["managedFields", "resourceVersion"];

/// What stays of a deleted object: no managedFields, annotations, status, data, and of the
/// spec only the node (Event objects, which have none of these, stay whole).
fn slim(object: &Value) -> Value {
    let mut copy = object.clone();
    if let Some(map) = copy.as_object_mut() {
        for bulky in ["status", "data", "binaryData", "stringData"] {
            map.remove(bulky);
        }
        if let Some(spec) = map.get_mut("spec") {
            let node = spec.get("nodeName").cloned();
            *spec = match node {
                Some(node) => serde_json::json!({ "nodeName": node }),
                None => Value::Object(serde_json::Map::new()),
            };
        }
        if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("managedFields");
            meta.remove("annotations");
        }
    }
    copy
}

/// Fields whose change alone is a renewal or a heartbeat, not news.
const HEARTBEAT_FIELDS: &[&str] = &["renewTime", "lastHeartbeatTime"];

fn only_bookkeeping(changes: &[FieldChange]) -> bool {
    changes.iter().all(|c| {
        c.path
            .last_field()
            .is_some_and(|f| HEARTBEAT_FIELDS.contains(&f))
    })
}

impl HistoryStore {
    pub fn with_limits(limits: HistoryLimits) -> HistoryStore {
        HistoryStore {
            limits,
            ..HistoryStore::default()
        }
    }

    pub fn timeline(&self, uid: &str) -> Option<&ObjectTimeline> {
        self.timelines.get(uid)
    }

    pub fn timelines(&self) -> impl Iterator<Item = &ObjectTimeline> {
        self.timelines.values()
    }

    /// Revisions dropped to stay within the limits.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Revisions held.
    pub fn len(&self) -> usize {
        self.kept
    }

    pub fn is_empty(&self) -> bool {
        self.kept == 0
    }

    /// Bumped on every change.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Records one delivered version.
    pub fn record(&mut self, kind: RevisionKind, object: &Value, observed: impl Into<Wall>) {
        let observed_ms = observed.into().ms();
        let Some(identity) = ObjectIdentity::of(object) else {
            return;
        };
        self.revision += 1;
        let seq = self.next_seq;
        self.next_seq += 1;
        let previous = self
            .timelines
            .get(&identity.uid)
            .filter(|t| !t.deleted || kind == RevisionKind::Deleted)
            .map(|t| &t.latest);
        let (revision_writers, changes, noise) = match (kind, previous) {
            (RevisionKind::Listed, _) => (Vec::new(), Vec::new(), false),
            (RevisionKind::Deleted | RevisionKind::GoneInRelist, _) => {
                (Vec::new(), Vec::new(), false)
            }
            (_, Some(previous)) => {
                let changes = diff_values_ignoring_metadata(previous, object, BOOKKEEPING_METADATA);
                let found = writers(Some(previous), object, &changes);
                let noise = only_bookkeeping(&changes);
                (found, changes, noise)
            }
            (_, None) => (writers(None, object, &[]), Vec::new(), false),
        };
        let kind = match (kind, previous) {
            // A MODIFIED for an object first seen now (the watch began after its create).
            (RevisionKind::Added, Some(_)) => RevisionKind::Modified,
            (RevisionKind::Modified, None) => RevisionKind::Added,
            (kind, _) => kind,
        };
        let revision = Revision {
            seq,
            kind,
            observed_ms,
            resource_version: resource_version(object),
            writers: revision_writers,
            changes,
            noise,
            object: Arc::from(serde_json::to_string(object).unwrap_or_default()),
        };
        let deleted = matches!(kind, RevisionKind::Deleted | RevisionKind::GoneInRelist);
        let timeline = self
            .timelines
            .entry(identity.uid.clone())
            .or_insert_with(|| ObjectTimeline {
                identity: identity.clone(),
                revisions: VecDeque::new(),
                dropped: 0,
                latest: Value::Null,
                event: EventCache::default(),
                deleted: false,
            });
        timeline.identity = identity.clone();
        // A deleted object's newest version is no diff base any more: only what views still
        // read of it (identity, owners, node) is kept, so churn does not keep whole objects
        // of every pod that came and went. Its revisions keep the whole text.
        timeline.latest = if deleted {
            slim(object)
        } else {
            object.clone()
        };
        timeline.event = EventCache::default();
        timeline.deleted = deleted;
        timeline.revisions.push_back(revision);
        self.arrival.push_back((seq, identity.uid.clone()));
        self.kept += 1;
        if timeline.revisions.len() > self.limits.per_object {
            timeline.revisions.pop_front();
            timeline.dropped += 1;
            self.kept -= 1;
            self.dropped += 1;
        }
        while self.kept > self.limits.total {
            self.drop_oldest();
        }
    }

    fn drop_oldest(&mut self) {
        let Some((seq, uid)) = self.arrival.pop_front() else {
            return;
        };
        let Some(timeline) = self.timelines.get_mut(&uid) else {
            return;
        };
        // Already dropped by the per-object limit: nothing to do for this entry.
        if timeline.revisions.front().map(|r| r.seq) != Some(seq) {
            return;
        }
        timeline.revisions.pop_front();
        timeline.dropped += 1;
        self.kept -= 1;
        self.dropped += 1;
        if timeline.revisions.is_empty() {
            self.timelines.remove(&uid);
        }
    }

    /// Applies one watch-store change: list pages and relists, and single events.
    pub fn apply(&mut self, change: &StoreChange, now: impl Into<Wall>) {
        let now_ms = now.into().ms();
        match change {
            StoreChange::Append(items) => {
                for item in items {
                    self.record(RevisionKind::Listed, item, now_ms);
                }
            }
            StoreChange::Replace(items) => self.relisted(items, now_ms),
            StoreChange::Apply(object) => {
                let known = uid_of(object)
                    .and_then(|uid| self.timelines.get(uid))
                    .is_some_and(|t| !t.deleted);
                let kind = if known {
                    RevisionKind::Modified
                } else {
                    RevisionKind::Added
                };
                self.record(kind, object, now_ms);
            }
            StoreChange::Delete(object) => self.record(RevisionKind::Deleted, object, now_ms),
        }
    }

    /// A relist: new objects are listed, changed ones relisted, missing ones gone.
    fn relisted(&mut self, items: &[Value], now_ms: f64) {
        let first = self.timelines.is_empty();
        let listed: std::collections::HashSet<&str> = items.iter().filter_map(uid_of).collect();
        let vanished: Vec<Value> = self
            .timelines
            .values()
            .filter(|t| !t.deleted && !listed.contains(t.identity.uid.as_str()))
            .map(|t| t.latest.clone())
            .collect();
        for object in &vanished {
            self.record(RevisionKind::GoneInRelist, object, now_ms);
        }
        for item in items {
            let known = uid_of(item).and_then(|uid| self.timelines.get(uid));
            match known {
                None if first => self.record(RevisionKind::Listed, item, now_ms),
                None => self.record(RevisionKind::Added, item, now_ms),
                Some(t) if resource_version(&t.latest) == resource_version(item) && !t.deleted => {}
                Some(_) => self.record(RevisionKind::Relisted, item, now_ms),
            }
        }
    }
}

/// A line of a timeline as shown: one revision, or a run of noise folded into a counter.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineEntry {
    Revision(u64),
    /// Consecutive bookkeeping-only revisions (their seqs).
    Folded(Vec<u64>),
}

/// The timeline with runs of noise folded, newest first.
pub fn fold_noise(timeline: &ObjectTimeline) -> Vec<TimelineEntry> {
    let mut out: Vec<TimelineEntry> = Vec::new();
    for revision in timeline.revisions.iter().rev() {
        if revision.noise {
            if let Some(TimelineEntry::Folded(run)) = out.last_mut() {
                run.push(revision.seq);
                continue;
            }
            out.push(TimelineEntry::Folded(vec![revision.seq]));
        } else {
            out.push(TimelineEntry::Revision(revision.seq));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lease(rv: u32, holder: &str, renew: &str, time: &str) -> Value {
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
               "metadata": {"name": "ctl", "namespace": "kube-system", "uid": "u1",
                            "resourceVersion": rv.to_string(),
                            "managedFields": [{"manager": "ctl", "operation": "Update", "time": time,
                                               "fieldsV1": {"f:spec": {"f:holderIdentity": {}, "f:renewTime": {}}}}]},
               "spec": {"holderIdentity": holder, "renewTime": renew}})
    }

    #[test]
    fn bookkeeping_is_left_out_of_diffs_and_the_rest_kept_in_order() {
        let old = lease(7, "a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z");
        // Only bookkeeping changed: no change at all.
        let renewed_rv = lease(8, "a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:09Z");
        assert!(diff_values_ignoring_metadata(&old, &renewed_rv, BOOKKEEPING_METADATA).is_empty());
        // The same changes as a diff of copies without bookkeeping, in the same order.
        let mut new = lease(9, "b", "2026-01-01T00:00:05Z", "2026-01-01T00:00:05Z");
        new["metadata"]["labels"] = json!({"tier": "control"});
        new["metadata"]
            .as_object_mut()
            .expect("map")
            .remove("namespace");
        let stripped = |object: &Value| {
            let mut copy = object.clone();
            let metadata = copy["metadata"].as_object_mut().expect("metadata");
            metadata.remove("managedFields");
            metadata.remove("resourceVersion");
            copy
        };
        let paths = |changes: Vec<FieldChange>| {
            changes
                .iter()
                .map(|c| (c.path.to_string(), c.old.clone(), c.new.clone()))
                .collect::<Vec<_>>()
        };
        let in_place = diff_values_ignoring_metadata(&old, &new, BOOKKEEPING_METADATA);
        assert_eq!(in_place.len(), 4, "{in_place:?}");
        assert_eq!(
            paths(in_place),
            paths(crate::history::diff::diff_values(
                &stripped(&old),
                &stripped(&new)
            ))
        );
        assert_eq!(
            diff_values_ignoring_metadata(&json!([1]), &json!([2]), BOOKKEEPING_METADATA).len(),
            1
        );
    }

    #[test]
    fn renewals_are_noise_and_fold_into_one_entry() {
        let mut store = HistoryStore::default();
        store.apply(
            &StoreChange::Append(vec![lease(1, "a", "10:00:00", "t0")]),
            0.0,
        );
        for (rv, t) in [(2, "t1"), (3, "t2"), (4, "t3")] {
            store.apply(
                &StoreChange::Apply(lease(rv, "a", &format!("10:00:0{rv}"), t)),
                1.0,
            );
        }
        store.apply(&StoreChange::Apply(lease(5, "b", "10:00:09", "t4")), 2.0);
        let timeline = store.timeline("u1").expect("timeline");
        assert_eq!(timeline.revisions.len(), 5);
        let kinds: Vec<_> = timeline.revisions.iter().map(|r| r.kind).collect();
        assert_eq!(kinds[0], RevisionKind::Listed);
        assert!(kinds[1..].iter().all(|k| *k == RevisionKind::Modified));
        let folded = fold_noise(timeline);
        assert_eq!(folded.len(), 3, "{folded:?}");
        assert_eq!(folded[0], TimelineEntry::Revision(4));
        assert_eq!(folded[1], TimelineEntry::Folded(vec![3, 2, 1]));
        let newest = timeline.revisions.back().expect("newest");
        assert_eq!(newest.writers[0].manager, "ctl");
        assert!(newest
            .changes
            .iter()
            .any(|c| c.path.to_string() == "spec.holderIdentity"));
        // Any two revisions compare.
        let first = &timeline.revisions[0];
        let changes = compare(first, newest).expect("compare");
        assert_eq!(changes.len(), 2);
    }

    #[test]
    fn a_page_takes_the_history_its_list_watch_kept() {
        let mut list_watch = HistoryStore::default();
        list_watch.apply(&StoreChange::Append(vec![config_map("a", 1, "x")]), 0.0);
        list_watch.apply(&StoreChange::Apply(config_map("a", 2, "y")), 1.0);
        list_watch.apply(&StoreChange::Apply(config_map("a", 3, "z")), 2.0);
        // The object page opens later: it lists rv 3, then sees rv 4.
        let mut page = HistoryStore::default();
        page.apply(&StoreChange::Append(vec![config_map("a", 3, "z")]), 3.0);
        page.apply(&StoreChange::Apply(config_map("a", 4, "w")), 4.0);
        let earlier = list_watch.timeline("a").expect("a");
        let own = page.timeline("a").expect("a");
        let merged = own.with_earlier(earlier).expect("something to take");
        let versions: Vec<&str> = merged
            .revisions
            .iter()
            .map(|r| r.resource_version.as_str())
            .collect();
        assert_eq!(versions, vec!["1", "2", "3", "4"]);
        let seqs: std::collections::HashSet<u64> = merged.revisions.iter().map(|r| r.seq).collect();
        assert_eq!(seqs.len(), 4, "seqs stay unique");
        assert!(merged.revision(merged.revisions[1].seq).is_some());
        // A timeline that knows as much takes nothing.
        assert!(merged.with_earlier(earlier).is_none());
        assert!(earlier.with_earlier(own).is_none());
    }

    fn config_map(uid: &str, rv: u32, value: &str) -> Value {
        json!({"kind": "ConfigMap", "apiVersion": "v1",
               "metadata": {"name": format!("cm-{uid}"), "namespace": "default", "uid": uid,
                            "resourceVersion": rv.to_string()},
               "data": {"k": value}})
    }

    #[test]
    fn limits_drop_the_oldest_and_count_them() {
        let mut store = HistoryStore::with_limits(HistoryLimits {
            per_object: 3,
            total: 5,
        });
        for rv in 1..=5 {
            store.apply(
                &StoreChange::Apply(config_map("a", rv, &rv.to_string())),
                0.0,
            );
        }
        assert_eq!(store.timeline("a").map(|t| t.revisions.len()), Some(3));
        assert_eq!(store.timeline("a").map(|t| t.dropped), Some(2));
        for rv in 6..=9 {
            store.apply(
                &StoreChange::Apply(config_map("b", rv, &rv.to_string())),
                0.0,
            );
        }
        assert_eq!(store.len(), 5);
        assert_eq!(store.dropped(), 4);
        // "a" lost its oldest revision to newer ones of "b".
        let a_left = store.timeline("a").map(|t| t.revisions.len());
        assert_eq!(a_left, Some(2), "one revision went to the total limit");
        let b = store.timeline("b").expect("b");
        assert_eq!(b.dropped, 1, "its first went to the per-object limit");
        assert_eq!(
            b.revisions.front().map(|r| r.kind),
            Some(RevisionKind::Modified)
        );
    }

    #[test]
    fn relists_tell_changed_new_and_gone_objects() {
        let mut store = HistoryStore::default();
        store.apply(
            &StoreChange::Replace(vec![config_map("a", 1, "x"), config_map("b", 2, "y")]),
            0.0,
        );
        assert_eq!(
            store.timeline("a").map(|t| t.revisions[0].kind),
            Some(RevisionKind::Listed)
        );
        store.apply(
            &StoreChange::Replace(vec![config_map("a", 5, "z"), config_map("c", 6, "w")]),
            1.0,
        );
        let kind_of = |uid: &str| {
            store
                .timeline(uid)
                .and_then(|t| t.revisions.back())
                .map(|r| r.kind)
        };
        assert_eq!(kind_of("a"), Some(RevisionKind::Relisted));
        assert_eq!(kind_of("b"), Some(RevisionKind::GoneInRelist));
        assert_eq!(kind_of("c"), Some(RevisionKind::Added));
        assert!(store.timeline("b").is_some_and(|t| t.deleted));
        let a = store.timeline("a").expect("a");
        assert_eq!(a.revisions[1].changes[0].describe(), "data.k: x → z");
        // An unchanged object in a relist adds nothing.
        let before = store.len();
        store.apply(&StoreChange::Replace(vec![config_map("a", 5, "z")]), 2.0);
        assert_eq!(store.len(), before + 1, "only c's disappearance");
        // A deleted object's timeline stays, its last version kept whole in its revisions
        // and slim as `latest`.
        store.apply(&StoreChange::Delete(config_map("a", 7, "z")), 3.0);
        let a = store.timeline("a").expect("a");
        assert!(a.deleted);
        assert_eq!(a.latest.get("data"), None);
        assert_eq!(a.latest.at("/metadata/name"), Some(&json!("cm-a")));
        let last = a.revisions.back().and_then(Revision::object).expect("last");
        assert_eq!(last.at("/data/k"), Some(&json!("z")));
        assert_eq!(
            store
                .timeline("a")
                .and_then(|t| t.last_change_of(&[Segment::Field("data".into())]))
                .map(|r| r.resource_version.as_str()),
            Some("5")
        );
    }
}
