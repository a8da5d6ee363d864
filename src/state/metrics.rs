//! Usage from the metrics API, polled (metrics-server has no watch) and shared: one request
//! per key per window whatever the number of views that want it, paused while the tab is
//! hidden, never sent to an API discovery did not find or that answered 404/503
//! (`model::metrics::poll` decides; this module owns the timer and the requests). Each
//! answer also feeds the page's sample history, which the usage charts draw.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use gloo_timers::callback::Timeout;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::api::ApiError;
use crate::browser::{document_hidden, monotonic_now, wall_now};
use crate::model::api::request::encode_query_component;
use crate::model::metrics::{
    decode_node_metrics, decode_pod_metrics, metrics_api, MetricsApi, NodeMetrics, Outcome,
    PodMetrics, PollKey, Poller, SampleHistory, NO_METRICS_API,
};
use crate::state::discovery::DiscoveryState;

/// Set in localStorage (to any value), nothing asks the metrics API and views show no usage:
/// how `cargo xtask bench list` measures what the usage columns cost a list.
pub const USAGE_OFF_KEY: &str = "kube-atlas.usage-off";

/// One answer of a poll.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    Pods(Arc<Vec<PodMetrics>>),
    Nodes(Arc<Vec<NodeMetrics>>),
    /// The API refused the user (403): why, in words, so a view says it instead of waiting.
    Denied(String),
}

/// Where the page's one [`MetricsHub`] is made, provided by the shell: the hub itself is
/// made the first time a view asks for usage, so its code is not part of page start.
#[derive(Clone, Copy)]
pub struct MetricsHubSlot {
    hub: StoredValue<Option<MetricsHub>>,
    /// The shell's owner: the hub outlives the page that first asked for it.
    owner: StoredValue<Owner, LocalStorage>,
    discovery: DiscoveryState,
}

impl MetricsHubSlot {
    pub fn provide(discovery: DiscoveryState) {
        provide_context(MetricsHubSlot {
            hub: StoredValue::new(None),
            owner: StoredValue::new_local(Owner::current().unwrap_or_default()),
            discovery,
        });
    }
}

/// The page's metrics polls.
#[derive(Clone, Copy)]
pub struct MetricsHub {
    poller: StoredValue<Poller, LocalStorage>,
    timer: StoredValue<Option<Timeout>, LocalStorage>,
    readings: StoredValue<HashMap<PollKey, RwSignal<Option<Reading>>>>,
    /// Pods whose samples are kept (those a chart shows); nodes' always are (few).
    charted_pods: StoredValue<BTreeSet<(String, String)>>,
    /// Polls all of whose pods keep their samples (a workload's pods, by its selector).
    charted_keys: StoredValue<BTreeSet<PollKey>>,
    /// Where discovery says the API is: where views ask.
    found: Memo<MetricsApi>,
    /// Why an API discovery lists is not asked (it answered 404 or 503).
    refused: RwSignal<Option<String>>,
    /// Samples since the page opened, an hour at most.
    pub samples: RwSignal<SampleHistory>,
}

impl MetricsHub {
    /// The page's hub, made at the first call.
    pub fn get() -> MetricsHub {
        let slot = expect_context::<MetricsHubSlot>();
        if let Some(hub) = slot.hub.get_value() {
            return hub;
        }
        let hub = slot
            .owner
            .with_value(|owner| owner.with(|| MetricsHub::install(slot.discovery)));
        slot.hub.set_value(Some(hub));
        hub
    }

    /// Makes the hub: it follows discovery (a served API polls, a missing one stops) and the
    /// tab's visibility.
    fn install(discovery: DiscoveryState) -> MetricsHub {
        // A memo: only a change of what discovery says moves the poller, so an API that
        // answered 503 is not asked again at each discovery refresh that still lists it.
        let off = crate::browser::local_storage_get(USAGE_OFF_KEY).is_some();
        let found = Memo::new(move |_| {
            discovery.loaded.with(|loaded| match loaded {
                Some(loaded) if !off => metrics_api(&loaded.discovery.tree),
                _ => MetricsApi::Missing {
                    reason: NO_METRICS_API.to_string(),
                },
            })
        });
        let hub = MetricsHub {
            poller: StoredValue::new_local(Poller::new(found.get_untracked())),
            timer: StoredValue::new_local(None),
            readings: StoredValue::new(HashMap::new()),
            charted_pods: StoredValue::new(BTreeSet::new()),
            charted_keys: StoredValue::new(BTreeSet::new()),
            found,
            refused: RwSignal::new(None),
            samples: RwSignal::new(SampleHistory::new()),
        };
        Effect::new(move |_| {
            let api = found.get();
            hub.poller.update_value(|p| p.set_api(api));
            hub.refused.set(None);
            hub.pump();
        });
        hub.listen_for_visibility();
        hub
    }

    /// Subscribes a view to `key` until the calling scope is cleaned up; its answers.
    fn subscribe(self, key: PollKey) -> RwSignal<Option<Reading>> {
        let reading = self.readings.try_update_value(|readings| {
            *readings
                .entry(key.clone())
                .or_insert_with(|| RwSignal::new(None))
        });
        let reading = reading.unwrap_or_else(|| RwSignal::new(None));
        self.poller.update_value(|p| p.subscribe(key.clone()));
        self.pump();
        on_cleanup(move || {
            let last = self
                .poller
                .try_update_value(|p| {
                    p.unsubscribe(&key);
                    p.views(&key) == 0
                })
                .unwrap_or(true);
            if last {
                self.readings.update_value(|readings| {
                    readings.remove(&key);
                });
            }
        });
        reading
    }

    /// Keeps the samples of pod `namespace/name` while the calling scope lives.
    pub fn chart_pod(self, namespace: &str, name: &str) {
        let pod = (namespace.to_string(), name.to_string());
        self.charted_pods.update_value(|pods| {
            pods.insert(pod.clone());
        });
        on_cleanup(move || {
            self.charted_pods.try_update_value(|pods| pods.remove(&pod));
        });
    }

    /// Keeps the samples of every pod `key` answers with while the calling scope lives.
    pub fn chart_key(self, key: PollKey) {
        self.charted_keys.update_value(|keys| {
            keys.insert(key.clone());
        });
        on_cleanup(move || {
            self.charted_keys.try_update_value(|keys| keys.remove(&key));
        });
    }

    /// The poll of the pod metrics of one namespace (or all) with a label selector; None
    /// where discovery did not find the API listing pods.
    pub fn pod_metrics_key(self, namespace: Option<&str>, label_selector: &str) -> Option<PollKey> {
        let path = self.found.with_untracked(|api| api.pods_path(namespace))?;
        Some(PollKey::new(path).with_label_selector(label_selector))
    }

    /// Why there is no usage, in words (None while the API is served and answers).
    pub fn missing(self) -> Option<String> {
        self.found
            .with(|api| api.reason().map(str::to_string))
            .or_else(|| self.refused.get())
    }

    /// Says why when the last answers stopped the polls.
    fn note_refusal(self) {
        let reason = self
            .poller
            .with_value(|p| p.api().reason().map(str::to_string));
        if reason.is_some() && self.refused.get_untracked() != reason {
            self.refused.set(reason);
        }
    }

    /// Sends what is due and sleeps until the next poll falls due.
    fn pump(self) {
        let now = monotonic_now();
        let due = self
            .poller
            .try_update_value(|p| p.due(now))
            .unwrap_or_default();
        for key in due {
            spawn_local(async move { self.request(key).await });
        }
        let wake = self.poller.with_value(Poller::next_wake);
        let timer = wake.map(|at| {
            let delay = (at - monotonic_now().ms()).clamp(0.0, f64::from(u32::MAX)) as u32;
            Timeout::new(delay, move || self.pump())
        });
        // Replacing the timer drops (cancels) the one set before.
        self.timer.set_value(timer);
    }

    async fn request(self, key: PollKey) {
        let mut path = key.path.clone();
        if !key.label_selector.is_empty() {
            path.push_str("?labelSelector=");
            path.push_str(&encode_query_component(&key.label_selector));
        }
        let outcome = match crate::api::get(&path, "application/json").await {
            Ok(fetched) => match self.read(&key, &fetched.body) {
                Some(reading) => {
                    // Decoding a namespace's usage (10,000 pods: megabytes) and drawing it
                    // go in separate tasks, so no frame waits for both.
                    gloo_timers::future::TimeoutFuture::new(0).await;
                    if let Some(signal) = self.readings.with_value(|r| r.get(&key).copied()) {
                        signal.try_set(Some(reading));
                    }
                    Outcome::Ok
                }
                None => Outcome::Failed,
            },
            Err(ApiError::Status {
                code: 403, message, ..
            }) => {
                if let Some(signal) = self.readings.with_value(|r| r.get(&key).copied()) {
                    signal.try_set(Some(Reading::Denied(format!(
                        "You may not read this usage: {message}"
                    ))));
                }
                Outcome::Status(403)
            }
            Err(ApiError::Status { code, .. }) => Outcome::Status(code),
            Err(_) => Outcome::Failed,
        };
        self.poller
            .try_update_value(|p| p.answered(&key, outcome, monotonic_now()));
        self.note_refusal();
        self.pump();
    }

    /// Decodes an answer and keeps its samples.
    fn read(self, key: &PollKey, body: &str) -> Option<Reading> {
        let now = wall_now();
        if key.path.ends_with("/nodes") {
            let nodes = decode_node_metrics(body).ok()?;
            self.samples.update(|s| {
                s.record_nodes(&nodes, now);
                s.prune(now);
            });
            return Some(Reading::Nodes(Arc::new(nodes)));
        }
        let pods = decode_pod_metrics(body).ok()?;
        let whole = self.charted_keys.with_value(|keys| keys.contains(key));
        let charted: Vec<PodMetrics> = self.charted_pods.with_value(|charted| {
            pods.iter()
                .filter(|p| whole || charted.contains(&(p.namespace.clone(), p.name.clone())))
                .cloned()
                .collect()
        });
        if !charted.is_empty() {
            self.samples.update(|s| {
                s.record_pods(&charted, now);
                s.prune(now);
            });
        }
        Some(Reading::Pods(Arc::new(pods)))
    }

    fn listen_for_visibility(self) {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let changed = Closure::<dyn Fn()>::new(move || {
            self.poller
                .update_value(|p| p.set_hidden(document_hidden()));
            self.pump();
        });
        document
            .add_event_listener_with_callback("visibilitychange", changed.as_ref().unchecked_ref())
            .ok();
        // Lives as long as the page.
        changed.forget();
    }
}

/// What [`use_metrics`] gives a view.
#[derive(Clone, Copy)]
pub struct UseMetricsReturn {
    /// The last answer (None until the first).
    pub reading: Signal<Option<Reading>>,
    /// Why there is no usage (the API is missing), in words.
    pub missing: Signal<Option<String>>,
}

/// The metrics collection of `key`, polled while the calling view lives, shared with every
/// other view of the same key. None of it is asked while the API is missing.
pub fn use_metrics(key: PollKey) -> UseMetricsReturn {
    let hub = MetricsHub::get();
    let reading = hub.subscribe(key);
    UseMetricsReturn {
        reading: reading.into(),
        missing: Signal::derive(move || hub.missing()),
    }
}

/// The pod metrics of one namespace (or all), as [`use_metrics`]; None where the API does not
/// list pods.
pub fn use_pod_metrics(namespace: Option<&str>, label_selector: &str) -> Option<UseMetricsReturn> {
    let key = MetricsHub::get().pod_metrics_key(namespace, label_selector)?;
    Some(use_metrics(key))
}

/// The node metrics, as [`use_metrics`]; None where the API does not list nodes.
pub fn use_node_metrics() -> Option<UseMetricsReturn> {
    let hub = MetricsHub::get();
    let path = hub.found.with_untracked(|api| api.nodes_path())?;
    Some(use_metrics(PollKey::new(path)))
}
