//! `cargo xtask bench`: prints measured figures; targets are checked by reading them, not by
//! timed tests. `cargo xtask bench [ui-size|model|server|ui|list|timeline|live]` runs one part; options
//! after `server` go to the server benchmark (e.g. `cargo xtask bench server --duration 5`).
//!
//! Every part also writes its figures to `target/bench/<part>.json`: the machine's cores, the
//! date (UTC), the commit, and `figures: [{name, goal, value, unit}]`. The parts run here
//! (`ui-size`, `model`, `server`) write theirs from their printed `bench <part>: key=value`
//! lines; the browser benchmarks write their own (tests/common, `bench::Figures`). At the end
//! a table of figure, goal and measured value is printed from those files.
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
const PARTS: [&str; 7] = [
    "ui-size", "model", "server", "ui", "list", "timeline", "live",
];

/// The browser benchmarks: part and the test target that measures it.
const BROWSER_BENCHES: [(&str, &str); 4] = [
    ("ui", "bench_ui"),
    ("list", "bench_list"),
    ("timeline", "bench_timeline"),
    ("live", "bench_live"),
];

/// The project's goals (README, "Measured figures") for figures measured here, by part and
/// name; the browser benchmarks give theirs themselves.
const GOALS: [(&str, &str, &str); 1] =
    [("ui-size", "page_start_gzip_kib", "≤ 300 KB (ceiling 450)")];

/// Where the figures go.
const BENCH_DIR: &str = "target/bench";

pub fn run(args: &[String]) -> Result<()> {
    let only = args.first().map(String::as_str);
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
            "kube-atlas",
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
    if wants("list") {
        println!("\nxtask bench: ==== UI: lists of 10,000 / 50,000 / 100,000 pods ====");
        if !built {
            build::release_ui()?;
            built = true;
        }
        browser_bench("bench_list")?;
        ran.push("list");
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
        }
        // Optimized (the `bench` profile): the in-process demo cluster must make 2,000 pod
        // writes a second, and a debug build makes about 100.
        setup::run(setup::Options { browser: true })?;
        cmd::run(crate::test::browser_tests(&["bench_live"]).args([
            "--profile",
            "bench",
            "--",
            "--nocapture",
            "--test-threads=1",
        ]))?;
        ran.push("live");
    }
    print_table(Path::new(BENCH_DIR), &ran, started)
}

/// Runs a browser benchmark (a test target needing the release build and Chromium). One test
/// at a time: two benchmarks of a target sharing the two cores would measure each other.
fn browser_bench(target: &str) -> Result<()> {
    setup::run(setup::Options { browser: true })?;
    cmd::run(crate::test::browser_tests(&[target]).args(["--", "--nocapture", "--test-threads=1"]))
}

/// `cargo xtask test`'s benchmark step: every browser benchmark in quick mode, on the debug
/// test build the end-to-end step made (only the benchmark targets are compiled) and its
/// release UI; then checks that each wrote its figures to `target/bench/quick/`.
pub fn quick_tests() -> Result<TestCounts> {
    let started = SystemTime::now();
    let clock = Instant::now();
    let targets: Vec<&str> = BROWSER_BENCHES.iter().map(|(_, target)| *target).collect();
    let counts =
        cmd::run_tests(crate::test::browser_tests(&targets).env("KUBE_ATLAS_BENCH_QUICK", "1"))?;
    let dir = Path::new(BENCH_DIR).join("quick");
    for (part, _) in BROWSER_BENCHES {
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
            },
            Figure {
                name: "count".into(),
                goal: None,
                value: 3.0,
                unit: String::new(),
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
}
