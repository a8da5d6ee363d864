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
//! Prints figures and writes them to `target/bench/timeline.json`; asserts only that it
//! really ran. Quick mode (`KUBE_ATLAS_BENCH_QUICK=1`, run by `cargo xtask test`): a 10-pod
//! rollout, and 10 s of churn (300 pods, 50 writes/s) sampled every 5 s.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::{Duration, Instant};

use common::bench::{self, Figures};
use common::{
    page_memory_mib, profile, wait_for, wait_until_within, Harness, FRAMES_START_SCRIPT,
    FRAMES_STOP_SCRIPT,
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
    let replicas = bench::pick(100, 10);
    let mut figures = Figures::new("timeline");
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
        if profile::wanted() {
            profile::start(&harness.driver).await.expect("profiler");
        }
        let started = Instant::now();
        if step == "create" {
            deployments
                .create(&PostParams::default(), &deployment(replicas, image))
                .await
                .expect("created");
        } else {
            let patch = serde_json::json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": image}]}}}});
            deployments
                .patch("big", &PatchParams::default(), &Patch::Strategic(patch))
                .await
                .expect("new image");
        }
        // Done when all pods run the image (or after 120 s).
        wait_until_within(
            &format!("{replicas} pods running"),
            Duration::from_secs(120),
            async || running_pods(&client, "rollout").await,
            |n| *n >= replicas as usize,
        )
        .await;
        // Let the last writes reach the page.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let frames = measure_frames(&harness.driver).await;
        if profile::wanted() {
            profile::stop_and_print(
                &harness.driver,
                "bench timeline",
                &format!("the page during rollout step {step:?}"),
                40,
            )
            .await;
        }
        let rows = activity_rows(&harness.driver).await;
        let took_s = started.elapsed().as_secs_f64();
        let number = |name: &str| frames[name].as_f64().unwrap_or(0.0);
        // The app's own measures: the longest activity recompute, and the longest drawing of one.
        let measure = |name: &str| frames["measures"][name].as_f64().unwrap_or(0.0);
        println!(
            "bench timeline: rollout_step={step:?} pods={replicas} took_s={took_s:.1} longest_frame_ms={:.0} longest_animation_frame_ms={:.0} frames_over_50ms={} frames={} activity_rows_drawn={} longest_activity_compute_ms={:.1} longest_activity_draw_ms={:.1}",
            number("worst"),
            number("loafMax"),
            frames["over50"],
            frames["frames"],
            rows,
            measure("activity-compute"),
            measure("activity-draw"),
        );
        // Where the longest frames went: script (by invoker), style and layout, render.
        for frame in frames["longest"].as_array().into_iter().flatten() {
            let scripts: Vec<String> = frame["scripts"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| {
                    format!(
                        "{} {:.0}",
                        s["invoker"].as_str().unwrap_or_default(),
                        s["duration"].as_f64().unwrap_or_default()
                    )
                })
                .collect();
            println!(
                "bench timeline:   long frame {:.0} ms: style and layout {:.0} ms, scripts [{}]",
                frame["duration"].as_f64().unwrap_or_default(),
                frame["styleLayout"].as_f64().unwrap_or_default(),
                scripts.join(", ")
            );
        }
        // What the app measured in the frame intervals over 40 ms (times from the interval's
        // start).
        for interval in frames["longIntervals"].as_array().into_iter().flatten() {
            let number = |v: &serde_json::Value, name: &str| v[name].as_f64().unwrap_or(0.0);
            let measures: Vec<String> = interval["measures"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| number(m, "duration") >= 1.0)
                .map(|m| {
                    format!(
                        "{} at {:.0} for {:.1}",
                        m["name"].as_str().unwrap_or_default(),
                        number(m, "at"),
                        number(m, "duration")
                    )
                })
                .collect();
            println!(
                "bench timeline:   interval of {:.0} ms: {}",
                number(interval, "to") - number(interval, "from"),
                measures.join(", ")
            );
        }
        assert!(rows > 0, "the activity view drew rows");
        for (name, goal, value, unit) in [
            ("took_s", None, took_s, "s"),
            ("longest_frame_ms", Some("≤ 50 ms"), number("worst"), "ms"),
            ("longest_animation_frame_ms", None, number("loafMax"), "ms"),
            ("frames_over_50ms", None, number("over50"), "frames"),
            ("frames", None, number("frames"), "frames"),
            ("activity_rows_drawn", None, rows as f64, "rows"),
            (
                "longest_activity_compute_ms",
                None,
                measure("activity-compute"),
                "ms",
            ),
            (
                "longest_activity_draw_ms",
                None,
                measure("activity-draw"),
                "ms",
            ),
        ] {
            figures.add(
                format!("rollout_step={step:?} pods={replicas} {name}"),
                goal,
                value,
                unit,
            );
        }
    }
    harness.stop().await;
    figures.save();
}

fn minutes() -> u64 {
    std::env::var("KUBE_ATLAS_BENCH_MINUTES")
        .ok()
        .and_then(|m| m.parse().ok())
        .unwrap_or(10)
}

/// How long the churn runs and how often memory is read: every minute for [`minutes`], or in
/// quick mode every 5 s for 10 s; printed as `churn_<unit>=<mark>`.
struct ChurnPlan {
    samples: u64,
    unit: &'static str,
    /// Units between two samples.
    step: u64,
    every: Duration,
}

impl ChurnPlan {
    fn new() -> ChurnPlan {
        if bench::quick() {
            ChurnPlan {
                samples: 2,
                unit: "second",
                step: 5,
                every: Duration::from_secs(5),
            }
        } else {
            ChurnPlan {
                samples: minutes(),
                unit: "minute",
                step: 1,
                every: Duration::from_secs(60),
            }
        }
    }

    /// The sample's minute, or its second in quick mode.
    fn mark(&self, sample: u64) -> u64 {
        sample * self.step
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_with_churn_and_the_activity_view_open() {
    let plan = ChurnPlan::new();
    let mut figures = Figures::new("timeline");
    let harness = Harness::start_config(demo_cluster::Config {
        pods: bench::pick(2_000, 300),
        churn: bench::pick(200, 50),
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
    let unit = plan.unit;
    for sample in 0..=plan.samples {
        if sample > 0 {
            tokio::time::sleep(plan.every).await;
        }
        let mark = plan.mark(sample);
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
            "bench timeline: churn_{unit}={mark} js_heap_mib={heap:.1} wasm_memory_mib={wasm:.1} total_mib={:.1} cluster_pods={pod_count} cluster_events={event_count}",
            heap + wasm
        );
        for (name, value, value_unit) in [
            ("js_heap_mib", heap, "MiB"),
            ("wasm_memory_mib", wasm, "MiB"),
            ("total_mib", heap + wasm, "MiB"),
            ("cluster_pods", pod_count as f64, "pods"),
            ("cluster_events", event_count as f64, "events"),
        ] {
            figures.add(
                format!("churn_{unit}={mark} {name}"),
                None,
                value,
                value_unit,
            );
        }
        series.push(heap + wasm);
    }
    let rows = activity_rows(&harness.driver).await;
    let half = series.len() / 2;
    let late_growth = series.last().copied().unwrap_or(0.0) - series[half];
    let (start_mib, end_mib) = (
        series.first().copied().unwrap_or(0.0),
        series.last().copied().unwrap_or(0.0),
    );
    let elapsed_s = started.elapsed().as_secs_f64();
    let span = plan.mark(plan.samples);
    println!(
        "bench timeline: churn_{unit}s={span} activity_rows_drawn={rows} memory_start_mib={start_mib:.1} memory_end_mib={end_mib:.1} growth_in_second_half_mib={late_growth:.1} elapsed_s={elapsed_s:.0}",
    );
    assert!(rows > 0, "the churn reached the activity view");
    for (name, goal, value, value_unit) in [
        ("activity_rows_drawn", None, rows as f64, "rows"),
        ("memory_start_mib", None, start_mib, "MiB"),
        ("memory_end_mib", None, end_mib, "MiB"),
        (
            "growth_in_second_half_mib",
            Some("flat"),
            late_growth,
            "MiB",
        ),
        ("elapsed_s", None, elapsed_s, "s"),
    ] {
        figures.add(
            format!("churn_{unit}s={span} {name}"),
            goal,
            value,
            value_unit,
        );
    }
    harness.stop().await;
    figures.save();
}
