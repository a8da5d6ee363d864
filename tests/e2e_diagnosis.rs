//! End-to-end tests of "why is this not ready?": each broken Deployment's own page explains
//! its root cause in words (pods that cannot be scheduled, an image that cannot be pulled, a
//! container that keeps crashing), a healthy one says nothing, the Deployments list marks the
//! broken ones and not the healthy one, and a fix clears the finding live. On the demo
//! cluster and on kube-apiserver with its scheduler, controllers and the stand-in kubelet
//! (which fails images named `doesnotexist` and crash-loops images named `crash`).

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{texts_at, wait_for, wait_until, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

const NAMESPACE: &str = "troubles";

/// One Deployment of the test: its name, image, and the node selector its pods ask for.
struct Case {
    name: &'static str,
    image: &'static str,
    node_selector: Option<(&'static str, &'static str)>,
}

const CASES: [Case; 4] = [
    Case {
        name: "unplaceable",
        image: "nginx:1.27",
        node_selector: Some(("disk", "ssd")),
    },
    Case {
        name: "missing-image",
        image: "nginx:doesnotexist",
        node_selector: None,
    },
    Case {
        name: "crasher",
        image: "crash:1",
        node_selector: None,
    },
    Case {
        name: "healthy",
        image: "nginx:1.27",
        node_selector: None,
    },
];

async fn create_cases(harness: &Harness) -> Api<Deployment> {
    harness.create_namespace(NAMESPACE).await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), NAMESPACE);
    for Case {
        name,
        image,
        node_selector,
    } in CASES
    {
        let mut pod_spec = json!({"containers": [{"name": "main", "image": image}]});
        if let Some((key, value)) = node_selector {
            pod_spec["nodeSelector"] = json!({ key: value });
        }
        let deployment = serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec}
            }
        }))
        .expect("a Deployment");
        deployments
            .create(&PostParams::default(), &deployment)
            .await
            .expect("deployment created");
    }
    deployments
}

/// Waits until Deployment `name` has one available replica (`what` says why it should).
async fn wait_available(deployments: &Api<Deployment>, name: &str, what: &str) {
    common::wait_available(deployments, name, 1, what).await;
}

/// The headlines of the object page's Diagnosis, as shown.
async fn headlines(harness: &Harness) -> Vec<String> {
    texts_at(&harness.driver, ".diagnosis .diagnosis-headline", None).await
}

/// Waits until the open object page's first cause says all of `words`.
async fn wait_for_cause(harness: &Harness, name: &str, words: &[&str]) -> Vec<String> {
    wait_until(
        &format!("the Diagnosis of Deployment {name} says {words:?}"),
        async || headlines(harness).await,
        |shown| {
            shown
                .first()
                .is_some_and(|first| words.iter().all(|w| first.contains(w)))
        },
    )
    .await
}

async fn broken_deployments_explain_their_root_cause(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let deployments = create_cases(&harness).await;

    harness
        .open(&format!(
            "#/obj/apps/v1/deployments/{NAMESPACE}/unplaceable"
        ))
        .await;
    let shown = wait_for_cause(
        &harness,
        "unplaceable",
        &[
            "Pod troubles/unplaceable-",
            "cannot be scheduled",
            "node selector",
        ],
    )
    .await;
    eprintln!("unplaceable: {shown:?}");
    // The chain it travels up, and how to check it by hand.
    let chain = texts_at(&harness.driver, ".diagnosis .diagnosis-chain", None).await;
    assert!(
        chain
            .first()
            .is_some_and(|c| c.contains("Deployment troubles/unplaceable")),
        "{chain:?}"
    );
    let check = texts_at(&harness.driver, ".diagnosis .diagnosis-check code", None).await;
    assert!(
        check
            .first()
            .is_some_and(|c| c.contains("reason=FailedScheduling")),
        "{check:?}"
    );
    harness.screenshot("diagnosis-unschedulable").await;

    harness
        .open(&format!(
            "#/obj/apps/v1/deployments/{NAMESPACE}/missing-image"
        ))
        .await;
    wait_for_cause(
        &harness,
        "missing-image",
        &["cannot pull its image nginx:doesnotexist"],
    )
    .await;

    harness
        .open(&format!("#/obj/apps/v1/deployments/{NAMESPACE}/crasher"))
        .await;
    wait_for_cause(&harness, "crasher", &["keeps crashing", "exited with code"]).await;
    harness.screenshot("diagnosis-crash-loop").await;

    // The healthy one, once rolled out, has nothing to say.
    harness
        .open(&format!("#/obj/apps/v1/deployments/{NAMESPACE}/healthy"))
        .await;
    wait_available(
        &deployments,
        "healthy",
        "the healthy Deployment is available",
    )
    .await;
    // Its page has loaded what it owns (its ReplicaSet in the owner graph) and its verdict
    // is OK: no Diagnosis drawn.
    wait_until(
        "the healthy Deployment's page has loaded what it owns and shows no Diagnosis",
        async || {
            (
                page_verdict(&harness, "healthy").await,
                texts_at(&harness.driver, ".owner-graph a", None).await,
                texts_at(&harness.driver, ".diagnosis", None).await,
            )
        },
        |(verdict, owned, diagnosis)| {
            verdict.as_deref() == Some("ok")
                && owned.iter().any(|o| o.contains("healthy-"))
                && diagnosis.is_empty()
        },
    )
    .await;

    // The list marks the three, not the healthy one.
    harness
        .open(&format!("#/list/apps/v1/deployments?ns={NAMESPACE}"))
        .await;
    wait_for(&harness.driver, "table[role=grid] td.health-cell").await;
    let marks = wait_until(
        "the Deployments list marks the three broken ones and not the healthy one",
        async || health_by_name(&harness).await,
        |marks| {
            marks.len() == 4
                && marks
                    .iter()
                    .all(|(name, health)| (name == "healthy") == (health == "OK"))
        },
    )
    .await;
    eprintln!("list health: {marks:?}");
    harness.screenshot("diagnosis-list-health").await;
    // The status line counts them, as the cells say them (both settle with the verdicts,
    // which are recomputed in idle time); "Only unhealthy" keeps the three.
    wait_until(
        "the status line counts three failing Deployments, as their cells say",
        async || {
            let counts = texts_at(&harness.driver, ".list-status .health-counts", None).await;
            (counts, health_by_name(&harness).await)
        },
        |(counts, marks)| {
            counts.first().is_some_and(|c| c.contains("Failing: 3"))
                && marks
                    .iter()
                    .filter(|(_, health)| health == "Failing")
                    .count()
                    == 3
        },
    )
    .await;
    harness
        .driver
        .find(thirtyfour::By::Css("input[aria-label='Only unhealthy']"))
        .await
        .expect("the Only unhealthy checkbox")
        .click()
        .await
        .expect("click Only unhealthy");
    wait_until(
        "Only unhealthy shows the three broken Deployments",
        async || {
            let mut names = common::shown_names(&harness.driver).await;
            names.sort();
            names
        },
        |names| *names == ["crasher", "missing-image", "unplaceable"],
    )
    .await;

    // Removing the nodeSelector clears the finding live.
    harness
        .open(&format!(
            "#/obj/apps/v1/deployments/{NAMESPACE}/unplaceable"
        ))
        .await;
    wait_for_cause(&harness, "unplaceable", &["cannot be scheduled"]).await;
    deployments
        .patch(
            "unplaceable",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"template": {"spec": {"nodeSelector": null}}}})),
        )
        .await
        .expect("nodeSelector removed");
    wait_available(
        &deployments,
        "unplaceable",
        "the unplaceable Deployment becomes available once the nodeSelector is removed",
    )
    .await;
    // The page, still showing the Deployment and what it owns, now has a verdict of OK: the
    // scheduling finding went live, and no other took its place.
    wait_until(
        "the unplaceable Deployment's page says OK once its pods are scheduled",
        async || {
            (
                page_verdict(&harness, "unplaceable").await,
                headlines(&harness).await,
            )
        },
        |(verdict, shown)| verdict.as_deref() == Some("ok") && shown.is_empty(),
    )
    .await;
    harness.stop().await;
}

/// Each row's name and the text of its health cell.
async fn health_by_name(harness: &Harness) -> Vec<(String, String)> {
    let names = texts_at(
        &harness.driver,
        "table[role=grid] tbody tr.vt-row td.name-cell a",
        None,
    )
    .await;
    let healths = texts_at(
        &harness.driver,
        "table[role=grid] tbody tr.vt-row td.health-cell",
        None,
    )
    .await;
    names
        .into_iter()
        .zip(healths)
        .map(|(name, health)| {
            // The badge's icon, then its word.
            let word = health
                .split_whitespace()
                .last()
                .unwrap_or_default()
                .to_string();
            (name, word)
        })
        .collect()
}

on_both_backends!(broken_deployments_explain_their_root_cause);

/// The verdict of the open object page: its Diagnosis's health, or "ok" once the page has
/// loaded what it owns and has nothing to say. None while it is still loading.
async fn page_verdict(harness: &Harness, name: &str) -> Option<String> {
    let title = texts_at(&harness.driver, "h1", None).await;
    let owned = texts_at(&harness.driver, ".owner-graph a", None).await;
    if !title.iter().any(|t| t == name) || owned.is_empty() {
        return None;
    }
    let diagnosis = texts_at(&harness.driver, "section.diagnosis", Some("data-health")).await;
    Some(diagnosis.first().cloned().unwrap_or_else(|| "ok".into()))
}

/// The Deployments list's health word for `name`, lowercased; None until its row shows.
async fn list_verdict(harness: &Harness, name: &str) -> Option<String> {
    health_by_name(harness)
        .await
        .into_iter()
        .find(|(row, _)| row == name)
        .map(|(_, health)| health.to_lowercase())
}

async fn list_health_is_the_pages_verdict(backend: Backend) {
    const STUCK: &str = "stuck-rollout";
    const UNREADY: &str = "unready";
    let harness = Harness::start_on(backend).await;
    let deployments = create_cases(&harness).await;
    // A rollout stuck behind an impossible nodeSelector, its old pod still running.
    let stuck = common::deployment(
        STUCK,
        1,
        json!({"containers": [{"name": "main", "image": "nginx:1.27"}]}),
    );
    deployments
        .create(&PostParams::default(), &stuck)
        .await
        .expect("the rollout's Deployment");
    wait_available(&deployments, STUCK, "the first revision is available").await;
    deployments
        .patch(
            STUCK,
            &PatchParams::default(),
            &Patch::Merge(
                json!({"spec": {"template": {"spec": {"nodeSelector": {"disk": "ssd"}}}}}),
            ),
        )
        .await
        .expect("the new revision asks for a node nobody has");
    let mut broken = vec!["unplaceable", "missing-image", "crasher", STUCK];
    // Readiness probes fail only on the demo cluster's kubelet (the stand-in kubelet of the
    // real control plane marks every started pod ready).
    if backend == Backend::Demo {
        let probe = json!({"httpGet": {"path": "/ready", "port": 80}, "periodSeconds": 2});
        let unready = common::deployment(
            UNREADY,
            1,
            json!({"containers": [{"name": "main", "image": "nginx:unready",
                                   "readinessProbe": probe}]}),
        );
        deployments
            .create(&PostParams::default(), &unready)
            .await
            .expect("the unready Deployment");
        broken.push(UNREADY);
    }
    let list = format!("#/list/apps/v1/deployments?ns={NAMESPACE}");
    for name in broken.iter().copied().chain(["healthy"]) {
        let page = format!("#/obj/apps/v1/deployments/{NAMESPACE}/{name}");
        // Both follow the cluster live: read one, then the other, until they agree.
        let (on_page, in_list) = wait_until(
            &format!("the list's health of {name} is its page's verdict"),
            async || {
                harness.open(&page).await;
                let on_page = wait_until(
                    &format!("the page of {name} loads"),
                    async || page_verdict(&harness, name).await,
                    Option::is_some,
                )
                .await;
                harness.open(&list).await;
                let in_list = wait_until(
                    &format!("the list shows {name}"),
                    async || list_verdict(&harness, name).await,
                    Option::is_some,
                )
                .await;
                (on_page, in_list)
            },
            |(on_page, in_list)| {
                on_page == in_list && (name == "healthy") == (on_page.as_deref() == Some("ok"))
            },
        )
        .await;
        eprintln!("{name}: page {on_page:?}, list {in_list:?}");
    }
    harness.screenshot("diagnosis-list-verdicts").await;
    harness.stop().await;
}

on_both_backends!(list_health_is_the_pages_verdict);
