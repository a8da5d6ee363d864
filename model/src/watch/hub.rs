//! Who uses which stream: one subscription per key, counted, shared by every view that asks
//! for the key, and closed a moment after the last view goes (so going from a list to an
//! object and back keeps the list's stream, and its rows).

use crate::time::clock::Monotonic;
use std::collections::BTreeMap;

/// How long a stream nobody uses stays open.
pub const LINGER_MS: f64 = 3_000.0;

/// What a subscribe did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subscribed {
    /// First view of this key: open its stream.
    Opened,
    /// The stream was open already (perhaps lingering): share it.
    Shared,
}

#[derive(Debug, Clone, PartialEq)]
struct Entry {
    views: usize,
    /// When the last view went; None while some view uses it.
    idle_since_ms: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Subscriptions<K> {
    entries: BTreeMap<K, Entry>,
}

impl<K> Default for Subscriptions<K> {
    fn default() -> Self {
        Subscriptions {
            entries: BTreeMap::new(),
        }
    }
}

impl<K: Ord + Clone> Subscriptions<K> {
    pub fn subscribe(&mut self, key: &K) -> Subscribed {
        match self.entries.get_mut(key) {
            Some(entry) => {
                entry.views += 1;
                entry.idle_since_ms = None;
                Subscribed::Shared
            }
            None => {
                self.entries.insert(
                    key.clone(),
                    Entry {
                        views: 1,
                        idle_since_ms: None,
                    },
                );
                Subscribed::Opened
            }
        }
    }

    /// One view of `key` went away. Returns when the stream may be closed if no view comes
    /// back (the caller checks [`Subscriptions::expired`] then).
    pub fn unsubscribe(&mut self, key: &K, now: impl Into<Monotonic>) -> Option<f64> {
        let now_ms = now.into().ms();
        let entry = self.entries.get_mut(key)?;
        entry.views = entry.views.saturating_sub(1);
        if entry.views == 0 {
            entry.idle_since_ms = Some(now_ms);
            return Some(now_ms + LINGER_MS);
        }
        None
    }

    /// Removes and returns the keys nobody has used for [`LINGER_MS`]: close their streams.
    pub fn expired(&mut self, now: impl Into<Monotonic>) -> Vec<K> {
        let now_ms = now.into().ms();
        let gone: Vec<K> = self
            .entries
            .iter()
            .filter(|(_, e)| e.idle_since_ms.is_some_and(|t| now_ms - t >= LINGER_MS))
            .map(|(k, _)| k.clone())
            .collect();
        for key in &gone {
            self.entries.remove(key);
        }
        gone
    }

    /// Forgets `key` at once when no view uses it (a lingering stream that holds what a
    /// viewed one waits for). True when it was forgotten: close its stream.
    pub fn close_if_idle(&mut self, key: &K) -> bool {
        let idle = self.entries.get(key).is_some_and(|e| e.views == 0);
        if idle {
            self.entries.remove(key);
        }
        idle
    }

    /// Views using `key` now.
    pub fn views(&self, key: &K) -> usize {
        self.entries.get(key).map_or(0, |e| e.views)
    }

    /// Keys with an open stream (used or lingering).
    pub fn open(&self) -> impl Iterator<Item = &K> {
        self.entries.keys()
    }

    pub fn is_open(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_unused_stream_is_closed_early() {
        let mut subs = Subscriptions::default();
        subs.subscribe(&"pods");
        assert!(!subs.close_if_idle(&"pods"), "a view uses it");
        subs.unsubscribe(&"pods", 0.0);
        assert!(subs.close_if_idle(&"pods"));
        assert!(!subs.is_open(&"pods"));
        assert!(!subs.close_if_idle(&"never"));
    }

    #[test]
    fn shared_counted_and_closed_a_moment_after_the_last_view() {
        let mut subs = Subscriptions::default();
        assert_eq!(subs.subscribe(&"pods"), Subscribed::Opened);
        assert_eq!(subs.subscribe(&"pods"), Subscribed::Shared);
        assert_eq!(subs.unsubscribe(&"pods", 0.0), None);
        assert_eq!(subs.unsubscribe(&"pods", 10.0), Some(10.0 + LINGER_MS));
        assert!(subs.expired(10.0 + LINGER_MS - 1.0).is_empty());
        // A view coming back while it lingers shares the same stream.
        assert_eq!(subs.subscribe(&"pods"), Subscribed::Shared);
        assert!(subs.expired(1e9).is_empty());
        subs.unsubscribe(&"pods", 100.0);
        assert_eq!(subs.expired(100.0 + LINGER_MS), vec!["pods"]);
        assert!(!subs.is_open(&"pods"));
        assert_eq!(subs.views(&"pods"), 0);
        // An unknown key is ignored.
        assert_eq!(subs.unsubscribe(&"nodes", 0.0), None);
    }
}
