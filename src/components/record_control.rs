//! The header's recorder.

use crate::model::navigation::route::Page;
use leptos::prelude::*;

/// Record / stop in the header: records every watch change the page receives from now on,
/// and offers it as a JSON Lines download when stopped.
#[component]
pub fn RecordControl() -> impl IntoView {
    let hub = expect_context::<crate::state::watch::WatchHub>();
    let recording = hub.recording;
    let toggle = move |_| {
        if recording.get_untracked().is_some() {
            if let Some(text) = hub.stop_recording() {
                let name = format!(
                    "kube-atlas-recording-{}.jsonl",
                    js_sys::Date::new_0()
                        .to_iso_string()
                        .as_string()
                        .unwrap_or_default()
                        .replace([':', '.'], "-")
                );
                // A failed download leaves nothing to recover; the page stays as it was.
                crate::browser::download_text(&text, &name).ok();
            }
        } else {
            hub.start_recording();
        }
    };
    view! {
        <span class="recorder">
            <button
                type="button"
                class="record"
                title="Record the watch traffic this page receives (JSON Lines), to replay without a cluster"
                on:click=toggle
            >
                {move || if recording.get().is_some() { "■ Stop and download" } else { "● Record" }}
            </button>
            {move || recording.get().is_some().then(|| view! { <span class="recording">"recording"</span> })}
            <a class="header-link" href=Page::Replay.to_hash()>"Replay"</a>
        </span>
    }
}
