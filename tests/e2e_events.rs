//! End-to-end tests of the Event objects timeline (`#/events`): the seeded workloads' Events
//! appear live, Warnings are marked in words, an Event written with kube-rs shows its HTML
//! message as text, a repeated Event stays one row with its count, and a deleted one stays,
//! marked expired. The release build in headless Chromium against the demo cluster (`cargo
//! xtask test`, feature `e2e`).

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;

use common::{wait_for, wait_until, Backend, Harness};
use k8s_openapi::api::core::v1::{ConfigMap, Event};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde::Deserialize;
use thirtyfour::prelude::*;

/// One timeline row as the page shows it.
#[derive(Debug, Clone, Deserialize)]
struct Row {
    uid: String,
    #[serde(rename = "type")]
    event_type: String,
    reason: String,
    count: String,
    expired: String,
    type_text: String,
    message: String,
    message_html: String,
    object_href: Option<String>,
    times: String,
    when: String,
    images: u32,
}

/// Every timeline row, read in one script so a row redrawn meanwhile cannot go stale.
async fn rows(driver: &WebDriver) -> Vec<Row> {
    let script = r#"
        return Array.from(document.querySelectorAll('tr.event-row')).map(row => ({
            uid: row.dataset.uid,
            type: row.dataset.type,
            reason: row.dataset.reason,
            count: row.dataset.count,
            expired: row.dataset.expired,
            type_text: row.querySelector('.event-type').textContent.trim(),
            message: row.querySelector('.event-message').textContent,
            message_html: row.querySelector('.event-message').innerHTML,
            object_href: (row.querySelector('.event-object a') || {}).hash || null,
            times: row.querySelector('.event-count').textContent.trim(),
            when: row.querySelector('.event-when').textContent,
            images: row.querySelectorAll('img, script').length,
        }));
    "#;
    match driver.execute(script, vec![]).await {
        Ok(value) => serde_json::from_value(value.json().clone()).unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

fn reasons(rows: &[Row]) -> BTreeSet<String> {
    rows.iter().map(|r| r.reason.clone()).collect()
}

/// Waits until rows with every one of `wanted` reasons are shown; checks that each row says
/// its type in words (not colour alone) and that the BackOff row is a Warning linking a pod
/// whose object link starts with `backoff_pod_href`. Returns the rows.
async fn wait_for_reasons(driver: &WebDriver, wanted: &[&str], backoff_pod_href: &str) -> Vec<Row> {
    let shown = wait_until(
        &format!("Event objects with the reasons {wanted:?}"),
        async || rows(driver).await,
        |rows| {
            let seen = reasons(rows);
            wanted.iter().all(|r| seen.contains(*r))
        },
    )
    .await;
    for row in &shown {
        assert_eq!(row.type_text, row.event_type, "type in words: {row:?}");
    }
    let backoff = shown
        .iter()
        .find(|r| r.reason == "BackOff")
        .expect("a BackOff row");
    assert_eq!(backoff.event_type, "Warning");
    assert!(
        backoff
            .object_href
            .as_deref()
            .is_some_and(|h| h.starts_with(backoff_pod_href)),
        "the BackOff links its pod: {backoff:?}"
    );
    shown
}

const HOSTILE_MESSAGE: &str = "<img src=x onerror=alert(1)> <b>not bold</b> &amp;";

/// Now, as Kubernetes writes times (whole seconds, UTC).
fn now_rfc3339() -> String {
    let now = k8s_openapi::jiff::Timestamp::now();
    format!("{:.0}", now)
}

fn probe_event() -> Event {
    let now = now_rfc3339();
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": "e2e-probe.1", "namespace": "demo"},
        "involvedObject": {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "demo",
            "name": "e2e-events-target"},
        "reason": "E2EProbe",
        "message": HOSTILE_MESSAGE,
        "type": "Normal",
        "source": {"component": "e2e-tester", "host": "test-machine"},
        "reportingComponent": "e2e-tester",
        "reportingInstance": "test-machine",
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1
    }))
    .expect("an Event")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn namespace_timeline_follows_event_objects_live() {
    let harness = Harness::start().await;
    let client = harness.kube_client();
    let driver = &harness.driver;

    harness.open("#/events?ns=demo").await;
    wait_for(driver, ".event-timeline .stream-status[data-phase=live]").await;
    // The demo cluster serves events.k8s.io/v1, so that is watched (core/v1 shows the same
    // objects); the Event written through core/v1 below must appear through it.
    wait_for(driver, ".event-timeline[data-api='events.k8s.io/v1']").await;
    let header_link = wait_for(driver, "a.header-link[href^='#/events']").await;
    assert_eq!(header_link.text().await.expect("text"), "Events");
    let heading = wait_for(driver, ".events-page h1").await;
    let heading = heading.text().await.expect("text");
    assert!(heading.contains("Event objects"), "{heading}");
    assert!(heading.contains("reports by components"), "{heading}");

    // What the seeded workloads produce: the ReplicaSet controller creating pods, the
    // scheduler placing them, the kubelet pulling and starting, and demo/flaky crashing.
    let seeded = wait_for_reasons(
        driver,
        &[
            "SuccessfulCreate",
            "Scheduled",
            "Pulled",
            "Started",
            "BackOff",
        ],
        "#/obj/core/v1/pods/demo/flaky-",
    )
    .await;
    // Each row is one Event object.
    let uids: BTreeSet<&str> = seeded.iter().map(|r| r.uid.as_str()).collect();
    assert_eq!(uids.len(), seeded.len());

    // An Event written with kube-rs through core/v1, with markup in its message.
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "demo");
    let target: ConfigMap = serde_json::from_value(
        serde_json::json!({"metadata": {"name": "e2e-events-target"}, "data": {"k": "v"}}),
    )
    .expect("config map");
    config_maps
        .create(&PostParams::default(), &target)
        .await
        .expect("target created");
    let events: Api<Event> = Api::namespaced(client.clone(), "demo");
    events
        .create(&PostParams::default(), &probe_event())
        .await
        .expect("event created");
    let probe_rows = async || {
        rows(driver)
            .await
            .into_iter()
            .filter(|r| r.reason == "E2EProbe")
            .collect::<Vec<_>>()
    };
    let created = wait_until("the new Event's row", probe_rows, |rows| rows.len() == 1).await;
    let probe = &created[0];
    assert_eq!(probe.message, HOSTILE_MESSAGE, "the message is text");
    assert_eq!(probe.images, 0, "no markup was interpreted: {probe:?}");
    assert!(probe.message_html.contains("&lt;img"), "{probe:?}");
    assert_eq!(probe.count, "1");
    assert_eq!(probe.times, "");
    assert_eq!(
        probe.object_href.as_deref(),
        Some("#/obj/core/v1/configmaps/demo/e2e-events-target")
    );
    harness.screenshot("events-timeline").await;

    // Repeated: the recorder bumps count and lastTimestamp; still one row, with ×5.
    events
        .patch(
            "e2e-probe.1",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"count": 5, "lastTimestamp": now_rfc3339()})),
        )
        .await
        .expect("count patched");
    let repeated = wait_until("one row with ×5", probe_rows, |rows| {
        rows.len() == 1 && rows[0].count == "5"
    })
    .await;
    assert_eq!(repeated[0].times, "×5");
    assert!(repeated[0].when.contains("first"), "{:?}", repeated[0]);

    // Deleted from the cluster (as the one-hour TTL does): the row stays, marked.
    events
        .delete("e2e-probe.1", &DeleteParams::default())
        .await
        .expect("event deleted");
    let expired = wait_until("the row marked expired", probe_rows, |rows| {
        rows.len() == 1 && rows[0].expired == "true"
    })
    .await;
    assert!(
        expired[0].when.contains("expired from the cluster"),
        "{:?}",
        expired[0]
    );
    let counts = wait_for(driver, ".event-counts").await;
    let counts = counts.text().await.expect("text");
    assert!(counts.contains("1 expired from the cluster"), "{counts}");

    // Warnings only: every row left is a Warning.
    wait_for(driver, "input[aria-label='Warnings only']")
        .await
        .click()
        .await
        .expect("toggled");
    let warnings = wait_until(
        "only Warnings",
        async || rows(driver).await,
        |rows| !rows.is_empty() && rows.iter().all(|r| r.event_type == "Warning"),
    )
    .await;
    assert!(warnings.iter().any(|r| r.reason == "BackOff"));

    // Another namespace in the header: the Event objects of that namespace.
    driver
        .execute(
            "const s = document.getElementById('namespace-select'); s.value = 'shop'; \
             s.dispatchEvent(new Event('change', {bubbles: true}));",
            vec![],
        )
        .await
        .expect("namespace chosen");
    wait_until(
        "the events page in shop",
        async || {
            driver
                .current_url()
                .await
                .map(|u| u.to_string())
                .unwrap_or_default()
        },
        |url| url.ends_with("#/events?ns=shop"),
    )
    .await;
    let heading = wait_for(driver, ".events-page h1").await;
    assert!(heading
        .text()
        .await
        .expect("text")
        .contains("namespace shop"));

    harness.stop().await;
}

on_both_backends!(the_controllers_event_objects_about_a_new_deployment_appear_live);
/// The Event objects the controllers, the scheduler and the kubelet write about a new
/// Deployment appear live, on either backend: on the real cluster they come from
/// kube-controller-manager, kube-scheduler and the stand-in kubelet. A crashing container's
/// BackOff is a Warning, said in words.
async fn the_controllers_event_objects_about_a_new_deployment_appear_live(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let driver = &harness.driver;
    harness.create_namespace("events-live").await;
    harness.open("#/events?ns=events-live").await;
    wait_for(driver, ".event-timeline .stream-status[data-phase=live]").await;
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> =
        Api::namespaced(harness.kube_client(), "events-live");
    for (name, image) in [("web", "nginx:1.27"), ("crasher", "crash:1")] {
        let deployment = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}},
                             "spec": {"containers": [{"name": "main", "image": image}]}}
            }
        }))
        .expect("a Deployment");
        deployments
            .create(&PostParams::default(), &deployment)
            .await
            .expect("deployment created");
    }
    wait_for_reasons(
        driver,
        &[
            "ScalingReplicaSet",
            "SuccessfulCreate",
            "Scheduled",
            "Started",
            "BackOff",
        ],
        "#/obj/core/v1/pods/events-live/crasher-",
    )
    .await;
    harness.screenshot("events-of-a-new-deployment").await;
    harness.stop().await;
}
