//! End-to-end tests of a user who is not cluster-admin: the viewer (the `view` ClusterRole in
//! namespace `default` only, RBAC enforced) behind a `kubectl proxy` holding their token, on
//! kube-apiserver and on the demo cluster run with a tokens file. Pages across all namespaces
//! fall back to `default`; a forbidden namespace says what is missing, offers `default`, and
//! asks nothing again by itself; write controls are disabled with their reason, and enabled
//! for the admin on the same page; Events shows the namespace's Event objects; the
//! Permissions page lists pods with get/list/watch and no create.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{logged_requests, stream_phases, texts_at, wait_for, wait_until, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, PostParams};
use serde_json::json;
use thirtyfour::prelude::*;

const DEPLOYMENT: &str = "viewed";

async fn create_deployment(harness: &Harness) {
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), "default");
    let deployment = serde_json::from_value(json!({
        "metadata": {"name": DEPLOYMENT},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": DEPLOYMENT}},
            "template": {"metadata": {"labels": {"app": DEPLOYMENT}},
                         "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}
        }
    }))
    .expect("a Deployment");
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .expect("the admin creates the Deployment");
}

/// (disabled, title) of the first button matching `css`.
async fn button_state(harness: &Harness, css: &str) -> Option<(bool, String)> {
    let button = harness.driver.find(By::Css(css)).await.ok()?;
    let disabled = button.attr("disabled").await.ok()?.is_some();
    let title = button.attr("title").await.ok()?.unwrap_or_default();
    Some((disabled, title))
}

/// How many requests for `path` the request log shows answered 403.
async fn forbidden_requests(harness: &Harness, path: &str) -> usize {
    logged_requests(&harness.driver)
        .await
        .into_iter()
        .filter(|(_, status, shown)| status.contains("403") && shown.starts_with(path))
        .count()
}

async fn a_viewer_sees_what_they_may_do(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    create_deployment(&harness).await;

    // Pods across all namespaces are forbidden: the list falls back to `default`.
    harness.open("#/list/core/v1/pods").await;
    let note = wait_for(&harness.driver, ".namespace-fallback").await;
    assert_eq!(
        note.text().await.expect("note"),
        "Showing namespace default: you may not list pods across all namespaces."
    );
    wait_until(
        "the pod list moved to namespace default",
        async || harness.hash().await,
        |hash| hash.contains("ns=default"),
    )
    .await;
    wait_until(
        "the viewer sees the Deployment's pod in default",
        async || texts_at(&harness.driver, "tr.vt-row td.name-cell a", None).await,
        |names| names.iter().any(|n| n.starts_with(DEPLOYMENT)),
    )
    .await;
    // Creating pods is not the viewer's: the button says why.
    let (disabled, title) = button_state(&harness, ".list-actions button")
        .await
        .expect("the Create Pod button");
    assert!(disabled, "Create Pod is disabled for the viewer");
    assert_eq!(title, "You may not create pods in namespace default.");
    harness.screenshot("permissions-viewer-pods").await;

    // A namespace the viewer may not read: said in words, `default` offered, and the
    // refused list is not asked again by itself.
    harness.open("#/list/core/v1/pods?ns=kube-system").await;
    let explanation = wait_for(&harness.driver, ".forbidden-explanation").await;
    assert_eq!(
        explanation.text().await.expect("explanation"),
        "You may not list pods in namespace kube-system (signed in as viewer)."
    );
    wait_until(
        "the refusal offers the namespaces where the viewer may list pods",
        async || texts_at(&harness.driver, ".forbidden-alternatives a", None).await,
        |namespaces| *namespaces == ["default"],
    )
    .await;
    let headline = wait_for(&harness.driver, ".stream-headline").await;
    assert_eq!(headline.text().await.expect("headline"), "Forbidden");
    // No stream was opened, so none is named.
    assert!(
        texts_at(&harness.driver, ".stream-transport", None)
            .await
            .is_empty(),
        "a refused list names no transport"
    );
    // The stream is forbidden and no retry is scheduled: no countdown.
    let phases = wait_until(
        "the status line says the stream is forbidden",
        async || stream_phases(&harness.driver).await,
        |phases| !phases.is_empty() && phases.iter().all(|(phase, _)| phase == "forbidden"),
    )
    .await;
    assert!(
        phases
            .iter()
            .all(|(_, details)| !details.contains("retrying in")),
        "no retry is scheduled: {phases:?}"
    );
    let refused_path = "/api/v1/namespaces/kube-system/pods";
    let asked = forbidden_requests(&harness, refused_path).await;
    assert!(asked >= 1, "the refused list is in the request log");
    // Past the time a retry would have been sent: still no more requests, still forbidden.
    tokio::time::sleep(common::after_the_next_retry()).await;
    assert_eq!(
        forbidden_requests(&harness, refused_path).await,
        asked,
        "a forbidden list is not retried by itself"
    );
    let phases = stream_phases(&harness.driver).await;
    assert!(
        !phases.is_empty() && phases.iter().all(|(phase, _)| phase == "forbidden"),
        "{phases:?}"
    );
    harness.screenshot("permissions-forbidden-namespace").await;
    // Asked to, it tries once more (and is refused again).
    harness
        .driver
        .find(By::Css(".forbidden-retry"))
        .await
        .expect("Try again")
        .click()
        .await
        .expect("click");
    wait_until(
        "Try again asks the server once more",
        async || forbidden_requests(&harness, refused_path).await,
        |n| *n > asked,
    )
    .await;

    // The Deployment's page: reading works, writing is disabled with the reason.
    let object = format!("#/obj/apps/v1/deployments/default/{DEPLOYMENT}");
    harness.open(&object).await;
    wait_until(
        "Scale is disabled with its reason",
        async || button_state(&harness, ".scale-action button").await,
        |state| {
            *state
                == Some((
                    true,
                    format!(
                        "You may not patch deployments/scale \"{DEPLOYMENT}\" in namespace default."
                    ),
                ))
        },
    )
    .await;
    assert!(
        harness
            .driver
            .find(By::Css(".namespace-fallback"))
            .await
            .is_err(),
        "the fallback note belongs to the list that fell back, not to later pages"
    );
    let (delete_disabled, delete_title) = button_state(&harness, ".delete-action button")
        .await
        .expect("Delete");
    assert!(delete_disabled);
    assert_eq!(
        delete_title,
        format!("You may not delete deployments \"{DEPLOYMENT}\" in namespace default.")
    );
    let reason = wait_for(&harness.driver, "#denied-delete").await;
    assert_eq!(
        reason.attr("class").await.expect("class").as_deref(),
        Some("visually-hidden denial-reason"),
        "screen readers get the reason too"
    );
    harness
        .open(&format!(
            "#/obj/apps/v1/deployments/default/{DEPLOYMENT}?tab=edit"
        ))
        .await;
    wait_until(
        "Save and Apply are disabled for the viewer",
        async || {
            let buttons = harness
                .driver
                .find_all(By::Css(".editor-buttons button"))
                .await
                .unwrap_or_default();
            let mut states = Vec::new();
            for button in buttons {
                let text = button.text().await.unwrap_or_default();
                let disabled = button.attr("disabled").await.ok().flatten().is_some();
                if text == "Save" || text == "Apply" {
                    states.push((text, disabled));
                }
            }
            states
        },
        |states| *states == [("Save".to_string(), true), ("Apply".to_string(), true)],
    )
    .await;
    harness.screenshot("permissions-viewer-edit").await;

    // The admin, on the same page, may do all of it.
    harness
        .driver
        .goto(harness.admin_url(&object))
        .await
        .expect("the admin's page");
    wait_until(
        "Scale and Delete are enabled for the admin",
        async || {
            (
                button_state(&harness, ".scale-action button").await,
                button_state(&harness, ".delete-action button").await,
            )
        },
        |(scale, delete)| matches!(scale, Some((false, _))) && matches!(delete, Some((false, _))),
    )
    .await;

    // Events across all namespaces are forbidden: the namespace's Event objects instead.
    harness.open("#/events").await;
    wait_until(
        "the Events page moved to namespace default",
        async || harness.hash().await,
        |hash| hash.contains("ns=default"),
    )
    .await;
    wait_until(
        "the viewer sees default's Event objects",
        async || texts_at(&harness.driver, ".event-table tbody tr", None).await,
        |rows| !rows.is_empty(),
    )
    .await;
    assert!(
        harness
            .driver
            .find(By::Css(".event-timeline .forbidden"))
            .await
            .is_err(),
        "no refusal once in default"
    );

    // What can I do here? Pods: get, list, watch; no create.
    harness.open("#/permissions?ns=default").await;
    let whoami = wait_for(&harness.driver, ".whoami").await;
    assert!(whoami.text().await.expect("whoami").contains("viewer"));
    wait_until(
        "the Permissions view lists pods with get/list/watch and no create",
        async || {
            texts_at(
                &harness.driver,
                ".permissions-matrix tr[data-resource='pods'] td",
                None,
            )
            .await
        },
        |cells| cells.get(..4) == Some(&["yes", "yes", "yes", "no"].map(String::from)[..]),
    )
    .await;
    harness.screenshot("permissions-view").await;
    harness.stop().await;
}

on_both_backends!(a_viewer_sees_what_they_may_do);
