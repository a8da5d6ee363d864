//! A viewer's tour in one tab, as a new user with limited rights takes it (the `view` role in
//! namespace `default` only, behind a `kubectl proxy` holding their token), opened after things
//! happened: the overview, Pods, Deployments, a Deployment (owner graph, diagnosis, timeline,
//! activity), its Pod (logs), Events, Permissions and a forbidden namespace. No view stays
//! loading, what the Deployment owns is found, watches of whole objects stay on WebSockets
//! (a refused probe is no evidence against them), and what the viewer may not read is named.
//! Then, behind kube-atlas, more list views at once than a browser has connections to a
//! server: every one goes live over the one shared socket.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::{deployment, texts_at, wait_for, wait_until, wait_until_within, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, PostParams};
use serde_json::json;
use thirtyfour::prelude::*;

const DEPLOYMENT: &str = "tour";

/// How long a view of the tour may take to show what it is about once the app runs: twice
/// the 5 s, as CI runs both backends' browsers at once on two cores (a stalled
/// view never gets there). The first view, which includes the app's start, has the usual
/// patience.
const VIEW_READY: Duration = Duration::from_secs(10);

/// The admin creates a one-replica Deployment in `default` and waits for its pod to run.
async fn deployment_running(harness: &Harness) -> String {
    let client = harness.kube_client();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let pod = json!({"containers": [{"name": "web", "image": "nginx:1.27"}]});
    deployments
        .create(&PostParams::default(), &deployment(DEPLOYMENT, 1, pod))
        .await
        .expect("the admin creates the Deployment");
    let pods: Api<Pod> = Api::namespaced(client, "default");
    let running = wait_until(
        "the Deployment's pod runs",
        async || {
            pods.list(&ListParams::default().labels(&format!("app={DEPLOYMENT}")))
                .await
                .map(|list| {
                    list.items
                        .into_iter()
                        .filter(|pod| {
                            pod.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
                        })
                        .filter_map(|pod| pod.metadata.name)
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        },
        |names| !names.is_empty(),
    )
    .await;
    running[0].clone()
}

/// Goes to `fragment` in the same tab (the app stays loaded, as a user clicking through).
async fn go(harness: &Harness, fragment: &str) {
    let script = format!("location.hash = {:?};", fragment.trim_start_matches('#'));
    harness
        .driver
        .execute(&script, vec![])
        .await
        .expect("the route changes");
}

/// What still says it is loading: `.loading` notes and status lines still listing.
async fn still_loading(driver: &WebDriver) -> Vec<String> {
    let mut loading = texts_at(driver, ".loading", None).await;
    loading.extend(
        texts_at(
            driver,
            ".stream-status[data-phase=listing] .stream-headline",
            None,
        )
        .await,
    );
    loading
}

/// Waits (at most [`VIEW_READY`]) until `ready` holds of what `css` shows and nothing on the
/// page says it is loading.
async fn view_ready(harness: &Harness, what: &str, css: &str, ready: impl Fn(&[String]) -> bool) {
    let started = std::time::Instant::now();
    wait_until_within(
        what,
        VIEW_READY,
        async || {
            (
                texts_at(&harness.driver, css, None).await,
                still_loading(&harness.driver).await,
            )
        },
        |(shown, loading)| ready(shown) && loading.is_empty(),
    )
    .await;
    // The bar is 5 s on an idle machine: the time each view took is printed.
    eprintln!(
        "viewer tour ({:?}): {what} in {} ms",
        harness.backend,
        started.elapsed().as_millis()
    );
}

async fn a_viewers_tour_never_stalls(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    let pod = deployment_running(&harness).await;
    // The page opens once, after things happened; from here on the user clicks through.
    harness.open("#/").await;
    wait_until(
        "the overview shows its sections",
        async || {
            (
                texts_at(&harness.driver, ".overview-card h2", None).await,
                still_loading(&harness.driver).await,
            )
        },
        |(titles, loading)| !titles.is_empty() && loading.is_empty(),
    )
    .await;

    go(&harness, "#/list/core/v1/pods?ns=default").await;
    view_ready(
        &harness,
        "the viewer's pods list shows the Deployment's pod",
        "tr.vt-row td.name-cell a",
        |names| names.contains(&pod),
    )
    .await;

    go(&harness, "#/list/apps/v1/deployments?ns=default").await;
    view_ready(
        &harness,
        "the Deployments list shows the Deployment",
        "tr.vt-row td.name-cell a",
        |names| names.iter().any(|n| n == DEPLOYMENT),
    )
    .await;

    let object = format!("#/obj/apps/v1/deployments/default/{DEPLOYMENT}");
    go(&harness, &object).await;
    view_ready(
        &harness,
        "the Deployment's owner graph shows its ReplicaSet",
        ".owner-graph a",
        |links| {
            links
                .iter()
                .any(|l| l.starts_with(&format!("ReplicaSet {DEPLOYMENT}-")))
        },
    )
    .await;
    assert!(
        !texts_at(&harness.driver, ".owner-graph", None)
            .await
            .iter()
            .any(|t| t.contains("nothing owned")),
        "the Deployment owns a ReplicaSet the viewer may read"
    );
    // Whole objects are watched over WebSockets for the viewer as for the admin.
    wait_until(
        "the Deployment's watch says WebSocket",
        async || texts_at(&harness.driver, ".stream-transport", None).await,
        |transports| transports.iter().any(|t| t == "WebSocket"),
    )
    .await;

    go(&harness, &format!("{object}?tab=timeline")).await;
    view_ready(
        &harness,
        "the Deployment's timeline lists its revision",
        "ol.timeline li.revision",
        |revisions| !revisions.is_empty(),
    )
    .await;

    go(&harness, &format!("{object}?tab=activity")).await;
    wait_until_within(
        "the activity view is ready",
        VIEW_READY,
        async || {
            texts_at(&harness.driver, ".activity-panel", Some("data-ready"))
                .await
                .contains(&"true".to_string())
        },
        |ready| *ready,
    )
    .await;

    go(
        &harness,
        &format!("#/obj/core/v1/pods/default/{pod}?tab=logs"),
    )
    .await;
    view_ready(
        &harness,
        "the pod's log shows lines",
        ".pod-log-line",
        |lines| !lines.is_empty(),
    )
    .await;

    go(&harness, "#/events?ns=default").await;
    view_ready(
        &harness,
        "the viewer sees default's Event objects",
        ".event-table tbody tr",
        |rows| !rows.is_empty(),
    )
    .await;
    let transports = texts_at(&harness.driver, ".stream-transport", None).await;
    assert!(
        transports.iter().any(|t| t == "WebSocket"),
        "the Events watch is on a WebSocket: {transports:?}"
    );
    assert!(
        !transports.iter().any(|t| t.starts_with("Waiting")),
        "no view waits for a connection: {transports:?}"
    );

    go(&harness, "#/permissions?ns=default").await;
    view_ready(
        &harness,
        "the Permissions view lists what the viewer may do with pods",
        ".permissions-matrix tr[data-resource='pods'] td",
        |cells| cells.len() >= 4,
    )
    .await;

    // What the viewer may not read is named, not loading.
    go(&harness, "#/list/core/v1/pods?ns=kube-system").await;
    view_ready(
        &harness,
        "the forbidden namespace is explained",
        ".forbidden-explanation",
        |texts| texts == ["You may not list pods in namespace kube-system (signed in as viewer)."],
    )
    .await;
    harness.screenshot("viewer-tour-forbidden").await;

    // Back to what the viewer may read: the Deployment's page still finds what it owns.
    go(&harness, &object).await;
    view_ready(
        &harness,
        "the Deployment's page loads again",
        ".owner-graph a",
        |links| !links.is_empty(),
    )
    .await;
    harness.screenshot("viewer-tour-deployment").await;
    harness.stop().await;
}

on_both_backends!(a_viewers_tour_never_stalls);

/// Lists to open at once, each in a tab of its own: more than the six connections a browser
/// keeps to one server (each list's Table watch is a long-running HTTP response).
const LISTS: [&str; 8] = [
    "#/list/core/v1/pods?ns=default",
    "#/list/core/v1/configmaps?ns=default",
    "#/list/core/v1/services?ns=default",
    "#/list/core/v1/serviceaccounts?ns=default",
    "#/list/core/v1/endpoints?ns=default",
    "#/list/core/v1/namespaces",
    "#/list/apps/v1/deployments?ns=default",
    "#/list/apps/v1/replicasets?ns=default",
];

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_list_views_than_connections_all_go_live_through_kube_atlas() {
    let harness = Harness::start_several().await;
    let mut tabs = Vec::new();
    for (i, list) in LISTS.iter().enumerate() {
        if i > 0 {
            let tab = harness.driver.new_tab().await.expect("a new tab");
            harness
                .driver
                .switch_to_window(tab)
                .await
                .expect("switch to it");
        }
        harness.open(&format!("?cluster=alpha{list}")).await;
        tabs.push(harness.driver.window().await.expect("the tab's handle"));
    }
    // Every tab's list is live, over the one socket each tab keeps to kube-atlas.
    for (tab, list) in tabs.into_iter().zip(LISTS) {
        harness
            .driver
            .switch_to_window(tab)
            .await
            .expect("back to the tab");
        wait_until(
            &format!("{list} goes live over the shared socket"),
            async || {
                (
                    texts_at(&harness.driver, ".stream-headline", None).await,
                    texts_at(&harness.driver, ".stream-transport", None).await,
                )
            },
            |(headlines, transports)| {
                headlines.iter().any(|h| h == "Live")
                    && transports.iter().any(|t| t == "WebSocket (shared)")
            },
        )
        .await;
    }
    harness.screenshot("kube-atlas-eight-tabs").await;
    wait_for(&harness.driver, "tr.vt-row").await;
    harness.stop().await;
}
