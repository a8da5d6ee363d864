//! What happened to objects, and who did it: field sets of `managedFields` ([`fields`]), the
//! generic field-level diff ([`diff`]), writers of a write ([`attribution`]), per-object
//! timelines kept from the watch layer's changes ([`timeline`]), blame lines ([`blame`]),
//! the controller-activity lanes ([`activity`]), recordings of watch traffic that replay
//! with no cluster ([`recording`]), and the past before watching began, reconstructed from
//! what the cluster keeps, with rollout history ([`past`]). Generic over kinds: nothing here
//! knows a Deployment from a custom resource, beyond the merge keys of built-in lists and the
//! workloads' revisions and the pod's life in [`past`].

pub mod activity;
pub mod attribution;
pub mod blame;
pub mod diff;
pub mod fields;
pub mod past;
pub mod recording;
pub mod timeline;

pub use activity::{
    activity, activity_cached, activity_with_past, seen_events, Activity, ActivityCache,
    ActivityItem, ActivityRow, ItemDetail, Lane, PastItem, SeenEvent,
};
pub use attribution::{writers, Evidence, Writer};
pub use blame::{blame_lines, BlameLine, LineOwner};
pub use diff::{diff_values, FieldChange};
pub use fields::{FieldPath, FieldSet, ManagedEntry, ObjectPath, Segment, Step};
pub use past::{
    controller_revision_history, past_entries, rollback_patch, rollback_template, rollout_history,
    ActorSource, Loaded, PastActor, PastEntry, PastEvidence, PastKind, PastTime, Placement,
    RevisionSource, RolloutRevision, ScaleDirection,
};
pub use recording::{Player, Record, RecordType, Recording};
pub use timeline::{
    compare, fold_noise, HistoryLimits, HistoryStore, ObjectTimeline, Revision, RevisionKind,
    TimelineEntry,
};
