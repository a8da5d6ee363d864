//! A bulk action's preview and results: while permissions and the server's dry run are
//! asked, how far; then each object and what will happen to it (sent, not applicable, or
//! denied with the reason: "3 of 20 you may not delete"), Confirm and Cancel; then each
//! object's result (done, refused with the server's message), kept until dismissed.

use leptos::prelude::*;

use crate::model::edit::actions::{BulkPlan, BulkRun, DryRun, ObjectResult, Target, Verdict};
use crate::state::bulk::{BulkStage, UseBulkReturn};

#[component]
pub fn BulkPreview(bulk: UseBulkReturn) -> impl IntoView {
    move || {
        match bulk.stage.get() {
        BulkStage::Idle => None,
        BulkStage::Checking {
            action,
            asked,
            answered,
        } => Some(
            view! {
                <div class="bulk-preview" role="status" aria-busy="true">
                    {format!(
                        "Checking what you may {} and asking the server for a dry run… {answered} of {asked}",
                        action.verb()
                    )}
                    " "
                    <button type="button" on:click=move |_| bulk.dismiss.run(())>"Cancel"</button>
                </div>
            }
            .into_any(),
        ),
        BulkStage::Preview(plan) => Some(view! { <PlanView plan=plan bulk=bulk/> }.into_any()),
        BulkStage::Running(run) => Some(view! { <RunView run=run bulk=bulk finished=false/> }.into_any()),
        BulkStage::Finished(run) => Some(view! { <RunView run=run bulk=bulk finished=true/> }.into_any()),
    }
    }
}

fn object_name(target: &Target) -> String {
    match &target.namespace {
        Some(ns) => format!("{ns}/{}", target.name),
        None => target.name.clone(),
    }
}

#[component]
fn PlanView(plan: BulkPlan, bulk: UseBulkReturn) -> impl IntoView {
    let verb = plan.action.verb();
    let sending = plan.requests().len();
    let heading = format!(
        "{} {} of {}?",
        capitalized(verb),
        sending,
        plan.objects.len()
    );
    let denial = plan.denial_sentence();
    let sends = plan.sends_anything();
    let rows = plan
        .objects
        .into_iter()
        .map(|planned| {
            let (state, what) = match &planned.verdict {
                Verdict::Send(_) => ("send", format!("will {verb}")),
                Verdict::NotApplicable(why) => ("not-applicable", format!("not applicable: {why}")),
                Verdict::Denied(why) => ("denied", format!("you may not: {why}")),
            };
            let dry_run = match planned.checked {
                DryRun::Unasked => String::new(),
                DryRun::Passed => "dry run passed".to_string(),
                // Already said beside it.
                DryRun::Refused { message, code } if what.ends_with(&message) => match code {
                    Some(code) => format!("refused ({code})"),
                    None => "refused".to_string(),
                },
                DryRun::Refused { message, .. } => format!("dry run: {message}"),
            };
            let name = object_name(&planned.target);
            view! {
                <tr data-name=planned.target.name.clone() data-verdict=state class=state>
                    <td>{name}</td>
                    <td class="bulk-verdict">{what}</td>
                    <td class="bulk-dry-run">{dry_run}</td>
                    <td><code>{planned.kubectl}</code></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="bulk-preview" role="dialog" aria-label=heading.clone()>
            <h2>{heading.clone()}</h2>
            {denial.map(|d| view! { <p class="bulk-denial" role="note">{d}</p> })}
            // Above the objects: a long selection does not push them out of reach.
            <p class="bulk-buttons">
                <button type="button" class="danger bulk-confirm" disabled=!sends on:click=move |_| bulk.confirm.run(())>
                    {format!("{} {sending}", capitalized(verb))}
                </button>
                <button type="button" on:click=move |_| bulk.dismiss.run(())>"Cancel"</button>
            </p>
            <div class="bulk-scroll">
            <table class="bulk-objects">
                <thead><tr><th>"Object"</th><th>"What will happen"</th><th>"Server dry run"</th><th>"kubectl"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            </div>
        </div>
    }
}

#[component]
fn RunView(run: BulkRun, bulk: UseBulkReturn, finished: bool) -> impl IntoView {
    let summary = run.summary();
    let rows = run
        .items
        .into_iter()
        .map(|item| {
            let (state, text) = match &item.result {
                ObjectResult::Waiting => ("waiting", "waiting".to_string()),
                ObjectResult::Sent => ("sent", "sent…".to_string()),
                ObjectResult::NeedsLatest => {
                    ("retrying", "changed meanwhile: read again…".to_string())
                }
                ObjectResult::Done => ("done", "done".to_string()),
                ObjectResult::Refused { code, message } => (
                    "refused",
                    match code {
                        Some(code) => format!("refused ({code}): {message}"),
                        None => format!("refused: {message}"),
                    },
                ),
            };
            view! {
                <tr data-name=item.target.name.clone() data-result=state class=state>
                    <td>{object_name(&item.target)}</td>
                    <td class="bulk-result">{text}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="bulk-results" role="region" aria-label="Bulk results">
            <p>
                <span class="bulk-summary" role="status">{summary}</span>
                " "
                <button type="button" disabled=!finished on:click=move |_| bulk.dismiss.run(())>"Dismiss"</button>
            </p>
            <div class="bulk-scroll"><table class="bulk-objects"><tbody>{rows}</tbody></table></div>
        </div>
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
