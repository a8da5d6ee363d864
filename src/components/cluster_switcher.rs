//! The header's cluster switcher, when kube-atlas serves several clusters: each by name with
//! its connection state (a failure with its reason), the page's own marked, choosing another
//! opening the same screen there.

use leptos::prelude::*;

use crate::state::clusters::use_clusters;

#[component]
pub fn ClusterSwitcher() -> impl IntoView {
    let Some(clusters) = use_clusters() else {
        return ().into_any();
    };
    let current = clusters.current.get_value();
    let current_state = move || {
        clusters
            .current_entry()
            .map(|entry| (entry.connection.word(), entry.describe()))
            .unwrap_or(("connecting", String::new()))
    };
    view! {
        <label class="hint" for="cluster-select">"Cluster"</label>
        <select
            id="cluster-select"
            aria-label="Cluster"
            on:change=move |e| clusters.switch_to(&event_target_value(&e))
        >
            {move || {
                clusters
                    .entries
                    .get()
                    .into_iter()
                    .map(|entry| {
                        let is_current = entry.name == current;
                        view! {
                            <option
                                value=entry.name.clone()
                                selected=is_current
                                data-state=entry.connection.word()
                                title=entry.server.clone()
                            >
                                {entry.describe()}
                            </option>
                        }
                    })
                    .collect_view()
            }}
        </select>
        {move || {
            let (state, description) = current_state();
            view! {
                <span class="cluster-state" data-state=state title=description.clone()>
                    {state}
                </span>
            }
        }}
    }
    .into_any()
}
