//! The shared watch layer in the browser: one stream per [`WatchKey`], shared by every view
//! that asks for it ([`use_watch_table`], [`use_watch_objects`]), closed a moment after the
//! last view goes. Each stream runs the pure watcher (`model::watch::Watcher`): this module
//! only performs its commands (list pages with `api::send`; watches of objects over a
//! WebSocket, Table watches and every watch where WebSockets stay silent over chunked HTTP,
//! since a browser WebSocket cannot ask for Tables) and feeds back what happened. Store changes
//! are applied in one batch per animation frame, so thousands of events a second cost one
//! render a frame, and nothing runs while nothing changes.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::rc::Rc;
use std::time::Duration;

use futures::channel::oneshot;
use futures::future::{select, Either};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::api::stream::stream_text;
use crate::api::watch::{Received, WatchSocket};
use crate::api::{self, Abort, ApiError};
use crate::browser::now_ms;
use crate::model::history::{
    HistoryStore, ObjectTimeline, Record, RecordType, Recording, RevisionKind,
};
use crate::model::table::DecodeOptions;
use crate::model::watch::{
    decode_event, Command, EventType, Input, LineDecoder, ListMode, LiveTable, MechanicsLog,
    ObjectCache, Output, Silence, SleepDetector, StoreChange, Subscribed, Subscriptions, WatchKey,
    WatchStatus, WatchStore, Watcher, IDLE_TIMEOUT_MS, LINGER_MS, WAKE_TICK_MS,
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
}

/// A key's items, shared by its views.
#[derive(Clone)]
enum SharedStore {
    Table(ArcRwSignal<LiveTable>),
    Objects(ArcRwSignal<ObjectCache>),
}

impl SharedStore {
    fn apply(&self, changes: Vec<StoreChange>, now: f64) {
        match self {
            SharedStore::Table(signal) => signal.update(|table| {
                changes.into_iter().for_each(|c| table.apply(c, now));
            }),
            SharedStore::Objects(signal) => signal.update(|cache| {
                changes.into_iter().for_each(|c| cache.apply(c, now));
            }),
        }
    }
}

/// One key's stream.
struct KeyStream {
    /// Opening order: when streams are kicked together, earlier ones go first.
    opened: u64,
    store: SharedStore,
    status: ArcRwSignal<WatchStatus>,
    transport: ArcRwSignal<StreamTransport>,
    watcher: RefCell<Watcher>,
    /// Changes waiting for the next frame.
    pending: RefCell<Vec<StoreChange>>,
    frame_scheduled: Cell<bool>,
    /// Interrupts whatever the stream waits for (a backoff, a socket, a page).
    kick: RefCell<Option<oneshot::Sender<()>>>,
    closed: Cell<bool>,
    /// Every version of every object, once a view asks for timelines (objects keys only).
    history: RefCell<Option<ArcRwSignal<HistoryStore>>>,
    /// The hub's recording, when one runs.
    recorder: Recorder,
    /// Requests, events, bookmarks and relists as they happen (for the mechanics panel).
    mechanics: RefCell<MechanicsLog>,
    /// The log as views see it: copied at the next frame while a panel shows it.
    mechanics_shown: ArcRwSignal<MechanicsLog>,
    mechanics_viewers: Cell<usize>,
}

/// The recording in progress, shared by every stream.
type Recorder = Rc<RefCell<Option<ActiveRecording>>>;

/// A recording being made: its records so far and when it started.
pub struct ActiveRecording {
    pub started_ms: f64,
    pub recording: Recording,
}

/// More pending changes than this are applied at once, not at the next frame: a hidden tab
/// gets no frames, and must not pile up events.
const MAX_PENDING: usize = 20_000;

impl KeyStream {
    fn feed(self: &Rc<Self>, input: Input) -> Command {
        let added = matches!(&input, Input::Event(e) if e.event_type == EventType::Added);
        let bookmark = match &input {
            Input::Event(e) if e.event_type == EventType::Bookmark => e
                .object
                .pointer("/metadata/resourceVersion")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string),
            _ => None,
        };
        let wall = js_sys::Date::now();
        self.mechanics.borrow_mut().note_input(&input, wall);
        let step = self.watcher.borrow_mut().on(input, now_ms());
        self.mechanics.borrow_mut().note_command(
            &step.command,
            self.watcher.borrow().status(),
            wall,
        );
        self.record(&step.changes, added, bookmark);
        if !step.changes.is_empty() {
            self.pending.borrow_mut().extend(step.changes);
        }
        self.schedule_frame();
        step.command
    }

    /// Adds what the page received to the recording, when one runs.
    fn record(&self, changes: &[StoreChange], added: bool, bookmark: Option<String>) {
        let mut recorder = self.recorder.borrow_mut();
        let Some(active) = recorder.as_mut() else {
            return;
        };
        let t = now_ms() - active.started_ms;
        let key = self.watcher.borrow().key().describe();
        for change in changes {
            let record = Record::of_change(t, &key, change, added);
            active.recording.records.push(record);
        }
        if let Some(resource_version) = bookmark {
            active.recording.records.push(Record {
                t,
                key,
                record_type: RecordType::Bookmark,
                object: None,
                items: None,
                resource_version: Some(resource_version),
            });
        }
    }

    fn schedule_frame(self: &Rc<Self>) {
        if self.pending.borrow().len() > MAX_PENDING {
            self.flush();
            return;
        }
        if self.frame_scheduled.replace(true) {
            return;
        }
        let this = Rc::clone(self);
        let hidden = web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| d.hidden());
        if hidden {
            // A hidden tab gets no frames: apply from a timer instead.
            set_timeout(move || this.flush(), Duration::from_millis(500));
        } else {
            request_animation_frame(move || this.flush());
        }
    }

    /// Applies the pending changes in one update, and the status once.
    fn flush(&self) {
        self.frame_scheduled.set(false);
        let changes = std::mem::take(&mut *self.pending.borrow_mut());
        if !changes.is_empty() && !self.closed.get() {
            let now = now_ms();
            if let Some(history) = self.history.borrow().as_ref() {
                // Timelines show wall-clock times (and recordings compare with them).
                let wall = js_sys::Date::now();
                history.update(|h| changes.iter().for_each(|c| h.apply(c, wall)));
            }
            self.store.apply(changes, now);
        }
        let status = self.watcher.borrow().status().clone();
        if self.status.with_untracked(|s| *s != status) {
            self.status.set(status);
        }
        if self.mechanics_viewers.get() > 0 {
            let log = self.mechanics.borrow();
            if self
                .mechanics_shown
                .with_untracked(|shown| shown.revision() != log.revision())
            {
                self.mechanics_shown.set(log.clone());
            }
        }
    }

    /// Table watches need their Accept header, which a browser WebSocket cannot send (it
    /// would get plain objects): they are read as chunked HTTP, as `kubectl get -w` reads them.
    fn needs_http(&self) -> bool {
        matches!(self.store, SharedStore::Table(_))
    }

    /// A future that completes when the stream is kicked (reconnect, transport switch, close).
    fn kicked(&self) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        *self.kick.borrow_mut() = Some(sender);
        receiver
    }

    fn kick_now(&self) {
        if let Some(sender) = self.kick.borrow_mut().take() {
            // The receiver may be gone already (the stream moved on): nothing to interrupt.
            let _ = sender.send(());
        }
    }
}

/// HTTP watches held open at once: each takes one of the browser's six HTTP/1.1 connections
/// to the server, and ordinary requests need the rest. Further HTTP watches wait for a slot
/// (in the order they asked: the object of a page before the kinds it may own).
const MAX_HTTP_WATCHES: usize = 4;

struct HubInner {
    /// Streams opened so far.
    opened: u64,
    http_watches: usize,
    http_waiting: std::collections::VecDeque<oneshot::Sender<()>>,
    subscriptions: Subscriptions<WatchKey>,
    streams: HashMap<WatchKey, Rc<KeyStream>>,
    socket_health: SocketHealth,
    next_seed: u64,
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
pub struct LiveWatch<S: 'static> {
    pub key: WatchKey,
    pub store: ArcRwSignal<S>,
    pub status: ArcRwSignal<WatchStatus>,
    pub transport: ArcRwSignal<StreamTransport>,
}

impl WatchHub {
    /// Creates the hub, provides it as context, and reconnects every stream when the browser
    /// comes back online or the tab is shown again after a while (a laptop waking up).
    pub fn install() -> WatchHub {
        let hub = WatchHub {
            inner: StoredValue::new_local(HubInner {
                opened: 0,
                http_watches: 0,
                http_waiting: std::collections::VecDeque::new(),
                subscriptions: Subscriptions::default(),
                streams: HashMap::new(),
                socket_health: SocketHealth::Unknown,
                next_seed: (js_sys::Math::random() * 1e15) as u64 + 1,
                recorder: Rc::new(RefCell::new(None)),
            }),
            recording: RwSignal::new(None),
            open_streams: RwSignal::new(0),
            socket_health: RwSignal::new(SocketHealth::Unknown),
        };
        provide_context(hub);
        hub.listen_for_wake_up();
        spawn_local(async move { hub.probe_websocket().await });
        hub
    }

    fn listen_for_wake_up(&self) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let hub = *self;
        let online = Closure::<dyn Fn()>::new(move || hub.reconnect_all());
        // Listeners live as long as the page: leaking them is the intent.
        window
            .add_event_listener_with_callback("online", online.as_ref().unchecked_ref())
            .ok();
        online.forget();
        let hub = *self;
        let hidden_since = Rc::new(Cell::new(None::<f64>));
        let visibility = Closure::<dyn Fn()>::new(move || {
            let hidden = web_sys::window()
                .and_then(|w| w.document())
                .is_some_and(|d| d.hidden());
            if hidden {
                hidden_since.set(Some(now_ms()));
            } else if let Some(since) = hidden_since.take() {
                // Streams may have died unnoticed while the machine slept.
                if now_ms() - since > 30_000.0 {
                    hub.reconnect_all();
                }
            }
        });
        if let Some(document) = window.document() {
            document
                .add_event_listener_with_callback(
                    "visibilitychange",
                    visibility.as_ref().unchecked_ref(),
                )
                .ok();
        }
        visibility.forget();
        // A page frozen in the background, or restored from the back/forward cache, resumes
        // with streams that may have died meanwhile.
        for (target, event) in [
            (window.document().map(web_sys::EventTarget::from), "resume"),
            (Some(web_sys::EventTarget::from(window.clone())), "pageshow"),
        ] {
            let hub = *self;
            let resumed = Closure::<dyn Fn()>::new(move || hub.reconnect_all());
            if let Some(target) = target {
                target
                    .add_event_listener_with_callback(event, resumed.as_ref().unchecked_ref())
                    .ok();
            }
            resumed.forget();
        }
        // A machine that slept wakes with its streams silently dead and often no other
        // signal (the tab stayed visible, the network never went "offline"): the wall clock
        // jumps, and a cheap tick notices.
        let hub = *self;
        let mut detector = SleepDetector::default();
        gloo_timers::callback::Interval::new(WAKE_TICK_MS, move || {
            let hidden = web_sys::window()
                .and_then(|w| w.document())
                .is_some_and(|d| d.hidden());
            if detector.tick(js_sys::Date::now(), hidden) {
                hub.reconnect_all();
            }
        })
        .forget();
    }

    /// Starts recording what every stream receives, from now on. Each open stream's current
    /// items go first, as a LIST, so the recording replays from a known state.
    pub fn start_recording(&self) {
        let started_ms = now_ms();
        let mut recording = Recording {
            header: Some(crate::model::history::recording::Header {
                version: crate::model::history::recording::FORMAT_VERSION,
                started_at: js_sys::Date::new_0().to_iso_string().into(),
                note: "recorded by Kube Atlas".into(),
            }),
            records: Vec::new(),
        };
        for stream in self.streams() {
            if let SharedStore::Objects(cache) = &stream.store {
                let items: Vec<serde_json::Value> =
                    cache.with_untracked(|c| c.iter().cloned().collect());
                let key = stream.watcher.borrow().key().describe();
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

    /// The longest timeline of object `uid` that an open stream other than `key`'s keeps
    /// (an object page opened from its list's activity view takes the writes seen there).
    pub fn other_timeline(&self, key: &WatchKey, uid: &str) -> Option<ObjectTimeline> {
        self.streams()
            .iter()
            .filter(|s| s.watcher.borrow().key() != key)
            .filter_map(|s| s.history.borrow().clone())
            .filter_map(|h| h.try_with_untracked(|h| h.timeline(uid).cloned()).flatten())
            .max_by_key(|t| t.revisions.len())
    }

    /// Every stream resumes at once from where it was.
    pub fn reconnect_all(&self) {
        for stream in self.streams() {
            stream.kick_now();
        }
    }

    /// Does a WebSocket watch answer here? A watch with `timeoutSeconds=1` must be closed by
    /// the server within a second; one still open and silent after 4 s never will be. A
    /// handshake that fails may be a passing 429 or 500, so it is tried again; only a proxy
    /// that stays silent, or refuses every time, sends watches over HTTP.
    async fn probe_websocket(&self) {
        // With bookmarks allowed, a server that streams lists by default answers at once (the
        // end-of-initial-events bookmark); others close the watch after its 1 s timeout.
        let request = api::ApiRequest::get("/api/v1/namespaces")
            .query("fieldSelector", "metadata.name=kube-atlas-websocket-probe")
            .query("watch", "true")
            .query("allowWatchBookmarks", "true")
            .query("timeoutSeconds", "1");
        const ATTEMPTS: u32 = 3;
        let mut health = SocketHealth::Silent;
        for attempt in 1..=ATTEMPTS {
            let Ok(mut socket) = WatchSocket::open(&request) else {
                break;
            };
            let answered = socket.next();
            let timeout = gloo_timers::future::TimeoutFuture::new(4_000);
            futures::pin_mut!(answered);
            match select(answered, timeout).await {
                Either::Left((Received::Failed(_), _)) if attempt < ATTEMPTS => {
                    gloo_timers::future::TimeoutFuture::new(500 * attempt).await;
                }
                Either::Left((Received::Failed(_), _)) | Either::Right(_) => break,
                Either::Left(_) => {
                    health = SocketHealth::Works;
                    break;
                }
            }
        }
        self.inner
            .update_value(|inner| inner.socket_health = health);
        self.socket_health.set(health);
        if health == SocketHealth::Silent {
            // Streams that started on a socket move to HTTP.
            for stream in self.streams() {
                if stream.transport.get_untracked() == StreamTransport::WebSocket {
                    stream.kick_now();
                }
            }
        }
    }

    /// The open streams, in the order they were opened (a page's object before the kinds it
    /// may own), so HTTP watch slots go to them first.
    fn streams(&self) -> Vec<Rc<KeyStream>> {
        let mut streams: Vec<Rc<KeyStream>> = self
            .inner
            .try_with_value(|inner| inner.streams.values().cloned().collect())
            .unwrap_or_default();
        streams.sort_by_key(|stream| stream.opened);
        streams
    }

    fn subscribe(&self, key: &WatchKey, make_store: impl FnOnce() -> SharedStore) -> Rc<KeyStream> {
        let (stream, first, count) = self
            .inner
            .try_update_value(|inner| {
                let (stream, first) = self.open(inner, key, make_store);
                (stream, first, inner.streams.len())
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

    /// The key's stream, shared or new (with its first command, to run).
    fn open(
        &self,
        inner: &mut HubInner,
        key: &WatchKey,
        make_store: impl FnOnce() -> SharedStore,
    ) -> (Rc<KeyStream>, Option<Command>) {
        let subscribed = inner.subscriptions.subscribe(key);
        if subscribed == Subscribed::Shared {
            if let Some(stream) = inner.streams.get(key) {
                return (Rc::clone(stream), None);
            }
        }
        inner.opened += 1;
        inner.next_seed = inner
            .next_seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        // Big lists page (progress, first rows at once); object watches stream their list.
        let mode = match key.output {
            Output::Table => ListMode::Paged,
            Output::Objects | Output::Metadata => ListMode::Streaming,
        };
        let (watcher, first) = Watcher::new(key.clone(), mode, inner.next_seed);
        let status = ArcRwSignal::new(watcher.status().clone());
        let stream = Rc::new(KeyStream {
            opened: inner.opened,
            store: make_store(),
            status,
            transport: ArcRwSignal::new(StreamTransport::WebSocket),
            watcher: RefCell::new(watcher),
            pending: RefCell::new(Vec::new()),
            frame_scheduled: Cell::new(false),
            kick: RefCell::new(None),
            closed: Cell::new(false),
            history: RefCell::new(None),
            recorder: Rc::clone(&inner.recorder),
            mechanics: RefCell::new(MechanicsLog::default()),
            mechanics_shown: ArcRwSignal::new(MechanicsLog::default()),
            mechanics_viewers: Cell::new(0),
        });
        stream.mechanics.borrow_mut().note_command(
            &first,
            stream.watcher.borrow().status(),
            js_sys::Date::now(),
        );
        inner.streams.insert(key.clone(), Rc::clone(&stream));
        (stream, Some(first))
    }

    fn unsubscribe(&self, key: &WatchKey) {
        let close_at = self
            .inner
            .try_update_value(|inner| inner.subscriptions.unsubscribe(key, now_ms()))
            .flatten();
        if close_at.is_some() {
            let hub = *self;
            set_timeout(
                move || hub.close_expired(),
                Duration::from_millis(LINGER_MS as u64 + 50),
            );
        }
    }

    fn close_expired(&self) {
        let Some((closed, count)) = self.inner.try_update_value(|inner| {
            let expired = inner.subscriptions.expired(now_ms());
            let closed: Vec<Rc<KeyStream>> = expired
                .iter()
                .filter_map(|key| inner.streams.remove(key))
                .collect();
            (closed, inner.streams.len())
        }) else {
            return;
        };
        for stream in closed {
            stream.closed.set(true);
            stream.kick_now();
        }
        self.open_streams.set(count);
    }

    /// Performs the watcher's commands until the stream is closed.
    async fn run(&self, stream: Rc<KeyStream>, first: Command) {
        let mut command = first;
        while !stream.closed.get() {
            command = match command {
                Command::Continue => {
                    // Only a stream returns Continue; with none open, start over safely.
                    stream.watcher.borrow_mut().reconnect(now_ms())
                }
                Command::List { request, delay_ms } => {
                    if !self.wait(&stream, delay_ms).await {
                        continue_after_kick(&stream)
                    } else {
                        self.list_page(&stream, &request).await
                    }
                }
                Command::Watch { request, delay_ms } => {
                    if !self.wait(&stream, delay_ms).await {
                        continue_after_kick(&stream)
                    } else if stream.needs_http()
                        || self.inner.with_value(|i| i.socket_health) == SocketHealth::Silent
                    {
                        self.watch_http(&stream, &request).await
                    } else {
                        self.watch_socket(&stream, &request).await
                    }
                }
            };
        }
        stream.pending.borrow_mut().clear();
    }

    /// Waits `delay_ms`; false when kicked meanwhile.
    async fn wait(&self, stream: &Rc<KeyStream>, delay_ms: u32) -> bool {
        if delay_ms == 0 {
            return true;
        }
        stream.flush();
        let kicked = stream.kicked();
        let timeout = gloo_timers::future::TimeoutFuture::new(delay_ms);
        matches!(select(timeout, kicked).await, Either::Left(_))
    }

    async fn list_page(&self, stream: &Rc<KeyStream>, request: &api::ApiRequest) -> Command {
        let abort = Abort::new();
        let signal = abort.signal();
        let kicked = stream.kicked();
        let fetch = api::send(request, signal.as_ref());
        futures::pin_mut!(fetch);
        match select(fetch, kicked).await {
            Either::Left((result, _)) => {
                let page = result.and_then(|fetched| {
                    serde_json::from_str(&fetched.body).map_err(|e| {
                        ApiError::bad_response(fetched.status, format!("the list is not JSON: {e}"))
                    })
                });
                stream.feed(Input::Page(page))
            }
            Either::Right(_) => {
                abort.abort();
                continue_after_kick(stream)
            }
        }
    }

    async fn watch_socket(&self, stream: &Rc<KeyStream>, request: &api::ApiRequest) -> Command {
        stream.transport.set(StreamTransport::WebSocket);
        let mut socket = match WatchSocket::open(request) {
            Ok(socket) => socket,
            Err(error) => return stream.feed(Input::StreamFailed(error)),
        };
        let silence = Cell::new(Silence::since(now_ms()));
        let dead = silent_too_long(&silence);
        futures::pin_mut!(dead);
        loop {
            let kicked = stream.kicked();
            let received = socket.next();
            futures::pin_mut!(received);
            let received = match select(received, select(kicked, dead.as_mut())).await {
                Either::Left((received, _)) => received,
                Either::Right((Either::Left(_), _)) => return continue_after_kick(stream),
                Either::Right((Either::Right(_), _)) => return stream.feed(silent_stream()),
            };
            let command = match received {
                Received::Text(text) => {
                    silence.set(Silence::since(now_ms()));
                    self.socket_works();
                    stream.feed(event_input(&text))
                }
                Received::Closed => stream.feed(Input::StreamEnded),
                Received::Failed(error) => {
                    stream.feed(Input::StreamFailed(ApiError::Unreachable(error)))
                }
            };
            if command != Command::Continue {
                return command;
            }
        }
    }

    fn socket_works(&self) {
        let changed = self.inner.try_update_value(|inner| {
            let unknown = inner.socket_health == SocketHealth::Unknown;
            if unknown {
                inner.socket_health = SocketHealth::Works;
            }
            unknown
        });
        if changed == Some(true) {
            self.socket_health.set(SocketHealth::Works);
        }
    }

    /// Waits for one of the [`MAX_HTTP_WATCHES`] slots; None when kicked meanwhile.
    async fn http_slot(&self, stream: &Rc<KeyStream>) -> Option<HttpSlot> {
        let waiting = self.inner.try_update_value(|inner| {
            if inner.http_watches < MAX_HTTP_WATCHES {
                inner.http_watches += 1;
                None
            } else {
                let (sender, receiver) = oneshot::channel();
                inner.http_waiting.push_back(sender);
                Some(receiver)
            }
        })?;
        if let Some(receiver) = waiting {
            let kicked = stream.kicked();
            // A slot handed over keeps the count as it is.
            if let Either::Right(_) = select(receiver, kicked).await {
                return None;
            }
        }
        Some(HttpSlot { hub: *self })
    }

    fn release_http_slot(&self) {
        self.inner.try_update_value(|inner| {
            // Hand the slot to the first waiter still waiting, else free it.
            while let Some(waiter) = inner.http_waiting.pop_front() {
                if waiter.send(()).is_ok() {
                    return;
                }
            }
            inner.http_watches = inner.http_watches.saturating_sub(1);
        });
    }

    async fn watch_http(&self, stream: &Rc<KeyStream>, request: &api::ApiRequest) -> Command {
        stream.transport.set(StreamTransport::Http);
        let Some(_slot) = self.http_slot(stream).await else {
            return continue_after_kick(stream);
        };
        let abort = Abort::new();
        let signal = abort.signal();
        let mut decoder = if stream.needs_http() {
            // A list's rows: their managedFields are never shown.
            LineDecoder::without_managed_fields()
        } else {
            LineDecoder::default()
        };
        let next = Cell::new(None);
        let kicked = stream.kicked();
        let silence = Cell::new(Silence::since(now_ms()));
        let dead = silent_too_long(&silence);
        futures::pin_mut!(dead);
        let reading = stream_text(request, signal.as_ref(), |chunk| {
            silence.set(Silence::since(now_ms()));
            for event in decoder.push(chunk) {
                let input = match event {
                    Ok(event) => Input::Event(event),
                    Err(error) => Input::Garbage(error.to_string()),
                };
                let command = stream.feed(input);
                if command != Command::Continue {
                    next.set(Some(command));
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        });
        futures::pin_mut!(reading);
        let ended = match select(reading, select(kicked, dead)).await {
            Either::Left((ended, _)) => ended,
            Either::Right((Either::Left(_), _)) => {
                abort.abort();
                return continue_after_kick(stream);
            }
            Either::Right((Either::Right(_), _)) => {
                abort.abort();
                return stream.feed(silent_stream());
            }
        };
        if let Some(command) = next.take() {
            return command;
        }
        match ended {
            Ok(_) => stream.feed(Input::StreamEnded),
            Err(error) => stream.feed(Input::StreamFailed(error)),
        }
    }
}

/// One held HTTP watch slot, given back when dropped.
struct HttpSlot {
    hub: WatchHub,
}

impl Drop for HttpSlot {
    fn drop(&mut self) {
        self.hub.release_http_slot();
    }
}

/// After a kick: nothing (closed), or resume at once from where the watcher is.
/// Resolves once the stream has heard nothing for [`IDLE_TIMEOUT_MS`]: its connection died
/// without a word (a machine that slept, a proxy or NAT that forgot it).
async fn silent_too_long(silence: &Cell<Silence>) {
    while let Some(left_ms) = silence.get().remaining_ms(now_ms()) {
        gloo_timers::future::TimeoutFuture::new(left_ms).await;
    }
}

fn silent_stream() -> Input {
    Input::StreamFailed(ApiError::Unreachable(format!(
        "the watch said nothing for {} s",
        IDLE_TIMEOUT_MS / 1000
    )))
}

fn continue_after_kick(stream: &Rc<KeyStream>) -> Command {
    if stream.closed.get() {
        return Command::Continue;
    }
    stream.watcher.borrow_mut().reconnect(now_ms())
}

fn event_input(text: &str) -> Input {
    match decode_event(text) {
        Ok(event) => Input::Event(event),
        Err(error) => Input::Garbage(error.to_string()),
    }
}

fn hub() -> WatchHub {
    expect_context::<WatchHub>()
}

/// Unsubscribes when the calling view goes.
fn release_on_cleanup(key: WatchKey) {
    let hub = hub();
    on_cleanup(move || hub.unsubscribe(&key));
}

/// A live list of the server's Table rows for `key` (whose output is [`Output::Table`]).
pub fn use_watch_table(key: WatchKey, options: DecodeOptions) -> LiveWatch<LiveTable> {
    let stream = hub().subscribe(&key, || {
        SharedStore::Table(ArcRwSignal::new(LiveTable::new(options)))
    });
    release_on_cleanup(key.clone());
    let store = match &stream.store {
        SharedStore::Table(signal) => signal.clone(),
        // A key's output decides its store, so this cannot happen; an empty table is safe.
        SharedStore::Objects(_) => ArcRwSignal::new(LiveTable::new(options)),
    };
    LiveWatch {
        key,
        store,
        status: stream.status.clone(),
        transport: stream.transport.clone(),
    }
}

/// The mechanics log of `key`'s stream (requests, each event, bookmarks, relists), kept up to
/// date while the calling view lives. None when nothing watches `key`.
pub fn use_watch_mechanics(key: &WatchKey) -> Option<ArcRwSignal<MechanicsLog>> {
    let stream = hub()
        .inner
        .with_value(|inner| inner.streams.get(key).cloned())?;
    stream
        .mechanics_viewers
        .set(stream.mechanics_viewers.get() + 1);
    stream
        .mechanics_shown
        .set(stream.mechanics.borrow().clone());
    let shown = stream.mechanics_shown.clone();
    let hub = hub();
    let key = key.clone();
    on_cleanup(move || {
        let stream = hub
            .inner
            .try_with_value(|inner| inner.streams.get(&key).cloned())
            .flatten();
        if let Some(stream) = stream {
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
    let stream = hub()
        .inner
        .with_value(|inner| inner.streams.get(&key).cloned());
    let history = match stream {
        Some(stream) => {
            let existing = stream.history.borrow().clone();
            match existing {
                Some(history) => history,
                None => {
                    let mut store = HistoryStore::default();
                    let now = js_sys::Date::now();
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

/// Live whole objects for `key` (output [`Output::Objects`] or [`Output::Metadata`]).
pub fn use_watch_objects(key: WatchKey) -> LiveWatch<ObjectCache> {
    let stream = hub().subscribe(&key, || {
        SharedStore::Objects(ArcRwSignal::new(ObjectCache::default()))
    });
    release_on_cleanup(key.clone());
    let store = match &stream.store {
        SharedStore::Objects(signal) => signal.clone(),
        SharedStore::Table(_) => ArcRwSignal::new(ObjectCache::default()),
    };
    LiveWatch {
        key,
        store,
        status: stream.status.clone(),
        transport: stream.transport.clone(),
    }
}
