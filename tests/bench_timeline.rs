//! Timeline benchmarks (run by `cargo xtask bench timeline`, not by `cargo xtask test`): the
//! release build in headless Chromium on the demo cluster.
//! 1. A 100-pod rollout into the activity view: a Deployment of 100 replicas created while its
//!    activity view is open, then given a new image (100 pods replaced): the longest frame
//!    and the frames over 50 ms while the chain reacts, and the rows drawn.
//! 2. Memory with churn: load mode (2,000 pods, 200 writes/s) with the activity view of a
//!    load Deployment open (every pod and Event of its namespace watched with history); page
//!    memory (JS heap + wasm) every minute for `KUBE_ATLAS_BENCH_MINUTES` (default 10), beside
//!    the number of objects the cluster holds there. Churn replaces pods, each with a handful
//!    of new Events, and Events live for the cluster's `--event-ttl`: with the default hour
//!    the cluster itself grows all along (and so must every client's cache of it), so the
//!    cluster runs with a 2-minute TTL and the page, with bounded history, must level off
//!    once the cluster has.
//!
//! Prints figures; asserts only that it really ran.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, Instant};

use common::{
    page_memory_mib, wait_for, wait_until_within, Harness, FRAMES_START_SCRIPT, FRAMES_STOP_SCRIPT,
};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use thirtyfour::prelude::*;

fn deployment(replicas: i32, image: &str) -> Deployment {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": "big"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "big"}},
            "template": {"metadata": {"labels": {"app": "big"}},
                         "spec": {"containers": [{"name": "web", "image": image}]}}
        }
    }))
    .expect("deployment")
}

async fn running_pods(client: &kube::Client, namespace: &str) -> usize {
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client.clone(), namespace);
    pods.list(&ListParams::default().labels("app=big"))
        .await
        .map(|l| {
            l.items
                .iter()
                .filter(|p| {
                    p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
                        && p.metadata.deletion_timestamp.is_none()
                })
                .count()
        })
        .unwrap_or(0)
}

async fn measure_frames(driver: &WebDriver) -> serde_json::Value {
    driver
        .execute(FRAMES_STOP_SCRIPT, vec![])
        .await
        .expect("frames")
        .json()
        .clone()
}

async fn activity_rows(driver: &WebDriver) -> usize {
    driver
        .find_all(By::Css("table.activity tr.activity-row"))
        .await
        .map(|rows| rows.len())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_pod_rollout_into_the_activity_view() {
    let harness = Harness::start().await;
    let client = harness.kube_client();
    harness.create_namespace("rollout").await;
    harness
        .open("#/obj/apps/v1/deployments/rollout/big?tab=activity")
        .await;
    wait_for(&harness.driver, ".activity-panel[data-ready=true]").await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "rollout");
    for (step, image) in [("create", "nginx:1.25"), ("new image", "nginx:1.26")] {
        harness
            .driver
            .execute(FRAMES_START_SCRIPT, vec![])
            .await
            .expect("frames start");
        let started = Instant::now();
        if step == "create" {
            deployments
                .create(&PostParams::default(), &deployment(100, image))
                .await
                .expect("created");
        } else {
            let patch = serde_json::json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": image}]}}}});
            deployments
                .patch("big", &PatchParams::default(), &Patch::Strategic(patch))
                .await
                .expect("new image");
        }
        // Done when 100 pods run the image (or after 120 s).
        wait_until_within(
            "100 pods running",
            Duration::from_secs(120),
            async || running_pods(&client, "rollout").await,
            |n| *n >= 100,
        )
        .await;
        // Let the last writes reach the page.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let frames = measure_frames(&harness.driver).await;
        let rows = activity_rows(&harness.driver).await;
        println!(
            "bench timeline: rollout_step={step:?} pods=100 took_s={:.1} longest_frame_ms={:.0} longest_animation_frame_ms={:.0} frames_over_50ms={} frames={} activity_rows_drawn={}",
            started.elapsed().as_secs_f64(),
            frames["worst"].as_f64().unwrap_or(0.0),
            frames["loafMax"].as_f64().unwrap_or(0.0),
            frames["over50"],
            frames["frames"],
            rows,
        );
        assert!(rows > 0, "the activity view drew rows");
    }
    harness.stop().await;
}

fn minutes() -> u64 {
    std::env::var("KUBE_ATLAS_BENCH_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(10)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_with_churn_and_the_activity_view_open() {
    let harness = Harness::start_config(demo_cluster::Config {
        pods: 2_000,
        churn: 200,
        event_ttl: Duration::from_secs(120),
        ..Default::default()
    })
    .await;
    let client = harness.kube_client();
    let events: Api<k8s_openapi::api::core::v1::Event> = Api::namespaced(client.clone(), "load-0");
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client.clone(), "load-0");
    let count = |list: Result<usize, kube::Error>| list.unwrap_or(0);
    // A Deployment of the first load namespace, and one of its pods.
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "load-0");
    let first = deployments
        .list(&ListParams::default().limit(1))
        .await
        .expect("load deployments")
        .items
        .into_iter()
        .next()
        .and_then(|d| d.metadata.name)
        .expect("a load deployment");
    harness
        .open(&format!(
            "#/obj/apps/v1/deployments/load-0/{first}?tab=activity"
        ))
        .await;
    wait_for(&harness.driver, ".activity-panel[data-ready=true]").await;
    let mut series = Vec::new();
    let started = Instant::now();
    for minute in 0..=minutes() {
        if minute > 0 {
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        let (heap, wasm) = page_memory_mib(&harness.driver).await;
        let event_count = count(
            events
                .list_metadata(&ListParams::default())
                .await
                .map(|l| l.items.len()),
        );
        let pod_count = count(
            pods.list_metadata(&ListParams::default())
                .await
                .map(|l| l.items.len()),
        );
        println!(
            "bench timeline: churn_minute={minute} js_heap_mib={heap:.1} wasm_memory_mib={wasm:.1} total_mib={:.1} cluster_pods={pod_count} cluster_events={event_count}",
            heap + wasm
        );
        series.push(heap + wasm);
    }
    let rows = activity_rows(&harness.driver).await;
    let half = series.len() / 2;
    let late_growth = series.last().copied().unwrap_or(0.0) - series[half];
    println!(
        "bench timeline: churn_minutes={} activity_rows_drawn={rows} memory_start_mib={:.1} memory_end_mib={:.1} growth_in_second_half_mib={late_growth:.1} elapsed_s={:.0}",
        minutes(),
        series.first().copied().unwrap_or(0.0),
        series.last().copied().unwrap_or(0.0),
        started.elapsed().as_secs_f64()
    );
    assert!(rows > 0, "the churn reached the activity view");
    harness.stop().await;
}
