//! One workload logs view's lines, from chunks to what is shown: the intake (lines waiting,
//! bounded), the merged log (bounded, by time) and the view (filter, follow or paused). The
//! page feeds chunks as they come and calls [`WorkloadLog::merge_pending`] once per frame.

use crate::object::pod_logs::MAX_LINES;
use crate::object::workload_logs::download::download_text;
use crate::object::workload_logs::filter::LineFilter;
use crate::object::workload_logs::intake::{LineIntake, DEFAULT_PENDING_LIMIT};
use crate::object::workload_logs::merge::{LogLine, MergeOutcome, MergedLog};
use crate::object::workload_logs::streams::StreamKey;
use crate::object::workload_logs::view::{LogView, ViewChange};

/// Lines merged per frame unless asked otherwise: enough for thousands of lines a second,
/// few enough to leave the frame time to draw.
pub const DEFAULT_LINES_PER_FRAME: usize = 2_000;

/// What one frame's merge did: to the lines held, and to the lines shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameChange {
    pub merged: MergeOutcome,
    pub shown: ViewChange,
}

impl FrameChange {
    /// Nothing to draw again.
    pub fn is_empty(&self) -> bool {
        self.merged.added.is_empty() && self.merged.dropped == 0
    }
}

/// What a download holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadScope {
    /// Every line held.
    All,
    /// The lines the view shows (filtered, and as paused).
    Shown,
}

/// The lines of one workload logs view.
#[derive(Debug, Clone)]
pub struct WorkloadLog {
    intake: LineIntake,
    merged: MergedLog,
    view: LogView,
}

impl Default for WorkloadLog {
    fn default() -> Self {
        WorkloadLog::with_limits(MAX_LINES, DEFAULT_PENDING_LIMIT)
    }
}

impl WorkloadLog {
    pub fn new() -> WorkloadLog {
        WorkloadLog::default()
    }

    /// At most `capacity` lines held and `pending_limit` waiting to be merged.
    pub fn with_limits(capacity: usize, pending_limit: usize) -> WorkloadLog {
        WorkloadLog {
            intake: LineIntake::with_limit(pending_limit),
            merged: MergedLog::with_capacity(capacity),
            view: LogView::default(),
        }
    }

    /// A response for `key` begins (see [`LineIntake::start_stream`]).
    pub fn start_stream(&mut self, key: &StreamKey) {
        self.intake.start_stream(key);
    }

    /// A chunk of `key`'s response arrived; its lines wait for the next merge.
    pub fn push_chunk(&mut self, key: &StreamKey, chunk: &str) -> usize {
        self.intake.push_chunk(key, chunk)
    }

    /// `key`'s response ended.
    pub fn finish_stream(&mut self, key: &StreamKey) -> usize {
        self.intake.finish_stream(key)
    }

    /// Merges up to `max_lines` waiting lines and brings the view along; once per frame.
    pub fn merge_pending(&mut self, max_lines: usize) -> FrameChange {
        let batch = self.intake.take_pending(max_lines);
        if batch.is_empty() {
            return FrameChange::default();
        }
        let merged = self.merged.merge(batch);
        let shown = self.view.sync(&self.merged, &merged);
        FrameChange { merged, shown }
    }

    pub fn set_filter(&mut self, filter: LineFilter) {
        self.view.set_filter(filter, &self.merged);
    }

    pub fn pause(&mut self) {
        self.view.pause(&self.merged);
    }

    pub fn follow(&mut self) {
        self.view.follow(&self.merged);
    }

    pub fn intake(&self) -> &LineIntake {
        &self.intake
    }

    pub fn merged(&self) -> &MergedLog {
        &self.merged
    }

    pub fn view(&self) -> &LogView {
        &self.view
    }

    /// The `index`th line shown.
    pub fn shown_line(&self, index: usize) -> Option<&LogLine> {
        self.view.line(index, &self.merged)
    }

    /// What was lost, for the status line: older lines dropped from the buffer, and lines
    /// dropped arriving faster than they could be drawn.
    pub fn notes(&self) -> Vec<String> {
        [self.merged.dropped_note(), self.intake.dropped_note()]
            .into_iter()
            .flatten()
            .collect()
    }

    /// The text of a download (see [`download_text`]).
    pub fn download(&self, scope: DownloadScope) -> String {
        match scope {
            DownloadScope::All => download_text(self.merged.iter()),
            DownloadScope::Shown => download_text(self.view.lines(&self.merged)),
        }
    }
}
