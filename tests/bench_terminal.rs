//! Terminal benchmark (`cargo xtask bench terminal`): the release build in headless Chromium,
//! served by kube-atlas in front of kube-apiserver, whose exec path reaches the stand-in
//! kubelet's streaming server (`--streams`): keystrokes go browser → kube-atlas →
//! kube-apiserver → kubelet and their echo comes back the same way, as on a real cluster.
//! - keystroke-to-echo latency: one key typed, until xterm.js draws its echo (p50, p99);
//! - `seq 100000`: until the last line is drawn, and the longest frame meanwhile;
//! - page start: the terminal's code is not in it (`cargo xtask bench ui-size` measures that).
//!
//! Prints figures and writes `target/bench/terminal.json`; asserts only that it really ran.
//! Quick mode (`KUBE_ATLAS_BENCH_QUICK=1`, run by `cargo xtask test`): 10 keys, `seq 2000`.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::time::Instant;

use common::bench::{self, Figures};
use common::{wait_until, Backend, Harness};
use serde_json::json;
use thirtyfour::prelude::*;

/// Resolves with the ms from the last key's keydown (recorded in the page by
/// [`KEY_CLOCK`]) until xterm.js's rows show its echo (the row ends with `arguments[0]`
/// characters `x`), watched by a MutationObserver; -1 after 2 s. WebDriver's own round trips
/// are not in it.
const ECHO_SCRIPT: &str = r#"
const done = arguments[arguments.length - 1];
const want = '/ # ' + 'x'.repeat(arguments[0]);
const rows = document.querySelector('.terminal-session .xterm-rows');
const echoed = () => rows.textContent.includes(want) && !rows.textContent.includes(want + 'x');
if (echoed()) { done(window.__echoAt - window.__keyAt); return; }
const observer = new MutationObserver(() => {
  if (echoed()) { observer.disconnect(); done(performance.now() - window.__keyAt); }
});
observer.observe(rows, {childList: true, subtree: true, characterData: true});
setTimeout(() => { observer.disconnect(); done(-1); }, 2000);
"#;

/// Records each keydown's time on the terminal's input (capture phase, before xterm.js), and
/// when the rows last changed.
const KEY_CLOCK: &str = r#"
const input = document.querySelector('.terminal-session .xterm-helper-textarea');
input.addEventListener('keydown', () => { window.__keyAt = performance.now(); }, true);
const rows = document.querySelector('.terminal-session .xterm-rows');
new MutationObserver(() => { window.__echoAt = performance.now(); })
  .observe(rows, {childList: true, subtree: true, characterData: true});
"#;

/// Starts recording frames into `window.__frames` (worst interval, longest LoAF) without
/// blocking the session, so keys can be typed meanwhile.
const START_FRAMES: &str = r#"
const state = {last: 0, worst: 0, frames: 0, loaf: 0, on: true};
window.__frames = state;
try {
  state.observer = new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      if (e.duration > state.loaf) {
        state.loaf = e.duration;
        state.what = JSON.stringify({render: e.renderStart ? e.startTime + e.duration - e.renderStart : 0,
          layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
          scripts: e.scripts.map(s => [s.invoker, s.sourceURL.split('/').pop(), Math.round(s.duration)])});
      }
    }
  });
  state.observer.observe({type: 'long-animation-frame'});
} catch (e) {}
function step(t) {
  if (!state.on) return;
  if (state.last > 0) { state.worst = Math.max(state.worst, t - state.last); state.frames++; }
  state.last = t;
  requestAnimationFrame(step);
}
requestAnimationFrame(step);
"#;

const STOP_FRAMES: &str = r#"
const s = window.__frames; s.on = false; if (s.observer) s.observer.disconnect();
console.log(s.what); window.__what = s.what;
return [s.worst, s.loaf, s.frames];
"#;

async fn screen_text(driver: &WebDriver) -> String {
    driver
        .execute(
            "const r = document.querySelector('.terminal-session .xterm-rows'); return r ? r.textContent : '';",
            vec![],
        )
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).copied().unwrap_or(f64::NAN)
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_echo_and_throughput() {
    let mut figures = Figures::new("terminal");
    let harness = Harness::start_on(Backend::Real)
        .await
        .behind_kube_atlas()
        .await;
    let driver = &harness.driver;
    common::running_pod(
        &harness,
        "bench-shell",
        json!({"containers": [{"name": "app", "image": "nginx:1.27"}]}),
    )
    .await;
    harness
        .open("#/obj/core/v1/pods/default/bench-shell?tab=terminal")
        .await;
    wait_until(
        "the prompt",
        async || screen_text(driver).await,
        |text| text.contains("/ # "),
    )
    .await;
    let input = driver
        .find(By::Css(".terminal-session .xterm-helper-textarea"))
        .await
        .expect("the terminal's input");

    // Echo: one key at a time, each waited for.
    driver.execute(KEY_CLOCK, vec![]).await.expect("key clock");
    let keys = bench::pick(60, 10);
    let mut latencies = Vec::new();
    for n in 1..=keys {
        input.send_keys("x").await.expect("typed");
        let seen = driver
            .execute_async(ECHO_SCRIPT, vec![json!(n)])
            .await
            .expect("echo script")
            .json()
            .as_f64()
            .unwrap_or(-1.0);
        assert!(seen >= 0.0, "the echo of key {n} was drawn");
        latencies.push(seen);
    }
    latencies.sort_by(f64::total_cmp);
    let (p50, p99) = (percentile(&latencies, 0.5), percentile(&latencies, 0.99));
    println!(
        "bench terminal: keys={keys} echo_p50_ms={p50:.1} echo_p99_ms={p99:.1} (keydown until \
         xterm.js's rows show the echo; browser → kube-atlas → kube-apiserver → kubelet and back)"
    );
    figures.add("echo_p50_ms", None, p50, "ms");
    figures.add("echo_p99_ms", Some("≤ 50 ms"), p99, "ms");

    // Throughput: clear the line, then seq N, watching frames meanwhile.
    input
        .send_keys(Key::Backspace.value().to_string().repeat(keys as usize))
        .await
        .expect("line cleared");
    let lines = bench::pick(100_000, 2_000);
    driver
        .execute(START_FRAMES, vec![])
        .await
        .expect("frames recorded");
    let started = Instant::now();
    input
        .send_keys(format!("seq {lines}\n"))
        .await
        .expect("typed");
    let last = format!("\n{lines}");
    wait_until(
        "the last line drawn and a new prompt",
        async || {
            driver
                .execute(
                    "const r = document.querySelector('.terminal-session .xterm-rows');
                     return r ? Array.from(r.children).map(c => c.textContent.trimEnd()).join('\\n') : '';",
                    vec![],
                )
                .await
                .ok()
                .and_then(|r| r.convert::<String>().ok())
                .unwrap_or_default()
        },
        |text| text.contains(&last) && text.trim_end().ends_with("/ #"),
    )
    .await;
    let drawn_ms = started.elapsed().as_secs_f64() * 1000.0;
    let (worst, loaf, frames): (f64, f64, f64) = driver
        .execute(STOP_FRAMES, vec![])
        .await
        .expect("frames")
        .convert()
        .expect("three numbers");
    assert!(frames > 0.0, "frames seen");
    let what = driver
        .execute("return window.__what || '';", vec![])
        .await
        .ok()
        .and_then(|r| r.convert::<String>().ok())
        .unwrap_or_default();
    println!("bench terminal: the longest long animation frame: {what}");
    let (heap_mib, wasm_mib) = common::page_memory_mib(driver).await;
    println!(
        "bench terminal: seq={lines} drawn_ms={drawn_ms:.0} lines_per_s={:.0} \
         longest_frame_ms={worst:.1} longest_long_animation_frame_ms={loaf:.1} \
         page_memory_mib={:.1}",
        lines as f64 / (drawn_ms / 1000.0),
        heap_mib + wasm_mib
    );
    figures.add(format!("seq={lines} drawn_ms"), None, drawn_ms, "ms");
    figures.add(
        format!("seq={lines} longest_frame_ms"),
        Some("≤ 50 ms"),
        worst,
        "ms",
    );
    figures.add(
        format!("seq={lines} longest_long_animation_frame_ms"),
        None,
        loaf,
        "ms",
    );
    harness.screenshot("terminal-seq").await;
    harness.stop().await;
    figures.save();
}
