//! One action on the list's selected objects (issue #48, "Bulk"): the bar's actions and why
//! one is disabled; the preview (each object's permission asked by name with a
//! SelfSubjectAccessReview, so a Role's `resourceNames` count, then a server dry run of every
//! request: `model::edit::actions::plan_bulk`, `BulkPlan::dry_run_answered`); the run, at
//! most [`CONCURRENCY`] requests at a time, each answer folded into its object's result
//! (`BulkRun`: a 409 read again and sent once more). The results stay until dismissed.

use futures::stream::{self, StreamExt};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api::{self, ApiError};
use crate::model::api::request::ApiRequest;
use crate::model::edit::actions::{
    bar_actions, bar_denial, plan_bulk, Action, ActionOptions, BarAction, BulkPlan, BulkRun, Target,
};
use crate::model::permissions::Permissions;
use crate::state::permissions::use_permissions;

/// Requests in flight at once (reviews, dry runs, the run itself).
pub const CONCURRENCY: usize = 4;

/// Where the bulk action stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BulkStage {
    /// Nothing open: the bar offers the actions.
    Idle,
    /// Permissions and dry runs asked: `answered` of `asked` so far.
    Checking {
        action: Action,
        asked: usize,
        answered: usize,
    },
    /// What will happen to each object; Confirm runs it.
    Preview(BulkPlan),
    /// Under way, then done: every object's result (kept until dismissed).
    Running(BulkRun),
    Finished(BulkRun),
}

pub struct UseBulkOptions {
    /// The selected objects: each one's target and an object holding its metadata.
    pub selected: Signal<Vec<(Target, Value)>>,
}

#[derive(Clone, Copy)]
pub struct UseBulkReturn {
    pub stage: ReadSignal<BulkStage>,
    /// The actions that apply to every selected object.
    pub actions: Signal<Vec<BarAction>>,
    /// Why an action is disabled (the user may do it to none of the selected objects).
    pub denial: Callback<BarAction, Option<String>>,
    /// Opens the preview of an action on the selection.
    pub preview: Callback<Action>,
    /// Runs the previewed plan.
    pub confirm: Callback<()>,
    /// Closes the preview or the results.
    pub dismiss: Callback<()>,
}

pub fn use_bulk(options: UseBulkOptions) -> UseBulkReturn {
    let UseBulkOptions { selected } = options;
    let permissions = use_permissions();
    let stage = RwSignal::new(BulkStage::Idle);
    // A newer preview or a dismissal makes an older task's answers moot.
    let generation = StoredValue::new(0u64);
    let kinds = Memo::new(move |_| {
        selected.with(|objects| {
            let mut kinds: Vec<String> = objects.iter().map(|(t, _)| t.kind.clone()).collect();
            kinds.sort();
            kinds.dedup();
            kinds
        })
    });
    let actions = Signal::derive(move || {
        kinds.with(|kinds| bar_actions(&kinds.iter().map(String::as_str).collect::<Vec<_>>()))
    });
    let denial = Callback::new(move |action: BarAction| {
        selected.with(|objects| {
            let targets: Vec<Target> = objects.iter().map(|(t, _)| t.clone()).collect();
            bar_denial(action, &targets, |question| permissions.may(question))
        })
    });
    let options = ActionOptions::kubectl();
    let preview = {
        let options = options.clone();
        Callback::new(move |action: Action| {
            let objects = selected.get_untracked();
            let task = generation.get_value() + 1;
            generation.set_value(task);
            let current = move || generation.try_get_value() == Some(task);
            stage.set(BulkStage::Checking {
                action: action.clone(),
                asked: objects.len() * 2,
                answered: 0,
            });
            let options = options.clone();
            spawn_local(async move {
                let progress = move |n: usize| {
                    if current() {
                        stage.try_update(|s| {
                            if let BulkStage::Checking { answered, .. } = s {
                                *answered += n;
                            }
                        });
                    }
                };
                // Each object's permission, asked by its name.
                let questions: Vec<_> = objects.iter().map(|(t, _)| action.question(t)).collect();
                let answers: Vec<_> = stream::iter(questions)
                    .map(|question| async move {
                        let answer = permissions.review(question.clone()).await;
                        progress(1);
                        (question, answer)
                    })
                    .buffer_unordered(CONCURRENCY)
                    .collect()
                    .await;
                let mut known = Permissions::default();
                for (question, answer) in answers {
                    known.record_answer(question, answer);
                }
                let mut plan = plan_bulk(&action, &objects, &known, &options);
                // The server's dry run of each request (for the denied too: their refusal
                // is then said in the server's words).
                let dry_runs = plan.dry_runs();
                progress(objects.len() - dry_runs.len());
                let mut answered = stream::iter(dry_runs)
                    .map(|(index, request)| async move {
                        let answer = api::send(&request, None).await.map(|_| ());
                        (index, answer)
                    })
                    .buffer_unordered(CONCURRENCY);
                while let Some((index, answer)) = answered.next().await {
                    plan.dry_run_answered(index, answer.as_ref().map(|_| ()));
                    progress(1);
                }
                if current() {
                    stage.try_set(BulkStage::Preview(plan));
                }
            });
        })
    };
    let confirm = Callback::new(move |()| {
        let BulkStage::Preview(plan) = stage.get_untracked() else {
            return;
        };
        let task = generation.get_value() + 1;
        generation.set_value(task);
        let current = move || generation.try_get_value() == Some(task);
        let show = move |run: &BulkRun, finished: bool| {
            if current() {
                stage.try_set(if finished {
                    BulkStage::Finished(run.clone())
                } else {
                    BulkStage::Running(run.clone())
                });
            }
        };
        let mut run = BulkRun::start(&plan, &options);
        show(&run, false);
        spawn_local(async move {
            // Rounds: the requests waiting, then the 409s read again (sent once more).
            for _ in 0..3 {
                let batch = run.to_send();
                if batch.is_empty() {
                    break;
                }
                let mut answers = stream::iter(batch)
                    .map(|(index, request)| async move {
                        (index, api::send(&request, None).await.map(|_| ()))
                    })
                    .buffer_unordered(CONCURRENCY);
                while let Some((index, answer)) = answers.next().await {
                    run.answered(index, answer.as_ref().map(|_| ()));
                    show(&run, false);
                }
                let stale: Vec<(usize, Target)> = run
                    .needing_latest()
                    .into_iter()
                    .map(|(index, target)| (index, target.clone()))
                    .collect();
                for (index, target) in stale {
                    let latest = read_latest(&target).await;
                    run.latest(index, latest.as_ref());
                }
                show(&run, false);
            }
            show(&run, true);
        });
    });
    let dismiss = Callback::new(move |()| {
        generation.update_value(|g| *g += 1);
        stage.set(BulkStage::Idle);
    });
    UseBulkReturn {
        stage: stage.read_only(),
        actions,
        denial,
        preview,
        confirm,
        dismiss,
    }
}

/// The object as it is now (after a 409).
async fn read_latest(target: &Target) -> Result<Value, ApiError> {
    let fetched = api::send(&ApiRequest::get(&target.path()), None).await?;
    serde_json::from_str(&fetched.body).map_err(|e| ApiError::Unreachable(e.to_string()))
}
