//! The object's overview: its facts, labels and annotations, conditions, and its owners and
//! what it owns as a small graph.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::Copyable;
use crate::model::api::endpoints::split_api_version;
use crate::model::navigation::route::{MapRoute, ObjectRoute, Page};
use crate::model::object::owners::{OwnerGraph, OwnerNode, DEFAULT_MAX_DEPTH};
use crate::model::object::page::{object_overview, ConditionRow, MetadataEntry};
use crate::model::object::visible_text::with_visible_controls;
use crate::model::{api::endpoints::kind_to_resource, ApiTree};
use crate::state::clock::epoch_now;
use crate::state::object::UseObjectReturn;

pub(super) fn overview(object: &Value, tree: &ApiTree, state: UseObjectReturn) -> impl IntoView {
    let facts = object_overview(object, epoch_now());
    let uid = facts.uid.clone().unwrap_or_default();
    let reconciling = facts.reconciling();
    let tree = tree.clone();
    let graph_uid = uid.clone();
    let graph = move || {
        let graph = state
            .owners
            .with(|index| index.graph(&graph_uid, DEFAULT_MAX_DEPTH));
        owner_graph_view(&graph, &tree)
    };
    view! {
        <table class="props" aria-label="Object">
            <tr><th>"Kind"</th><td>{format!("{} ({})", facts.kind, facts.api_version)}</td></tr>
            <tr><th>"Name"</th><td class="mono">{facts.name.clone()}</td></tr>
            {facts.namespace.clone().map(|ns| view! { <tr><th>"Namespace"</th><td>{ns}</td></tr> })}
            <tr>
                <th>"Age"</th>
                <td title=facts.creation_timestamp.clone().unwrap_or_default()>
                    {facts.age.clone().unwrap_or_default()}
                </td>
            </tr>
            <tr><th>"UID"</th><td class="mono">{uid.clone()}</td></tr>
            <tr><th>"resourceVersion"</th><td class="mono">{facts.resource_version.clone().unwrap_or_default()}</td></tr>
            {facts.generation.map(|g| view! {
                <tr><th>"Generation"</th><td>
                    {match facts.observed_generation {
                        Some(o) => format!("{g} (observed {o})"),
                        None => g.to_string(),
                    }}
                    {reconciling.then_some(" — not reconciled yet")}
                </td></tr>
            })}
            {facts.deletion_timestamp.clone().map(|t| view! {
                <tr><th>"Deleting"</th><td>{format!("since {t}; finalizers: {}", facts.finalizers.join(", "))}</td></tr>
            })}
        </table>
        <h2>"Labels"</h2>
        {metadata_view(facts.labels.clone(), "Labels")}
        <h2>"Annotations"</h2>
        {metadata_view(facts.annotations.clone(), "Annotations")}
        <h2>"Conditions"</h2>
        {conditions_view(facts.conditions.clone())}
        <h2>"Owners and owned objects"</h2>
        <div class="owner-graph" aria-label="Owner graph">{graph}</div>
        {map_link(facts.namespace.clone(), &uid)}
        {move || state.owners_loading.get().then(|| view! { <p class="loading">"Looking for owned objects…"</p> })}
        {move || {
            let gaps = state.owner_gaps.get();
            (!gaps.is_empty()).then(|| view! {
                <p class="warning">{format!("Some kinds could not be searched: {}", gaps.join("; "))}</p>
            })
        }}
    }
}

/// The object's neighbourhood on the map: what it owns and selects, what routes to it and
/// what it mounts, beyond its owners.
fn map_link(namespace: Option<String>, uid: &str) -> Option<impl IntoView> {
    let namespace = namespace.filter(|_| !uid.is_empty())?;
    let href = Page::Map(MapRoute {
        namespace: Some(namespace),
        around: Some(uid.to_string()),
        ..MapRoute::default()
    })
    .to_hash();
    Some(view! { <p><a class="map-link" href=href>"Its neighbourhood on the map"</a></p> })
}

pub(super) fn metadata_view(entries: Vec<MetadataEntry>, label: &'static str) -> AnyView {
    if entries.is_empty() {
        return view! { <p class="muted">"None."</p> }.into_any();
    }
    view! {
        <div class="kv" role="list" aria-label=label>
            {entries
                .into_iter()
                .map(|entry| {
                    // Copied as it is; shown with its control characters made visible.
                    let whole = format!("{}={}", entry.key, entry.value);
                    let shown = |text: &str| with_visible_controls(text).into_owned();
                    if entry.fold {
                        view! {
                            <details class="pair" role="listitem">
                                <summary>{shown(&format!("{}={}", entry.key, entry.folded_value()))}</summary>
                                <Copyable text=whole.clone()/>
                            </details>
                        }
                        .into_any()
                    } else {
                        let text = shown(&whole);
                        let title = text.clone();
                        view! { <span class="pair" role="listitem" title=title>{text}</span> }.into_any()
                    }
                })
                .collect_view()}
        </div>
    }
    .into_any()
}

pub(super) fn conditions_view(conditions: Vec<ConditionRow>) -> AnyView {
    if conditions.is_empty() {
        return view! { <p class="muted">"None reported."</p> }.into_any();
    }
    view! {
        <table class="conditions" aria-label="Conditions">
            <thead>
                <tr>
                    <th scope="col">"Type"</th>
                    <th scope="col">"Status"</th>
                    <th scope="col">"Reason"</th>
                    <th scope="col">"Message"</th>
                    <th scope="col">"Last transition"</th>
                </tr>
            </thead>
            <tbody>
                {conditions
                    .into_iter()
                    .map(|c| view! {
                        <tr class="condition" data-type=c.condition_type.clone()>
                            <td>{c.condition_type.clone()}</td>
                            <td>{c.status.clone()}</td>
                            <td>{c.reason.clone()}</td>
                            <td class="message">{c.message.clone()}</td>
                            <td title=c.last_transition_time.clone().unwrap_or_default()>
                                {c.age.clone().map(|a| format!("{a} ago")).unwrap_or_default()}
                            </td>
                        </tr>
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

/// The object page of a graph node, when discovery maps its kind.
pub(super) fn node_href(node: &OwnerNode, tree: &ApiTree) -> Option<String> {
    let (group, version) = split_api_version(&node.api_version);
    let r = kind_to_resource(tree, group, version, &node.kind).ok()?;
    let namespace = node.namespace.clone().filter(|_| r.resource.namespaced);
    Some(Page::Object(ObjectRoute::new(r.id(), namespace, node.name.clone())).to_hash())
}

/// One column per level: owners to the left, the object, what it owns to the right.
pub(super) fn owner_graph_view(graph: &OwnerGraph, tree: &ApiTree) -> AnyView {
    let Some(min) = graph.nodes.iter().map(|n| n.depth).min() else {
        return view! { <p class="muted">"No owners, nothing owned."</p> }.into_any();
    };
    let max = graph.nodes.iter().map(|n| n.depth).max().unwrap_or(0);
    if min == 0 && max == 0 {
        return view! { <p class="muted">"No owners, nothing owned."</p> }.into_any();
    }
    let levels = (min..=max)
        .map(|depth| {
            let nodes: Vec<AnyView> = graph
                .nodes
                .iter()
                .filter(|n| n.depth == depth)
                .map(|n| {
                    let label = format!("{} {}", n.node.kind, n.node.name);
                    let relation = match depth.signum() {
                        -1 => "owner",
                        1 => "owned",
                        _ => "this",
                    };
                    match (depth, node_href(&n.node, tree)) {
                        (0, _) | (_, None) => view! {
                            <li class=relation data-kind=n.node.kind.clone()>{label}</li>
                        }
                        .into_any(),
                        (_, Some(href)) => view! {
                            <li class=relation data-kind=n.node.kind.clone()>
                                <a href=href>{label}</a>
                                {(!n.node.loaded).then_some(" (not found)")}
                            </li>
                        }
                        .into_any(),
                    }
                })
                .collect();
            let heading = match depth {
                d if d < 0 => "Owned by",
                0 => "This object",
                _ => "Owns",
            };
            view! {
                <div class="owner-level" data-depth=depth>
                    <h3>{heading}</h3>
                    <ul>{nodes}</ul>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="owner-levels">{levels}</div>
        {graph.truncated.then(|| view! { <p class="muted">"The graph was cut at its size limit."</p> })}
    }
    .into_any()
}
