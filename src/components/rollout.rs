//! A workload's revisions as `kubectl rollout history --revision` shows them, but each as the
//! diff of its pod template from the revision before, and for a Deployment *Roll back to
//! this revision*: the server's dry run reviewed, then confirmed.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::time::past_time_text;
use crate::components::DenialReason;
use crate::model::edit::RollbackStep;
use crate::model::history::{PastTime, RolloutRevision};
use crate::model::object::pointer::Pointer;
use crate::state::rollback::UseRollback;

/// The revisions, newest first; `rollback` for a Deployment.
#[component]
pub fn RolloutView(
    #[prop(into)] revisions: Signal<Vec<RolloutRevision>>,
    /// The objects holding them (a Deployment's ReplicaSets), to roll back to.
    #[prop(into)]
    holders: Signal<Vec<Value>>,
    #[prop(optional)] rollback: Option<UseRollback>,
    /// Why the user may not update the workload (the rollback disabled).
    #[prop(into)]
    denied: Signal<Option<String>>,
) -> impl IntoView {
    let rows = move || {
        revisions
            .get()
            .into_iter()
            .rev()
            .map(|revision| revision_view(revision, holders, rollback, denied))
            .collect_view()
    };
    view! {
        <section class="rollout-history" aria-label="Rollout history">
            <h3>"Revisions"</h3>
            <p class="muted">
                "As kubectl rollout history, newest first: each revision with its pod template's \
                 changes from the revision before (kubectl rollout history --revision, as a diff)."
            </p>
            {move || revisions.with(Vec::is_empty).then(|| view! { <p class="muted">"No revisions found among the loaded objects."</p> })}
            <ol class="revisions">{rows}</ol>
            {rollback.map(|rollback| view! { <RollbackReview rollback=rollback/> })}
        </section>
    }
}

fn revision_view(
    revision: RolloutRevision,
    holders: Signal<Vec<Value>>,
    rollback: Option<UseRollback>,
    denied: Signal<Option<String>>,
) -> impl IntoView {
    let number = revision.revision;
    let name = revision.name.clone();
    let created = revision.created_ms.map_or(PastTime::Unknown, PastTime::At);
    let head = match revision.previous {
        Some(previous) => format!("revision {previous} → {number}"),
        None => format!("revision {number}"),
    };
    let diff = if revision.previous.is_none() {
        view! { <p class="muted">"The oldest revision kept: nothing to compare it with."</p> }
            .into_any()
    } else if revision.changes.is_empty() {
        view! { <p class="muted">"The same template as the revision before."</p> }.into_any()
    } else {
        view! {
            <ul class="template-diff" aria-label="Template diff">
                {revision.change_lines().into_iter().map(|l| view! { <li class="mono">{l}</li> }).collect_view()}
            </ul>
        }
        .into_any()
    };
    let button = rollback.filter(|_| !revision.current).map(|rollback| {
        let holder_name = name.clone();
        let id = format!("denied-rollback-{number}");
        let start = move |_| {
            let holder = holders.with_untracked(|holders| {
                holders
                    .iter()
                    .find(|h| {
                        h.at("/metadata/name").and_then(Value::as_str) == Some(holder_name.as_str())
                    })
                    .cloned()
            });
            if let Some(holder) = holder {
                rollback.start.run((number, holder));
            }
        };
        view! {
            <button
                type="button"
                class="rollback"
                disabled=move || denied.get().is_some()
                title=move || denied.get()
                aria-describedby=id.clone()
                on:click=start
            >
                "Roll back to this revision"
            </button>
            <DenialReason id=id reason=denied/>
        }
    });
    view! {
        <li class="rollout-revision" data-revision=number data-current=revision.current.to_string()>
            <div class="revision-head">
                <strong>{head}</strong>
                " "
                <span class="mono">{name}</span>
                {revision.current.then(|| view! { <span class="badge current">"current"</span> })}
                <span class="when mono">{format!(" created {}", past_time_text(&created))}</span>
                {revision.replicas.map(|r| view! { <span class="muted">{format!(" · {r} replica(s)")}</span> })}
                {revision.change_cause.clone().map(|c| view! { <span class="muted">{format!(" · {c}")}</span> })}
            </div>
            {diff}
            {button}
        </li>
    }
}

/// The rollback under way: the dry run's answer to confirm, then its outcome.
#[component]
fn RollbackReview(rollback: UseRollback) -> impl IntoView {
    let state = rollback.rollback;
    move || {
        state.with(|r| {
            let r = r.as_ref()?;
            let title = format!(
                "Roll back to revision {} ({})",
                r.revision,
                r.replica_set
                    .at("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            );
            let meanwhile = (r.written_meanwhile > 0).then(|| view! {
                <p class="warning">"The Deployment was written meanwhile (409 Conflict): the rollback was computed again from its latest version. Review it again."</p>
            });
            let body = match r.step() {
                RollbackStep::DryRun => view! { <p class="loading">"Asking the server for a dry run…"</p> }.into_any(),
                RollbackStep::Review(review) => view! {
                    <p>"The server's dry run says the rollback would change:"</p>
                    <ul class="review-changes" aria-label="Dry run changes">
                        {review.changes.iter().map(|c| view! { <li class="mono">{c.describe()}</li> }).collect_view()}
                    </ul>
                    {review.warnings.iter().map(|w| view! { <p class="warning">{w.clone()}</p> }).collect_view()}
                    <button type="button" class="confirm-rollback" on:click=move |_| rollback.confirm.run(())>"Confirm rollback"</button>
                    " "
                    <button type="button" on:click=move |_| rollback.cancel.run(())>"Cancel"</button>
                }
                .into_any(),
                RollbackStep::Saving => view! { <p class="loading">"Rolling back…"</p> }.into_any(),
                RollbackStep::Done { resource_version } => view! {
                    <p class="notice" role="status">
                        {format!("Rolled back (resourceVersion {resource_version}): the deployment controller now rolls out revision {}'s template as a new revision.", r.revision)}
                    </p>
                    <button type="button" on:click=move |_| rollback.cancel.run(())>"Close"</button>
                }
                .into_any(),
                RollbackStep::Failed(error) => view! {
                    <p class="error" role="alert">{format!("The rollback failed: {error}")}</p>
                    <button type="button" on:click=move |_| rollback.cancel.run(())>"Close"</button>
                }
                .into_any(),
            };
            Some(view! {
                <div class="rollback-review" role="region" aria-label="Rollback">
                    <h4>{title}</h4>
                    {meanwhile}
                    {body}
                </div>
            })
        })
    }
}
