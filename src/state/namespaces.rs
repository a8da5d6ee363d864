//! The namespaces the global selector offers.

use leptos::prelude::*;

use crate::api;
use crate::model::object::pointer::Pointer;

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
