//! One list from every cluster behind kube-atlas, merged: a CLUSTER column before the
//! server's columns, each row linking to its object on its own cluster, and each cluster's
//! stream status (with kube-atlas's word on the cluster when it failed), so a cluster that
//! goes away is marked while the others stay live.

use leptos::prelude::*;

use crate::browser::monotonic_now;
use crate::components::StreamStatusLine;
use crate::model::api::clusters::{merged_rows, MergedRow};
use crate::model::list::display::{header_cells, shown_columns, DrawnAt};
use crate::model::list::table::DecodeOptions;
use crate::model::watch::{LiveTable, WatchKey};
use crate::model::ResourceId;
use crate::state::clock::use_clock;
use crate::state::clusters::use_clusters;
use crate::state::watch::{use_watch_table, LiveWatch};

#[component]
pub fn MergedList(key: WatchKey, options: DecodeOptions, resource: ResourceId) -> impl IntoView {
    let Some(clusters) = use_clusters() else {
        return view! { <p class="list-status">"One cluster: nothing to merge."</p> }.into_any();
    };
    let current = clusters.current.get_value();
    let names: Vec<String> = clusters
        .entries
        .with_untracked(|entries| entries.iter().map(|entry| entry.name.clone()).collect());
    // The page's own cluster shares the stream of its ordinary list (no cluster in the key).
    let lives: Vec<(String, LiveWatch<LiveTable>)> = names
        .into_iter()
        .map(|name| {
            let on = (name != current).then(|| name.clone());
            (name, use_watch_table(key.clone().on_cluster(on), options))
        })
        .collect();
    let now = use_clock();
    let stores: Vec<(String, ReadSignal<LiveTable>)> = lives
        .iter()
        .map(|(name, live)| (name.clone(), live.store.clone().into()))
        .collect();
    let header_stores = stores.clone();
    // The columns of the first cluster whose table has them.
    let headers = Memo::new(move |_| {
        header_stores
            .iter()
            .map(|(_, store)| {
                store.with(|live| {
                    let table = live.table();
                    header_cells(table, &shown_columns(table, false), None)
                })
            })
            .find(|cells| !cells.is_empty())
            .unwrap_or_default()
    });
    let row_resource = resource.clone();
    let rows = move || {
        let at = DrawnAt {
            wall: now.get(),
            monotonic: monotonic_now(),
        };
        stores
            .iter()
            .flat_map(|(name, store)| {
                store.with(|live| {
                    merged_rows(
                        &[(name.as_str(), live)],
                        |live| shown_columns(live.table(), false),
                        &row_resource,
                        at,
                    )
                })
            })
            .collect::<Vec<MergedRow>>()
    };
    let label = format!("{} in every cluster", resource.plural);
    view! {
        <div class="merged-status-list">
            {lives
                .into_iter()
                .map(|(name, live)| {
                    let state_name = name.clone();
                    let cluster_state = Memo::new(move |_| {
                        clusters.entries.with(|entries| {
                            entries
                                .iter()
                                .find(|entry| entry.name == state_name)
                                .map(|entry| (entry.connection.word(), entry.describe()))
                                .unwrap_or(("connecting", String::new()))
                        })
                    });
                    view! {
                        <div class="merged-cluster" data-cluster=name.clone()>
                            <span
                                class="cluster-state"
                                data-state=move || cluster_state.get().0
                                title=move || cluster_state.get().1
                            >
                                {move || cluster_state.get().1}
                            </span>
                            <StreamStatusLine live=live clock=now/>
                        </div>
                    }
                })
                .collect_view()}
        </div>
        <table class="merged-list" aria-label=label>
            <thead>
                <tr>
                    <th scope="col">"CLUSTER"</th>
                    {move || {
                        headers
                            .get()
                            .into_iter()
                            .map(|cell| view! { <th scope="col" title=cell.description>{cell.label}</th> })
                            .collect_view()
                    }}
                </tr>
            </thead>
            <tbody>
                {move || {
                    rows()
                        .into_iter()
                        .map(|merged| {
                            let href = merged.row.href.clone();
                            view! {
                                <tr class="merged-row" data-cluster=merged.cluster.clone()>
                                    <td class="cluster-cell">{merged.cluster.clone()}</td>
                                    {merged
                                        .row
                                        .cells
                                        .into_iter()
                                        .map(|cell| {
                                            if cell.link {
                                                view! {
                                                    <td class="name-cell"><a href=href.clone()>{cell.text}</a></td>
                                                }
                                                .into_any()
                                            } else {
                                                view! { <td class:numeric=cell.numeric>{cell.text}</td> }.into_any()
                                            }
                                        })
                                        .collect_view()}
                                </tr>
                            }
                        })
                        .collect_view()
                }}
            </tbody>
        </table>
    }
    .into_any()
}
