//! The application shell.

use leptos::prelude::*;

use crate::api;
use crate::components::GroupList;
use crate::state::request_log;

async fn load_groups() -> Result<Vec<(String, Vec<String>)>, String> {
    let core = api::get("/api", "application/json")
        .await
        .map_err(|e| e.to_string())?;
    let core: serde_json::Value =
        serde_json::from_str(&core.body).map_err(|e| format!("/api did not return JSON: {e}"))?;
    let mut groups = vec![(
        String::new(),
        core.get("versions")
            .and_then(|v| v.as_array())
            .map(|vs| {
                vs.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
    )];
    let named = api::get("/apis", "application/json")
        .await
        .map_err(|e| e.to_string())?;
    let named: serde_json::Value =
        serde_json::from_str(&named.body).map_err(|e| format!("/apis did not return JSON: {e}"))?;
    for group in named
        .get("groups")
        .and_then(|g| g.as_array())
        .into_iter()
        .flatten()
    {
        let name = group.get("name").and_then(|n| n.as_str()).unwrap_or("");
        let versions = group
            .get("versions")
            .and_then(|v| v.as_array())
            .map(|vs| {
                vs.iter()
                    .filter_map(|v| {
                        v.get("version")
                            .and_then(|v| v.as_str())
                            .map(str::to_string)
                    })
                    .collect()
            })
            .unwrap_or_default();
        groups.push((name.to_string(), versions));
    }
    Ok(groups)
}

#[component]
pub fn App() -> impl IntoView {
    let _log = request_log::install();
    let groups = LocalResource::new(load_groups);
    view! {
        <header class="app-header">
            <span class="brand">"Kube Atlas"</span>
        </header>
        <main class="app-main">
            {move || match groups.get() {
                None => view! { <p class="loading">"Loading discovery…"</p> }.into_any(),
                Some(Ok(groups)) => view! { <GroupList groups=groups/> }.into_any(),
                Some(Err(error)) => view! { <p class="error" role="alert">{error}</p> }.into_any(),
            }}
        </main>
    }
}
