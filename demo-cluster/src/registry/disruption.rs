//! Evictions honour PodDisruptionBudgets, as kube-apiserver's `pods/eviction` does. An
//! eviction works out the budget's allowance from the pods it selects at that moment (the
//! disruption controller's status may lag), with the arithmetic that controller uses.

use serde_json::Value;

use super::Registry;
use crate::errors::{ApiError, ApiResult};
use crate::storage::selectors::LabelSelector;

fn is_ready(pod: &Value) -> bool {
    pod["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True")
}

/// Pods whose eviction no budget holds back: finished, not started, or already going.
fn ignores_budgets(pod: &Value) -> bool {
    matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed" | "Pending")
    ) || pod["metadata"]["deletionTimestamp"].is_string()
}

/// An int-or-percent of `total`, rounded up as the disruption controller does.
fn scaled(value: &Value, total: i64) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(text) => {
            let percent: i64 = text.strip_suffix('%')?.parse().ok()?;
            Some((percent * total + 99) / 100)
        }
        _ => None,
    }
}

/// A budget's selector. policy/v1: a missing selector selects no pod, an empty one every pod.
pub fn selector_of(budget: &Value) -> Option<LabelSelector> {
    let selector = &budget["spec"]["selector"];
    LabelSelector::from_structured(selector.as_object().map(|_| selector)?).ok()
}

/// What a budget counts among its namespace's pods, as the disruption controller does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetCount {
    /// Selected pods that have not finished.
    pub expected: i64,
    /// Of those, the Ready ones not being deleted.
    pub healthy: i64,
    /// How many must stay healthy (from minAvailable or maxUnavailable).
    pub desired: i64,
}

impl BudgetCount {
    pub fn of(budget: &Value, selector: &LabelSelector, pods: &[Value]) -> Self {
        let selected: Vec<&Value> = pods
            .iter()
            .filter(|p| {
                selector.matches(p)
                    && !matches!(p["status"]["phase"].as_str(), Some("Succeeded" | "Failed"))
            })
            .collect();
        let expected = selected.len() as i64;
        let healthy = selected
            .iter()
            .filter(|p| is_ready(p) && !p["metadata"]["deletionTimestamp"].is_string())
            .count() as i64;
        let spec = &budget["spec"];
        let desired = match (
            scaled(&spec["minAvailable"], expected),
            scaled(&spec["maxUnavailable"], expected),
        ) {
            (Some(min), _) => min,
            (None, Some(max)) => (expected - max).max(0),
            (None, None) => 1,
        };
        BudgetCount {
            expected,
            healthy,
            desired,
        }
    }

    /// Healthy pods that may go now (`status.disruptionsAllowed`).
    pub fn disruptions_allowed(&self) -> i64 {
        (self.healthy - self.desired).max(0)
    }
}

/// Refuses (429) an eviction of `pod` that would take a budget below what it needs.
pub fn check_eviction(registry: &Registry, namespace: &str, pod: &Value) -> ApiResult<()> {
    if ignores_budgets(pod) {
        return Ok(());
    }
    let Some(budgets_def) = registry.builtin("policy", "poddisruptionbudgets") else {
        return Ok(());
    };
    let Some(pods_def) = registry.builtin("", "pods") else {
        return Ok(());
    };
    let (budgets, _) = registry.list(&budgets_def, Some(namespace));
    let labels = crate::storage::selectors::labels_of(pod);
    let selecting: Vec<(&Value, LabelSelector)> = budgets
        .iter()
        .filter_map(|b| {
            let selector = selector_of(b)?;
            selector.matches_labels(&labels).then_some((b, selector))
        })
        .collect();
    let budget = match selecting.as_slice() {
        [] => return Ok(()),
        [one] => one,
        _ => {
            return Err(ApiError::internal(
                "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            ))
        }
    };
    let (budget, selector) = budget;
    let (pods, _) = registry.list(&pods_def, Some(namespace));
    let BudgetCount {
        healthy, desired, ..
    } = BudgetCount::of(budget, selector, &pods);
    // An unready pod may go while the budget holds without it (IfHealthyBudget).
    let allowed = if is_ready(pod) {
        healthy - desired > 0
    } else {
        healthy >= desired
    };
    if allowed {
        Ok(())
    } else {
        let name = budget["metadata"]["name"].as_str().unwrap_or_default();
        Err(ApiError::disruption_budget(name, desired, healthy))
    }
}
