//! The object page's day-two actions (Restart, Pause/Resume, Trigger now, Suspend/Resume,
//! Re-run, Cordon/Uncordon, Evict): each button names the kubectl command it is, is disabled
//! with its reason where the permissions say no, asks first when it takes something away
//! (Evict), and says what it did with a link to follow it.

use leptos::prelude::*;
use serde_json::Value;

use crate::components::object_actions::{Problem, ProblemView};
use crate::model::edit::actions::{Action, Target};
use crate::state::day_two::{
    action_label, offered_actions, perform, use_action_denial, ActionDone,
};

/// The actions for the object's kind; nothing for kinds without any.
#[component]
pub fn DayTwoActions(object: Signal<Option<Value>>) -> impl IntoView {
    // The buttons are built again when the object's kind or the offered pair changes (a
    // Deployment paused shows Resume), not at every change of the object.
    let offered = Memo::new(move |_| {
        object.with(|o| {
            let o = o.as_ref()?;
            let target = Target::of(o)?;
            let labels: Vec<&'static str> = offered_actions(&target.kind, o)
                .iter()
                .map(action_label)
                .collect();
            Some((target, labels))
        })
    });
    move || {
        let (target, _) = offered.get()?;
        let actions = object.with_untracked(|o| {
            o.as_ref()
                .map(|o| offered_actions(&target.kind, o))
                .unwrap_or_default()
        });
        let buttons = actions
            .into_iter()
            .map(|action| view! { <ActionButton action=action target=target.clone() object=object/> })
            .collect_view();
        Some(view! { <span class="day-two-actions">{buttons}</span> })
    }
}

#[component]
fn ActionButton(action: Action, target: Target, object: Signal<Option<Value>>) -> impl IntoView {
    let denied = use_action_denial(&action, &target);
    let command = action.kubectl(&target);
    let label = action_label(&action);
    let asks_first = matches!(action, Action::Evict);
    let confirming = RwSignal::new(false);
    let busy = RwSignal::new(false);
    let outcome = RwSignal::new(None::<Result<ActionDone, Problem>>);
    let action = StoredValue::new(action);
    let target = StoredValue::new(target);
    let run = move || {
        let Some(live) = object.get_untracked() else {
            return;
        };
        confirming.set(false);
        busy.set(true);
        perform(
            action.get_value(),
            target.get_value(),
            live,
            move |result| {
                busy.try_set(false);
                outcome.try_set(Some(result.map_err(Problem::from)));
            },
        );
    };
    let click = move |_| {
        if asks_first {
            confirming.set(true);
        } else {
            run();
        }
    };
    let title = {
        let command = command.clone();
        move || denied.get().unwrap_or_else(|| command.clone())
    };
    view! {
        <span class="action day-two-action">
            <button type="button" disabled=move || busy.get() || denied.get().is_some() title=title on:click=click>
                {label}
            </button>
            {move || confirming.get().then(|| {
                let name = target.with_value(|t| format!("{} {}", t.kind, t.name));
                view! {
                    <span class="confirm" role="alertdialog" aria-label=format!("{label} {name}?")>
                        {format!("{label} {name}? ")}
                        <button type="button" class="danger" on:click=move |_| run()>{label}</button>
                        <button type="button" on:click=move |_| confirming.set(false)>"Cancel"</button>
                    </span>
                }
            })}
            {move || outcome.get().map(|result| match result {
                Ok(done) => view! {
                    <span class="notice" role="status">
                        {done.sentence}
                        {done.follow.map(|(text, href)| view! { " " <a href=href>{text}</a> })}
                    </span>
                }
                .into_any(),
                Err(problem) => view! { <ProblemView problem=problem/> }.into_any(),
            })}
        </span>
    }
}
