//! The reconstructed past as a timeline shows it: newest first like the watched revisions
//! above it, untimed entries last, each row saying what happened, who (or "unknown"), when
//! (a time, a span, or that the order within its second is not recorded), and what it
//! stands on.

use super::{PastEntry, PastKind, PastTime, Placement};

/// How a row's time reads beside its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderNote {
    /// After the row below it.
    Later,
    /// In the same second as the row below it: which came first is not recorded.
    SameSecondAsBelow,
    /// The data gives no time.
    TimeNotRecorded,
}

impl OrderNote {
    pub fn text(self) -> Option<&'static str> {
        match self {
            OrderNote::Later => None,
            OrderNote::SameSecondAsBelow => Some("same second, order not recorded"),
            OrderNote::TimeNotRecorded => Some("time not recorded"),
        }
    }
}

/// One reconstructed row.
#[derive(Debug, Clone, PartialEq)]
pub struct PastRow {
    pub time: PastTime,
    pub order: OrderNote,
    /// `PastKind`'s variant, for styling and tests (`Created`, `Scheduled`, ...).
    pub kind: &'static str,
    pub what: String,
    /// The actors, or "unknown".
    pub actor: String,
    pub evidence: Vec<String>,
    pub unknown: Vec<String>,
    pub warning: bool,
    /// A revision's full template diff, one line a change.
    pub changes: Vec<String>,
}

/// The variant's name.
pub fn kind_name(kind: &PastKind) -> &'static str {
    match kind {
        PastKind::Created => "Created",
        PastKind::Scheduled { .. } => "Scheduled",
        PastKind::Written { .. } => "Written",
        PastKind::StatusWritten { .. } => "StatusWritten",
        PastKind::ConditionChanged { .. } => "ConditionChanged",
        PastKind::ContainerStarted { .. } => "ContainerStarted",
        PastKind::ContainerTerminated { .. } => "ContainerTerminated",
        PastKind::ContainerRestarted { .. } => "ContainerRestarted",
        PastKind::RolloutRevision { .. } => "RolloutRevision",
        PastKind::Scaled { .. } => "Scaled",
        PastKind::DeletionStarted { .. } => "DeletionStarted",
        PastKind::EventSeen { .. } => "EventSeen",
    }
}

fn row(entry: &PastEntry, order: OrderNote) -> PastRow {
    let warning = match &entry.kind {
        PastKind::EventSeen { warning, .. } => *warning,
        PastKind::ContainerTerminated { exit_code, .. }
        | PastKind::ContainerRestarted { exit_code, .. } => exit_code.is_some_and(|c| c != 0),
        _ => false,
    };
    let changes = match &entry.kind {
        PastKind::RolloutRevision { changes, .. } => {
            changes.iter().map(|change| change.describe()).collect()
        }
        _ => Vec::new(),
    };
    PastRow {
        time: entry.time,
        order,
        kind: kind_name(&entry.kind),
        what: entry.kind.describe(),
        actor: entry.actor_label(),
        evidence: entry.evidence.iter().map(|e| e.describe()).collect(),
        unknown: entry.unknown.clone(),
        warning,
        changes,
    }
}

/// `entries` (oldest first, as [`super::past_entries`] gives them) newest first, untimed
/// ones last; a row in the same second as the one below it says so.
pub fn past_rows(entries: &[PastEntry]) -> Vec<PastRow> {
    let (timed, untimed): (Vec<&PastEntry>, Vec<&PastEntry>) = entries
        .iter()
        .partition(|e| e.placement != Placement::Untimed);
    let mut rows: Vec<PastRow> = timed
        .iter()
        .rev()
        .map(|entry| {
            let order = if entry.placement == Placement::SameSecondAsPrevious {
                OrderNote::SameSecondAsBelow
            } else {
                OrderNote::Later
            };
            row(entry, order)
        })
        .collect();
    rows.extend(
        untimed
            .iter()
            .map(|entry| row(entry, OrderNote::TimeNotRecorded)),
    );
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::past::{past_entries, Loaded};
    use serde_json::json;

    #[test]
    fn rows_read_newest_first_with_same_second_and_untimed_entries_said() {
        let pod = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {
                "name": "web-1", "namespace": "demo", "uid": "p1",
                "creationTimestamp": "2026-11-23T10:00:00Z",
                "managedFields": [
                    {"manager": "kube-controller-manager", "operation": "Update",
                     "time": "2026-11-23T10:00:00Z", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:spec": {"f:containers": {}}}},
                    {"manager": "kubectl", "operation": "Update", "subresource": "scale",
                     "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
                    {"manager": "kubelet", "operation": "Update", "subresource": "status",
                     "time": "2026-11-23T10:00:04Z", "fieldsType": "FieldsV1",
                     "fieldsV1": {"f:status": {"f:phase": {}}}}
                ]
            },
            "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            "status": {"phase": "Running", "conditions": [
                {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-23T10:00:04Z"}
            ]}
        });
        let rows = past_rows(&past_entries(&Loaded::object(&pod)));
        let shown: Vec<(&str, Option<&str>)> =
            rows.iter().map(|r| (r.kind, r.order.text())).collect();
        assert_eq!(
            shown,
            vec![
                ("ConditionChanged", Some("same second, order not recorded")),
                ("StatusWritten", None),
                ("Created", None),
                ("Written", Some("time not recorded")),
            ]
        );
        assert_eq!(rows[2].actor, "kube-controller-manager");
        assert_eq!(rows[1].what, "last status write by kubelet (status.phase)");
        assert_eq!(
            rows[1].evidence,
            vec![
                "managedFields[manager=kubelet,operation=Update,subresource=status].time = \
                 2026-11-23T10:00:04Z"
            ]
        );
        assert_eq!(rows[3].actor, "kubectl");
        // The condition's transition names nobody.
        assert_eq!(rows[0].actor, "unknown");
    }
}
