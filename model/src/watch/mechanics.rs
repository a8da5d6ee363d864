//! Watch mechanics made visible, for people learning the API: what one key's watcher asked
//! the server (each list page and watch request), what came back (each watch event's type,
//! object and resourceVersion, bookmarks, errors, the stream's end) and when it relisted and
//! why. A bounded log per key, fed from the same inputs and commands as the watcher.

use crate::time::clock::Wall;
use std::collections::VecDeque;

use serde_json::Value;

use super::event::EventType;
use super::machine::{Command, Input, WatchStatus};
use crate::object::pointer::Pointer;

/// One thing that happened on a watch.
#[derive(Debug, Clone, PartialEq)]
pub enum Happening {
    /// A list page was requested (its URL).
    ListRequest(String),
    /// A watch was opened (its URL), after waiting `delay_ms`.
    WatchRequest { url: String, delay_ms: u32 },
    /// A list page arrived with this many items (and a continue token or not).
    ListPage {
        items: usize,
        more: bool,
        resource_version: String,
    },
    /// ADDED, MODIFIED or DELETED.
    Change {
        event_type: &'static str,
        name: String,
        resource_version: String,
    },
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    /// The server's ERROR event or a failed request (410 Expired, 429, 5xx, a broken stream).
    Failure(String),
    /// The stream ended cleanly (its timeout).
    StreamEnded,
    /// A relist began, and why.
    Relist(String),
    /// The server forbade the request: nothing more is asked until the user retries.
    Idle,
}

impl Happening {
    /// A word for the kind, as a CSS hook and a label.
    pub fn label(&self) -> &'static str {
        match self {
            Happening::ListRequest(_) => "LIST",
            Happening::WatchRequest { .. } => "WATCH",
            Happening::ListPage { .. } => "PAGE",
            Happening::Change { event_type, .. } => event_type,
            Happening::Bookmark { .. } => "BOOKMARK",
            Happening::Failure(_) => "ERROR",
            Happening::StreamEnded => "END",
            Happening::Relist(_) => "RELIST",
            Happening::Idle => "STOPPED",
        }
    }

    /// What to show beside the label.
    pub fn detail(&self) -> String {
        match self {
            Happening::ListRequest(url) => format!("GET {url}"),
            Happening::WatchRequest { url, delay_ms: 0 } => format!("GET {url}"),
            Happening::WatchRequest { url, delay_ms } => {
                format!("GET {url} (after waiting {delay_ms} ms)")
            }
            Happening::ListPage {
                items,
                more,
                resource_version,
            } => format!(
                "{items} item(s) at resourceVersion {resource_version}{}",
                if *more {
                    ", more to come (continue)"
                } else {
                    ""
                }
            ),
            Happening::Change {
                name,
                resource_version,
                ..
            } => format!("{name} · rv {resource_version}"),
            Happening::Bookmark {
                resource_version,
                initial_events_end,
            } => format!(
                "rv {resource_version}{}",
                if *initial_events_end {
                    " · end of the initial events (k8s.io/initial-events-end)"
                } else {
                    ""
                }
            ),
            Happening::Failure(message) => message.clone(),
            Happening::StreamEnded => {
                "the server ended the stream; resuming from the last resourceVersion".into()
            }
            Happening::Relist(reason) => reason.clone(),
            Happening::Idle => "forbidden (403): not asked again until you retry".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Wall-clock ms.
    pub at_ms: f64,
    pub happening: Happening,
}

/// Entries kept per key; older ones are dropped and counted.
pub const MECHANICS_CAPACITY: usize = 500;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct MechanicsLog {
    entries: VecDeque<Entry>,
    dropped: usize,
    relists_seen: u32,
    revision: u64,
}

fn text(value: &Value, pointer: &str) -> String {
    value
        .at(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl MechanicsLog {
    /// Oldest first.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Entry> {
        self.entries.iter()
    }

    pub fn dropped(&self) -> usize {
        self.dropped
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    fn push(&mut self, at_ms: f64, happening: Happening) {
        self.revision += 1;
        self.entries.push_back(Entry { at_ms, happening });
        if self.entries.len() > MECHANICS_CAPACITY {
            self.entries.pop_front();
            self.dropped += 1;
        }
    }

    /// Notes what the watcher was given.
    pub fn note_input(&mut self, input: &Input, at: impl Into<Wall>) {
        let at_ms = at.into().ms();
        let happening = match input {
            Input::Page(Ok(body)) => Happening::ListPage {
                items: body
                    .get("items")
                    .or_else(|| body.get("rows"))
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len),
                more: !text(body, "/metadata/continue").is_empty(),
                resource_version: text(body, "/metadata/resourceVersion"),
            },
            Input::Page(Err(error)) => Happening::Failure(format!("list failed: {error}")),
            Input::Event(event) => match event.event_type {
                EventType::Bookmark => Happening::Bookmark {
                    resource_version: text(&event.object, "/metadata/resourceVersion"),
                    initial_events_end: event.is_initial_events_end(),
                },
                EventType::Error => {
                    Happening::Failure(format!("ERROR event: {}", text(&event.object, "/message")))
                }
                EventType::Added | EventType::Modified | EventType::Deleted => Happening::Change {
                    event_type: match event.event_type {
                        EventType::Added => "ADDED",
                        EventType::Modified => "MODIFIED",
                        _ => "DELETED",
                    },
                    name: object_name(&event.object),
                    resource_version: text(&event.object, "/metadata/resourceVersion"),
                },
            },
            Input::Garbage(message) => Happening::Failure(format!("unreadable message: {message}")),
            Input::StreamEnded => Happening::StreamEnded,
            Input::StreamFailed(error) => Happening::Failure(format!("stream failed: {error}")),
        };
        self.push(at_ms, happening);
    }

    /// Notes what the watcher asked for next, and a relist when its status counts one more.
    pub fn note_command(&mut self, command: &Command, status: &WatchStatus, at: impl Into<Wall>) {
        let at_ms = at.into().ms();
        if status.relists > self.relists_seen {
            self.relists_seen = status.relists;
            let reason = status
                .last_relist_reason
                .clone()
                .unwrap_or_else(|| "relisting".into());
            self.push(at_ms, Happening::Relist(reason));
        }
        match command {
            Command::List { request, .. } => {
                self.push(at_ms, Happening::ListRequest(request.url()))
            }
            Command::Watch { request, delay_ms } => self.push(
                at_ms,
                Happening::WatchRequest {
                    url: request.url(),
                    delay_ms: *delay_ms,
                },
            ),
            Command::Continue => {}
            Command::Idle => self.push(at_ms, Happening::Idle),
        }
    }
}

/// `namespace/name` of an object or a Table row's object.
fn object_name(object: &Value) -> String {
    let meta = object
        .get("metadata")
        .filter(|m| m.get("name").is_some())
        .or_else(|| object.at("/rows/0/object/metadata"));
    let Some(meta) = meta else {
        return String::new();
    };
    let name = text(meta, "/name");
    match meta.get("namespace").and_then(Value::as_str) {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::key::Output;
    use crate::watch::{decode_event, ListMode, WatchKey, Watcher};
    use serde_json::json;

    #[test]
    fn a_watch_is_told_step_by_step_and_bounded() {
        let key = WatchKey::new("/api/v1/namespaces/demo/pods", Output::Objects);
        let (mut watcher, first) = Watcher::new(key, ListMode::Paged, 1);
        let mut log = MechanicsLog::default();
        log.note_command(&first, watcher.status(), 0.0);
        let page = Input::Page(Ok(json!({"metadata": {"resourceVersion": "10"},
            "items": [{"metadata": {"name": "a", "namespace": "demo", "resourceVersion": "9"}}]})));
        log.note_input(&page, 1.0);
        let step = watcher.on(page, 1.0);
        log.note_command(&step.command, watcher.status(), 1.0);
        let event = decode_event(r#"{"type":"MODIFIED","object":{"metadata":{"name":"a","namespace":"demo","resourceVersion":"11"}}}"#)
            .expect("event");
        log.note_input(&Input::Event(event), 2.0);
        let expired = decode_event(r#"{"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old resource version"}}"#)
            .expect("error event");
        log.note_input(&Input::Event(expired.clone()), 3.0);
        let step = watcher.on(Input::Event(expired), 3.0);
        log.note_command(&step.command, watcher.status(), 3.0);
        let labels: Vec<&str> = log.entries().map(|e| e.happening.label()).collect();
        assert_eq!(
            labels,
            vec!["LIST", "PAGE", "WATCH", "MODIFIED", "ERROR", "RELIST", "LIST"]
        );
        let details: Vec<String> = log.entries().map(|e| e.happening.detail()).collect();
        assert!(
            details[0].starts_with("GET /api/v1/namespaces/demo/pods?"),
            "{details:?}"
        );
        assert!(
            details[2].contains("watch=true") && details[2].contains("resourceVersion=10"),
            "{details:?}"
        );
        assert_eq!(details[3], "demo/a · rv 11");
        assert!(details[4].contains("too old"), "{details:?}");
        for i in 0..MECHANICS_CAPACITY {
            log.note_input(&Input::StreamEnded, 4.0 + i as f64);
        }
        assert_eq!(log.entries().count(), MECHANICS_CAPACITY);
        assert_eq!(log.dropped(), 7);
    }
}
