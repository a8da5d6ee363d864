//! Where streamed chunks become lines, before they are merged: each stream's chunks are split
//! into lines, the timestamp prefix read, the severity guessed, and the line numbered in
//! arrival order. Lines wait here until the view takes them (once per frame); when they
//! arrive faster than they are taken, only the newest `limit` wait and the rest are dropped
//! and counted, so a flood costs memory and time in proportion to what can be drawn.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use crate::object::pod_logs::{with_thousands, LineSplitter};
use crate::object::workload_logs::merge::LogLine;
use crate::object::workload_logs::severity::{detect_severity, Severity};
use crate::object::workload_logs::streams::StreamKey;
use crate::object::workload_logs::timestamp::{split_timestamp, LogTime};

/// Lines waiting to be merged at most, unless asked otherwise.
pub const DEFAULT_PENDING_LIMIT: usize = 20_000;

#[derive(Debug, Clone)]
struct StreamState {
    key: Arc<StreamKey>,
    splitter: LineSplitter,
    last_time: Option<LogTime>,
    last_severity: Severity,
}

impl StreamState {
    fn new(key: &StreamKey) -> StreamState {
        StreamState {
            key: Arc::new(key.clone()),
            splitter: LineSplitter::new(),
            last_time: None,
            last_severity: Severity::Unknown,
        }
    }

    /// The line numbered `number` from `raw`, as streamed (`<time> <message>`).
    fn line(&mut self, mut raw: String, number: u64, newest_time: LogTime) -> LogLine {
        let (time, message) = split_timestamp(&raw);
        let prefix_len = raw.len() - message.len();
        let order_time = time.or(self.last_time).unwrap_or(newest_time);
        // An indented line continues the one before it (a stack trace): the same severity.
        let severity = if message.starts_with([' ', '\t']) {
            self.last_severity
        } else {
            detect_severity(message)
        };
        self.last_time = Some(order_time);
        self.last_severity = severity;
        raw.drain(..prefix_len);
        LogLine {
            number,
            stream: Arc::clone(&self.key),
            time,
            order_time,
            text: raw,
            severity,
        }
    }
}

/// The streams' lines on their way to the merged log.
#[derive(Debug, Clone)]
pub struct LineIntake {
    streams: BTreeMap<StreamKey, StreamState>,
    waiting: Waiting,
}

/// The lines waiting to be taken, and the numbering and times they were given.
#[derive(Debug, Clone)]
struct Waiting {
    lines: VecDeque<LogLine>,
    limit: usize,
    dropped: u64,
    next_number: u64,
    /// The latest time given to a line: where a line with no time to go by is placed.
    newest_time: LogTime,
}

impl Waiting {
    fn push(&mut self, line: LogLine) {
        self.next_number += 1;
        self.newest_time = self.newest_time.max(line.order_time);
        if self.lines.len() == self.limit {
            self.lines.pop_front();
            self.dropped += 1;
        }
        self.lines.push_back(line);
    }
}

impl Default for LineIntake {
    fn default() -> Self {
        LineIntake::with_limit(DEFAULT_PENDING_LIMIT)
    }
}

impl LineIntake {
    pub fn new() -> LineIntake {
        LineIntake::default()
    }

    /// At most `limit` lines wait (at least one).
    pub fn with_limit(limit: usize) -> LineIntake {
        LineIntake {
            streams: BTreeMap::new(),
            waiting: Waiting {
                lines: VecDeque::new(),
                limit: limit.max(1),
                dropped: 0,
                next_number: 0,
                newest_time: LogTime::MIN,
            },
        }
    }

    /// A new response for `key` begins: an unfinished line of an earlier one is forgotten.
    pub fn start_stream(&mut self, key: &StreamKey) {
        if let Some(stream) = self.streams.get_mut(key) {
            stream.splitter.clear();
        }
    }

    /// Adds a chunk of `key`'s response; returns the lines it completed.
    pub fn push_chunk(&mut self, key: &StreamKey, chunk: &str) -> usize {
        let stream = (self.streams.entry(key.clone())).or_insert_with(|| StreamState::new(key));
        let mut raw_lines = Vec::new();
        stream.splitter.push(chunk, |line| raw_lines.push(line));
        let count = raw_lines.len();
        for raw in raw_lines {
            let line = stream.line(raw, self.waiting.next_number, self.waiting.newest_time);
            self.waiting.push(line);
        }
        count
    }

    /// `key`'s response ended: an unfinished last line becomes a line.
    pub fn finish_stream(&mut self, key: &StreamKey) -> usize {
        let Some(stream) = self.streams.get_mut(key) else {
            return 0;
        };
        let Some(raw) = stream.splitter.finish() else {
            return 0;
        };
        let line = stream.line(raw, self.waiting.next_number, self.waiting.newest_time);
        self.waiting.push(line);
        1
    }

    /// Takes up to `max` waiting lines, in arrival order, to be merged.
    pub fn take_pending(&mut self, max: usize) -> Vec<LogLine> {
        let count = max.min(self.waiting.lines.len());
        self.waiting.lines.drain(..count).collect()
    }

    /// Lines waiting.
    pub fn pending_len(&self) -> usize {
        self.waiting.lines.len()
    }

    /// Lines dropped because they arrived faster than they were taken.
    pub fn dropped(&self) -> u64 {
        self.waiting.dropped
    }

    /// "1,234 lines dropped: arriving faster than they can be drawn", when any were.
    pub fn dropped_note(&self) -> Option<String> {
        let lines = if self.waiting.dropped == 1 {
            "line"
        } else {
            "lines"
        };
        (self.waiting.dropped > 0).then(|| {
            format!(
                "{} {lines} dropped: arriving faster than they can be drawn",
                with_thousands(self.waiting.dropped)
            )
        })
    }
}
