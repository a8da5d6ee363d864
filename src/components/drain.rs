//! *Drain…* on a node's page: what `kubectl drain --ignore-daemonsets --delete-emptydir-data`
//! would evict, skip and ask consent for, then each pod's progress (a PodDisruptionBudget's
//! refusal shown with its name and disruptionsAllowed, retried, never forced) and *Stop*.

use leptos::prelude::*;
use serde_json::Value;

use crate::model::edit::actions::{Consent, DrainPlan, PodProgress, Skip};
use crate::state::drain::{use_drain, DrainPhase, UseDrainReturn};

#[component]
pub fn DrainPanel(node: Signal<Option<Value>>, denied: Signal<Option<String>>) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <details class="drain-panel" on:toggle=move |ev| {
            use wasm_bindgen::JsCast;
            let now_open = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
                .is_some_and(|d| d.open());
            open.set(now_open);
        }>
            <summary>"Drain…"</summary>
            {move || open.get().then(|| node.get_untracked()).flatten().map(|node| {
                view! { <DrainView node=node denied=denied/> }
            })}
        </details>
    }
}

#[component]
fn DrainView(node: Value, denied: Signal<Option<String>>) -> impl IntoView {
    let UseDrainReturn {
        phase,
        progress,
        start,
        stop,
    } = use_drain(node);
    let consents = RwSignal::new(Vec::<Consent>::new());
    let plan_view = move |plan: DrainPlan| {
        let evicted: Vec<String> = plan.evict.iter().map(|p| pod_name(&p.target)).collect();
        let skipped: Vec<String> = plan
            .skipped
            .iter()
            .map(|(t, why)| {
                let why = match why {
                    Skip::DaemonSet => "DaemonSet pod",
                    Skip::Mirror => "mirror pod",
                };
                format!("{} ({why})", pod_name(t))
            })
            .collect();
        let needed = plan
            .consents_needed()
            .into_iter()
            .map(|(consent, pods)| {
                let names: Vec<String> = pods.iter().map(|t| pod_name(t)).collect();
                let label = match consent {
                    Consent::Unmanaged => "Evict pods no controller will recreate",
                    Consent::LocalData => "Delete their emptyDir data",
                };
                view! {
                    <label class="check">
                        <input type="checkbox" on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            consents.update(|c| {
                                c.retain(|x| *x != consent);
                                if on {
                                    c.push(consent);
                                }
                            });
                        }/>
                        {format!("{label} ({}): {}", consent.flag(), names.join(", "))}
                    </label>
                }
            })
            .collect_view();
        let command = {
            let plan = plan.clone();
            move || plan.kubectl(&consents.get())
        };
        view! {
            <p>{format!("Cordons {}, then evicts {} pod(s): {}.", plan.node, evicted.len(), evicted.join(", "))}</p>
            {(!skipped.is_empty()).then(|| view! { <p class="muted">{format!("Leaves: {}.", skipped.join(", "))}</p> })}
            {needed}
            <p class="muted mono">{command}</p>
            <button type="button" class="danger" disabled=move || denied.get().is_some() title=move || denied.get()
                on:click=move |_| start.run(consents.get_untracked())>"Drain"</button>
        }
    };
    let rows = move || {
        progress.get().map(|drain| {
            drain
                .pods
                .into_iter()
                .map(|(target, state)| {
                    let settled = state.is_settled();
                    view! {
                        <li class="drain-pod" data-settled=settled.to_string()>
                            <span class="mono">{pod_name(&target)}</span>": "{progress_text(&state)}
                        </li>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <div class="drain-view">
            {move || match phase.get() {
                DrainPhase::Planning => view! { <p class="loading">"Reading the node's pods…"</p> }.into_any(),
                DrainPhase::Planned(plan) => plan_view(plan).into_any(),
                DrainPhase::Running => view! {
                    <p role="status">"Draining…" <button type="button" on:click=move |_| stop.run(())>"Stop"</button></p>
                }
                .into_any(),
                DrainPhase::Finished => view! { <p role="status" class="notice">"Drained: the node stays cordoned."</p> }.into_any(),
                DrainPhase::Stopped(sentence) => view! { <p role="status" class="notice">{sentence}</p> }.into_any(),
                DrainPhase::Failed(why) => view! { <p role="alert" class="error">{why}</p> }.into_any(),
            }}
            <ul class="drain-pods">{rows}</ul>
        </div>
    }
}

fn pod_name(target: &crate::model::edit::actions::Target) -> String {
    match &target.namespace {
        Some(ns) => format!("{ns}/{}", target.name),
        None => target.name.clone(),
    }
}

fn progress_text(state: &PodProgress) -> String {
    match state {
        PodProgress::Pending => "waiting".into(),
        PodProgress::Evicting { attempt } if *attempt > 1 => {
            format!("evicting (attempt {attempt})")
        }
        PodProgress::Evicting { .. } => "evicting".into(),
        PodProgress::Evicted => "evicted; terminating".into(),
        PodProgress::RefusedByBudget {
            budget,
            disruptions_allowed,
            attempt,
            ..
        } => format!(
            "refused by PodDisruptionBudget {}{} (attempt {attempt}); retrying",
            budget.as_deref().unwrap_or("(unnamed)"),
            disruptions_allowed
                .map(|n| format!(", disruptionsAllowed {n}"))
                .unwrap_or_default()
        ),
        PodProgress::Retrying { message, .. } => format!("retrying: {message}"),
        PodProgress::Gone => "gone".into(),
        PodProgress::Failed { reason } => format!("failed: {reason}"),
    }
}
