//! Permissions in views: a stream the server forbade (what is missing, in words; where the
//! user may do it instead; try again), and the reason a write control is disabled.

use leptos::prelude::*;

use crate::model::permissions::{Forbidden, Question, Scope};
use crate::model::watch::{StreamPhase, WatchStatus};
use crate::state::namespaces::use_known_namespaces;
use crate::state::permissions::{last_namespace, use_permissions};
use crate::state::watch::WatchHub;

/// Namespaces offered instead, at most (each costs one rules review).
const MAX_ALTERNATIVES: usize = 12;

/// Shown while a stream is forbidden (nothing otherwise): the refusal in words, the
/// namespaces where the same request is allowed (linked through `elsewhere`), and a button
/// that asks again (after forgetting what was known of the user's permissions).
#[component]
pub fn ForbiddenNotice(
    #[prop(into)] status: Signal<WatchStatus>,
    /// Whether the refused kind is namespaced (for the wording).
    namespaced: bool,
    /// The same view in another namespace, when it has one.
    #[prop(default = None)]
    elsewhere: Option<Callback<String, String>>,
) -> impl IntoView {
    let permissions = use_permissions();
    let known_namespaces = use_known_namespaces();
    let hub = use_context::<WatchHub>();
    let refusal = Memo::new(move |_| {
        status.with(|s| {
            (s.phase == StreamPhase::Forbidden)
                .then(|| Forbidden::from_message(s.forbidden.as_deref().unwrap_or_default()))
        })
    });
    // Refused where the known rules said yes: they are out of date (a binding removed since),
    // so everything known is asked again.
    Effect::new(move |_| {
        let question = refusal.with(|r| r.as_ref().and_then(|r| r.question.clone()));
        if let Some(question) = question {
            if permissions.may(&question).is_allowed() {
                permissions.refresh();
            }
        }
    });
    let retry = move |_| {
        permissions.refresh();
        if let Some(hub) = hub {
            hub.retry_forbidden();
        }
    };
    move || {
        let refused = refusal.get()?;
        let explanation = refused.explain(namespaced);
        let alternatives = match (&refused.question, elsewhere) {
            (Some(question), Some(href_of)) if namespaced => {
                let candidates = candidate_namespaces(known_namespaces.get());
                let allowed: Vec<String> = candidates
                    .into_iter()
                    .filter(|ns| Some(ns.as_str()) != question.scope.namespace())
                    .filter(|ns| {
                        let here = Question {
                            scope: Scope::Namespace(ns.clone()),
                            name: String::new(),
                            ..question.clone()
                        };
                        permissions.may(&here).is_allowed()
                    })
                    .collect();
                let verb = question.verb.clone();
                let resource = question.resource_phrase();
                Some(if allowed.is_empty() {
                    view! {
                        <p class="forbidden-alternatives">
                            {format!("No namespace known here lets you {verb} {resource}: choose one you may read in the Namespace field.")}
                        </p>
                    }
                    .into_any()
                } else {
                    view! {
                        <p class="forbidden-alternatives">
                            {format!("You may {verb} {resource} in: ")}
                            {allowed
                                .into_iter()
                                .map(|ns| {
                                    let href = href_of.run(ns.clone());
                                    view! { <a class="namespace-link" href=href>{ns}</a>" " }
                                })
                                .collect_view()}
                        </p>
                    }
                    .into_any()
                })
            }
            _ => None,
        };
        Some(view! {
            <div class="forbidden" role="alert" data-forbidden="true">
                <p>
                    <strong>"Not allowed. "</strong>
                    <span class="forbidden-explanation">{explanation}</span>
                    " Nothing is asked again until you try."
                </p>
                <details class="forbidden-server-words">
                    <summary>"The server's words"</summary>
                    <p class="mono">{refused.message.clone()}</p>
                </details>
                {alternatives}
                <button type="button" class="forbidden-retry" on:click=retry>"Try again"</button>
            </div>
        })
    }
}

/// The namespaces worth asking about: the last one used, `default`, and those the server
/// listed (when the user may list them).
pub fn candidate_namespaces(known: Option<Vec<String>>) -> Vec<String> {
    let mut candidates: Vec<String> = last_namespace().into_iter().collect();
    candidates.push("default".into());
    candidates.extend(known.unwrap_or_default());
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|ns| seen.insert(ns.clone()));
    candidates.truncate(MAX_ALTERNATIVES);
    candidates
}

/// The reason beside a disabled control, for screen readers (the control's `title` shows it
/// on hover); `id` is what the control's `aria-describedby` names.
#[component]
pub fn DenialReason(id: String, reason: Signal<Option<String>>) -> impl IntoView {
    view! {
        <span id=id class="visually-hidden denial-reason">{move || reason.get().unwrap_or_default()}</span>
    }
}
