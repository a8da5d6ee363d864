//! The object page's actions besides editing: Delete (with a confirmation naming the object,
//! the propagation policy and the grace period) and Scale (for kinds with a `scale`
//! subresource), each a write through `state::edit`, with the server's answer shown as it
//! came.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::model::api::errors::ApiError;
use crate::model::api::request::PropagationPolicy;
use crate::state::edit::{self, DeleteChoice};

use super::permissions::DenialReason;
use crate::model::object::pointer::Pointer;

pub use crate::components::metadata_editor::MetadataEditor;

/// Why an action did not happen: input refused before sending, or the server's answer.
#[derive(Debug, Clone)]
pub enum Problem {
    Input(String),
    Api(ApiError),
}

impl From<ApiError> for Problem {
    fn from(error: ApiError) -> Self {
        Problem::Api(error)
    }
}

/// A [`Problem`]: the input's, or the server's Status with its causes.
#[component]
pub fn ProblemView(problem: Problem) -> impl IntoView {
    match problem {
        Problem::Input(text) => view! {
            <p class="error input-problem" role="alert">{format!("{text} — nothing was sent.")}</p>
        }
        .into_any(),
        Problem::Api(error) => view! { <WriteError error=error/> }.into_any(),
    }
}

/// An error of a write, with the Status's causes one per line.
#[component]
pub fn WriteError(error: ApiError) -> impl IntoView {
    let causes: Vec<String> = error
        .causes()
        .iter()
        .map(|c| {
            let field = c.field.clone().unwrap_or_default();
            let message = c.message.clone().unwrap_or_default();
            if field.is_empty() {
                message
            } else {
                format!("{field}: {message}")
            }
        })
        .collect();
    view! {
        <div class="error write-error" role="alert">
            <strong>{error.to_string()}</strong>
            {(!causes.is_empty()).then(|| view! {
                <ul class="causes">{causes.into_iter().map(|c| view! { <li>{c}</li> }).collect_view()}</ul>
            })}
        </div>
    }
}

/// Delete, with a confirmation that names the object.
#[component]
pub fn DeleteAction(
    /// The object's API path.
    path: String,
    /// `Kind name`, as the confirmation names it.
    label: String,
    /// Why the user may not (the control is disabled); unset: allowed or not known.
    #[prop(into, optional)]
    denied: MaybeProp<String>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let propagation = RwSignal::new(PropagationPolicy::Background);
    let grace = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Result<String, Problem>>);
    let busy = RwSignal::new(false);
    let confirm_label = format!("Delete {label}");
    let run = {
        let path = path.clone();
        move |_| {
            let grace_text = grace.get_untracked();
            let grace_period_seconds = match grace_text.trim() {
                "" => None,
                text => match text.parse::<u32>() {
                    Ok(seconds) => Some(seconds),
                    Err(_) => {
                        outcome.set(Some(Err(Problem::Input(String::from(
                            "the grace period must be a whole number of seconds",
                        )))));
                        return;
                    }
                },
            };
            let choice = DeleteChoice {
                propagation: propagation.get_untracked(),
                grace_period_seconds,
            };
            let path = path.clone();
            busy.set(true);
            spawn_local(async move {
                let result = edit::delete(&path, choice).await.map(|written| {
                    // Finalizers hold the object: the answer is the object, marked.
                    let held = written
                        .object
                        .at("/metadata/deletionTimestamp")
                        .is_some();
                    if held {
                        "Deletion requested: the object is Terminating until its finalizers are done."
                            .to_string()
                    } else {
                        "Deleted.".to_string()
                    }
                });
                busy.set(false);
                if result.is_ok() {
                    open.set(false);
                }
                outcome.set(Some(result.map_err(Problem::from)));
            });
        }
    };
    let policy_option = move |policy: PropagationPolicy, help: &'static str| {
        view! {
            <label class="choice">
                <input
                    type="radio"
                    name="propagation"
                    value=policy.as_str()
                    prop:checked=move || propagation.get() == policy
                    on:change=move |_| propagation.set(policy)
                />
                <strong>{policy.as_str()}</strong>
                " — "
                {help}
            </label>
        }
    };
    view! {
        <span class="action delete-action">
            <button
                type="button"
                class="danger"
                disabled=move || denied.get().is_some()
                title=move || denied.get()
                aria-describedby="denied-delete"
                on:click=move |_| { outcome.set(None); open.set(true) }
            >
                "Delete"
            </button>
            <DenialReason id="denied-delete".into() reason=Signal::derive(move || denied.get())/>
            {move || open.get().then(|| view! {
                <div class="dialog" role="dialog" aria-label="Confirm delete">
                    <p>{format!("Delete {label}?")}</p>
                    <fieldset>
                        <legend>"What happens to the objects it owns"</legend>
                        {policy_option(PropagationPolicy::Background, "deleted after it, by the garbage collector")}
                        {policy_option(PropagationPolicy::Foreground, "deleted first; it stays Terminating until they are gone")}
                        {policy_option(PropagationPolicy::Orphan, "kept, their owner reference removed")}
                    </fieldset>
                    <label>
                        "Grace period (seconds, empty for the object's own) "
                        <input type="number" min="0" class="grace" prop:value=move || grace.get()
                            on:input=move |ev| grace.set(event_target_value(&ev))/>
                    </label>
                    <div class="buttons">
                        <button type="button" class="danger" disabled=move || busy.get() on:click=run.clone()>
                            {confirm_label.clone()}
                        </button>
                        <button type="button" on:click=move |_| open.set(false)>"Cancel"</button>
                    </div>
                </div>
            })}
            {move || outcome.get().map(|result| match result {
                Ok(text) => view! { <p class="notice" role="status">{text}</p> }.into_any(),
                Err(problem) => view! { <ProblemView problem=problem/> }.into_any(),
            })}
        </span>
    }
}

/// The replicas the object asks for (`spec.replicas`), when it says.
fn desired_replicas(object: &Value) -> Option<u64> {
    object.at("/spec/replicas").and_then(Value::as_u64)
}

/// Scale through `/scale`, as `kubectl scale` does.
#[component]
pub fn ScaleAction(
    scale_path: String,
    object: Signal<Option<Value>>,
    #[prop(into, optional)] denied: MaybeProp<String>,
) -> impl IntoView {
    let wanted = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Result<String, Problem>>);
    let busy = RwSignal::new(false);
    let current = move || object.with(|o| o.as_ref().and_then(desired_replicas));
    let run = move |_| {
        let text = wanted.get_untracked();
        let replicas = match text.trim().parse::<u32>() {
            Ok(n) => n,
            Err(_) => {
                outcome.set(Some(Err(Problem::Input(
                    "replicas must be a whole number, 0 or more".into(),
                ))));
                return;
            }
        };
        let path = scale_path.clone();
        busy.set(true);
        spawn_local(async move {
            let result = edit::scale(&path, replicas)
                .await
                .map(|_| format!("Scaled to {replicas}."));
            busy.set(false);
            outcome.set(Some(result.map_err(Problem::from)));
        });
    };
    view! {
        <span class="action scale-action">
            <label>
                "Replicas "
                <input
                    type="number"
                    min="0"
                    class="replicas"
                    aria-label="Replicas"
                    placeholder=move || current().map(|n| n.to_string()).unwrap_or_default()
                    prop:value=move || wanted.get()
                    on:input=move |ev| wanted.set(event_target_value(&ev))
                />
            </label>
            <button
                type="button"
                disabled=move || busy.get() || denied.get().is_some()
                title=move || denied.get()
                aria-describedby="denied-scale"
                on:click=run
            >
                "Scale"
            </button>
            <DenialReason id="denied-scale".into() reason=Signal::derive(move || denied.get())/>
            {move || outcome.get().map(|result| match result {
                Ok(text) => view! { <span class="notice" role="status">{text}</span> }.into_any(),
                Err(problem) => view! { <ProblemView problem=problem/> }.into_any(),
            })}
        </span>
    }
}
