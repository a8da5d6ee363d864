//! Who holds the few HTTP watch connections a page may keep, and who gets the next one. A
//! browser opens at most six HTTP/1.1 connections to a server; every chunked watch holds one
//! as long as it lives, so only a few may, and the rest wait. Streams that a view on screen
//! uses go before streams nobody uses any more (lingering after their view went), and among
//! equals the one opened first (a page's object before the kinds it may own). A lingering
//! holder gives its slot up at once when a viewed stream waits.

use std::collections::BTreeSet;

/// HTTP watches held open at once: each takes one of the browser's six connections to the
/// server, and ordinary requests (lists, reads, writes) need the rest.
pub const MAX_HTTP_WATCHES: usize = 4;

/// The slots of one page; streams are named by their opening number (earlier: smaller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpSlots {
    limit: usize,
    holders: BTreeSet<u64>,
    waiting: BTreeSet<u64>,
}

impl Default for HttpSlots {
    fn default() -> Self {
        HttpSlots::with_limit(MAX_HTTP_WATCHES)
    }
}

/// What an ask for a slot got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotAsk {
    /// The slot is the stream's until it releases it.
    Granted,
    /// Every slot is held: wait to be handed one. `close_now` names a holder no view uses
    /// any more: closing it frees a slot for this stream at once.
    Wait { close_now: Option<u64> },
}

impl HttpSlots {
    pub fn with_limit(limit: usize) -> HttpSlots {
        HttpSlots {
            limit,
            holders: BTreeSet::new(),
            waiting: BTreeSet::new(),
        }
    }

    /// `stream` asks for a slot; `viewed` says whether a stream is used by a view now.
    pub fn ask(&mut self, stream: u64, viewed: impl Fn(u64) -> bool) -> SlotAsk {
        if self.holders.contains(&stream) || self.holders.len() < self.limit {
            self.waiting.remove(&stream);
            self.holders.insert(stream);
            return SlotAsk::Granted;
        }
        self.waiting.insert(stream);
        let close_now = if viewed(stream) {
            self.holders.iter().copied().find(|holder| !viewed(*holder))
        } else {
            None
        };
        SlotAsk::Wait { close_now }
    }

    /// `stream` stops waiting (its view went, or it was kicked).
    pub fn give_up(&mut self, stream: u64) {
        self.waiting.remove(&stream);
    }

    /// `stream` releases its slot; returns the waiter it goes to (viewed ones first, then
    /// by opening order), which holds it from now on.
    pub fn release(&mut self, stream: u64, viewed: impl Fn(u64) -> bool) -> Option<u64> {
        if !self.holders.remove(&stream) {
            return None;
        }
        let next = self
            .waiting
            .iter()
            .copied()
            .min_by_key(|waiter| (!viewed(*waiter), *waiter))?;
        self.waiting.remove(&next);
        self.holders.insert(next);
        Some(next)
    }

    pub fn held(&self) -> usize {
        self.holders.len()
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn is_waiting(&self, stream: u64) -> bool {
        self.waiting.contains(&stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_granted_up_to_the_limit_then_streams_wait() {
        let mut slots = HttpSlots::with_limit(2);
        let all_viewed = |_| true;
        assert_eq!(slots.ask(1, all_viewed), SlotAsk::Granted);
        assert_eq!(slots.ask(2, all_viewed), SlotAsk::Granted);
        assert_eq!(slots.ask(3, all_viewed), SlotAsk::Wait { close_now: None });
        assert!(slots.is_waiting(3));
        assert_eq!(slots.held(), 2);
        // A holder that asks again keeps its slot.
        assert_eq!(slots.ask(1, all_viewed), SlotAsk::Granted);
    }

    #[test]
    fn a_released_slot_goes_to_a_viewed_waiter_before_a_hidden_one() {
        let mut slots = HttpSlots::with_limit(1);
        let viewed = |stream: u64| stream != 2;
        assert_eq!(slots.ask(1, viewed), SlotAsk::Granted);
        // Stream 2 (no view any more) waits before stream 3 (on screen).
        assert_eq!(slots.ask(2, viewed), SlotAsk::Wait { close_now: None });
        assert_eq!(slots.ask(3, viewed), SlotAsk::Wait { close_now: None });
        assert_eq!(slots.release(1, viewed), Some(3));
        assert_eq!(slots.release(3, viewed), Some(2));
        assert_eq!(slots.release(2, viewed), None);
        assert_eq!(slots.held(), 0);
    }

    #[test]
    fn among_viewed_waiters_the_first_opened_goes_first() {
        let mut slots = HttpSlots::with_limit(1);
        let all_viewed = |_| true;
        slots.ask(1, all_viewed);
        slots.ask(5, all_viewed);
        slots.ask(4, all_viewed);
        assert_eq!(slots.release(1, all_viewed), Some(4));
    }

    #[test]
    fn a_viewed_stream_that_waits_names_a_lingering_holder_to_close() {
        let mut slots = HttpSlots::with_limit(2);
        let viewed = |stream: u64| stream != 2;
        slots.ask(1, viewed);
        slots.ask(2, viewed);
        assert_eq!(slots.ask(3, viewed), SlotAsk::Wait { close_now: Some(2) });
        // A lingering stream that waits closes nobody.
        assert_eq!(slots.ask(4, |_| false), SlotAsk::Wait { close_now: None });
    }

    #[test]
    fn a_waiter_that_gives_up_is_not_handed_a_slot() {
        let mut slots = HttpSlots::with_limit(1);
        let all_viewed = |_| true;
        slots.ask(1, all_viewed);
        slots.ask(2, all_viewed);
        slots.give_up(2);
        assert_eq!(slots.release(1, all_viewed), None);
        assert_eq!(slots.held(), 0);
        // Releasing a slot never held changes nothing.
        assert_eq!(slots.release(9, all_viewed), None);
    }
}
