//! The header's *Forwards* button behind kube-atlas: how many forwards run, and every one of
//! them (of every cluster and namespace) with its link and *Stop*, in one place.

use leptos::prelude::*;

use super::ForwardsTable;
use crate::state::forwards::ForwardsHub;

/// How many ended forwards the list still shows.
const ENDED_SHOWN: usize = 10;

#[component]
pub fn ForwardsMenu() -> impl IntoView {
    let hub = ForwardsHub::get();
    hub.context().map(|_| {
        // Forwards kept from an earlier page are counted from the start.
        leptos::task::spawn_local(async move { hub.refresh().await });
        let open = RwSignal::new(false);
        let running = Signal::derive(move || hub.list.with(|l| l.forwards.len()));
        let all = Signal::derive(move || {
            hub.list.with(|l| {
                let ended = l.ended.iter().rev().take(ENDED_SHOWN);
                l.forwards.iter().chain(ended).cloned().collect::<Vec<_>>()
            })
        });
        view! {
            <span class="forwards-menu">
                <button type="button" class="header-link" aria-expanded=move || open.get().to_string()
                    title="Port-forwards kube-atlas runs"
                    on:click=move |_| open.update(|o| *o = !*o)>
                    {move || format!("Forwards ({})", running.get())}
                </button>
                {move || open.get().then(|| {
                    view! { <ShownForwards all=all/> }
                })}
            </span>
        }
    })
}

/// The open list; asked again every few seconds while it is shown.
#[component]
fn ShownForwards(all: Signal<Vec<crate::model::api::forwards::ForwardInfo>>) -> impl IntoView {
    let hub = ForwardsHub::get();
    hub.show();
    view! {
        <div class="forwards-popover" role="dialog" aria-label="Port-forwards">
            {move || hub.error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || if all.with(Vec::is_empty) {
                view! { <p class="hint">"No forwards. Forward a port from a pod's, Service's or Deployment's page."</p> }.into_any()
            } else {
                view! { <ForwardsTable forwards=all wide=true/> }.into_any()
            }}
        </div>
    }
}
