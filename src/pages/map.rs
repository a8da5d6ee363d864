//! The map (`#/map?ns=demo`, `#/map?ns=demo&selector=app%3Dweb`): how a namespace's objects
//! connect (who routes to whom, who owns, selects and mounts what), live, each with its
//! health; narrowed to one application by a label selector, or to one object's
//! neighbourhood (the object page links to it).

use leptos::prelude::*;

use crate::components::map::MapCanvas;
use crate::model::list::selector::parse_label_selector;
use crate::model::map::scope::Scope;
use crate::model::navigation::route::{MapRoute, Page};
use crate::state::discovery::DiscoveryState;
use crate::state::map::{use_map, UseMapOptions};
use crate::state::navigation::use_navigation;
use crate::state::permissions::last_namespace;

/// How far from the object in the middle its neighbourhood reaches (a Deployment's pods, a
/// pod's Service and its Ingress).
const NEIGHBOURHOOD_STEPS: usize = 2;

#[component]
pub fn MapPage(route: MapRoute) -> impl IntoView {
    let discovery = expect_context::<DiscoveryState>();
    let navigation = use_navigation();
    let tree = discovery.tree_now();
    let namespace = route
        .namespace
        .clone()
        .or_else(last_namespace)
        .unwrap_or_else(|| "default".into());
    let typed_namespace = RwSignal::new(namespace.clone());
    let typed_selector = RwSignal::new(route.selector.clone());
    let go = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let namespace = typed_namespace.get_untracked().trim().to_string();
        if !namespace.is_empty() {
            navigation.go(Page::Map(MapRoute {
                namespace: Some(namespace),
                selector: typed_selector.get_untracked().trim().to_string(),
                around: None,
            }));
        }
    };
    let scope = if let Some(uid) = route.around.clone() {
        Ok(Scope::Neighbourhood {
            uid,
            distance: NEIGHBOURHOOD_STEPS,
        })
    } else if route.selector.trim().is_empty() {
        Ok(Scope::Namespace(namespace.clone()))
    } else {
        parse_label_selector(&route.selector)
            .map(Scope::Application)
            .map_err(|error| error.to_string())
    };
    let heading = match &scope {
        Ok(Scope::Application(_)) => format!("{} in namespace {namespace}", route.selector),
        Ok(Scope::Neighbourhood { .. }) => {
            format!("one object's neighbourhood in namespace {namespace}")
        }
        _ => format!("namespace {namespace}"),
    };
    let body = match scope {
        Err(error) => view! {
            <p class="error" role="alert">{format!("The label selector is not valid: {error}")}</p>
        }
        .into_any(),
        Ok(scope) => {
            let map = use_map(UseMapOptions {
                tree: &tree,
                namespace: namespace.clone(),
                scope,
            });
            let drawing = map.drawing;
            let empty =
                move || drawing.with(|d| d.as_ref().is_some_and(|d| d.map.view.nodes.is_empty()));
            view! {
                {move || drawing.with(Option::is_none).then(|| view! {
                    <p class="loading">"Listing the namespace's objects…"</p>
                })}
                {move || empty().then(|| view! {
                    <p class="muted map-empty">"Nothing to draw: no objects here that you may list."</p>
                })}
                <MapCanvas drawing=drawing expanded=map.expanded tree=tree.clone()/>
            }
            .into_any()
        }
    };
    view! {
        <section class="map-page" aria-label="Map">
            <h1>"Map " <span class="kind">{heading}</span></h1>
            <form class="map-scope" on:submit=go>
                <label>
                    "Namespace "
                    <input
                        type="text"
                        aria-label="Namespace"
                        prop:value=move || typed_namespace.get()
                        on:input=move |e| typed_namespace.set(event_target_value(&e))
                    />
                </label>
                <label>
                    "Application (label selector) "
                    <input
                        type="text"
                        aria-label="Label selector"
                        placeholder="app.kubernetes.io/instance=web"
                        prop:value=move || typed_selector.get()
                        on:input=move |e| typed_selector.set(event_target_value(&e))
                    />
                </label>
                <button type="submit">"Show"</button>
            </form>
            {body}
        </section>
    }
}
