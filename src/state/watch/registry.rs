//! The hub's open streams, kept apart by store type (Table keys keep a `LiveTable`, object
//! keys an `ObjectCache`, so a view always gets the store its hook names), with who uses
//! which: opening a key's stream or sharing it, which streams a view uses now, and taking a
//! lingering one out early.

use std::collections::HashMap;
use std::rc::Rc;

use super::recording::Recorder;
use super::stream::{AnyStream, KeyStream, StreamStore};
use crate::model::watch::{
    Command, ListMode, LiveTable, ObjectCache, Output, Subscribed, Subscriptions, WatchKey, Watcher,
};

/// The streams of one store type, and who uses them.
pub(super) struct Streams<S: StreamStore> {
    pub(super) subscriptions: Subscriptions<WatchKey>,
    pub(super) open: HashMap<WatchKey, Rc<KeyStream<S>>>,
}

impl<S: StreamStore> Default for Streams<S> {
    fn default() -> Self {
        Streams {
            subscriptions: Subscriptions::default(),
            open: HashMap::new(),
        }
    }
}

impl<S: StreamStore> Streams<S> {
    /// Whether stream number `opened` is one of these, and if so, whether a view uses it.
    fn viewed(&self, opened: u64) -> Option<bool> {
        self.open
            .iter()
            .find(|(_, stream)| stream.opened == opened)
            .map(|(key, _)| self.subscriptions.views(key) > 0)
    }

    /// Takes stream number `opened` out when no view uses it (its linger cut short).
    fn take_if_idle(&mut self, opened: u64) -> Option<Rc<KeyStream<S>>> {
        let key = self
            .open
            .iter()
            .find(|(_, stream)| stream.opened == opened)
            .map(|(key, _)| key.clone())?;
        if !self.subscriptions.close_if_idle(&key) {
            return None;
        }
        self.open.remove(&key)
    }
}

/// Stores a hub keeps streams of: each type has its own set.
pub(super) trait Registered: StreamStore {
    fn streams_of(streams: &mut OpenStreams) -> &mut Streams<Self>;
}

impl Registered for LiveTable {
    fn streams_of(streams: &mut OpenStreams) -> &mut Streams<Self> {
        &mut streams.tables
    }
}

impl Registered for ObjectCache {
    fn streams_of(streams: &mut OpenStreams) -> &mut Streams<Self> {
        &mut streams.objects
    }
}

/// Every open stream of the hub.
pub(super) struct OpenStreams {
    pub(super) tables: Streams<LiveTable>,
    pub(super) objects: Streams<ObjectCache>,
    /// Streams opened so far (each stream's opening number).
    opened: u64,
    next_seed: u64,
}

impl OpenStreams {
    pub(super) fn new(seed: u64) -> OpenStreams {
        OpenStreams {
            tables: Streams::default(),
            objects: Streams::default(),
            opened: 0,
            next_seed: seed,
        }
    }

    pub(super) fn count(&self) -> usize {
        self.tables.open.len() + self.objects.open.len()
    }

    /// Whether stream number `opened` is used by a view now (not lingering after its views
    /// went).
    pub(super) fn is_viewed(&self, opened: u64) -> bool {
        self.tables
            .viewed(opened)
            .or_else(|| self.objects.viewed(opened))
            .unwrap_or(false)
    }

    /// Takes stream number `opened` out when no view uses it; the caller closes it.
    pub(super) fn take_if_idle(&mut self, opened: u64) -> Option<Rc<dyn AnyStream>> {
        match self.tables.take_if_idle(opened) {
            Some(stream) => Some(stream),
            None => self
                .objects
                .take_if_idle(opened)
                .map(|s| s as Rc<dyn AnyStream>),
        }
    }

    /// Every open stream, in the order they were opened (a page's object before the kinds
    /// it may own).
    pub(super) fn all(&self) -> Vec<Rc<dyn AnyStream>> {
        let tables = self.tables.open.values().map(|s| Rc::clone(s) as _);
        let objects = self.objects.open.values().map(|s| Rc::clone(s) as _);
        let mut streams: Vec<Rc<dyn AnyStream>> = tables.chain(objects).collect();
        crate::model::list::stable_sort::sort_by_key(&mut streams, |stream| stream.opened());
        streams
    }

    /// The key's stream, shared or new (with its first command, to run).
    pub(super) fn open<S: Registered>(
        &mut self,
        key: &WatchKey,
        make_store: impl FnOnce() -> S,
        recorder: &Recorder,
    ) -> (Rc<KeyStream<S>>, Option<Command>) {
        let subscribed = S::streams_of(self).subscriptions.subscribe(key);
        if subscribed == Subscribed::Shared {
            if let Some(stream) = S::streams_of(self).open.get(key) {
                return (Rc::clone(stream), None);
            }
        }
        self.opened += 1;
        self.next_seed = self
            .next_seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        // Big lists page (progress, first rows at once); object watches stream their list.
        let mode = match key.output {
            Output::Table => ListMode::Paged,
            Output::Objects | Output::Metadata => ListMode::Streaming,
        };
        let (watcher, first) = Watcher::new(key.clone(), mode, self.next_seed);
        let stream = Rc::new(KeyStream::new(
            self.opened,
            make_store(),
            watcher,
            &first,
            Rc::clone(recorder),
        ));
        S::streams_of(self)
            .open
            .insert(key.clone(), Rc::clone(&stream));
        (stream, Some(first))
    }
}
