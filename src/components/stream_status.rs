//! The status line of a live view: connected, reconnecting or relisting, the resourceVersion,
//! time since the last change, relists and why, the transport; one click shows the stream's
//! requests in the request log.

use leptos::prelude::*;

use crate::browser::now_ms;
use crate::model::age::EpochMillis;
use crate::model::watch::WatchStatus;
use crate::state::request_log::RequestLogView;
use crate::state::watch::{LiveWatch, StreamTransport};

#[component]
pub fn StreamStatusLine<S: Send + Sync + 'static>(
    live: LiveWatch<S>,
    /// Ticks "last change … ago".
    clock: RwSignal<EpochMillis>,
) -> impl IntoView {
    let status: RwSignal<WatchStatus> = live.status.clone().into();
    let transport: RwSignal<StreamTransport> = live.transport.clone().into();
    let path = live.key.collection_path.clone();
    let state = move || status.with(|s| s.phase);
    let headline = move || status.with(|s| s.headline());
    let details = move || {
        clock.track();
        status.with(|s| s.details(now_ms())).join(" · ")
    };
    let transport_text = move || match transport.get() {
        StreamTransport::WebSocket => "WebSocket",
        StreamTransport::Http => "HTTP stream",
    };
    let log = use_context::<RequestLogView>();
    let show_requests = move |_| {
        if let Some(log) = log {
            log.show_only(path.clone());
        }
    };
    view! {
        <div
            class="stream-status"
            role="status"
            aria-label="Stream status"
            data-phase=move || format!("{:?}", state()).to_lowercase()
        >
            <span class="stream-dot" aria-hidden="true"></span>
            <strong class="stream-headline">{headline}</strong>
            <span class="stream-details">{details}</span>
            <span class="stream-transport">{transport_text}</span>
            <button type="button" class="link-button" on:click=show_requests>
                "Requests"
            </button>
        </div>
    }
}
