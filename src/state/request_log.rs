//! The request log: every API call the dashboard makes, newest last. Fed by `api` through
//! the [`RequestObserver`] that [`install`] sets.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;

use crate::api::{self, ApiRequest, RequestObserver, RequestOutcome};
// How a logged request travelled, as the request log shows it.
pub use crate::api::Transport;

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
    pub transport: Transport,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WatchProgress {
    pub events: u64,
    pub open: bool,
}

/// Keeps the log bounded: a long session with live watches must not grow without limit.
const MAX_RECORDS: usize = 500;

/// Stream messages are counted into the log at most this often: a watch with thousands of
/// events a second must not redraw the log thousands of times.
const STREAM_COUNT_INTERVAL_MS: u64 = 500;

/// Whether the log panel is open, and which requests it shows (in context).
#[derive(Debug, Clone, Copy)]
pub struct RequestLogView {
    pub open: RwSignal<bool>,
    /// Only requests whose path starts with this.
    pub path_filter: RwSignal<Option<String>>,
}

impl RequestLogView {
    /// Opens the log on the requests of one collection (a live view's "Requests").
    pub fn show_only(&self, path: String) {
        // Logged paths carry the page's cluster prefix (behind kube-atlas).
        self.path_filter.set(Some(format!("{}{path}", api::base())));
        self.open.set(true);
    }
}

/// Creates the log signal and makes the API transport report to it.
pub fn install() -> RwSignal<Vec<RequestRecord>> {
    let signal = RwSignal::new(Vec::new());
    provide_context(RequestLogView {
        open: RwSignal::new(false),
        path_filter: RwSignal::new(None),
    });
    api::set_observer(Rc::new(RequestLog {
        entries: signal,
        next_id: Cell::new(1),
        stream_counts: Rc::new(RefCell::new(BTreeMap::new())),
    }));
    signal
}

struct RequestLog {
    entries: RwSignal<Vec<RequestRecord>>,
    next_id: Cell<u64>,
    /// Messages and bytes per stream not yet counted into `entries`.
    stream_counts: Rc<RefCell<BTreeMap<u64, (u64, usize)>>>,
}

impl RequestLog {
    /// Adds the pending stream counts to the log in one update.
    fn flush_counts(
        entries: RwSignal<Vec<RequestRecord>>,
        counts: &RefCell<BTreeMap<u64, (u64, usize)>>,
    ) {
        let counts = std::mem::take(&mut *counts.borrow_mut());
        if counts.is_empty() {
            return;
        }
        entries.try_update(|entries| {
            for entry in entries.iter_mut() {
                if let Some((messages, bytes)) = counts.get(&entry.id) {
                    // A WebSocket's messages come after its 101; an HTTP stream's chunks
                    // come after a 2xx, which `finished` reports exactly.
                    let websocket = entry.transport == Transport::WebSocket;
                    entry
                        .status
                        .get_or_insert(if websocket { 101 } else { 200 });
                    entry.bytes += bytes;
                    if let Some(w) = entry.watch.as_mut() {
                        w.events += messages;
                    }
                }
            }
        });
    }
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
        let stream = transport != Transport::Fetch;
        let record = RequestRecord {
            id,
            method: request.method().to_string(),
            path: api::full_url(request),
            status: None,
            duration_ms: 0.0,
            bytes: 0,
            accept: match transport {
                Transport::WebSocket => format!("{} (WebSocket)", request.accept),
                Transport::Multiplexed => format!("{} (shared WebSocket)", request.accept),
                Transport::Fetch | Transport::Stream => request.accept.clone(),
            },
            content_type: request.content_type().map(str::to_string),
            watch: stream.then_some(WatchProgress {
                events: 0,
                open: true,
            }),
            transport,
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
        let first = {
            let mut counts = self.stream_counts.borrow_mut();
            let first = counts.is_empty();
            let count = counts.entry(id).or_default();
            count.0 += 1;
            count.1 += bytes;
            first
        };
        if first {
            let entries = self.entries;
            let counts = Rc::clone(&self.stream_counts);
            set_timeout(
                move || RequestLog::flush_counts(entries, &counts),
                Duration::from_millis(STREAM_COUNT_INTERVAL_MS),
            );
        }
    }

    fn finished(&self, id: u64, outcome: RequestOutcome) {
        RequestLog::flush_counts(self.entries, &self.stream_counts);
        self.update(id, |r| {
            r.duration_ms = outcome.duration_ms;
            if r.watch.is_none() {
                r.status = outcome.status;
                r.bytes = outcome.bytes;
            } else if outcome.status.is_some() {
                // A stream refused before any chunk (a 400 or 404 Status) shows its answer.
                r.status = outcome.status;
                r.bytes = r.bytes.max(outcome.bytes);
            }
            if let Some(w) = r.watch.as_mut() {
                w.open = false;
            }
            r.error = outcome.error;
        });
    }
}
