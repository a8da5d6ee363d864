//! Workload logs benchmark (`cargo xtask bench logs`): the release build in headless Chromium,
//! served by kube-atlas in front of kube-apiserver (the stand-in kubelet's log server behind
//! it, `--streams`), so every log stream shares one socket as a team's deployment would.
//! - first lines of a 20-pod Deployment on screen (ms from navigation start, the app's start
//!   included), and all 20 pods' lines;
//! - 10 `chatty` pods (2,000 lines a second each, 20,000 offered) into one view for a while:
//!   the longest frame, lines held, lines dropped (counted and said), page memory.
//!
//! Prints figures and writes `target/bench/logs.json`; asserts only that it really ran. Quick
//! mode (`KUBE_ATLAS_BENCH_QUICK=1`, run by `cargo xtask test`): 4 pods, 2 chatty, 3 s.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::BTreeSet;

use common::bench::{self, Figures};
use common::{deployment, wait_until, Backend, Harness};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, PostParams};
use serde_json::json;
use thirtyfour::prelude::*;

/// Waits for the first log line drawn; ms from navigation start.
const FIRST_LINE_SCRIPT: &str = r#"
const done = arguments[arguments.length - 1];
function look() {
  if (document.querySelector('.workload-log-line')) { done(performance.now()); return; }
  requestAnimationFrame(look);
}
look();
"#;

async fn pods_shown(driver: &WebDriver) -> BTreeSet<String> {
    driver
        .execute(
            "return Array.from(document.querySelectorAll('.workload-log-stream[data-live=true]')).map(s => s.dataset.stream);",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<Vec<String>>().ok())
        .unwrap_or_default()
        .into_iter()
        .collect()
}

async fn ready_deployment(harness: &Harness, name: &str, replicas: i32, image: &str) {
    let deployments: Api<Deployment> = Api::namespaced(harness.kube_client(), "default");
    let spec = json!({"containers": [{"name": "app", "image": image}]});
    deployments
        .create(&PostParams::default(), &deployment(name, replicas, spec))
        .await
        .expect("Deployment created");
    common::wait_available(&deployments, name, replicas, "every replica available").await;
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workload_logs_at_scale() {
    let mut figures = Figures::new("logs");
    let harness = Harness::start_on(Backend::Real)
        .await
        .behind_kube_atlas()
        .await;
    let driver = &harness.driver;
    let pods = bench::pick(20, 4);
    ready_deployment(&harness, "web", pods, "nginx:1.27").await;
    driver.goto("about:blank").await.expect("blank");
    driver
        .goto(&harness.url("/#/obj/apps/v1/deployments/default/web?tab=logs"))
        .await
        .expect("page loads");
    let first_line_ms = driver
        .execute_async(FIRST_LINE_SCRIPT, vec![])
        .await
        .expect("a first line")
        .json()
        .as_f64()
        .unwrap_or(f64::NAN);
    wait_until(
        "every pod streamed",
        async || pods_shown(driver).await,
        |shown| shown.len() == pods as usize,
    )
    .await;
    println!(
        "bench logs: pods={pods} first_line_ms={first_line_ms:.0} (from navigation start, the \
         app's start included; through kube-atlas, one socket)"
    );
    figures.add(
        format!("pods={pods} first_line_ms"),
        Some("≤ 1000 ms"),
        first_line_ms,
        "ms",
    );

    let chatty = bench::pick(10, 2);
    let seconds = bench::pick(15, 3);
    ready_deployment(&harness, "chatty", chatty, "example.com/chatty:1").await;
    driver
        .goto(&harness.url("/#/obj/apps/v1/deployments/default/chatty?tab=logs"))
        .await
        .expect("page loads");
    wait_until(
        "every chatty pod streamed",
        async || pods_shown(driver).await,
        |shown| shown.len() == chatty as usize,
    )
    .await;
    let frames = driver
        .execute_async(bench::FRAMES_SCRIPT, vec![json!(seconds * 1000)])
        .await
        .expect("frames")
        .json()
        .clone();
    let said: String = driver
        .execute(
            "return Array.from(document.querySelectorAll('.workload-logs-note, .workload-logs-count')).map(n => n.textContent).join(' | ');",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default();
    let (heap_mib, wasm_mib) = common::page_memory_mib(driver).await;
    let longest_frame = frames["worst"].as_f64().unwrap_or(f64::NAN);
    let longest_loaf = frames["longest_loaf"].as_f64().unwrap_or(0.0);
    assert!(
        frames["frames"].as_f64().unwrap_or(0.0) > 0.0,
        "frames seen: {frames}"
    );
    let dropped: f64 = said
        .split(" | ")
        .filter(|note| note.contains("dropped"))
        .filter_map(|note| note.split_whitespace().next())
        .filter_map(|n| n.replace(',', "").parse::<f64>().ok())
        .fold(0.0, |sum, n| sum + n);
    println!(
        "bench logs: chatty_pods={chatty} offered_lines_per_s={} seconds={seconds} \
         longest_frame_ms={longest_frame:.1} longest_long_animation_frame_ms={longest_loaf:.1} \
         dropped_lines={dropped:.0} page_memory_mib={:.1} (the view said: {said})",
        chatty * 2000,
        heap_mib + wasm_mib
    );
    for (name, goal, value, unit) in [
        ("longest_frame_ms", Some("≤ 50 ms"), longest_frame, "ms"),
        ("longest_long_animation_frame_ms", None, longest_loaf, "ms"),
        ("dropped_lines", None, dropped, "lines"),
        ("page_memory_mib", None, heap_mib + wasm_mib, "MiB"),
    ] {
        figures.add(format!("chatty_pods={chatty} {name}"), goal, value, unit);
    }
    harness.screenshot("workload-logs-chatty").await;
    harness.stop().await;
    figures.save();
}
