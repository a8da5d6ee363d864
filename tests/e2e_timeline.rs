//! End-to-end tests of timelines and controller activity: the release build in headless
//! Chromium against the seeded demo cluster, with kube-rs and kubectl writing. The activity
//! view of a Deployment shows the controllers react on their lanes; a Pod's timeline shows
//! the scheduler's binding and the kubelet's status writes; the blame view names kubectl's
//! manager for spec.replicas after `kubectl scale`. The activity view stays, with what it
//! has seen, while the object's first read fails.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;

use common::{
    stream_phases, texts_at, wait_for, wait_until, wait_until_within, Backend, Harness, ProxyMode,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};
use thirtyfour::prelude::*;

fn deployment(name: &str, replicas: i32) -> Deployment {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}
            }
        }
    }))
    .expect("deployment")
}

/// A fresh cluster on `backend` with Deployment `web` of one replica in a new namespace.
async fn cluster_with_one_web_replica(
    backend: Backend,
    namespace: &str,
) -> (Harness, Api<Deployment>) {
    let harness = Harness::start_on(backend).await;
    harness.create_namespace(namespace).await;
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), namespace);
    deployments
        .create(&PostParams::default(), &deployment("web", 1))
        .await
        .expect("deployment created");
    (harness, deployments)
}

/// Scales Deployment `web` with a merge patch, as a client would.
async fn scale_web(deployments: &Api<Deployment>, replicas: i32) {
    deployments
        .patch(
            "web",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(serde_json::json!({"spec": {"replicas": replicas}})),
        )
        .await
        .expect("scaled");
}

/// Every value of attribute `attr` on elements at `css`, read in one script.
async fn attributes(driver: &WebDriver, css: &str, attr: &str) -> BTreeSet<String> {
    texts_at(driver, css, Some(attr))
        .await
        .into_iter()
        .collect()
}

on_both_backends!(the_activity_view_shows_each_controller_on_its_lane_as_a_deployment_rolls_out);
async fn the_activity_view_shows_each_controller_on_its_lane_as_a_deployment_rolls_out(
    backend: Backend,
) {
    let harness = Harness::start_on(backend).await;
    let client = harness.kube_client();
    harness.create_namespace("activity").await;
    // Opened before the Deployment exists: the view watches from now on.
    harness
        .open("#/obj/apps/v1/deployments/activity/web?tab=activity")
        .await;
    // Every watch has listed: from here on, every write is seen.
    wait_for(&harness.driver, ".activity-panel[data-ready=true]").await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "activity");
    deployments
        .create(&PostParams::default(), &deployment("web", 2))
        .await
        .expect("deployment created");
    let lanes = wait_until(
        "lanes for the deployment controller, the replicaset controller, the scheduler and a kubelet",
        async || attributes(&harness.driver, "table.activity th.lane", "data-lane").await,
        |lanes| {
            lanes.contains("component:deployment-controller")
                && lanes.contains("component:replicaset-controller")
                && lanes.contains("component:default-scheduler")
                && lanes.iter().any(|l| l.starts_with("kubelet:"))
        },
    )
    .await;
    // kube-rs names no field manager: the user's lane is what the server recorded.
    assert!(
        !lanes.iter().any(|l| l == "manager:kube-controller-manager"),
        "every controller write was attributed through Events: {lanes:?}"
    );
    let reasons = wait_until(
        "the ScalingReplicaSet, SuccessfulCreate, Scheduled and Started Event objects",
        async || {
            attributes(
                &harness.driver,
                "table.activity td.event-object",
                "data-reason",
            )
            .await
        },
        |reasons| {
            [
                "ScalingReplicaSet",
                "SuccessfulCreate",
                "Scheduled",
                "Started",
            ]
            .iter()
            .all(|r| reasons.contains(*r))
        },
    )
    .await;
    assert!(!reasons.is_empty());
    let kinds = attributes(&harness.driver, "table.activity td.write", "data-kind").await;
    assert!(
        ["Deployment", "ReplicaSet", "Pod"]
            .iter()
            .all(|k| kinds.contains(*k)),
        "writes along the whole chain: {kinds:?}"
    );
    harness.screenshot("activity").await;
    // A write opens its object's timeline at that revision, with what the activity saw.
    let pod_write = wait_for(
        &harness.driver,
        "table.activity td.write[data-kind=Pod][data-type=ADDED] a",
    )
    .await;
    pod_write.click().await.expect("opens the pod");
    wait_for(
        &harness.driver,
        "ol.timeline li.revision.focused[data-kind=ADDED]",
    )
    .await;
    harness.stop().await;
}

on_both_backends!(the_activity_view_stays_while_the_objects_first_read_fails);
/// The object's first reads refused (403s, as while a new RBAC binding propagates) put a
/// refusal above the activity view instead of replacing it: nothing is asked again by itself
/// (a 403 is not a network fault), *Try again* asks again, and the view keeps its watches and
/// what it has seen and goes on once the reads get through (it used to be drawn again,
/// restarting "from now on").
async fn the_activity_view_stays_while_the_objects_first_read_fails(backend: Backend) {
    const FORBIDDEN: &str = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"deployments.apps is forbidden: User \"demo\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"blip\"","reason":"Forbidden","code":403}"#;
    let (harness, deployments) = cluster_with_one_web_replica(backend, "blip").await;
    let failure = ("GET", 403, "Content-Type: application/json\r\n", FORBIDDEN);
    let mode = ProxyMode::fail_first("/apis/apps/v1/namespaces/blip/deployments", &[failure; 6]);
    harness
        .open_through_proxy(
            mode.clone(),
            "#/obj/apps/v1/deployments/blip/web?tab=activity",
        )
        .await;
    wait_until(
        "the refusal said in words above the activity view",
        async || {
            texts_at(&harness.driver, ".forbidden-explanation", None)
                .await
                .join(" ")
        },
        |said| said.contains("You may not list deployments in namespace blip (signed in as demo)"),
    )
    .await;
    wait_for(&harness.driver, ".activity-panel").await;
    harness.screenshot("activity-read-failing").await;
    harness
        .driver
        .execute(
            "document.querySelector('.activity-panel').dataset.kept = 'yes';",
            vec![],
        )
        .await
        .expect("mark the view");
    // Refused, nothing is asked again by itself: the refused stream says Forbidden with no
    // retry countdown, none of the page's streams is waiting to retry, and past the time a
    // retry would have been sent the proxy has not been asked again.
    let phases = wait_until(
        "a stream of the page says it is forbidden",
        async || stream_phases(&harness.driver).await,
        |phases| phases.iter().any(|(phase, _)| phase == "forbidden"),
    )
    .await;
    assert!(
        phases
            .iter()
            .all(|(phase, details)| phase != "reconnecting" && !details.contains("retrying in")),
        "no retry is scheduled: {phases:?}"
    );
    let left = mode.answers_left();
    assert!(left < 6, "the proxy refused reads: {left} refusals left");
    tokio::time::sleep(common::after_the_next_retry()).await;
    assert_eq!(mode.answers_left(), left, "a 403 is not retried by itself");
    // Six refusals spread over the page's watches: Try again until every read got through.
    wait_until_within(
        "the object read and every watch listed, with no error left",
        std::time::Duration::from_secs(90),
        async || {
            harness
                .driver
                .execute(
                    r#"const retry = document.querySelector(".forbidden-retry");
                       if (retry) { retry.click(); return false; }
                       return !!document.querySelector(".activity-panel[data-ready=true]")
                        && !document.querySelector(".activity-wait")
                        && !document.querySelector("[role=alert]");"#,
                    vec![],
                )
                .await
                .ok()
                .and_then(|answer| answer.convert::<bool>().ok())
                .unwrap_or(false)
        },
        |settled| *settled,
    )
    .await;
    assert_eq!(mode.answers_left(), 0, "every failure was met");
    scale_web(&deployments, 3).await;
    wait_until(
        "the scale-up's pods on the activity view",
        async || attributes(&harness.driver, "table.activity td.write", "data-kind").await,
        |kinds| kinds.contains("Pod"),
    )
    .await;
    let kept = texts_at(&harness.driver, ".activity-panel", Some("data-kept")).await;
    assert_eq!(
        kept,
        ["yes"],
        "the activity view is the one drawn before the failure"
    );
    harness.stop().await;
}

/// Demo cluster only: the recompute race needs the demo's fast simulated controllers to be
/// caught at all. Leaving the activity view while controllers are busy (its recompute is throttled, so one
/// is often scheduled when the user clicks away) leaves the app running: a recompute that
/// runs after its view went must not touch the view's disposed state (that panicked, and a
/// panic stops the whole app).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_the_activity_view_during_a_rollout_leaves_the_app_running() {
    let (harness, deployments) = cluster_with_one_web_replica(Backend::Demo, "leave").await;
    let activity = "#/obj/apps/v1/deployments/leave/web?tab=activity";
    harness.open(activity).await;
    wait_for(&harness.driver, ".activity-panel[data-ready=true]").await;
    let scale = async |replicas: i32| scale_web(&deployments, replicas).await;
    // A rollout's writes arrive for seconds; meanwhile the user leaves the activity view
    // right after it redraws (when a throttled recompute is most likely pending) and comes
    // back, again and again.
    scale(40).await;
    for round in 0..12 {
        harness
            .driver
            .execute(
                r#"const target = arguments[0];
                   const table = document.querySelector("table.activity tbody");
                   if (!table) { location.hash = target; return; }
                   // Leaves once: on the next redraw, or after 2 s without one.
                   let timer = null;
                   const observer = new MutationObserver(() => leave());
                   const leave = () => {
                     observer.disconnect();
                     clearTimeout(timer);
                     location.hash = target;
                   };
                   observer.observe(table, { childList: true, subtree: true });
                   timer = setTimeout(leave, 2000);"#,
                vec![serde_json::json!(
                    "#/obj/apps/v1/deployments/leave/web?tab=timeline"
                )],
            )
            .await
            .expect("leave script");
        wait_for(&harness.driver, "ol.timeline").await;
        // A recompute still pending now runs while the view comes back below; a panic it
        // causes shows there (that wait ends on the stopped notice) and in stop().
        if let Some(notice) = harness.app_stopped().await {
            panic!("the app stopped after leaving the activity view (round {round}): {notice}");
        }
        harness
            .driver
            .execute(
                "location.hash = arguments[0];",
                vec![serde_json::json!(activity)],
            )
            .await
            .expect("back to activity");
        let state = wait_until(
            "the activity view is back and listed, or the app stopped",
            async || {
                harness
                    .driver
                    .execute(
                        r#"const stopped = document.getElementById("app-stopped");
                           if (stopped) return stopped.textContent;
                           return document.querySelector(".activity-panel[data-ready=true]")
                             ? "ready" : "";"#,
                        vec![],
                    )
                    .await
                    .ok()
                    .and_then(|r| r.json().as_str().map(str::to_string))
                    .unwrap_or_default()
            },
            |state| !state.is_empty(),
        )
        .await;
        assert_eq!(state, "ready", "round {round}: the app stopped");
        if round == 6 {
            scale(5).await;
        }
    }
    // Still live: a write made now appears in the view. Only this write changes the
    // replicas from 5 to 2 (Deployment writes were shown long before it, so their mere
    // presence proves nothing).
    scale(2).await;
    wait_until(
        "the activity view shows the Deployment scaled from 5 to 2",
        async || {
            texts_at(
                &harness.driver,
                "table.activity td.write[data-kind=Deployment]",
                Some("title"),
            )
            .await
        },
        |titles| titles.iter().any(|t| t.contains("spec.replicas: 5 → 2")),
    )
    .await;
    harness.stop().await;
}

on_both_backends!(a_pod_timeline_attributes_the_binding_and_the_kubelet);
async fn a_pod_timeline_attributes_the_binding_and_the_kubelet(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let client = harness.kube_client();
    harness.create_namespace("timeline").await;
    harness
        .open("#/obj/core/v1/pods/timeline/solo?tab=timeline")
        .await;
    // The pod's watch has listed (nothing yet): its create and every write are seen.
    wait_for(&harness.driver, ".stream-status[data-phase=live]").await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "timeline");
    let pod: Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "solo"},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}
    }))
    .expect("pod");
    pods.create(&PostParams::default(), &pod)
        .await
        .expect("pod created");
    let managers = wait_until(
        "the binding and the kubelet's status writes on the pod's timeline",
        async || {
            let text = attributes(&harness.driver, "ol.timeline .writer", "data-manager").await;
            let labels: Vec<String> = match harness
                .driver
                .find_all(By::Css("ol.timeline .writer"))
                .await
            {
                Ok(found) => {
                    let mut out = Vec::new();
                    for w in found {
                        out.push(w.text().await.unwrap_or_default());
                    }
                    out
                }
                Err(_) => Vec::new(),
            };
            (text, labels)
        },
        |(managers, labels)| {
            managers.contains("kubelet") && labels.iter().any(|l| l.contains("binding"))
        },
    )
    .await;
    assert!(
        managers
            .1
            .iter()
            .any(|l| l.contains("kubelet (Update, status subresource)")),
        "the kubelet writes the status subresource: {managers:?}"
    );
    let kinds = attributes(&harness.driver, "ol.timeline li.revision", "data-kind").await;
    assert!(
        kinds.contains("ADDED") && kinds.contains("MODIFIED"),
        "{kinds:?}"
    );
    harness.screenshot("timeline").await;
    harness.stop().await;
}

on_both_backends!(
    #[cfg_attr(
        not(have_kubectl),
        ignore = "kubectl not installed (cargo xtask setup)"
    )]
    blame_names_kubectl_for_spec_replicas_after_kubectl_scale
);
async fn blame_names_kubectl_for_spec_replicas_after_kubectl_scale(backend: Backend) {
    let (harness, _) = cluster_with_one_web_replica(backend, "blame").await;
    harness
        .open("#/obj/apps/v1/deployments/blame/web?tab=blame")
        .await;
    wait_for(&harness.driver, "table.blame tr.blame-line").await;
    let output = std::process::Command::new("kubectl")
        .arg("--server")
        .arg(harness.base_url())
        .args(["-n", "blame", "scale", "deployment/web", "--replicas=3"])
        .output()
        .expect("kubectl runs");
    assert!(
        output.status.success(),
        "kubectl scale: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let owner = wait_until(
        "spec.replicas owned by kubectl's manager",
        async || {
            attributes(
                &harness.driver,
                "table.blame tr.blame-line[data-path='spec.replicas']",
                "data-manager",
            )
            .await
        },
        |owners| owners.iter().any(|m| m.starts_with("kubectl")),
    )
    .await;
    assert_eq!(owner.len(), 1, "{owner:?}");
    // The change since the page opened links to its timeline entry.
    common::click_live(
        &harness.driver,
        "table.blame tr.blame-line[data-path='spec.replicas'] td.changed a",
    )
    .await;
    wait_for(&harness.driver, "ol.timeline li.revision.focused").await;
    harness.screenshot("blame").await;
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_replays_into_the_same_lanes_with_the_api_unreachable() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let harness = Harness::start().await;
    let frozen = Arc::new(AtomicBool::new(false));
    let port = common::start_test_proxy(
        harness.cluster_addr(),
        common::ProxyMode::Freezable(frozen.clone()),
    )
    .await;
    harness
        .driver
        .goto(format!("http://127.0.0.1:{port}/#/replay"))
        .await
        .expect("page loads");
    // Once the app is loaded (its wasm comes through the same proxy), the API answers
    // nothing from here on: the replay needs no cluster.
    wait_for(&harness.driver, "input.recording-file").await;
    frozen.store(true, Ordering::SeqCst);
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/recordings/rollout.jsonl");
    wait_for(&harness.driver, "input.recording-file")
        .await
        .send_keys(file.display().to_string())
        .await
        .expect("file chosen");
    wait_for(&harness.driver, ".player button.play").await;
    harness
        .driver
        .find(By::Css(".player button.speed"))
        .await
        .expect("speed")
        .click()
        .await
        .expect("10x");
    harness
        .driver
        .find(By::Css(".player button.play"))
        .await
        .expect("play")
        .click()
        .await
        .expect("playing");
    // Choose the Deployment once the recording has created it.
    let option = wait_until(
        "the Deployment among the recorded objects",
        async || {
            harness
                .driver
                .execute(
                    "const o = Array.from(document.querySelectorAll('.replay-object option')).find(o => o.textContent.startsWith('Deployment rollout/web')); return o ? o.value : '';",
                    vec![],
                )
                .await
                .ok()
                .and_then(|r| r.convert::<String>().ok())
                .unwrap_or_default()
        },
        |uid| !uid.is_empty(),
    )
    .await;
    harness
        .driver
        .execute(
            "const s = document.querySelector('.replay-object select'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
            vec![serde_json::json!(option)],
        )
        .await
        .expect("chosen");
    wait_until(
        "the same lanes as live: deployment and replicaset controllers, scheduler, a kubelet",
        async || attributes(&harness.driver, "table.activity th.lane", "data-lane").await,
        |lanes| {
            lanes.contains("component:deployment-controller")
                && lanes.contains("component:replicaset-controller")
                && lanes.contains("component:default-scheduler")
                && lanes.iter().any(|l| l.starts_with("kubelet:"))
        },
    )
    .await;
    harness.screenshot("replay").await;
    // The Event objects of the recording, one row each.
    harness
        .driver
        .execute(
            "Array.from(document.querySelectorAll('.replay-views button')).find(b => b.textContent === 'events').click();",
            vec![],
        )
        .await
        .expect("events view");
    let reasons = wait_until(
        "the recorded Event objects",
        async || attributes(&harness.driver, "tr.replay-event", "data-reason").await,
        |reasons| {
            ["ScalingReplicaSet", "SuccessfulCreate", "Scheduled"]
                .iter()
                .all(|r| reasons.contains(*r))
        },
    )
    .await;
    assert!(!reasons.is_empty());
    frozen.store(false, Ordering::SeqCst);
    harness.stop().await;
}

on_both_backends!(the_watch_mechanics_panel_shows_requests_and_each_watch_event);
async fn the_watch_mechanics_panel_shows_requests_and_each_watch_event(backend: Backend) {
    use k8s_openapi::api::core::v1::ConfigMap;

    let harness = Harness::start_on(backend).await;
    harness.create_namespace("mechanics").await;
    harness.open("#/list/core/v1/configmaps?ns=mechanics").await;
    wait_for(&harness.driver, ".stream-status[data-phase=live]").await;
    wait_for(&harness.driver, ".stream-status .mechanics-toggle")
        .await
        .click()
        .await
        .expect("panel opens");
    let config_maps: Api<ConfigMap> = Api::namespaced(harness.kube_client(), "mechanics");
    let config_map: ConfigMap = serde_json::from_value(
        serde_json::json!({"metadata": {"name": "watched"}, "data": {"k": "v"}}),
    )
    .expect("config map");
    config_maps
        .create(&PostParams::default(), &config_map)
        .await
        .expect("created");
    let kinds = wait_until(
        "the list request, the watch request and the ADDED event",
        async || {
            attributes(
                &harness.driver,
                ".mechanics tr.mechanics-entry",
                "data-kind",
            )
            .await
        },
        |kinds| {
            ["LIST", "PAGE", "WATCH", "ADDED"]
                .iter()
                .all(|k| kinds.contains(*k))
        },
    )
    .await;
    assert!(!kinds.contains("ERROR"), "{kinds:?}");
    let added = wait_for(
        &harness.driver,
        ".mechanics tr.mechanics-entry[data-kind=ADDED] td.detail",
    )
    .await
    .text()
    .await
    .expect("text");
    assert!(added.starts_with("mechanics/watched · rv "), "{added}");
    let watch = wait_for(
        &harness.driver,
        ".mechanics tr.mechanics-entry[data-kind=WATCH] td.detail",
    )
    .await
    .text()
    .await
    .expect("text");
    assert!(
        watch.contains("watch=true") && watch.contains("allowWatchBookmarks=true"),
        "{watch}"
    );
    harness.screenshot("watch-mechanics").await;
    harness.stop().await;
}
