//! The namespaces the global selector offers.

use crate::api;

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
        .filter_map(|item| item.pointer("/metadata/name").and_then(|n| n.as_str()))
        .map(str::to_string)
        .collect();
    names.sort();
    Some(names)
}
