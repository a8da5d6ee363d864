//! Watch support, pure: decoding watch events, the watcher state machine (list, then watch
//! from the list's resourceVersion; re-watch on a clean end; relist on 410), and the object
//! cache the events are applied to. The transport (WebSocket or chunked HTTP) only feeds
//! inputs in and carries the commands out, so every transition is tested natively.

use std::collections::BTreeMap;

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

/// One event of a watch stream: `{"type": "...", "object": {...}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchEvent {
    pub event_type: EventType,
    pub object: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchDecodeError {
    NotJson(String),
    UnknownType(String),
    MissingObject,
}

impl std::fmt::Display for WatchDecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WatchDecodeError::NotJson(e) => write!(f, "watch event is not JSON: {e}"),
            WatchDecodeError::UnknownType(t) => write!(f, "unknown watch event type {t:?}"),
            WatchDecodeError::MissingObject => f.write_str("watch event has no object"),
        }
    }
}

/// The Status carried by an ERROR event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchStatus {
    pub code: u16,
    pub reason: String,
    pub message: String,
}

/// Decodes one event (a WebSocket message or one line of a chunked body).
pub fn decode_event(text: &str) -> Result<WatchEvent, WatchDecodeError> {
    let value: Value =
        serde_json::from_str(text.trim()).map_err(|e| WatchDecodeError::NotJson(e.to_string()))?;
    let event_type = match value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
    {
        "ADDED" => EventType::Added,
        "MODIFIED" => EventType::Modified,
        "DELETED" => EventType::Deleted,
        "BOOKMARK" => EventType::Bookmark,
        "ERROR" => EventType::Error,
        other => return Err(WatchDecodeError::UnknownType(other.to_string())),
    };
    let object = match value {
        Value::Object(mut map) => map
            .remove("object")
            .ok_or(WatchDecodeError::MissingObject)?,
        _ => return Err(WatchDecodeError::MissingObject),
    };
    Ok(WatchEvent { event_type, object })
}

impl WatchEvent {
    pub fn resource_version(&self) -> Option<&str> {
        self.object
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .filter(|rv| !rv.is_empty())
    }

    /// The Status of an ERROR event.
    pub fn status(&self) -> Option<WatchStatus> {
        if self.event_type != EventType::Error {
            return None;
        }
        let text = |key: &str| {
            self.object
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        Some(WatchStatus {
            code: self
                .object
                .get("code")
                .and_then(Value::as_u64)
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or(500),
            reason: text("reason"),
            message: text("message"),
        })
    }
}

/// Splits a chunked watch body into events: chunks end anywhere, events end at `\n`.
#[derive(Debug, Default)]
pub struct LineDecoder {
    pending: String,
}

impl LineDecoder {
    pub fn push(&mut self, chunk: &str) -> Vec<Result<WatchEvent, WatchDecodeError>> {
        self.pending.push_str(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            if !line.trim().is_empty() {
                events.push(decode_event(&line));
            }
        }
        events
    }
}

/// Where the watcher is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatcherState {
    /// Nothing known: a (re)list is needed.
    Empty,
    /// Watching (or about to) from this resourceVersion.
    Watching { resource_version: String },
}

/// What the transport reports.
#[derive(Debug, Clone, PartialEq)]
pub enum WatcherInput {
    Listed {
        items: Vec<Value>,
        resource_version: String,
    },
    ListFailed(String),
    Event(WatchEvent),
    /// The server ended the stream cleanly (timeoutSeconds).
    StreamEnded,
    /// The connection failed or broke.
    StreamFailed(String),
    /// An event that could not be decoded.
    Garbage(String),
}

/// What the transport should do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatcherCommand {
    /// Keep reading the current stream.
    Continue,
    List {
        after_backoff: bool,
    },
    Watch {
        resource_version: String,
        after_backoff: bool,
    },
}

/// A change to apply to the object cache.
#[derive(Debug, Clone, PartialEq)]
pub enum CacheChange {
    /// The initial list (or a relist): replaces everything.
    Replace(Vec<Value>),
    Apply(Value),
    Delete(Value),
}

#[derive(Debug, Clone, PartialEq)]
pub struct WatcherStep {
    pub state: WatcherState,
    pub change: Option<CacheChange>,
    pub command: WatcherCommand,
    /// Something the user should be told (an ERROR event, a broken stream).
    pub notice: Option<String>,
}

/// Where a watcher starts: with a list.
pub fn start() -> (WatcherState, WatcherCommand) {
    (
        WatcherState::Empty,
        WatcherCommand::List {
            after_backoff: false,
        },
    )
}

fn relist(notice: Option<String>, after_backoff: bool) -> WatcherStep {
    WatcherStep {
        state: WatcherState::Empty,
        change: None,
        command: WatcherCommand::List { after_backoff },
        notice,
    }
}

/// Watch again from `resource_version`.
fn rewatch(resource_version: String, after_backoff: bool, notice: Option<String>) -> WatcherStep {
    WatcherStep {
        state: WatcherState::Watching {
            resource_version: resource_version.clone(),
        },
        change: None,
        command: WatcherCommand::Watch {
            resource_version,
            after_backoff,
        },
        notice,
    }
}

/// The state machine (kube-rs watcher semantics): 410 relists, a clean end re-watches from
/// the last seen resourceVersion, a failure re-watches after a backoff, an event without a
/// resourceVersion cannot be resumed from and forces a relist.
pub fn step(state: &WatcherState, input: WatcherInput) -> WatcherStep {
    let watching = match state {
        WatcherState::Watching { resource_version } => Some(resource_version.clone()),
        WatcherState::Empty => None,
    };
    match (watching, input) {
        (
            _,
            WatcherInput::Listed {
                items,
                resource_version,
            },
        ) => {
            if resource_version.is_empty() {
                // A list without a version cannot be watched from ("does the resource
                // support watch?").
                return relist(
                    Some("the list had no resourceVersion to watch from".into()),
                    true,
                );
            }
            WatcherStep {
                state: WatcherState::Watching {
                    resource_version: resource_version.clone(),
                },
                change: Some(CacheChange::Replace(items)),
                command: WatcherCommand::Watch {
                    resource_version,
                    after_backoff: false,
                },
                notice: None,
            }
        }
        (_, WatcherInput::ListFailed(error)) => relist(Some(error), true),
        // Events from a stream we no longer follow (after a 410) are dropped.
        (None, WatcherInput::Event(_) | WatcherInput::Garbage(_)) => WatcherStep {
            state: WatcherState::Empty,
            change: None,
            command: WatcherCommand::Continue,
            notice: None,
        },
        (None, WatcherInput::StreamEnded | WatcherInput::StreamFailed(_)) => relist(None, true),
        (Some(rv), WatcherInput::Event(event)) => watching_event(rv, event),
        (Some(rv), WatcherInput::Garbage(error)) => rewatch(rv, true, Some(error)),
        (Some(rv), WatcherInput::StreamEnded) => rewatch(rv, false, None),
        (Some(rv), WatcherInput::StreamFailed(error)) => rewatch(rv, true, Some(error)),
    }
}

fn watching_event(rv: String, event: WatchEvent) -> WatcherStep {
    if let Some(status) = event.status() {
        if status.code == 410 {
            return relist(
                Some(format!(
                    "watch expired ({}: {}); listing again",
                    status.reason, status.message
                )),
                false,
            );
        }
        return rewatch(
            rv,
            true,
            Some(format!(
                "watch error {} {}: {}",
                status.code, status.reason, status.message
            )),
        );
    }
    let Some(new_rv) = event.resource_version().map(str::to_string) else {
        return relist(Some("watch event without resourceVersion".into()), false);
    };
    let change = match event.event_type {
        EventType::Added | EventType::Modified => Some(CacheChange::Apply(event.object)),
        EventType::Deleted => Some(CacheChange::Delete(event.object)),
        EventType::Bookmark | EventType::Error => None,
    };
    WatcherStep {
        state: WatcherState::Watching {
            resource_version: new_rv,
        },
        change,
        command: WatcherCommand::Continue,
        notice: None,
    }
}

/// (namespace, name); namespace is empty for cluster-scoped objects.
pub type ObjectKey = (String, String);

pub fn object_key(object: &Value) -> Option<ObjectKey> {
    let metadata = object.get("metadata")?;
    let name = metadata.get("name").and_then(Value::as_str)?;
    let namespace = metadata
        .get("namespace")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some((namespace.to_string(), name.to_string()))
}

/// The objects of one watched collection, as the events left them (a reflector store).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectCache {
    objects: BTreeMap<ObjectKey, Value>,
}

impl ObjectCache {
    pub fn apply(&mut self, change: CacheChange) {
        match change {
            CacheChange::Replace(items) => {
                self.objects = items
                    .into_iter()
                    .filter_map(|item| object_key(&item).map(|key| (key, item)))
                    .collect();
            }
            CacheChange::Apply(object) => {
                if let Some(key) = object_key(&object) {
                    self.objects.insert(key, object);
                }
            }
            CacheChange::Delete(object) => {
                if let Some(key) = object_key(&object) {
                    self.objects.remove(&key);
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    pub fn get(&self, namespace: &str, name: &str) -> Option<&Value> {
        self.objects.get(&(namespace.to_string(), name.to_string()))
    }

    /// Objects in (namespace, name) order.
    pub fn iter(&self) -> impl Iterator<Item = &Value> {
        self.objects.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(ns: &str, name: &str, rv: u64) -> Value {
        json!({"metadata": {"namespace": ns, "name": name, "resourceVersion": rv.to_string()}})
    }

    fn event(kind: &str, object: Value) -> WatchEvent {
        decode_event(&json!({"type": kind, "object": object}).to_string()).expect("valid event")
    }

    #[test]
    fn decodes_events_and_rejects_garbage() {
        let e = event("ADDED", obj("default", "a", 5));
        assert_eq!(e.event_type, EventType::Added);
        assert_eq!(e.resource_version(), Some("5"));
        assert!(matches!(
            decode_event("{nope"),
            Err(WatchDecodeError::NotJson(_))
        ));
        assert_eq!(
            decode_event(r#"{"type":"SURPRISE","object":{}}"#),
            Err(WatchDecodeError::UnknownType("SURPRISE".into()))
        );
        assert_eq!(
            decode_event(r#"{"type":"ADDED"}"#),
            Err(WatchDecodeError::MissingObject)
        );
        let error = event(
            "ERROR",
            json!({"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (5)"}),
        );
        assert_eq!(error.status().map(|s| s.code), Some(410));
    }

    #[test]
    fn line_decoder_handles_events_split_across_chunks() {
        let mut decoder = LineDecoder::default();
        let line1 = json!({"type":"ADDED","object":obj("ns","a",1)}).to_string();
        let line2 = json!({"type":"DELETED","object":obj("ns","a",2)}).to_string();
        let all = format!("{line1}\n{line2}\n");
        let (first, second) = all.split_at(line1.len() / 2);
        assert!(decoder.push(first).is_empty());
        let events = decoder.push(second);
        assert_eq!(events.len(), 2);
        assert!(events.iter().all(Result::is_ok));
    }

    #[test]
    fn list_then_watch_then_events() {
        let (state, command) = start();
        assert_eq!(
            command,
            WatcherCommand::List {
                after_backoff: false
            }
        );
        let listed = step(
            &state,
            WatcherInput::Listed {
                items: vec![obj("ns", "a", 3)],
                resource_version: "10".into(),
            },
        );
        assert_eq!(
            listed.command,
            WatcherCommand::Watch {
                resource_version: "10".into(),
                after_backoff: false
            }
        );
        let added = step(
            &listed.state,
            WatcherInput::Event(event("ADDED", obj("ns", "b", 11))),
        );
        assert_eq!(
            added.state,
            WatcherState::Watching {
                resource_version: "11".into()
            }
        );
        let bookmark = step(
            &added.state,
            WatcherInput::Event(event(
                "BOOKMARK",
                json!({"metadata":{"resourceVersion":"20"}}),
            )),
        );
        assert_eq!(bookmark.change, None);
        // A clean end re-watches from the bookmark, without relisting.
        let ended = step(&bookmark.state, WatcherInput::StreamEnded);
        assert_eq!(
            ended.command,
            WatcherCommand::Watch {
                resource_version: "20".into(),
                after_backoff: false
            }
        );
    }

    #[test]
    fn expired_watch_relists_and_ignores_the_dead_stream() {
        let state = WatcherState::Watching {
            resource_version: "5".into(),
        };
        let expired = step(
            &state,
            WatcherInput::Event(event(
                "ERROR",
                json!({"kind":"Status","code":410,"reason":"Expired","message":"too old"}),
            )),
        );
        assert_eq!(expired.state, WatcherState::Empty);
        assert_eq!(
            expired.command,
            WatcherCommand::List {
                after_backoff: false
            }
        );
        assert!(expired.notice.is_some());
        let late = step(
            &expired.state,
            WatcherInput::Event(event("ADDED", obj("n", "x", 9))),
        );
        assert_eq!(late.change, None);
        let other_error = step(
            &state,
            WatcherInput::Event(event(
                "ERROR",
                json!({"kind":"Status","code":500,"reason":"InternalError","message":"x"}),
            )),
        );
        assert_eq!(
            other_error.command,
            WatcherCommand::Watch {
                resource_version: "5".into(),
                after_backoff: true
            }
        );
        let no_rv = step(
            &state,
            WatcherInput::Event(event("MODIFIED", json!({"metadata":{"name":"x"}}))),
        );
        assert_eq!(no_rv.state, WatcherState::Empty);
    }

    /// Random event streams (with relists) never leave duplicates or stale objects: the cache
    /// always equals a reference model of the collection.
    #[test]
    fn randomized_streams_keep_the_cache_equal_to_the_collection() {
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        let mut truth: BTreeMap<ObjectKey, Value> = BTreeMap::new();
        let mut cache = ObjectCache::default();
        let (mut state, _) = start();
        let mut rv = 0u64;
        for round in 0..30_000u32 {
            let name = format!("o{}", next(50));
            let ns = format!("ns{}", next(3));
            rv += 1;
            let input = match next(20) {
                0 => WatcherInput::Listed {
                    items: truth.values().cloned().collect(),
                    resource_version: rv.to_string(),
                },
                1 => WatcherInput::StreamEnded,
                2 => WatcherInput::Event(event(
                    "ERROR",
                    json!({"kind":"Status","code":410,"reason":"Expired","message":"old"}),
                )),
                3..=11 => {
                    let object = obj(&ns, &name, rv);
                    let kind = if truth.contains_key(&(ns.clone(), name.clone())) {
                        "MODIFIED"
                    } else {
                        "ADDED"
                    };
                    truth.insert((ns.clone(), name.clone()), object.clone());
                    WatcherInput::Event(event(kind, object))
                }
                _ => match truth.remove(&(ns.clone(), name.clone())) {
                    Some(mut gone) => {
                        gone["metadata"]["resourceVersion"] = json!(rv.to_string());
                        WatcherInput::Event(event("DELETED", gone))
                    }
                    None => WatcherInput::Event(event(
                        "BOOKMARK",
                        json!({"metadata":{"resourceVersion": rv.to_string()}}),
                    )),
                },
            };
            let was_watching = matches!(state, WatcherState::Watching { .. });
            let result = step(&state, input);
            if let Some(change) = result.change {
                cache.apply(change);
            }
            state = result.state;
            // After a 410 the watcher relists; the transport's list returns the truth.
            if result.command
                == (WatcherCommand::List {
                    after_backoff: false,
                })
                && was_watching
            {
                rv += 1;
                let relisted = step(
                    &state,
                    WatcherInput::Listed {
                        items: truth.values().cloned().collect(),
                        resource_version: rv.to_string(),
                    },
                );
                if let Some(change) = relisted.change {
                    cache.apply(change);
                }
                state = relisted.state;
            }
            // Comparing whole collections is the slow part; a sample of rounds suffices.
            if round % 97 == 0 && matches!(state, WatcherState::Watching { .. }) {
                assert_eq!(cache.len(), truth.len());
                assert!(truth.iter().all(|((ns, n), v)| cache.get(ns, n) == Some(v)));
            }
        }
    }
}
