//! One health everywhere, on the Deployments recorded from both backends
//! (`fixtures/diagnosis/{real,demo}`, see `diagnosis_fixtures.rs`): the verdicts a list of
//! all of them gets at once from `controller_health` are what each one's page says
//! (`diagnose`), and what the overview counts (`workload_summary`).

use std::path::PathBuf;

use kube_atlas_model::diagnosis::{controller_health, diagnose, Health};
use kube_atlas_model::object::events::{event_record, EventRecord};
use kube_atlas_model::overview::workload_summary;
use kube_atlas_model::time::age::{parse_timestamp, EpochMillis};
use serde_json::Value;

const BACKENDS: [&str; 2] = ["real", "demo"];

const CASES: [(&str, Health); 4] = [
    ("healthy", Health::Ok),
    ("unschedulable", Health::Failing),
    ("missing-image", Health::Failing),
    ("crash-loop", Health::Failing),
];

fn load(backend: &str, case: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/diagnosis")
        .join(backend)
        .join(format!("{case}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The newest timestamp anywhere in `value`.
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

fn items(fixture: &Value, key: &str) -> Vec<Value> {
    fixture[key].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_list_of_every_recorded_deployment_says_what_each_page_says() {
    for backend in BACKENDS {
        let fixtures: Vec<Value> = CASES.iter().map(|(case, _)| load(backend, case)).collect();
        let now = fixtures
            .iter()
            .filter_map(newest_time)
            .max()
            .expect("times")
            + 5_000;
        let roots: Vec<Value> = fixtures.iter().map(|f| f["root"].clone()).collect();
        let owned: Vec<Value> = fixtures.iter().flat_map(|f| items(f, "owned")).collect();
        let events: Vec<EventRecord> = fixtures
            .iter()
            .flat_map(|f| items(f, "events"))
            .filter_map(|e| event_record(&e))
            .collect();
        let verdicts = controller_health(&roots, &owned, &events, now);
        assert_eq!(verdicts.len(), CASES.len(), "{backend}");
        for ((case, expected), root) in CASES.iter().zip(&roots) {
            let uid = root["metadata"]["uid"].as_str().expect("a uid");
            let verdict = &verdicts[uid];
            let page = diagnose(root, &owned, &events, now);
            assert_eq!(verdict.health, page.health(), "{backend}/{case}");
            assert_eq!(verdict.health, *expected, "{backend}/{case}");
            if let Some(cause) = page.causes.first() {
                assert_eq!(verdict.about, cause.finding.subject, "{backend}/{case}");
                assert_eq!(verdict.sentence, cause.finding.sentence, "{backend}/{case}");
            }
        }
        let summary = workload_summary(&roots, &owned, &events, now);
        assert_eq!(
            (summary.count(Health::Ok), summary.count(Health::Failing)),
            (1, 3),
            "{backend}"
        );
        for unhealthy in &summary.unhealthy {
            let verdict = &verdicts[&unhealthy.workload.uid];
            assert_eq!(
                (unhealthy.health, &unhealthy.about, &unhealthy.sentence),
                (verdict.health, &verdict.about, &verdict.sentence),
                "{backend}"
            );
        }
    }
}
