//! The Event objects of a watch kept as a log (`use_event_log`): the pure
//! [`EventLog`] follows the watch's cache, once per batch of changes (a frame), reading only
//! the Events whose resourceVersion it does not hold. The Events timeline and the overview
//! read it.

use leptos::prelude::*;

use crate::model::object::events::EventLog;
use crate::model::watch::{ObjectCache, WatchStatus};

/// The watch of Event objects the log follows.
#[derive(Clone, Copy)]
pub struct UseEventLogOptions {
    pub store: Signal<ObjectCache>,
    pub status: Signal<WatchStatus>,
}

#[derive(Clone, Copy)]
pub struct UseEventLogReturn {
    pub log: Signal<EventLog>,
    /// The watch has listed once: the log holds every Event it had then.
    pub filled: Signal<bool>,
}

pub fn use_event_log(options: UseEventLogOptions) -> UseEventLogReturn {
    let UseEventLogOptions { store, status } = options;
    let log = RwSignal::new(EventLog::default());
    let filled = Memo::new(move |_| status.with(|s| s.resource_version.is_some()));
    Effect::new(move |_| {
        store.track();
        let complete = filled.get();
        let changed = store.with_untracked(|cache| {
            log.try_update_untracked(|log| log.merge_snapshot(cache, complete).changed())
        });
        if changed == Some(true) {
            log.notify();
        }
    });
    UseEventLogReturn {
        log: log.into(),
        filled: filled.into(),
    }
}
