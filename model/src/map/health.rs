//! The health a map shows when its caller has none: what the diagnosis says of each object
//! from its status alone (no Event objects), with a controller judged as the worst of what it
//! controls, as its page and the lists judge it. Callers that hold Events or verdicts pass
//! their own map instead; the map never judges by itself.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::diagnosis::{controller_health, health_of, Health};
use crate::object::events::EventRecord;
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

/// One object's health on the map and the line that says why (`Pod demo/web-1 cannot be
/// scheduled: …`), shown when the pointer rests on it; None when nothing was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    pub health: Health,
    pub line: Option<String>,
}

/// Every object's verdict by uid, with the Event objects that explain it: each object judged
/// as a controller is (the worst of its own findings and those of what it controls), so a
/// Deployment whose pod cannot be scheduled says so, and its pod too. A pod that is not
/// ready yet with nothing found is Progressing, as in [`health_from_status`].
pub fn judged(
    objects: &[Value],
    events: &[EventRecord],
    now: EpochMillis,
) -> HashMap<String, Judged> {
    controller_health(objects.iter(), objects.iter(), events, now)
        .into_iter()
        .map(|(uid, verdict)| {
            let line = (!verdict.sentence.is_empty())
                .then(|| format!("{} {}", verdict.about.describe(), verdict.sentence));
            (
                uid,
                Judged {
                    health: verdict.health,
                    line,
                },
            )
        })
        .chain(objects.iter().filter(|o| unready_pod(o)).filter_map(|pod| {
            let uid = uid(pod)?.to_string();
            Some((
                uid,
                Judged {
                    health: Health::Progressing,
                    line: None,
                },
            ))
        }))
        .fold(HashMap::new(), |mut judged, (uid, verdict)| {
            // The verdict first; an unready pod's Progressing only where it found nothing.
            let kept = judged.entry(uid).or_insert(verdict.clone());
            if kept.health == Health::Ok && verdict.health == Health::Progressing {
                *kept = verdict;
            }
            judged
        })
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
