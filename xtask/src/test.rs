//! `cargo xtask test`: everything, in the order that fails fastest.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::cmd::{self, TestCounts};
use crate::{bench, build, setup};

pub fn run() -> Result<()> {
    let started = Instant::now();
    setup::run(setup::Options { browser: true })?;
    // Every cargo call below sees the same interpreter, so the demo cluster's build script
    // (which probes it) is not re-run between clippy and the tests.
    std::env::set_var("DEMO_CLUSTER_PYTHON", setup::python_interpreter());

    step("rustfmt");
    cmd::run(cmd::command("cargo").args(["fmt", "--all", "--", "--check"]))?;

    step("the model crate stays pure (no browser or UI dependency)");
    check_model_is_pure()?;

    step("clippy (native)");
    cmd::run(cmd::command("cargo").args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--features",
        "kube-atlas/e2e",
        "--",
        "-D",
        "warnings",
    ]))?;
    step("clippy (wasm32 app)");
    cmd::run(cmd::command("cargo").args([
        "clippy",
        "-p",
        "kube-atlas",
        "--target",
        "wasm32-unknown-unknown",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;

    let mut totals = TestCounts::default();

    step("native tests (cargo test --workspace)");
    totals.add(cmd::run_tests(cmd::command("cargo").args([
        "test",
        "--no-fail-fast",
        "--workspace",
    ]))?);

    step("component tests in headless Chromium (wasm-bindgen-test)");
    let webdriver_json = write_webdriver_json()?;
    totals.add(cmd::run_tests(
        cmd::command("cargo")
            .args([
                "test",
                "-p",
                "kube-atlas",
                "--target",
                "wasm32-unknown-unknown",
            ])
            .env("CHROMEDRIVER", setup::CHROMEDRIVER)
            .env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", &webdriver_json)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "60"),
    )?);

    step("release build of the UI");
    build::release_ui()?;

    step("end-to-end tests (Chromium against a fresh demo cluster)");
    totals.add(cmd::run_tests(&mut browser_tests(&E2E_TARGETS))?);

    // So the benchmark harness cannot rot: the browser benchmarks at small sizes on the same
    // build and browser (figures in target/bench/quick/; `cargo xtask bench` measures).
    step("benchmarks in quick mode (small sizes, short runs)");
    totals.add(bench::quick_tests()?);

    check_ignored(&totals)?;
    println!(
        "xtask: all checks passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    // The plain closing line CI reads, summed over every cargo test run above.
    println!(
        "{} passed, {} failed, {} skipped",
        totals.passed, totals.failed, totals.ignored
    );
    if totals.passed == 0 {
        bail!("no test ran");
    }
    Ok(())
}

/// Tests ignored on purpose, run by hand with `--ignored`: re-recording the example recording
/// and the load measurement. Any other ignored test lacks a tool or fixture this machine should
/// have (see build-support/test_env.rs).
const DELIBERATELY_IGNORED: [&str; 3] = [
    "record_the_example",
    "load_timings",
    // The map's 2,000-object figure (model/tests/map_scale.rs), run in release by hand.
    "map_2000_objects_figure",
];

/// Under CI (`CI=true` or `CI=1`, where every tool and fixture is meant to be present) fails when a test
/// other than the deliberate ones was ignored, naming it; elsewhere says so and goes on, as a
/// machine without kubectl or the shared fixtures is allowed to skip their tests.
fn check_ignored(totals: &TestCounts) -> Result<()> {
    let Some(message) = ignored_beyond_deliberate(totals) else {
        return Ok(());
    };
    if crate::test_env::in_ci() {
        bail!("{message}");
    }
    println!("xtask: warning: {message} (this fails under CI)");
    Ok(())
}

/// What was ignored beyond [`DELIBERATELY_IGNORED`], by name, or None.
fn ignored_beyond_deliberate(totals: &TestCounts) -> Option<String> {
    let unexpected: Vec<&str> = totals
        .ignored_names
        .iter()
        .map(String::as_str)
        .filter(|name| !DELIBERATELY_IGNORED.contains(name))
        .collect();
    // The count too, in case a runner printed a summary without per-test lines.
    let beyond_deliberate = totals.ignored > DELIBERATELY_IGNORED.len() as u64;
    if unexpected.is_empty() && !beyond_deliberate {
        return None;
    }
    Some(format!(
        "{} tests ignored where {} are on purpose ({}); not on purpose: {}",
        totals.ignored,
        DELIBERATELY_IGNORED.len(),
        DELIBERATELY_IGNORED.join(", "),
        if unexpected.is_empty() {
            "(no names printed)".to_string()
        } else {
            unexpected.join(", ")
        }
    ))
}

/// The end-to-end suites, each driving the release build against a demo cluster.
const E2E_TARGETS: [&str; 24] = [
    "e2e",
    "e2e_viewer_tour",
    "e2e_team",
    "e2e_browse",
    "e2e_logs",
    "e2e_workload_logs",
    "e2e_terminal",
    "e2e_actions",
    "e2e_bulk",
    "e2e_metrics",
    "e2e_forwards",
    "e2e_live",
    "e2e_events",
    "e2e_timeline",
    "e2e_edit",
    "e2e_diagnosis",
    "e2e_history",
    "e2e_permissions",
    "e2e_newcomer",
    "e2e_a11y",
    "e2e_chaos",
    "e2e_overview",
    "e2e_clusters",
    "e2e_map",
];

/// `cargo xtask screenshots`: the e2e suites with their screenshots written to
/// docs/screenshots (the README's), which `cargo xtask test` leaves alone.
pub fn screenshots() -> Result<()> {
    setup::run(setup::Options { browser: true })?;
    build::release_ui()?;
    let dir = cmd::workspace_root().join("docs/screenshots");
    cmd::run(browser_tests(&E2E_TARGETS).env("KUBE_ATLAS_SCREENSHOTS", &dir))?;
    println!("xtask: screenshots written to {}", dir.display());
    Ok(())
}

/// `cargo test` of the app's test targets that drive the release build (`dist/`) in Chromium.
pub fn browser_tests(targets: &[&str]) -> std::process::Command {
    let mut command = cmd::command("cargo");
    // Every suite runs even after one fails, so one run reports every broken journey.
    command.args([
        "test",
        "--no-fail-fast",
        "-p",
        "kube-atlas",
        "--features",
        "e2e",
    ]);
    for target in targets {
        command.args(["--test", target]);
    }
    command
        .env("KUBE_ATLAS_DIST", cmd::workspace_root().join(build::DIST))
        .env("CHROMEDRIVER", setup::CHROMEDRIVER)
        .env("CHROMIUM", setup::CHROMIUM);
    command
}

/// Crates the pure model must never depend on, even indirectly: with one of them the model
/// would no longer build and test natively on its own, as kube-core is apart from kube-runtime.
const BROWSER_AND_UI_CRATES: [&str; 7] = [
    "leptos",
    "web-sys",
    "js-sys",
    "wasm-bindgen",
    "gloo-net",
    "gloo-timers",
    "leptos-use",
];

/// Fails when the model's resolved dependency graph (every target, build scripts included)
/// holds a browser or UI crate.
fn check_model_is_pure() -> Result<()> {
    let output = cmd::command("cargo")
        .args([
            "tree",
            "-p",
            "kube-atlas-model",
            "--edges",
            "normal,build",
            "--target",
            "all",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .output()
        .context("running cargo tree")?;
    if !output.status.success() {
        bail!(
            "cargo tree failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let graph = String::from_utf8_lossy(&output.stdout);
    let offending: std::collections::BTreeSet<&str> = graph
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| BROWSER_AND_UI_CRATES.contains(name) || name.starts_with("gloo"))
        .collect();
    if !offending.is_empty() {
        bail!(
            "model/ (kube-atlas-model) must stay free of browser and UI crates, but depends on: {}",
            offending.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    println!("xtask: kube-atlas-model depends on no browser or UI crate");
    Ok(())
}

fn step(name: &str) {
    println!("\nxtask: ==== {name} ====");
}

/// Chromium flags for wasm-bindgen-test-runner: without the background-networking flags
/// Chromium keeps trying hosts this machine cannot reach.
fn write_webdriver_json() -> Result<PathBuf> {
    let path = cmd::workspace_root().join("target/webdriver.json");
    let config = format!(
        r#"{{"goog:chromeOptions":{{"binary":"{}","args":["--headless=new","--no-sandbox","--disable-gpu","--disable-dev-shm-usage","--disable-background-networking","--disable-component-update","--disable-sync","--no-first-run"]}}}}"#,
        setup::CHROMIUM
    );
    std::fs::create_dir_all(cmd::workspace_root().join("target"))?;
    std::fs::write(&path, config).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts_of(lines: &[&str]) -> TestCounts {
        let mut counts = TestCounts::default();
        for line in lines {
            if let Some(found) = cmd::parse_test_result(line) {
                counts.add(found);
            }
            if let Some(name) = cmd::parse_ignored_test(line) {
                counts.ignored_names.push(name.to_string());
            }
        }
        counts
    }

    #[test]
    fn only_the_deliberately_ignored_tests_may_be_ignored() {
        let deliberate = counts_of(&[
            "test record_the_example ... ignored, records examples/recordings/rollout.jsonl again",
            "test result: ok. 0 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out",
            "test load_timings ... ignored, measurement",
            "test result: ok. 9 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out",
        ]);
        assert_eq!(ignored_beyond_deliberate(&deliberate), None);

        let missing_kubectl = counts_of(&[
            "test record_the_example ... ignored, records examples/recordings/rollout.jsonl again",
            "test kubectl_get_lists_pods ... ignored, kubectl not on PATH",
            "test result: ok. 3 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out",
        ]);
        let message = ignored_beyond_deliberate(&missing_kubectl).expect("a failure");
        assert!(message.contains("kubectl_get_lists_pods"), "{message}");
        assert!(
            !message.contains("not on purpose: record_the_example"),
            "{message}"
        );

        // A summary counting more than the deliberate ones fails even without names.
        let unnamed = counts_of(&["test result: ok. 3 passed; 0 failed; 4 ignored; 0 measured"]);
        assert!(ignored_beyond_deliberate(&unnamed).is_some());
    }
}
