//! The Logs tab of a pod: one container's log, streamed while it is printed (`follow`), with
//! the options of `kubectl logs` (container, timestamps, previous, tail), search and download.
//!
//! Cheap with 50,000 lines: chunks go into a bounded [`LogBuffer`] as they arrive, but the view
//! catches up once per animation frame, and only the lines in view (plus a margin) exist in the
//! DOM, as in the virtual table. Lines are text nodes, never parsed as HTML: logs carry markup.
//!
//! The view sticks to the newest line until the user scrolls up; scrolling back to the bottom
//! or "Follow" sticks again. Every option change starts a new stream and aborts the old one;
//! leaving the tab aborts it too.
//!
//! Its options bar and line drawing are `options.rs` and `lines.rs`; following the newest
//! line is shared with the workload logs (`components::log_following`).

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use serde_json::Value;

use crate::browser::download_text;
use crate::components::log_following::{follow_button, use_following};
use crate::components::windowing::{use_windowing, UseWindowingOptions, UseWindowingReturn};
use crate::model::object::pod_logs::{
    default_container, download_file_name, dropped_note, log_containers, segments, with_thousands,
    LogOptions, MAX_LINES,
};
use crate::state::logs::{use_log_search, use_log_stream, LogLines, LogStreamStatus};

/// Height of one log line in pixels; the stylesheet sets the same (`.pod-log-line`).
pub const LINE_HEIGHT: f64 = 18.0;

/// The buffer as the view last drew it (updated once per frame).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Drawn {
    lines: usize,
    dropped: u64,
    epoch: u64,
}

mod lines;
mod options;

use lines::{line_view, LogStatus, VisibleLine};
use options::LogOptionsBar;

#[component]
pub fn PodLogs(
    /// The pod's API path (`/api/v1/namespaces/default/pods/web-1`); its log is `{path}/log`.
    #[prop(into)]
    pod_path: String,
    /// The pod as the page loaded it: its name and containers.
    pod: Value,
) -> impl IntoView {
    let pod_name = pod["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let containers = log_containers(&pod);
    let options = RwSignal::new(LogOptions {
        container: default_container(&pod, &containers),
        ..LogOptions::default()
    });

    let log = use_log_stream(pod_path, options.into());
    let lines = log.lines;
    let status = log.status;
    let search = use_log_search(lines);

    let drawn = RwSignal::new(Drawn::default());
    let download_error = RwSignal::new(None::<String>);

    let scroller = NodeRef::<html::Div>::new();
    let sizer = NodeRef::<html::Div>::new();
    let window = use_windowing(UseWindowingOptions {
        scroller,
        row_height: LINE_HEIGHT,
        count: Signal::derive(move || drawn.get().lines),
        initial_viewport: 400.0,
    });
    let UseWindowingReturn {
        scroll_top, range, ..
    } = window;
    let follow = use_following(scroller, scroll_top, LINE_HEIGHT);
    let following = follow.following;

    // Once per frame: size the scroll area for the lines held, keep the view at the bottom
    // (following) or on the same lines (older ones dropped above), then redraw what is in view.
    let frame_requested = StoredValue::new_local(false);
    let draw_frame = move || {
        frame_requested.try_set_value(false);
        search.sync();
        let Some(now) = lines.try_with_value(|l| Drawn {
            lines: l.buffer.len(),
            dropped: l.buffer.dropped(),
            epoch: l.buffer.epoch(),
        }) else {
            // The tab went away before this frame.
            return;
        };
        let before = drawn.get_untracked();
        let dropped_since = if before.epoch == now.epoch {
            now.dropped.saturating_sub(before.dropped)
        } else {
            0
        };
        if let (Some(el), Some(sizer)) = (scroller.get_untracked(), sizer.get_untracked()) {
            // Set here, not through a reactive style, so the scroll below sees the new height.
            web_sys::HtmlElement::style(&sizer)
                .set_property("height", &format!("{}px", now.lines as f64 * LINE_HEIGHT))
                .ok();
            if following.get_untracked() {
                el.set_scroll_top(el.scroll_height());
            } else if dropped_since > 0 {
                let shift = (dropped_since as f64 * LINE_HEIGHT) as i32;
                el.set_scroll_top((el.scroll_top() - shift).max(0));
            }
            window.measure(&el);
        }
        drawn.set(now);
    };
    // However many chunks arrived, lines are drawn once per frame.
    Effect::new(move |_| {
        log.changed.track();
        if frame_requested.try_with_value(|requested| !*requested) == Some(true) {
            frame_requested.set_value(true);
            request_animation_frame(draw_frame);
        }
    });

    let note_scroll_position = move || follow.note_scroll_position.run(());
    let on_scroll = move |_| note_scroll_position();

    // Search: highlight, count, and step through matches (which stops following there).
    let reveal = move |number: Option<u64>| {
        let Some(index) = number.and_then(|n| lines.with_value(|l| l.buffer.index_of(n))) else {
            return;
        };
        if let Some(el) = scroller.get_untracked() {
            let top = index as f64 * LINE_HEIGHT;
            let centred = top - (f64::from(el.client_height()) - LINE_HEIGHT) / 2.0;
            el.set_scroll_top(centred.max(0.0) as i32);
        }
        // Away from the bottom, following stops here (the next frame would scroll away from
        // the match); a match near the end keeps it.
        note_scroll_position();
    };
    let next_match = move || reveal(search.next());
    let previous_match = move || reveal(search.previous());
    let on_search_input = move |event: ev::Event| search.set_query(&event_target_value(&event));
    let on_search_key = move |event: ev::KeyboardEvent| {
        if event.key() == "Enter" {
            event.prevent_default();
            if event.shift_key() {
                previous_match();
            } else {
                next_match();
            }
        }
    };

    let download = {
        let pod_name = pod_name.clone();
        move |_| {
            let text = lines.with_value(|l| l.buffer.text());
            let container = options.with_untracked(|o| o.container.clone());
            let name = download_file_name(&pod_name, container.as_deref());
            let failed = download_text(&text, &name)
                .err()
                .map(|e| format!("The download failed: {e:?}"));
            download_error.set(failed);
        }
    };

    let visible_lines = move || {
        let (start, end) = range.get();
        let version = search.version.get();
        drawn.track();
        lines
            .try_with_value(|LogLines { buffer, search }| {
                (start..end)
                    .filter_map(|index| {
                        let text = buffer.line(index)?;
                        let number = buffer.number_of(index);
                        let current = search.current() == Some(number);
                        Some(VisibleLine {
                            key: (buffer.epoch(), number, version, current),
                            number,
                            current,
                            pieces: segments(text, search.query())
                                .into_iter()
                                .map(|piece| (piece.text.to_string(), piece.is_match))
                                .collect(),
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };

    let error_message = move || match status.get() {
        LogStreamStatus::Failed(error) => Some(view! {
            <div class="error" role="alert">
                <strong>"The log could not be read. "</strong>
                {error.to_string()}
            </div>
        }),
        _ => None,
    };
    let empty_note = move || {
        let done = matches!(status.get(), LogStreamStatus::Ended);
        (done && drawn.get().lines == 0).then(|| view! { <p class="muted">"The log is empty."</p> })
    };

    view! {
        <section class="pod-logs" aria-label="Pod logs">
            <LogOptionsBar options containers />
            <div class="pod-logs-toolbar">
                <input
                    type="search"
                    placeholder="Search the log"
                    aria-label="Search the log"
                    on:input=on_search_input
                    on:keydown=on_search_key
                />
                <button type="button" aria-label="Previous match" on:click=move |_| previous_match()>
                    "↑"
                </button>
                <button type="button" aria-label="Next match" on:click=move |_| next_match()>
                    "↓"
                </button>
                <span class="pod-logs-matches" aria-live="polite">{move || search.summary.get()}</span>
                <span class="pod-logs-spacer"></span>
                <span class="pod-logs-status">
                    <LogStatus
                        status=status
                        lines=Signal::derive(move || drawn.get().lines)
                        follow=Signal::derive(move || options.with(|o| o.follow))
                        reconnect=log.reconnect
                    />
                </span>
                <button type="button" class="pod-logs-download" on:click=download>"Download"</button>
            </div>
            {error_message}
            {move || download_error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || dropped_note(drawn.get().dropped).map(|note| view! {
                <p class="pod-logs-dropped">
                    {format!(
                        "{note}: the view keeps the newest {} lines.",
                        with_thousands(MAX_LINES as u64)
                    )}
                </p>
            })}
            {empty_note}
            <div class="pod-logs-frame">
                <div
                    class="pod-logs-scroll"
                    node_ref=scroller
                    tabindex="0"
                    role="log"
                    aria-live="off"
                    aria-label="Log lines"
                    on:scroll=on_scroll
                >
                    <div class="pod-logs-sizer" node_ref=sizer>
                        <div
                            class="pod-logs-window"
                            style:transform=move || {
                                format!("translateY({}px)", range.get().0 as f64 * LINE_HEIGHT)
                            }
                        >
                            <For
                                each=visible_lines
                                key=|line| line.key
                                children=line_view
                            />
                        </div>
                    </div>
                </div>
                {follow_button(follow)}
            </div>
        </section>
    }
}
