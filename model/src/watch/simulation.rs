//! The watch layer against a model API server: an event log with compaction that answers
//! every list and watch request from the resourceVersion, continue token and options the
//! layer actually sends (a resume from the wrong point loses or repeats events, and the
//! comparison catches it), 410 for resumes (HTTP 410 or an ERROR event) and tokens older than compaction (events in the
//! gap are only recovered by the relist), streams cut anywhere, 429/5xx, ERROR events,
//! bookmarks, garbage, selector moves (MODIFIED into and out of a label selector), servers
//! with and without streaming lists, and views subscribing and going. At every quiet point
//! each used key's store equals a fresh list (every item's resourceVersion and content, so a
//! lost MODIFIED shows), with no duplicates and no ghosts, and every stream nobody uses is
//! closed after the linger time. Lists are counted: a watcher may read the whole state again
//! only before its first list completed or after a 410, so a relist where a resume was due
//! fails too.

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde_json::{json, Value};

use super::hub::{Subscribed, Subscriptions, LINGER_MS};
use super::key::{Output, WatchKey};
use super::machine::{Command, Input, ListMode, Watcher};
use super::store::{LiveTable, ObjectCache, WatchStore};
use super::{decode_event, StoreChange};
use crate::api::errors::ApiError;
use crate::api::request::ApiRequest;
use crate::list::table::{DecodeOptions, RowKey};
use crate::test_rng::TestRng;

/// Items per page the model server returns (whatever `limit` asks), so lists have pages.
const SERVER_PAGE: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Change {
    Added,
    Modified,
    Deleted,
}

#[derive(Debug, Clone)]
struct LogEntry {
    rv: u64,
    change: Change,
    prev: Option<Value>,
    object: Value,
}

/// Which objects a request selects.
#[derive(Debug, Clone)]
struct Selection {
    namespace: Option<String>,
    app: Option<String>,
    output: Output,
}

impl Selection {
    fn of(request: &ApiRequest) -> Selection {
        let namespace = request
            .path
            .strip_prefix("/api/v1/namespaces/")
            .and_then(|rest| rest.split('/').next())
            .map(str::to_string);
        let query = |name: &str| request.query_value(name);
        let app = query("labelSelector").and_then(|s| s.strip_prefix("app=").map(str::to_string));
        let output = if request.accept.contains("as=Table") {
            Output::Table
        } else {
            Output::Objects
        };
        Selection {
            namespace,
            app,
            output,
        }
    }

    fn matches(&self, object: &Value) -> bool {
        let namespace_ok = self
            .namespace
            .as_deref()
            .is_none_or(|ns| object["metadata"]["namespace"] == ns);
        let app_ok = self
            .app
            .as_deref()
            .is_none_or(|app| object["metadata"]["labels"]["app"] == app);
        namespace_ok && app_ok
    }

    /// What a store of this output holds for `object`: the object itself, or a Table row's
    /// resourceVersion and cells.
    fn held_form(&self, object: &Value) -> Value {
        match self.output {
            Output::Table => {
                let metadata = &object["metadata"];
                held_row(metadata["resourceVersion"].as_str(), &table_cells(object))
            }
            _ => object.clone(),
        }
    }

    fn render(&self, object: &Value, with_columns: bool) -> Value {
        match self.output {
            Output::Table => table_of(
                std::slice::from_ref(object),
                with_columns,
                &object["metadata"]["resourceVersion"],
            ),
            _ => object.clone(),
        }
    }
}

fn table_of(objects: &[Value], with_columns: bool, rv: &Value) -> Value {
    let rows: Vec<Value> = objects
        .iter()
        .map(|o| {
            json!({"cells": table_cells(o),
                   "object": {"kind": "PartialObjectMetadata", "metadata": o["metadata"]}})
        })
        .collect();
    let mut table = json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": rv}, "rows": rows});
    if with_columns {
        table["columnDefinitions"] = json!([
            {"name": "Name", "type": "string", "format": "name", "description": "", "priority": 0},
            {"name": "App", "type": "string", "format": "", "description": "", "priority": 0},
            {"name": "N", "type": "integer", "format": "", "description": "", "priority": 0}]);
    }
    table
}

/// Name, label and content: a MODIFIED changes the content whether or not the label moves.
fn table_cells(object: &Value) -> Value {
    json!([
        object["metadata"]["name"],
        object["metadata"]["labels"]["app"],
        object["data"]["n"]
    ])
}

fn held_row(resource_version: Option<&str>, cells: &Value) -> Value {
    json!({"resourceVersion": resource_version, "cells": cells})
}

fn status(code: u16, reason: &str, retry_after: Option<u32>) -> Value {
    let mut status = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
        "code": code, "reason": reason, "message": format!("model server: {reason}")});
    if let Some(seconds) = retry_after {
        status["details"] = json!({"retryAfterSeconds": seconds});
    }
    status
}

fn status_error(code: u16, reason: &str, retry_after: Option<u32>) -> ApiError {
    ApiError::from_response(code, &status(code, reason, retry_after).to_string())
}

struct ModelServer {
    rv: u64,
    objects: BTreeMap<(String, String), Value>,
    log: VecDeque<LogEntry>,
    /// Resuming from a version below this is answered 410.
    compacted: u64,
    /// List snapshots (resourceVersion, items) by id, for continue tokens.
    snapshots: HashMap<u64, (u64, Vec<Value>)>,
    next_snapshot: u64,
    next_uid: u64,
    serves_streaming_lists: bool,
}

impl ModelServer {
    fn new(serves_streaming_lists: bool) -> ModelServer {
        ModelServer {
            rv: 1,
            objects: BTreeMap::new(),
            log: VecDeque::new(),
            compacted: 1,
            snapshots: HashMap::new(),
            next_snapshot: 1,
            next_uid: 1,
            serves_streaming_lists,
        }
    }

    fn write(&mut self, rng: &mut TestRng) {
        let key = (format!("ns{}", rng.below(2)), format!("cm{}", rng.below(8)));
        self.rv += 1;
        let rv = self.rv;
        let prev = self.objects.get(&key).cloned();
        let (change, object) = match &prev {
            Some(old) if rng.below(3) == 0 => {
                let mut gone = old.clone();
                gone["metadata"]["resourceVersion"] = json!(rv.to_string());
                self.objects.remove(&key);
                (Change::Deleted, gone)
            }
            Some(old) => {
                let mut new = old.clone();
                new["metadata"]["resourceVersion"] = json!(rv.to_string());
                // Labels move objects into and out of label selectors.
                new["metadata"]["labels"]["app"] = json!(["a", "b"][rng.below(2)]);
                new["data"]["n"] = json!(rv);
                self.objects.insert(key.clone(), new.clone());
                (Change::Modified, new)
            }
            None => {
                self.next_uid += 1;
                let app = ["a", "b"][rng.below(2)];
                let new = json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"namespace": key.0, "name": key.1,
                        "uid": format!("uid-{}", self.next_uid), "resourceVersion": rv.to_string(),
                        "labels": {"app": app}},
                    "data": {"n": rv}});
                self.objects.insert(key.clone(), new.clone());
                (Change::Added, new)
            }
        };
        self.log.push_back(LogEntry {
            rv,
            change,
            prev,
            object,
        });
    }

    /// Forgets old events: resumes from before them get 410.
    fn compact(&mut self, keep: usize) {
        while self.log.len() > keep {
            if let Some(entry) = self.log.pop_front() {
                self.compacted = entry.rv;
            }
        }
        self.compacted = self.compacted.max(self.rv.saturating_sub(keep as u64));
        let compacted = self.compacted;
        self.snapshots.retain(|_, (rv, _)| *rv >= compacted);
    }

    fn list(&mut self, request: &ApiRequest) -> Result<Value, ApiError> {
        let query = |name: &str| request.query_value(name);
        assert!(
            query("watch").is_none(),
            "a list must not watch: {}",
            request.url()
        );
        let expected_limit = match query("continue") {
            Some(_) => super::key::PAGE_SIZE,
            None => super::key::FIRST_PAGE_SIZE,
        };
        assert_eq!(
            query("limit"),
            Some(expected_limit.to_string().as_str()),
            "{}",
            request.url()
        );
        let selection = Selection::of(request);
        let (id, offset) = match query("continue") {
            Some(token) => {
                let (id, offset) = token.split_once(':').expect("our token");
                let id: u64 = id.parse().expect("our token");
                if !self.snapshots.contains_key(&id) {
                    return Err(status_error(410, "Expired", None));
                }
                (id, offset.parse::<usize>().expect("our token"))
            }
            None => {
                let items: Vec<Value> = self
                    .objects
                    .values()
                    .filter(|o| selection.matches(o))
                    .cloned()
                    .collect();
                let id = self.next_snapshot;
                self.next_snapshot += 1;
                self.snapshots.insert(id, (self.rv, items));
                (id, 0)
            }
        };
        let (snapshot_rv, items) = &self.snapshots[&id];
        let snapshot_rv = *snapshot_rv;
        let end = (offset + SERVER_PAGE).min(items.len());
        let page = &items[offset..end];
        let mut metadata = json!({"resourceVersion": snapshot_rv.to_string()});
        if end < items.len() {
            metadata["continue"] = json!(format!("{id}:{end}"));
            metadata["remainingItemCount"] = json!(items.len() - end);
        }
        Ok(match selection.output {
            Output::Table => {
                let mut table = table_of(page, true, &json!(snapshot_rv.to_string()));
                table["metadata"] = metadata;
                table
            }
            _ => {
                json!({"kind": "ConfigMapList", "apiVersion": "v1", "metadata": metadata, "items": page})
            }
        })
    }

    fn watch(&self, request: &ApiRequest) -> Result<Stream, ApiError> {
        let query = |name: &str| request.query_value(name);
        assert_eq!(query("watch"), Some("true"), "{}", request.url());
        assert_eq!(query("allowWatchBookmarks"), Some("true"));
        let selection = Selection::of(request);
        let mut stream = Stream {
            cursor: self.rv,
            queue: VecDeque::new(),
            selection: selection.clone(),
            sent_columns: false,
            ended: false,
        };
        if query("sendInitialEvents") == Some("true") {
            assert_eq!(query("resourceVersionMatch"), Some("NotOlderThan"));
            if !self.serves_streaming_lists {
                // As over a WebSocket: the refused upgrade is only a failed connection.
                return Err(ApiError::Unreachable("the WebSocket closed".into()));
            }
            for object in self.objects.values().filter(|o| selection.matches(o)) {
                let object = stream.render(object);
                stream
                    .queue
                    .push_back(json!({"type": "ADDED", "object": object}));
            }
            stream
                .queue
                .push_back(json!({"type": "BOOKMARK", "object": {"kind": "ConfigMap",
                "apiVersion": "v1", "metadata": {"resourceVersion": self.rv.to_string(),
                "annotations": {"k8s.io/initial-events-end": "true"}}}}));
            return Ok(stream);
        }
        let rv: u64 = query("resourceVersion")
            .and_then(|rv| rv.parse().ok())
            .unwrap_or_else(|| panic!("a watch resumes from a version: {}", request.url()));
        assert!(rv <= self.rv, "resume from the future: {rv} > {}", self.rv);
        if rv < self.compacted {
            // kube-apiserver answers a resume from before compaction either way: with HTTP
            // 410 when it knows at once, or with an ERROR event on the opened stream.
            if rv.is_multiple_of(2) {
                return Err(status_error(410, "Expired", None));
            }
            stream
                .queue
                .push_back(json!({"type": "ERROR", "object": status(410, "Expired", None)}));
            stream.ended = true;
        }
        stream.cursor = rv;
        Ok(stream)
    }
}

struct Stream {
    /// Events of the log up to here were sent (or did not match).
    cursor: u64,
    queue: VecDeque<Value>,
    selection: Selection,
    sent_columns: bool,
    /// Nothing but the queue is left (after a 410).
    ended: bool,
}

enum Delivery {
    Event(Value),
    /// Caught up with the server.
    Idle,
    Ended,
}

impl Stream {
    fn render(&mut self, object: &Value) -> Value {
        // A Table watch sends its columns with the first event only, as kube-apiserver does.
        let rendered = self.selection.render(object, !self.sent_columns);
        self.sent_columns = true;
        rendered
    }

    fn next(&mut self, server: &ModelServer) -> Delivery {
        if let Some(event) = self.queue.pop_front() {
            return Delivery::Event(event);
        }
        if self.ended {
            return Delivery::Ended;
        }
        if self.cursor < server.compacted {
            // Fell behind compaction while streaming: the server expires the watch.
            self.ended = true;
            return Delivery::Event(
                json!({"type": "ERROR", "object": status(410, "Expired", None)}),
            );
        }
        let after = self.cursor;
        for entry in server.log.iter().filter(|e| e.rv > after) {
            self.cursor = entry.rv;
            let now = self.selection.matches(&entry.object);
            let before = entry
                .prev
                .as_ref()
                .is_some_and(|p| self.selection.matches(p));
            let kind = match (entry.change, before, now) {
                (Change::Added, _, true) => "ADDED",
                (Change::Deleted, true, _) => "DELETED",
                (Change::Modified, true, true) => "MODIFIED",
                (Change::Modified, false, true) => "ADDED",
                (Change::Modified, true, false) => "DELETED",
                _ => continue,
            };
            let object = self.render(&entry.object.clone());
            return Delivery::Event(json!({"type": kind, "object": object}));
        }
        self.cursor = server.rv;
        Delivery::Idle
    }

    fn bookmark(&self) -> Option<Value> {
        self.queue.is_empty().then(|| {
            json!({"type": "BOOKMARK", "object": {"kind": "ConfigMap", "apiVersion": "v1",
                "metadata": {"resourceVersion": self.cursor.to_string()}}})
        })
    }
}

fn uid_of(object: &Value) -> String {
    object["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

enum Store {
    Objects(ObjectCache),
    Table(Box<LiveTable>),
}

impl Store {
    fn apply(&mut self, change: StoreChange, now: f64) {
        match self {
            Store::Objects(cache) => cache.apply(change, now),
            Store::Table(table) => table.apply(change, now),
        }
    }

    /// uid -> what is held of every item (see [`Selection::held_form`]), and how many items
    /// are held.
    fn contents(&self) -> (BTreeMap<String, Value>, usize) {
        match self {
            Store::Objects(cache) => (
                cache.iter().map(|o| (uid_of(o), o.clone())).collect(),
                cache.len(),
            ),
            Store::Table(live) => (
                live.table()
                    .rows()
                    .iter()
                    .map(|row| {
                        let uid = match &row.key {
                            RowKey::Uid(uid) => uid.clone(),
                            other => panic!("row without uid: {other:?}"),
                        };
                        let cells = Value::Array(row.cells.clone());
                        (uid, held_row(row.meta.resource_version.as_deref(), &cells))
                    })
                    .collect(),
                live.len(),
            ),
        }
    }
}

struct Live {
    watcher: Watcher,
    store: Store,
    pending: Option<Command>,
    stream: Option<Stream>,
    /// Reading the whole state is due: no list has completed yet, or a 410 came since the
    /// last one. Anything else (a cut, a clean end, a 429, garbage, a reconnect) resumes.
    list_due: bool,
    /// Lists begun (first pages and streaming lists), and how many of them were due.
    lists_begun: u32,
    lists_due: u32,
}

/// Resumes answered with HTTP 410 (not an ERROR event), over all sequences.
static HTTP_GONE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Live {
    fn follow(&mut self, step: super::Step, now: f64) {
        for change in step.changes {
            self.store.apply(change, now);
        }
        match step.command {
            Command::Continue => {}
            command => {
                // A new request replaces whatever stream was open.
                self.stream = None;
                self.pending = Some(command);
            }
        }
    }

    fn feed(&mut self, input: Input, now: f64) {
        let step = self.watcher.on(input, now);
        self.follow(step, now);
    }

    fn feed_event(&mut self, event: &Value, now: f64) {
        if event["type"] == "ERROR" && event["object"]["code"] == 410 {
            self.list_due = true;
        }
        let ends_streaming_list = event["type"] == "BOOKMARK"
            && event["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true";
        if ends_streaming_list {
            self.list_due = false;
        }
        let input = match decode_event(&event.to_string()) {
            Ok(event) => Input::Event(event),
            Err(error) => Input::Garbage(error.to_string()),
        };
        self.feed(input, now);
    }

    /// Performs the pending command; `fault` makes it fail.
    fn perform(&mut self, server: &mut ModelServer, fault: Option<usize>, now: f64) {
        let Some(command) = self.pending.take() else {
            return;
        };
        let begins_list = match &command {
            Command::List { request, .. } => request.query_value("continue").is_none(),
            Command::Watch { request, .. } => request.query_value("sendInitialEvents").is_some(),
            Command::Continue | Command::Idle => false,
        };
        if begins_list {
            self.lists_begun += 1;
            self.lists_due += u32::from(self.list_due);
        }
        match command {
            Command::List { request, delay_ms } => {
                assert!(delay_ms <= 60_000);
                let answer = match fault {
                    Some(0) => Err(status_error(429, "TooManyRequests", Some(1))),
                    Some(1) => Err(status_error(500, "InternalError", None)),
                    Some(_) => Err(ApiError::Unreachable("connection reset".into())),
                    None => server.list(&request),
                };
                let last_page = answer
                    .as_ref()
                    .is_ok_and(|page| page["metadata"]["continue"].is_null());
                if last_page {
                    self.list_due = false;
                }
                self.feed(Input::Page(answer), now);
            }
            Command::Watch { request, delay_ms } => {
                assert!(delay_ms <= 60_000);
                let opened = match fault {
                    Some(_) => Err(ApiError::Unreachable("connection refused".into())),
                    None => server.watch(&request),
                };
                match opened {
                    Ok(stream) => self.stream = Some(stream),
                    Err(error) => {
                        if error.is_expired() {
                            self.list_due = true;
                            HTTP_GONE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        self.feed(Input::StreamFailed(error), now)
                    }
                }
            }
            // The model server forbids nothing.
            Command::Continue | Command::Idle => {}
        }
    }

    /// Delivers the stream's next event; false when there was none to deliver.
    fn deliver(&mut self, server: &ModelServer, now: f64) -> bool {
        let Some(stream) = self.stream.as_mut() else {
            return false;
        };
        match stream.next(server) {
            Delivery::Event(event) => {
                self.feed_event(&event, now);
                true
            }
            Delivery::Idle => false,
            Delivery::Ended => {
                self.stream = None;
                self.feed(Input::StreamEnded, now);
                true
            }
        }
    }
}

fn keys() -> Vec<WatchKey> {
    vec![
        WatchKey::new("/api/v1/configmaps", Output::Objects),
        WatchKey::new("/api/v1/namespaces/ns0/configmaps", Output::Objects),
        WatchKey::new("/api/v1/configmaps", Output::Objects).with_labels("app=a"),
        WatchKey::new("/api/v1/configmaps", Output::Table),
        WatchKey::new("/api/v1/namespaces/ns1/configmaps", Output::Table).with_labels("app=b"),
    ]
}

struct Sequence {
    rng: TestRng,
    server: ModelServer,
    subscriptions: Subscriptions<WatchKey>,
    lives: BTreeMap<WatchKey, Live>,
    /// Views per key, as the test holds them.
    views: BTreeMap<WatchKey, usize>,
    now: f64,
    seed: u64,
}

impl Sequence {
    fn new(seed: u64) -> Sequence {
        let mut rng = TestRng::new(seed);
        let serves_streaming_lists = rng.below(3) != 0;
        Sequence {
            rng,
            server: ModelServer::new(serves_streaming_lists),
            subscriptions: Subscriptions::default(),
            lives: BTreeMap::new(),
            views: BTreeMap::new(),
            now: 0.0,
            seed,
        }
    }

    fn subscribe(&mut self, key: WatchKey) {
        *self.views.entry(key.clone()).or_default() += 1;
        if self.subscriptions.subscribe(&key) == Subscribed::Opened {
            let mode = if self.rng.below(2) == 0 {
                ListMode::Streaming
            } else {
                ListMode::Paged
            };
            let (watcher, first) = Watcher::new(key.clone(), mode, self.seed ^ 0x5eed);
            let store = match key.output {
                Output::Table => Store::Table(Box::new(LiveTable::new(DecodeOptions::default()))),
                _ => Store::Objects(ObjectCache::default()),
            };
            self.lives.insert(
                key,
                Live {
                    watcher,
                    store,
                    pending: Some(first),
                    stream: None,
                    list_due: true,
                    lists_begun: 0,
                    lists_due: 0,
                },
            );
        }
    }

    fn unsubscribe(&mut self, key: &WatchKey) {
        if let Some(views) = self.views.get_mut(key).filter(|v| **v > 0) {
            *views -= 1;
            self.subscriptions.unsubscribe(key, self.now);
        }
    }

    fn close_expired(&mut self) {
        for key in self.subscriptions.expired(self.now) {
            self.lives.remove(&key);
        }
    }

    fn random_live(&mut self) -> Option<WatchKey> {
        let keys: Vec<WatchKey> = self.lives.keys().cloned().collect();
        (!keys.is_empty()).then(|| keys[self.rng.below(keys.len())].clone())
    }

    fn act(&mut self) {
        self.now += self.rng.below(400) as f64;
        let choice = self.rng.below(20);
        let Some(key) = self.random_live() else {
            let key = keys()[self.rng.below(keys().len())].clone();
            self.subscribe(key);
            return;
        };
        let now = self.now;
        match choice {
            0..=3 => self.server.write(&mut self.rng),
            4 => {
                let keep = self.rng.below(6);
                self.server.compact(keep);
            }
            5..=6 => {
                let fault = (self.rng.below(4) == 0).then(|| self.rng.below(3));
                if let Some(live) = self.lives.get_mut(&key) {
                    live.perform(&mut self.server, fault, now);
                }
            }
            7..=10 => {
                if let Some(live) = self.lives.get_mut(&key) {
                    live.deliver(&self.server, now);
                }
            }
            11 => {
                // The connection breaks, or the server ends the watch (its timeout).
                let clean = self.rng.below(2) == 0;
                if let Some(live) = self.lives.get_mut(&key).filter(|l| l.stream.is_some()) {
                    live.stream = None;
                    let input = if clean {
                        Input::StreamEnded
                    } else {
                        Input::StreamFailed(ApiError::Unreachable("network changed".into()))
                    };
                    live.feed(input, now);
                }
            }
            12 => {
                if let Some(live) = self.lives.get_mut(&key) {
                    let bookmark = live.stream.as_mut().and_then(|s| {
                        // Only a caught-up stream may promise "everything up to here".
                        match s.next(&self.server) {
                            Delivery::Idle => s.bookmark(),
                            Delivery::Event(event) => {
                                s.queue.push_front(event);
                                None
                            }
                            Delivery::Ended => None,
                        }
                    });
                    if let Some(bookmark) = bookmark {
                        live.feed_event(&bookmark, now);
                    }
                }
            }
            13 => {
                let throttled = self.rng.below(2) == 0;
                if let Some(live) = self.lives.get_mut(&key).filter(|l| l.stream.is_some()) {
                    let error = if throttled {
                        status(429, "TooManyRequests", Some(2))
                    } else {
                        status(500, "InternalError", None)
                    };
                    live.stream = None;
                    live.feed_event(&json!({"type": "ERROR", "object": error}), now);
                }
            }
            14 => {
                if let Some(live) = self.lives.get_mut(&key).filter(|l| l.stream.is_some()) {
                    live.feed(Input::Garbage("<html>proxy error</html>".into()), now);
                }
            }
            15 => {
                let key = keys()[self.rng.below(keys().len())].clone();
                self.subscribe(key);
            }
            16 => self.unsubscribe(&key),
            17 => {
                self.now += LINGER_MS * self.rng.below(2) as f64;
                self.close_expired();
            }
            _ => {
                // Back online / tab shown again: every view reconnects at once.
                for live in self.lives.values_mut() {
                    live.stream = None;
                    live.pending = Some(live.watcher.reconnect(now));
                }
            }
        }
    }

    /// Faults stop; every request is answered and every stream drained.
    fn settle(&mut self) {
        for round in 0.. {
            assert!(
                round < 10_000,
                "seed {}: the layer never settles",
                self.seed
            );
            let mut busy = false;
            self.now += 10.0;
            let now = self.now;
            for live in self.lives.values_mut() {
                if live.pending.is_some() {
                    live.perform(&mut self.server, None, now);
                    busy = true;
                }
                while live.deliver(&self.server, now) {
                    busy = true;
                }
            }
            if !busy {
                break;
            }
        }
    }

    fn check(&mut self) {
        self.settle();
        for (key, live) in &self.lives {
            assert!(
                live.stream.is_some() && live.watcher.is_filled(),
                "seed {}: {} is not watching after settling",
                self.seed,
                key.describe()
            );
            let selection = Selection::of(&key.list_request(None));
            let truth: BTreeMap<String, Value> = self
                .server
                .objects
                .values()
                .filter(|o| selection.matches(o))
                .map(|o| (uid_of(o), selection.held_form(o)))
                .collect();
            let (held, count) = live.store.contents();
            assert_eq!(
                count,
                held.len(),
                "seed {}: duplicates in {}",
                self.seed,
                key.describe()
            );
            assert_eq!(
                held,
                truth,
                "seed {}: {} differs from a fresh list",
                self.seed,
                key.describe()
            );
            assert_eq!(
                live.lists_begun,
                live.lists_due,
                "seed {}: {} began {} lists where {} were due (a relist where a resume was due)",
                self.seed,
                key.describe(),
                live.lists_begun,
                live.lists_due
            );
        }
        // Streams nobody uses close once the linger time has passed.
        self.now += LINGER_MS;
        self.close_expired();
        for key in self.lives.keys() {
            assert!(
                self.views.get(key).is_some_and(|v| *v > 0),
                "seed {}: {} is open with no view",
                self.seed,
                key.describe()
            );
        }
        for (key, views) in &self.views {
            assert_eq!(
                *views > 0,
                self.lives.contains_key(key),
                "seed {}",
                self.seed
            );
        }
    }
}

#[test]
fn every_cache_equals_a_fresh_list_after_faults_and_unused_streams_close() {
    let sequences: u64 = std::env::var("WATCH_SIMULATION_SEQUENCES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    for seed in 1..=sequences {
        let mut sequence = Sequence::new(seed);
        let length = 40 + sequence.rng.below(120);
        for action in 0..length {
            sequence.act();
            if action % 50 == 49 {
                sequence.check();
            }
        }
        sequence.check();
    }
    // Both ways of saying 410 were exercised (the ERROR event shows in the lists counted).
    if sequences >= 100 {
        assert!(
            HTTP_GONE.load(std::sync::atomic::Ordering::Relaxed) > 0,
            "no resume was answered with HTTP 410"
        );
    }
}
