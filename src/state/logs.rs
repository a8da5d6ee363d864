//! A pod's log as the Logs tab reads it: [`use_log_stream`] streams one container's log
//! (`kubectl logs [-f]`) into a bounded buffer, one stream at a time; [`use_log_search`] finds
//! and steps through matches in what is held.

use std::cell::Cell;
use std::ops::ControlFlow;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::stream::stream_text;
use crate::api::{Abort, ApiError};
use crate::model::object::pod_logs::{log_request, LogBuffer, LogOptions, LogSearch};

/// Where the current stream is.
#[derive(Debug, Clone, PartialEq)]
pub enum LogStreamStatus {
    Connecting,
    Streaming,
    Ended,
    /// The lines already shown stay; the error is said above them.
    Failed(ApiError),
}

/// The lines of the current stream and the search over them, in one stored value: the
/// reactive arena has one lock, so a view must never reach one stored value from inside
/// another's closure (nor a signal from inside an update).
#[derive(Default)]
pub struct LogLines {
    pub buffer: LogBuffer,
    pub search: LogSearch,
}

/// What [`use_log_stream`] gives the view.
#[derive(Clone, Copy)]
pub struct UseLogStream {
    /// The lines held (the newest [`crate::model::object::pod_logs::MAX_LINES`]) and their search.
    pub lines: StoredValue<LogLines, LocalStorage>,
    pub status: ReadSignal<LogStreamStatus>,
    /// Reads the log again with the same options (after it ended or failed).
    pub reconnect: Callback<()>,
    /// Notified when lines arrived or were cleared: the view draws them at its next frame.
    pub changed: Trigger,
}

/// Streams `{pod_path}/log` with `options`, again whenever they change (aborting the old
/// stream; leaving the view aborts it too).
pub fn use_log_stream(pod_path: String, options: Signal<LogOptions>) -> UseLogStream {
    let lines = StoredValue::new_local(LogLines::default());
    let status = RwSignal::new(LogStreamStatus::Connecting);
    // Bumped by "Reconnect": the same options again.
    let reconnects = RwSignal::new(0_u64);
    let changed = Trigger::new();
    let on_lines = move || changed.notify();

    // One stream at a time: a new one aborts the old, and callbacks of an old one that were
    // already under way see that they are stale (generation) and do nothing.
    let generation = StoredValue::new_local(0_u64);
    let abort = StoredValue::new_local(None::<Abort>);
    on_cleanup(move || {
        if let Some(Some(running)) = abort.try_update_value(Option::take) {
            running.abort();
        }
    });
    let start = move |opts: LogOptions, keep_lines: bool| {
        let Some(this) = generation.try_update_value(|g| {
            *g += 1;
            *g
        }) else {
            return;
        };
        let controller = Abort::new();
        let signal = controller.signal();
        if let Some(Some(old)) = abort.try_update_value(|slot| slot.replace(controller)) {
            old.abort();
        }
        if !keep_lines {
            // Other options: the old lines belong to something else.
            lines.update_value(|l| l.buffer.clear());
            on_lines();
        }
        status.set(LogStreamStatus::Connecting);
        let request = log_request(&pod_path, &opts);
        spawn_local(async move {
            let current = move || generation.try_with_value(|g| *g == this) == Some(true);
            // On reconnect the old lines stay until the new stream answers: if it fails
            // (the pod is gone), they are still there to read.
            let stale = Cell::new(keep_lines);
            let replace_stale = || {
                if stale.replace(false) {
                    lines.try_update_value(|l| l.buffer.clear());
                }
            };
            let result = stream_text(&request, signal.as_ref(), |chunk| {
                if !current() {
                    return ControlFlow::Break(());
                }
                replace_stale();
                if status.get_untracked() != LogStreamStatus::Streaming {
                    status.set(LogStreamStatus::Streaming);
                }
                lines.try_update_value(|l| l.buffer.push_chunk(chunk));
                on_lines();
                ControlFlow::Continue(())
            })
            .await;
            if !current() {
                return;
            }
            match result {
                Ok(_) => {
                    replace_stale();
                    status.try_set(LogStreamStatus::Ended);
                }
                Err(ApiError::Aborted) => return,
                Err(error) => {
                    status.try_set(LogStreamStatus::Failed(error));
                }
            }
            lines.try_update_value(|l| l.buffer.finish());
            on_lines();
        });
    };
    Effect::new(move |previous: Option<LogOptions>| {
        let opts = options.get();
        reconnects.track();
        let same_options = previous.as_ref() == Some(&opts);
        start(opts.clone(), same_options);
        opts
    });
    UseLogStream {
        lines,
        status: status.read_only(),
        reconnect: Callback::new(move |()| reconnects.update(|n| *n += 1)),
        changed,
    }
}

/// What [`use_log_search`] gives the view.
#[derive(Clone, Copy)]
pub struct UseLogSearch {
    /// "3 of 12", "No matches", or empty without a query.
    pub summary: ReadSignal<String>,
    /// Changes when highlights change (a new query, another current match).
    pub version: ReadSignal<u64>,
    lines: StoredValue<LogLines, LocalStorage>,
    summary_signal: RwSignal<String>,
    version_signal: RwSignal<u64>,
}

impl UseLogSearch {
    /// Searches for `query` in the lines held.
    pub fn set_query(&self, query: &str) {
        self.lines
            .update_value(|l| l.search.set_query(query, &l.buffer));
        self.refresh();
    }

    /// The next match (wrapping), made current: its line number.
    pub fn next(&self) -> Option<u64> {
        let found = self
            .lines
            .try_update_value(|l| l.search.next_match())
            .flatten();
        self.refresh();
        found
    }

    /// The previous match (wrapping), made current: its line number.
    pub fn previous(&self) -> Option<u64> {
        let found = self
            .lines
            .try_update_value(|l| l.search.previous_match())
            .flatten();
        self.refresh();
        found
    }

    /// Takes in the lines that arrived or went since the last call.
    pub fn sync(&self) {
        let Some(summary) = self.lines.try_update_value(|l| {
            l.search.sync(&l.buffer);
            l.search.summary()
        }) else {
            // The view went away.
            return;
        };
        if self.summary_signal.get_untracked() != summary {
            self.summary_signal.set(summary);
        }
    }

    fn refresh(&self) {
        if let Some(summary) = self.lines.try_with_value(|l| l.search.summary()) {
            self.summary_signal.set(summary);
        }
        self.version_signal.update(|v| *v += 1);
    }
}

/// Search over `lines`: highlights, a count, and stepping through matches.
pub fn use_log_search(lines: StoredValue<LogLines, LocalStorage>) -> UseLogSearch {
    let summary_signal = RwSignal::new(String::new());
    let version_signal = RwSignal::new(0_u64);
    UseLogSearch {
        summary: summary_signal.read_only(),
        version: version_signal.read_only(),
        lines,
        summary_signal,
        version_signal,
    }
}
