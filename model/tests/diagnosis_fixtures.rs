//! The diagnosis on Deployments recorded from both backends (`fixtures/diagnosis/{real,demo}`,
//! recorded by `demo-cluster/examples/record_diagnosis_fixtures.rs`): a real kube-apiserver
//! with kube-controller-manager and kube-scheduler v1.36 (pods run by the stand-in kubelet),
//! and the demo cluster. Each fixture is a Deployment with its ReplicaSets and Pods and the
//! Event objects of its namespace; what a user must read is the same on both.

use std::path::PathBuf;

use kube_atlas_model::diagnosis::{diagnose, Diagnosis, Health};
use kube_atlas_model::object::events::{event_record, EventRecord};
use kube_atlas_model::time::age::{parse_timestamp, EpochMillis};
use serde_json::Value;

const BACKENDS: [&str; 2] = ["real", "demo"];

/// A little after the newest time in a fixture: the diagnosis is read as it was recorded.
const READ_AFTER_MS: EpochMillis = 5_000;

struct Fixture {
    root: Value,
    owned: Vec<Value>,
    events: Vec<EventRecord>,
    now: EpochMillis,
}

fn load(backend: &str, case: &str) -> Fixture {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/diagnosis")
        .join(backend)
        .join(format!("{case}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let fixture: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let owned = fixture["owned"].as_array().cloned().unwrap_or_default();
    let event_objects = fixture["events"].as_array().cloned().unwrap_or_default();
    let events: Vec<EventRecord> = event_objects.iter().filter_map(event_record).collect();
    assert_eq!(
        events.len(),
        event_objects.len(),
        "{backend}/{case}: every Event object is read"
    );
    let newest =
        newest_time(&fixture).unwrap_or_else(|| panic!("{backend}/{case}: a fixture with times"));
    Fixture {
        root: fixture["root"].clone(),
        owned,
        events,
        now: newest + READ_AFTER_MS,
    }
}

/// The newest timestamp anywhere in `value` (conditions, container states, Events).
fn newest_time(value: &Value) -> Option<EpochMillis> {
    match value {
        Value::String(text) if text.len() >= 20 && text.as_bytes()[4] == b'-' => {
            parse_timestamp(text)
        }
        Value::Array(items) => items.iter().filter_map(newest_time).max(),
        Value::Object(fields) => fields.values().filter_map(newest_time).max(),
        _ => None,
    }
}

fn diagnosis(backend: &str, case: &str) -> Diagnosis {
    let fixture = load(backend, case);
    diagnose(&fixture.root, &fixture.owned, &fixture.events, fixture.now)
}

/// The first cause's headline, failing with every headline when there is none.
fn first_headline(backend: &str, case: &str, diagnosis: &Diagnosis) -> String {
    diagnosis
        .causes
        .first()
        .map(|cause| cause.headline())
        .unwrap_or_else(|| panic!("{backend}/{case}: no cause found"))
}

fn headlines(diagnosis: &Diagnosis) -> Vec<String> {
    diagnosis.causes.iter().map(|c| c.headline()).collect()
}

/// On both backends: the Deployment fails, and the first cause's headline starts with
/// `subject` and says `says`. Returns each backend's diagnosis.
fn assert_first_cause(case: &str, subject: &str, says: &str) -> Vec<(&'static str, Diagnosis)> {
    BACKENDS
        .into_iter()
        .map(|backend| {
            let diagnosis = diagnosis(backend, case);
            let headline = first_headline(backend, case, &diagnosis);
            assert_eq!(diagnosis.health(), Health::Failing, "{backend}: {headline}");
            assert!(
                headline.starts_with(subject) && headline.contains(says),
                "{backend}/{case}: {headline}"
            );
            (backend, diagnosis)
        })
        .collect()
}

#[test]
fn pods_no_node_can_take_are_the_first_cause_with_the_node_selector_named() {
    assert_first_cause(
        "unschedulable",
        "2 of 2 Pods of ReplicaSet unschedulable/web-",
        "cannot be scheduled: no node of 3 fits: 3 do not match its node selector or affinity",
    );
}

#[test]
fn a_missing_image_is_named() {
    assert_first_cause(
        "missing-image",
        "Pod missing-image/web-",
        "container web cannot pull its image nginx:doesnotexist",
    );
}

#[test]
fn a_crash_loop_says_it_keeps_crashing_with_the_exit_code() {
    let diagnoses = assert_first_cause(
        "crash-loop",
        "Pod crash-loop/web-",
        "container web keeps crashing: it exited with code 1 (Error)",
    );
    // Where to look next: the crashed instance's log.
    for (backend, diagnosis) in diagnoses {
        let check = &diagnosis.causes[0].finding.check;
        assert!(check.ends_with("--previous -c web"), "{backend}: {check}");
    }
}

#[test]
fn a_healthy_deployment_has_nothing_to_say() {
    for backend in BACKENDS {
        let diagnosis = diagnosis(backend, "healthy");
        assert!(
            diagnosis.is_clean(),
            "{backend}: {:?}",
            headlines(&diagnosis)
        );
        assert_eq!(diagnosis.health(), Health::Ok);
    }
}
