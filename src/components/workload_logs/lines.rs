//! A workload's log lines in view, and the list of its streams with their state.

use leptos::prelude::*;

use crate::components::log_following::marked_pieces;

use crate::model::object::workload_logs::{Severity, StreamKey, TagPalette, WorkloadLog};
use crate::state::workload_logs::StreamRow;

/// One line in view, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct VisibleLine {
    /// The line's arrival number and the filter's text: what makes it another row.
    pub(super) key: (u64, String),
    pub(super) tag: String,
    pub(super) full_name: String,
    pub(super) colour: u8,
    pub(super) time: String,
    pub(super) severity: Severity,
    /// Plain and matching pieces.
    pub(super) pieces: Vec<(String, bool)>,
}

/// The shown lines `start..end` of `log`.
pub(super) fn visible_lines(
    log: StoredValue<WorkloadLog, LocalStorage>,
    tags: StoredValue<TagPalette, LocalStorage>,
    (start, end): (usize, usize),
) -> Vec<VisibleLine> {
    // Lines first, tags after: one stored value is never read inside another's closure.
    let lines: Vec<(StreamKey, VisibleLine)> = log
        .try_with_value(|log| {
            let filter = log.view().filter();
            let query = filter
                .text
                .as_ref()
                .map(|t| t.query().to_string())
                .unwrap_or_default();
            (start..end)
                .filter_map(|index| {
                    let line = log.shown_line(index)?;
                    let shown = VisibleLine {
                        key: (line.number, query.clone()),
                        tag: line.stream.pod.clone(),
                        full_name: line.stream.to_string(),
                        colour: 0,
                        time: line.time.map(|t| t.time_of_day()).unwrap_or_default(),
                        severity: line.severity,
                        pieces: filter
                            .segments(&line.text)
                            .into_iter()
                            .map(|piece| (piece.text.to_string(), piece.is_match))
                            .collect(),
                    };
                    Some((StreamKey::clone(&line.stream), shown))
                })
                .collect()
        })
        .unwrap_or_default();
    tags.try_with_value(|tags| {
        lines
            .into_iter()
            .map(|(stream, mut shown)| {
                if let Some(tag) = tags.get(&stream) {
                    shown.tag = tag.short.clone();
                    shown.colour = tag.colour;
                }
                shown
            })
            .collect()
    })
    .unwrap_or_default()
}

/// One line in view: its stream's tag (the full name on hover), its time and its text with
/// the filter's matches marked.
pub(super) fn line_view(line: VisibleLine) -> impl IntoView {
    let pieces = marked_pieces(line.pieces);
    view! {
        <div class="pod-log-line workload-log-line" data-severity=line.severity.label()>
            <span
                class=format!("workload-log-tag tag-colour-{}", line.colour)
                title=line.full_name.clone()
                data-stream=line.full_name
            >
                {line.tag}
            </span>
            <span class="workload-log-time">{line.time}</span>
            <span class="pod-log-text">{pieces}</span>
        </div>
    }
}

/// The streams, each with its tag and what became of it ("joined", "ended: the pod went
/// away", "refused: …").
#[component]
pub(super) fn StreamList(streams: ReadSignal<Vec<StreamRow>>) -> impl IntoView {
    view! {
        <details class="workload-log-streams">
            <summary>{move || format!("{} streams", streams.with(Vec::len))}</summary>
            <ul>
                <For
                    each=move || streams.get()
                    key=|row| (row.key.clone(), row.sentence.clone())
                    children=|row| view! {
                        <li class="workload-log-stream" data-live=row.live.to_string() data-stream=row.key.to_string()>
                            <span class=format!("workload-log-tag tag-colour-{}", row.tag.colour)>{row.tag.short}</span>
                            " "
                            {row.sentence}
                        </li>
                    }
                />
            </ul>
        </details>
    }
}
