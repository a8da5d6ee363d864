//! The disruption controller (`disruption`): keeps each PodDisruptionBudget's status (the
//! pods it expects, how many are healthy and must stay so, the disruptions allowed) up to
//! date with the pods it selects, so `kubectl get pdb` shows ALLOWED DISRUPTIONS.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::{is_deleting, namespace_of, set_condition, spawn_reconciler, write_status, Context};
use crate::registry::disruption::{selector_of, BudgetCount};
use crate::registry::now;

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    spawn_reconciler(
        ctx,
        &[("policy", "poddisruptionbudgets"), ("", "pods")],
        reconcile,
    )
}

pub fn reconcile(ctx: &Context) {
    let budgets_def = ctx.def("policy", "poddisruptionbudgets");
    let pods_def = ctx.def("", "pods");
    let (budgets, _) = ctx.registry.list(&budgets_def, None);
    // Pods are listed once per namespace that has budgets.
    let mut pods_by_namespace: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for budget in budgets.iter().filter(|b| !is_deleting(b)) {
        let namespace = namespace_of(budget).to_string();
        let pods = pods_by_namespace
            .entry(namespace.clone())
            .or_insert_with(|| ctx.registry.list(&pods_def, Some(&namespace)).0);
        let count = match selector_of(budget) {
            Some(selector) => BudgetCount::of(budget, &selector, pods),
            None => BudgetCount {
                expected: 0,
                healthy: 0,
                desired: 0,
            },
        };
        write_status(ctx, &budgets_def, budget, status_of(budget, &count));
    }
}

fn status_of(budget: &Value, count: &BudgetCount) -> Value {
    let allowed = count.disruptions_allowed();
    let (condition, reason) = if allowed > 0 {
        ("True", "SufficientPods")
    } else {
        ("False", "InsufficientPods")
    };
    let mut extra = json!({"reason": reason, "message": ""});
    let generation = &budget["metadata"]["generation"];
    if generation.is_i64() {
        extra["observedGeneration"] = generation.clone();
    }
    let conditions = set_condition(
        &budget["status"]["conditions"],
        "DisruptionAllowed",
        condition,
        extra,
        &now(),
    );
    let mut status = json!({
        "disruptionsAllowed": allowed,
        "currentHealthy": count.healthy,
        "desiredHealthy": count.desired,
        "expectedPods": count.expected,
        "conditions": conditions,
    });
    if generation.is_i64() {
        status["observedGeneration"] = generation.clone();
    }
    status
}
