//! The sidebar: the Group/Version/Resource tree with a filter, as an accessible ARIA tree.

use std::collections::HashSet;

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
use wasm_bindgen::JsCast;

use crate::model::navigation::sidebar_tree::{
    key_action, visible_rows, NavAction, NodeKey, VisibleRow,
};
use crate::model::{
    api::version::Stability, navigation::resource_search::filter_tree, ApiTree, ResourceId,
};

/// What one row displays, resolved from the tree once per render.
struct RowView {
    row: VisibleRow,
    label: String,
    detail: String,
    badges: Vec<(&'static str, String)>,
    count: Option<usize>,
}

fn describe(tree: &ApiTree, row: &VisibleRow) -> RowView {
    let mut view = RowView {
        row: row.clone(),
        label: String::new(),
        detail: String::new(),
        badges: Vec::new(),
        count: None,
    };
    match &row.key {
        NodeKey::Group(name) => {
            if let Some(group) = tree.group(name) {
                view.label = group.display_name().to_string();
                view.count = Some(
                    group
                        .preferred()
                        .map(|v| v.resources.len())
                        .unwrap_or_default(),
                );
                if let Some(preferred) = &group.preferred_version {
                    view.detail = preferred.clone();
                }
            }
        }
        NodeKey::Version { group, version } => {
            view.label = version.clone();
            if let Some(gv) = tree.group(group).and_then(|g| g.version(version)) {
                view.count = Some(gv.resources.len());
                if gv.preferred {
                    view.badges.push(("preferred", "preferred".into()));
                }
                match gv.stability {
                    Stability::Alpha => view.badges.push(("alpha", "alpha".into())),
                    Stability::Beta => view.badges.push(("beta", "beta".into())),
                    _ => {}
                }
                if gv.freshness_stale {
                    view.badges.push(("stale", "stale".into()));
                }
            }
        }
        NodeKey::Resource(id) => {
            view.label = id.plural.clone();
            if let Some(found) = tree.find(id) {
                view.detail = found.resource.kind.clone();
                if !found.resource.namespaced {
                    view.badges.push(("scope", "cluster".into()));
                }
            }
        }
        NodeKey::Subresource { name, .. } => {
            view.label = format!("/{name}");
        }
    }
    view
}

/// The tree. `selected` is the resource shown in the main pane; `expanded` survives tree
/// rebuilds because nodes are keyed by value.
#[component]
pub fn ApiTreeView(
    tree: Signal<ApiTree>,
    filter: RwSignal<String>,
    selected: RwSignal<Option<ResourceId>>,
    selected_subresource: RwSignal<Option<String>>,
    expanded: RwSignal<HashSet<NodeKey>>,
) -> impl IntoView {
    let focused = RwSignal::new(None::<NodeKey>);
    let rows = Memo::new(move |_| {
        let query = filter.get();
        let tree = tree.read();
        let tree_filter = filter_tree(&tree, &query);
        let filtering = !query.trim().is_empty();
        expanded.with(|expanded| visible_rows(&tree, &tree_filter, filtering, expanded))
    });

    // The first screenful of rows first (`browser::ROWS_BEFORE_FIRST_PAINT`).
    let row_limit = RwSignal::new(crate::browser::ROWS_BEFORE_FIRST_PAINT);
    Effect::new(move |_| {
        if row_limit.get_untracked() != usize::MAX && rows.with(|rows| !rows.is_empty()) {
            crate::browser::draw_all_rows_after_next_paint(row_limit);
        }
    });

    let activate = move |key: NodeKey| {
        focused.set(Some(key.clone()));
        match &key {
            NodeKey::Resource(id) => {
                selected.set(Some(id.clone()));
                selected_subresource.set(None);
            }
            NodeKey::Subresource { resource, name } => {
                selected.set(Some(resource.clone()));
                selected_subresource.set(Some(name.clone()));
            }
            NodeKey::Group(_) | NodeKey::Version { .. } => {
                expanded.update(|set| {
                    if !set.remove(&key) {
                        set.insert(key.clone());
                    }
                });
            }
        }
    };

    let focus_dom = move |key: &NodeKey| {
        let id = format!("node-{}", key.dom_key());
        if let Some(element) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(&id))
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = element.focus();
        }
    };

    let on_keydown = move |event: web_sys::KeyboardEvent| {
        let action =
            rows.with(|rows| key_action(rows, focused.get_untracked().as_ref(), &event.key()));
        match action {
            NavAction::None => return,
            NavAction::Focus(key) => {
                focus_dom(&key);
                focused.set(Some(key));
            }
            NavAction::Expand(key) => expanded.update(|set| {
                set.insert(key);
            }),
            NavAction::Collapse(key) => expanded.update(|set| {
                set.remove(&key);
            }),
            NavAction::Activate(key) => activate(key),
        }
        event.prevent_default();
    };

    // One click handler for the whole tree (hundreds of rows, each with two handlers, cost
    // more to build than to draw): the row is found from the clicked element's `data-key`.
    let on_click = move |event: web_sys::MouseEvent| {
        let Some(target) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        let Some(dom_key) = target
            .closest("[role=treeitem]")
            .ok()
            .flatten()
            .and_then(|item| item.get_attribute("data-key"))
        else {
            return;
        };
        let Some((key, expandable)) = rows.with_untracked(|rows| {
            rows.iter()
                .find(|row| row.key.dom_key() == dom_key)
                .map(|row| (row.key.clone(), row.expandable))
        }) else {
            return;
        };
        let on_twisty = target.closest(".twisty").ok().flatten().is_some();
        if on_twisty && expandable && matches!(key, NodeKey::Resource(_)) {
            // The twisty of a resource toggles its subresources without changing the
            // selection.
            expanded.update(|set| {
                if !set.remove(&key) {
                    set.insert(key);
                }
            });
        } else {
            activate(key);
        }
    };

    view! {
        <ul class="tree" role="tree" aria-label="API groups, versions and resources" on:keydown=on_keydown on:click=on_click>
            {move || {
                let tree = tree.read();
                let selected_id = selected.get();
                let selected_sub = selected_subresource.get();
                let focused_key = focused.get();
                let rows = rows.get();
                let first_key = rows.first().map(|r| r.key.clone());
                if rows.is_empty() {
                    // No groups yet: discovery is still loading (or failed, which the main
                    // pane explains); only a loaded tree can fail to match a filter.
                    let message = if tree.groups.is_empty() {
                        "Loading the API groups…"
                    } else {
                        "Nothing matches the filter."
                    };
                    return view! { <li class="hint tree-empty" role="none">{message}</li> }.into_any();
                }
                let drawn = rows.iter()
                    .take(row_limit.get())
                    .map(|row| {
                        let described = describe(&tree, row);
                        let key = row.key.clone();
                        let depth = key.depth();
                        let is_selected = match &key {
                            NodeKey::Resource(id) => selected_id.as_ref() == Some(id) && selected_sub.is_none(),
                            NodeKey::Subresource { resource, name } => {
                                selected_id.as_ref() == Some(resource) && selected_sub.as_deref() == Some(name.as_str())
                            }
                            _ => false,
                        };
                        // Roving tabindex: exactly one row is in the tab order.
                        let tabbable = match &focused_key {
                            Some(f) => f == &key,
                            None => Some(&key) == first_key.as_ref(),
                        };
                        let twisty = if described.row.expandable {
                            if described.row.expanded { "▾" } else { "▸" }
                        } else {
                            ""
                        };
                        let expandable = described.row.expandable;
                        view! {
                            <li
                                role="treeitem"
                                id=format!("node-{}", key.dom_key())
                                data-key=key.dom_key()
                                aria-expanded=expandable.then(|| described.row.expanded.to_string())
                                aria-selected=is_selected.to_string()
                                tabindex=if tabbable { "0" } else { "-1" }
                            >
                                <div
                                    class=format!("tree-row depth-{}", depth.min(2))
                                    style=(depth == 3).then_some("padding-left: 58px")
                                >
                                    <span class="twisty" aria-hidden="true">{twisty}</span>
                                    <span
                                        class=if depth == 0 { "group-label" } else { "node-label" }
                                        title=described.label.clone()
                                    >
                                        {described.label.clone()}
                                    </span>
                                    <span class="kind">{described.detail}</span>
                                    {described
                                        .badges
                                        .into_iter()
                                        .map(|(class, text)| view! { <span class=format!("badge {class}")>{text}</span> })
                                        .collect_view()}
                                    {described.count.map(|c| view! { <span class="count">{c}</span> })}
                                </div>
                            </li>
                        }
                        // The view macro has no aria-level; the tree pattern needs it on flat rows.
                        .attr("aria-level", (depth + 1).to_string())
                    })
                    .collect_view();
                if row_limit.get_untracked() != usize::MAX {
                    // For `cargo xtask bench ui`: the first screenful's views are built.
                    crate::browser::mark("kube-atlas:tree-first-rows-built");
                }
                drawn.into_any()
            }}
        </ul>
    }
}
