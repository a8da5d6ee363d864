//! When to ask the metrics API, as a pure state machine. Metrics have no watch (metrics-server
//! answers 405), so usage is polled: one list request per key at the metrics window (15 s by
//! default, never faster than 10 s), shared by every view of the same key as the watch layer
//! shares streams (reference counts), paused while the tab is hidden. A 404 or a 503 means the
//! API is missing: every poll stops, why is said once, and nothing polls a missing API again
//! until discovery finds it served.
//!
//! The caller owns the timers and the requests: it asks [`Poller::due`] what to request now
//! (marking them in flight), reports each answer with [`Poller::answered`], and sleeps until
//! [`Poller::next_wake`].

use std::collections::BTreeMap;

use super::discovery::{missing_after_status, MetricsApi};
use crate::time::clock::Monotonic;

/// The default interval between two polls of one key.
pub const DEFAULT_WINDOW_MS: f64 = 15_000.0;
/// Never faster than this.
pub const MIN_WINDOW_MS: f64 = 10_000.0;

/// What is polled: one metrics collection (`/apis/metrics.k8s.io/v1beta1/namespaces/x/pods`)
/// with a label selector, on a cluster (behind kube-atlas) or the page's own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PollKey {
    pub path: String,
    pub label_selector: String,
    pub cluster: Option<String>,
}

impl PollKey {
    pub fn new(path: impl Into<String>) -> PollKey {
        PollKey {
            path: path.into(),
            label_selector: String::new(),
            cluster: None,
        }
    }

    pub fn with_label_selector(mut self, selector: impl Into<String>) -> PollKey {
        self.label_selector = selector.into();
        self
    }
}

/// How one request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A 2xx answer that was read.
    Ok,
    /// An HTTP status other than 2xx.
    Status(u16),
    /// No answer (network, timeout) or one that could not be read: tried again next window.
    Failed,
}

#[derive(Debug, Clone, PartialEq)]
struct Entry {
    views: usize,
    /// When to ask next (None: at once).
    next_ms: Option<f64>,
    in_flight: bool,
}

/// The metrics polls of one page.
#[derive(Debug, Clone, PartialEq)]
pub struct Poller {
    api: MetricsApi,
    window_ms: f64,
    hidden: bool,
    entries: BTreeMap<PollKey, Entry>,
    /// Why polling stopped, not yet said.
    unsaid: Option<String>,
}

impl Poller {
    /// Polls nothing until discovery says where the API is ([`Poller::set_api`]).
    pub fn new(api: MetricsApi) -> Poller {
        let unsaid = api.reason().map(str::to_string);
        Poller {
            api,
            window_ms: DEFAULT_WINDOW_MS,
            hidden: false,
            entries: BTreeMap::new(),
            unsaid,
        }
    }

    /// The interval between polls of one key.
    pub fn window_ms(&self) -> f64 {
        self.window_ms
    }

    /// Sets the interval; anything under [`MIN_WINDOW_MS`] (or not a number) is raised to it.
    pub fn set_window_ms(&mut self, window_ms: f64) {
        self.window_ms = if window_ms.is_nan() {
            DEFAULT_WINDOW_MS
        } else {
            window_ms.max(MIN_WINDOW_MS)
        };
    }

    pub fn api(&self) -> &MetricsApi {
        &self.api
    }

    /// Discovery changed: a served API polls (at once), a missing one stops every poll and
    /// is said once more.
    pub fn set_api(&mut self, api: MetricsApi) {
        if api == self.api {
            return;
        }
        self.unsaid = api.reason().map(str::to_string);
        if api.is_served() {
            for entry in self.entries.values_mut() {
                entry.next_ms = None;
            }
        }
        self.api = api;
    }

    /// A view wants `key`: the first view starts its poll at once, later ones share it.
    pub fn subscribe(&mut self, key: PollKey) {
        let entry = self.entries.entry(key).or_insert(Entry {
            views: 0,
            next_ms: None,
            in_flight: false,
        });
        entry.views += 1;
    }

    /// A view no longer wants `key`; the poll stops with the last one.
    pub fn unsubscribe(&mut self, key: &PollKey) {
        if let Some(entry) = self.entries.get_mut(key) {
            entry.views = entry.views.saturating_sub(1);
            if entry.views == 0 {
                self.entries.remove(key);
            }
        }
    }

    /// How many views share `key`.
    pub fn views(&self, key: &PollKey) -> usize {
        self.entries.get(key).map_or(0, |e| e.views)
    }

    /// The tab was hidden or shown. Hidden, nothing is due; shown again, what fell due while
    /// hidden is asked at once.
    pub fn set_hidden(&mut self, hidden: bool) {
        self.hidden = hidden;
    }

    /// The keys to request now, marked in flight. Nothing while hidden, while the API is
    /// missing, or for a key whose request has not been answered yet.
    pub fn due(&mut self, now: impl Into<Monotonic>) -> Vec<PollKey> {
        let now = now.into().ms();
        if self.hidden || !self.api.is_served() {
            return Vec::new();
        }
        let mut due = Vec::new();
        for (key, entry) in &mut self.entries {
            if !entry.in_flight && entry.next_ms.is_none_or(|at| at <= now) {
                entry.in_flight = true;
                due.push(key.clone());
            }
        }
        due
    }

    /// When something next falls due (None: nothing will until a view, the tab or discovery
    /// changes).
    pub fn next_wake(&self) -> Option<f64> {
        if self.hidden || !self.api.is_served() {
            return None;
        }
        self.entries
            .values()
            .filter(|e| !e.in_flight)
            .map(|e| e.next_ms.unwrap_or(f64::NEG_INFINITY))
            .min_by(f64::total_cmp)
    }

    /// `key`'s request ended with `outcome` at `now`. A 404 or 503 stops every poll.
    pub fn answered(&mut self, key: &PollKey, outcome: Outcome, now: impl Into<Monotonic>) {
        let now = now.into().ms();
        if let Outcome::Status(status) = outcome {
            if let Some(missing) = missing_after_status(status) {
                if self.api.is_served() {
                    self.unsaid = missing.reason().map(str::to_string);
                    self.api = missing;
                }
            }
        }
        let window = self.window_ms;
        if let Some(entry) = self.entries.get_mut(key) {
            entry.in_flight = false;
            entry.next_ms = Some(now + window);
        }
    }

    /// Why polling stopped, the first time it is asked after it stopped; then None.
    pub fn take_notice(&mut self) -> Option<String> {
        self.unsaid.take()
    }
}
