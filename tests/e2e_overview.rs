//! End-to-end tests of the cluster overview (`#/`, the landing page): it counts the nodes,
//! names the failing workloads, and draws the last hour's Warning Events by reason, where the
//! crash-looping pod's BackOff shows; a bar opens the Events page filtered to its reason. On
//! the seeded demo cluster (three nodes, failures in `troubled`, the crash loop `demo/flaky`)
//! and on kube-apiserver with its controllers, scheduler and the stand-in kubelet (two nodes;
//! an image named `crash` crash-loops), with screenshots in both themes.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{texts_at, wait_for, wait_until, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, PostParams};
use serde_json::json;
use thirtyfour::By;

/// The namespace of the real cluster's two Deployments.
const NAMESPACE: &str = "overview";

async fn create_deployments(harness: &Harness) {
    harness.create_namespace(NAMESPACE).await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), NAMESPACE);
    for (name, image) in [("crasher", "crash:1"), ("healthy", "nginx:1.27")] {
        let deployment = serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}},
                             "spec": {"containers": [{"name": "main", "image": image,
                                 "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}}}]}}
            }
        }))
        .expect("a Deployment");
        deployments
            .create(&PostParams::default(), &deployment)
            .await
            .expect("deployment created");
    }
}

/// The number a `data-stat` shows.
async fn stat(harness: &Harness, name: &str) -> Option<u64> {
    texts_at(&harness.driver, &format!("[data-stat='{name}']"), None)
        .await
        .first()
        .and_then(|t| t.trim().parse().ok())
}

/// The names of the workloads listed as unhealthy.
async fn unhealthy_names(harness: &Harness) -> Vec<String> {
    texts_at(
        &harness.driver,
        ".unhealthy-workloads li",
        Some("data-workload"),
    )
    .await
}

/// The reasons of the histogram's bars.
async fn bar_reasons(harness: &Harness) -> Vec<String> {
    texts_at(
        &harness.driver,
        ".histogram-svg rect.chart-bar",
        Some("data-reason"),
    )
    .await
}

async fn overview_counts_nodes_failing_workloads_and_warnings(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let (fragment, nodes, failing): (&str, u64, &[&str]) = match backend {
        // The whole cluster: the seeded failures and the crash loop in `demo`.
        Backend::Demo => ("#/", 3, &["billing", "flaky", "gpu-trainer"]),
        Backend::Real => {
            create_deployments(&harness).await;
            ("#/?ns=overview", 2, &["crasher"])
        }
    };
    harness.open(fragment).await;
    wait_for(&harness.driver, ".overview-page .overview-grid").await;
    wait_until(
        &format!("the overview counts {nodes} nodes, all ready"),
        async || {
            (
                stat(&harness, "nodes-total").await,
                stat(&harness, "nodes-ready").await,
            )
        },
        |(total, ready)| *total == Some(nodes) && *ready == Some(nodes),
    )
    .await;
    let shown = wait_until(
        &format!("the overview names the failing workloads {failing:?}"),
        async || unhealthy_names(&harness).await,
        // The healthy Deployment may be listed while it is still rolling out (Progressing):
        // it leaves the list once available.
        |names| {
            failing.iter().all(|f| names.iter().any(|n| n == f))
                && !names.iter().any(|n| n == "healthy")
        },
    )
    .await;
    eprintln!("unhealthy workloads: {shown:?}");
    // The count is the list's length (the list shows six at most): the failing ones are
    // counted, and nothing else is.
    wait_until(
        "the unhealthy count is the number of unhealthy workloads listed",
        async || {
            (
                stat(&harness, "workloads-unhealthy").await,
                unhealthy_names(&harness).await,
            )
        },
        |(count, names)| {
            let listed = names.len() as u64;
            failing.iter().all(|f| names.iter().any(|n| n == f))
                && (*count == Some(listed) || (listed == 6 && count.is_some_and(|c| c >= 6)))
        },
    )
    .await;
    wait_until(
        "the Warning histogram has the crash loop's BackOff",
        async || bar_reasons(&harness).await,
        |reasons| reasons.iter().any(|r| r == "BackOff"),
    )
    .await;
    // Each bar says itself in words; the chart as a whole too.
    let titles = texts_at(&harness.driver, ".histogram-svg rect.chart-bar title", None).await;
    eprintln!("bars: {titles:?}");
    let label = texts_at(&harness.driver, ".histogram-svg", Some("aria-label")).await;
    assert!(
        label.first().is_some_and(|l| l.contains("BackOff")),
        "{label:?}"
    );
    // Requests per node, from the pod specs.
    let meters = texts_at(&harness.driver, ".node-requests", Some("data-node")).await;
    assert_eq!(meters.len() as u64, nodes, "{meters:?}");
    harness.screenshot("overview").await;

    // A BackOff bar opens the Events page filtered to BackOff Warnings. The chart is live:
    // a Warning arriving between finding the bar and clicking it can restack the bars, and
    // the click then lands on a neighbour (ElementClickIntercepted, or a neighbour's Events
    // page: then the user goes back and clicks again).
    for _ in 0..5 {
        common::click_live(
            &harness.driver,
            ".histogram-svg rect.chart-bar[data-reason='BackOff']",
        )
        .await;
        let opened = wait_until(
            "a bar opens the Events page",
            async || page_url(&harness).await,
            |url| url.contains("#/events"),
        )
        .await;
        if opened.contains("reason=BackOff") {
            break;
        }
        eprintln!("the bars restacked under the click: opened {opened}; back, and again");
        harness.driver.back().await.expect("back to the overview");
        wait_for(
            &harness.driver,
            ".histogram-svg rect.chart-bar[data-reason='BackOff']",
        )
        .await;
    }
    let url = wait_until(
        "the Events page opens filtered to BackOff",
        async || page_url(&harness).await,
        |url| url.contains("#/events") && url.contains("reason=BackOff"),
    )
    .await;
    eprintln!("opened {url}");
    let reasons = wait_until(
        "the Events page shows only BackOff Event objects",
        async || {
            texts_at(
                &harness.driver,
                ".event-table tbody tr",
                Some("data-reason"),
            )
            .await
        },
        |reasons| !reasons.is_empty() && reasons.iter().all(|r| r == "BackOff"),
    )
    .await;
    eprintln!("{} BackOff rows", reasons.len());
    let chip = texts_at(&harness.driver, ".event-reason-filter", Some("data-reason")).await;
    assert_eq!(chip, ["BackOff"]);
    let warnings_only = harness
        .driver
        .find(By::Css("input[aria-label='Warnings only']"))
        .await
        .expect("the Warnings only checkbox")
        .is_selected()
        .await
        .expect("checked or not");
    assert!(warnings_only);
    harness.stop().await;
}

on_both_backends!(overview_counts_nodes_failing_workloads_and_warnings);

/// The overview of the seeded demo cluster in the dark theme, for the README.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overview_in_the_dark_theme() {
    let harness = Harness::start_dark().await;
    harness.open("#/").await;
    wait_until(
        "the dark overview has its nodes, failing workloads and the BackOff bar",
        async || {
            (
                stat(&harness, "nodes-total").await,
                unhealthy_names(&harness).await.len(),
                bar_reasons(&harness).await,
            )
        },
        |(nodes, unhealthy, reasons)| {
            *nodes == Some(3) && *unhealthy >= 3 && reasons.iter().any(|r| r == "BackOff")
        },
    )
    .await;
    harness.screenshot("overview-dark").await;
    harness.stop().await;
}

/// The address the browser shows (empty while it cannot say).
async fn page_url(harness: &Harness) -> String {
    harness
        .driver
        .current_url()
        .await
        .map(|u| u.to_string())
        .unwrap_or_default()
}
