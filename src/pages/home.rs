//! The home page: what discovery found (the API hierarchy), or the explorer of the resource
//! selected in the tree.

use leptos::prelude::*;

use crate::components::ResourceExplorer;
use crate::model::ResourceId;
use crate::state::discovery::DiscoveryState;
use crate::state::discovery::LoadedDiscovery;

#[component]
pub fn HomePage(
    selected: RwSignal<Option<ResourceId>>,
    selected_subresource: RwSignal<Option<String>>,
    #[prop(into)] namespace: Signal<Option<String>>,
) -> impl IntoView {
    let discovery = expect_context::<DiscoveryState>();
    move || {
        let Some(loaded) = discovery.loaded.get() else {
            return view! { <p class="loading">"Loading discovery…"</p> }.into_any();
        };
        match selected.get() {
            Some(id) => match loaded.discovery.tree.group(&id.group).cloned() {
                Some(group) => view! {
                    <ResourceExplorer
                        group=group
                        version=id.version.clone()
                        plural=id.plural.clone()
                        namespace=namespace.get()
                        subresource=selected_subresource.get()
                    />
                }
                .into_any(),
                None => view! {
                    <p class="error" role="alert">
                        {format!("The server does not serve the group of {}.", id.key())}
                    </p>
                }
                .into_any(),
            },
            None => view! { <Overview loaded=loaded/> }.into_any(),
        }
    }
}

/// One overview row: group name, (version, preferred) pairs, resource count.
type GroupSummary = (String, Vec<(String, bool)>, usize);

/// The home pane: what discovery found, and how to explore it.
#[component]
fn Overview(loaded: LoadedDiscovery) -> impl IntoView {
    let counts = loaded.discovery.tree.counts();
    let mode = if loaded.aggregated {
        format!(
            "Aggregated discovery (apidiscovery.k8s.io/v2): {} requests.",
            loaded.requests
        )
    } else {
        format!(
            "Legacy discovery walk (/api, /apis, then every group-version): {} requests.",
            loaded.requests
        )
    };
    let groups: Vec<GroupSummary> = loaded
        .discovery
        .tree
        .groups
        .iter()
        .map(|g| {
            (
                g.display_name().to_string(),
                g.versions
                    .iter()
                    .map(|v| (v.version.clone(), v.preferred))
                    .collect(),
                g.preferred().map(|v| v.resources.len()).unwrap_or_default(),
            )
        })
        .collect();
    // The first screenful of groups first (`browser::ROWS_BEFORE_FIRST_PAINT`).
    let row_limit = RwSignal::new(crate::browser::ROWS_BEFORE_FIRST_PAINT);
    crate::browser::draw_all_rows_after_next_paint(row_limit);
    view! {
        <section class="welcome">
            <h1>"API hierarchy"</h1>
            <p class="subtitle">
                {format!(
                    "{} groups · {} group-versions · {} resources · {} subresources. ",
                    counts.groups, counts.group_versions, counts.resources, counts.subresources
                )}
                {mode}
            </p>
            <div class="card">
                <p>
                    "The API server groups its resources into "<strong>"API groups"</strong>
                    " (the legacy core group lives at /api/v1, every other group at /apis/GROUP/VERSION). "
                    "Each group serves one or more "<strong>"versions"</strong>
                    "; the preferred one is what clients use when they do not name a version. "
                    "Pick a resource in the tree to see its kind, verbs, subresources and URLs."
                </p>
            </div>
            <div class="card">
                // A grid of rows rather than a <table>: table rows cannot skip their layout,
                // these do while off screen (content-visibility), and clusters have hundreds
                // of groups.
                <div class="overview-groups" role="table" aria-label="API groups">
                    <div class="overview-groups-head" role="row">
                        <span role="columnheader">"Group"</span>
                        <span role="columnheader">"Versions"</span>
                        <span role="columnheader">"Resources"</span>
                    </div>
                    {move || groups
                        .iter()
                        .take(row_limit.get())
                        .cloned()
                        .map(|(name, versions, count)| {
                            let data_group = name.clone();
                            view! {
                                <div class="overview-group" role="row" data-group=data_group>
                                    <span class="mono" role="cell">{name}</span>
                                    <span class="chips" role="cell">
                                        {versions
                                            .into_iter()
                                            .map(|(v, preferred)| {
                                                view! { <span class="chip" class:preferred=preferred>{v}</span> }
                                            })
                                            .collect_view()}
                                    </span>
                                    <span role="cell">{count}</span>
                                </div>
                            }
                        })
                        .collect_view()}
                </div>
            </div>
        </section>
    }
}
