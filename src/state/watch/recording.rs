//! Recording what every stream receives, to replay later (`model::history::recording`).

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;

use super::WatchHub;
use crate::browser::now_ms;
use crate::model::history::recording::{Header, FORMAT_VERSION};
use crate::model::history::{Record, Recording};
use crate::model::watch::StoreChange;

/// The recording in progress, shared by every stream.
pub(super) type Recorder = Rc<RefCell<Option<ActiveRecording>>>;

/// A recording being made: its records so far and when it started.
pub struct ActiveRecording {
    pub started_ms: f64,
    pub recording: Recording,
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
                let key = stream.key().describe();
                recording.records.push(Record::of_change(
                    0.0,
                    &key,
                    &StoreChange::Append(items),
                    false,
                ));
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
