//! The object as YAML and JSON, and read through every served version of its group.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::Copyable;
use crate::model::object::page::{pretty_json, shown_object};
use crate::model::object::yaml::to_yaml;
use crate::model::ApiTree;
use crate::pages::object::ObjectIdentity;
use crate::state::object::{use_versions, UseVersionsOptions, VersionRead};

pub(super) fn text_view(object: &Value, yaml: bool) -> impl IntoView {
    let show_managed = RwSignal::new(false);
    let object = object.clone();
    move || {
        let (text, folded) = if yaml {
            let (shown, folded) = shown_object(&object, show_managed.get());
            (to_yaml(&shown).unwrap_or_else(|e| e), folded)
        } else {
            let pretty = pretty_json(&object, show_managed.get());
            (pretty.text, pretty.managed_fields_folded)
        };
        view! {
            <div class="text-tools">
                <Copyable text=text.clone()/>
                {(folded > 0).then(|| view! {
                    <button type="button" on:click=move |_| show_managed.set(true)>
                        {format!("Show {folded} managedFields entries")}
                    </button>
                })}
                {move || show_managed.get().then(|| view! {
                    <button type="button" on:click=move |_| show_managed.set(false)>"Fold managedFields"</button>
                })}
            </div>
            <pre class="object-text" tabindex="0" aria-label=if yaml { "YAML" } else { "JSON" }>{text}</pre>
        }
    }
}

#[component]
pub(super) fn VersionsView(tree: ApiTree, identity: ObjectIdentity) -> impl IntoView {
    let reads = use_versions(UseVersionsOptions {
        tree,
        resource: identity.resource.clone(),
        namespace: identity.namespace.clone(),
        name: identity.name.clone(),
    })
    .reads;
    view! {
        <p>
            "The API server stores one copy of each object and converts it to whichever served \
             version a client asks for: here is this object read through each version of its group."
        </p>
        {move || {
            reads
                .get()
                .into_iter()
                .map(|read: VersionRead| {
                    let title = format!(
                        "{}{}",
                        read.version,
                        if read.preferred { " (preferred)" } else { "" }
                    );
                    let body = match &read.result {
                        Ok(object) => {
                            let (shown, _) = shown_object(object, false);
                            let text = to_yaml(&shown).unwrap_or_else(|e| e);
                            view! { <pre class="object-text" tabindex="0" aria-label="Object as read through this version">{text}</pre> }.into_any()
                        }
                        Err(error) => view! { <p class="error">{error.to_string()}</p> }.into_any(),
                    };
                    view! {
                        <details class="version-read" open=read.preferred data-version=read.version.clone()>
                            <summary>{title}</summary>
                            {body}
                        </details>
                    }
                })
                .collect_view()
        }}
    }
}
