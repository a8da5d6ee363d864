//! The horizontal pod autoscaler (`horizontal-pod-autoscaler`), with a simulated metrics
//! server: each HorizontalPodAutoscaler reads its target's Scale, keeps the replicas within
//! `minReplicas..=maxReplicas`, and reports plausible readings of its resource metrics (a
//! steady load below the target, drifting a little each simulated minute), so its status
//! (current and desired replicas, current metrics, conditions) is as on a real cluster.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::events::EventSpec;
use super::{
    is_deleting, namespace_of, set_condition, spawn_loop, uid_of, write_status, writer, Changes,
    Context, CONTROLLER_MANAGER,
};
use crate::registry::kinds::ResourceDef;
use crate::registry::now;

const COMPONENT: &str = "horizontal-pod-autoscaler";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::of(
        &ctx.registry,
        &[
            ("autoscaling", "horizontalpodautoscalers"),
            ("apps", "deployments"),
            ("apps", "statefulsets"),
            ("apps", "replicasets"),
        ],
    );
    // Readings change once a simulated minute; the real controller syncs every 15 s.
    let period = ctx.scaled(15.0).max(std::time::Duration::from_secs(1));
    spawn_loop(changes, period, move || {
        reconcile(&ctx);
        None
    })
}

pub fn reconcile(ctx: &Context) {
    let def = ctx.def("autoscaling", "horizontalpodautoscalers");
    let (autoscalers, _) = ctx.registry.list(&def, None);
    // Readings drift with the wall clock's minutes (scaled: a simulated minute each).
    let minute = (chrono::Utc::now().timestamp() as f64 * ctx.speed / 60.0) as i64;
    for hpa in autoscalers.iter().filter(|h| !is_deleting(h)) {
        sync(ctx, &def, hpa, minute);
    }
}

/// The served kind `reference` names with a scale subresource (Deployment, StatefulSet, a
/// custom resource with `/scale`, ...).
fn scale_target(ctx: &Context, reference: &Value) -> Option<Arc<ResourceDef>> {
    let api_version = reference["apiVersion"].as_str()?;
    let kind = reference["kind"].as_str()?;
    ctx.registry
        .defs()
        .into_iter()
        .find(|d| d.kind == kind && d.api_version() == api_version && d.has_subresource("scale"))
}

/// A simulated utilization of `target` percent for `seed`, drifting each minute, always in
/// the band where the replica count stays as it is: `ceil(replicas * reading / target)` is
/// `replicas` (a steady load the current size serves).
fn simulated_utilization(seed: &str, minute: i64, target: i64, replicas: i64) -> i64 {
    let target = target.max(1);
    let replicas = replicas.max(1);
    let floor = target * (replicas - 1) / replicas + 1;
    let low = floor.max(target * 3 / 5).min(target);
    let hash = seed
        .bytes()
        .fold(7i64, |h, b| (h * 31 + b as i64) % 1_000_003);
    low + (hash + minute * 7).rem_euclid(target - low + 1)
}

/// `metadata.generation` as `observedGeneration`, where the object has one.
fn observed(obj: &Value, status: &mut Value) {
    if obj["metadata"]["generation"].is_i64() {
        status["observedGeneration"] = obj["metadata"]["generation"].clone();
    }
}

fn sync(ctx: &Context, def: &ResourceDef, hpa: &Value, minute: i64) {
    let spec = &hpa["spec"];
    let reference = &spec["scaleTargetRef"];
    let min = spec["minReplicas"].as_i64().unwrap_or(1).max(1);
    let max = spec["maxReplicas"].as_i64().unwrap_or(min).max(min);
    let now = now();
    let conditions = &hpa["status"]["conditions"];
    let namespace = namespace_of(hpa);
    let target_name = reference["name"].as_str().unwrap_or_default();
    let target = scale_target(ctx, reference).and_then(|target_def| {
        let scale = ctx
            .registry
            .get_scale(&target_def, namespace, target_name)
            .ok()?;
        Some((target_def, scale))
    });
    let Some((target_def, scale)) = target else {
        let message = format!(
            "the HPA controller was unable to get the target's current scale: {} \"{target_name}\" not found",
            reference["kind"].as_str().unwrap_or_default().to_lowercase()
        );
        let conditions = set_condition(
            conditions,
            "AbleToScale",
            "False",
            json!({"reason": "FailedGetScale", "message": message}),
            &now,
        );
        let mut status =
            json!({"currentReplicas": 0, "desiredReplicas": 0, "conditions": conditions});
        observed(hpa, &mut status);
        write_status(ctx, def, hpa, status);
        return;
    };
    let current = scale["spec"]["replicas"].as_i64().unwrap_or(0);
    let desired = current.clamp(min, max);
    let mut status = hpa["status"].clone();
    if !status.is_object() {
        status = json!({});
    }
    if desired != current && current > 0 {
        let rescaled = ctx.registry.update_scale(
            &target_def,
            namespace,
            target_name,
            &writer(CONTROLLER_MANAGER, "scale"),
            |mut wanted| {
                wanted["spec"]["replicas"] = json!(desired);
                Ok(wanted)
            },
        );
        if rescaled.is_ok() {
            let why = if desired > current {
                "Current number of replicas below Spec.MinReplicas"
            } else {
                "Current number of replicas above Spec.MaxReplicas"
            };
            ctx.recorder.record(
                hpa,
                EventSpec::normal(
                    "SuccessfulRescale",
                    format!("New size: {desired}; reason: {why}"),
                )
                .by(COMPONENT, CONTROLLER_MANAGER),
            );
            status["lastScaleTime"] = json!(now);
        }
    }
    let readings: Vec<Value> = spec["metrics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| {
            m["type"] == "Resource" && m["resource"]["target"]["averageUtilization"].is_i64()
        })
        .map(|m| {
            let resource = m["resource"]["name"].as_str().unwrap_or_default();
            let target = m["resource"]["target"]["averageUtilization"]
                .as_i64()
                .unwrap_or(80);
            let seed = format!("{}/{resource}", uid_of(hpa));
            let percent = simulated_utilization(&seed, minute, target, desired);
            // Against a request of 100m CPU or 128Mi memory per pod.
            let value = if resource == "memory" {
                format!("{}Mi", percent * 128 / 100)
            } else {
                format!("{percent}m")
            };
            json!({"type": "Resource", "resource": {"name": resource,
                   "current": {"averageUtilization": percent, "averageValue": value}}})
        })
        .collect();
    // The load keeps the size steady, so only a size outside the bounds was limited.
    let limited = if current > max {
        Some((
            "TooManyReplicas",
            "the desired replica count is more than the maximum replica count",
        ))
    } else if current < min {
        Some((
            "TooFewReplicas",
            "the desired replica count is less than the minimum replica count",
        ))
    } else {
        None
    };
    let mut conditions = set_condition(
        conditions,
        "AbleToScale",
        "True",
        json!({"reason": "ReadyForNewScale", "message": "recommended size matches current size"}),
        &now,
    );
    let active = if readings.is_empty() {
        (
            "False",
            "InvalidMetricSourceType",
            "the HPA has no resource utilization metric to scale on".to_string(),
        )
    } else {
        ("True", "ValidMetricFound", "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)".to_string())
    };
    conditions = set_condition(
        &conditions,
        "ScalingActive",
        active.0,
        json!({"reason": active.1, "message": active.2}),
        &now,
    );
    let (limit_status, limit_reason, limit_message) = match limited {
        Some((reason, message)) => ("True", reason, message),
        None => (
            "False",
            "DesiredWithinRange",
            "the desired count is within the acceptable range",
        ),
    };
    conditions = set_condition(
        &conditions,
        "ScalingLimited",
        limit_status,
        json!({"reason": limit_reason, "message": limit_message}),
        &now,
    );
    status["currentReplicas"] = json!(current);
    status["desiredReplicas"] = json!(desired);
    status["currentMetrics"] = json!(readings);
    status["conditions"] = conditions;
    observed(hpa, &mut status);
    write_status(ctx, def, hpa, status);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulated_utilization_drifts_but_keeps_the_replica_count() {
        for (target, replicas) in [(70, 1), (70, 2), (50, 6), (80, 30), (1, 3)] {
            let readings: Vec<i64> = (0..60)
                .map(|m| simulated_utilization("uid/cpu", m, target, replicas))
                .collect();
            for reading in &readings {
                let recommended = (replicas * reading + target - 1) / target;
                assert_eq!(recommended, replicas, "{target} {replicas} {readings:?}");
            }
            if target > 10 {
                assert!(readings.windows(2).any(|w| w[0] != w[1]), "{readings:?}");
            }
        }
    }
}
