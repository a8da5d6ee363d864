//! End-to-end tests of a workload's logs: a Deployment's Logs tab shows the lines of all its
//! pods merged by time, each behind its pod's tag; scaling joins the new pods live; changing
//! the image ends the old pods' streams and joins the new ones. On the demo cluster and on
//! kube-apiserver (its stand-in kubelet serves `pods/log` with `--streams`), behind the same
//! `kubectl proxy`-style HTTP the page is served over.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;

use common::{deployment, wait_until, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{json, Value};
use thirtyfour::prelude::*;

/// The lines in view: (full stream name, time of day, text).
async fn shown_lines(driver: &WebDriver) -> Vec<(String, String, String)> {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('.workload-log-line')).map(l => [
               l.querySelector('.workload-log-tag').dataset.stream,
               l.querySelector('.workload-log-time').textContent,
               l.querySelector('.pod-log-text').textContent]);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, String, String)>>().ok())
        .unwrap_or_default()
}

/// The streams listed: (pod/container, live, sentence).
async fn streams(driver: &WebDriver) -> Vec<(String, bool, String)> {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('.workload-log-stream')).map(s =>
               [s.dataset.stream, s.dataset.live === 'true', s.textContent]);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, bool, String)>>().ok())
        .unwrap_or_default()
}

fn pods_of(lines: &[(String, String, String)]) -> BTreeSet<String> {
    lines
        .iter()
        .filter_map(|(stream, _, _)| stream.split('/').next().map(str::to_string))
        .collect()
}

/// Times of day (`HH:MM:SS.mmm`, UTC) never go back down the view.
fn in_time_order(lines: &[(String, String, String)]) -> bool {
    lines.windows(2).all(|pair| pair[0].1 <= pair[1].1)
}

async fn pod_names(deployments: &Api<Deployment>, harness: &Harness, name: &str) -> Vec<String> {
    let _ = deployments;
    let pods: Api<k8s_openapi::api::core::v1::Pod> =
        Api::namespaced(harness.kube_client(), "default");
    pods.list(&kube::api::ListParams::default().labels(&format!("app={name}")))
        .await
        .map(|list| {
            list.items
                .into_iter()
                .filter(|p| p.metadata.deletion_timestamp.is_none())
                .filter_map(|p| p.metadata.name)
                .collect()
        })
        .unwrap_or_default()
}

async fn a_deployments_logs_follow_its_pods(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), "default");
    let spec = json!({"containers": [{"name": "web", "image": "nginx:1.27"}]});
    deployments
        .create(&PostParams::default(), &deployment("web", 3, spec))
        .await
        .expect("Deployment created");
    harness
        .open("#/obj/apps/v1/deployments/default/web?tab=logs")
        .await;

    // All three pods' lines, in time order, each behind its pod's tag.
    let lines = wait_until(
        "lines of all three pods",
        async || shown_lines(&harness.driver).await,
        |lines| pods_of(lines).len() == 3,
    )
    .await;
    assert!(in_time_order(&lines), "merged by time: {lines:?}");
    let running = pod_names(&deployments, &harness, "web").await;
    assert!(
        pods_of(&lines).iter().all(|pod| running.contains(pod)),
        "the tags name the Deployment's pods: {lines:?} vs {running:?}"
    );
    assert!(
        lines
            .iter()
            .any(|(_, _, text)| text.contains("docker-entrypoint")),
        "nginx's start-up lines: {lines:?}"
    );
    harness.screenshot("workload-logs").await;

    // Scaled to 5: the two new pods join, live.
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 5}})),
        )
        .await
        .expect("scaled");
    wait_until(
        "five pods streamed and their lines shown",
        async || {
            (
                streams(&harness.driver).await,
                pods_of(&shown_lines(&harness.driver).await),
            )
        },
        |(streams, shown)| {
            streams.iter().filter(|(_, live, _)| *live).count() == 5 && shown.len() == 5
        },
    )
    .await;

    // A new image: the old pods end (their lines stay), the new ones join.
    let old: BTreeSet<String> = pod_names(&deployments, &harness, "web")
        .await
        .into_iter()
        .collect();
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"template": {"spec": {"containers": [
                {"name": "web", "image": "nginx:1.28"}]}}}})),
        )
        .await
        .expect("new image");
    wait_until(
        "the old pods ended and the new ones joined",
        async || {
            (
                streams(&harness.driver).await,
                pods_of(&shown_lines(&harness.driver).await),
            )
        },
        |(streams, _)| {
            let ended_old = streams
                .iter()
                .filter(|(s, live, said)| {
                    !live
                        && old.iter().any(|o| s.starts_with(&format!("{o}/")))
                        && said.contains("ended")
                })
                .count();
            let live_new = streams
                .iter()
                .filter(|(s, live, _)| {
                    *live && !old.iter().any(|o| s.starts_with(&format!("{o}/")))
                })
                .count();
            ended_old == 5 && live_new == 5
        },
    )
    .await;
    harness.screenshot("workload-logs-rollout").await;
    // The old pods' lines stay: above the new ones (out of the virtualized window while
    // following), and shown when the view is filtered to an old pod.
    let an_old_pod = old.iter().next().cloned().unwrap_or_default();
    let pod_choice = harness
        .driver
        .find(By::Css("select[aria-label='Pod']"))
        .await
        .expect("the pod filter");
    thirtyfour::components::SelectElement::new(&pod_choice)
        .await
        .expect("a select")
        .select_by_value(&an_old_pod)
        .await
        .expect("an old pod chosen");
    wait_until(
        "the old pod's lines, kept after it went",
        async || pods_of(&shown_lines(&harness.driver).await),
        |pods| pods.len() == 1 && pods.contains(&an_old_pod),
    )
    .await;
    harness.stop().await;
}

on_both_backends!(a_deployments_logs_follow_its_pods);

/// Lines are text: a filter matches and highlights, a bad regular expression says why.
async fn the_filter_highlights_and_explains_a_bad_pattern(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), "default");
    let spec = json!({"containers": [{"name": "web", "image": "nginx:1.27"}]});
    deployments
        .create(&PostParams::default(), &deployment("web", 2, spec))
        .await
        .expect("Deployment created");
    harness
        .open("#/obj/apps/v1/deployments/default/web?tab=logs")
        .await;
    wait_until(
        "lines of both pods",
        async || shown_lines(&harness.driver).await,
        |lines| pods_of(lines).len() == 2,
    )
    .await;
    let filter = harness
        .driver
        .find(By::Css(".workload-logs-filter"))
        .await
        .expect("the filter");
    filter
        .send_keys("Configuration complete")
        .await
        .expect("typed");
    let marked = wait_until(
        "only the matching lines, the match marked",
        async || {
            let lines = shown_lines(&harness.driver).await;
            let marks: Vec<Value> = harness
                .driver
                .execute(
                    "return Array.from(document.querySelectorAll('.workload-log-line mark')).map(m => m.textContent);",
                    vec![],
                )
                .await
                .map(|r| r.json().clone())
                .ok()
                .and_then(|v| v.as_array().cloned())
                .unwrap_or_default();
            (lines, marks)
        },
        |(lines, marks)| {
            lines.len() == 2
                && lines.iter().all(|(_, _, t)| t.contains("Configuration complete"))
                && marks.len() == 2
        },
    )
    .await;
    assert!(
        marked.1.iter().all(|m| m == "Configuration complete"),
        "{marked:?}"
    );
    harness
        .driver
        .find(By::Css("input[aria-label='Regular expression']"))
        .await
        .expect("regex box")
        .click()
        .await
        .expect("regex on");
    filter.clear().await.expect("cleared");
    filter.send_keys("(unclosed").await.expect("typed");
    wait_until(
        "a bad pattern says why",
        async || common::texts_at(&harness.driver, ".workload-logs-pattern-error", None).await,
        |said| said.iter().any(|s| s.contains("regular expression")),
    )
    .await;
    harness.stop().await;
}

on_both_backends!(the_filter_highlights_and_explains_a_bad_pattern);

/// The viewer (the `view` role in `default`) reads a Deployment's logs there (`view` grants
/// `get pods/log`), and is refused elsewhere with the permission named.
async fn the_viewer_reads_workload_logs_in_default(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), "default");
    let spec = json!({"containers": [{"name": "web", "image": "nginx:1.27"}]});
    deployments
        .create(&PostParams::default(), &deployment("web", 2, spec))
        .await
        .expect("Deployment created by the admin");
    harness
        .open("#/obj/apps/v1/deployments/default/web?tab=logs")
        .await;
    let lines = wait_until(
        "the viewer sees both pods' lines",
        async || shown_lines(&harness.driver).await,
        |lines| pods_of(lines).len() == 2,
    )
    .await;
    assert!(in_time_order(&lines), "{lines:?}");

    // Elsewhere the pods cannot be listed: the logs view says so in the server's words,
    // which name the permission.
    harness
        .open("#/list/core/v1/pods?ns=kube-system&l=app%3Dweb")
        .await;
    common::click_live(&harness.driver, ".selector-logs summary").await;
    wait_until(
        "the refusal, naming the permission",
        async || common::texts_at(&harness.driver, ".workload-logs-refused", None).await,
        |said| {
            said.iter().any(|s| {
                s.contains("kube-system") && s.contains("cannot list") && s.contains("pods")
            })
        },
    )
    .await;
    harness.stop().await;
}

on_both_backends!(the_viewer_reads_workload_logs_in_default);

/// A pods list filtered by a label selector offers the logs of the pods it shows, merged.
async fn logs_of_the_pods_a_label_selector_chooses(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), "default");
    let spec = json!({"containers": [{"name": "web", "image": "nginx:1.27"}]});
    deployments
        .create(&PostParams::default(), &deployment("web", 2, spec.clone()))
        .await
        .expect("Deployment created");
    deployments
        .create(&PostParams::default(), &deployment("other", 1, spec))
        .await
        .expect("another Deployment created");
    harness
        .open("#/list/core/v1/pods?ns=default&l=app%3Dweb")
        .await;
    common::click_live(&harness.driver, ".selector-logs summary").await;
    let lines = wait_until(
        "both chosen pods' lines, and no other pod's",
        async || shown_lines(&harness.driver).await,
        |lines| pods_of(lines).len() == 2,
    )
    .await;
    assert!(
        pods_of(&lines).iter().all(|pod| pod.starts_with("web-")),
        "only the pods app=web chooses: {lines:?}"
    );
    harness.stop().await;
}

on_both_backends!(logs_of_the_pods_a_label_selector_chooses);
