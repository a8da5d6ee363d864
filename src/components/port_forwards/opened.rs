//! A pod's or Service's HTTP port opened in the page through the API's proxy subresource,
//! with no local port. The page it serves is the pod's, not the dashboard's: it is shown in a
//! frame sandboxed without `allow-same-origin`, so its scripts run in an opaque origin that
//! cannot read the API with the user's credentials (no CORS answer reaches them) nor navigate
//! the dashboard, open windows or submit forms. It is never linked for a tab of its own, which
//! would give it the dashboard's origin.

use leptos::prelude::*;

#[component]
pub fn OpenedPort(
    /// What is shown: `pod web-1 port 8080`.
    title: String,
    /// The frame's address: the API prefix and the proxy path.
    src: String,
    on_close: Callback<()>,
) -> impl IntoView {
    let label = format!("Opened: {title}");
    view! {
        <section class="opened-port" aria-label=label>
            <header>
                <strong>{title.clone()}</strong>
                <span class="hint">
                    " Shown through the API server's proxy, sandboxed: its scripts cannot use your access to the API."
                </span>
                <button type="button" on:click=move |_| on_close.run(())>"Close"</button>
            </header>
            // `allow-scripts` without `allow-same-origin`: the page may run its own UI, in an
            // origin of its own.
            <iframe class="opened-port-frame" title=title sandbox="allow-scripts"
                referrerpolicy="no-referrer" src=src></iframe>
        </section>
    }
}
