//! The object page's actions toolbar: the day-two actions for the kind, Drain… on nodes,
//! Scale where a `scale` subresource is served, Delete; each disabled with its reason.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::day_two::DayTwoActions;
use crate::components::drain::DrainPanel;
use crate::components::object_actions::{DeleteAction, ScaleAction};
use crate::model::ApiTree;
use crate::pages::object::ObjectIdentity;

/// The toolbar for `identity` (served at `path`), acting on the live `object`.
pub(super) fn object_actions(
    tree: &ApiTree,
    identity: &ObjectIdentity,
    path: &str,
    object: Signal<Option<Value>>,
) -> impl IntoView {
    let found = tree.find(&identity.resource);
    let deletable = found
        .as_ref()
        .is_some_and(|r| r.resource.supports("delete"));
    let scale_path = found.as_ref().and_then(|r| {
        let scale = r.resource.subresource("scale")?;
        scale.supports("patch").then(|| format!("{path}/scale"))
    });
    let label = format!(
        "{} {}",
        found
            .as_ref()
            .map(|r| r.resource.kind.clone())
            .unwrap_or_default(),
        identity.name
    );
    let scale_denied = identity.denial("patch", "scale");
    // Drain cordons first: a user who may not patch the node may not drain it.
    let drainable = identity.resource.group.is_empty() && identity.resource.plural == "nodes";
    let cordon_denied = identity.denial("patch", "");
    let delete_denied = identity.denial("delete", "");
    view! {
        <div class="object-actions" role="toolbar" aria-label="Object actions">
            <DayTwoActions object=object/>
            {drainable.then(|| view! { <DrainPanel node=object denied=cordon_denied/> })}
            {scale_path.map(|scale_path| view! { <ScaleAction scale_path=scale_path object=object denied=scale_denied/> })}
            {deletable.then(|| view! { <DeleteAction path=path.to_string() label=label.clone() denied=delete_denied/> })}
        </div>
    }
}
