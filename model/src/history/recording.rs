//! Recordings of the watch traffic a page received, as JSON Lines, and their replay with
//! no cluster. Format version 1 (documented in the README):
//!
//! - line 1, the header: `{"kubeAtlasRecording": 1, "startedAt": "<RFC 3339>", "note": "…"}`
//! - every further line, one change as the page applied it:
//!   `{"t": <ms since the start>, "key": "<watch key>", "type": "<type>", ...}` where type is
//!   `ADDED`, `MODIFIED` or `DELETED` (a watch event, with `"object"`), `LIST` (items of the
//!   initial list, with `"items"`), `RELIST` (a relist that replaced everything, with
//!   `"items"`) or `BOOKMARK` (with `"resourceVersion"`).
//!
//! Behind kube-atlas each line also names its cluster (`"cluster": "<context>"`), so the
//! same collection of two clusters replays as two.
//!
//! Unknown fields are ignored and unknown types skipped, so later versions can add to it.
//! A line that is not JSON stops the reading with its line number.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::timeline::HistoryStore;
use crate::watch::StoreChange;

pub const FORMAT_VERSION: u64 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    #[serde(rename = "kubeAtlasRecording")]
    pub version: u64,
    #[serde(rename = "startedAt", default)]
    pub started_at: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum RecordType {
    Added,
    Modified,
    Deleted,
    List,
    Relist,
    Bookmark,
}

/// One recorded change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Milliseconds since the recording started.
    pub t: f64,
    pub key: String,
    #[serde(rename = "type")]
    pub record_type: RecordType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Value>>,
    #[serde(
        rename = "resourceVersion",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resource_version: Option<String>,
    /// The kube-atlas context the watch was of; none with one cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
}

impl Record {
    /// The same record, of kube-atlas's context `cluster`.
    pub fn on_cluster(mut self, cluster: Option<String>) -> Record {
        self.cluster = cluster;
        self
    }

    /// Which replayed store it goes to: its key, apart per cluster.
    pub fn store_key(&self) -> String {
        match &self.cluster {
            Some(cluster) => format!("{cluster}: {}", self.key),
            None => self.key.clone(),
        }
    }

    /// The store change it replays as (None for bookmarks).
    pub fn store_change(&self) -> Option<StoreChange> {
        match self.record_type {
            RecordType::Added | RecordType::Modified => self.object.clone().map(StoreChange::Apply),
            RecordType::Deleted => self.object.clone().map(StoreChange::Delete),
            RecordType::List => self.items.clone().map(StoreChange::Append),
            RecordType::Relist => self.items.clone().map(StoreChange::Replace),
            RecordType::Bookmark => None,
        }
    }

    /// The record of a change a watch applied; `event` names the watch event type of an
    /// `Apply` (ADDED or MODIFIED).
    pub fn of_change(t: f64, key: &str, change: &StoreChange, added: bool) -> Record {
        let (record_type, object, items) = match change {
            StoreChange::Apply(o) if added => (RecordType::Added, Some(o.clone()), None),
            StoreChange::Apply(o) => (RecordType::Modified, Some(o.clone()), None),
            StoreChange::Delete(o) => (RecordType::Deleted, Some(o.clone()), None),
            StoreChange::Append(items) => (RecordType::List, None, Some(items.clone())),
            StoreChange::Replace(items) => (RecordType::Relist, None, Some(items.clone())),
        };
        Record {
            t,
            key: key.to_string(),
            record_type,
            object,
            items,
            resource_version: None,
            cluster: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recording {
    pub header: Option<Header>,
    pub records: Vec<Record>,
}

impl Recording {
    /// JSON Lines text.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        if let Some(header) = &self.header {
            out.push_str(&serde_json::to_string(header).unwrap_or_default());
            out.push('\n');
        }
        for record in &self.records {
            out.push_str(&serde_json::to_string(record).unwrap_or_default());
            out.push('\n');
        }
        out
    }

    /// Reads a recording; says which line is wrong when one is.
    pub fn parse(text: &str) -> Result<Recording, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some((_, first)) = lines.next() else {
            return Err("the file is empty".into());
        };
        let header: Header = serde_json::from_str(first).map_err(|_| {
            "not a Kube Atlas recording: the first line has no \"kubeAtlasRecording\" header"
                .to_string()
        })?;
        if header.version > FORMAT_VERSION {
            return Err(format!(
                "recording format {} is newer than this dashboard reads ({FORMAT_VERSION})",
                header.version
            ));
        }
        let mut records = Vec::new();
        for (index, line) in lines {
            let value: Value = serde_json::from_str(line)
                .map_err(|e| format!("line {}: not JSON ({e})", index + 1))?;
            // Types this version does not know are skipped, not errors.
            if let Ok(record) = serde_json::from_value::<Record>(value) {
                records.push(record);
            }
        }
        crate::list::stable_sort::sort_by(&mut records, |a, b| a.t.total_cmp(&b.t));
        Ok(Recording {
            header: Some(header),
            records,
        })
    }

    /// How long it runs, in ms.
    pub fn duration_ms(&self) -> f64 {
        self.records.last().map_or(0.0, |r| r.t)
    }

    /// The stores after replaying every record up to `until_ms` (times from the start),
    /// one per key; revisions are stamped `start_ms + t`.
    pub fn replay(&self, until_ms: f64, start_ms: f64) -> BTreeMap<String, HistoryStore> {
        let mut stores: BTreeMap<String, HistoryStore> = BTreeMap::new();
        for record in self.records.iter().take_while(|r| r.t <= until_ms) {
            if let Some(change) = record.store_change() {
                stores
                    .entry(record.store_key())
                    .or_default()
                    .apply(&change, start_ms + record.t);
            }
        }
        stores
    }

    /// Records up to `until_ms`.
    pub fn played(&self, until_ms: f64) -> usize {
        self.records.iter().take_while(|r| r.t <= until_ms).count()
    }
}

/// A recording being played: the stores as of a position, moved forward record by record
/// and rebuilt from the start when seeking back.
#[derive(Debug, Clone, Default)]
pub struct Player {
    recording: Recording,
    /// Wall-clock time the recording's t=0 maps to (revisions are stamped from it).
    start_ms: f64,
    /// Records applied so far.
    applied: usize,
    position_ms: f64,
    stores: BTreeMap<String, HistoryStore>,
}

impl Player {
    pub fn new(recording: Recording, start_ms: f64) -> Player {
        Player {
            recording,
            start_ms,
            ..Player::default()
        }
    }

    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    pub fn position_ms(&self) -> f64 {
        self.position_ms
    }

    pub fn start_ms(&self) -> f64 {
        self.start_ms
    }

    /// Records applied (the next one is `applied`).
    pub fn applied(&self) -> usize {
        self.applied
    }

    pub fn at_end(&self) -> bool {
        self.applied >= self.recording.records.len()
    }

    pub fn stores(&self) -> &BTreeMap<String, HistoryStore> {
        &self.stores
    }

    /// Moves to `ms` from the start, applying or rebuilding as needed.
    pub fn seek(&mut self, ms: f64) {
        let ms = ms.clamp(0.0, self.recording.duration_ms());
        if ms < self.position_ms {
            self.stores.clear();
            self.applied = 0;
        }
        while let Some(record) = self.recording.records.get(self.applied) {
            if record.t > ms {
                break;
            }
            self.apply_next();
        }
        self.position_ms = ms;
    }

    /// Applies the next record (one step), and moves the position to it.
    pub fn step(&mut self) {
        if let Some(t) = self.recording.records.get(self.applied).map(|r| r.t) {
            self.apply_next();
            self.position_ms = t;
        }
    }

    fn apply_next(&mut self) {
        let Some(record) = self.recording.records.get(self.applied) else {
            return;
        };
        if let Some(change) = record.store_change() {
            self.stores
                .entry(record.store_key())
                .or_default()
                .apply(&change, self.start_ms + record.t);
        }
        self.applied += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cm(rv: u32, v: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "a", "namespace": "demo", "uid": "u", "resourceVersion": rv.to_string()},
               "data": {"k": v}})
    }

    #[test]
    fn a_recording_round_trips_and_replays_into_timelines() {
        let key = "/api/v1/namespaces/demo/configmaps";
        let recording = Recording {
            header: Some(Header {
                version: 1,
                started_at: "2026-11-23T10:00:00Z".into(),
                note: String::new(),
            }),
            records: vec![
                Record::of_change(0.0, key, &StoreChange::Append(vec![cm(1, "x")]), false),
                Record::of_change(500.0, key, &StoreChange::Apply(cm(2, "y")), false),
                Record {
                    t: 600.0,
                    key: key.into(),
                    record_type: RecordType::Bookmark,
                    object: None,
                    items: None,
                    resource_version: Some("3".into()),
                    cluster: None,
                },
                Record::of_change(900.0, key, &StoreChange::Delete(cm(4, "y")), false),
            ],
        };
        let text = recording.to_jsonl();
        assert_eq!(text.lines().count(), 5);
        assert!(text.starts_with("{\"kubeAtlasRecording\":1"), "{text}");
        assert!(text.contains("\"type\":\"MODIFIED\""), "{text}");
        let parsed = Recording::parse(&text).expect("parses");
        assert_eq!(parsed, recording);
        assert_eq!(parsed.duration_ms(), 900.0);
        let at_half = parsed.replay(500.0, 1_000.0);
        let timeline = at_half[key].timeline("u").expect("timeline");
        assert_eq!(timeline.revisions.len(), 2);
        assert_eq!(timeline.revisions[1].observed_ms, 1_500.0);
        assert_eq!(timeline.revisions[1].changes[0].describe(), "data.k: x → y");
        let all = parsed.replay(f64::INFINITY, 0.0);
        assert!(all[key].timeline("u").is_some_and(|t| t.deleted));
        assert_eq!(parsed.played(600.0), 3);
    }

    #[test]
    fn each_line_keeps_its_cluster_and_two_clusters_replay_apart() {
        let key = "/api/v1/namespaces/demo/configmaps";
        let recording = Recording {
            header: Some(Header {
                version: 1,
                started_at: "2026-11-26T05:00:00Z".into(),
                note: String::new(),
            }),
            records: vec![
                Record::of_change(0.0, key, &StoreChange::Append(vec![cm(1, "x")]), false)
                    .on_cluster(Some("alpha".into())),
                Record::of_change(10.0, key, &StoreChange::Append(vec![cm(1, "z")]), false)
                    .on_cluster(Some("beta".into())),
            ],
        };
        let text = recording.to_jsonl();
        assert!(
            text.lines()
                .nth(1)
                .is_some_and(|line| line.contains(r#""cluster":"alpha""#)),
            "{text}"
        );
        let parsed = Recording::parse(&text).expect("parses");
        assert_eq!(parsed, recording);
        let stores = parsed.replay(f64::INFINITY, 0.0);
        assert_eq!(
            stores.keys().cloned().collect::<Vec<_>>(),
            [format!("alpha: {key}"), format!("beta: {key}")]
        );
        // A line without a cluster (one cluster, or an older recording) replays as before.
        assert_eq!(
            Record::of_change(0.0, key, &StoreChange::Append(vec![]), false).store_key(),
            key
        );
    }

    #[test]
    fn the_player_steps_seeks_forward_and_back() {
        let key = "k";
        let recording = Recording {
            header: None,
            records: (0..5)
                .map(|i| {
                    Record::of_change(
                        f64::from(i) * 100.0,
                        key,
                        &StoreChange::Apply(cm(i + 1, &i.to_string())),
                        i == 0,
                    )
                })
                .collect(),
        };
        let mut player = Player::new(recording, 0.0);
        player.step();
        player.step();
        assert_eq!(player.applied(), 2);
        assert_eq!(player.position_ms(), 100.0);
        player.seek(350.0);
        assert_eq!(player.applied(), 4);
        let revisions = |p: &Player| p.stores()[key].timeline("u").map(|t| t.revisions.len());
        assert_eq!(revisions(&player), Some(4));
        player.seek(50.0);
        assert_eq!(revisions(&player), Some(1), "rebuilt from the start");
        player.seek(10_000.0);
        assert!(player.at_end());
        assert_eq!(player.position_ms(), 400.0);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        assert!(Recording::parse("").unwrap_err().contains("empty"));
        assert!(Recording::parse("{\"a\":1}")
            .unwrap_err()
            .contains("header"));
        let newer = "{\"kubeAtlasRecording\": 9}";
        assert!(Recording::parse(newer).unwrap_err().contains("newer"));
        let broken =
            "{\"kubeAtlasRecording\": 1}\n{\"t\":1,\"key\":\"k\",\"type\":\"ADDED\"}\nnot json";
        assert_eq!(
            Recording::parse(broken).unwrap_err().split(':').next(),
            Some("line 3")
        );
        // Unknown types are skipped.
        let later = "{\"kubeAtlasRecording\": 1}\n{\"t\":1,\"key\":\"k\",\"type\":\"FUTURE\"}";
        assert_eq!(Recording::parse(later).map(|r| r.records.len()), Ok(0));
    }
}
