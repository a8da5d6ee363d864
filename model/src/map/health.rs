//! The health a map shows when its caller has none: what the diagnosis says of each object
//! from its status alone (no Event objects), with a controller judged as the worst of what it
//! controls, as its page and the lists judge it. Callers that hold Events or verdicts pass
//! their own map instead; the map never judges by itself.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::diagnosis::{controller_health, health_of, Health};
use crate::object::meta::controller_uid;
use crate::object::pointer::Pointer;
use crate::time::age::EpochMillis;

/// Health by uid for every object with one, at wall-clock time `now`.
pub fn health_from_status(objects: &[Value], now: EpochMillis) -> HashMap<String, Health> {
    let owners: HashSet<&str> = objects.iter().filter_map(controller_uid).collect();
    let controllers: Vec<&Value> = objects
        .iter()
        .filter(|object| uid(object).is_some_and(|uid| owners.contains(uid)))
        .collect();
    let mut health: HashMap<String, Health> =
        controller_health(controllers.iter().copied(), objects.iter(), &[], now)
            .into_iter()
            .map(|(uid, verdict)| (uid, verdict.health))
            .collect();
    for object in objects {
        if let Some(uid) = uid(object) {
            if !health.contains_key(uid) {
                health.insert(uid.to_string(), health_of(object, &[], now));
            }
            // Without the Event that says why, the diagnosis finds nothing wrong with a pod
            // that is not ready; the map still says it is not there yet.
            if let Some(health) = health.get_mut(uid).filter(|h| **h == Health::Ok) {
                if unready_pod(object) {
                    *health = Health::Progressing;
                }
            }
        }
    }
    health
}

/// A Pending or Running pod whose Ready condition is not True (a finished one is never
/// ready, and is fine).
fn unready_pod(object: &Value) -> bool {
    let phase = object.at("/status/phase").and_then(Value::as_str);
    let ready = object
        .at("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
        .and_then(|c| c.get("status").and_then(Value::as_str));
    object.get("kind").and_then(Value::as_str) == Some("Pod")
        && matches!(phase, Some("Pending" | "Running"))
        && ready != Some("True")
}

fn uid(object: &Value) -> Option<&str> {
    object.at("/metadata/uid").and_then(Value::as_str)
}
