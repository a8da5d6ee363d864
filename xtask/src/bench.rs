//! `cargo xtask bench`: prints measured figures; targets are checked by reading them, not by
//! timed tests. `cargo xtask bench [ui-size|model|server|ui|list|timeline|live]` runs one part; options
//! after `server` go to the server benchmark (e.g. `cargo xtask bench server --duration 5`).

use anyhow::Result;

use crate::{build, cmd, setup};

pub fn run(args: &[String]) -> Result<()> {
    let only = args.first().map(String::as_str);
    let wants = |name: &str| only.is_none() || only == Some(name);
    if wants("ui-size") || wants("ui") {
        println!("\nxtask bench: ==== UI bundle size ====");
        let size = build::release_ui()?;
        println!(
            "bench ui-size: wasm_raw_kib={} wasm_gzip_kib={} js_gzip_kib={} page_start_gzip_kib={} editor_gzip_kib={} with_editor_gzip_kib={}",
            size.wasm_raw / 1024,
            size.wasm_gzip / 1024,
            size.js_gzip / 1024,
            (size.wasm_gzip + size.js_gzip) / 1024,
            size.editor_gzip / 1024,
            (size.wasm_gzip + size.js_gzip + size.editor_gzip) / 1024
        );
    }
    if wants("model") {
        println!("\nxtask bench: ==== pure model (discovery parsing and tree) ====");
        cmd::run(cmd::command("cargo").args([
            "run",
            "--quiet",
            "--profile",
            "bench",
            "-p",
            "kube-atlas",
            "--example",
            "bench_model",
        ]))?;
    }
    if wants("server") {
        println!("\nxtask bench: ==== demo cluster: list 10,000 pods; 200 watchers during 1,000 writes/s ====");
        // Controllers off, so no simulated control plane competes for the CPUs. The server runs
        // on a runtime of its own; list and write times are its answers as clients see them,
        // the watch lag is end to end (fan-out plus the client's decoding), see bench_server.rs.
        // `cargo run --profile bench -p demo-cluster --example bench_server` runs it with them.
        let mut extra: Vec<String> = vec!["--no-controllers".into()];
        extra.extend(args.iter().skip(1).cloned());
        cmd::run(
            cmd::command("cargo")
                .args(["run", "--quiet", "--profile", "bench", "-p", "demo-cluster"])
                .args(["--example", "bench_server", "--"])
                .args(&extra),
        )?;
    }
    if wants("ui") {
        println!("\nxtask bench: ==== UI: tree painted time in headless Chromium ====");
        browser_bench("bench_ui")?;
    }
    // The release build the browser benchmarks drive, made once (ui-size made it already).
    let mut built = wants("ui");
    if wants("list") {
        println!("\nxtask bench: ==== UI: lists of 10,000 / 50,000 / 100,000 pods ====");
        if !built {
            build::release_ui()?;
            built = true;
        }
        browser_bench("bench_list")?;
    }
    if wants("timeline") {
        println!(
            "\nxtask bench: ==== UI: a 100-pod rollout into the activity view; memory under churn with the activity view open ===="
        );
        if !built {
            build::release_ui()?;
            built = true;
        }
        browser_bench("bench_timeline")?;
    }
    if wants("live") {
        println!(
            "\nxtask bench: ==== UI: live lists: idle CPU; 2,000 events/s into 50,000 pods; write-to-screen lag ===="
        );
        if !built {
            build::release_ui()?;
        }
        // Optimized (the `bench` profile): the in-process demo cluster must make 2,000 pod
        // writes a second, and a debug build makes about 100.
        setup::run(setup::Options { browser: true })?;
        cmd::run(crate::test::browser_tests(&["bench_live"]).args([
            "--profile",
            "bench",
            "--",
            "--nocapture",
        ]))?;
    }
    Ok(())
}

/// Runs a browser benchmark (a test target needing the release build and Chromium).
fn browser_bench(target: &str) -> Result<()> {
    setup::run(setup::Options { browser: true })?;
    cmd::run(crate::test::browser_tests(&[target]).args(["--", "--nocapture"]))
}
