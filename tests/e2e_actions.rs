//! End-to-end tests of the day-two actions on an object's page: Restart (a new ReplicaSet,
//! the old pods go), Trigger now (a Job as `kubectl create job --from=cronjob/…` makes it),
//! Suspend, Cordon, Evict; and the viewer sees each disabled with its reason. On the demo
//! cluster and on kube-apiserver with its own controllers, which are the oracle.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{wait_until, Backend, Harness};
use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams, PostParams};
use serde_json::json;
use thirtyfour::prelude::*;

/// Clicks the action button labelled `label` (waiting for it to be there and enabled).
async fn click_action(harness: &Harness, label: &str) {
    let css = ".day-two-action > button";
    wait_until(
        &format!("the {label} button, enabled"),
        async || {
            let buttons = harness
                .driver
                .find_all(By::Css(css))
                .await
                .unwrap_or_default();
            for button in buttons {
                if button.text().await.unwrap_or_default() == label
                    && button.is_enabled().await.unwrap_or(false)
                {
                    return button.click().await.is_ok();
                }
            }
            false
        },
        |clicked| *clicked,
    )
    .await;
}

/// The notices the actions put up.
async fn notices(harness: &Harness) -> Vec<String> {
    common::texts_at(&harness.driver, ".day-two-action .notice", None).await
}

async fn restart_makes_a_new_replica_set(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let deployments = common::nginx_deployment(&harness, "web", 2).await;
    common::wait_available(&deployments, "web", 2, "both replicas available").await;
    let pods: Api<Pod> = Api::namespaced(harness.kube_client(), "default");
    let names = async || -> Vec<String> {
        pods.list(&ListParams::default().labels("app=web"))
            .await
            .map(|l| {
                l.items
                    .into_iter()
                    .filter_map(|p| p.metadata.name)
                    .collect()
            })
            .unwrap_or_default()
    };
    let before = names().await;
    harness.open("#/obj/apps/v1/deployments/default/web").await;
    click_action(&harness, "Restart").await;
    let said = wait_until(
        "the restart said, as kubectl",
        async || notices(&harness).await,
        |said| !said.is_empty(),
    )
    .await;
    assert!(
        said[0].contains("kubectl rollout restart deployment/web -n default"),
        "{said:?}"
    );
    // A second ReplicaSet, its template stamped; the old pods go.
    let sets: Api<ReplicaSet> = Api::namespaced(harness.kube_client(), "default");
    wait_until(
        "a new ReplicaSet with the restartedAt annotation",
        async || {
            sets.list(&ListParams::default().labels("app=web"))
                .await
                .map(|l| {
                    l.items
                        .into_iter()
                        .filter(|rs| {
                            rs.spec
                                .template
                                .as_ref()
                                .and_then(|t| t.metadata.as_ref())
                                .and_then(|m| m.annotations.as_ref())
                                .is_some_and(|a| {
                                    a.contains_key("kubectl.kubernetes.io/restartedAt")
                                })
                        })
                        .count()
                })
                .unwrap_or(0)
        },
        |count| *count == 1,
    )
    .await;
    wait_until(
        "the old pods replaced",
        async || names().await,
        |now| now.len() == 2 && now.iter().all(|name| !before.contains(name)),
    )
    .await;
    harness.screenshot("action-restart").await;
    harness.stop().await;
}

on_both_backends!(restart_makes_a_new_replica_set);

async fn trigger_and_suspend_a_cronjob(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let cronjobs: Api<CronJob> = Api::namespaced(harness.kube_client(), "default");
    let cronjob: CronJob = serde_json::from_value(json!({
        "apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": {"schedule": "0 3 1 1 *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "job", "image": "busybox:1.36"}]}}}}},
    }))
    .expect("a CronJob");
    cronjobs
        .create(&PostParams::default(), &cronjob)
        .await
        .expect("CronJob created");
    harness
        .open("#/obj/batch/v1/cronjobs/default/nightly")
        .await;
    click_action(&harness, "Trigger now").await;
    let jobs: Api<Job> = Api::namespaced(harness.kube_client(), "default");
    let made = wait_until(
        "a Job made from the CronJob, as kubectl makes it",
        async || {
            jobs.list(&ListParams::default())
                .await
                .map(|l| l.items)
                .unwrap_or_default()
        },
        |jobs| !jobs.is_empty(),
    )
    .await;
    let job = &made[0];
    let annotations = job.metadata.annotations.clone().unwrap_or_default();
    assert_eq!(
        annotations
            .get("cronjob.kubernetes.io/instantiate")
            .map(String::as_str),
        Some("manual")
    );
    let owner = job
        .metadata
        .owner_references
        .clone()
        .unwrap_or_default()
        .into_iter()
        .next()
        .expect("an owner");
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str(), owner.controller),
        ("CronJob", "nightly", Some(true))
    );
    let said = notices(&harness).await;
    assert!(
        said.iter().any(|s| s.contains("kubectl create job")),
        "{said:?}"
    );

    let suspended = async || {
        cronjobs
            .get("nightly")
            .await
            .ok()
            .and_then(|c| c.spec.suspend)
    };
    click_action(&harness, "Suspend").await;
    wait_until("the CronJob suspended", suspended, |s| *s == Some(true)).await;
    // The page follows: the pair's other half is offered.
    click_action(&harness, "Resume schedule").await;
    wait_until("the CronJob resumed", suspended, |s| *s == Some(false)).await;
    harness.stop().await;
}

on_both_backends!(trigger_and_suspend_a_cronjob);

async fn cordon_a_node_and_evict_a_pod(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let nodes: Api<Node> = Api::all(harness.kube_client());
    let node = wait_until(
        "a node registered",
        async || {
            nodes
                .list(&ListParams::default())
                .await
                .map(|l| l.items.into_iter().find_map(|n| n.metadata.name))
                .ok()
                .flatten()
        },
        Option::is_some,
    )
    .await
    .unwrap_or_default();
    harness.open(&format!("#/obj/core/v1/nodes/_/{node}")).await;
    click_action(&harness, "Cordon").await;
    wait_until(
        "the node cordoned",
        async || {
            nodes
                .get(&node)
                .await
                .ok()
                .and_then(|n| n.spec?.unschedulable)
        },
        |unschedulable| *unschedulable == Some(true),
    )
    .await;
    click_action(&harness, "Uncordon").await;
    wait_until(
        "the node uncordoned",
        async || {
            nodes
                .get(&node)
                .await
                .ok()
                .and_then(|n| n.spec?.unschedulable)
        },
        |unschedulable| *unschedulable != Some(true),
    )
    .await;

    let pods: Api<Pod> = Api::namespaced(harness.kube_client(), "default");
    let pod: Pod = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "evict-me"},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
    }))
    .expect("a pod");
    pods.create(&PostParams::default(), &pod)
        .await
        .expect("pod created");
    harness.open("#/obj/core/v1/pods/default/evict-me").await;
    click_action(&harness, "Evict").await;
    // It asks first, naming the pod.
    common::click_live(&harness.driver, ".day-two-action .confirm button.danger").await;
    wait_until(
        "the pod evicted",
        async || {
            pods.get_opt("evict-me")
                .await
                .ok()
                .flatten()
                .map(|p| p.metadata.deletion_timestamp.is_some())
        },
        |left| left.is_none() || *left == Some(true),
    )
    .await;
    harness.stop().await;
}

on_both_backends!(cordon_a_node_and_evict_a_pod);

/// The viewer may not act: each action is there, disabled, with its reason.
async fn the_viewer_sees_actions_disabled(backend: Backend) {
    let harness = Harness::start_as_viewer(backend).await;
    common::nginx_deployment(&harness, "web", 1).await;
    harness.open("#/obj/apps/v1/deployments/default/web").await;
    let disabled = wait_until(
        "Restart and Pause disabled with their reasons",
        async || {
            harness
                .driver
                .execute(
                    "return Array.from(document.querySelectorAll('.day-two-action > button'))
                       .map(b => [b.textContent, b.disabled, b.title]);",
                    vec![],
                )
                .await
                .ok()
                .and_then(|r| r.convert::<Vec<(String, bool, String)>>().ok())
                .unwrap_or_default()
        },
        |buttons| buttons.len() == 2 && buttons.iter().all(|(_, disabled, _)| *disabled),
    )
    .await;
    for (label, _, reason) in &disabled {
        assert!(
            reason.contains("patch") && reason.contains("deployments"),
            "{label}: {reason}"
        );
    }
    harness.stop().await;
}

on_both_backends!(the_viewer_sees_actions_disabled);

/// Drain stops at a PodDisruptionBudget that allows no disruption, says so, and finishes
/// once the budget is relaxed; DaemonSet pods stay, the node stays cordoned.
async fn drain_waits_for_a_budget(backend: Backend) {
    use k8s_openapi::api::apps::v1::DaemonSet;
    use k8s_openapi::api::policy::v1::PodDisruptionBudget;
    use kube::api::{Patch, PatchParams};

    let harness = Harness::start_on(backend).await;
    let client = harness.kube_client();
    let daemonsets: Api<DaemonSet> = Api::namespaced(client.clone(), "default");
    let daemonset: DaemonSet = serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}},
                 "template": {"metadata": {"labels": {"app": "agent"}},
                              "spec": {"containers": [{"name": "agent", "image": "busybox:1.36"}]}}},
    }))
    .expect("a DaemonSet");
    daemonsets
        .create(&PostParams::default(), &daemonset)
        .await
        .expect("DaemonSet created");
    let deployments = common::nginx_deployment(&harness, "guarded", 2).await;
    let budgets: Api<PodDisruptionBudget> = Api::namespaced(client.clone(), "default");
    let budget: PodDisruptionBudget = serde_json::from_value(json!({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guarded-pdb"},
        "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "guarded"}}},
    }))
    .expect("a PDB");
    budgets
        .create(&PostParams::default(), &budget)
        .await
        .expect("PDB created");
    common::wait_available(
        &deployments,
        "guarded",
        2,
        "both guarded replicas available",
    )
    .await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let node = wait_until(
        "a guarded pod's node, with the agent on it",
        async || {
            let all = pods
                .list(&ListParams::default())
                .await
                .map(|l| l.items)
                .unwrap_or_default();
            let node_of = |prefix: &str| -> Vec<String> {
                all.iter()
                    .filter(|p| {
                        p.metadata
                            .name
                            .as_deref()
                            .is_some_and(|n| n.starts_with(prefix))
                    })
                    .filter_map(|p| p.spec.as_ref()?.node_name.clone())
                    .collect()
            };
            let agents = node_of("agent-");
            node_of("guarded-").into_iter().find(|n| agents.contains(n))
        },
        Option::is_some,
    )
    .await
    .unwrap_or_default();

    harness.open(&format!("#/obj/core/v1/nodes/_/{node}")).await;
    common::click_live(&harness.driver, ".drain-panel summary").await;
    common::wait_for(&harness.driver, ".drain-view button.danger").await;
    // Consent to whatever else runs there (the demo's seeded bare pods).
    for checkbox in harness
        .driver
        .find_all(By::Css(".drain-view input[type=checkbox]"))
        .await
        .unwrap_or_default()
    {
        checkbox.click().await.expect("consent given");
    }
    common::click_live(&harness.driver, ".drain-view button.danger").await;
    let rows = wait_until(
        "the budget's refusal, named",
        async || common::texts_at(&harness.driver, ".drain-pod", None).await,
        |rows| {
            rows.iter()
                .any(|r| r.contains("guarded-") && r.contains("PodDisruptionBudget guarded-pdb"))
        },
    )
    .await;
    eprintln!("drain rows: {rows:?}");
    assert!(
        !rows.iter().any(|r| r.contains("agent-")),
        "DaemonSet pods are not evicted: {rows:?}"
    );
    harness.screenshot("action-drain-budget").await;

    budgets
        .patch(
            "guarded-pdb",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"minAvailable": 0}})),
        )
        .await
        .expect("budget relaxed");
    wait_until(
        "the drain finishes",
        async || common::texts_at(&harness.driver, ".drain-view [role=status]", None).await,
        |said| said.iter().any(|s| s.contains("Drained")),
    )
    .await;
    let nodes: Api<Node> = Api::all(client.clone());
    let cordoned = nodes
        .get(&node)
        .await
        .ok()
        .and_then(|n| n.spec?.unschedulable);
    assert_eq!(cordoned, Some(true), "the node stays cordoned");
    let left: Vec<String> = pods
        .list(&ListParams::default().fields(&format!("spec.nodeName={node}")))
        .await
        .map(|l| {
            l.items
                .into_iter()
                .filter_map(|p| p.metadata.name)
                .collect()
        })
        .unwrap_or_default();
    assert!(
        left.iter().any(|n| n.starts_with("agent-")),
        "the DaemonSet pod stays: {left:?}"
    );
    assert!(!left.iter().any(|n| n.starts_with("guarded-")), "{left:?}");
    harness.stop().await;
}

on_both_backends!(drain_waits_for_a_budget);
