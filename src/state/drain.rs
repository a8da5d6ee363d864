//! Draining a node as `kubectl drain --ignore-daemonsets --delete-emptydir-data` does it:
//! the plan (what is evicted, skipped, what needs consent) from the node's pods, then cordon
//! and evict pod by pod through `pods/eviction`, a PodDisruptionBudget's refusal retried with
//! backoff and shown with the budget's name, never forced; *Stop* leaves the node cordoned
//! and says which pods remain. The decisions are the model's (`DrainPlan`, `DrainProgress`).

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api::{self, ApiError};
use crate::browser::monotonic_now;
use crate::model::edit::actions::{
    plan_drain, Action, ActionOptions, Consent, DrainPlan, DrainProgress, Target,
};

/// How often the node's pods and the budgets are read again while draining.
const POLL_MS: u32 = 1_000;

/// Where a drain is.
#[derive(Debug, Clone, PartialEq)]
pub enum DrainPhase {
    /// Reading the node's pods.
    Planning,
    Planned(DrainPlan),
    Running,
    Finished,
    Stopped(String),
    Failed(String),
}

/// What [`use_drain`] gives the view.
#[derive(Clone, Copy)]
pub struct UseDrainReturn {
    pub phase: ReadSignal<DrainPhase>,
    /// Each pod's progress, once started.
    pub progress: ReadSignal<Option<DrainProgress>>,
    /// Starts with the consents given (cordon first).
    pub start: Callback<Vec<Consent>>,
    pub stop: Callback<()>,
}

/// A drain of `node` (its object, live), planned when called.
pub fn use_drain(node: Value) -> UseDrainReturn {
    let phase = RwSignal::new(DrainPhase::Planning);
    let progress = RwSignal::new(None::<DrainProgress>);
    let name = node["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let stopped = Rc::new(RefCell::new(false));
    {
        let name = name.clone();
        spawn_local(async move {
            phase.try_set(match node_pods(&name).await {
                Ok(pods) => DrainPhase::Planned(plan_drain(&name, &pods)),
                Err(error) => DrainPhase::Failed(error.to_string()),
            });
        });
    }
    let start = {
        let stopped = send_wrapper::SendWrapper::new(Rc::clone(&stopped));
        let node = StoredValue::new(node);
        Callback::new(move |consents: Vec<Consent>| {
            let DrainPhase::Planned(plan) = phase.get_untracked() else {
                return;
            };
            if let Some(why) = plan.refusal(&consents) {
                phase.set(DrainPhase::Failed(why));
                return;
            }
            phase.set(DrainPhase::Running);
            let targets = plan.evictions(&consents);
            let node = node.get_value();
            let stopped = Rc::clone(&stopped);
            spawn_local(async move {
                let outcome = run(node, targets, progress, Rc::clone(&stopped)).await;
                phase.try_set(outcome);
            });
        })
    };
    let stop = {
        let stopped = send_wrapper::SendWrapper::new(stopped);
        Callback::new(move |()| {
            *stopped.borrow_mut() = true;
        })
    };
    UseDrainReturn {
        phase: phase.read_only(),
        progress: progress.read_only(),
        start,
        stop,
    }
}

/// The pods bound to `node`, each with its kind (list items carry none).
async fn node_pods(node: &str) -> Result<Vec<Value>, ApiError> {
    let path = format!("/api/v1/pods?fieldSelector=spec.nodeName%3D{node}");
    let fetched = api::get(&path, "application/json").await?;
    let list: Value = serde_json::from_str(&fetched.body)
        .map_err(|e| ApiError::Unreachable(format!("the pods list did not parse: {e}")))?;
    Ok(list["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut pod| {
            pod["kind"] = "Pod".into();
            pod["apiVersion"] = "v1".into();
            pod
        })
        .collect())
}

async fn budgets() -> Vec<Value> {
    let Ok(fetched) = api::get("/apis/policy/v1/poddisruptionbudgets", "application/json").await
    else {
        return Vec::new();
    };
    serde_json::from_str::<Value>(&fetched.body)
        .ok()
        .and_then(|list| list["items"].as_array().cloned())
        .unwrap_or_default()
}

async fn send(action: Action, target: &Target, object: &Value) -> Result<(), ApiError> {
    let request = action
        .request(target, object, &ActionOptions::kubectl())
        .map_err(|why| ApiError::Unreachable(why.0))?;
    api::send(&request, None).await.map(|_| ())
}

/// Cordons, then evicts until every pod is gone or failed, or the user stops.
async fn run(
    node: Value,
    targets: Vec<Target>,
    progress: RwSignal<Option<DrainProgress>>,
    stopped: Rc<RefCell<bool>>,
) -> DrainPhase {
    let Some(node_target) = Target::of(&node) else {
        return DrainPhase::Failed("not a Node".into());
    };
    let already = node["spec"]["unschedulable"].as_bool() == Some(true);
    if !already {
        if let Err(error) = send(Action::Cordon, &node_target, &node).await {
            return DrainPhase::Failed(format!("Cordon failed: {error}"));
        }
    }
    let mut drain = DrainProgress::start(&node_target.name, targets);
    loop {
        if *stopped.borrow() {
            let summary = drain.stop();
            progress.try_set(Some(drain));
            return DrainPhase::Stopped(summary.sentence());
        }
        for target in drain.due(monotonic_now()) {
            let answer = send(Action::Evict, &target, &Value::Null).await;
            drain.answered(&target, answer.as_ref().map(|_| ()), monotonic_now());
        }
        if let Ok(pods) = node_pods(&node_target.name).await {
            drain.observe_pods(&pods);
        }
        drain.note_budgets(&budgets().await);
        progress.try_set(Some(drain.clone()));
        if drain.is_finished() {
            return DrainPhase::Finished;
        }
        gloo_timers::future::TimeoutFuture::new(POLL_MS).await;
    }
}
