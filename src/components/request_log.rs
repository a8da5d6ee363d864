//! The request log panel: every API call the dashboard made, copyable as curl.

use leptos::prelude::*;

use crate::components::explorer::{page_origin, Copyable};
use crate::model::api::endpoints::shell_quote;
use crate::state::request_log::Transport;
use crate::state::request_log::{RequestLogView, RequestRecord};

fn curl_for(record: &RequestRecord, origin: &str) -> String {
    let url = format!("{origin}{}", record.path);
    let mut command = String::from("curl -s");
    if record.watch.is_some() {
        command.push_str(" -N");
    } else if record.accept != "application/json" {
        command.push_str(&format!(
            " -H {}",
            shell_quote(&format!("Accept: {}", record.accept))
        ));
    }
    if record.method != "GET" {
        command.push_str(&format!(" -X {}", record.method));
    }
    if let Some(content_type) = &record.content_type {
        // The body is not kept in the log; the command reads it from a file of that name.
        command.push_str(&format!(
            " -H {} --data-binary @body",
            shell_quote(&format!("Content-Type: {content_type}"))
        ));
    }
    command.push(' ');
    command.push_str(&shell_quote(&url));
    command
}

/// One request as a row of the log.
fn log_row(record: RequestRecord, origin: &str) -> impl IntoView {
    let status = match (record.status, &record.error) {
        (Some(code), _) => code.to_string(),
        (None, Some(_)) => "failed".into(),
        // A WebSocket watch has no status line until it opens.
        (None, None) if record.watch.is_some() => "ws".into(),
        (None, None) => "…".into(),
    };
    let ok = record.status.is_some_and(|c| c < 400)
        || (record.watch.is_some() && record.error.is_none());
    let timing = match record.watch {
        Some(w) => format!(
            "{} · {} {}{}",
            if matches!(record.transport, Transport::Stream | Transport::Multiplexed) {
                "stream"
            } else {
                "watch"
            },
            w.events,
            if matches!(record.transport, Transport::Stream | Transport::Multiplexed) {
                "chunks"
            } else {
                "events"
            },
            if w.open { " · open" } else { "" }
        ),
        None => format!("{:.0} ms", record.duration_ms),
    };
    let curl = curl_for(&record, origin);
    view! {
        <tr class="log-row">
            <td><span class=format!("method {}", record.method)>{record.method.clone()}</span></td>
            <td class=if ok { "status-ok" } else { "status-bad" }>{status}</td>
            <td class="path mono">{record.path.clone()}</td>
            <td class="hint">{timing}</td>
            <td class="hint">{format!("{} B", record.bytes)}</td>
            <td><Copyable text=curl label="curl"/></td>
        </tr>
    }
}

#[component]
pub fn RequestLogPanel(log: RwSignal<Vec<RequestRecord>>) -> impl IntoView {
    let origin = page_origin();
    let panel = expect_context::<RequestLogView>();
    let summary = move || {
        log.with(|entries| {
            let open = entries
                .iter()
                .filter(|e| e.watch.is_some_and(|w| w.open))
                .count();
            format!(
                "Request log · {} requests · {} open watches",
                entries.len(),
                open
            )
        })
    };
    let filter_line = move || {
        panel.path_filter.get().map(|path| {
            view! {
                <p class="log-filter">
                    "Requests for " <code>{path}</code> " · "
                    <button type="button" class="link-button" on:click=move |_| panel.path_filter.set(None)>
                        "Show all"
                    </button>
                </p>
            }
        })
    };
    view! {
        <details
            class="request-log"
            prop:open=move || panel.open.get()
            on:toggle=move |event| {
                let open = event_target::<web_sys::HtmlDetailsElement>(&event).open();
                if open != panel.open.get_untracked() {
                    panel.open.set(open);
                }
            }
        >
            <summary>{summary}</summary>
            {filter_line}
            <div class="rows">
                <table aria-label="API requests">
                    <tbody>
                        // Keyed by the request and what is shown of it: a row stays the same
                        // element while newer requests are added above it, and is drawn again
                        // only when its own request changed (a watch's count, its answer).
                        <For
                            each=move || {
                                // A closed log costs nothing: its rows are not drawn.
                                if !panel.open.get() {
                                    return Vec::new();
                                }
                                let filter = panel.path_filter.get();
                                log.with(|records| {
                                    records
                                        .iter()
                                        .rev()
                                        .filter(|record| {
                                            filter.as_ref().is_none_or(|path| record.path.starts_with(path.as_str()))
                                        })
                                        .cloned()
                                        .collect::<Vec<_>>()
                                })
                            }
                            key=|record: &RequestRecord| {
                                (
                                    record.id,
                                    record.status,
                                    record.watch,
                                    record.error.is_some(),
                                    record.duration_ms.to_bits(),
                                    record.bytes,
                                )
                            }
                            children=move |record| log_row(record, &origin)
                        />
                    </tbody>
                </table>
            </div>
        </details>
    }
}
