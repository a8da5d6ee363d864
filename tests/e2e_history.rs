//! End-to-end tests of history that starts before the page opened (issue #28): a Deployment
//! is created, scaled and given a new image, and rolled out, all before any page is open;
//! then a fresh browser opens one of its pods' timeline (its creation by the controller
//! manager, the scheduler's binding, the kubelet's status, reconstructed), the Deployment's
//! Activity (both ReplicaSets and the ScalingReplicaSet Events on their lanes at once) and
//! its timeline (revision 1 -> 2 with the image diff), and rolls back to revision 1 from
//! there (the server's dry run reviewed, then confirmed), which the controllers roll out as
//! revision 3. On the demo cluster and on kube-apiserver with its controllers and scheduler.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Duration;

use common::{texts_at, wait_for, wait_until, wait_until_within, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;
use thirtyfour::By;

const NAMESPACE: &str = "history";
const OLD_IMAGE: &str = "nginx:1.25";
const NEW_IMAGE: &str = "nginx:1.27";

/// The Deployment's image and revision annotation, and whether its rollout is complete
/// (every replica updated and available, none old left).
async fn rollout_state(deployments: &Api<Deployment>) -> (String, String, bool) {
    let Ok(deployment) = deployments.get("web").await else {
        return Default::default();
    };
    let image = deployment
        .spec
        .template
        .spec
        .as_ref()
        .and_then(|s| s.containers.first())
        .and_then(|c| c.image.clone())
        .unwrap_or_default();
    let revision = deployment
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("deployment.kubernetes.io/revision"))
        .cloned()
        .unwrap_or_default();
    let wanted = deployment.spec.replicas;
    let done = deployment.status.as_ref().is_some_and(|s| {
        s.observed_generation == deployment.metadata.generation
            && s.updated_replicas == wanted
            && s.available_replicas == wanted
            && s.replicas == wanted
    });
    (image, revision, done)
}

async fn wait_for_rollout(deployments: &Api<Deployment>, image: &str, revision: &str) {
    wait_until_within(
        &format!("web rolled out {image} as revision {revision}"),
        Duration::from_secs(120),
        async || rollout_state(deployments).await,
        |(shown, number, done)| shown == image && number == revision && *done,
    )
    .await;
}

/// Creates web (nginx:1.25, 2 replicas), scales it to 3, sets nginx:1.27, and waits until
/// that rolled out and its pods run.
async fn roll_out_before_the_page_opens(harness: &Harness) -> Api<Deployment> {
    harness.create_namespace(NAMESPACE).await;
    let client = harness.kube_client();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), NAMESPACE);
    let web = serde_json::from_value(json!({
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "web", "image": OLD_IMAGE}]}}
        }
    }))
    .expect("a Deployment");
    deployments
        .create(&PostParams::default(), &web)
        .await
        .expect("web created");
    wait_for_rollout(&deployments, OLD_IMAGE, "1").await;
    deployments
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .expect("scaled to 3");
    wait_until(
        "web has 3 available replicas",
        async || rollout_state(&deployments).await,
        |(_, _, done)| *done,
    )
    .await;
    deployments
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Strategic(json!({"spec": {"template": {"spec": {
                "containers": [{"name": "web", "image": NEW_IMAGE}]
            }}}})),
        )
        .await
        .expect("image set");
    wait_for_rollout(&deployments, NEW_IMAGE, "2").await;
    // The old pods gone, the new ones running.
    let pods: Api<Pod> = Api::namespaced(client, NAMESPACE);
    wait_until(
        "3 running pods of nginx:1.27",
        async || running_pods(&pods).await,
        |running| running.len() == 3,
    )
    .await;
    deployments
}

/// (name, node) of the running pods of the new image.
async fn running_pods(pods: &Api<Pod>) -> Vec<(String, String)> {
    let Ok(list) = pods.list(&ListParams::default().labels("app=web")).await else {
        return Vec::new();
    };
    list.items
        .into_iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .filter(|p| {
            p.spec
                .as_ref()
                .and_then(|s| s.containers.first())
                .and_then(|c| c.image.as_deref())
                == Some(NEW_IMAGE)
        })
        .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
        .filter_map(|p| Some((p.metadata.name?, p.spec?.node_name?)))
        .collect()
}

/// The reconstructed rows of the open timeline: (kind, what, actor, evidence).
async fn past_rows(harness: &Harness) -> Vec<(String, String, String, String)> {
    let kinds = texts_at(
        &harness.driver,
        ".timeline.past .past-entry",
        Some("data-kind"),
    )
    .await;
    let whats = texts_at(&harness.driver, ".timeline.past .past-entry .what", None).await;
    let actors = texts_at(&harness.driver, ".timeline.past .past-entry .actor", None).await;
    let evidence = texts_at(
        &harness.driver,
        ".timeline.past .past-entry .evidence",
        None,
    )
    .await;
    kinds
        .into_iter()
        .zip(whats)
        .zip(actors)
        .zip(evidence)
        .map(|(((kind, what), actor), evidence)| (kind, what, actor, evidence))
        .collect()
}

async fn click(harness: &Harness, css: &str) {
    harness
        .driver
        .find(By::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

async fn history_before_the_page_opened_and_a_rollback_from_it(backend: Backend) {
    let started = std::time::Instant::now();
    let harness = Harness::start_on(backend).await;
    let deployments = roll_out_before_the_page_opens(&harness).await;
    let pods: Api<Pod> = Api::namespaced(harness.kube_client(), NAMESPACE);
    let (pod, node) = running_pods(&pods)
        .await
        .into_iter()
        .next()
        .expect("a running pod");
    eprintln!("rolled out in {:?}", started.elapsed());

    // A pod's timeline: created, bound and run before the page opened.
    harness
        .open(&format!(
            "#/obj/core/v1/pods/{NAMESPACE}/{pod}?tab=timeline"
        ))
        .await;
    let rows = wait_until(
        "the pod's creation, binding and kubelet status, reconstructed",
        async || past_rows(&harness).await,
        |rows| {
            let has = |kind: &str, what: &str, actor: &str| {
                rows.iter()
                    .any(|(k, w, a, _)| k == kind && w.contains(what) && a.contains(actor))
            };
            has("Created", "created", "kube-controller-manager")
                && has("Created", "created", "replicaset-controller")
                && has(
                    "Scheduled",
                    &format!("scheduled to {node}"),
                    "default-scheduler",
                )
                && has("StatusWritten", "last status write by kubelet", "kubelet")
        },
    )
    .await;
    let created = rows.iter().find(|(k, ..)| k == "Created").expect("created");
    assert!(
        created
            .3
            .contains("Event SuccessfulCreate (replicaset-controller)")
            && created.3.contains("metadata.creationTimestamp"),
        "the creation's evidence: {created:?}"
    );
    let badges = texts_at(
        &harness.driver,
        ".timeline.past .past-entry .badge.reconstructed",
        None,
    )
    .await;
    assert_eq!(badges.len(), rows.len(), "every row marked: {badges:?}");
    // The watched part: one LISTED revision, above the reconstructed ones.
    let watched = texts_at(
        &harness.driver,
        "ol.timeline:not(.past) li.revision",
        Some("data-kind"),
    )
    .await;
    assert_eq!(watched, vec!["LISTED"], "{watched:?}");
    click(
        &harness,
        ".timeline.past .past-entry[data-kind=Scheduled] details.evidence summary",
    )
    .await;
    harness.screenshot("history-pod-timeline").await;

    // The Deployment's Activity: its past at once, nothing written since.
    harness
        .open(&format!(
            "#/obj/apps/v1/deployments/{NAMESPACE}/web?tab=activity"
        ))
        .await;
    let replica_sets: Vec<String> = {
        let api: Api<k8s_openapi::api::apps::v1::ReplicaSet> =
            Api::namespaced(harness.kube_client(), NAMESPACE);
        api.list(&ListParams::default())
            .await
            .expect("ReplicaSets")
            .items
            .into_iter()
            .filter_map(|rs| rs.metadata.name)
            .collect()
    };
    assert_eq!(replica_sets.len(), 2, "{replica_sets:?}");
    // One row per item: siblings' creations (both ReplicaSets) would read as one "×2" row.
    click(&harness, ".activity-panel label.toggle input").await;
    let past = wait_until(
        "both ReplicaSets' creations and revisions on the deployment controller's lane",
        async || {
            // The past lies below the newest rows: shown with "Show older", as a user would.
            if let Ok(older) = harness
                .driver
                .find(By::XPath("//button[normalize-space()='Show older']"))
                .await
            {
                older.click().await.ok();
            }
            texts_at(&harness.driver, "table.activity td.past .summary", None).await
        },
        |past| {
            replica_sets.iter().all(|rs| {
                past.iter()
                    .any(|p| p.contains(&format!("ReplicaSet {rs}: created")))
            }) && past
                .iter()
                .any(|p| p.contains("revision 1 → 2") && p.contains("nginx:1.25 → nginx:1.27"))
        },
    )
    .await;
    eprintln!("activity, reconstructed: {past:#?}");
    let scalings = texts_at(
        &harness.driver,
        "table.activity td.event-object[data-reason=ScalingReplicaSet][data-listed=true]",
        None,
    )
    .await;
    assert!(
        replica_sets
            .iter()
            .all(|rs| scalings.iter().any(|s| s.contains(rs.as_str()))),
        "ScalingReplicaSet Events of both ReplicaSets: {scalings:#?}"
    );
    let lanes = texts_at(&harness.driver, "table.activity th.lane", Some("data-lane")).await;
    for lane in [
        "component:deployment-controller",
        "component:replicaset-controller",
        "component:default-scheduler",
    ] {
        assert!(lanes.iter().any(|l| l == lane), "{lane} in {lanes:?}");
    }
    let empty = texts_at(&harness.driver, ".activity-panel p.muted", None).await;
    assert!(
        !empty.iter().any(|t| t.starts_with("No writes yet")),
        "{empty:?}"
    );
    harness.screenshot("history-activity").await;

    // The Deployment's timeline: its revisions with the template diff.
    harness
        .open(&format!(
            "#/obj/apps/v1/deployments/{NAMESPACE}/web?tab=timeline"
        ))
        .await;
    let diff = wait_until(
        "revision 1 -> 2 with the image diff",
        async || {
            texts_at(
                &harness.driver,
                ".rollout-revision[data-revision='2'][data-current=true] .template-diff li",
                None,
            )
            .await
        },
        |diff| *diff == ["containers[name=web].image: nginx:1.25 → nginx:1.27"],
    )
    .await;
    assert_eq!(diff.len(), 1);
    let head = texts_at(
        &harness.driver,
        ".rollout-revision[data-revision='2'] .revision-head strong",
        None,
    )
    .await;
    assert_eq!(head, vec!["revision 1 → 2"]);
    // The same revision among the reconstructed entries.
    wait_until(
        "the revision among the reconstructed entries",
        async || past_rows(&harness).await,
        |rows| {
            rows.iter().any(|(k, w, ..)| {
                k == "RolloutRevision" && w.contains("revision 1 → 2") && w.contains("nginx:1.27")
            })
        },
    )
    .await;
    // The admin may update it: the rollback is offered on revision 1 only.
    let buttons = texts_at(&harness.driver, ".rollout-revision button.rollback", None).await;
    assert_eq!(buttons, vec!["Roll back to this revision"]);
    let disabled = texts_at(
        &harness.driver,
        ".rollout-revision[data-revision='1'] button.rollback",
        Some("disabled"),
    )
    .await;
    assert_eq!(disabled, vec![""], "enabled for the admin");
    harness.screenshot("history-revisions").await;

    // Roll back to revision 1: the dry run's diff first, then confirmed.
    click(
        &harness,
        ".rollout-revision[data-revision='1'] button.rollback",
    )
    .await;
    let review = wait_until(
        "the dry run's diff",
        async || texts_at(&harness.driver, ".rollback-review .review-changes li", None).await,
        |changes| {
            changes.iter().any(|c| {
                c == "spec.template.spec.containers[name=web].image: nginx:1.27 → nginx:1.25"
            })
        },
    )
    .await;
    eprintln!("dry run: {review:#?}");
    assert_eq!(
        rollout_state(&deployments).await.0,
        NEW_IMAGE,
        "a dry run changes nothing"
    );
    harness.screenshot("history-rollback-review").await;
    click(&harness, ".rollback-review button.confirm-rollback").await;
    wait_for(&harness.driver, ".rollback-review .notice").await;
    wait_for_rollout(&deployments, OLD_IMAGE, "3").await;
    // The page follows: revision 3 current, its diff from revision 2 the image back.
    wait_until(
        "revision 2 -> 3 current with the image back",
        async || {
            texts_at(
                &harness.driver,
                ".rollout-revision[data-revision='3'][data-current=true] .template-diff li",
                None,
            )
            .await
        },
        |diff| *diff == ["containers[name=web].image: nginx:1.27 → nginx:1.25"],
    )
    .await;
    harness.screenshot("history-rolled-back").await;
    eprintln!("{backend:?}: whole test {:?}", started.elapsed());
    harness.stop().await;
}

on_both_backends!(history_before_the_page_opened_and_a_rollback_from_it);
