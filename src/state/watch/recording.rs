//! Recording what every stream receives, to replay later (`model::history::recording`).

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;

use super::WatchHub;
use crate::browser::now_ms;
use crate::model::history::recording::{Header, FORMAT_VERSION};
use crate::model::history::{Record, Recording};
use crate::model::watch::{StoreChange, WatchKey};

/// The recording in progress, shared by every stream.
pub(super) type Recorder = Rc<RefCell<Option<ActiveRecording>>>;

/// A recording being made: its records so far and when it started.
pub struct ActiveRecording {
    pub started_ms: f64,
    pub recording: Recording,
}

/// The cluster a stream's records name: its own, else the page's (behind kube-atlas); none
/// with one cluster.
pub(super) fn recorded_cluster(key: &WatchKey) -> Option<String> {
    key.cluster
        .clone()
        .or_else(crate::state::clusters::current_cluster)
}

impl WatchHub {
    /// Starts recording what every stream receives, from now on. Each open stream's current
    /// objects go first, as a LIST, so the recording replays from a known state.
    pub fn start_recording(&self) {
        let started_ms = now_ms();
        let mut recording = Recording {
            header: Some(Header {
                version: FORMAT_VERSION,
                started_at: js_sys::Date::new_0().to_iso_string().into(),
                note: "recorded by Kube Atlas".into(),
            }),
            records: Vec::new(),
        };
        for stream in self.streams() {
            if let Some(items) = stream.objects_for_recording() {
                let key = stream.key();
                recording.records.push(
                    Record::of_change(
                        0.0,
                        &key.describe_collection(),
                        &StoreChange::Append(items),
                        false,
                    )
                    .on_cluster(recorded_cluster(&key)),
                );
            }
        }
        let recorder = self.inner.with_value(|inner| Rc::clone(&inner.recorder));
        *recorder.borrow_mut() = Some(ActiveRecording {
            started_ms,
            recording,
        });
        self.recording.set(Some(started_ms));
    }

    /// Stops the recording and gives it back as JSON Lines.
    pub fn stop_recording(&self) -> Option<String> {
        let recorder = self.inner.with_value(|inner| Rc::clone(&inner.recorder));
        let active = recorder.borrow_mut().take();
        self.recording.set(None);
        active.map(|a| a.recording.to_jsonl())
    }
}
