//! One key's stream: its watcher, its store and how the watcher's changes reach the store (in
//! one batch per animation frame), its status, history, recording and mechanics log.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use futures::channel::oneshot;
use leptos::prelude::*;

use super::recording::{recorded_cluster, Recorder};
use super::StreamTransport;
use crate::browser::{document_hidden, monotonic_now, now_ms, wall_now};
use crate::model::history::{HistoryStore, Record, RecordType};
use crate::model::watch::{
    Command, Input, LiveTable, MechanicsLog, ObjectCache, Observed, Output, StoreChange,
    StreamPhase, WatchKey, WatchStatus, WatchStore, Watcher,
};
use crate::state::pacing;

/// A store a stream can keep: the watcher's changes are applied to it. Table keys keep a
/// [`LiveTable`], object and metadata keys an [`ObjectCache`].
pub(super) trait StreamStore: WatchStore + Send + Sync + Sized + 'static {
    /// The whole objects held, for a recording's first LIST (None: rows, not objects).
    fn objects_for_recording(&self) -> Option<Vec<serde_json::Value>>;
}

impl StreamStore for LiveTable {
    fn objects_for_recording(&self) -> Option<Vec<serde_json::Value>> {
        None
    }
}

impl StreamStore for ObjectCache {
    fn objects_for_recording(&self) -> Option<Vec<serde_json::Value>> {
        Some(self.iter().cloned().collect())
    }
}

/// More pending changes than this are applied at once, not at the next frame: a hidden tab
/// gets no frames, and must not pile up events.
const MAX_PENDING: usize = 20_000;

/// One key's stream.
pub(super) struct KeyStream<S: StreamStore> {
    /// Opening order: when streams are kicked together, earlier ones go first.
    pub(super) opened: u64,
    pub(super) store: ArcRwSignal<S>,
    pub(super) status: ArcRwSignal<WatchStatus>,
    pub(super) transport: ArcRwSignal<StreamTransport>,
    pub(super) watcher: RefCell<Watcher>,
    /// Changes waiting for the next frame.
    pending: RefCell<Vec<StoreChange>>,
    frame_scheduled: Cell<bool>,
    /// Interrupts whatever the stream waits for (a backoff, a socket, a page).
    kick: RefCell<Option<oneshot::Sender<()>>>,
    pub(super) closed: Cell<bool>,
    /// The next kick is the user's "try again" (a forbidden stream asks again only then).
    pub(super) retry_asked: Cell<bool>,
    /// A WebSocket watch failed before saying anything: the next watch goes over HTTP, where
    /// a refusal (403) comes with its status and words, which a browser's WebSocket hides.
    pub(super) socket_failed_silently: Cell<bool>,
    /// Every version of every object, once a view asks for timelines (objects keys only).
    pub(super) history: RefCell<Option<ArcRwSignal<HistoryStore>>>,
    /// The hub's recording, when one runs.
    recorder: Recorder,
    /// Requests, events, bookmarks and relists as they happen (for the mechanics panel).
    pub(super) mechanics: RefCell<MechanicsLog>,
    /// The log as views see it: copied at the next frame while a panel shows it.
    pub(super) mechanics_shown: ArcRwSignal<MechanicsLog>,
    pub(super) mechanics_viewers: Cell<usize>,
}

impl<S: StreamStore> KeyStream<S> {
    pub(super) fn new(
        opened: u64,
        store: S,
        watcher: Watcher,
        first: &Command,
        recorder: Recorder,
    ) -> KeyStream<S> {
        let mut mechanics = MechanicsLog::default();
        mechanics.note_command(first, watcher.status(), wall_now());
        KeyStream {
            opened,
            store: ArcRwSignal::new(store),
            status: ArcRwSignal::new(watcher.status().clone()),
            transport: ArcRwSignal::new(StreamTransport::WebSocket),
            watcher: RefCell::new(watcher),
            pending: RefCell::new(Vec::new()),
            frame_scheduled: Cell::new(false),
            kick: RefCell::new(None),
            closed: Cell::new(false),
            retry_asked: Cell::new(false),
            socket_failed_silently: Cell::new(false),
            history: RefCell::new(None),
            recorder,
            mechanics: RefCell::new(mechanics),
            mechanics_shown: ArcRwSignal::new(MechanicsLog::default()),
            mechanics_viewers: Cell::new(0),
        }
    }

    /// Table watches need their Accept header, which a browser WebSocket cannot send (it
    /// would get plain objects): they are read as chunked HTTP, as `kubectl get -w` reads them.
    pub(super) fn needs_http(&self) -> bool {
        self.watcher.borrow().key().output == Output::Table
    }

    pub(super) fn key(&self) -> WatchKey {
        self.watcher.borrow().key().clone()
    }

    /// Gives the watcher one input; its changes wait for the next frame. Returns what the
    /// transport does next.
    pub(super) fn feed(self: &Rc<Self>, input: Input) -> Command {
        let wall = wall_now();
        self.mechanics.borrow_mut().note_input(&input, wall);
        let step = self.watcher.borrow_mut().on(input, monotonic_now());
        self.mechanics.borrow_mut().note_command(
            &step.command,
            self.watcher.borrow().status(),
            wall,
        );
        self.record(&step.changes, &step.observed);
        if !step.changes.is_empty() {
            self.pending.borrow_mut().extend(step.changes);
        }
        self.schedule_frame();
        step.command
    }

    /// After a kick: nothing (closed), or resume at once from where the watcher is.
    pub(super) fn continue_after_kick(&self) -> Command {
        if self.closed.get() {
            return Command::Continue;
        }
        let now = monotonic_now();
        let command = if self.retry_asked.take() {
            self.watcher.borrow_mut().retry(now)
        } else {
            self.watcher.borrow_mut().reconnect(now)
        };
        // The status line shows at once that the stream is trying again.
        self.flush();
        command
    }

    /// Adds what the page received to the recording, when one runs.
    fn record(&self, changes: &[StoreChange], observed: &Observed) {
        let mut recorder = self.recorder.borrow_mut();
        let Some(active) = recorder.as_mut() else {
            return;
        };
        let t = now_ms() - active.started_ms;
        let (key, cluster) = {
            let watcher = self.watcher.borrow();
            let key = watcher.key();
            (key.describe_collection(), recorded_cluster(key))
        };
        for change in changes {
            let record =
                Record::of_change(t, &key, change, observed.is_added()).on_cluster(cluster.clone());
            active.recording.records.push(record);
        }
        if let Observed::Bookmark { resource_version } = observed {
            active.recording.records.push(Record {
                t,
                key,
                record_type: RecordType::Bookmark,
                object: None,
                items: None,
                resource_version: Some(resource_version.clone()),
                cluster,
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
        if document_hidden() {
            // A hidden tab gets no frames: apply from a timer instead.
            set_timeout(move || this.flush(), Duration::from_millis(500));
        } else {
            request_animation_frame(move || this.flush_in_frame());
        }
    }

    /// [`Self::flush`] at a frame: a stream that records history applies its changes within
    /// the frame's budget, and the rest, in order, wait for the next frame.
    fn flush_in_frame(self: &Rc<Self>) {
        if self.history.borrow().is_none() {
            self.flush();
            return;
        }
        self.frame_scheduled.set(false);
        let started = now_ms();
        let waiting = self.apply_pending(Some((started, pacing::frame_budget_left(started))));
        pacing::frame_budget_spend(now_ms() - started);
        self.show_status();
        if !waiting.is_empty() {
            // Before anything received meanwhile (nothing is: this runs between messages).
            {
                let mut pending = self.pending.borrow_mut();
                let received = std::mem::replace(&mut *pending, waiting);
                pending.extend(received);
            }
            self.schedule_frame();
        }
    }

    /// Applies the pending changes in one update, and the status once.
    pub(super) fn flush(&self) {
        self.frame_scheduled.set(false);
        self.apply_pending(None);
        self.show_status();
    }

    /// Applies the pending changes to the history (when recorded) and the store, in order.
    /// With a budget (`(started, ms)`), stops recording history once past it, after one
    /// change at least, and answers the changes it left unapplied.
    fn apply_pending(&self, budget: Option<(f64, f64)>) -> Vec<StoreChange> {
        let mut changes = std::mem::take(&mut *self.pending.borrow_mut());
        if changes.is_empty() || self.closed.get() {
            return Vec::new();
        }
        let mut applied = changes.len();
        if let Some(history) = self.history.borrow().as_ref() {
            // Timelines show wall-clock times (and recordings compare with them).
            let wall = wall_now();
            history.update(|h| {
                for (index, change) in changes.iter().enumerate() {
                    if let Some((started, ms)) = budget {
                        if index > 0 && now_ms() - started > ms {
                            applied = index;
                            break;
                        }
                    }
                    h.apply(change, wall);
                }
            });
        }
        let waiting = changes.split_off(applied);
        let now = monotonic_now();
        self.store.update(|store| {
            changes.into_iter().for_each(|c| store.apply(c, now));
        });
        waiting
    }

    /// The status and the mechanics log as the applied changes leave them.
    fn show_status(&self) {
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

    /// Drops what waits for the next frame (the stream is closed).
    pub(super) fn discard_pending(&self) {
        self.pending.borrow_mut().clear();
    }

    /// A future that completes when the stream is kicked (reconnect, transport switch, close).
    pub(super) fn kicked(&self) -> oneshot::Receiver<()> {
        let (sender, receiver) = oneshot::channel();
        *self.kick.borrow_mut() = Some(sender);
        receiver
    }

    pub(super) fn kick_now(&self) {
        if let Some(sender) = self.kick.borrow_mut().take() {
            // The receiver may be gone already (the stream moved on): nothing to interrupt.
            let _ = sender.send(());
        }
    }
}

/// What the hub does with every stream alike, whatever its store.
pub(super) trait AnyStream {
    fn opened(&self) -> u64;
    fn kick_now(&self);
    /// Ends the stream (its run stops at the next step).
    fn close(&self);
    /// Asks a forbidden stream again (others resume as after a wake-up).
    fn retry(&self);
    fn is_forbidden(&self) -> bool;
    fn transport(&self) -> StreamTransport;
    fn key(&self) -> WatchKey;
    fn history(&self) -> Option<ArcRwSignal<HistoryStore>>;
    fn objects_for_recording(&self) -> Option<Vec<serde_json::Value>>;
}

impl<S: StreamStore> AnyStream for KeyStream<S> {
    fn opened(&self) -> u64 {
        self.opened
    }

    fn kick_now(&self) {
        KeyStream::kick_now(self);
    }

    fn close(&self) {
        self.closed.set(true);
        KeyStream::kick_now(self);
    }

    fn retry(&self) {
        self.retry_asked.set(true);
        KeyStream::kick_now(self);
    }

    fn is_forbidden(&self) -> bool {
        self.watcher.borrow().status().phase == StreamPhase::Forbidden
    }

    fn transport(&self) -> StreamTransport {
        self.transport.get_untracked()
    }

    fn key(&self) -> WatchKey {
        KeyStream::key(self)
    }

    fn history(&self) -> Option<ArcRwSignal<HistoryStore>> {
        self.history.borrow().clone()
    }

    fn objects_for_recording(&self) -> Option<Vec<serde_json::Value>> {
        self.store.with_untracked(S::objects_for_recording)
    }
}
