//! The list's toolbar: selectors (checked before sending), the quick filter, wide and sort.

use leptos::prelude::*;

use crate::model::list::selector::SelectorError;
use crate::model::navigation::route::{ListRoute, Page};
use crate::pages::resource_list::ListIdentity;
use crate::state::clusters::use_clusters;
use crate::state::navigation::use_navigation;

/// Selector inputs (applied on Enter or when leaving the field), the filter and Wide.
#[component]
pub(super) fn ListToolbar(
    identity: ListIdentity,
    label_error: Option<SelectorError>,
    field_error: Option<SelectorError>,
) -> impl IntoView {
    let navigation = use_navigation();
    let current = move || match navigation.page.get() {
        Page::ResourceList(route) => Some(route),
        _ => None,
    };
    let apply = move |change: &dyn Fn(&mut ListRoute)| {
        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
            let before = route.clone();
            change(&mut route);
            if route != before {
                navigation.go(Page::ResourceList(route));
            }
        }
    };
    let apply_label =
        Callback::new(move |value: String| apply(&|r| r.label_selector = value.trim().to_string()));
    let apply_field =
        Callback::new(move |value: String| apply(&|r| r.field_selector = value.trim().to_string()));
    view! {
        <div class="list-toolbar">
            <SelectorInput
                label="Label selector"
                placeholder="app=web,tier notin (db)"
                value=identity.label_selector.clone()
                error=label_error
                on_apply=apply_label
            />
            <SelectorInput
                label="Field selector"
                placeholder="status.phase=Running"
                value=identity.field_selector.clone()
                error=field_error
                on_apply=apply_field
            />
            <label>
                "Filter"
                <input
                    type="search"
                    aria-label="Filter"
                    placeholder="Filter loaded rows"
                    prop:value=move || current().map(|r| r.filter).unwrap_or_default()
                    on:input=move |e| {
                        let value = event_target_value(&e);
                        if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
                            route.filter = value;
                            navigation.replace(Page::ResourceList(route));
                        }
                    }
                />
            </label>
            <RouteSwitch label="Wide" aria_label="Wide" read=|r| r.wide write=|r, on| r.wide = on/>
            <RouteSwitch label="Labels" aria_label="Show labels"
                title="A LABELS column: each row's labels, as kubectl get --show-labels"
                read=|r| r.show_labels write=|r, on| r.show_labels = on/>
            <RouteSwitch label="Only unhealthy" aria_label="Only unhealthy"
                title="Only rows whose health is not OK: Progressing, Warning, Failing or Unknown"
                read=|r| r.unhealthy write=|r, on| r.unhealthy = on/>
            {use_clusters().map(|_| view! {
                <label class="check" title="The same list from every cluster kube-atlas serves, with a CLUSTER column">
                    <input
                        type="checkbox"
                        aria-label="All clusters"
                        prop:checked=move || current().is_some_and(|r| r.all_clusters)
                        on:change=move |e| {
                            let all = event_target_checked(&e);
                            if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
                                route.all_clusters = all;
                                navigation.go(Page::ResourceList(route));
                            }
                        }
                    />
                    "All clusters"
                </label>
            })}
        </div>
    }
}

/// A checkbox bound to one of the list route's switches: kept in the URL, which it replaces.
#[component]
fn RouteSwitch(
    label: &'static str,
    aria_label: &'static str,
    #[prop(optional)] title: Option<&'static str>,
    read: fn(&ListRoute) -> bool,
    write: fn(&mut ListRoute, bool),
) -> impl IntoView {
    let navigation = use_navigation();
    let checked = move || {
        navigation
            .page
            .with(|p| matches!(p, Page::ResourceList(route) if read(route)))
    };
    view! {
        <label class="check" title=title>
            <input
                type="checkbox"
                aria-label=aria_label
                prop:checked=checked
                on:change=move |e| {
                    let on = event_target_checked(&e);
                    if let Page::ResourceList(mut route) = navigation.page.get_untracked() {
                        write(&mut route, on);
                        navigation.replace(Page::ResourceList(route));
                    }
                }
            />
            {label}
        </label>
    }
}

/// A selector input, applied on Enter or when leaving it; its syntax error shown beneath.
#[component]
pub(super) fn SelectorInput(
    label: &'static str,
    placeholder: &'static str,
    value: String,
    error: Option<SelectorError>,
    on_apply: Callback<String>,
) -> impl IntoView {
    let error_id = format!("{}-error", label.to_lowercase().replace(' ', "-"));
    let described = error.as_ref().map(|_| error_id.clone());
    view! {
        <label>
            {label}
            <input
                type="text"
                aria-label=label
                placeholder=placeholder
                spellcheck="false"
                aria-invalid=error.is_some().to_string()
                aria-describedby=described
                prop:value=value
                on:change=move |e| on_apply.run(event_target_value(&e))
            />
            {error.map(|e| view! { <span class="field-error" id=error_id role="alert">{e.to_string()}</span> })}
        </label>
    }
}
