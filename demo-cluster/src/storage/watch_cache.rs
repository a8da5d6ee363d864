//! Bounded history of store changes, as kube-apiserver's watch cache: watches resume from it,
//! chunked lists reconstruct their snapshot from it, and anything older is answered with 410.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::Value;

use super::store::ObjectKey;

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
    pub object: Value,
    pub prev: Option<Value>,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(rv: u64) -> Arc<StoredEvent> {
        Arc::new(StoredEvent {
            rv,
            event_type: EventType::Added,
            key: ObjectKey::new("", "configmaps", "ns", &format!("c{rv}")),
            object: Value::Null,
            prev: None,
        })
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
