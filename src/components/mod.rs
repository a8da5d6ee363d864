//! Reusable view widgets. They take plain model data and stay free of transport.

use leptos::prelude::*;

/// The API groups the server serves, one row each with its versions.
#[component]
pub fn GroupList(
    /// (group name, versions) in discovery order; the core group has the name "".
    groups: Vec<(String, Vec<String>)>,
) -> impl IntoView {
    view! {
        <ul class="group-list" aria-label="API groups">
            {groups
                .into_iter()
                .map(|(name, versions)| {
                    let label = if name.is_empty() { "core".to_string() } else { name };
                    let data_group = label.clone();
                    view! {
                        <li class="group" data-group=data_group>
                            <span class="group-name">{label}</span>
                            <span class="group-versions">{versions.join(", ")}</span>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}
