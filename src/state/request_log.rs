//! The request log: every API call the dashboard makes, newest last.

use std::cell::{Cell, RefCell};

use leptos::prelude::*;

/// One API call as shown in the request log panel.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRecord {
    pub id: u64,
    pub method: String,
    /// Path with query, as sent (same-origin).
    pub path: String,
    /// None while no HTTP answer came back (or never did).
    pub status: Option<u16>,
    pub duration_ms: f64,
    pub bytes: usize,
    pub accept: String,
    /// For watch streams: events received so far, and whether the stream is still open.
    pub watch: Option<WatchProgress>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchProgress {
    pub events: u64,
    pub open: bool,
}

/// Keeps the log bounded: a long session with live watches must not grow without limit.
const MAX_RECORDS: usize = 500;

thread_local! {
    // The browser runs the app on one thread; the log is installed once by the app root.
    static LOG: RefCell<Option<RwSignal<Vec<RequestRecord>>>> = const { RefCell::new(None) };
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

/// Creates the log signal and makes `record` write to it.
pub fn install() -> RwSignal<Vec<RequestRecord>> {
    let signal = RwSignal::new(Vec::new());
    LOG.with(|log| *log.borrow_mut() = Some(signal));
    signal
}

fn with_log(f: impl FnOnce(&mut Vec<RequestRecord>)) {
    LOG.with(|log| {
        if let Some(signal) = *log.borrow() {
            signal.update(f);
        }
    });
}

/// Starts a record and returns its id for later updates.
pub fn start(method: &str, path: &str, accept: &str, watch: bool) -> u64 {
    let id = NEXT_ID.with(|next| {
        let id = next.get();
        next.set(id + 1);
        id
    });
    let record = RequestRecord {
        id,
        method: method.to_string(),
        path: path.to_string(),
        status: None,
        duration_ms: 0.0,
        bytes: 0,
        accept: accept.to_string(),
        watch: watch.then_some(WatchProgress {
            events: 0,
            open: true,
        }),
        error: None,
    };
    with_log(|entries| {
        entries.push(record);
        if entries.len() > MAX_RECORDS {
            let excess = entries.len() - MAX_RECORDS;
            entries.drain(..excess);
        }
    });
    id
}

pub fn update(id: u64, f: impl FnOnce(&mut RequestRecord)) {
    with_log(|entries| {
        if let Some(entry) = entries.iter_mut().rev().find(|e| e.id == id) {
            f(entry);
        }
    });
}
