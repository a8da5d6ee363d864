//! The request log: every API call the dashboard makes, newest last.

use std::cell::RefCell;

use leptos::prelude::*;

/// One API call as shown in the request log panel.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestRecord {
    pub method: String,
    pub path: String,
    /// None when no HTTP answer came back.
    pub status: Option<u16>,
    pub duration_ms: f64,
    pub bytes: usize,
    pub accept: String,
}

impl RequestRecord {
    pub fn new(
        method: &str,
        path: &str,
        status: Option<u16>,
        duration_ms: f64,
        bytes: usize,
        accept: &str,
    ) -> Self {
        Self {
            method: method.to_string(),
            path: path.to_string(),
            status,
            duration_ms,
            bytes,
            accept: accept.to_string(),
        }
    }
}

thread_local! {
    // The browser runs the app on one thread; the log is installed once by the app root.
    static LOG: RefCell<Option<RwSignal<Vec<RequestRecord>>>> = const { RefCell::new(None) };
}

/// Creates the log signal and makes `record` write to it.
pub fn install() -> RwSignal<Vec<RequestRecord>> {
    let signal = RwSignal::new(Vec::new());
    LOG.with(|log| *log.borrow_mut() = Some(signal));
    signal
}

pub fn record(entry: RequestRecord) {
    LOG.with(|log| {
        if let Some(signal) = *log.borrow() {
            signal.update(|entries| entries.push(entry));
        }
    });
}
