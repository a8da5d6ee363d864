//! End-to-end tests of usage from the metrics API: the pods list's CPU and MEMORY columns
//! (as `kubectl top`, beside the limit) and their sort, a node's usage against its
//! allocatable, a workload's chart gaining samples and marking a rollout done while it was
//! open, and, without the metrics API, no columns, the reason in words and no request. On
//! the demo cluster (its own metrics API) and on kube-apiserver with the stand-in
//! metrics-server behind its aggregator.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::{wait_until, wait_until_within, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, ListParams, Patch, PatchParams};
use serde_json::json;
use thirtyfour::prelude::*;

/// A poll every 15 s: two samples take up to two windows.
const TWO_WINDOWS: Duration = Duration::from_secs(75);

/// The list's header labels.
async fn headers(harness: &Harness) -> Vec<String> {
    common::texts_at(&harness.driver, ".vt-table th .sort-button", None)
        .await
        .into_iter()
        .map(|t| t.trim_end_matches([' ', '▲', '▼']).to_string())
        .collect()
}

/// The cells of column `label` by row name.
async fn column(harness: &Harness, label: &str) -> Vec<(String, String)> {
    let labels = headers(harness).await;
    let Some(index) = labels.iter().position(|l| l == label) else {
        return Vec::new();
    };
    let script = format!(
        "return Array.from(document.querySelectorAll('.vt-table tbody tr')).map(r => {{
             const cells = r.querySelectorAll('td:not(.vt-select)');
             return [cells[0] ? cells[0].textContent.trim() : '', cells[{index}] ? cells[{index}].textContent.trim() : ''];
         }});"
    );
    harness
        .driver
        .execute(&script, vec![])
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<(String, String)>>().ok())
        .unwrap_or_default()
}

/// `64Mi / 128Mi limit` → its first quantity in bytes (or millicores for CPU).
fn leading_quantity(text: &str) -> Option<f64> {
    let first = text.split_whitespace().next()?;
    let digits: String = first
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let value: f64 = digits.parse().ok()?;
    let unit = &first[digits.len()..];
    let factor = match unit {
        "" => 1.0,
        "m" => 1.0,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(value * factor)
}

async fn click_header(harness: &Harness, label: &str) {
    let buttons = harness
        .driver
        .find_all(By::Css(".vt-table th .sort-button"))
        .await
        .unwrap_or_default();
    for button in buttons {
        if button.text().await.unwrap_or_default().starts_with(label) {
            button.click().await.expect("header click");
            return;
        }
    }
    panic!("no {label} header");
}

async fn pods_list_shows_usage_and_sorts_by_it(backend: Backend) {
    let harness = Harness::start_with_metrics(backend).await;
    let limited = json!({"containers": [{"name": "app", "image": "nginx:1.27",
        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                      "limits": {"cpu": "500m", "memory": "128Mi"}}}]});
    common::running_pod(&harness, "limited", limited).await;
    let open = json!({"containers": [{"name": "app", "image": "nginx:1.27"}]});
    common::running_pod(&harness, "unlimited", open).await;
    harness.open("#/list/core/v1/pods?ns=default").await;
    let cells = wait_until_within(
        "the limited pod's usage beside its limits",
        TWO_WINDOWS,
        async || {
            (
                column(&harness, "CPU").await,
                column(&harness, "MEMORY").await,
            )
        },
        |(cpu, memory)| {
            cpu.iter()
                .any(|(name, text)| name == "limited" && text.ends_with("/ 500m limit"))
                && memory
                    .iter()
                    .any(|(name, text)| name == "limited" && text.contains("/ 128Mi limit"))
        },
    )
    .await;
    let labels = headers(&harness).await;
    let at = |label: &str| labels.iter().position(|l| l == label);
    assert!(
        at("AGE") < at("CPU") && at("CPU") < at("MEMORY"),
        "kubectl's columns, then usage: {labels:?}"
    );
    let unlimited = cells.1.iter().find(|(name, _)| name == "unlimited");
    assert!(
        unlimited.is_some_and(|(_, text)| leading_quantity(text).is_some() && !text.contains('/')),
        "a pod without limits shows its usage alone: {unlimited:?}"
    );
    harness.screenshot("metrics-pods-list").await;
    // Sorted by memory, largest first: the rows follow the cells.
    click_header(&harness, "MEMORY").await;
    click_header(&harness, "MEMORY").await;
    wait_until(
        "rows in descending memory order",
        async || column(&harness, "MEMORY").await,
        |rows| {
            let values: Vec<f64> = rows
                .iter()
                .filter_map(|(_, text)| leading_quantity(text))
                .collect();
            values.len() >= 2 && values.windows(2).all(|pair| pair[0] >= pair[1])
        },
    )
    .await;
    harness.stop().await;
}

async fn a_node_shows_usage_against_allocatable(backend: Backend) {
    let harness = Harness::start_with_metrics(backend).await;
    let nodes: Api<Node> = Api::all(harness.kube_client());
    let node = nodes
        .list(&ListParams::default())
        .await
        .ok()
        .and_then(|l| l.items.into_iter().find_map(|n| n.metadata.name))
        .expect("a node");
    harness.open("#/list/core/v1/nodes").await;
    wait_until_within(
        "the nodes list's CPU against allocatable",
        TWO_WINDOWS,
        async || column(&harness, "CPU").await,
        |rows| rows.iter().any(|(_, text)| text.contains("allocatable")),
    )
    .await;
    harness.open(&format!("#/obj/core/v1/nodes/_/{node}")).await;
    let labels = wait_until_within(
        "the node's usage charts",
        TWO_WINDOWS,
        async || common::texts_at(&harness.driver, ".usage-chart svg", Some("aria-label")).await,
        |labels| {
            labels.iter().any(|l| {
                l.starts_with("CPU:") && l.contains("allocatable") && !l.contains("no samples")
            })
        },
    )
    .await;
    assert!(
        labels
            .iter()
            .any(|l| l.starts_with("Memory:") && l.contains("allocatable")),
        "{labels:?}"
    );
    scroll_to(&harness, ".usage-section").await;
    harness.screenshot("metrics-node-usage").await;
    harness.stop().await;
}

async fn scroll_to(harness: &Harness, css: &str) {
    if let Ok(element) = harness.driver.find(By::Css(css)).await {
        element.scroll_into_view().await.ok();
    }
}

/// The samples and marks of the first usage chart.
async fn chart_counts(harness: &Harness) -> (usize, usize) {
    let read = async |attribute: &str| {
        common::texts_at(&harness.driver, ".usage-chart", Some(attribute))
            .await
            .first()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (read("data-samples").await, read("data-marks").await)
}

async fn a_workload_chart_gains_samples_and_marks_a_rollout(backend: Backend) {
    let harness = Harness::start_with_metrics(backend).await;
    let deployments = common::nginx_deployment(&harness, "web", 2).await;
    common::wait_available(&deployments, "web", 2, "both replicas available").await;
    harness.open("#/obj/apps/v1/deployments/default/web").await;
    let (_, marks_before) = wait_until_within(
        "a first sample",
        TWO_WINDOWS,
        async || chart_counts(&harness).await,
        |(samples, _)| *samples >= 1,
    )
    .await;
    rollout(&deployments).await;
    wait_until_within(
        "a second sample and the rollout marked",
        TWO_WINDOWS,
        async || chart_counts(&harness).await,
        |(samples, marks)| *samples >= 2 && *marks > marks_before,
    )
    .await;
    let titles = common::texts_at(&harness.driver, ".usage-chart title", None).await;
    assert!(!titles.is_empty(), "each mark names its entry on hover");
    let drawn = harness
        .driver
        .execute(
            "const mark = document.querySelector('.usage-chart .usage-mark');
             return mark instanceof SVGLineElement && mark.getBoundingClientRect().height > 0;",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<bool>().ok());
    assert_eq!(drawn, Some(true), "a mark is an SVG line the user sees");
    scroll_to(&harness, ".usage-section").await;
    harness.screenshot("metrics-workload-chart").await;
    harness.stop().await;
}

/// A new template: a rollout, as `kubectl rollout restart` makes one.
async fn rollout(deployments: &Api<Deployment>) {
    let patch = json!({"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": "2026-12-07T12:00:00Z"}}}}});
    deployments
        .patch("web", &PatchParams::default(), &Patch::Merge(patch))
        .await
        .expect("template changed");
}

/// A container held at its CPU limit (a busy "chatty" image: 300m more on both backends'
/// metrics) is named in the pod's Diagnosis as likely throttled, with its usage and limit.
async fn a_pod_at_its_cpu_limit_is_diagnosed_as_throttled(backend: Backend) {
    let harness = Harness::start_with_metrics(backend).await;
    let busy = json!({"containers": [{"name": "app", "image": "kube-atlas/chatty:1",
        "resources": {"requests": {"cpu": "50m"}, "limits": {"cpu": "100m"}}}]});
    common::running_pod(&harness, "busy", busy).await;
    harness.open("#/obj/core/v1/pods/default/busy").await;
    let said = wait_until_within(
        "the Diagnosis names the throttled container",
        TWO_WINDOWS,
        async || {
            common::texts_at(
                &harness.driver,
                ".diagnosis-cause[data-rule='cpu-throttling'] .diagnosis-headline",
                None,
            )
            .await
        },
        |said| !said.is_empty(),
    )
    .await;
    assert!(
        said[0].starts_with("Pod default/busy container app uses ")
            && said[0].contains("of its 100m CPU limit")
            && said[0].ends_with("it is likely throttled"),
        "{said:?}"
    );
    harness.stop().await;
}

on_both_backends!(
    a_pod_at_its_cpu_limit_is_diagnosed_as_throttled,
    pods_list_shows_usage_and_sorts_by_it,
    a_node_shows_usage_against_allocatable,
    a_workload_chart_gains_samples_and_marks_a_rollout,
);

/// Without `--metrics` kube-apiserver serves no `metrics.k8s.io`: the lists have no usage
/// columns, say why once, and nothing asks the missing API.
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_metrics_api_no_columns_and_the_reason() {
    let harness = Harness::start_on(Backend::Real).await;
    let open = json!({"containers": [{"name": "app", "image": "nginx:1.27"}]});
    common::running_pod(&harness, "plain", open).await;
    harness.open("#/list/core/v1/pods?ns=default").await;
    let said = wait_until(
        "the reason instead of usage",
        async || common::texts_at(&harness.driver, ".usage-missing", None).await,
        |said| !said.is_empty(),
    )
    .await;
    assert_eq!(said.len(), 1, "said once: {said:?}");
    assert!(
        said[0].contains("no metrics API: install metrics-server"),
        "{said:?}"
    );
    wait_until(
        "the pod's row",
        async || common::shown_names(&harness.driver).await,
        |names| names.iter().any(|n| n == "plain"),
    )
    .await;
    let labels = headers(&harness).await;
    assert!(
        !labels.iter().any(|l| l == "CPU" || l == "MEMORY"),
        "{labels:?}"
    );
    harness.open("#/obj/core/v1/pods/default/plain").await;
    wait_until(
        "the pod page says why too",
        async || common::texts_at(&harness.driver, ".usage-section .usage-missing", None).await,
        |said| said.iter().any(|s| s.contains("no metrics API")),
    )
    .await;
    let asked: Vec<String> = common::logged_requests(&harness.driver)
        .await
        .into_iter()
        .map(|(_, _, path)| path)
        .filter(|path| path.contains("metrics.k8s.io"))
        .collect();
    assert!(asked.is_empty(), "nothing asks a missing API: {asked:?}");
    harness.stop().await;
}
