//! The lines a view shows: those of the merged log its filter passes, kept in time order as
//! lines merge (only the new ones are checked) and as old ones drop out, and whether it
//! follows the newest or is paused.
//!
//! Paused, the view keeps a frozen end number: lines that arrived before the pause stay
//! (while the buffer holds them), lines that arrive after wait, counted, until it follows
//! again. The buffer itself keeps taking the newest lines.

use std::collections::VecDeque;

use crate::object::pod_logs::with_thousands;
use crate::object::workload_logs::filter::LineFilter;
use crate::object::workload_logs::merge::{
    merge_sorted, LineKey, LogLine, MergeOutcome, MergedLog,
};

/// How a sync moved the lines shown, for a view keeping its scroll place: rows left from
/// the start, and rows added, some above the last row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ViewChange {
    pub removed_from_start: usize,
    pub added: usize,
    /// Of `added`, those placed above a row already shown (a lagging stream's).
    pub placed_before_end: usize,
}

/// The shown lines of a [`MergedLog`].
#[derive(Debug, Clone, Default)]
pub struct LogView {
    filter: LineFilter,
    /// The shown lines' keys, ascending.
    keys: VecDeque<LineKey>,
    /// Paused: lines numbered from here on wait.
    frozen_end: Option<u64>,
    /// Lines the filter passes that wait for the view to follow again.
    waiting: u64,
}

impl LogView {
    pub fn new(filter: LineFilter) -> LogView {
        LogView {
            filter,
            ..LogView::default()
        }
    }

    pub fn filter(&self) -> &LineFilter {
        &self.filter
    }

    /// Shows what `filter` passes, from every line held.
    pub fn set_filter(&mut self, filter: LineFilter, log: &MergedLog) {
        self.filter = filter;
        self.rebuild(log);
    }

    /// Checks every line held again.
    pub fn rebuild(&mut self, log: &MergedLog) {
        self.keys.clear();
        self.waiting = 0;
        for line in log.iter().filter(|line| self.filter.matches(line)) {
            if self.is_frozen_out(line.number) {
                self.waiting += 1;
            } else {
                self.keys.push_back(line.key());
            }
        }
    }

    /// Follows a merge into `log`: lines dropped from it leave, new lines the filter passes
    /// take their places.
    pub fn sync(&mut self, log: &MergedLog, outcome: &MergeOutcome) -> ViewChange {
        let mut change = ViewChange::default();
        let first = log.first_key();
        while self
            .keys
            .front()
            .is_some_and(|key| first.is_none_or(|first| *key < first))
        {
            self.keys.pop_front();
            change.removed_from_start += 1;
        }
        let mut shown = Vec::new();
        for key in &outcome.added {
            if !log.find(*key).is_some_and(|line| self.filter.matches(line)) {
                continue;
            }
            if self.is_frozen_out(key.number()) {
                self.waiting += 1;
            } else {
                shown.push(*key);
            }
        }
        change.added = shown.len();
        change.placed_before_end = merge_sorted(&mut self.keys, shown, |key| *key);
        change
    }

    fn is_frozen_out(&self, number: u64) -> bool {
        self.frozen_end.is_some_and(|end| number >= end)
    }

    /// Lines shown.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key of the `index`th line shown (0 is the oldest).
    pub fn key(&self, index: usize) -> Option<LineKey> {
        self.keys.get(index).copied()
    }

    /// The `index`th line shown, read from `log`.
    pub fn line<'a>(&self, index: usize, log: &'a MergedLog) -> Option<&'a LogLine> {
        log.find(self.key(index)?)
    }

    /// The lines shown, oldest first.
    pub fn lines<'a>(&'a self, log: &'a MergedLog) -> impl Iterator<Item = &'a LogLine> + 'a {
        self.keys.iter().filter_map(|key| log.find(*key))
    }

    /// Where the line numbered `number` is shown, if it is (to keep a scroll position).
    pub fn index_of_number(&self, number: u64) -> Option<usize> {
        self.keys.iter().position(|key| key.number() == number)
    }

    pub fn is_following(&self) -> bool {
        self.frozen_end.is_none()
    }

    /// Stops taking new lines in; what `log` has merged so far stays.
    pub fn pause(&mut self, log: &MergedLog) {
        if self.frozen_end.is_none() {
            self.frozen_end = Some(log.end_number());
            self.waiting = 0;
        }
    }

    /// Follows the newest again, showing what waited.
    pub fn follow(&mut self, log: &MergedLog) {
        if self.frozen_end.take().is_some() {
            self.rebuild(log);
        }
    }

    /// Lines that arrived while paused (some may have been dropped since).
    pub fn waiting(&self) -> u64 {
        self.waiting
    }

    /// "12 new lines" while paused with lines waiting.
    pub fn waiting_note(&self) -> Option<String> {
        match self.waiting {
            0 => None,
            1 => Some("1 new line".to_string()),
            n => Some(format!("{} new lines", with_thousands(n))),
        }
    }

    /// "1,234 matching lines" with a filter, "1,234 lines" without.
    pub fn count_note(&self) -> String {
        let count = with_thousands(self.keys.len() as u64);
        let noun = if self.keys.len() == 1 {
            "line"
        } else {
            "lines"
        };
        if self.filter.is_empty() {
            format!("{count} {noun}")
        } else {
            format!("{count} matching {noun}")
        }
    }
}
