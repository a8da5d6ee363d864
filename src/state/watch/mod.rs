//! The shared watch layer in the browser: one stream per [`WatchKey`], shared by every view
//! that asks for it ([`use_watch_table`], [`use_watch_objects`]), closed a moment after the
//! last view goes. Each stream runs the pure watcher (`model::watch::Watcher`); this layer
//! only performs its commands and feeds back what happened.
//!
//! - `stream`: one key's stream, its store, and changes applied in one batch per animation
//!   frame (thousands of events a second cost one render a frame; nothing runs while nothing
//!   changes);
//! - `registry`: the open streams by store type, and who uses which;
//! - `transport`: list pages, WebSocket, chunked-HTTP and multiplexed watches;
//! - `slots`: the few HTTP watch connections, who holds them and who waits;
//! - `probe`: whether WebSockets work through whatever serves the page;
//! - `wake`: resuming every stream after sleep, a network blip or a hidden tab;
//! - `recording`: recording what the streams receive.
//!
//! Table keys keep a `LiveTable` and object keys an `ObjectCache`, in separate sets: a view
//! gets the store its hook names, by type.

mod probe;
mod recording;
mod registry;
mod slots;
mod stream;
mod transport;
mod wake;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;

pub use recording::ActiveRecording;
use recording::Recorder;
use registry::{OpenStreams, Registered};
use slots::SlotPool;
use stream::{AnyStream, KeyStream};

use crate::browser::{monotonic_now, wall_now};
use crate::model::diagnosis::Health;
use crate::model::history::{HistoryStore, ObjectTimeline, RevisionKind};
use crate::model::list::table::DecodeOptions;
use crate::model::navigation::palette::{
    distinct_loaded_objects, resource_of_collection, LoadedObject,
};
use crate::model::watch::{
    LiveTable, MechanicsLog, ObjectCache, Output, WatchKey, WatchStatus, LINGER_MS,
};

/// Whether WebSocket watches reach the API server through whatever serves this page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocketHealth {
    Unknown,
    Works,
    /// Sockets open but nothing ever arrives (Trunk's dev proxy): watch over chunked HTTP.
    Silent,
}

/// How a key's stream travels, as its status line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamTransport {
    WebSocket,
    Http,
    /// Waiting for one of the HTTP watch connections (all held by other live views).
    WaitingForConnection,
    /// Over kube-atlas's one socket that carries every watch of the page.
    Multiplexed,
}

struct HubInner {
    streams: OpenStreams,
    /// Who holds the HTTP watch connections, and who waits for one.
    slots: SlotPool,
    socket_health: SocketHealth,
    recorder: Recorder,
}

/// The app's one watch hub (in context).
#[derive(Clone, Copy)]
pub struct WatchHub {
    /// Browser-only state (Rc, closures): kept local to the thread the app runs on.
    inner: StoredValue<HubInner, LocalStorage>,
    /// Shown in the header: how many streams are open.
    pub open_streams: RwSignal<usize>,
    pub socket_health: RwSignal<SocketHealth>,
    /// When the running recording started (None: not recording).
    pub recording: RwSignal<Option<f64>>,
}

/// What a view gets for a key: the shared items and the stream's status.
#[derive(Clone)]
/// Read-only: only the key's stream writes them (kube-rs's reflector Store and Writer).
pub struct LiveWatch<S: 'static> {
    pub key: WatchKey,
    pub store: ArcReadSignal<S>,
    pub status: ArcReadSignal<WatchStatus>,
    pub transport: ArcReadSignal<StreamTransport>,
}

impl WatchHub {
    /// Creates the hub, provides it as context, and reconnects every stream when the browser
    /// comes back online or the tab is shown again after a while (a laptop waking up).
    pub fn install() -> WatchHub {
        let hub = WatchHub {
            inner: StoredValue::new_local(HubInner {
                streams: OpenStreams::new((js_sys::Math::random() * 1e15) as u64 + 1),
                slots: SlotPool::default(),
                socket_health: SocketHealth::Unknown,
                recorder: Rc::new(RefCell::new(None)),
            }),
            recording: RwSignal::new(None),
            open_streams: RwSignal::new(0),
            socket_health: RwSignal::new(SocketHealth::Unknown),
        };
        provide_context(hub);
        hub.listen_for_wake_up();
        // Behind kube-atlas every watch shares its one socket: nothing to probe.
        if !crate::api::multiplex::available() {
            spawn_local(async move { hub.probe_websocket().await });
        }
        hub
    }

    /// The longest timeline of object `uid` that an open stream other than `key`'s keeps
    /// (an object page opened from its list's activity view takes the writes seen there).
    pub fn other_timeline(&self, key: &WatchKey, uid: &str) -> Option<ObjectTimeline> {
        self.streams()
            .iter()
            .filter(|s| s.key() != *key)
            .filter_map(|s| s.history())
            .filter_map(|h| h.try_with_untracked(|h| h.timeline(uid).cloned()).flatten())
            .max_by_key(|t| t.revisions.len())
    }

    /// Objects held by open streams (a list's rows, a page's objects), at most `limit`, for
    /// the palette's name search. The kind is left for the caller (it has the API tree).
    pub fn loaded_objects(&self, limit: usize) -> Vec<LoadedObject> {
        let mut found = Vec::new();
        let _ = self.inner.try_with_value(|inner| {
            for stream in inner.streams.tables.open.values() {
                let Some(resource) = resource_of_collection(&stream.key().collection_path) else {
                    continue;
                };
                stream.store.with_untracked(|live| {
                    let rows = live.table().rows().iter().take(limit);
                    found.extend(rows.map(|row| LoadedObject::of_row(&resource, row)))
                });
            }
            for stream in inner.streams.objects.open.values() {
                let Some(resource) = resource_of_collection(&stream.key().collection_path) else {
                    continue;
                };
                stream.store.with_untracked(|cache| {
                    let objects = cache.iter().take(limit);
                    found.extend(objects.filter_map(|o| LoadedObject::of_object(&resource, o)))
                });
            }
        });
        distinct_loaded_objects(found, limit)
    }

    /// Sets the verdicts about what a list's rows control (`state::verdicts`) on the rows of
    /// `key`'s stream, through the stream: views read its store, only the stream writes it.
    pub fn set_row_verdicts(&self, key: &WatchKey, verdicts: HashMap<String, Health>) {
        let Some(stream) = self.stream_of::<LiveTable>(key) else {
            return;
        };
        let changed = stream
            .store
            .try_update_untracked(|live| live.set_verdicts(verdicts));
        if changed == Some(true) {
            stream.store.notify();
        }
    }

    /// Every forbidden stream asks again (the user asked, or permissions may have changed).
    pub fn retry_forbidden(&self) {
        for stream in self.streams().iter().filter(|s| s.is_forbidden()) {
            stream.retry();
        }
    }

    /// Every stream resumes at once from where it was (a forbidden one stays as it is).
    pub fn reconnect_all(&self) {
        for stream in self.streams() {
            stream.kick_now();
        }
    }

    /// The open streams, in the order they were opened (a page's object before the kinds it
    /// may own), so HTTP watch slots go to them first.
    fn streams(&self) -> Vec<Rc<dyn AnyStream>> {
        self.inner
            .try_with_value(|inner| inner.streams.all())
            .unwrap_or_default()
    }

    /// The open stream of `key` that keeps `S`.
    fn stream_of<S: Registered>(&self, key: &WatchKey) -> Option<Rc<KeyStream<S>>> {
        self.inner
            .try_update_value(|inner| S::streams_of(&mut inner.streams).open.get(key).cloned())
            .flatten()
    }

    fn subscribe<S: Registered>(
        &self,
        key: &WatchKey,
        make_store: impl FnOnce() -> S,
    ) -> Rc<KeyStream<S>> {
        let (stream, first, count) = self
            .inner
            .try_update_value(|inner| {
                let (stream, first) = inner.streams.open(key, make_store, &inner.recorder);
                (stream, first, inner.streams.count())
            })
            .expect("the watch hub lives as long as the app");
        self.open_streams.set(count);
        if let Some(first) = first {
            let hub = *self;
            let running = Rc::clone(&stream);
            spawn_local(async move { hub.run(running, first).await });
        }
        stream
    }

    fn unsubscribe<S: Registered>(&self, key: &WatchKey) {
        let close_at = self
            .inner
            .try_update_value(|inner| {
                S::streams_of(&mut inner.streams)
                    .subscriptions
                    .unsubscribe(key, monotonic_now())
            })
            .flatten();
        if close_at.is_some() {
            let hub = *self;
            set_timeout(
                move || hub.close_expired::<S>(),
                Duration::from_millis(LINGER_MS as u64 + 50),
            );
        }
    }

    fn close_expired<S: Registered>(&self) {
        let Some((closed, count)) = self.inner.try_update_value(|inner| {
            let streams = S::streams_of(&mut inner.streams);
            let expired = streams.subscriptions.expired(monotonic_now());
            let closed: Vec<Rc<KeyStream<S>>> = expired
                .iter()
                .filter_map(|key| streams.open.remove(key))
                .collect();
            (closed, inner.streams.count())
        }) else {
            return;
        };
        for stream in closed {
            stream.closed.set(true);
            stream.kick_now();
        }
        self.open_streams.set(count);
    }
}

fn hub() -> WatchHub {
    expect_context::<WatchHub>()
}

/// Subscribes the calling view to `key`'s stream of `S`, unsubscribing when the view goes.
fn use_stream<S: Registered>(key: WatchKey, make_store: impl FnOnce() -> S) -> LiveWatch<S> {
    let hub = hub();
    let stream = hub.subscribe(&key, make_store);
    let released = key.clone();
    on_cleanup(move || hub.unsubscribe::<S>(&released));
    LiveWatch {
        key,
        store: stream.store.read_only(),
        status: stream.status.read_only(),
        transport: stream.transport.read_only(),
    }
}

/// A live list of the server's Table rows for `key`, whose output must be [`Output::Table`]
/// (the watcher asks for what the key says; this store draws Tables).
pub fn use_watch_table(key: WatchKey, options: DecodeOptions) -> LiveWatch<LiveTable> {
    debug_assert_eq!(key.output, Output::Table, "a Table store for {key:?}");
    use_stream(key, || LiveTable::new(options))
}

/// Live whole objects for `key` (output [`Output::Objects`] or [`Output::Metadata`]).
pub fn use_watch_objects(key: WatchKey) -> LiveWatch<ObjectCache> {
    debug_assert_ne!(key.output, Output::Table, "an object store for {key:?}");
    let names_only = key.output == Output::Metadata;
    use_stream(key, move || {
        if names_only {
            ObjectCache::metadata_only()
        } else {
            ObjectCache::default()
        }
    })
}

/// The mechanics log of `key`'s stream (requests, each event, bookmarks, relists), kept up
/// to date while the calling view lives. None when nothing watches `key`.
pub fn use_watch_mechanics(key: &WatchKey) -> Option<ArcRwSignal<MechanicsLog>> {
    match key.output {
        Output::Table => mechanics_of::<LiveTable>(key),
        Output::Objects | Output::Metadata => mechanics_of::<ObjectCache>(key),
    }
}

fn mechanics_of<S: Registered>(key: &WatchKey) -> Option<ArcRwSignal<MechanicsLog>> {
    let hub = hub();
    let stream = hub.stream_of::<S>(key)?;
    stream
        .mechanics_viewers
        .set(stream.mechanics_viewers.get() + 1);
    stream
        .mechanics_shown
        .set(stream.mechanics.borrow().clone());
    let shown = stream.mechanics_shown.clone();
    let key = key.clone();
    on_cleanup(move || {
        if let Some(stream) = hub.stream_of::<S>(&key) {
            stream
                .mechanics_viewers
                .set(stream.mechanics_viewers.get().saturating_sub(1));
        }
    });
    Some(shown)
}

/// Live whole objects for `key` with every version they go through from now on (and from
/// when the key's stream first kept history, if another view asked before): the objects,
/// and their timelines. The objects held now start their timelines as LISTED.
pub fn use_watch_history(key: WatchKey) -> (LiveWatch<ObjectCache>, ArcRwSignal<HistoryStore>) {
    let live = use_watch_objects(key.clone());
    let history = match hub().stream_of::<ObjectCache>(&key) {
        Some(stream) => {
            let existing = stream.history.borrow().clone();
            match existing {
                Some(history) => history,
                None => {
                    let mut store = HistoryStore::default();
                    let now = wall_now();
                    live.store.with_untracked(|cache| {
                        cache
                            .iter()
                            .for_each(|o| store.record(RevisionKind::Listed, o, now))
                    });
                    let history = ArcRwSignal::new(store);
                    *stream.history.borrow_mut() = Some(history.clone());
                    history
                }
            }
        }
        None => ArcRwSignal::new(HistoryStore::default()),
    };
    (live, history)
}
