//! Quick label and annotation edits on the object page.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::object_actions::{Problem, ProblemView};

use crate::model::edit::{check_metadata_entry, metadata_entry_patch, MetadataMap};
use crate::state::edit;

use super::permissions::DenialReason;

/// Quick label or annotation edits (`kubectl label` / `kubectl annotate`): add or change one
/// entry as `key=value`, or remove one, each a merge patch.
#[component]
pub fn MetadataEditor(
    path: String,
    map: MetadataMap,
    /// The keys there now, for their remove buttons.
    keys: Signal<Vec<String>>,
    #[prop(into, optional)] denied: MaybeProp<String>,
) -> impl IntoView {
    let entry = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Result<String, Problem>>);
    let noun = match map {
        MetadataMap::Labels => "label",
        MetadataMap::Annotations => "annotation",
    };
    let path = StoredValue::new(path);
    let send = move |key: String, value: Option<String>| {
        if let Some(value) = &value {
            if let Err(problem) = check_metadata_entry(map, &key, value) {
                outcome.set(Some(Err(Problem::Input(problem))));
                return;
            }
        }
        let patch = metadata_entry_patch(map, &key, value.as_deref());
        spawn_local(async move {
            let result = edit::merge_patch(&path.get_value(), &patch)
                .await
                .map(|_| match value {
                    Some(value) => format!("Set {noun} {key}={value}."),
                    None => format!("Removed {noun} {key}."),
                });
            if result.is_ok() {
                entry.set(String::new());
            }
            outcome.set(Some(result.map_err(Problem::from)));
        });
    };
    let add = move |_| {
        let text = entry.get_untracked();
        match text.split_once('=') {
            Some((key, value)) => send(key.trim().to_string(), Some(value.to_string())),
            None => outcome.set(Some(Err(Problem::Input(format!(
                "write the {noun} as key=value"
            ))))),
        }
    };
    view! {
        <div class="metadata-editor" data-map=map.field()>
            {move || keys.get().into_iter().map(|key| {
                let label = format!("Remove {noun} {key}");
                let removed = key.clone();
                view! {
                    <button type="button" class="remove-entry" aria-label=label.clone()
                        title=move || denied.get().unwrap_or_else(|| label.clone())
                        disabled=move || denied.get().is_some()
                        on:click=move |_| send(removed.clone(), None)>{format!("× {key}")}</button>
                }
            }).collect_view()}
            <input type="text" class="entry" placeholder="key=value" aria-label=format!("New {noun} (key=value)")
                prop:value=move || entry.get() on:input=move |ev| entry.set(event_target_value(&ev))/>
            <button
                type="button"
                disabled=move || denied.get().is_some()
                title=move || denied.get()
                aria-describedby=format!("denied-{noun}")
                on:click=add
            >
                {format!("Set {noun}")}
            </button>
            <DenialReason id=format!("denied-{noun}") reason=Signal::derive(move || denied.get())/>
            {move || outcome.get().map(|result| match result {
                Ok(text) => view! { <span class="notice" role="status">{text}</span> }.into_any(),
                Err(problem) => view! { <ProblemView problem=problem/> }.into_any(),
            })}
        </div>
    }
}
