//! UI benchmark (run by `cargo xtask bench`, not by `cargo xtask test`): how long the release
//! build takes, in headless Chromium, from navigation start until the API tree is painted
//! (the app takes the time after the next paint), on the demo cluster with 300 extra CRD
//! groups. Cold (first) and warm loads are reported apart. Prints figures and writes them to
//! `target/bench/ui.json`; asserts no timing. Quick mode (`KUBE_ATLAS_BENCH_QUICK=1`, run by
//! `cargo xtask test`): 20 CRD groups, one cold and one warm load.

#![cfg(not(target_arch = "wasm32"))]

mod common;
// Benchmark data, shared with the model's tests and benchmark (not part of the product).
#[path = "../model/tests/support/synthetic_crds.rs"]
mod synthetic_crds;

use std::time::Duration;

use common::bench::{self, Figures};
use common::profile;
use common::Harness;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use thirtyfour::prelude::*;

fn crd_groups() -> usize {
    bench::pick(300, 20)
}

/// One cold load, then warm ones: ten, as one load on this 2-core VM can be 50 ms off the
/// others.
fn loads() -> usize {
    bench::pick(11, 2)
}

/// The app's marks on the way to the tree, in order: each stage of a load is the time from
/// one to the next (median over the warm loads), so a slower tree says which stage grew. The
/// two `frame:` points are of the long animation frame that drew the first rows: when its
/// style and layout began, and when its rendering ended.
const STAGE_MARKS: &[&str] = &[
    "kube-atlas:main",
    "kube-atlas:mounted",
    "kube-atlas:discovery-asked",
    "kube-atlas:discovery-received",
    "kube-atlas:discovery-parsed",
    "kube-atlas:discovery-set",
    "kube-atlas:tree-first-rows-built",
    "frame:style-and-layout",
    "frame:end",
    "kube-atlas:tree-painted",
];

/// The first time each mark was made in this load (ms from navigation), by name, and the
/// `frame:` points of [`STAGE_MARKS`].
const MARK_TIMES_SCRIPT: &str = r#"
    const done = arguments[arguments.length - 1];
    const times = {};
    for (const m of performance.getEntriesByType("mark")) {
        if (!(m.name in times)) times[m.name] = m.startTime;
    }
    const rows = times["kube-atlas:tree-first-rows-built"];
    const report = (frames) => {
        const frame = frames.find((f) => f.startTime <= rows && rows <= f.startTime + f.duration);
        if (frame) {
            times["frame:style-and-layout"] = frame.styleAndLayoutStart;
            times["frame:end"] = frame.startTime + frame.duration;
        }
        done(times);
    };
    new PerformanceObserver((list, observer) => { observer.disconnect(); report(list.getEntries()); })
        .observe({ type: "long-animation-frame", buffered: true });
    setTimeout(() => report([]), 500);
"#;

fn crd(i: usize) -> CustomResourceDefinition {
    let group = format!("g{i:03}.bench.kube-atlas.dev");
    serde_json::from_value(serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{group}")},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": [format!("w{i}")]},
            "versions": [
                {"name": "v1", "served": true, "storage": true,
                 "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
                {"name": "v1beta1", "served": true, "storage": false,
                 "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
            ]
        }
    }))
    .expect("valid CRD")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tree_ready_time_with_300_crd_groups() {
    let groups = crd_groups();
    let mut figures = Figures::new("ui");
    let harness = Harness::start().await;
    let client = harness.kube_client();
    let crds: Api<CustomResourceDefinition> = Api::all(client);
    for i in 0..groups {
        crds.create(&PostParams::default(), &crd(i))
            .await
            .expect("CRD created");
    }
    // Every CRD must be Established (served) before the page is measured.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let listed = crds.list(&Default::default()).await.expect("CRD list");
        let established = listed
            .items
            .iter()
            .filter(|crd| {
                crd.status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| {
                        c.iter()
                            .any(|c| c.type_ == "Established" && c.status == "True")
                    })
            })
            .count();
        if established >= groups {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "only {established} of {groups} CRDs established"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    measure(
        &harness,
        &harness.url("#/api"),
        &format!("demo cluster + {groups} CRD groups"),
        &mut figures,
    )
    .await;

    // The real kube-apiserver discovery document plus 300 synthetic CRD groups, served as
    // aggregated /apis by a proxy in front of the demo cluster.
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/discovery/aggregated_v2.json"
    );
    match std::fs::read_to_string(fixture) {
        Ok(real) => {
            let body =
                synthetic_crds::with_synthetic_crds(&real, groups).expect("synthetic document");
            let port = common::start_test_proxy(
                harness.cluster_addr(),
                common::ProxyMode::AggregatedApis(std::sync::Arc::new(body)),
            )
            .await;
            measure(
                &harness,
                &format!("http://127.0.0.1:{port}/#/api"),
                &format!("real fixture + {groups} synthetic CRD groups"),
                &mut figures,
            )
            .await;
        }
        // CI has the shared fixtures: there a missing one is a failure, never a quiet skip.
        Err(error) if common::test_env::in_ci() => {
            panic!("bench ui: fixture not found at {fixture} ({error}), and CI has it")
        }
        Err(error) => println!(
            "bench ui: fixture not found at {fixture} ({error}); skipping the fixture scenario"
        ),
    }
    harness.stop().await;
    figures.save();
}

/// How many /api and /apis requests the page has completed (Resource Timing: a watch still
/// open is not counted, nor a WebSocket).
const API_REQUESTS_SCRIPT: &str = r#"
    return performance.getEntriesByType("resource")
        .filter((entry) => /^\/apis?(\/|$|\?)/.test(new URL(entry.name).pathname))
        .length;
"#;

/// Where the last load's time went (ms from navigation start): each request the page made
/// (wasm modules, API requests) with when it was asked and answered, and the app's marks, so a
/// slow tree says whether modules, requests or the page's own work took the time.
const WHERE_THE_TIME_WENT_SCRIPT: &str = r#"
    const entries = performance.getEntriesByType("resource").map((e) => {
        const url = new URL(e.name);
        const path = url.pathname.replace(/-[0-9a-f]{16}/, "") + url.search;
        return `${path.slice(0, 70)} ${Math.round(e.startTime)}-${Math.round(e.responseEnd)}`;
    });
    const marks = performance.getEntriesByType("mark")
        .map((m) => `${m.name} ${Math.round(m.startTime)}`);
    const nav = performance.getEntriesByType("navigation")[0];
    return [`document ${Math.round(nav.responseEnd)}, DOMContentLoaded ${Math.round(nav.domContentLoadedEventEnd)}`]
        .concat(entries, marks);
"#;

/// The long animation frames of the load (over 50 ms): when, how long, how much was script
/// and when style and layout began, so a slow paint says whether the page's code or the
/// browser's layout took the time.
const LONG_FRAMES_SCRIPT: &str = r#"
    const done = arguments[arguments.length - 1];
    const report = (entries) => done(entries.map((f) => {
        const script = f.scripts.reduce((sum, s) => sum + s.duration, 0);
        const invokers = f.scripts.map((s) => `${s.invoker} ${Math.round(s.duration)}`).join(", ");
        return `long frame ${Math.round(f.startTime)}+${Math.round(f.duration)}: script ${Math.round(script)} (${invokers}), style and layout from ${Math.round(f.styleAndLayoutStart - f.startTime)}`;
    }));
    new PerformanceObserver((list, observer) => { observer.disconnect(); report(list.getEntries()); })
        .observe({ type: "long-animation-frame", buffered: true });
    setTimeout(() => report([]), 1000);
"#;

/// Opens `url` and waits until the app has taken the time its tree was painted (the sidebar's
/// `data-ready-ms`).
async fn open_until_the_tree_is_painted(harness: &Harness, url: &str) -> WebElement {
    harness.driver.goto(url).await.expect("page loads");
    harness
        .driver
        .query(By::Css("nav.sidebar[data-ready-ms]"))
        .wait(Duration::from_secs(30), Duration::from_millis(20))
        .first()
        .await
        .expect("tree rendered")
}

async fn measure(harness: &Harness, url: &str, scenario: &str, figures: &mut Figures) {
    let mut samples = Vec::new();
    let mut app_samples = Vec::new();
    let mut groups_shown = 0;
    let mut api_requests = 0.0;
    let mut stages: Vec<Vec<f64>> = vec![Vec::new(); STAGE_MARKS.len()];
    for load in 0..loads() {
        // Another document first: going to the same address with a #fragment is a same-document
        // navigation, which would measure nothing after the first load.
        harness
            .driver
            .goto("about:blank")
            .await
            .expect("blank page");
        let nav = open_until_the_tree_is_painted(harness, url).await;
        let attr_ms = |name: &'static str| {
            let nav = nav.clone();
            async move {
                nav.attr(name)
                    .await
                    .ok()
                    .flatten()
                    .and_then(|v| v.parse::<f64>().ok())
                    .expect("a number")
            }
        };
        let ready = attr_ms("data-ready-ms").await;
        app_samples.push(attr_ms("data-app-ready-ms").await);
        groups_shown = harness
            .driver
            .find_all(By::Css("[role=treeitem]"))
            .await
            .map(|rows| rows.len())
            .unwrap_or_default();
        samples.push(ready);
        if load > 0 {
            let times = harness
                .driver
                .execute_async(MARK_TIMES_SCRIPT, vec![])
                .await
                .expect("marks read")
                .json()
                .clone();
            let at = |name: &str| times.get(name).and_then(serde_json::Value::as_f64);
            let mut previous = Some(0.0);
            for (stage, name) in stages.iter_mut().zip(STAGE_MARKS) {
                if let (Some(from), Some(to)) = (previous, at(name)) {
                    stage.push(to - from);
                }
                previous = at(name);
            }
        }
        // Requests to the API server the page completed by now (the tree is painted); kubectl's
        // cold discovery with many CRDs took 170 requests (kubernetes#107130).
        api_requests = harness
            .driver
            .execute(API_REQUESTS_SCRIPT, vec![])
            .await
            .expect("resource timing read")
            .json()
            .as_f64()
            .unwrap_or_default();
    }
    assert!(groups_shown > 0, "the tree drew rows ({scenario})");
    println!("bench ui: stages of a warm load, median ms (from the previous mark; {scenario}):");
    let mut previous = "navigation";
    for (stage, name) in stages.iter_mut().zip(STAGE_MARKS) {
        stage.sort_by(f64::total_cmp);
        if let Some(median) = stage.get(stage.len() / 2) {
            println!("bench ui:   {previous} -> {name}: {median:.1}");
        }
        previous = name;
    }
    if profile::wanted() {
        profile_one_load(harness, url, scenario).await;
    }
    if let Ok(answer) = harness
        .driver
        .execute(WHERE_THE_TIME_WENT_SCRIPT, vec![])
        .await
    {
        let lines = answer.json().as_array().cloned().unwrap_or_default();
        println!("bench ui: where the last load's time went (ms from navigation; {scenario}):");
        for line in lines {
            println!("bench ui:   {}", line.as_str().unwrap_or_default());
        }
    }
    if let Ok(answer) = harness
        .driver
        .execute_async(LONG_FRAMES_SCRIPT, vec![])
        .await
    {
        for line in answer.json().as_array().cloned().unwrap_or_default() {
            println!("bench ui:   {}", line.as_str().unwrap_or_default());
        }
    }
    // The first load of an origin in a fresh profile is cold (nothing cached, wasm compiled
    // from scratch); the later ones are warm (HTTP and code caches filled).
    let mut report = |label: &str, what: &str, all: &[f64]| {
        let cold = all[0];
        let mut warm = all[1..].to_vec();
        warm.sort_by(f64::total_cmp);
        let (median, min, max) = (warm[warm.len() / 2], warm[0], warm[warm.len() - 1]);
        println!(
            "bench ui: {label} cold={cold:.1} warm_median={median:.1} warm_min={min:.1} warm_max={max:.1} ({what}; {} warm loads, {groups_shown} groups shown, {scenario}, release build, headless Chromium)",
            warm.len(),
        );
        for (stat, value) in [
            ("cold", cold),
            ("warm_median", median),
            ("warm_min", min),
            ("warm_max", max),
        ] {
            // The goal: navigation to an interactive tree in 150 ms, as users load it again.
            let goal = (label == "tree_painted_since_navigation_ms" && stat == "warm_median")
                .then_some("≤ 150 ms");
            figures.add(format!("{label} {stat} ({scenario})"), goal, value, "ms");
        }
    };
    report(
        "tree_painted_since_app_start_ms",
        "from mounting the app to the first paint of the tree: discovery fetch, parse, render, layout, paint",
        &app_samples,
    );
    report(
        "tree_painted_since_navigation_ms",
        "from navigation start to the first paint of the tree",
        &samples,
    );
    println!("bench ui: api_requests={api_requests} (by the time the tree is painted, last load; {scenario})");
    figures.add(
        format!("API requests until the tree is painted ({scenario})"),
        None,
        api_requests,
        "requests",
    );
    figures.add(
        format!("groups shown ({scenario})"),
        None,
        groups_shown as f64,
        "groups",
    );
}

/// With `KUBE_ATLAS_BENCH_PROFILE=1`: one more warm load under V8's sampling profiler,
/// printing the functions that took the most time of their own until the tree was painted.
async fn profile_one_load(harness: &Harness, url: &str, scenario: &str) {
    harness
        .driver
        .goto("about:blank")
        .await
        .expect("blank page");
    if let Err(error) = profile::start(&harness.driver).await {
        println!("bench ui: no profile ({error})");
        return;
    }
    let nav = open_until_the_tree_is_painted(harness, url).await;
    let painted_ms = nav
        .attr("data-ready-ms")
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
    profile::stop_and_print(
        &harness.driver,
        "bench ui",
        &format!("one warm load ({scenario}; tree painted at {painted_ms} ms)"),
        40,
    )
    .await;
}
