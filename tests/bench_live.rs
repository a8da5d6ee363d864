//! Live-list benchmark (run by `cargo xtask bench live`, not by `cargo xtask test`): the
//! release build in headless Chromium following the demo cluster's pods.
//!
//! 1. Idle CPU: a few hundred pods, nothing changing (controllers off, no churn), the list of
//!    all pods open and loaded: the page's main-thread time over a minute (Chrome DevTools
//!    `Performance.getMetrics`), visible and then with the tab hidden.
//! 2. Churn: a 50,000-pod load-mode cluster (controllers off, so nothing but the churn
//!    writes), the list of all pods loaded, then load-mode churn at 2,000 pod writes a second
//!    for 30 s: the longest frame (requestAnimationFrame intervals and long animation frames),
//!    frames over 50 ms, the pod events the server sent and whether the page caught up.
//! 3. Lag: during the churn the benchmark patches `pods/status` of pods shown at the top of
//!    the list every 100 ms (a container's restartCount, so RESTARTS changes) and the page
//!    notes when each row's text changes (MutationObserver): lag = seen - written, on the
//!    machine's one clock.
//! 4. Page memory (JS heap plus wasm memory) before and after the churn.
//! 5. The lag on a real server: kube-apiserver v1.36 + etcd behind `kubectl proxy`
//!    (`envtest`, no controllers), 10,000 pods listed, the same status writes every 100 ms.
//! 6. Created → on screen, on both backends: the ConfigMaps list of a namespace open, a
//!    ConfigMap created, and when its row appears (MutationObserver); then deleted, and the
//!    next one.
//!
//! Prints a table of figure / goal / measured and writes it to `target/bench/live.json`.
//! Asserts only that it really ran (rows listed, events received, writes seen), never goals.
//!
//! Knobs: `KUBE_ATLAS_BENCH_LIVE_PODS` (50000), `KUBE_ATLAS_BENCH_LIVE_RATE` (2000 writes/s),
//! `KUBE_ATLAS_BENCH_LIVE_SECS` (30), `KUBE_ATLAS_BENCH_IDLE_SECS` (60),
//! `KUBE_ATLAS_BENCH_PROFILE=1` (a CPU profile of the page during the churn: top functions),
//! `KUBE_ATLAS_BENCH_LIVE_PARTS=idle`, `churn`, `real` or `created` (one part only), `KUBE_ATLAS_BENCH_REAL_PODS` (10000). Quick mode
//! (`KUBE_ATLAS_BENCH_QUICK=1`, run by `cargo xtask test` on a debug build) changes the
//! defaults to 1,000 pods, 50 writes/s for 10 s, and 5 s idle visible and 5 s hidden, and
//! writes `target/bench/quick/live.json`.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::bench::{self, Figures};
use common::{page_memory_mib, Harness, FRAMES_START_SCRIPT, FRAMES_STOP_SCRIPT};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{json, Value};
use thirtyfour::cdp::Cdp;
use thirtyfour::prelude::*;

const LIST: &str = "#/list/core/v1/pods";
const IDLE_PODS: usize = 300;
/// Pods at the top of the list the benchmark writes to (well inside the ~30 rows in view).
const LAG_PODS: usize = 8;
const WRITE_EVERY: Duration = Duration::from_millis(100);
/// The restart counts the benchmark writes: BASE + k * STEP for its k-th write, so a count
/// seen on screen names its write even after churn restarted another container of the pod.
const RESTARTS_BASE: i64 = 1_000_000;
const RESTARTS_STEP: i64 = 1_000;
/// What load mode needs per pod in the demo cluster (about 5 GB for 50,000), plus the
/// browser's share, to decide whether the asked size fits this machine.
const CLUSTER_BYTES_PER_POD: u64 = 100 * 1024;
const BROWSER_AND_SLACK_BYTES: u64 = 3 * 1024 * 1024 * 1024;

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// One printed (and saved) figure.
struct Figure {
    name: String,
    /// "-": none.
    goal: String,
    measured: String,
    /// The number the goal is about, for tools reading the JSON.
    value: f64,
    unit: &'static str,
}

#[derive(Default)]
struct Report {
    figures: Vec<Figure>,
    notes: Vec<String>,
}

impl Report {
    fn add(&mut self, name: &str, goal: &str, value: f64, unit: &'static str, measured: String) {
        self.figures.push(Figure {
            name: name.into(),
            goal: goal.into(),
            measured,
            value,
            unit,
        });
    }

    fn print_and_save(&self) {
        let width = self.figures.iter().map(|f| f.name.len()).max().unwrap_or(0);
        let goal_width = self.figures.iter().map(|f| f.goal.len()).max().unwrap_or(0);
        println!(
            "\nbench live: {:width$}  {:goal_width$}  measured",
            "figure", "goal"
        );
        for f in &self.figures {
            println!(
                "bench live: {:width$}  {:goal_width$}  {}",
                f.name, f.goal, f.measured
            );
        }
        for note in &self.notes {
            println!("bench live: note: {note}");
        }
        let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
        let load_average = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        println!(
            "bench live: {cores} cores, load average {}",
            load_average
                .split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut figures = Figures::new("live");
        for f in &self.figures {
            let goal = Some(f.goal.as_str()).filter(|g| *g != "-");
            figures.add_detailed(f.name.as_str(), goal, f.value, f.unit, f.measured.as_str());
        }
        for note in &self.notes {
            figures.note(note.as_str());
        }
        figures.save();
    }
}

fn wall_clock_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs_f64()
        * 1000.0
}

/// Opens the list of all pods and waits until the whole list is painted; returns how many
/// rows it says it loaded and when (ms from navigation).
async fn open_loaded_list(harness: &Harness, at_least: usize, within: Duration) -> (usize, f64) {
    harness.open(LIST).await;
    let timing = harness
        .driver
        .query(By::Css(".list-timing[data-loaded-ms]"))
        .wait(within, Duration::from_millis(200))
        .first()
        .await
        .unwrap_or_else(|e| panic!("the list never finished loading: {e}"));
    let loaded_ms: f64 = timing
        .attr("data-loaded-ms")
        .await
        .ok()
        .flatten()
        .and_then(|v| v.parse().ok())
        .expect("a number");
    let count = common::wait_until(
        "the list count",
        async || {
            let text = match harness.driver.find(By::Css(".list-count")).await {
                Ok(element) => element.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            text.split_whitespace()
                .next()
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|_| text.contains("loaded"))
                .unwrap_or(0)
        },
        |count| *count >= at_least,
    )
    .await;
    (count, loaded_ms)
}

/// The page's cumulative main-thread figures (`Performance.getMetrics`, seconds and counts).
async fn page_metrics(devtools: &Cdp) -> HashMap<String, f64> {
    let answer = devtools
        .send_raw("Performance.getMetrics", ())
        .await
        .expect("Performance.getMetrics");
    answer["metrics"]
        .as_array()
        .expect("metrics")
        .iter()
        .filter_map(|m| Some((m["name"].as_str()?.to_string(), m["value"].as_f64()?)))
        .collect()
}

/// Main-thread work between two metric readings, in ms: (tasks, script, layouts, style
/// recalculations).
fn cpu_between(before: &HashMap<String, f64>, after: &HashMap<String, f64>) -> CpuUse {
    let delta = |name: &str| after.get(name).unwrap_or(&0.0) - before.get(name).unwrap_or(&0.0);
    CpuUse {
        task_ms: delta("TaskDuration") * 1000.0,
        script_ms: delta("ScriptDuration") * 1000.0,
        layouts: delta("LayoutCount"),
        style_recalcs: delta("RecalcStyleCount"),
    }
}

struct CpuUse {
    task_ms: f64,
    script_ms: f64,
    layouts: f64,
    style_recalcs: f64,
}

impl CpuUse {
    fn per_minute(&self, over: Duration) -> f64 {
        self.task_ms * 60.0 / over.as_secs_f64()
    }

    fn describe(&self, over: Duration) -> String {
        let per_minute = self.per_minute(over);
        format!(
            "{per_minute:.0} ms CPU/min ({:.2}% of a core; script {:.0} ms/min; {:.0} layouts, \
             {:.0} style recalcs in {:.0} s)",
            per_minute / 600.0,
            self.script_ms * 60.0 / over.as_secs_f64(),
            self.layouts,
            self.style_recalcs,
            over.as_secs_f64()
        )
    }
}

/// Records, while the tab is switched away, whether the page was really hidden.
const VISIBILITY_SCRIPT: &str = r#"
window.__visibility = [];
document.addEventListener('visibilitychange',
  () => window.__visibility.push(document.visibilityState));
"#;

async fn idle(report: &mut Report) {
    let idle_secs = env_number("KUBE_ATLAS_BENCH_IDLE_SECS", bench::pick(60u64, 5));
    let harness = Harness::start_config(demo_cluster::Config {
        controllers: false,
        empty: true,
        pods: IDLE_PODS,
        ..Default::default()
    })
    .await;
    let (rows, _) = open_loaded_list(&harness, IDLE_PODS, Duration::from_secs(60)).await;
    // Past the start-up work (the WebSocket probe, the first age tick, discovery settling).
    tokio::time::sleep(Duration::from_secs(bench::pick(5, 2))).await;
    let driver = &harness.driver;
    let devtools = driver.cdp();
    devtools
        .send_raw("Performance.enable", ())
        .await
        .expect("Performance.enable");

    let over = Duration::from_secs(idle_secs);
    let before = page_metrics(&devtools).await;
    let started = Instant::now();
    tokio::time::sleep(over).await;
    let after = page_metrics(&devtools).await;
    let visible = cpu_between(&before, &after);
    let visible_over = started.elapsed();
    report.add(
        &format!("idle CPU, list of {rows} pods, visible"),
        "~0 ms/min",
        visible.per_minute(visible_over),
        "ms/min",
        visible.describe(visible_over),
    );

    // Hidden: another tab in front (chromedriver's CDP commands go to the current tab, so
    // the list's tab is read before and after).
    let hidden_secs = bench::pick((idle_secs / 2).max(10), idle_secs);
    driver
        .execute(VISIBILITY_SCRIPT, vec![])
        .await
        .expect("visibility script");
    let list_tab = driver.window().await.expect("window handle");
    let before = page_metrics(&devtools).await;
    let started = Instant::now();
    let other_tab = driver.new_tab().await.expect("new tab");
    driver
        .switch_to_window(other_tab)
        .await
        .expect("switch to the new tab");
    tokio::time::sleep(Duration::from_secs(hidden_secs)).await;
    driver.close_window().await.expect("close the new tab");
    driver
        .switch_to_window(list_tab)
        .await
        .expect("back to the list");
    let after = page_metrics(&devtools).await;
    let hidden_over = started.elapsed();
    let states = driver
        .execute("return window.__visibility", vec![])
        .await
        .expect("visibility states")
        .json()
        .clone();
    let was_hidden = states
        .as_array()
        .is_some_and(|s| s.iter().any(|v| v == "hidden"));
    let hidden = cpu_between(&before, &after);
    report.add(
        &format!("idle CPU, list of {rows} pods, tab hidden"),
        "~0 ms/min",
        hidden.per_minute(hidden_over),
        "ms/min",
        format!(
            "{}{}",
            hidden.describe(hidden_over),
            if was_hidden {
                ""
            } else {
                " [the page never saw itself hidden]"
            }
        ),
    );
    harness.stop().await;
}

/// The namespace and name of the first `count` rows on screen.
const TOP_ROWS_SCRIPT: &str = r#"
const count = arguments[0];
const headers = [...document.querySelectorAll('table[role=grid] thead th')]
  .map(th => th.textContent.replace(/[▲▼]/g, '').trim());
const ns = headers.indexOf('NAMESPACE'), name = headers.indexOf('NAME');
return [...document.querySelectorAll('table[role=grid] tbody tr.vt-row')].slice(0, count)
  .map(tr => [ns >= 0 ? tr.children[ns].textContent : '', tr.children[name].textContent]);
"#;

/// Notes, for the rows of the given `namespace/name`s, every change of the RESTARTS text and
/// when (Date.now(), the clock the benchmark's writes are timed on). Rows are redrawn as new
/// elements when their text changes, so watching the body's children finds every change.
const OBSERVE_SCRIPT: &str = r#"
const watched = new Set(arguments[0]);
const headers = [...document.querySelectorAll('table[role=grid] thead th')]
  .map(th => th.textContent.replace(/[▲▼]/g, '').trim());
const ns = headers.indexOf('NAMESPACE'), name = headers.indexOf('NAME');
const restarts = headers.indexOf('RESTARTS');
const body = document.querySelector('table[role=grid] tbody');
const last = new Map();
const seen = [];
const scan = () => {
  const t = Date.now();
  for (const tr of body.querySelectorAll('tr.vt-row')) {
    const cells = tr.children;
    if (cells.length <= restarts) continue;
    const key = (ns >= 0 ? cells[ns].textContent : '') + '/' + cells[name].textContent;
    if (!watched.has(key)) continue;
    const text = cells[restarts].textContent;
    if (last.get(key) !== text) { last.set(key, text); seen.push([key, text, t]); }
  }
};
scan();
const observer = new MutationObserver(scan);
observer.observe(body, {childList: true, subtree: true, characterData: true});
window.__liveSeen = {seen, observer, restarts};
return restarts;
"#;

const SEEN_SCRIPT: &str = r#"
const s = window.__liveSeen;
s.observer.disconnect();
return s.seen;
"#;

/// The resourceVersion the list's status line shows.
async fn page_resource_version(driver: &WebDriver) -> u64 {
    let text = match driver.find(By::Css(".stream-details")).await {
        Ok(element) => element.text().await.unwrap_or_default(),
        Err(_) => return 0,
    };
    text.split("resourceVersion ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Pod events the cluster sent to watchers while counting: how many, how many the counter
/// could not keep up with, and the last one's resourceVersion.
#[derive(Debug, Default, Clone, Copy)]
struct PodEvents {
    counted: u64,
    missed: u64,
    last_rv: u64,
}

fn count_pod_events(
    registry: &demo_cluster::registry::Registry,
    stop: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<PodEvents> {
    use tokio::sync::broadcast::error::RecvError;
    let mut receiver = registry.store.subscriber();
    tokio::spawn(async move {
        let mut events = PodEvents::default();
        while !stop.load(Ordering::SeqCst) {
            match tokio::time::timeout(Duration::from_millis(100), receiver.recv()).await {
                Ok(Ok(event)) if event.key.resource == "pods" && event.key.group.is_empty() => {
                    events.counted += 1;
                    events.last_rv = event.rv;
                }
                Ok(Ok(_)) | Err(_) => {}
                Ok(Err(RecvError::Lagged(missed))) => events.missed += missed,
                Ok(Err(RecvError::Closed)) => break,
            }
        }
        events
    })
}

/// The LAG_PODS rows at the top of the list, as (namespace, name).
async fn top_rows(driver: &WebDriver) -> Vec<(String, String)> {
    let top: Vec<(String, String)> = serde_json::from_value(
        driver
            .execute(TOP_ROWS_SCRIPT, vec![json!(LAG_PODS)])
            .await
            .expect("top rows")
            .json()
            .clone(),
    )
    .expect("rows as [namespace, name]");
    assert_eq!(top.len(), LAG_PODS, "rows on screen: {top:?}");
    top
}

/// Starts noting when the RESTARTS cell of each of `rows` changes on screen (SEEN_SCRIPT
/// reads the notes).
async fn observe_rows(driver: &WebDriver, rows: &[(String, String)]) {
    let watched: Vec<String> = rows
        .iter()
        .map(|(ns, name)| format!("{ns}/{name}"))
        .collect();
    let restarts_column = driver
        .execute(OBSERVE_SCRIPT, vec![json!(watched)])
        .await
        .expect("observer")
        .json()
        .as_i64()
        .unwrap_or(-1);
    assert!(restarts_column >= 0, "the list has a RESTARTS column");
}

/// Stops the observer and returns each write's lag, sorted: the first time its count was on
/// screen minus when it was `sent` (keyed by pod and write index).
async fn lags_seen(driver: &WebDriver, sent: &HashMap<(String, i64), f64>) -> Vec<f64> {
    let seen: Vec<(String, String, f64)> = serde_json::from_value(
        driver
            .execute(SEEN_SCRIPT, vec![])
            .await
            .expect("seen rows")
            .json()
            .clone(),
    )
    .expect("seen as [pod, text, ms]");
    let mut shown: HashMap<(String, i64), f64> = HashMap::new();
    for (pod, text, at) in &seen {
        let Ok(count) = text.trim().parse::<i64>() else {
            continue;
        };
        if count < RESTARTS_BASE {
            continue;
        }
        let key = (pod.clone(), (count - RESTARTS_BASE) / RESTARTS_STEP);
        if sent.contains_key(&key) {
            shown.entry(key).or_insert(*at);
        }
    }
    let mut lags: Vec<f64> = shown.iter().map(|(key, at)| at - sent[key]).collect();
    lags.sort_by(f64::total_cmp);
    lags
}

/// One status write of the benchmark: to which pod, which write, when sent.
struct Write {
    pod: String,
    index: i64,
    sent_ms: f64,
}

/// Sets container 0's restartCount of `namespace/name` to `restarts` through `pods/status`
/// (a merge patch of the whole list, read just before, so the other fields stay as they
/// are); returns when it was sent, or None when the pod is gone (churn replaced it).
async fn write_restarts(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    restarts: i64,
) -> Option<f64> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let pod = serde_json::to_value(pods.get_status(name).await.ok()?).ok()?;
    let mut statuses = pod["status"]["containerStatuses"].as_array()?.clone();
    statuses.first_mut()?["restartCount"] = json!(restarts);
    let patch = json!({"status": {"containerStatuses": statuses}});
    let sent_ms = wall_clock_ms();
    pods.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .ok()?;
    Some(sent_ms)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Which pods fit this machine: the asked size, or the largest that fits the memory free now.
fn pods_that_fit(asked: usize, report: &mut Report) -> usize {
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("MemAvailable:"))?
                .split_whitespace()
                .nth(1)?
                .parse::<u64>()
                .ok()
        })
        .map(|kib| kib * 1024);
    let Some(available) = available else {
        return asked;
    };
    let fits = (available.saturating_sub(BROWSER_AND_SLACK_BYTES) / CLUSTER_BYTES_PER_POD) as usize;
    if fits >= asked {
        return asked;
    }
    let pods = (fits / 1_000 * 1_000).max(1_000);
    report.notes.push(format!(
        "{asked} pods do not fit the {} MiB available: ran with {pods}",
        available / (1024 * 1024)
    ));
    pods
}

/// Self time per function of a CDP CPU profile, largest first.
fn profile_top(profile: &Value, top: usize) -> Vec<(String, f64)> {
    let nodes = profile["nodes"].as_array().cloned().unwrap_or_default();
    let samples = profile["samples"].as_array().map_or(0, Vec::len).max(1);
    let span_ms = (profile["endTime"].as_f64().unwrap_or(0.0)
        - profile["startTime"].as_f64().unwrap_or(0.0))
        / 1000.0;
    let per_sample_ms = span_ms / samples as f64;
    let mut by_function: HashMap<String, f64> = HashMap::new();
    for node in nodes {
        let frame = &node["callFrame"];
        let function = frame["functionName"].as_str().unwrap_or_default();
        let url = frame["url"].as_str().unwrap_or_default();
        let label = format!(
            "{} [{}]",
            if function.is_empty() {
                "(anonymous)"
            } else {
                function
            },
            url.rsplit('/').next().unwrap_or_default()
        );
        *by_function.entry(label).or_default() +=
            node["hitCount"].as_f64().unwrap_or(0.0) * per_sample_ms;
    }
    let mut sorted: Vec<(String, f64)> = by_function.into_iter().collect();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    sorted.truncate(top);
    sorted
}

async fn churn(report: &mut Report) {
    let asked = env_number(
        "KUBE_ATLAS_BENCH_LIVE_PODS",
        bench::pick(50_000usize, 1_000),
    );
    let rate = env_number("KUBE_ATLAS_BENCH_LIVE_RATE", bench::pick(2_000u32, 50));
    let secs = env_number("KUBE_ATLAS_BENCH_LIVE_SECS", bench::pick(30u64, 10));
    let profile = std::env::var_os("KUBE_ATLAS_BENCH_PROFILE").is_some();
    let pods = pods_that_fit(asked, report);

    let started = Instant::now();
    // Controllers off: on two cores the simulated kubelets of 500 nodes would compete with
    // the page; churn (started below, once the list is loaded) makes the writes.
    let harness = Harness::start_config(demo_cluster::Config {
        controllers: false,
        empty: true,
        pods,
        ..Default::default()
    })
    .await;
    println!(
        "bench live: cluster of {pods} pods up in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let driver = &harness.driver;
    let (rows, loaded_ms) = open_loaded_list(&harness, pods, Duration::from_secs(600)).await;
    println!("bench live: list of {rows} pods painted in {loaded_ms:.0} ms");
    tokio::time::sleep(Duration::from_secs(3)).await;

    let top = top_rows(driver).await;
    observe_rows(driver, &top).await;

    let devtools = driver.cdp();
    devtools
        .send_raw("Performance.enable", ())
        .await
        .expect("Performance.enable");
    if profile {
        devtools
            .send_raw("Profiler.enable", ())
            .await
            .expect("Profiler.enable");
        devtools
            .send_raw("Profiler.setSamplingInterval", json!({"interval": 500}))
            .await
            .expect("Profiler.setSamplingInterval");
        devtools
            .send_raw("Profiler.start", ())
            .await
            .expect("Profiler.start");
    }
    let memory_before = page_memory_mib(driver).await;
    let rv_before = page_resource_version(driver).await;
    let metrics_before = page_metrics(&devtools).await;
    let registry = harness.registry();
    let stop_counting = Arc::new(AtomicBool::new(false));
    let counter = count_pod_events(&registry, stop_counting.clone());
    let churning = demo_cluster::load::churn::spawn(
        registry.clone(),
        demo_cluster::load::churn::ChurnConfig {
            rate,
            seed: demo_cluster::load::DEFAULT_SEED,
            scope: demo_cluster::load::churn::Scope::LoadNamespaces,
            graceful: false,
        },
    );
    driver
        .execute(FRAMES_START_SCRIPT, vec![])
        .await
        .expect("frames script");
    let window_started = Instant::now();

    // The benchmark's own writes, one pod after the other, every WRITE_EVERY.
    let client = harness.kube_client();
    let mut writes: Vec<Write> = Vec::new();
    let mut failed_writes = 0;
    let mut ticker = tokio::time::interval(WRITE_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut index = 0i64;
    while window_started.elapsed() < Duration::from_secs(secs) {
        ticker.tick().await;
        let (namespace, name) = &top[index as usize % top.len()];
        let restarts = RESTARTS_BASE + index * RESTARTS_STEP;
        match write_restarts(&client, namespace, name, restarts).await {
            Some(sent_ms) => writes.push(Write {
                pod: format!("{namespace}/{name}"),
                index,
                sent_ms,
            }),
            None => failed_writes += 1,
        }
        index += 1;
    }
    churning.abort();
    let window = window_started.elapsed();
    let frames = driver
        .execute(FRAMES_STOP_SCRIPT, vec![])
        .await
        .expect("frames")
        .json()
        .clone();
    let metrics_after = page_metrics(&devtools).await;
    let memory_after = page_memory_mib(driver).await;
    let profile_answer = if profile {
        Some(
            devtools
                .send_raw("Profiler.stop", ())
                .await
                .expect("Profiler.stop"),
        )
    } else {
        None
    };
    // The churn task may finish the write it was in; then count what reached watchers.
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop_counting.store(true, Ordering::SeqCst);
    let events = counter.await.expect("event counter");

    // Caught up: the page's resourceVersion reaches the last pod event's.
    let catching_up = Instant::now();
    let rv_after = common::wait_until_within(
        "the page catches up with the pod events",
        Duration::from_secs(120),
        async || page_resource_version(driver).await,
        |rv| *rv >= events.last_rv,
    )
    .await;
    let caught_up_after = catching_up.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let sent: HashMap<(String, i64), f64> = writes
        .iter()
        .map(|w| ((w.pod.clone(), w.index), w.sent_ms))
        .collect();
    let lags = lags_seen(driver, &sent).await;
    assert!(
        events.counted > 0 && rv_after > rv_before,
        "the page received pod events: {events:?}, resourceVersion {rv_before} → {rv_after}"
    );
    assert!(!lags.is_empty(), "writes were seen on screen");

    let cpu = cpu_between(&metrics_before, &metrics_after);
    let number = |v: &Value| v.as_f64().unwrap_or(0.0);
    let label = format!("{rows} pods, {rate} writes/s");
    report.add(
        &format!("longest frame ({label})"),
        "≤ 50 ms",
        number(&frames["worst"]),
        "ms",
        format!(
            "{:.1} ms (requestAnimationFrame intervals, {} frames in {:.0} s; longest \
             long-animation-frame {:.1} ms)",
            number(&frames["worst"]),
            frames["frames"],
            window.as_secs_f64(),
            number(&frames["loafMax"])
        ),
    );
    report.add(
        &format!("frames over 50 ms ({label})"),
        "0",
        number(&frames["over50"]),
        "frames",
        format!(
            "{} of {} intervals; {} long animation frames, {:.0} ms in all",
            frames["over50"],
            frames["frames"],
            frames["loafCount"],
            number(&frames["loafTotal"])
        ),
    );
    let per_second = events.counted as f64 / window.as_secs_f64();
    report.add(
        &format!("pod events received ({label})"),
        &format!("{rate}/s"),
        per_second,
        "events/s",
        format!(
            "{} pod events in {:.0} s ({per_second:.0}/s; counter missed {}); the page at the \
             last one's resourceVersion {:.1} s after churn stopped",
            events.counted,
            window.as_secs_f64(),
            events.missed,
            caught_up_after.as_secs_f64()
        ),
    );
    report.add(
        &format!("page main thread busy ({label})"),
        "-",
        cpu.task_ms / window.as_millis() as f64 * 100.0,
        "%",
        format!(
            "{:.0}% of the window (script {:.0}%; {:.0} layouts, {:.0} style recalcs)",
            cpu.task_ms / window.as_millis() as f64 * 100.0,
            cpu.script_ms / window.as_millis() as f64 * 100.0,
            cpu.layouts,
            cpu.style_recalcs
        ),
    );
    report.add(
        &format!("write → row changed on screen, p99 ({label})"),
        "≤ 250 ms",
        percentile(&lags, 99.0),
        "ms",
        format!(
            "p50 {:.0} / p95 {:.0} / p99 {:.0} / max {:.0} ms over {} writes seen of {} sent \
             ({} not seen, {} not written: pod replaced)",
            percentile(&lags, 50.0),
            percentile(&lags, 95.0),
            percentile(&lags, 99.0),
            lags.last().copied().unwrap_or(f64::NAN),
            lags.len(),
            writes.len(),
            writes.len() - lags.len(),
            failed_writes
        ),
    );
    for (when, (heap, wasm)) in [("before", memory_before), ("after", memory_after)] {
        report.add(
            &format!("page memory {when} the churn ({rows} pods)"),
            "-",
            heap + wasm,
            "MiB",
            format!(
                "{:.0} MiB (JS heap {heap:.0} MiB + wasm {wasm:.0} MiB)",
                heap + wasm
            ),
        );
    }
    if frames["longest"].as_array().is_some_and(|l| !l.is_empty()) {
        report
            .notes
            .push(format!("longest animation frames: {}", frames["longest"]));
    }
    if let Some(answer) = profile_answer {
        for (function, ms) in profile_top(&answer["profile"], 25) {
            report
                .notes
                .push(format!("profile: {ms:7.0} ms self  {function}"));
        }
    }
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_figures() {
    let mut report = Report::default();
    let parts = std::env::var("KUBE_ATLAS_BENCH_LIVE_PARTS").unwrap_or_default();
    let wants = |part: &str| parts.is_empty() || parts.split(',').any(|p| p.trim() == part);
    if wants("idle") {
        idle(&mut report).await;
    }
    if wants("churn") {
        churn(&mut report).await;
    }
    #[cfg(have_control_plane)]
    if wants("real") {
        lag_on_kube_apiserver(&mut report).await;
    }
    if wants("created") {
        created_on_screen(Harness::start_quiet().await, "demo", &mut report).await;
        #[cfg(have_control_plane)]
        created_on_screen(Harness::start_real_quiet().await, "real", &mut report).await;
    }
    report.print_and_save();
}

/// A pod bound to a node no kubelet runs (nothing on the control plane touches it).
fn parked_pod(i: usize) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": format!("web-{i:06}"), "labels": {"app": "web"}},
        "spec": {"nodeName": format!("parked-{}", i % 50),
                 "containers": [{"name": "web", "image": "registry.example/web:1.4.2"}]}
    }))
    .expect("pod")
}

/// The lag on a real server: kube-apiserver v1.36 + etcd behind `kubectl proxy` (no
/// controllers), a list of all pods loaded, and the benchmark's status writes to the pods in
/// view every WRITE_EVERY: write sent -> row changed on screen, as in the churn part (without
/// churn: the demo cluster's load mode has no counterpart on a real server).
#[cfg(have_control_plane)]
async fn lag_on_kube_apiserver(report: &mut Report) {
    use futures::{stream, StreamExt};
    let pods = env_number("KUBE_ATLAS_BENCH_REAL_PODS", bench::pick(10_000usize, 300));
    let secs = env_number("KUBE_ATLAS_BENCH_LIVE_SECS", bench::pick(15u64, 5));
    let harness = Harness::start_real_quiet().await;
    harness.create_namespace("bench").await;
    let client = harness.kube_client();
    let api: Api<Pod> = Api::namespaced(client.clone(), "bench");
    let created = stream::iter(0..pods)
        .map(|i| {
            let api = api.clone();
            async move {
                api.create(&kube::api::PostParams::default(), &parked_pod(i))
                    .await
            }
        })
        .buffer_unordered(32)
        .filter(|result| std::future::ready(result.is_ok()))
        .count()
        .await;
    assert_eq!(created, pods, "every pod was created");
    let driver = &harness.driver;
    let (rows, loaded_ms) = open_loaded_list(&harness, pods, Duration::from_secs(600)).await;
    println!("bench live: real: list of {rows} pods painted in {loaded_ms:.0} ms");
    let top = top_rows(driver).await;
    // A pod nobody runs has no container statuses: give the watched ones one to count on.
    for (namespace, name) in &top {
        let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
        let status = json!({"status": {"containerStatuses": [{"name": "web",
            "image": "registry.example/web:1.4.2", "imageID": "", "ready": false,
            "restartCount": 0, "state": {"waiting": {"reason": "ContainerCreating"}}}]}});
        pods.patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
            .await
            .expect("status written");
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    observe_rows(driver, &top).await;
    let mut sent: HashMap<(String, i64), f64> = HashMap::new();
    let mut ticker = tokio::time::interval(WRITE_EVERY);
    let started = Instant::now();
    let mut index = 0i64;
    while started.elapsed() < Duration::from_secs(secs) {
        ticker.tick().await;
        let (namespace, name) = &top[index as usize % top.len()];
        let restarts = RESTARTS_BASE + index * RESTARTS_STEP;
        if let Some(sent_ms) = write_restarts(&client, namespace, name, restarts).await {
            sent.insert((format!("{namespace}/{name}"), index), sent_ms);
        }
        index += 1;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let lags = lags_seen(driver, &sent).await;
    assert!(!lags.is_empty(), "writes were seen on screen");
    report.add(
        &format!("real: list of {rows} pods painted (kube-apiserver via kubectl proxy)"),
        "-",
        loaded_ms,
        "ms",
        format!("{loaded_ms:.0} ms"),
    );
    report.add(
        &format!("real: write → row changed on screen, p99 ({rows} pods, kube-apiserver via kubectl proxy)"),
        "p99 ≤ 250 ms",
        percentile(&lags, 99.0),
        "ms",
        lag_summary(&lags, sent.len(), "writes seen"),
    );
    harness.stop().await;
}

/// Watches the list's body for rows by name: the first time each is in it (`Date.now()`).
const OBSERVE_NEW_ROWS_SCRIPT: &str = r#"
const body = document.querySelector('table[role=grid] tbody');
const seen = {};
const scan = () => {
  const t = Date.now();
  for (const cell of body.querySelectorAll('tr.vt-row td.name-cell')) {
    const name = cell.textContent.trim();
    if (!(name in seen)) seen[name] = t;
  }
};
scan();
const observer = new MutationObserver(scan);
observer.observe(body, {childList: true, subtree: true, characterData: true});
window.__createdSeen = {seen, observer};
"#;

/// Created → row on screen: the ConfigMaps list of a namespace holding a few open, then one
/// ConfigMap created at a time (and deleted once seen, so the list stays in view), and when
/// its row first appears. Both clocks are this machine's.
async fn created_on_screen(harness: Harness, backend: &str, report: &mut Report) {
    use k8s_openapi::api::core::v1::ConfigMap;
    const NAMESPACE: &str = "created";
    let samples = env_number("KUBE_ATLAS_BENCH_CREATED", bench::pick(60usize, 10));
    harness.create_namespace(NAMESPACE).await;
    let api: Api<ConfigMap> = Api::namespaced(harness.kube_client(), NAMESPACE);
    let config_map = |name: &str| -> ConfigMap {
        serde_json::from_value(json!({"metadata": {"name": name}, "data": {"key": "value"}}))
            .expect("config map")
    };
    for i in 0..10 {
        api.create(&Default::default(), &config_map(&format!("present-{i:02}")))
            .await
            .expect("config map created");
    }
    let driver = &harness.driver;
    harness
        .open(&format!("#/list/core/v1/configmaps?ns={NAMESPACE}"))
        .await;
    common::wait_until(
        "the ConfigMaps listed",
        async || common::shown_names(driver).await,
        |names| names.iter().filter(|n| n.starts_with("present-")).count() == 10,
    )
    .await;
    driver
        .execute(OBSERVE_NEW_ROWS_SCRIPT, vec![])
        .await
        .expect("observer");
    let mut sent: Vec<(String, f64)> = Vec::new();
    for i in 0..samples {
        let name = format!("created-{i:03}");
        let sent_ms = wall_clock_ms();
        api.create(&Default::default(), &config_map(&name))
            .await
            .expect("config map created");
        sent.push((name.clone(), sent_ms));
        tokio::time::sleep(Duration::from_millis(250)).await;
        api.delete(&name, &Default::default())
            .await
            .expect("config map deleted");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let seen: HashMap<String, f64> = driver
        .execute("return window.__createdSeen.seen;", vec![])
        .await
        .ok()
        .and_then(|answer| answer.convert().ok())
        .unwrap_or_default();
    let mut lags: Vec<f64> = sent
        .iter()
        .filter_map(|(name, sent_ms)| seen.get(name).map(|at| at - sent_ms))
        .collect();
    lags.sort_by(f64::total_cmp);
    assert!(!lags.is_empty(), "created ConfigMaps were seen on screen");
    let server = if backend == "real" {
        "kube-apiserver via kubectl proxy"
    } else {
        "demo cluster"
    };
    report.add(
        &format!("{backend}: ConfigMap created → row on screen, p99 ({server})"),
        "p99 ≤ 50 ms",
        percentile(&lags, 99.0),
        "ms",
        lag_summary(&lags, sent.len(), "seen"),
    );
    harness.stop().await;
}

/// Sorted lags in words: "p50 … / p95 … / p99 … / max … ms (seen of sent `what`)".
fn lag_summary(sorted_lags: &[f64], sent: usize, what: &str) -> String {
    format!(
        "p50 {:.0} / p95 {:.0} / p99 {:.0} / max {:.0} ms ({} of {sent} {what})",
        percentile(sorted_lags, 50.0),
        percentile(sorted_lags, 95.0),
        percentile(sorted_lags, 99.0),
        sorted_lags.last().copied().unwrap_or(f64::NAN),
        sorted_lags.len(),
    )
}
