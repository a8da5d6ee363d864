//! The request log: every API call the dashboard makes, newest last. Fed by `api` through
//! the [`RequestObserver`] that [`install`] sets.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;

use crate::api::{self, ApiRequest, RequestObserver, RequestOutcome, Transport};

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
    /// Content-Type of the body, when one was sent (e.g. a patch type).
    pub content_type: Option<String>,
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

/// Creates the log signal and makes the API transport report to it.
pub fn install() -> RwSignal<Vec<RequestRecord>> {
    let signal = RwSignal::new(Vec::new());
    api::set_observer(Rc::new(RequestLog {
        entries: signal,
        next_id: Cell::new(1),
    }));
    signal
}

struct RequestLog {
    entries: RwSignal<Vec<RequestRecord>>,
    next_id: Cell<u64>,
}

impl RequestLog {
    fn update(&self, id: u64, f: impl FnOnce(&mut RequestRecord)) {
        // try_update: a request may finish after the app was unmounted (tests).
        self.entries.try_update(|entries| {
            if let Some(entry) = entries.iter_mut().rev().find(|e| e.id == id) {
                f(entry);
            }
        });
    }
}

impl RequestObserver for RequestLog {
    fn started(&self, request: &ApiRequest, transport: Transport) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let stream = transport == Transport::WebSocket;
        let record = RequestRecord {
            id,
            method: request.method().to_string(),
            path: request.url(),
            status: None,
            duration_ms: 0.0,
            bytes: 0,
            accept: if stream {
                format!("{} (WebSocket)", request.accept)
            } else {
                request.accept.clone()
            },
            content_type: request.content_type().map(str::to_string),
            watch: stream.then_some(WatchProgress {
                events: 0,
                open: true,
            }),
            error: None,
        };
        self.entries.try_update(|entries| {
            entries.push(record);
            if entries.len() > MAX_RECORDS {
                let excess = entries.len() - MAX_RECORDS;
                entries.drain(..excess);
            }
        });
        id
    }

    fn stream_message(&self, id: u64, bytes: usize) {
        self.update(id, |r| {
            r.status = Some(101);
            r.bytes += bytes;
            if let Some(w) = r.watch.as_mut() {
                w.events += 1;
            }
        });
    }

    fn finished(&self, id: u64, outcome: RequestOutcome) {
        self.update(id, |r| {
            r.duration_ms = outcome.duration_ms;
            if r.watch.is_none() {
                r.status = outcome.status;
                r.bytes = outcome.bytes;
            }
            if let Some(w) = r.watch.as_mut() {
                w.open = false;
            }
            r.error = outcome.error;
        });
    }
}
