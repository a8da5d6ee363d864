//! The pod logs' lines in view and the stream's state.

use leptos::prelude::*;

use crate::components::log_following::marked_pieces;
use crate::model::object::pod_logs::with_thousands;
use crate::state::logs::LogStreamStatus;

/// One line in view, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct VisibleLine {
    /// Stream-wide line number (0-based), epoch and search state: what makes it another row.
    pub(super) key: (u64, u64, u64, bool),
    pub(super) number: u64,
    pub(super) current: bool,
    /// Plain and matching pieces.
    pub(super) pieces: Vec<(String, bool)>,
}

/// One line in view, its matches marked.
pub(super) fn line_view(line: VisibleLine) -> impl IntoView {
    let pieces = marked_pieces(line.pieces);
    view! {
        <div
            class="pod-log-line"
            class:current=line.current
            data-line=line.number + 1
        >
            <span class="pod-log-number" aria-hidden="true">
                {line.number + 1}
            </span>
            <span class="pod-log-text">{pieces}</span>
        </div>
    }
}

/// The stream's state beside the toolbar: connecting, streaming (how many lines), or ended
/// or failed with a way to read it again.
#[component]
pub(super) fn LogStatus(
    status: ReadSignal<LogStreamStatus>,
    #[prop(into)] lines: Signal<usize>,
    #[prop(into)] follow: Signal<bool>,
    reconnect: Callback<()>,
) -> impl IntoView {
    move || {
        let lines = lines.get();
        let count = format!("{} lines", with_thousands(lines as u64));
        match status.get() {
            LogStreamStatus::Connecting => view! {
                <span class="pod-logs-state">"Connecting…"</span>
            }
            .into_any(),
            LogStreamStatus::Streaming => view! {
                <span class="pod-logs-state live">
                    {if follow.get() { "Streaming" } else { "Loading" }}
                </span>
                <span>{count}</span>
            }
            .into_any(),
            ended => {
                // The error itself is said above the lines (`error_message`).
                let (class, text) = match ended {
                    LogStreamStatus::Failed(_) => ("pod-logs-state failed", "Failed."),
                    _ => ("pod-logs-state ended", "Stream ended."),
                };
                view! {
                    <span class=class>{text}</span>
                    <span>{count}</span>
                    <button type="button" on:click=move |_| reconnect.run(())>
                        "Reconnect"
                    </button>
                }
                .into_any()
            }
        }
    }
}
