//! Day-two actions on one object (restart, pause/resume, trigger, suspend/resume, re-run,
//! cordon/uncordon, evict): the model builds exactly kubectl's request
//! (`model::edit::actions`), this sends it and says what it set in motion.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api::{self, ApiError};
use crate::browser::wall_now;
use crate::model::edit::actions::{hand_made_job_name, Action, ActionOptions, Target};
use crate::model::navigation::route::{ObjectRoute, ObjectTab, Page};
use crate::model::ResourceId;
use crate::state::permissions::{use_denial, UseDenialOptions};

/// What an action did: a sentence, and where to follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionDone {
    pub sentence: String,
    /// A page that shows what was set in motion (the rollout's activity, the new Job).
    pub follow: Option<(String, String)>,
}

/// The actions offered on an object of `kind`, as they would be sent now: the live object
/// says which of two (pause or resume, suspend or resume, cordon or uncordon).
pub fn offered_actions(kind: &str, object: &Value) -> Vec<Action> {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let suffix = random_suffix();
    match kind {
        "Deployment" => vec![
            Action::restart(wall_now()),
            if object["spec"]["paused"].as_bool() == Some(true) {
                Action::Resume
            } else {
                Action::Pause
            },
        ],
        "StatefulSet" | "DaemonSet" => vec![Action::restart(wall_now())],
        "CronJob" => vec![
            Action::Trigger {
                job_name: hand_made_job_name(name, "manual", &suffix),
            },
            if object["spec"]["suspend"].as_bool() == Some(true) {
                Action::Unsuspend
            } else {
                Action::Suspend
            },
        ],
        "Job" => vec![Action::Rerun {
            job_name: hand_made_job_name(name, "rerun", &suffix),
        }],
        "Node" => vec![if object["spec"]["unschedulable"].as_bool() == Some(true) {
            Action::Uncordon
        } else {
            Action::Cordon
        }],
        "Pod" => vec![Action::Evict],
        _ => Vec::new(),
    }
}

/// Five letters as `generateName` would add (kubectl's manual Jobs use a timestamp; a
/// random suffix cannot collide twice in a row).
fn random_suffix() -> String {
    const LETTERS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    (0..5)
        .map(|_| {
            let i = (js_sys::Math::random() * LETTERS.len() as f64) as usize;
            char::from(LETTERS[i.min(LETTERS.len() - 1)])
        })
        .collect()
}

/// A button's label.
pub fn action_label(action: &Action) -> &'static str {
    match action {
        Action::Restart { .. } => "Restart",
        Action::Pause => "Pause rollout",
        Action::Resume => "Resume rollout",
        Action::Suspend => "Suspend",
        Action::Unsuspend => "Resume schedule",
        Action::Trigger { .. } => "Trigger now",
        Action::Rerun { .. } => "Re-run",
        Action::Cordon => "Cordon",
        Action::Uncordon => "Uncordon",
        Action::Evict => "Evict",
        _ => "Apply",
    }
}

/// Why the user may not do `action` on `target` (the permissions model's no), reactive.
pub fn use_action_denial(action: &Action, target: &Target) -> Signal<Option<String>> {
    use_denial(UseDenialOptions {
        question: action.question(target),
        namespaced: target.namespace.is_some(),
    })
    .reason
}

/// Sends `action` on `target` (whose live state is `object`); `done` gets the outcome.
pub fn perform(
    action: Action,
    target: Target,
    object: Value,
    done: impl Fn(Result<ActionDone, ApiError>) + 'static,
) {
    spawn_local(async move {
        let request = match action.request(&target, &object, &ActionOptions::kubectl()) {
            Ok(request) => request,
            Err(why) => {
                return done(Err(ApiError::Status {
                    code: 422,
                    reason: None,
                    message: why.0,
                    details: None,
                }))
            }
        };
        let answer = api::send(&request, None).await;
        done(answer.map(|_| what_it_did(&action, &target)));
    });
}

fn what_it_did(action: &Action, target: &Target) -> ActionDone {
    let command = action.kubectl(target);
    let object_page = |resource: ResourceId, name: &str| {
        let mut route = ObjectRoute::new(resource, target.namespace.clone(), name);
        route.tab = ObjectTab::Activity;
        Page::Object(route).to_hash()
    };
    let follow = match action {
        Action::Restart { .. } => Some((
            "Follow the rollout".to_string(),
            object_page(
                ResourceId::new(&target.group, &target.version, &target.resource),
                &target.name,
            ),
        )),
        Action::Trigger { job_name } | Action::Rerun { job_name } => Some((
            format!("Job {job_name}"),
            object_page(ResourceId::new("batch", "v1", "jobs"), job_name),
        )),
        _ => None,
    };
    ActionDone {
        sentence: format!("Done, as `{command}`."),
        follow,
    }
}
