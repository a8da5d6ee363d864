//! An object compared with the same object (same path) in another cluster behind
//! kube-atlas: field by field, as a revision is compared with the one before, leaving out
//! what each server sets of its own (uid, resourceVersion, managedFields…).

use leptos::prelude::*;
use serde_json::Value;

use crate::model::api::clusters::compare_across_clusters;
use crate::state::clusters::{read_on_cluster, use_clusters};

/// What the comparison with one cluster found.
#[derive(Clone, PartialEq)]
enum Compared {
    Reading,
    Missing,
    Failed(String),
    Differences(Vec<String>),
}

#[component]
pub fn ClusterCompare(
    /// The object's API path (the same on every cluster).
    path: String,
    object: Signal<Option<Value>>,
) -> impl IntoView {
    let Some(clusters) = use_clusters() else {
        return ().into_any();
    };
    let current = clusters.current.get_value();
    let others: Vec<String> = clusters.entries.with_untracked(|entries| {
        entries
            .iter()
            .map(|entry| entry.name.clone())
            .filter(|name| *name != current)
            .collect()
    });
    if others.is_empty() {
        return ().into_any();
    }
    let chosen = RwSignal::new(None::<String>);
    // The other cluster's copy, read when chosen (and again when chosen again).
    let there = RwSignal::new(None::<(String, Result<Option<Value>, String>)>);
    let read = move |cluster: String| {
        chosen.set(Some(cluster.clone()));
        there.set(None);
        let path = path.clone();
        leptos::task::spawn_local(async move {
            let answer = read_on_cluster(&path, &cluster)
                .await
                .map_err(|e| e.to_string());
            let _ = there.try_set(Some((cluster, answer)));
        });
    };
    let compared = move || {
        let cluster = chosen.get()?;
        let outcome = match there.get() {
            Some((read_from, _)) if read_from != cluster => Compared::Reading,
            None => Compared::Reading,
            Some((_, Err(error))) => Compared::Failed(error),
            Some((_, Ok(None))) => Compared::Missing,
            Some((_, Ok(Some(theirs)))) => object.with(|ours| match ours {
                Some(ours) => Compared::Differences(
                    compare_across_clusters(ours, &theirs)
                        .iter()
                        .map(|change| change.describe())
                        .collect(),
                ),
                None => Compared::Reading,
            }),
        };
        Some((cluster, outcome))
    };
    let here = current.clone();
    view! {
        <details class="cluster-compare">
            <summary>"Compare with another cluster"</summary>
            <label>
                "Cluster"
                <select
                    aria-label="Compare with cluster"
                    on:change=move |e| {
                        let value = event_target_value(&e);
                        if !value.is_empty() {
                            read(value);
                        }
                    }
                >
                    <option value="" selected=true>"Choose…"</option>
                    {others
                        .into_iter()
                        .map(|name| view! { <option value=name.clone()>{name.clone()}</option> })
                        .collect_view()}
                </select>
            </label>
            {move || compared().map(|(cluster, outcome)| {
                let here = here.clone();
                match outcome {
                    Compared::Reading => view! { <p class="loading">{format!("Reading it on {cluster}…")}</p> }.into_any(),
                    Compared::Missing => view! {
                        <p class="compare-summary" data-outcome="missing">{format!("{cluster} has no such object.")}</p>
                    }
                    .into_any(),
                    Compared::Failed(error) => view! {
                        <p class="error compare-summary" role="alert" data-outcome="failed">{format!("It could not be read on {cluster}: {error}")}</p>
                    }
                    .into_any(),
                    Compared::Differences(changes) if changes.is_empty() => view! {
                        <p class="compare-summary" data-outcome="same">{format!("The same on {here} and {cluster} (beside what each server sets).")}</p>
                    }
                    .into_any(),
                    Compared::Differences(changes) => view! {
                        <p class="compare-summary" data-outcome="different">
                            {format!("{} difference(s) from {here} to {cluster}:", changes.len())}
                        </p>
                        <ul class="compare-changes mono">
                            {changes.into_iter().map(|change| view! { <li>{change}</li> }).collect_view()}
                        </ul>
                    }
                    .into_any(),
                }
            })}
        </details>
    }
    .into_any()
}
