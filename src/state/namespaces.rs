//! The namespaces the global selector offers, and the fall back to a namespace the user may
//! list when a page across all namespaces is forbidden.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api;
use crate::model::navigation::route::Page;
use crate::model::object::events::{events_api, EventApi};
use crate::model::object::pointer::Pointer;
use crate::model::permissions::{Permission, Question, Scope};
use crate::model::{ApiTree, ResourceId};
use crate::state::navigation::Navigation;
use crate::state::permissions::{last_namespace, remember_namespace, PermissionsState};

/// Names of the namespaces for the global selector; None when they cannot be listed (then
/// the user types one).
pub async fn load_namespaces() -> Option<Vec<String>> {
    let fetched = api::get("/api/v1/namespaces", "application/json")
        .await
        .ok()?;
    let value: serde_json::Value = serde_json::from_str(&fetched.body).ok()?;
    let mut names: Vec<String> = value
        .get("items")
        .and_then(|i| i.as_array())
        .into_iter()
        .flatten()
        .filter_map(|item| item.at("/metadata/name").and_then(|n| n.as_str()))
        .map(str::to_string)
        .collect();
    crate::model::list::stable_sort::sort(&mut names);
    Some(names)
}

/// The namespaces the server listed for the header's selector (None: the user may not list
/// them), shared so views can offer them.
#[derive(Clone, Copy)]
pub struct KnownNamespaces(pub RwSignal<Option<Vec<String>>>);

pub fn use_known_namespaces() -> Signal<Option<Vec<String>>> {
    match use_context::<KnownNamespaces>() {
        Some(KnownNamespaces(names)) => names.into(),
        None => Signal::derive(|| None),
    }
}

/// The namespace list (every Kubernetes API server serves namespaces; an answer that is not a
/// list leaves the user typing one): asked once the extras are due, so drawing it never
/// delays the tree; asked again while still empty once discovery says namespaces exist (a
/// reconnect).
pub(crate) fn keep_namespaces(
    namespaces: RwSignal<Option<Vec<String>>>,
    tree: Signal<ApiTree>,
    extras_due: Signal<bool>,
) {
    let asked = StoredValue::new(false);
    let ask = move || {
        if asked.get_value() {
            return;
        }
        asked.set_value(true);
        spawn_local(async move {
            namespaces.set(load_namespaces().await);
            asked.set_value(false);
        });
    };
    let first_asked = StoredValue::new(false);
    Effect::new(move |_| {
        let serves_namespaces = tree.with(|t| {
            t.find(&ResourceId::new("", "v1", "namespaces"))
                .is_some_and(|r| r.resource.supports("list"))
        });
        if serves_namespaces
            && first_asked.get_value()
            && namespaces.with_untracked(|n| n.as_ref().is_some_and(Vec::is_empty))
        {
            ask();
        }
    });
    Effect::new(move |_| {
        if extras_due.get() && !first_asked.get_value() {
            first_asked.set_value(true);
            ask();
        }
    });
}

/// The namespace the user works in is remembered. A page across all namespaces that the user
/// may not list falls back to a namespace they may: the one last used, else `default`; with
/// neither, the page stays and its notice asks for one. Gives the screen fallen back to and
/// why.
pub(crate) fn use_namespace_fallback(
    navigation: Navigation,
    tree: Signal<ApiTree>,
    permissions: PermissionsState,
) -> ReadSignal<Option<(Page, String)>> {
    let page = navigation.page;
    let (note, set_note) = signal(None::<(Page, String)>);
    Effect::new(move |_| {
        let current = page.get();
        if let Some(ns) = current.namespace() {
            remember_namespace(ns);
            return;
        }
        let Some((question, noun)) = tree.with(|t| across_namespaces(&current, t)) else {
            return;
        };
        if permissions.may(&question) != Permission::Denied {
            return;
        }
        let candidates = last_namespace()
            .into_iter()
            .chain(Some("default".to_string()));
        for namespace in candidates {
            let here = Question {
                scope: Scope::Namespace(namespace.clone()),
                ..question.clone()
            };
            match permissions.may(&here) {
                Permission::Allowed(_) => {
                    let fallen_back = current.with_namespace(Some(namespace.clone()));
                    set_note.set(Some((
                        fallen_back.screen(),
                        format!(
                            "Showing namespace {namespace}: you may not list {noun} across all namespaces."
                        ),
                    )));
                    navigation.replace(fallen_back);
                    return;
                }
                // Asked; this effect runs again with the answer.
                Permission::Unknown => return,
                Permission::Denied => {}
            }
        }
    });
    note
}

/// The question a page across all namespaces asks of the user's permissions (listing its kind
/// at the cluster scope), and the kind's plural for the words; None for other pages.
fn across_namespaces(page: &Page, tree: &ApiTree) -> Option<(Question, String)> {
    let (group, plural) = match page {
        Page::ResourceList(route) => {
            let found = tree.find(&route.resource)?;
            if !found.resource.namespaced {
                return None;
            }
            (route.resource.group.clone(), route.resource.plural.clone())
        }
        // The overview counts pods, the most numerous of what it watches.
        Page::Overview(_) => (String::new(), "pods".to_string()),
        Page::Events(_) => match events_api(tree)? {
            EventApi::EventsV1 => ("events.k8s.io".to_string(), "events".to_string()),
            EventApi::CoreV1 => (String::new(), "events".to_string()),
        },
        _ => return None,
    };
    Some((
        Question::new(Scope::Cluster, "list", &group, &plural),
        plural,
    ))
}
