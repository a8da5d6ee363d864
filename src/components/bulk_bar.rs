//! The bulk bar, shown while a list has selected rows: how many, "select all N matching the
//! filter", the actions valid for every selected row (each disabled with its reason where
//! the user may do it to none of them), and the parameters an action needs (Delete's
//! propagation, the label or annotation edit, Scale's replicas) before its preview
//! (`components::bulk_preview`).

use leptos::prelude::*;
use serde_json::Value;

use crate::browser::wall_now;
use crate::components::bulk_preview::BulkPreview;
use crate::components::permissions::DenialReason;
use crate::model::api::request::PropagationPolicy;
use crate::model::edit::actions::{Action, BarAction, MetadataEdit, Target};
use crate::state::bulk::{use_bulk, BulkStage, UseBulkOptions};

#[component]
pub fn BulkBar(
    /// The selected objects.
    objects: Signal<Vec<(Target, Value)>>,
    /// "12 selected".
    sentence: Signal<String>,
    count: Signal<usize>,
    /// How many rows match the filter, and whether all of them are selected.
    matching: Signal<usize>,
    all_selected: Signal<bool>,
    on_select_all: Callback<bool>,
    on_clear: Callback<()>,
) -> impl IntoView {
    let bulk = use_bulk(UseBulkOptions { selected: objects });
    let asking = RwSignal::new(None::<BarAction>);
    let shown = move || count.get() > 0 || bulk.stage.with(|s| *s != BulkStage::Idle);
    let preview = Callback::new(move |action: Action| {
        asking.set(None);
        bulk.preview.run(action);
    });
    let click = move |action: BarAction| match action {
        BarAction::Delete | BarAction::Label | BarAction::Annotate | BarAction::Scale => {
            asking.set(Some(action))
        }
        BarAction::Restart => preview.run(Action::restart(wall_now())),
        BarAction::Cordon => preview.run(Action::Cordon),
        BarAction::Uncordon => preview.run(Action::Uncordon),
        BarAction::Evict => preview.run(Action::Evict),
    };
    let buttons = move || {
        bulk.actions
            .get()
            .into_iter()
            .map(|action| {
                let denied = Signal::derive(move || bulk.denial.run(action));
                let id = format!("bulk-denied-{}", action.label().to_lowercase());
                view! {
                    <button
                        type="button"
                        class="bulk-action"
                        data-action=action.label()
                        disabled=move || denied.get().is_some()
                        title=move || denied.get().unwrap_or_default()
                        aria-describedby=id.clone()
                        on:click=move |_| click(action)
                    >
                        {action.label()}
                    </button>
                    <DenialReason id=id reason=denied/>
                }
            })
            .collect_view()
    };
    // When the user may do none of the actions to any of the selected objects, it is said
    // beside the bar, not only on each button.
    let none_allowed = Signal::derive(move || {
        let actions = bulk.actions.get();
        let reasons: Vec<Option<String>> = actions.iter().map(|a| bulk.denial.run(*a)).collect();
        if reasons.is_empty() || reasons.iter().any(Option::is_none) {
            return None;
        }
        reasons.into_iter().flatten().next()
    });
    view! {
        <Show when=shown>
            <div class="bulk-bar" role="region" aria-label="Bulk actions">
                <span class="bulk-count" role="status">{move || sentence.get()}</span>
                {move || (!all_selected.get() && matching.get() > 0).then(|| view! {
                    <button type="button" class="link bulk-select-all" on:click=move |_| on_select_all.run(true)>
                        {format!("Select all {} matching the filter", matching.get())}
                    </button>
                })}
                {move || (count.get() > 0).then(|| view! {
                    <button type="button" class="link bulk-clear" on:click=move |_| on_clear.run(())>
                        "Clear selection"
                    </button>
                })}
                <span class="bulk-actions">{buttons}</span>
                {move || none_allowed.get().map(|reason| view! {
                    <span class="bulk-denied-note" role="note">{reason}</span>
                })}
                {move || asking.get().map(|action| view! {
                    <BulkParams action=action on_preview=preview on_cancel=Callback::new(move |()| asking.set(None))/>
                })}
            </div>
            <BulkPreview bulk=bulk/>
        </Show>
    }
}

/// The parameters of an action that needs them.
#[component]
fn BulkParams(
    action: BarAction,
    on_preview: Callback<Action>,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let propagation = RwSignal::new("Background".to_string());
    let mode = RwSignal::new("add".to_string());
    let key = RwSignal::new(String::new());
    let value = RwSignal::new(String::new());
    let replicas = RwSignal::new("1".to_string());
    let problem = RwSignal::new(None::<String>);
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let built = match action {
            BarAction::Delete => Ok(Action::Delete {
                propagation: match propagation.get_untracked().as_str() {
                    "Foreground" => PropagationPolicy::Foreground,
                    "Orphan" => PropagationPolicy::Orphan,
                    _ => PropagationPolicy::Background,
                },
            }),
            BarAction::Scale => match replicas.get_untracked().trim().parse::<u32>() {
                Ok(replicas) => Ok(Action::Scale { replicas }),
                Err(_) => Err("Replicas must be a whole number, 0 or more.".to_string()),
            },
            _ => metadata_edit(
                &mode.get_untracked(),
                &key.get_untracked(),
                &value.get_untracked(),
            )
            .map(|edit| match action {
                BarAction::Annotate => Action::Annotate(edit),
                _ => Action::Label(edit),
            }),
        };
        match built {
            Ok(built) => on_preview.run(built),
            Err(why) => problem.set(Some(why)),
        }
    };
    let metadata = matches!(action, BarAction::Label | BarAction::Annotate);
    view! {
        <form class="bulk-params" aria-label=format!("{} parameters", action.label()) on:submit=submit>
            {(action == BarAction::Delete).then(|| view! {
                <label>"Propagation "
                    <select aria-label="Propagation" on:change=move |e| propagation.set(event_target_value(&e))>
                        <option value="Background" selected>"Background"</option>
                        <option value="Foreground">"Foreground"</option>
                        <option value="Orphan">"Orphan"</option>
                    </select>
                </label>
            })}
            {(action == BarAction::Scale).then(|| view! {
                <label>"Replicas "
                    <input type="number" min="0" aria-label="Replicas" prop:value=replicas
                        on:input=move |e| replicas.set(event_target_value(&e))/>
                </label>
            })}
            {metadata.then(|| view! {
                <select aria-label="Edit" on:change=move |e| mode.set(event_target_value(&e))>
                    <option value="add" selected>"Add"</option>
                    <option value="change">"Change"</option>
                    <option value="remove">"Remove"</option>
                </select>
                <input type="text" aria-label="Key" placeholder="key" spellcheck="false"
                    on:input=move |e| key.set(event_target_value(&e))/>
                <Show when=move || mode.get() != "remove">
                    <input type="text" aria-label="Value" placeholder="value" spellcheck="false"
                        on:input=move |e| value.set(event_target_value(&e))/>
                </Show>
            })}
            <button type="submit" class="primary">"Preview"</button>
            <button type="button" on:click=move |_| on_cancel.run(())>"Cancel"</button>
            {move || problem.get().map(|p| view! { <span class="field-error" role="alert">{p}</span> })}
        </form>
    }
}

/// The label or annotation edit asked for.
fn metadata_edit(mode: &str, key: &str, value: &str) -> Result<MetadataEdit, String> {
    let key = key.trim().to_string();
    if key.is_empty() {
        return Err("Give the key.".to_string());
    }
    let value = value.trim().to_string();
    Ok(match mode {
        "remove" => MetadataEdit::Remove { key },
        "change" => MetadataEdit::Change { key, value },
        _ => MetadataEdit::Add { key, value },
    })
}
