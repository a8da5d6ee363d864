//! The lines of many streams merged by time into one bounded buffer.
//!
//! A line is placed by its timestamp as soon as it is merged, even when it arrives after
//! lines of another stream with later times (streams lag each other): it goes to its place
//! among the lines held, above newer ones already shown. Lines of one time keep their
//! arrival order (then every line has its own arrival number, so the order is total and
//! the same for the same arrivals). Times are the ones the kubelet wrote: clock skew between
//! nodes is not corrected.
//!
//! The buffer keeps the newest `capacity` lines by time: when full, the oldest are dropped and
//! counted, and so is a late line older than every line held (it would be the first to go).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::object::pod_logs::{dropped_note, MAX_LINES};
use crate::object::workload_logs::severity::Severity;
use crate::object::workload_logs::streams::StreamKey;
use crate::object::workload_logs::timestamp::LogTime;

/// A line's place in the merged order: its time, then its arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineKey {
    time: LogTime,
    number: u64,
}

impl LineKey {
    pub fn time(self) -> LogTime {
        self.time
    }

    pub fn number(self) -> u64 {
        self.number
    }
}

/// One line of a workload's logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Its arrival order among all streams' lines: unique and stable, to key rows by.
    pub number: u64,
    /// Shared by the stream's lines.
    pub stream: Arc<StreamKey>,
    /// The time the kubelet wrote before the line, if it had one.
    pub time: Option<LogTime>,
    /// Where the line is placed: its time, else the last time of its stream before it, else
    /// the newest time that had arrived (arrival order).
    pub order_time: LogTime,
    /// The message, without the timestamp.
    pub text: String,
    pub severity: Severity,
}

impl LogLine {
    pub fn key(&self) -> LineKey {
        LineKey {
            time: self.order_time,
            number: self.number,
        }
    }
}

/// What one merge did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeOutcome {
    /// The keys of the lines added and kept, ascending.
    pub added: Vec<LineKey>,
    /// Lines placed above lines already held (a lagging stream's).
    pub placed_before_end: usize,
    /// Lines dropped to stay within the bound (old ones held, or late ones older than all).
    pub dropped: usize,
}

/// The merged lines, ordered by [`LineKey`], at most `capacity` of them.
#[derive(Debug, Clone)]
pub struct MergedLog {
    lines: VecDeque<LogLine>,
    capacity: usize,
    dropped: u64,
    end_number: u64,
}

impl Default for MergedLog {
    fn default() -> Self {
        MergedLog::with_capacity(MAX_LINES)
    }
}

impl MergedLog {
    pub fn new() -> MergedLog {
        MergedLog::default()
    }

    /// A buffer of at most `capacity` lines (at least one).
    pub fn with_capacity(capacity: usize) -> MergedLog {
        let capacity = capacity.max(1);
        MergedLog {
            lines: VecDeque::with_capacity(capacity.min(4096)),
            capacity,
            dropped: 0,
            end_number: 0,
        }
    }

    /// Places `batch` (lines in any order, numbers unique) among the lines held.
    pub fn merge(&mut self, mut batch: Vec<LogLine>) -> MergeOutcome {
        let mut outcome = MergeOutcome::default();
        if let Some(highest) = batch.iter().map(|line| line.number).max() {
            self.end_number = self.end_number.max(highest.saturating_add(1));
        }
        // In a full buffer, a line older than all held would be dropped at once: skip the work.
        if let Some(oldest) = self
            .first_key()
            .filter(|_| self.lines.len() >= self.capacity)
        {
            let before = batch.len();
            batch.retain(|line| line.key() > oldest);
            outcome.dropped += before - batch.len();
        }
        batch.sort_unstable_by_key(LogLine::key);
        outcome.added = batch.iter().map(LogLine::key).collect();
        outcome.placed_before_end = merge_sorted(&mut self.lines, batch, LogLine::key);
        let excess = self.lines.len().saturating_sub(self.capacity);
        self.lines.drain(..excess);
        outcome.dropped += excess;
        self.dropped += outcome.dropped as u64;
        if excess > 0 {
            if let Some(first) = self.first_key() {
                outcome.added.retain(|key| *key >= first);
            }
        }
        outcome
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The line at `index` in time order (0 is the oldest held).
    pub fn get(&self, index: usize) -> Option<&LogLine> {
        self.lines.get(index)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &LogLine> + ExactSizeIterator {
        self.lines.iter()
    }

    /// Where the line of `key` is held, if it still is.
    pub fn index_of(&self, key: LineKey) -> Option<usize> {
        self.lines.binary_search_by_key(&key, LogLine::key).ok()
    }

    pub fn find(&self, key: LineKey) -> Option<&LogLine> {
        self.index_of(key).and_then(|index| self.lines.get(index))
    }

    /// The key of the oldest line held.
    pub fn first_key(&self) -> Option<LineKey> {
        self.lines.front().map(LogLine::key)
    }

    /// One past the highest line number merged: lines numbered from here arrived later.
    pub fn end_number(&self) -> u64 {
        self.end_number
    }

    /// Lines dropped to stay within the bound.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// "N older lines dropped", when any were.
    pub fn dropped_note(&self) -> Option<String> {
        dropped_note(self.dropped)
    }
}

/// Merges `batch` (sorted by `key`) into `held` (sorted by `key`): only the held items after
/// the batch's first are moved, so lines arriving in order cost no more than an append.
/// Returns how many of the batch went before an item already held.
pub(crate) fn merge_sorted<T, K: Ord>(
    held: &mut VecDeque<T>,
    batch: Vec<T>,
    key: impl Fn(&T) -> K,
) -> usize {
    let Some(first) = batch.first().map(&key) else {
        return 0;
    };
    let at = held.partition_point(|item| key(item) < first);
    let mut after = held.split_off(at).into_iter().peekable();
    let mut placed_before_end = 0;
    for item in batch {
        let item_key = key(&item);
        while let Some(earlier) = after.next_if(|held_item| key(held_item) < item_key) {
            held.push_back(earlier);
        }
        if after.peek().is_some() {
            placed_before_end += 1;
        }
        held.push_back(item);
    }
    held.extend(after);
    placed_before_end
}
