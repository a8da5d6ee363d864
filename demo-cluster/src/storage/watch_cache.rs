//! Bounded history of store changes, as kube-apiserver's watch cache: watches resume from it,
//! chunked lists reconstruct their snapshot from it, and anything older is answered with 410.

use std::collections::VecDeque;
use std::sync::{Arc, OnceLock};

// `bytes::Bytes`, through axum's re-export, which the HTTP layer sends without copying.
use axum::body::Bytes;

use super::object::{ObjectKey, ObjectRef};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One change: for DELETED, `object` is the last state stamped with the deletion's version.
#[derive(Debug)]
pub struct StoredEvent {
    pub rv: u64,
    pub event_type: EventType,
    pub key: ObjectKey,
    pub object: ObjectRef,
    pub prev: Option<ObjectRef>,
    /// `{"type":..,"object":..}\n` as stored, rendered once for every watcher that can use it.
    line: OnceLock<Bytes>,
}

impl StoredEvent {
    pub fn new(
        rv: u64,
        event_type: EventType,
        key: ObjectKey,
        object: ObjectRef,
        prev: Option<ObjectRef>,
    ) -> Self {
        StoredEvent {
            rv,
            event_type,
            key,
            object,
            prev,
            line: OnceLock::new(),
        }
    }

    /// The watch line for this event with the stored object, newline-terminated.
    pub fn line(&self) -> &Bytes {
        self.line
            .get_or_init(|| watch_line(self.event_type.as_str(), self.object.json()))
    }
}

/// `{"type":"<type>","object":<json>}` plus a newline, from an already serialized object.
pub fn watch_line(event_type: &str, object_json: &[u8]) -> Bytes {
    let mut buf = Vec::with_capacity(object_json.len() + 32);
    buf.extend_from_slice(b"{\"type\":\"");
    buf.extend_from_slice(event_type.as_bytes());
    buf.extend_from_slice(b"\",\"object\":");
    buf.extend_from_slice(object_json);
    buf.extend_from_slice(b"}\n");
    Bytes::from(buf)
}

#[derive(Debug)]
pub struct WatchCache {
    events: VecDeque<Arc<StoredEvent>>,
    capacity: usize,
    /// Every change with rv <= this has been evicted; resuming from an older rv is impossible.
    evicted_through: u64,
}

impl WatchCache {
    pub fn new(capacity: usize, start_rv: u64) -> Self {
        WatchCache {
            events: VecDeque::with_capacity(capacity.min(4096)),
            capacity: capacity.max(1),
            evicted_through: start_rv,
        }
    }

    pub fn push(&mut self, event: Arc<StoredEvent>) {
        if self.events.len() == self.capacity {
            if let Some(old) = self.events.pop_front() {
                self.evicted_through = old.rv;
            }
        }
        self.events.push_back(event);
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The oldest resourceVersion a client may resume from.
    pub fn oldest_resumable(&self) -> u64 {
        self.evicted_through
    }

    /// Events strictly newer than `rv`, or `Err(oldest resumable rv)` when they were evicted.
    pub fn since(&self, rv: u64) -> Result<Vec<Arc<StoredEvent>>, u64> {
        if rv < self.evicted_through {
            return Err(self.evicted_through);
        }
        let start = self.events.partition_point(|e| e.rv <= rv);
        Ok(self.events.iter().skip(start).cloned().collect())
    }

    /// Like `since`, borrowing the events instead of collecting them.
    pub fn since_iter(&self, rv: u64) -> Result<impl Iterator<Item = &Arc<StoredEvent>>, u64> {
        if rv < self.evicted_through {
            return Err(self.evicted_through);
        }
        let start = self.events.partition_point(|e| e.rv <= rv);
        Ok(self.events.range(start..))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(rv: u64) -> Arc<StoredEvent> {
        Arc::new(StoredEvent::new(
            rv,
            EventType::Added,
            ObjectKey::new("", "configmaps", "ns", &format!("c{rv}")),
            Arc::new(crate::storage::object::StoredObject::new(
                serde_json::Value::Null,
            )),
            None,
        ))
    }

    #[test]
    fn evicts_oldest_and_reports_too_old() {
        let mut c = WatchCache::new(3, 0);
        for rv in 1..=5 {
            c.push(ev(rv));
        }
        assert_eq!(c.since(1).unwrap_err(), 2);
        let got: Vec<u64> = c.since(2).unwrap().iter().map(|e| e.rv).collect();
        assert_eq!(got, vec![3, 4, 5]);
        assert!(c.since(5).unwrap().is_empty());
    }
}
