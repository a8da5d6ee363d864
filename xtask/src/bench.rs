//! `cargo xtask bench`: prints measured figures; targets are checked by reading them, not by
//! timed tests. `cargo xtask bench [ui-size|model|server|ui|list|list-real|timeline|live|logs|terminal|forward]` runs one part; options
//! after `server` go to the server benchmark (e.g. `cargo xtask bench server --duration 5`).
//!
//! Every part also writes its figures to `target/bench/<part>.json`: the machine's cores, the
//! date (UTC), the commit, and `figures: [{name, goal, value, unit}]`. The parts run here
//! (`ui-size`, `model`, `server`) write theirs from their printed `bench <part>: key=value`
//! lines; the browser benchmarks write their own (tests/common, `bench::Figures`). At the end
//! a table of figure, goal and measured value is printed from those files, and
//! `cargo xtask bench readme` writes the same into the README.
//!
//! `cargo xtask test` runs the browser benchmarks in quick mode (`KUBE_ATLAS_BENCH_QUICK=1`:
//! small sizes, short runs, figures in `target/bench/quick/`), see [`quick_tests`].

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::cmd::{self, TestCounts};
use crate::{build, setup};

/// Every part, in the order they run.
const PARTS: [&str; 13] = [
    "ui-size",
    "model",
    "server",
    "ui",
    "list",
    "list-real",
    "usage",
    "timeline",
    "live",
    "logs",
    "terminal",
    "map",
    "forward",
];

/// The browser benchmarks: part and the test target that measures it.
const BROWSER_BENCHES: [(&str, &str); 9] = [
    ("ui", "bench_ui"),
    ("list", "bench_list"),
    ("list-real", "bench_list"),
    ("usage", "bench_list"),
    ("timeline", "bench_timeline"),
    ("live", "bench_live"),
    ("logs", "bench_logs"),
    ("terminal", "bench_terminal"),
    ("map", "bench_map"),
];

/// The project's goals (README, "Measured figures") for figures measured here, by part and
/// name; the browser benchmarks give theirs themselves.
const GOALS: [(&str, &str, &str); 1] =
    [("ui-size", "page_start_gzip_kib", "≤ 300 KB (ceiling 450)")];

/// Where the figures go.
const BENCH_DIR: &str = "target/bench";

/// The README, whose "Measured figures" table `cargo xtask bench readme` writes between
/// these markers.
const README: &str = "README.md";
const README_START: &str = "<!-- bench figures: written by `cargo xtask bench readme` -->";
const README_END: &str = "<!-- end of bench figures -->";

pub fn run(args: &[String]) -> Result<()> {
    let only = args.first().map(String::as_str);
    if only == Some("readme") {
        return write_readme_figures(Path::new(BENCH_DIR), Path::new(README));
    }
    if let Some(part) = only.filter(|part| !PARTS.contains(part)) {
        bail!("unknown benchmark `{part}`: one of {}", PARTS.join(", "));
    }
    let started = SystemTime::now();
    let wants = |name: &str| only.is_none() || only == Some(name);
    let mut ran: Vec<&str> = Vec::new();
    if wants("ui-size") || wants("ui") {
        println!("\nxtask bench: ==== UI bundle size ====");
        let size = build::release_ui()?;
        let line = format!(
            "bench ui-size: wasm_raw_kib={} wasm_gzip_kib={} js_gzip_kib={} page_start_gzip_kib={} pages_gzip_kib={} page_modules={} editor_gzip_kib={} everything_gzip_kib={}",
            size.wasm_raw / 1024,
            size.wasm_gzip / 1024,
            size.js_gzip / 1024,
            (size.wasm_gzip + size.js_gzip) / 1024,
            size.chunks_gzip / 1024,
            size.chunk_files,
            size.editor_gzip / 1024,
            (size.wasm_gzip + size.js_gzip + size.chunks_gzip + size.editor_gzip) / 1024
        );
        println!("{line}");
        save_printed_figures("ui-size", &line)?;
        ran.push("ui-size");
    }
    if wants("model") {
        println!("\nxtask bench: ==== pure model (discovery parsing and tree) ====");
        let printed = run_teed(cmd::command("cargo").args([
            "run",
            "--quiet",
            "--profile",
            "bench",
            "-p",
            "kube-atlas-model",
            "--example",
            "bench_model",
        ]))?;
        save_printed_figures("model", &printed)?;
        ran.push("model");
    }
    if wants("server") {
        println!("\nxtask bench: ==== demo cluster: list 10,000 pods; 200 watchers during 1,000 writes/s ====");
        // Controllers off, so no simulated control plane competes for the CPUs. The server runs
        // on a runtime of its own; list and write times are its answers as clients see them,
        // the watch lag is end to end (fan-out plus the client's decoding), see bench_server.rs.
        // `cargo run --profile bench -p demo-cluster --example bench_server` runs it with them.
        let mut extra: Vec<String> = vec!["--no-controllers".into()];
        extra.extend(args.iter().skip(1).cloned());
        let printed = run_teed(
            cmd::command("cargo")
                .args(["run", "--quiet", "--profile", "bench", "-p", "demo-cluster"])
                .args(["--example", "bench_server", "--"])
                .args(&extra),
        )?;
        save_printed_figures("server", &printed)?;
        ran.push("server");
    }
    if wants("ui") {
        println!("\nxtask bench: ==== UI: tree painted time in headless Chromium ====");
        browser_bench("bench_ui")?;
        ran.push("ui");
    }
    // The release build the browser benchmarks drive, made once (ui-size made it already).
    let mut built = wants("ui");
    // `list` measures the lists on the demo cluster and on kube-apiserver; `list-real` only
    // the latter (minutes, where the demo cluster's 100,000 pods take most of an hour).
    if wants("list") || wants("list-real") || wants("usage") {
        if !built {
            build::release_ui()?;
            built = true;
        }
        if only == Some("list-real") {
            println!(
                "\nxtask bench: ==== UI: lists of 10,000 / 50,000 pods on kube-apiserver ===="
            );
            browser_bench_only("bench_list", Some(REAL_LISTS_TEST))?;
        } else if only == Some("usage") {
            println!(
                "\nxtask bench: ==== UI: 10,000 running pods with and without the CPU and MEMORY columns ===="
            );
            browser_bench_only("bench_list", Some(USAGE_TEST))?;
            ran.push("usage");
        } else {
            println!("\nxtask bench: ==== UI: lists of 10,000 / 50,000 / 100,000 pods ====");
            browser_bench("bench_list")?;
            ran.push("list");
            ran.push("usage");
        }
        ran.push("list-real");
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
        ran.push("timeline");
    }
    if wants("live") {
        println!(
            "\nxtask bench: ==== UI: live lists: idle CPU; 2,000 events/s into 50,000 pods; write-to-screen lag ===="
        );
        if !built {
            build::release_ui()?;
            built = true;
        }
        browser_bench("bench_live")?;
        ran.push("live");
    }
    if wants("logs") {
        println!(
            "\nxtask bench: ==== UI: workload logs through kube-atlas: first lines of 20 pods; 10 chatty pods (20,000 lines/s) into one view ===="
        );
        if !built {
            build::release_ui()?;
            built = true;
        }
        browser_bench("bench_logs")?;
        ran.push("logs");
    }
    if wants("terminal") {
        println!(
            "\nxtask bench: ==== UI: a terminal through kube-atlas and kube-apiserver: keystroke echo, seq 100000 ===="
        );
        if !built {
            build::release_ui()?;
            built = true;
        }
        browser_bench("bench_terminal")?;
        ran.push("terminal");
    }
    if wants("map") {
        println!(
            "\nxtask bench: ==== UI: the map of a 2,000-object namespace; a 100-pod rollout while it is shown ===="
        );
        if !built {
            build::release_ui()?;
        }
        browser_bench("bench_map")?;
        ran.push("map");
    }
    if wants("forward") {
        println!(
            "\nxtask bench: ==== port-forward: kube-atlas against kubectl port-forward on kube-apiserver ===="
        );
        forward_bench()?;
        ran.push("forward");
    }
    print_table(Path::new(BENCH_DIR), &ran, started)
}

/// The port-forward benchmark (part `forward`): a test of kube-atlas-server on the real
/// control plane, optimized; it writes `target/bench/forward.json` itself, each figure with
/// its goal (within 1.5x of kubectl's) and kubectl's value beside it.
fn forward_bench() -> Result<()> {
    setup::real_cluster()?;
    cmd::run(cmd::command("cargo").args([
        "test",
        "--profile",
        "bench",
        "-p",
        "kube-atlas-server",
        "--test",
        "bench_forward",
        "--",
        "--nocapture",
    ]))
}

/// Runs a browser benchmark (a test target needing the release build and Chromium). One test
/// at a time: two benchmarks of a target sharing the two cores would measure each other.
/// Optimized (the `bench` profile): the in-process demo cluster must make 2,000 pod writes a
/// second and create 100,000 pods; a debug build makes about 100 writes a second.
fn browser_bench(target: &str) -> Result<()> {
    browser_bench_only(target, None)
}

/// The test of `bench_list` that measures the lists on kube-apiserver (part `list-real`).
const REAL_LISTS_TEST: &str = "big_pod_lists_on_kube_apiserver";

/// The test of `bench_list` that measures the usage columns' cost (part `usage`).
const USAGE_TEST: &str = "pods_list_with_usage_columns";

/// The workload logs benchmark (part `logs`): kube-apiserver's stand-in kubelet writes the
/// `chatty` logs, so it runs on the real control plane only.
const REAL_LOGS_TEST: &str = "workload_logs_at_scale";

/// [`browser_bench`], running only the tests whose name contains `filter`, if given.
fn browser_bench_only(target: &str, filter: Option<&str>) -> Result<()> {
    setup::run(setup::Options { browser: true })?;
    let mut command = crate::test::browser_tests(&[target]);
    command.args([
        "--profile",
        "bench",
        "--",
        "--nocapture",
        "--test-threads=1",
    ]);
    command.args(filter);
    cmd::run(&mut command)
}

/// `cargo xtask test`'s benchmark step: every browser benchmark in quick mode, on the debug
/// test build the end-to-end step made (only the benchmark targets are compiled) and its
/// release UI; then checks that each wrote its figures to `target/bench/quick/`.
pub fn quick_tests() -> Result<TestCounts> {
    let started = SystemTime::now();
    let clock = Instant::now();
    let mut targets: Vec<&str> = BROWSER_BENCHES.iter().map(|(_, target)| *target).collect();
    // One target can measure two parts (`bench_list`: list, list-real).
    targets.dedup();
    let counts =
        cmd::run_tests(crate::test::browser_tests(&targets).env("KUBE_ATLAS_BENCH_QUICK", "1"))?;
    let dir = Path::new(BENCH_DIR).join("quick");
    for (part, _) in BROWSER_BENCHES {
        // Without the control plane the real-server lists show as ignored (a failure under
        // CI, where `check_ignored` names them), and write nothing.
        let real_only_test = match part {
            "list-real" => Some(REAL_LISTS_TEST),
            "logs" => Some(REAL_LOGS_TEST),
            _ => None,
        };
        if real_only_test
            .is_some_and(|test| counts.ignored_names.iter().any(|name| name.contains(test)))
        {
            println!("xtask: bench {part} (quick): ignored, no control plane");
            continue;
        }
        let path = dir.join(format!("{part}.json"));
        let written = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .with_context(|| format!("the quick `{part}` benchmark wrote no {}", path.display()))?;
        if written < started {
            bail!("{} is older than this run", path.display());
        }
        let figures = read_figures(&path)?.figures;
        if figures.is_empty() {
            bail!("{} has no figures", path.display());
        }
        println!(
            "xtask: bench {part} (quick): {} figures in {}",
            figures.len(),
            path.display()
        );
    }
    println!(
        "xtask: quick benchmarks ran in {:.0} s",
        clock.elapsed().as_secs_f64()
    );
    Ok(counts)
}

/// One measured figure, as written to and read from the JSON files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Figure {
    name: String,
    goal: Option<String>,
    value: f64,
    unit: String,
    /// How the value came about, in words (the browser benchmarks write one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

/// Runs to completion like [`cmd::run`], echoing stdout and returning it.
fn run_teed(command: &mut Command) -> Result<String> {
    println!("xtask: $ {}", cmd::describe(command));
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start `{}`", cmd::describe(command)))?;
    let mut printed = String::new();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap_or_default();
            println!("{line}");
            printed.push_str(&line);
            printed.push('\n');
        }
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("`{}` failed with {status}", cmd::describe(command));
    }
    Ok(printed)
}

/// The figures of printed `bench <part>: [label] key=value ... (remarks)` lines: each numeric
/// value, named `label key` (or `key`), its unit from the key's suffix (`_ms`, `_kib`, ...).
fn figures_from_lines(printed: &str, part: &str) -> Vec<Figure> {
    let mut figures = Vec::new();
    for line in printed.lines() {
        let Some(rest) = line.strip_prefix("bench ") else {
            continue;
        };
        let Some((_, rest)) = rest.split_once(": ") else {
            continue;
        };
        let rest = rest.split(" (").next().unwrap_or_default();
        // The words before the first key=value name what the line is about.
        let mut label: Vec<&str> = Vec::new();
        let mut pairs = false;
        for token in rest.split_whitespace() {
            let Some((key, value)) = token.split_once('=') else {
                if !pairs {
                    label.push(token);
                }
                continue;
            };
            pairs = true;
            let Some(value) = value.parse::<f64>().ok().filter(|v| v.is_finite()) else {
                continue;
            };
            let name = if label.is_empty() {
                key.to_string()
            } else {
                format!("{} {key}", label.join(" "))
            };
            let goal = GOALS
                .iter()
                .find(|(p, n, _)| *p == part && *n == name)
                .map(|(_, _, goal)| goal.to_string());
            figures.push(Figure {
                name,
                goal,
                value,
                unit: unit_of(key).to_string(),
                detail: None,
            });
        }
    }
    figures
}

/// A figure's unit, from its key's suffix; "" for counts.
fn unit_of(key: &str) -> &'static str {
    if key.ends_with("_per_s") || key.starts_with("rate") {
        "/s"
    } else if key.ends_with("_ms") {
        "ms"
    } else if key.ends_with("_s") || key == "secs" {
        "s"
    } else if key.ends_with("_kib") {
        "KiB"
    } else if key.ends_with("_mib") {
        "MiB"
    } else if key == "bytes" || key.ends_with("_bytes") {
        "bytes"
    } else {
        ""
    }
}

/// Writes the figures of a part's printed lines to `target/bench/<part>.json`.
fn save_printed_figures(part: &str, printed: &str) -> Result<()> {
    let figures = figures_from_lines(printed, part);
    let path = Path::new(BENCH_DIR).join(format!("{part}.json"));
    std::fs::create_dir_all(BENCH_DIR).with_context(|| format!("creating {BENCH_DIR}"))?;
    std::fs::write(&path, figures_json(part, &figures))
        .with_context(|| format!("writing {}", path.display()))?;
    println!("bench {part}: wrote {}", path.display());
    Ok(())
}

/// A part's JSON document, as the browser benchmarks write it too (tests/common).
#[derive(Debug, Serialize, Deserialize)]
struct PartDocument {
    part: String,
    #[serde(default)]
    quick: bool,
    #[serde(default)]
    cores: usize,
    #[serde(default)]
    date: String,
    #[serde(default)]
    commit: Option<String>,
    #[serde(default)]
    load_average: String,
    figures: Vec<Figure>,
    #[serde(default)]
    notes: Vec<String>,
}

fn figures_json(part: &str, figures: &[Figure]) -> String {
    let load_average = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let document = PartDocument {
        part: part.to_string(),
        quick: false,
        cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
        date: chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        commit: git_commit(),
        load_average: load_average
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        figures: figures.to_vec(),
        notes: Vec::new(),
    };
    // Plain data: serializing cannot fail.
    serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"
}

/// `git rev-parse HEAD`, if git answers.
fn git_commit() -> Option<String> {
    let output = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let commit = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (output.status.success() && !commit.is_empty()).then_some(commit)
}

/// What the table needs of a part's file.
struct PartFigures {
    date: String,
    commit: String,
    cores: f64,
    load_average: String,
    figures: Vec<Figure>,
}

fn read_figures(path: &Path) -> Result<PartFigures> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let document: PartDocument =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    Ok(PartFigures {
        date: document.date,
        commit: document
            .commit
            .unwrap_or_else(|| "?".into())
            .chars()
            .take(12)
            .collect(),
        cores: document.cores as f64,
        load_average: document.load_average,
        figures: document.figures,
    })
}

/// The closing table: figure, goal and measured value of every part that ran, read back from
/// the JSON files (a file older than this run is said to be so).
fn print_table(dir: &Path, ran: &[&str], started: SystemTime) -> Result<()> {
    let mut rows: Vec<[String; 3]> = Vec::new();
    let mut headers: Vec<String> = Vec::new();
    for part in ran {
        let path = dir.join(format!("{part}.json"));
        let stale = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .map_or(true, |written| written < started);
        let read = match read_figures(&path) {
            Ok(read) => read,
            Err(error) => {
                headers.push(format!("{part}: no figures: {error:#}"));
                continue;
            }
        };
        headers.push(format!(
            "{part}: {} figures, {}, commit {}, {} cores{}",
            read.figures.len(),
            read.date,
            read.commit,
            read.cores,
            if stale {
                " [NOT written by this run]"
            } else {
                ""
            }
        ));
        for figure in read.figures {
            rows.push([
                format!("{part}: {}", figure.name),
                figure.goal.unwrap_or_else(|| "-".into()),
                format!("{} {}", number(figure.value), figure.unit)
                    .trim_end()
                    .to_string(),
            ]);
        }
    }
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].chars().count())
            .chain([["figure", "goal"][column.min(1)].len()])
            .max()
            .unwrap_or(0)
    };
    let (name_width, goal_width) = (width(0), width(1));
    println!("\nxtask bench: ==== figures (from {}/) ====", dir.display());
    for header in &headers {
        println!("xtask bench: {header}");
    }
    let pad = |text: &str, width: usize| {
        format!(
            "{text}{}",
            " ".repeat(width.saturating_sub(text.chars().count()))
        )
    };
    println!(
        "{}  {}  measured",
        pad("figure", name_width),
        pad("goal", goal_width)
    );
    for [name, goal, measured] in &rows {
        println!(
            "{}  {}  {measured}",
            pad(name, name_width),
            pad(goal, goal_width)
        );
    }
    Ok(())
}

/// Rewrites the README's figures table from the full runs' files in `dir` (quick-mode figures
/// are never shown there): a row per figure with its goal, the value and how it came about,
/// and per part the command, date, commit, cores and load average. Figures get into the
/// README only this way, so none is typed in by hand.
fn write_readme_figures(dir: &Path, readme: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(readme).with_context(|| format!("reading {}", readme.display()))?;
    let (Some(start), Some(end)) = (text.find(README_START), text.find(README_END)) else {
        bail!(
            "{} has no figures block (`{README_START}` ... `{README_END}`)",
            readme.display()
        );
    };
    let written_before = &text[start + README_START.len()..end];
    let mut parts = Vec::new();
    for part in PARTS {
        let path = dir.join(format!("{part}.json"));
        if path.exists() {
            parts.push((part, Section::Measured(read_figures(&path)?)));
        } else if let Some(rows) = section_rows(written_before, part) {
            // The rows an earlier run of that part wrote, with its date and commit.
            println!(
                "xtask bench readme: no {}: the README keeps that part's rows as they are",
                path.display()
            );
            parts.push((part, Section::Kept(rows)));
        } else {
            println!(
                "xtask bench readme: no {} (run `cargo xtask bench {part}`)",
                path.display()
            );
        }
    }
    if !parts
        .iter()
        .any(|(_, section)| matches!(section, Section::Measured(_)))
    {
        bail!(
            "no figures in {}: run `cargo xtask bench` first",
            dir.display()
        );
    }
    let block = readme_block(&parts);
    let body = format!("{}{README_START}\n{block}{}", &text[..start], &text[end..]);
    std::fs::write(readme, body).with_context(|| format!("writing {}", readme.display()))?;
    println!(
        "xtask bench readme: {} figures of {} parts written to {}",
        parts
            .iter()
            .map(|(_, section)| match section {
                Section::Measured(read) => read.figures.len(),
                Section::Kept(_) => 0,
            })
            .sum::<usize>(),
        parts.len(),
        readme.display()
    );
    Ok(())
}

/// Figures without a goal that the README shows too (part, a part of the name): the
/// references users know and what explains the figures with goals.
const README_EXTRAS: [(&str, &str); 25] = [
    ("ui-size", "pages_gzip_kib"),
    ("ui-size", "editor_gzip_kib"),
    ("model", "parse_and_build_ms"),
    ("server", "list_pods median_ms"),
    ("server", "list_pods_table median_ms"),
    ("server", "watch end_to_end_lag_p99_ms"),
    ("server", "watch lost"),
    ("ui", "API requests until the tree is painted"),
    ("list", "first_rows_ms"),
    ("list", "whole_list_ms"),
    ("list", "page_memory_mib"),
    ("list", "kubectl_get_pods wall_ms"),
    ("list", "kubectl_get_pods max_rss_mib"),
    ("list-real", "first_rows_ms"),
    ("list-real", "whole_list_ms"),
    ("list-real", "page_memory_mib"),
    ("list-real", "kubectl_get_pods wall_ms"),
    ("list-real", "kubectl_get_pods max_rss_mib"),
    ("timeline", "memory_start_mib"),
    ("timeline", "memory_end_mib"),
    ("live", "page memory"),
    ("live", "main thread busy"),
    ("live", "real: list of"),
    ("forward", "first_byte_p90_ms"),
    ("forward", "kubectl"),
];

/// The markdown between the README's markers.
/// One part's rows of the README table: measured now (its file), or kept from the README.
enum Section {
    Measured(PartFigures),
    Kept(String),
}

/// The rows of `part`'s section in the README's table as written before (its heading row and
/// figures), if it has one.
fn section_rows(block: &str, part: &str) -> Option<String> {
    let heading = format!("| **`cargo xtask bench {part}`**");
    let mut lines = block.lines().skip_while(|line| !line.starts_with(&heading));
    let first = lines.next()?;
    let mut rows = format!("{first}\n");
    for line in lines.take_while(|line| line.starts_with("| ") && !line.starts_with("| **`")) {
        rows.push_str(line);
        rows.push('\n');
    }
    Some(rows)
}

fn readme_block(parts: &[(&str, Section)]) -> String {
    let cell = |text: &str| text.replace('|', "\\|").replace('\n', " ");
    let mut out = String::from("| figure | goal | measured |\n|---|---|---|\n");
    for (part, section) in parts {
        let read = match section {
            Section::Measured(read) => read,
            Section::Kept(rows) => {
                out.push_str(rows);
                continue;
            }
        };
        out.push_str(&format!(
            "| **`cargo xtask bench {part}`** ({}, commit {}, {} cores, load {}) | | |\n",
            read.date.get(..10).unwrap_or(&read.date),
            read.commit.get(..8).unwrap_or(&read.commit),
            read.cores,
            if read.load_average.is_empty() {
                "?"
            } else {
                &read.load_average
            },
        ));
        let shown = read.figures.iter().filter(|figure| {
            figure.goal.is_some()
                || README_EXTRAS
                    .iter()
                    .any(|(p, name)| p == part && figure.name.contains(name))
        });
        for figure in shown {
            let value = format!("{} {}", number(figure.value), figure.unit);
            let measured = match &figure.detail {
                Some(detail) => format!("{}: {detail}", value.trim_end()),
                None => value.trim_end().to_string(),
            };
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                cell(&figure.name),
                cell(figure.goal.as_deref().unwrap_or("—")),
                cell(&measured)
            ));
        }
    }
    out
}

/// A measured value as the table shows it: whole numbers whole, small ones with 3 decimals.
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else if value.abs() < 1.0 {
        format!("{value:.3}")
    } else if value.abs() < 100.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_without_a_file_keeps_its_rows() {
        let block = "\n| figure | goal | measured |\n|---|---|---|\n\
            | **`cargo xtask bench model`** (2026-11-24, commit e213e79c, 2 cores, load 1) | | |\n\
            | parse_and_build_ms | — | 2.5 ms |\n\
            | **`cargo xtask bench server`** (2026-11-24, commit e213e79c, 2 cores, load 1) | | |\n\
            | list_pods median_ms | — | 22 ms |\n\
            | watch lost | — | 0 |\n\n";
        assert_eq!(
            section_rows(block, "server").as_deref(),
            Some(
                "| **`cargo xtask bench server`** (2026-11-24, commit e213e79c, 2 cores, load 1) | | |\n\
                 | list_pods median_ms | — | 22 ms |\n| watch lost | — | 0 |\n"
            )
        );
        let model = section_rows(block, "model").expect("model rows");
        assert_eq!(model.lines().count(), 2, "{model}");
        assert_eq!(section_rows(block, "live"), None);
        let table = readme_block(&[("model", Section::Kept(model))]);
        assert!(
            table.ends_with("| parse_and_build_ms | — | 2.5 ms |\n"),
            "{table}"
        );
    }

    #[test]
    fn figures_of_printed_lines() {
        let printed = "noise\n\
            bench model: document_kib=812 groups=345 parse_and_build_ms=3.25 filter_ms=0.012 (native, mean of 50)\n\
            bench demo-cluster: list_pods n=10000 reps=5 median_ms=41.5 bytes=123\n\
            bench demo-cluster: drop_pods via=deletecollection secs=1.50\n\
            bench ui-size: page_start_gzip_kib=748\n";
        let figures = figures_from_lines(printed, "ui-size");
        let names: Vec<&str> = figures.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "document_kib",
                "groups",
                "parse_and_build_ms",
                "filter_ms",
                "list_pods n",
                "list_pods reps",
                "list_pods median_ms",
                "list_pods bytes",
                "drop_pods secs",
                "page_start_gzip_kib",
            ]
        );
        let units: Vec<&str> = figures.iter().map(|f| f.unit.as_str()).collect();
        assert_eq!(
            units,
            ["KiB", "", "ms", "ms", "", "", "ms", "bytes", "s", "KiB"]
        );
        assert_eq!(figures[2].value, 3.25);
        assert_eq!(figures[9].goal.as_deref(), Some("≤ 300 KB (ceiling 450)"));
        assert_eq!(figures[0].goal, None);
    }

    #[test]
    fn written_figures_read_back() {
        let figures = vec![
            Figure {
                name: "a \"quoted\" name ≤ \\".into(),
                goal: Some("≤ 50 ms".into()),
                value: 12.5,
                unit: "ms".into(),
                detail: Some("p50 3 / p99 12.5 ms".into()),
            },
            Figure {
                name: "count".into(),
                goal: None,
                value: 3.0,
                unit: String::new(),
                detail: None,
            },
        ];
        let text = figures_json("model", &figures);
        let document: PartDocument = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(document.part, "model");
        assert!(!document.quick);
        assert!(document.cores >= 1);
        let dir = std::env::temp_dir().join(format!("xtask-bench-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("model.json");
        std::fs::write(&path, &text).expect("written");
        let read = read_figures(&path).expect("read back");
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(read.figures, figures);
    }

    #[test]
    fn the_readme_block_is_replaced_from_the_files_and_the_rest_is_kept() {
        let dir = std::env::temp_dir().join(format!("xtask-readme-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let figures = vec![Figure {
            name: "longest | frame".into(),
            goal: Some("≤ 50 ms".into()),
            value: 83.4,
            unit: "ms".into(),
            detail: Some("1 of 1194 frames".into()),
        }];
        std::fs::write(dir.join("live.json"), figures_json("live", &figures)).expect("written");
        let readme = dir.join("README.md");
        std::fs::write(
            &readme,
            format!("# Title\n\n{README_START}\n| old | row |\n{README_END}\n\nNotes stay.\n"),
        )
        .expect("written");
        write_readme_figures(&dir, &readme).expect("rewritten");
        let text = std::fs::read_to_string(&readme).expect("read");
        std::fs::remove_dir_all(&dir).ok();
        assert!(text.starts_with("# Title\n\n"), "{text}");
        assert!(
            text.ends_with(&format!("{README_END}\n\nNotes stay.\n")),
            "{text}"
        );
        assert!(!text.contains("| old | row |"), "{text}");
        assert!(text.contains("**`cargo xtask bench live`**"), "{text}");
        assert!(
            text.contains("| longest \\| frame | ≤ 50 ms | 83.4 ms: 1 of 1194 frames |"),
            "{text}"
        );
    }
}
