//! End-to-end tests of pod logs: the Logs tab of a running pod follows its log as the demo
//! cluster prints it, each option restarts the stream (container, timestamps, previous), log
//! markup is shown as text, a gone pod ends the stream and keeps the lines, and 100,000 lines
//! stay bounded, virtualized and searchable. The release build in headless Chromium against a
//! fresh demo cluster (`cargo xtask test`, feature `e2e`).
//!
//! The demo-cluster tests use images only the demo cluster simulates (markup, 100,000
//! lines); [`pod_logs_in_the_servers_words`] runs on both backends: on kube-apiserver, pods
//! run on the stand-in kubelet, whose streaming server (`--streams`) serves `pods/log`
//! through kube-apiserver as a node would.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Instant;

use common::{wait_for, wait_until, Backend, Harness};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::Value;
use thirtyfour::components::SelectElement;
use thirtyfour::prelude::*;

/// A line of the `markup` container: markup a careless view would run.
const MARKUP_LINE: &str =
    "<b>bold</b> <script>window.injected = 1</script> <img src=x onerror=window.injected=2>";

async fn script(driver: &WebDriver, js: &str) -> Value {
    driver
        .execute(js, vec![])
        .await
        .unwrap_or_else(|e| panic!("script failed: {e}\n{js}"))
        .json()
        .clone()
}

/// The texts of the log lines in the DOM (without their numbers), in order.
async fn shown_lines(driver: &WebDriver) -> Vec<String> {
    let lines = script(
        driver,
        "return Array.from(document.querySelectorAll('.pod-log-text')).map(e => e.textContent);",
    )
    .await;
    serde_json::from_value(lines).unwrap_or_default()
}

/// Waits until a shown line contains `text`.
async fn wait_for_line(driver: &WebDriver, what: &str, text: &str) {
    wait_until(
        what,
        async || shown_lines(driver).await,
        |lines| lines.iter().any(|l| l.contains(text)),
    )
    .await;
}

/// The number (1-based, from the start of the stream) of the last line in the DOM.
async fn last_line_number(driver: &WebDriver) -> u64 {
    script(
        driver,
        "const l = document.querySelectorAll('.pod-log-line'); \
         return l.length ? Number(l[l.length - 1].dataset.line) : 0;",
    )
    .await
    .as_u64()
    .unwrap_or(0)
}

async fn text_of(driver: &WebDriver, css: &str) -> String {
    let js = format!(
        "const e = document.querySelector({}); return e ? e.textContent : '';",
        serde_json::to_string(css).expect("a JSON string")
    );
    script(driver, &js)
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The log requests of `pod` in the request log, newest first: their path with the query,
/// and whether the stream is still open (the panel is opened to draw its rows, then closed).
async fn log_requests(driver: &WebDriver, pod: &str) -> Vec<(String, bool)> {
    script(
        driver,
        "document.querySelector('details.request-log').open = true;",
    )
    .await;
    wait_for(driver, ".request-log tr.log-row").await;
    let js = format!(
        "return Array.from(document.querySelectorAll('.request-log tr.log-row'))
           .map(r => [r.querySelector('td.path').textContent, r.textContent.includes('· open')])
           .filter(([path]) => path.includes('/pods/{pod}/log'));"
    );
    let requests = script(driver, &js).await;
    script(
        driver,
        "document.querySelector('details.request-log').open = false;",
    )
    .await;
    serde_json::from_value(requests).unwrap_or_default()
}

async fn open_log_streams(driver: &WebDriver, pod: &str) -> usize {
    let requests = log_requests(driver, pod).await;
    requests.iter().filter(|(_, open)| *open).count()
}

/// Waits for the tab's error message and returns it.
async fn log_error(driver: &WebDriver) -> String {
    wait_until(
        "an error message",
        async || text_of(driver, ".pod-logs .error[role=alert]").await,
        |text| !text.is_empty(),
    )
    .await
}

async fn click(driver: &WebDriver, css: &str) {
    driver
        .find(By::Css(css))
        .await
        .unwrap_or_else(|e| panic!("`{css}`: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click `{css}`: {e}"));
}

async fn select(driver: &WebDriver, label: &str, value: &str) {
    let element = driver
        .find(By::Css(format!("select[aria-label='{label}']")))
        .await
        .unwrap_or_else(|e| panic!("select {label}: {e}"));
    SelectElement::new(&element)
        .await
        .expect("a select")
        .select_by_value(value)
        .await
        .unwrap_or_else(|e| panic!("select {value} in {label}: {e}"));
}

use common::running_pod;

async fn open_logs(harness: &Harness, pod: &str) {
    harness
        .open(&format!("#/obj/core/v1/pods/default/{pod}?tab=logs"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_pods_log_follows_and_every_option_restarts_the_stream() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    running_pod(
        &harness,
        "logs-demo",
        serde_json::json!({
            "initContainers": [{"name": "init-config", "image": "busybox:1.36",
                                "command": ["sh", "-c", "echo configured"]}],
            "containers": [
                {"name": "web", "image": "nginx:1.27"},
                {"name": "markup", "image": "busybox:1.36",
                 "command": ["sh", "-c", format!("echo '{MARKUP_LINE}'; sleep 3600")]},
            ],
        }),
    )
    .await;
    open_logs(&harness, "logs-demo").await;

    // Only pods have the tab; it is open, on the first regular container, following.
    let tab = wait_for(driver, ".tabs a[aria-selected='true']").await;
    assert_eq!(tab.text().await.expect("tab text"), "Logs");
    wait_for(driver, ".pod-log-line").await;
    let container = driver
        .find(By::Css("select[aria-label='Container']"))
        .await
        .expect("container choice");
    assert_eq!(
        container.prop("value").await.expect("value").as_deref(),
        Some("web")
    );
    let choices = script(
        driver,
        "return Array.from(document.querySelectorAll(\"select[aria-label='Container'] option\"))
           .map(o => o.textContent);",
    )
    .await;
    assert_eq!(
        choices,
        serde_json::json!(["init-config (init)", "web", "markup"])
    );
    let lines = wait_until(
        "nginx's start-up lines",
        async || shown_lines(driver).await,
        |lines| lines.iter().any(|l| l.contains("ready for start up")),
    )
    .await;
    assert!(
        lines[0].starts_with("/docker-entrypoint.sh"),
        "the log from its first line: {lines:?}"
    );

    // New lines arrive while following (nginx logs a probe every 7 s), and the view stays
    // on the newest one.
    let before = last_line_number(driver).await;
    let after = wait_until(
        "a new line while following",
        async || last_line_number(driver).await,
        |n| *n > before,
    )
    .await;
    let newest = shown_lines(driver).await;
    assert!(
        newest
            .last()
            .is_some_and(|l| l.contains("\"GET / HTTP/1.1\" 200")),
        "line {after} is an access log line: {newest:?}"
    );
    assert!(text_of(driver, ".pod-logs-status")
        .await
        .contains("Streaming"));
    assert_eq!(open_log_streams(driver, "logs-demo").await, 1);

    // Another container: its log, with the markup shown as text and never run.
    select(driver, "Container", "markup").await;
    wait_until(
        "the markup container's log",
        async || shown_lines(driver).await,
        |lines| lines == &[MARKUP_LINE.to_string()],
    )
    .await;
    let elements_in_line = script(
        driver,
        "return document.querySelectorAll('.pod-log-text b, .pod-log-text script, \
         .pod-log-text img').length;",
    )
    .await;
    assert_eq!(elements_in_line, 0, "markup in a log line stays text");
    assert_eq!(
        script(driver, "return typeof window.injected;").await,
        "undefined"
    );

    // Timestamps: RFC 3339 with nanoseconds before each line, as the kubelet writes them.
    click(driver, "input[aria-label='Timestamps']").await;
    let stamped = wait_until(
        "timestamped lines",
        async || shown_lines(driver).await,
        |lines| lines.len() == 1 && lines[0].ends_with(&format!("Z {MARKUP_LINE}")),
    )
    .await;
    let stamp = stamped[0].split(' ').next().unwrap_or_default();
    assert_eq!(
        stamp.len(),
        "2025-01-01T00:00:00.000000000Z".len(),
        "{stamp}"
    );
    assert!(driver
        .current_url()
        .await
        .expect("url")
        .as_str()
        .ends_with("#/obj/core/v1/pods/default/logs-demo?tab=logs"));

    // Previous: this container never terminated, and the server says so.
    click(driver, "input[aria-label='Previous']").await;
    let alert = log_error(driver).await;
    assert!(
        alert.contains("400") && alert.contains("previous terminated container \"markup\""),
        "{alert}"
    );
    assert!(text_of(driver, ".pod-logs-status")
        .await
        .contains("Reconnect"));
    click(driver, "input[aria-label='Previous']").await;
    wait_until(
        "the current log again",
        async || shown_lines(driver).await,
        |lines| lines.len() == 1,
    )
    .await;
    assert!(text_of(driver, ".pod-logs .error").await.is_empty());

    // Back to nginx with timestamps; a search highlights the probes. Every change above
    // aborted the stream before: one stays open.
    select(driver, "Container", "web").await;
    wait_until(
        "nginx's timestamped probes",
        async || shown_lines(driver).await,
        |lines| {
            lines.iter().any(|l| {
                l.contains("kube-probe") && l.split(' ').next().is_some_and(|t| t.ends_with('Z'))
            })
        },
    )
    .await;
    let search = driver
        .find(By::Css("input[aria-label='Search the log']"))
        .await
        .expect("search box");
    search.send_keys("kube-probe").await.expect("type a search");
    let summary = wait_until(
        "a match count",
        async || text_of(driver, ".pod-logs-matches").await,
        |text| text.ends_with("lines") || text == "1 line",
    )
    .await;
    search.send_keys(Key::Enter).await.expect("next match");
    wait_for(driver, ".pod-log-line.current mark").await;
    let marks = script(
        driver,
        "return Array.from(document.querySelectorAll('.pod-log-text mark')).map(m => m.textContent);",
    )
    .await;
    let marks: Vec<String> = serde_json::from_value(marks).unwrap_or_default();
    assert!(
        !marks.is_empty() && marks.iter().all(|m| m == "kube-probe"),
        "{summary}: {marks:?}"
    );
    assert_eq!(open_log_streams(driver, "logs-demo").await, 1);
    harness.screenshot("pod-logs").await;

    // Each option is a query parameter of the request the server answers.
    select(driver, "Tail lines", "100").await;
    let requests = wait_until(
        "a request with tailLines=100",
        async || log_requests(driver, "logs-demo").await,
        |requests| {
            requests
                .first()
                .is_some_and(|(path, _)| path.contains("tailLines=100"))
        },
    )
    .await;
    assert!(
        requests[0].0.ends_with(
            "/api/v1/namespaces/default/pods/logs-demo/log?container=web&follow=true\
             &timestamps=true&tailLines=100"
        ),
        "{requests:?}"
    );
    assert_eq!(open_log_streams(driver, "logs-demo").await, 1);

    // Download: the lines held, as a file named after the pod and container.
    let shown = shown_lines(driver).await;
    script(
        driver,
        "window.downloads = [];
         const createObjectURL = URL.createObjectURL;
         URL.createObjectURL = blob => {
           blob.text().then(text => window.downloadedText = text);
           return createObjectURL(blob);
         };
         HTMLAnchorElement.prototype.click = function () { window.downloads.push(this.download); };",
    )
    .await;
    click(driver, ".pod-logs-download").await;
    let downloaded = wait_until(
        "the downloaded text",
        async || script(driver, "return window.downloadedText || '';").await,
        |text| text.as_str().is_some_and(|t| !t.is_empty()),
    )
    .await;
    assert_eq!(
        script(driver, "return window.downloads;").await,
        serde_json::json!(["logs-demo-web.log"])
    );
    let downloaded: Vec<&str> = downloaded.as_str().unwrap_or_default().lines().collect();
    assert!(
        downloaded.starts_with(&shown.iter().map(String::as_str).collect::<Vec<_>>()),
        "{downloaded:?} holds {shown:?}"
    );

    // Leaving the tab closes the stream.
    click(driver, ".tabs a[href$='logs-demo']").await;
    wait_until(
        "no log stream open once the tab is left",
        async || open_log_streams(driver, "logs-demo").await,
        |open| *open == 0,
    )
    .await;

    // A Deployment's Logs tab is its pods' logs, merged; a kind that runs no pods has none.
    harness
        .open("#/obj/apps/v1/deployments/default/nginx?tab=logs")
        .await;
    wait_for(driver, ".workload-logs").await;
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(harness.kube_client(), "default");
    let plain: k8s_openapi::api::core::v1::ConfigMap =
        serde_json::from_value(serde_json::json!({"metadata": {"name": "plain"}}))
            .expect("a ConfigMap");
    config_maps
        .create(&PostParams::default(), &plain)
        .await
        .expect("ConfigMap created");
    harness
        .open("#/obj/core/v1/configmaps/default/plain?tab=logs")
        .await;
    wait_for(driver, ".tabs a[aria-selected='true']").await;
    let tabs = script(
        driver,
        "return Array.from(document.querySelectorAll('.tabs a')).map(a => a.textContent);",
    )
    .await;
    assert_eq!(
        tabs,
        serde_json::json!([
            "Overview", "Timeline", "Activity", "Events", "YAML", "Edit", "Blame", "JSON",
            "Versions"
        ])
    );
    harness.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gone_pod_ends_the_stream_and_its_lines_stay_through_a_failed_reconnect() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    let pods = running_pod(
        &harness,
        "short-lived",
        serde_json::json!({"containers": [{"name": "redis", "image": "redis:7.2"}]}),
    )
    .await;
    open_logs(&harness, "short-lived").await;
    wait_for_line(
        driver,
        "redis's start-up lines",
        "Ready to accept connections",
    )
    .await;
    assert!(text_of(driver, ".pod-logs-status")
        .await
        .contains("Streaming"));

    // Without follow the response ends after the lines printed so far.
    click(driver, "input[aria-label='Stream (-f)']").await;
    wait_until(
        "the end of a log read without follow",
        async || text_of(driver, ".pod-logs-status").await,
        |text| text.contains("Stream ended.") && text.contains(" lines"),
    )
    .await;
    // Lines are drawn once per frame: the status can say "ended" a frame before them.
    wait_for_line(
        driver,
        "the lines read without follow",
        "Ready to accept connections",
    )
    .await;
    assert_eq!(open_log_streams(driver, "short-lived").await, 0);
    click(driver, "input[aria-label='Stream (-f)']").await;
    wait_until(
        "following again",
        async || text_of(driver, ".pod-logs-status").await,
        |text| text.contains("Streaming"),
    )
    .await;
    let shown = shown_lines(driver).await;

    pods.delete("short-lived", &DeleteParams::default().grace_period(0))
        .await
        .expect("pod deleted");
    wait_until(
        "the stream ends with the pod",
        async || text_of(driver, ".pod-logs-status").await,
        |text| text.contains("Stream ended."),
    )
    .await;
    // The lines stay (a periodic line may have arrived before the pod went).
    let after = shown_lines(driver).await;
    assert!(
        after.len() >= shown.len() && after[..shown.len()] == shown[..],
        "the lines stay: before {shown:?}, after {after:?}"
    );

    // Reconnecting finds no pod: said plainly, and the lines are still there to read.
    click(driver, ".pod-logs-status button").await;
    let alert = log_error(driver).await;
    assert!(
        alert.contains("404") && alert.contains("not found"),
        "{alert}"
    );
    // The lines stay (a periodic line may have arrived before the pod went).
    let after = shown_lines(driver).await;
    assert!(
        after.len() >= shown.len() && after[..shown.len()] == shown[..],
        "the lines stay: before {shown:?}, after {after:?}"
    );
    harness.stop().await;
}

/// Serves every `pods/.../log` request of the page from a stream of `lines` synthetic lines
/// in chunks of 997 lines (cut so that chunks end mid-line), and measures, frame by frame,
/// when the view says the stream ended (`syntheticLogShownMs`, from the fetch) and the longest
/// frame until then (`syntheticLogLongestFrameMs`).
const SYNTHETIC_LOG: &str = r#"
const lines = arguments[0];
const realFetch = window.fetch.bind(window);
window.fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input.url;
  if (!url.includes('/log')) return realFetch(input, init);
  const started = performance.now();
  let last = started;
  window.syntheticLogLongestFrameMs = 0;
  const frame = (now) => {
    window.syntheticLogLongestFrameMs = Math.max(window.syntheticLogLongestFrameMs, now - last);
    last = now;
    const status = document.querySelector('.pod-logs-status');
    if (status && status.textContent.includes('Stream ended.')) {
      window.syntheticLogShownMs = performance.now() - started;
    } else {
      requestAnimationFrame(frame);
    }
  };
  requestAnimationFrame(frame);
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (next >= lines) { controller.close(); return; }
      let text = '';
      for (let i = 0; i < 997 && next < lines; i++, next++) {
        text += `2025-05-01T10:00:00Z line ${next} level=${next % 10 === 0 ? 'ERROR' : 'info'} <i>${next}</i>\n`;
      }
      // Cut the chunk inside a line; the rest goes with the next one.
      const bytes = encoder.encode(text);
      controller.enqueue(bytes.slice(0, bytes.length - 5));
      controller.enqueue(bytes.slice(bytes.length - 5));
    }
  });
  return Promise.resolve(new Response(body, {status: 200, headers: {'Content-Type': 'text/plain'}}));
};
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_thousand_lines_stay_bounded_virtualized_and_searchable() {
    let harness = Harness::start().await;
    let driver = &harness.driver;
    running_pod(
        &harness,
        "chatty",
        serde_json::json!({"containers": [{"name": "app", "image": "ghcr.io/kube-atlas/web-frontend:1.4.2"}]}),
    )
    .await;
    harness.open("#/obj/core/v1/pods/default/chatty").await;
    wait_for(driver, ".tabs a[href$='tab=logs']").await;
    driver
        .execute(SYNTHETIC_LOG, vec![serde_json::json!(100_000)])
        .await
        .expect("synthetic log installed");
    click(driver, ".tabs a[href$='tab=logs']").await;
    let status = wait_until(
        "all 100,000 lines received",
        async || text_of(driver, ".pod-logs-status").await,
        |text| text.contains("Stream ended.") && text.contains("50,000 lines"),
    )
    .await;
    let figures = script(
        driver,
        "return [window.syntheticLogShownMs, window.syntheticLogLongestFrameMs];",
    )
    .await;
    println!(
        "100,000 lines streamed and drawn in {:.0} ms, longest frame {:.0} ms ({status})",
        figures[0].as_f64().unwrap_or_default(),
        figures[1].as_f64().unwrap_or_default()
    );
    assert!(
        text_of(driver, ".pod-logs-dropped")
            .await
            .starts_with("50,000 older lines dropped"),
        "the bound is said"
    );

    // Only the lines in view exist; following keeps the newest in view.
    let in_dom = script(
        driver,
        "return document.querySelectorAll('.pod-log-line').length;",
    )
    .await
    .as_u64()
    .unwrap_or(0);
    assert!((1..200).contains(&in_dom), "{in_dom} lines in the DOM");
    assert_eq!(last_line_number(driver).await, 100_000);
    let newest = shown_lines(driver).await;
    assert!(
        newest
            .last()
            .is_some_and(|l| l.ends_with("line 99999 level=info <i>99999</i>")),
        "{newest:?}"
    );

    // Scrolled to the top: the oldest line held is number 50,001, and following pauses.
    script(
        driver,
        "document.querySelector('.pod-logs-scroll').scrollTop = 0;",
    )
    .await;
    let first = wait_until(
        "the oldest held line in view",
        async || shown_lines(driver).await,
        |lines| lines.first().is_some_and(|l| l.contains("line 50000 ")),
    )
    .await;
    assert!(first.len() < 200);
    wait_for(driver, ".pod-logs-follow").await;

    // Search across all held lines: lines 59990 to 59999 (line 5999 was dropped).
    let search = driver
        .find(By::Css("input[aria-label='Search the log']"))
        .await
        .expect("search box");
    let typed = Instant::now();
    search.send_keys("line 5999").await.expect("type a search");
    let summary = wait_until(
        "the match count",
        async || text_of(driver, ".pod-logs-matches").await,
        |text| text == "10 lines",
    )
    .await;
    println!(
        "search over 50,000 lines answered within {} ms of typing",
        typed.elapsed().as_millis()
    );
    search.send_keys(Key::Enter).await.expect("next match");
    search.send_keys(Key::Enter).await.expect("next match");
    let current = wait_for(driver, ".pod-log-line.current").await;
    assert_eq!(
        current
            .attr("data-line")
            .await
            .expect("data-line")
            .as_deref(),
        Some("59992"),
        "the second of {summary}"
    );
    assert_eq!(text_of(driver, ".pod-logs-matches").await, "2 of 10 lines");

    // Follow goes back to the newest line.
    click(driver, ".pod-logs-follow").await;
    wait_until(
        "the newest line in view again",
        async || last_line_number(driver).await,
        |n| *n == 100_000,
    )
    .await;
    harness.stop().await;
}

/// A running pod's lines, a crash-looping container's previous instance, and a container that
/// never started refused in the server's words: the same on kube-apiserver (through the
/// stand-in kubelet's log server) as on the demo cluster.
async fn pod_logs_in_the_servers_words(backend: Backend) {
    let harness = Harness::start_on(backend).await;
    let driver = &harness.driver;
    running_pod(
        &harness,
        "web",
        serde_json::json!({"containers": [{"name": "web", "image": "nginx:1.27"}]}),
    )
    .await;
    open_logs(&harness, "web").await;
    wait_for_line(driver, "nginx's start-up lines", "Configuration complete").await;

    // A crash loop: the current instance may have nothing to say; the previous one panicked.
    let pods: Api<Pod> = Api::namespaced(harness.kube_client(), "default");
    let crashing: Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "crashy"},
        "spec": {"containers": [{"name": "app", "image": "example.com/crash:1"}]}
    }))
    .expect("a pod");
    pods.create(&PostParams::default(), &crashing)
        .await
        .expect("pod created");
    wait_until(
        "the crashing container restarted",
        async || {
            pods.get("crashy")
                .await
                .ok()
                .and_then(|p| p.status)
                .and_then(|s| s.container_statuses)
                .and_then(|c| c.first().map(|c| c.restart_count))
        },
        |restarts| restarts.is_some_and(|n| n >= 1),
    )
    .await;
    open_logs(&harness, "crashy").await;
    wait_for(driver, "input[aria-label='Previous']").await;
    click(driver, "input[aria-label='Previous']").await;
    wait_for_line(driver, "the previous instance's panic", "panic:").await;
    harness.screenshot("pod-logs-previous").await;

    // An image that never pulls: the server's 400, in its words.
    let never: Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "never"},
        "spec": {"containers": [{"name": "app", "image": "registry.example/doesnotexist:1"}]}
    }))
    .expect("a pod");
    pods.create(&PostParams::default(), &never)
        .await
        .expect("pod created");
    open_logs(&harness, "never").await;
    let said = log_error(driver).await;
    assert!(
        said.contains("400") && said.contains("is waiting to start"),
        "the server's words: {said}"
    );
    harness.stop().await;
}

on_both_backends!(pod_logs_in_the_servers_words);
